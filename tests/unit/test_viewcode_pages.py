"""A module's source page is rewritten when a document describing its objects changed (book/_ext/viewcode_pages.py)."""

import importlib.util
import os
from types import SimpleNamespace

from lib.util.paths import ROOT

spec = importlib.util.spec_from_file_location("viewcode_pages", ROOT / "book" / "_ext" / "viewcode_pages.py")
viewcode_pages = importlib.util.module_from_spec(spec)
spec.loader.exec_module(viewcode_pages)


def _app(tmp_path, used):
    env = SimpleNamespace(
        _viewcode_modules={"lib.util.stats": ("code", {}, used, "lib.util.stats")},
        doc2path=lambda docname: str(tmp_path / f"{docname}.md"),
    )
    return SimpleNamespace(outdir=str(tmp_path / "html"), env=env, builder=SimpleNamespace(env=env, out_suffix=".html"))


def test_a_page_older_than_a_document_describing_its_module_is_rewritten(tmp_path, monkeypatch):
    monkeypatch.setattr(viewcode_pages, "_module_file_rule", lambda app, modname: False)  # the module's file is old
    page = tmp_path / "html" / "_modules" / "lib" / "util" / "stats.html"
    page.parent.mkdir(parents=True)
    page.write_text("<html/>")
    (tmp_path / "code.md").write_text("autodoc of lib.util.stats.decide")
    app = _app(tmp_path, {"lib.util.stats.decide": "code"})
    os.utime(page, (1_000, 1_000))
    os.utime(tmp_path / "code.md", (2_000, 2_000))
    assert viewcode_pages.should_generate_module_page(app, "lib.util.stats")
    os.utime(page, (3_000, 3_000))
    assert not viewcode_pages.should_generate_module_page(app, "lib.util.stats")
    page.unlink()
    assert viewcode_pages.should_generate_module_page(app, "lib.util.stats")
