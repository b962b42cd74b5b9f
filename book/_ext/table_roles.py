"""Sphinx extension: every table of a page names the roles of its parts (`role="table"`, "rowgroup", "row",
"columnheader", "rowheader", "cell"), the roles its HTML elements have by default.

book.css lays tables out anew: on a phone every table is a block and the prose tables read as cards, their header
out of sight; at the desk a claims table is a grid of its cells, its rows `display: contents`. Browsers have taken a
table's semantics away under such display values, so that a screen reader no longer hears rows and columns; the
roles, written out, keep them whatever the stylesheet does (Adrian Roselli, "Tables, CSS Display Properties, and
ARIA", 2018). The browser check `test_a_screen_reader_hears_each_tables_column_names` reads the accessibility tree.
"""

from __future__ import annotations

import re

from sphinx.application import Sphinx

_TAG = re.compile(r"<(/?)(table|thead|tbody|tfoot|tr|th|td)(?=[\s>])([^>]*)>")
_ROLE = {"table": "table", "thead": "rowgroup", "tbody": "rowgroup", "tfoot": "rowgroup", "tr": "row", "td": "cell"}


def with_roles(html: str) -> str:
    """`html` with the role of each table element written into its start tag: a header cell of the table's head a
    column header, one in its body a row header. A tag that already names a role keeps it."""
    in_head = False

    def tagged(match: re.Match) -> str:
        nonlocal in_head
        closing, name, attributes = match.groups()
        if name == "thead":
            in_head = not closing
        if closing or re.search(r"\brole=", attributes):
            return match.group(0)
        role = ("columnheader" if in_head else "rowheader") if name == "th" else _ROLE[name]
        return f'<{name} role="{role}"{attributes}>'

    return _TAG.sub(tagged, html)


def add_roles(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    """Write the roles into the page's body before its template is rendered."""
    if "body" in context:
        context["body"] = with_roles(context["body"])


def setup(app: Sphinx) -> dict:
    app.connect("html-page-context", add_roles)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
