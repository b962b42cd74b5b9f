"""Chapter sources hold prose and calls only: every computation is a tested `lib` function (GUIDE, issue 22)."""

import ast

import pytest

from lib.book.chapters import chapter_ids
from lib.util.paths import NOTEBOOKS


def _code(chapter_id: str) -> ast.Module:
    """The notebook's code cells as one module (jupytext py:percent: Markdown cells are comments)."""
    import jupytext

    notebook = jupytext.read(NOTEBOOKS / f"{chapter_id}.py")
    source = "\n".join(c.source for c in notebook.cells if c.cell_type == "code")
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    return ast.parse("\n".join(lines))


@pytest.mark.parametrize("chapter_id", chapter_ids())
def test_notebooks_define_no_functions_or_classes(chapter_id):
    tree = _code(chapter_id)
    defined = [
        f"line {node.lineno}: {getattr(node, 'name', None) or ast.unparse(node)[:40]}"
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        or (isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda))
    ]
    assert not defined, f"{chapter_id} defines functions (move them to a tested lib function): {defined}"


@pytest.mark.parametrize("chapter_id", chapter_ids())
def test_a_chapters_heading_is_its_declared_title(chapter_id):
    """The title the scorecard, the parameters page and the README give a chapter is the one its page shows."""
    from lib.book.chapters import load

    heading = next(
        line for line in (NOTEBOOKS / f"{chapter_id}.py").read_text().splitlines() if line.startswith("# # ")
    )
    assert heading == f"# # {load(chapter_id).title}"
