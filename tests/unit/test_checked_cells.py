"""The page shows a chapter's headline cell without nbval's marker; the notebook keeps it (book/_ext/checked_cells.py)."""

import importlib.util

from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser
from docutils.utils import new_document

from lib.util.paths import ROOT

spec = importlib.util.spec_from_file_location("checked_cells", ROOT / "book" / "_ext" / "checked_cells.py")
checked_cells = importlib.util.module_from_spec(spec)
spec.loader.exec_module(checked_cells)


def test_the_markers_line_leaves_the_page_and_the_rest_of_the_cell_stays():
    document = new_document("page", get_default_settings(Parser))
    cell = '# NBVAL_CHECK_OUTPUT\nrun.headline("a", digits=3)\nx = "# NBVAL_CHECK_OUTPUT in a string"'
    document += nodes.literal_block(cell, cell)
    document += nodes.literal_block("print(1)", "print(1)")
    checked_cells.hide_markers(None, document)
    blocks = [block.astext() for block in document.findall(nodes.literal_block)]
    assert blocks == ['run.headline("a", digits=3)\nx = "# NBVAL_CHECK_OUTPUT in a string"', "print(1)"]
