"""The nbval references are up to date: same code as the chapter source, run at the smoke parameters."""

import jupytext
import nbformat
import pytest

from lib.book.chapters import chapter_ids, load
from lib.book.run.runner import REFERENCES


def _code(nb) -> list[str]:
    return [
        c.source.strip()
        for c in nb.cells
        if c.cell_type == "code" and not {"injected-parameters", "parameters"} & set(c.metadata.get("tags", []))
    ]


def _parameters_cell(nb) -> str:
    return next(c.source for c in nb.cells if "parameters" in c.metadata.get("tags", []))


@pytest.mark.parametrize("chapter_id", chapter_ids())
def test_reference_is_fresh(chapter_id):
    chapter = load(chapter_id)
    path = REFERENCES / f"{chapter_id}.ipynb"
    fix = f"regenerate it with `make refs` (or `.venv/bin/python -m lib refs {chapter_id}`) and commit it"
    assert path.exists(), f"no nbval reference {path}: {fix}"
    reference = nbformat.read(path, as_version=4)
    assert _code(reference) == _code(jupytext.read(chapter.notebook)), f"stale reference {path}: {fix}"
    assert _parameters_cell(reference) == chapter.parameters_source(), f"stale defaults in {path}: {fix}"
    assert reference.metadata.papermill.parameters == chapter.smoke, f"reference not at smoke parameters: {fix}"
    assert any("NBVAL_CHECK_OUTPUT" in c.source for c in reference.cells), "no cell is checked by nbval"
