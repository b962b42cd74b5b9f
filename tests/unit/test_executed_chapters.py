"""Plain `jupyter-book build .` before `make book` stops with the command to run (book/_ext)."""

import importlib.util

import pytest
from sphinx.errors import ConfigError

from lib.util.paths import ROOT

spec = importlib.util.spec_from_file_location("executed_chapters", ROOT / "book" / "_ext" / "executed_chapters.py")
executed_chapters = importlib.util.module_from_spec(spec)
spec.loader.exec_module(executed_chapters)


def _book(tmp_path, *present):
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: book/intro\nparts:\n  - caption: c\n    chapters:\n"
        "      - file: book/chapters/one_layer\n      - file: book/generated/scorecard\n      - file: book/catalogue\n"
    )
    for name in present:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    return tmp_path


def test_missing_generated_pages_are_listed(tmp_path):
    assert executed_chapters.missing_pages(_book(tmp_path)) == ["book/chapters/one_layer", "book/generated/scorecard"]
    done = _book(tmp_path, "book/chapters/one_layer.ipynb", "book/generated/scorecard.md")
    assert executed_chapters.missing_pages(done) == []


def test_the_build_stops_naming_make_book(tmp_path):
    class App:
        confdir = str(_book(tmp_path))

    with pytest.raises(ConfigError, match="run `make book`"):
        executed_chapters.check_executed(App(), None)
