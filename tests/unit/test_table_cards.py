"""A card table's cells carry their column's name, for the phone's cards (book/_ext/table_cards.py)."""

import importlib.util

from docutils import nodes
from docutils.core import publish_doctree

from lib.util.paths import ROOT

spec = importlib.util.spec_from_file_location("table_cards", ROOT / "book" / "_ext" / "table_cards.py")
table_cards = importlib.util.module_from_spec(spec)
spec.loader.exec_module(table_cards)

TABLE = """
.. list-table::
   :header-rows: 1
   :class: {classes}

   * - topic
     - paper
     - the book
   * - time axis
     - flow time
     -
"""


def _labels(classes: str) -> list[str]:
    tree = publish_doctree(TABLE.format(classes=classes))
    table_cards.label_cells(None, tree, "notes")
    return [label.astext() for label in tree.findall(nodes.inline) if "book-label" in label["classes"]]


def test_a_card_tables_cells_carry_their_columns_name_but_the_title_and_empty_cells_do_not():
    assert _labels("book-switches") == ["paper: "] and _labels("book-cards") == ["paper: "]


def test_other_tables_are_left_alone():
    assert _labels("other") == []
