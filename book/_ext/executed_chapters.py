"""Sphinx extension: refuse to build the book before `make book` has executed its chapters.

The table of contents names executed notebooks (`book/chapters/ID.ipynb`) and generated pages
(`book/generated/*.md`) that only `make book` writes. Plain `jupyter-book build .` on a fresh
clone would otherwise render a book with no chapters; this stops it with the command to run.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from sphinx.application import Sphinx
from sphinx.errors import ConfigError

GENERATED = ("book/chapters/", "book/generated/")


def missing_pages(root: Path) -> list[str]:
    """Entries of `_toc.yml` under book/chapters or book/generated that have no file yet."""
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    files = [c["file"] for part in toc.get("parts", []) for c in part.get("chapters", []) if "file" in c]
    return [
        f
        for f in files
        if f.startswith(GENERATED) and not any((root / f).with_suffix(s).exists() for s in (".ipynb", ".md"))
    ]


def check_executed(app: Sphinx, config) -> None:
    missing = missing_pages(Path(app.confdir))
    if missing:
        raise ConfigError(
            f"{len(missing)} pages of the book are not generated yet ({', '.join(missing[:3])}"
            f"{', ...' if len(missing) > 3 else ''}): run `make book`, which executes the chapters and then builds"
        )


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", check_executed)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
