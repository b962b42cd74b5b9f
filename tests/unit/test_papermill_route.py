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
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from papermill.translators import PythonTranslator

import lib.book.chapters.declaration
import lib.book.run.notebook
from lib.book.chapters import chapter_ids, load
from lib.book.chapters.declaration import Chapter, ParameterError, Parameters, param
from lib.book.run.notebook import start_chapter
from lib.book.run.papermill_route import (
    ALIASES_REFUSED,
    InjectedParametersGuard,
    _yaml_names,
    command_line_problem,
    injected_cell_problem,
    look_alike_numbers,
    name_problem,
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
    _first_cells_refuse(converted, tmp_path, monkeypatch, args, message)


def _first_cells_refuse(converted, tmp_path, monkeypatch, args, message, earlier_metrics: bool = False) -> dict:
    """Prepare `bad.ipynb` with papermill's own reading and injection of `args` (`--prepare-only`), run its cells in
    this process as the kernel runs them (through the guard `guard_parameters` installs, papermill's command line as
    the kernel's parent's), and check that one of the first cells stops them with the one-line `message`; with
    `earlier_metrics`, an earlier run's metrics lie beside the output notebook. The namespace the cells left."""
    for name in ("LIB_OUTPUT_DIR", "LIB_ALLOW_EXPENSIVE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    monkeypatch.chdir(tmp_path)  # where a pasted open('pwned', 'w') would write
    command = ["python", str(BIN / "papermill"), str(converted), "bad.ipynb", *args]
    _papermill(*command[2:], "--prepare-only")
    if earlier_metrics:
        (tmp_path / "bad.metrics.json").write_text('{"_run": {"chapter": "one_layer"}}')
        monkeypatch.setattr(lib.book.run.notebook, "papermill_cwd", lambda: tmp_path)
        monkeypatch.setattr(
            lib.book.run.notebook, "papermill_output_path", lambda injected=None: tmp_path / "bad.ipynb"
        )
    monkeypatch.setattr(lib.book.run.notebook, "papermill_command", lambda: command)
    guard = InjectedParametersGuard(load("one_layer"))
    namespace: dict = {}
    with pytest.raises(ParameterError) as err:
        for cell in nbformat.read(tmp_path / "bad.ipynb", as_version=4).cells:
            if cell.cell_type == "code":
                exec("".join(guard(cell.source.splitlines(keepends=True))), namespace)
                assert "= start_chapter(" not in cell.source, "the first cells ran: nothing refused"
    assert message in str(err.value) and "\n" not in str(err.value)
    return namespace


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
from lib.book.run.notebook import metrics_destination
folder, name, _ = metrics_destination("toy", globals())
json.dump({"dir": str(folder), "steps": steps, "metrics": name}, open(os.environ["PROBE"], "w"))
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


# ----------------------------------------------------------------------------------------------
# Every name papermill received is exactly a declared one, given once; YAML as papermill reads it
# ----------------------------------------------------------------------------------------------

FAST = settings(max_examples=60, deadline=None)
PAPERMILL = ["python", str(BIN / "papermill"), "nb.ipynb", "out/o.ipynb"]


def _full_width(text: str, where: list[bool]) -> str:
    """`text` with the ASCII characters at the chosen places in their full-width forms ('d' -> 'ｄ'), which NFKC
    (Python's reading of an identifier) turns back into ASCII."""
    return "".join(chr(ord(c) + 0xFEE0) if pick and "!" <= c <= "~" else c for c, pick in zip(text, where))


@st.composite
def look_alike_names(draw):
    """A declared name of TOY and a spelling of it that Python reads as the same identifier (or cannot read)."""
    name = draw(st.sampled_from(sorted(TOY.defaults())))
    where = draw(st.lists(st.booleans(), min_size=len(name), max_size=len(name)))
    spelled = _full_width(name, where)
    before = draw(st.sampled_from(["", " ", "\t", "\u3000"]))
    after = draw(st.sampled_from(["", " ", "  ", "\t"]))
    spelled = before + spelled + after
    if spelled == name:
        spelled += " "
    return name, spelled


@FAST
@given(pair=look_alike_names(), option=st.sampled_from(["-p", "-r", "-y"]))
def test_a_name_that_only_looks_like_a_declared_one_is_refused_naming_it(pair, option):
    """'d ' and 'ｄ' set d under papermill (it pastes names verbatim; Python reads identifiers after NFKC, without
    the spaces around them) and `lib run` refuses them as unknown: the papermill route refuses them too, in the
    injected cell and on the command line, naming the declared parameter they look like."""
    name, spelled = pair
    problem = name_problem(spelled, TOY)
    assert problem is not None and f"looks like the parameter {name}" in problem and "\n" not in problem
    assert name_problem(name, TOY) is None
    assert injected_cell_problem(_injected({name: 1, spelled: 2}), TOY) is not None
    assert injected_cell_problem(_injected({spelled: 2}), TOY) is not None
    given = (
        ["-y", yaml.safe_dump({name: 1, spelled: 2})] if option == "-y" else [option, name, "1", option, spelled, "2"]
    )
    problem = command_line_problem([*PAPERMILL, *given], TOY)
    assert problem is not None and f"looks like the parameter {name}" in problem


@FAST
@given(
    own=st.lists(st.sampled_from(sorted(TOY.defaults())), unique=True, max_size=3),
    merged=st.lists(st.lists(st.sampled_from(sorted(TOY.defaults())), unique=True, max_size=3), max_size=2),
)
def test_yaml_is_read_as_papermill_reads_it_merge_keys_included(own, merged):
    """The names of a `-y` document are papermill's (its loader, merge keys `<<` merged), every occurrence: a name
    given by a merge and again is refused, as papermill would keep one of them silently."""
    mappings = ["{" + ", ".join(f"{n}: 1" for n in m) + "}" for m in merged]
    entries = [f"<<: [{', '.join(mappings)}]"] if merged else []
    text = "{" + ", ".join(entries + [f"{n}: 2" for n in own]) + "}"
    from papermill.iorw import NoDatesSafeLoader

    names = _yaml_names(text)
    given = [n for m in merged for n in m] + own
    assert sorted(names) == sorted(given)
    assert set(yaml.load(text, Loader=NoDatesSafeLoader)) == set(given)  # papermill's reading: each name once
    problem = command_line_problem([*PAPERMILL, "-y", text], TOY)
    assert (problem is not None and "is given twice" in problem) == (len(set(given)) < len(given))


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["-p", "steps", "5", "-y", "{<<: {steps: 9}}"],
            "parameter 'steps' is given twice on papermill's command line",
        ),
        (["-y", "{steps: &x 20, mu: [*x, 3.0]}"], ALIASES_REFUSED),
        (["-y", "[]"], "-y expects a YAML mapping of name: value, got []"),
        (["-y", "0"], "-y expects a YAML mapping of name: value, got 0"),
        (["-y", "false"], "-y expects a YAML mapping of name: value, got False"),
        (["-y", "[[steps, 5]]"], "-y expects a YAML mapping of name: value"),  # papermill's dict.update takes pairs
        (["-r", "ｓteps", "5"], "looks like the parameter steps"),
    ],
)
def test_the_papermill_route_refuses_what_lib_run_refuses(args, message):
    problem = command_line_problem([*PAPERMILL, *args], TOY)
    assert problem is not None and message in problem and "\n" not in problem


@pytest.mark.parametrize("text", ["[]", "0", "false", "'text'", "[1]", "!!set {a}", "!!omap [{steps: 5}]"])
def test_a_yaml_document_that_is_not_a_mapping_is_refused_on_both_routes(text):
    from lib.book.commands.main import parse_overrides

    with pytest.raises(ParameterError, match="-y expects a YAML mapping of name: value"):
        parse_overrides([], [text])
    problem = command_line_problem([*PAPERMILL, "-y", text], TOY)
    assert problem is not None and "-y expects a YAML mapping of name: value" in problem


@pytest.mark.parametrize("text", ["", "# only a comment", "null", "~", "{}"])
def test_an_empty_yaml_document_is_no_parameters_on_both_routes(text):
    from lib.book.commands.main import parse_overrides

    assert parse_overrides([], [text]) == {}
    assert command_line_problem([*PAPERMILL, "-y", text], TOY) is None


def test_a_parameters_file_is_read_as_papermill_reads_it(tmp_path):
    """`-f` files: relative to papermill's folder, merge keys, aliases and non-mappings as for `-y`."""
    (tmp_path / "merged.yaml").write_text("<<: {steps: 9}\nmu: [1.0, 3.0]\n")
    (tmp_path / "alias.yaml").write_text("steps: &x 20\ntol: *x\n")
    (tmp_path / "list.yaml").write_text("- steps\n")
    problem = command_line_problem([*PAPERMILL, "-f", "merged.yaml", "-p", "steps", "5"], TOY, tmp_path)
    assert problem is not None and "given twice" in problem and "(-f and -p)" in problem
    assert command_line_problem([*PAPERMILL, "-f", "alias.yaml"], TOY, tmp_path) == ALIASES_REFUSED
    assert "-f expects a YAML mapping" in command_line_problem([*PAPERMILL, "-f", "list.yaml"], TOY, tmp_path)
    assert command_line_problem([*PAPERMILL, "-f", str(tmp_path / "merged.yaml")], TOY) is None
    # under papermill's --cwd a relative -f was read from the folder it was started in
    argv = [*PAPERMILL, "--cwd", "/elsewhere", "-f", "merged.yaml", "-p", "steps", "5"]
    assert "given twice" in command_line_problem(argv, TOY, Path("/elsewhere"), shell_pwd=tmp_path)


ROUTE_REFUSALS = [
    (
        ["-p", "d", "0", "-p", "d ", "8"],
        "unknown parameter 'd ' for chapter 'one_layer': it looks like the parameter d",
    ),
    (
        ["-p", "d", "0", "-p", "ｄ", "8"],
        "unknown parameter 'ｄ' for chapter 'one_layer': it looks like the parameter d",
    ),
    (["-y", '{d: 0, "d ": 8}'], "it looks like the parameter d"),
    (["-p", "d", "8", "-y", "{<<: {d: 9}}"], "parameter 'd' is given twice on papermill's command line (-y and -p)"),
    (["-y", "{d: &x 200, n: *x}"], ALIASES_REFUSED),
    (["-y", "[]"], "-y expects a YAML mapping of name: value, got []"),
    (["-y", "0"], "-y expects a YAML mapping of name: value, got 0"),
    (["-y", "false"], "-y expects a YAML mapping of name: value, got False"),
]


@pytest.mark.parametrize("args, message", ROUTE_REFUSALS)
def test_the_first_cells_stop_names_and_yaml_that_papermill_would_run(
    converted, tmp_path, monkeypatch, untouched, args, message
):
    """As `test_the_first_cells_stop_bad_parameters`: papermill's own reading and injection (`--prepare-only`), then
    the notebook's first cells as the kernel runs them. An earlier run's metrics beside the output notebook are gone
    once they stop (the `untouched` fixture: nothing but bad.ipynb is left)."""
    namespace = _first_cells_refuse(converted, tmp_path, monkeypatch, args, message, earlier_metrics=True)
    if "looks like" in message:  # the injected cell is refused whole: neither name sets d
        assert namespace["d"] == 64


# ----------------------------------------------------------------------------------------------
# Where the metrics go: lib run's staging folder, papermill's notebook, LIB_OUTPUT_DIR; an earlier run's removed
# ----------------------------------------------------------------------------------------------


@pytest.fixture
def plain_start(monkeypatch):
    """start_chapter outside any papermill or `lib run`: no output notebook known unless a test says so."""
    monkeypatch.delenv("LIB_ALLOW_EXPENSIVE", raising=False)
    monkeypatch.delenv("LIB_OUTPUT_DIR", raising=False)
    monkeypatch.setattr(lib.book.run.notebook, "papermill_command", lambda: None)
    monkeypatch.setattr(lib.book.run.notebook, "papermill_output_path", lambda injected=None: None)


def test_lib_output_dir_in_the_source_tree_is_refused_naming_the_variable(plain_start, monkeypatch):
    """Where papermill's notebook is not known (its Python API, nbclient), LIB_OUTPUT_DIR says where the metrics go:
    a reader's folder, refused in the source tree by a message that names LIB_OUTPUT_DIR."""
    status = _git_status()
    monkeypatch.setenv("LIB_OUTPUT_DIR", str(ROOT / "lib"))
    with pytest.raises(ParameterError, match=r"^LIB_OUTPUT_DIR .*lies in the source folder lib/"):
        start_chapter("one_layer", {})
    assert not (ROOT / "lib" / "one_layer.metrics.json").exists() and _git_status() == status


def test_a_papermill_run_writes_beside_its_notebook_whatever_lib_output_dir_says(plain_start, monkeypatch, tmp_path):
    """On papermill's command line the output notebook says where: `OUT.metrics.json` beside it, LIB_OUTPUT_DIR (here
    the source tree's lib/) not read; a notebook in the source tree is refused."""
    status = _git_status()
    monkeypatch.setenv("LIB_OUTPUT_DIR", str(ROOT / "lib"))
    notebook = tmp_path / "out" / "pm.ipynb"
    monkeypatch.setattr(lib.book.run.notebook, "papermill_output_path", lambda injected=None: notebook)
    run = start_chapter("one_layer", {})
    assert run.path == tmp_path / "out" / "pm.metrics.json" and run.path.is_file()
    notebook = ROOT / "lib" / "pm.ipynb"
    with pytest.raises(ParameterError, match=r"^the output folder .*lies in the source folder lib/"):
        start_chapter("one_layer", {})
    assert _git_status() == status


def test_lib_runs_staging_folder_takes_the_metrics_as_id_metrics_json(plain_start, monkeypatch, tmp_path):
    staging = tmp_path / ".staging-one_layer-abcd1234"
    staging.mkdir()
    monkeypatch.setenv("LIB_OUTPUT_DIR", str(staging))
    monkeypatch.setattr(lib.book.run.notebook, "papermill_output_path", lambda injected=None: tmp_path / "x.ipynb")
    assert lib.book.run.notebook.runner_staging() is None  # no pid file: not lib run's, a reader's folder
    (staging / "pid").write_text(str(os.getpid()))
    assert lib.book.run.notebook.runner_staging() == staging
    assert start_chapter("one_layer", {}).path == staging / "one_layer.metrics.json"


def test_an_earlier_runs_metrics_beside_the_output_notebook_go_at_the_first_cell(plain_start, monkeypatch, tmp_path):
    """A refused or failed papermill run leaves its notebook; the metrics an earlier run left beside it must not be
    read as its own: the first cell removes them before anything can stop the run. Not under `lib run` (its
    published files stay as they were until it is complete)."""
    from lib.book.run.notebook import guard_parameters

    previous = tmp_path / "e.metrics.json"
    monkeypatch.setattr(lib.book.run.notebook, "papermill_output_path", lambda injected=None: tmp_path / "e.ipynb")
    previous.write_text("{}")
    (tmp_path / "one_layer.metrics.json").write_text("{}")  # another run's, kept
    guard_parameters("one_layer")
    assert not previous.exists() and (tmp_path / "one_layer.metrics.json").exists()
    previous.write_text("{}")
    staging = tmp_path / ".staging-one_layer-abcd1234"
    staging.mkdir()
    (staging / "pid").write_text(str(os.getpid()))
    monkeypatch.setenv("LIB_OUTPUT_DIR", str(staging))
    guard_parameters("one_layer")
    assert previous.exists()
