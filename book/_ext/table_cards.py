"""Sphinx extension: each cell of a table read as cards on a phone (a `{table}` of class `book-cards`: the
parameters, the changelog; or `book-switches`: the notes' prose tables) carries its column's name, which book.css
shows only on a phone, where such a table reads as one card per row.

A card's cells stand one under another without the table's header, so "the authors' code" or "the book" would be
lost; the names are the header's own words, put in by this transform rather than typed in every cell.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx

CARD_TABLES = {"book-cards", "book-switches"}


def label_cells(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Put the column's name ("paper: ") at the start of every non-empty body cell of each card table but the
    first, which is the card's title."""
    for table in doctree.findall(nodes.table):
        if not CARD_TABLES & set(table["classes"]):
            continue
        head = next(table.findall(nodes.thead), None)
        body = next(table.findall(nodes.tbody), None)
        if head is None or body is None:
            continue
        names = [entry.astext().strip() for entry in next(head.findall(nodes.row)).findall(nodes.entry)]
        for row in body.findall(nodes.row):
            for name, entry in list(zip(names, row.findall(nodes.entry), strict=False))[1:]:
                first = next(entry.findall(nodes.paragraph), None)
                if first is not None and name and entry.astext().strip():
                    first.insert(0, nodes.inline("", f"{name}: ", classes=["book-label"]))


def setup(app: Sphinx) -> dict:
    app.connect("doctree-resolved", label_cells)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
