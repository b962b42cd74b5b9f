"""Sphinx extension: a chapter's code on the page carries no instruction to a test tool.

The cell that prints a chapter's headline numbers begins with `# NBVAL_CHECK_OUTPUT`, the comment that has nbval
compare its output with the committed reference (tests/notebooks; CONTRIBUTING.md). It tells a tool what to check;
it is not code a reader reruns or needs to read, so the page leaves that line out. The notebooks keep it.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx

MARKER = "# NBVAL_CHECK_OUTPUT"


def without_marker(source: str) -> str:
    """`source` without its lines that are the marker alone."""
    return "\n".join(line for line in source.split("\n") if line.strip() != MARKER)


def hide_markers(app: Sphinx, doctree: nodes.document) -> None:
    """Leave the marker's line out of every code block of the page (its source, before it is highlighted)."""
    for block in doctree.findall(nodes.literal_block):
        source = block.astext()
        if MARKER in source:
            shown = without_marker(source)
            block[:] = [nodes.Text(shown)]
            block.rawsource = shown


def setup(app: Sphinx) -> dict:
    app.connect("doctree-read", hide_markers)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
