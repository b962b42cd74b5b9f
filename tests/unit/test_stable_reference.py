"""`lib refs ID` twice gives the same bytes: lib.book.run.runner.stable_reference strips what differs between runs."""

import nbformat

from lib.book.run.runner import stable_reference


def _run(stamp: str, staging: str, ids: tuple[str, str]) -> nbformat.NotebookNode:
    notebook = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell("steps = 5", metadata={"tags": ["injected-parameters"]}, id=ids[0]),
            nbformat.v4.new_code_cell(
                "print(1)  # NBVAL_CHECK_OUTPUT",
                id=ids[1],
                execution_count=2,
                outputs=[nbformat.v4.new_output("stream", text="1\n")],
                metadata={
                    "tags": ["remove-input"],
                    "execution": {"iopub.execute_input": stamp},
                    "papermill": {"start_time": stamp, "duration": len(stamp), "status": "completed"},
                },
            ),
        ]
    )
    notebook.metadata["papermill"] = {
        "parameters": {"steps": 5},
        "default_parameters": {},
        "version": "2.7.0",
        "start_time": stamp,
        "end_time": stamp,
        "duration": 17.1,
        "input_path": f"/work/{staging}/one_layer.source.ipynb",
        "output_path": f"/work/{staging}/one_layer.ipynb",
        "environment_variables": {},
        "exception": None,
    }
    return notebook


def test_two_runs_give_the_same_bytes():
    first = _run("2026-11-23T21:06:36Z", ".staging-one_layer-abc", ("2bf6ee80", "9d1c"))
    second = _run("2026-11-25T08:00:01Z", ".staging-one_layer-xyz", ("77aa01", "e3f0"))
    assert nbformat.writes(first) != nbformat.writes(second)
    text = nbformat.writes(stable_reference(first))
    assert text == nbformat.writes(stable_reference(second))
    assert "staging" not in text and "2026" not in text and "duration" not in text
    kept = nbformat.reads(text, as_version=4)
    assert kept.metadata.papermill == {"parameters": {"steps": 5}, "default_parameters": {}, "version": "2.7.0"}
    assert kept.cells[1].metadata == {"tags": ["remove-input"]} and kept.cells[1].outputs[0].text == "1\n"
    nbformat.validate(kept)
