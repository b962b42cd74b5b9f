"""lib/book/pages/rerun.py: an executed chapter as one standalone offline page."""

import re

import nbformat
import pytest

from lib.book.chapters import load
from lib.book.pages.rerun import changed_parameters, chapter_of, render_page

PROSE = """# A chapter

As {cite:p}`yang2025swingby` show, the loss is {glue:text}`loss_value` (see {numref}`fig-a` and {eq}`eq-a`).

$$ a = b $$ (eq-a)

```{prf:theorem} Closed form
:label: thm-a

It holds, $x^2 \\ge 0$.
```

```{glue:figure} fig_a
:name: fig-a

A figure.
```
"""


def _executed(parameters: dict) -> nbformat.NotebookNode:
    glue = nbformat.v4.new_output(
        "display_data",
        data={"application/papermill.record/text/plain": "0.125"},
        metadata={"scrapbook": {"name": "loss_value", "mime_prefix": "application/papermill.record/"}},
    )
    figure = nbformat.v4.new_output(
        "display_data",
        data={
            "application/papermill.record/image/png": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="
        },
        metadata={"scrapbook": {"name": "fig_a", "mime_prefix": "application/papermill.record/"}},
    )
    notebook = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(
                "guard_parameters('one_layer')  # SECRET-GUARD", metadata={"tags": ["remove-cell"]}
            ),
            nbformat.v4.new_code_cell("steps = 400  # SECRET-DEFAULTS", metadata={"tags": ["parameters"]}),
            nbformat.v4.new_code_cell("steps = 50  # SECRET-INJECTED", metadata={"tags": ["injected-parameters"]}),
            nbformat.v4.new_code_cell(
                'run = start_chapter("one_layer", globals())', metadata={"tags": ["remove-cell"]}
            ),
            nbformat.v4.new_code_cell(
                "run.metric('loss_value', 0.125)", outputs=[glue, figure], metadata={"tags": ["remove-cell"]}
            ),
            nbformat.v4.new_markdown_cell(PROSE),
            nbformat.v4.new_code_cell(
                "print('shown')  # VISIBLE-SOURCE", outputs=[nbformat.v4.new_output("stream", text="shown\n")]
            ),
            nbformat.v4.new_code_cell("1 + 1  # HIDDEN-SOURCE", metadata={"tags": ["hide-input"]}),
        ]
    )
    for count, cell in enumerate((c for c in notebook.cells if c.cell_type == "code"), start=1):
        cell.execution_count = count  # every cell ran: a page shows a run that finished
    notebook.metadata["papermill"] = {"parameters": parameters}
    return notebook


def test_changed_parameters_and_chapter():
    notebook = _executed({"steps": 50, "d": 64})
    assert chapter_of(notebook).id == "one_layer"
    assert changed_parameters(notebook, load("one_layer")) == {"steps": (50, 400)}
    with pytest.raises(ValueError, match="not a chapter"):
        chapter_of(nbformat.v4.new_notebook())


def test_the_page_stands_alone(tmp_path):
    path = tmp_path / "out.ipynb"
    nbformat.write(_executed({"steps": 50}), path)
    page = render_page(path).read_text()
    assert render_page(path) == tmp_path / "out.html"
    text = re.sub(r"<script>.*?</script>", "", page, flags=re.S)
    assert "0.125" in text and "{glue" not in text and "{cite" not in text and "{numref" not in text
    assert "Yang et al., 2025" in text and ">Fig. 1<" in text and ">(1)<" in text and "Theorem 1 (Closed form)" in text
    assert "SECRET" not in text and "HIDDEN-SOURCE" not in text and "VISIBLE-SOURCE" in text
    cells = re.findall(r'<td><p><span class="docutils literal">([^<]*)</span></p></td>', text)
    assert cells == ["steps", "50", "400"]  # the parameters that differ from the defaults, at the top
    assert 'src="data:image/png;base64,' in text  # figures embedded
    assert "<script src" not in page and 'src="http' not in page and "MathJax" in page  # vendored MathJax, inline
    assert str(tmp_path) not in text  # no machine path
