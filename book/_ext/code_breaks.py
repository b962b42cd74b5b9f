"""Sphinx extension: a long name of the code breaks between its parts, never inside a word.

A caption or a table names the functions behind a result ("lib.theory.one_layer_compare.monotonicity_sweep()").
On a phone such a name is wider than the column, and breaking it anywhere (book.css) split its words
("monotonic" above "ity_sweep"). Here a line may break after each "." and "_" of a cross-referenced name
(`<wbr>`), and book.css lets it break nowhere else.
"""

from __future__ import annotations

import re

from sphinx.application import Sphinx

_NAME = re.compile(r'(<code class="xref[^"]*"><span class="pre">)([^<]*)(</span></code>)')


def with_breaks(html: str) -> str:
    """`html` with a break opportunity after every "." and "_" of each cross-referenced name of the code."""
    return _NAME.sub(lambda m: m.group(1) + re.sub(r"([._])(?=\w)", r"\1<wbr>", m.group(2)) + m.group(3), html)


def add_breaks(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    """Write the break opportunities into the page's body before its template is rendered."""
    if "body" in context:
        context["body"] = with_breaks(context["body"])


def setup(app: Sphinx) -> dict:
    app.connect("html-page-context", add_breaks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
