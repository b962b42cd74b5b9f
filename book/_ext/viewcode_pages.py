"""Sphinx extension: rewrite a module's highlighted source page ("Code behind the results" links to it) when the
documents that describe the module's objects changed, not only when the module's file did.

`sphinx.ext.viewcode` writes `_modules/<module>.html` only when the module's file is newer than the page. The page
also carries an anchor for each of the module's objects that a document describes (autodoc in
book/generated/code.md), so a function newly listed there, from a module whose file did not change, linked to an
anchor the kept page does not have: a broken link in an incremental build that a fresh build does not show.
"""

from __future__ import annotations

from pathlib import Path

from sphinx.application import Sphinx
from sphinx.ext import viewcode

_module_file_rule = viewcode.should_generate_module_page


def should_generate_module_page(app: Sphinx, modname: str) -> bool:
    """Viewcode's rule (the module's file newer than its page), or a document that describes one of its objects
    newer than its page."""
    if _module_file_rule(app, modname):
        return True
    entry = getattr(app.builder.env, "_viewcode_modules", {}).get(modname)
    page = Path(app.outdir) / "_modules" / (modname.replace(".", "/") + app.builder.out_suffix)
    if not entry or not page.exists():
        return True
    written = page.stat().st_mtime
    documents = {Path(app.env.doc2path(docname)) for docname in entry[2].values()}
    return any(not document.exists() or document.stat().st_mtime > written for document in documents)


def setup(app: Sphinx) -> dict:
    app.setup_extension("sphinx.ext.viewcode")
    viewcode.should_generate_module_page = should_generate_module_page  # looked up by name in collect_pages
    return {"parallel_read_safe": True, "parallel_write_safe": True}
