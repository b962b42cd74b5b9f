"""The papermill route (lib/book/run/papermill_route.py, lib.book.run.notebook.start_chapter): generated parameters cells,
the guard on injected cells, the cost check in the notebook, and where a papermill run writes."""

import ast
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from papermill.translators import PythonTranslator

import lib.book.chapters.declaration
import lib.book.run.notebook
from lib.book.chapters import chapter_ids, load
from lib.book.chapters.declaration import Chapter, ParameterError, Parameters, param
from lib.book.run.notebook import start_chapter
from lib.book.run.papermill_route import (
    InjectedParametersGuard,
    injected_cell_problem,
    look_alike_numbers,
    output_path_from_command,
    repeated_names,
    with_parameters_cell,
    write_parameters_cells,
)
from lib.util.paths import ROOT

BIN = Path(sys.executable).parent


@dataclass(frozen=True)
class Toy(Parameters):
    steps: int = param(10, "training steps (t = lr x steps)", min=3)
    mu: list[float] = param([1.0, 2.0], "means, s >= 2 of them", gt=0)
    tol: float | None = param(None, "stop tolerance; null never stops", gt=0)
    name: str = param("a'b", "a label")


TOY = Chapter(id="toy", title="toy", params=Toy)


def test_parameters_cells_match_their_declarations():
    stale = write_parameters_cells([load(c) for c in chapter_ids()], check=True)
    assert not stale, f"parameters cells differ from lib/book/chapters in {stale}: run `python -m lib params`"


@pytest.mark.parametrize("chapter_id", [*chapter_ids(), "toy"])
def test_papermill_infers_every_parameter_with_type_default_and_meaning(chapter_id):
    chapter = TOY if chapter_id == "toy" else load(chapter_id)
    cell = nbformat.v4.new_code_cell(chapter.parameters_source(), metadata={"tags": ["parameters"]})
    inferred = {p.name: p for p in PythonTranslator.inspect(cell)}
    declared = {info.name: info for info in chapter.describe()}
    assert list(inferred) == list(declared)
    for name, info in declared.items():
        assert inferred[name].inferred_type_name == info.python_type
        assert ast.literal_eval(inferred[name].default) == info.default
        assert inferred[name].help and "=" not in inferred[name].help
    namespace: dict = {}
    exec(chapter.parameters_source(), namespace)  # plain assignments of the defaults
    assert {k: namespace[k] for k in declared} == chapter.defaults()


def test_the_generated_cell_replaces_only_the_parameters_cell():
    text = '# %% [markdown]\n# prose\n\n# %% tags=["parameters"]\n# old\nx = 1\n\n# %%\nprint(steps)\n'
    once = with_parameters_cell(text, TOY)
    assert once.startswith("# %% [markdown]\n# prose\n\n") and once.endswith("\n\n# %%\nprint(steps)\n")
    assert "x = 1" not in once and "steps = 10  # type: int  training steps (t ≡ lr x steps)\n" in once
    assert "tol = None  # type: float|None" in once and 'name = "a\'b"' in once
    assert with_parameters_cell(once, TOY) == once
    with pytest.raises(ValueError, match="exactly one"):
        with_parameters_cell("# %%\nx = 1\n", TOY)


def _injected(parameters: dict) -> str:
    """The cell papermill injects for these parameters (its own translator)."""
    return PythonTranslator.codify(parameters)


@pytest.mark.parametrize(
    "parameters",
    [
        {"steps": 50},
        {"mu": [1e-3, 2.5], "tol": float("nan"), "name": 'it\'s "quoted"\n'},
        {"steps": 5, "PAPERMILL_OUTPUT_PATH": "out/o.ipynb"},
    ],
)
def test_injected_cells_of_declared_parameters_pass(parameters):
    assert injected_cell_problem(_injected(parameters), TOY) is None


@pytest.mark.parametrize(
    "parameters, message",
    [
        ({"nosuch": 1}, "unknown parameter(s) for chapter 'toy': 'nosuch'"),
        ({"x; import os; os.system('touch pwned'); y": 1}, "x; import os"),
        ({"a = 1\nimport os\nb": 2}, "import os"),
        ({"steps[0]": 1}, "steps[0] = 1"),
        ({"steps = __import__('os').getpid(); d": 1}, "__import__"),
        ({"(": 1}, "do not parse"),
    ],
)
def test_injected_cells_with_unknown_or_pasted_names_are_refused(parameters, message):
    problem = injected_cell_problem(_injected(parameters), TOY)
    assert problem is not None and message in problem and "\n" not in problem


def test_the_guard_replaces_a_refused_cell_by_a_one_line_error(tmp_path):
    guard = InjectedParametersGuard(TOY)
    ordinary = ["x = 1\n", "print(x)\n"]
    assert guard(ordinary) == ordinary
    good = _injected({"steps": 50}).splitlines(keepends=True)
    assert guard(good) == good
    marker = tmp_path / "pwned"
    bad = _injected({f"x; open({str(marker)!r}, 'w'); y": 1}).splitlines(keepends=True)
    with pytest.raises(ParameterError, match="verbatim") as err:
        exec("".join(guard(bad)), {})
    assert not marker.exists()
    assert err.value._render_traceback_() == [f"ParameterError: {err.value}"]  # what IPython shows: one line


def test_start_chapter_validates_and_checks_the_cost(monkeypatch, tmp_path):
    monkeypatch.setenv("LIB_OUTPUT_DIR", str(tmp_path))
    monkeypatch.delenv("LIB_ALLOW_EXPENSIVE", raising=False)
    with pytest.raises(ParameterError, match="'steps' must be >= 3"):
        start_chapter("one_layer", {"steps": -5})
    monkeypatch.setattr(lib.book.chapters.declaration, "MAX_SECONDS", 1e-9)
    with pytest.raises(ParameterError, match="one_layer: about .* driven by steps=500 .*LIB_ALLOW_EXPENSIVE=1"):
        start_chapter("one_layer", {"steps": 500})
    assert list(tmp_path.iterdir()) == []  # refused before any metrics
    monkeypatch.setenv("LIB_ALLOW_EXPENSIVE", "1")
    run = start_chapter("one_layer", {"steps": 500})
    assert run.params.steps == 500 and run.path == tmp_path / "one_layer.metrics.json"


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["python", "/v/bin/papermill", "in.ipynb", "out/o.ipynb", "-p", "d", "8"], "/work/dir/out/o.ipynb"),
        (["python", "-m", "papermill", "-p", "x", "-1", "--cwd", "/elsewhere", "in.ipynb", "/r/o.ipynb"], "/r/o.ipynb"),
        (["python", "-m", "papermill", "--cwd", "/elsewhere", "in.ipynb", "o.ipynb"], "/shell/o.ipynb"),
        (["papermill", "-f", "p.yaml", "in.ipynb", "../o.ipynb", "--log-output"], "/work/o.ipynb"),
        (["python", "/v/bin/papermill", "in.ipynb", "-"], None),
        (["python", "/v/bin/papermill", "in.ipynb", "s3://bucket/o.ipynb"], None),
        (["python", "-m", "pytest", "tests"], None),
    ],
)
def test_the_output_notebook_is_read_from_papermills_command_line(argv, expected):
    found = output_path_from_command(argv, Path("/work/dir"), shell_pwd=Path("/shell"))
    assert found == (Path(expected) if expected else None)


def test_a_command_line_other_than_papermills_is_not_read_as_one():
    """The parent of a `lib run` kernel is `python -m lib run ...`, which checks its own -p and -y: the kernel's
    readers of papermill's command line find nothing in it (and need not import papermill)."""
    argv = ["python", "-m", "lib", "run", "one_layer", "-p", "steps", "５０", "-p", "steps", "60", "-y", "{d: 4}"]
    assert look_alike_numbers(argv) is None and repeated_names(argv) is None
    assert look_alike_numbers(["python", "-m", "papermill", "in.ipynb", "o.ipynb", "-p", "steps", "５０"]) is not None


# ----------------------------------------------------------------------------------------------
# The route as a reader follows it: jupytext, then the papermill command (a kernel each)
# ----------------------------------------------------------------------------------------------


def _tool(name, *args, cwd):
    env = {k: v for k, v in os.environ.items() if k not in ("LIB_OUTPUT_DIR", "LIB_ALLOW_EXPENSIVE")}
    return subprocess.run(
        [str(BIN / name), *args], cwd=cwd, capture_output=True, text=True, env={**env, "PYTHONPATH": str(ROOT)}
    )


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    """notebooks/one_layer.py converted as Jupytext documents it (needs this Python's kernelspec)."""
    folder = tmp_path_factory.mktemp("route")
    done = _tool(
        "jupytext", str(ROOT / "notebooks" / "one_layer.py"), "-o", "nb.ipynb", "--set-kernel", "-", cwd=folder
    )
    assert done.returncode == 0, (
        f"{done.stderr}\n(make installs the kernelspec: python -m ipykernel install --sys-prefix)"
    )
    return folder / "nb.ipynb"


def _papermill(*args: str) -> None:
    """papermill's own command (`papermill.cli.papermill`, its click command) in this process."""
    from papermill.cli import papermill as command

    command.main(list(args), prog_name="papermill", standalone_mode=False)


def test_papermill_help_lists_every_parameter(converted, capsys, monkeypatch):
    monkeypatch.setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # papermill's command sets it
    with pytest.raises(SystemExit) as done:
        _papermill("--help-notebook", str(converted))
    out = capsys.readouterr()
    assert done.value.code == 0 and "Unable to parse" not in out.err + out.out
    for info in load("one_layer").describe():
        assert f"  {info.name}: {info.python_type} (default {info.default!r})" in out.out


BAD_PARAMETERS = [
    (["-p", "nosuch", "1"], "unknown parameter(s) for chapter 'one_layer': 'nosuch'"),
    (["-p", "steps", "-5"], "parameter 'steps' must be >= 3, got -5"),
    (["-p", "x; open('pwned', 'w'); y", "1"], "papermill pastes parameter names into the notebook verbatim"),
    (["-p", "steps", "10000000", "-p", "init_draws", "100000"], "driven by steps=10000000"),
    (["-p", "steps", "５０"], "parameter 'steps': papermill read '５０' as the number 50"),
    (["-y", "fig2a_mu1: [1.0, 1]"], "parameter 'fig2a_mu1' repeats a value: entries 0 and 1 are 1.0 and 1"),
    (["-p", "steps", "50", "-y", "steps: 60"], "parameter 'steps' is given twice on papermill's command line"),
]


@pytest.fixture
def untouched(tmp_path):
    """After the test: nothing but bad.ipynb in tmp_path, no metrics in runs/, nothing written into the repository."""
    runs = ROOT / "runs" / "one_layer.metrics.json"
    before = runs.stat().st_mtime if runs.exists() else None
    status = _git_status()
    yield
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.ipynb"]  # no metrics, no side effect
    assert (runs.stat().st_mtime if runs.exists() else None) == before
    assert _git_status() == status


@pytest.mark.parametrize("args, message", BAD_PARAMETERS)
def test_the_first_cells_stop_bad_parameters(converted, tmp_path, monkeypatch, untouched, args, message):
    """Each bad parameter, as papermill reads and injects it (its own command, `--prepare-only`), stopped by the
    notebook's first cells run in this process as the kernel runs them: every cell through the guard that
    `guard_parameters` installs in IPython, and papermill's command line as the kernel's parent's."""
    for name in ("LIB_OUTPUT_DIR", "LIB_ALLOW_EXPENSIVE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    monkeypatch.chdir(tmp_path)  # where a pasted open('pwned', 'w') would write
    command = ["python", str(BIN / "papermill"), str(converted), "bad.ipynb", *args]
    _papermill(*command[2:], "--prepare-only")
    monkeypatch.setattr(lib.book.run.notebook, "papermill_command", lambda: command)
    guard = InjectedParametersGuard(load("one_layer"))
    namespace: dict = {}
    with pytest.raises(ParameterError) as err:
        for cell in nbformat.read(tmp_path / "bad.ipynb", as_version=4).cells:
            if cell.cell_type == "code":
                exec("".join(guard(cell.source.splitlines(keepends=True))), namespace)
                assert "= start_chapter(" not in cell.source, "the first cells ran: nothing refused"
    assert message in str(err.value) and "\n" not in str(err.value)


@pytest.mark.slow(8)
@pytest.mark.parametrize(
    "args, message",
    [BAD_PARAMETERS[2], BAD_PARAMETERS[4]],  # IPython's guard of the injected cell; the kernel's parent read in /proc
)
def test_papermill_stops_bad_parameters_in_the_first_cells(converted, tmp_path, untouched, args, message):
    """The whole route as a reader runs it (a papermill process and its kernel), for the two checks only a kernel
    started by papermill exercises; every bad parameter is checked in this process above."""
    start = time.perf_counter()
    done = _tool("papermill", str(converted), str(tmp_path / "bad.ipynb"), *args, cwd=tmp_path)
    assert done.returncode != 0 and "ParameterError: " in done.stderr and message in done.stderr, done.stderr[-2000:]
    assert time.perf_counter() - start < 60


def _git_status() -> str:
    done = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True)
    return done.stdout if done.returncode == 0 else "not a git checkout"


TOY_NOTEBOOK = """# %% tags=["parameters"]
steps = 10

# %%
import json, os
from lib.book.run.notebook import known_output_dir, metrics_name, output_dir
name = metrics_name("toy", known_output_dir(globals()), False, globals())
json.dump({"dir": str(output_dir(globals())), "steps": steps, "metrics": name}, open(os.environ["PROBE"], "w"))
"""


@pytest.mark.slow(6)
@pytest.mark.parametrize("inject", [[], ["--inject-output-path"]])
def test_a_papermill_run_writes_beside_its_output_notebook(tmp_path, monkeypatch, inject):
    import jupytext

    notebook = jupytext.reads(TOY_NOTEBOOK, fmt="py:percent")
    notebook.metadata["kernelspec"] = {"name": "python3", "language": "python", "display_name": "Python 3"}
    jupytext.write(notebook, tmp_path / "nb.ipynb")
    (tmp_path / "cwd").mkdir()
    (tmp_path / "out").mkdir()
    monkeypatch.setenv("PROBE", str(tmp_path / "probe.json"))
    done = _tool("papermill", "../nb.ipynb", "../out/o.ipynb", "-p", "steps", "50", *inject, cwd=tmp_path / "cwd")
    assert done.returncode == 0 and "unknown parameter: steps" not in done.stderr, done.stderr
    # the metrics are named after the output notebook: two runs into one folder keep their own
    probe = {"dir": str(tmp_path / "out"), "steps": 50, "metrics": "o.metrics.json"}
    assert json.loads((tmp_path / "probe.json").read_text()) == probe
