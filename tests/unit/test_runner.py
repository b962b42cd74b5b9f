"""lib/book/run/runner.py and the CLI: validation before compute, staging, atomic publication, bad inputs."""

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

import lib.book.chapters.declaration
import lib.book.run.runner
from lib.book.chapters.declaration import Chapter, Claim, ParameterError, Parameters, param
from lib.book.commands.main import parse_overrides, parse_value, split_parameters
from lib.util.paths import ROOT

TOY = """# ---
# jupyter:
#   kernelspec: {display_name: Python 3, language: python, name: python3}
# ---

# %% tags=["parameters"]
# filled by the runner

# %%
import os
from lib.util.io import atomic_write_json
atomic_write_json(os.path.join(os.environ["LIB_OUTPUT_DIR"], "toy.metrics.json"), {"k_squared": k ** 2})
assert not fail, "failing on purpose"
"""


@dataclass(frozen=True)
class ToyParameters(Parameters):
    k: int = param(2, "a number", min=0)
    fail: bool = param(False, "fail on purpose")


def _cli(*args):
    """`python -m lib ARGS` as a process: its exit code, stdout and stderr."""
    return subprocess.run(
        [sys.executable, "-m", "lib", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def test_the_command_refuses_bad_input_before_compute_in_one_line(tmp_path):
    """The whole route, once, as a reader runs it: exit code 2, one line on stderr, nothing written, in seconds.
    (Each class of bad input is checked in this process below: a `python -m lib` process imports for seconds.)"""
    start = time.perf_counter()
    done = _cli("run", "two_layer", "-p", "no_such_parameter", "1", "--output-dir", str(tmp_path))
    assert done.returncode == 2 and "unknown parameter" in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and time.perf_counter() - start < 10
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "args, message",
    [
        (["-p", "no_such_parameter", "1"], "unknown parameter"),
        (["-y", "{seed: -1.5}"], "parameter"),
        (["-y", "{d: [1, 2"], "malformed YAML"),
        (["-y", "!!python/object/apply:os.system ['true']"], "tagged"),
        (["-y", "{1: 2}"], "must be strings"),
        (["-y", "{d: 3, d: 4}"], "given twice"),
        (["-y", "a: &x [1, 1]\nb: [*x, *x]"], "aliases"),
        (["-p", "d", "3", "-y", "{d: 4}"], "given twice"),
    ],
)
def test_cli_refuses_bad_input_before_compute(tmp_path, lib_command, args, message):
    start = time.perf_counter()
    done = lib_command("run", "two_layer", *args, "--output-dir", str(tmp_path))
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and time.perf_counter() - start < 10
    assert list(tmp_path.iterdir()) == []


def test_cli_refuses_unusable_output_dirs(tmp_path, lib_command):
    blocker = tmp_path / "file"
    blocker.write_text("")
    done = lib_command("run", "two_layer", "--output-dir", str(blocker))
    assert done.returncode == 2 and "not a folder" in done.stderr


def test_cli_unknown_chapter_and_list(lib_command):
    done = lib_command("run", "no_such_chapter")
    assert done.returncode == 2 and "unknown chapter" in done.stderr
    done = lib_command("list")
    assert done.returncode == 0
    for chapter_id in ("one_layer", "two_layer", "sim_observations", "diffusion", "geneft_statics", "geneft_dynamics"):
        assert f"{chapter_id}:" in done.stdout


def test_cli_claims_filter_and_missing_folder(tmp_path, lib_command):
    done = lib_command("claims", str(tmp_path / "nowhere"))
    assert done.returncode == 2 and "no such folder" in done.stderr
    done = lib_command("claims", str(tmp_path))
    assert done.returncode == 2 and "no ID.metrics.json" in done.stderr
    (tmp_path / "one_layer.metrics.json").write_text('{"a": ')
    done = lib_command("claims", str(tmp_path))
    assert done.returncode == 2 and "one_layer.metrics.json" in done.stderr and "not valid JSON" in done.stderr


def test_cli_claims_reads_one_metrics_file_named_after_a_papermill_notebook(tmp_path, lib_command):
    """`lib claims out/e.metrics.json` judges the chapter its run record names (here: stale code, refused with the
    file named); a file that records no chapter run is refused."""
    from lib.book.chapters import load

    defaults = load("one_layer").defaults()
    record = {"_run": {"chapter": "one_layer", "parameters": defaults, "code_fingerprint": "f" * 64}}
    (tmp_path / "e.metrics.json").write_text(json.dumps(record))
    done = lib_command("claims", str(tmp_path / "e.metrics.json"))
    assert done.returncode == 2 and "e.metrics.json" in done.stderr and "other code" in done.stderr, done.stderr
    (tmp_path / "f.metrics.json").write_text('{"a": 1}')
    done = lib_command("claims", str(tmp_path / "f.metrics.json"))
    assert done.returncode == 2 and "not the metrics file of a chapter run" in done.stderr


@pytest.mark.parametrize(
    "raw, value",
    [
        ("1e-3", 1e-3),
        ("-1e-3", -1e-3),
        ("3", 3),
        ("True", True),
        ("None", None),
        ("[1, 2.5]", "[1, 2.5]"),  # text, as papermill reads it: lists go through -y
        ("-.inf", "-.inf"),
        ("mod3", "mod3"),
        ("true", "true"),
        ("0x10", "0x10"),
        ("1:30", "1:30"),
        ("yes", "yes"),
        ("{", "{"),
    ],
)
def test_values_are_read_as_papermill_reads_them(raw, value):
    assert parse_value("x", raw) == value and type(parse_value("x", raw)) is type(value)


def test_yaml_is_read_as_papermill_reads_it():
    assert parse_overrides([], ["{lr: 1.0e-3, fractions: [1e-2, 0.5], name: x1e3, h: 0x10, t: 1:30, flag: yes}"]) == {
        "lr": 1e-3,
        "fractions": ["1e-2", 0.5],  # YAML 1.1, papermill's -y: an exponent without a dot is text
        "name": "x1e3",
        "h": 16,
        "t": 90,
        "flag": True,
    }
    assert parse_overrides([], [""]) == {}


def test_negative_numbers_survive_the_argument_parser():
    rest, pairs = split_parameters(["run", "diffusion", "-p", "gamma_min", "-1e-3", "--output-dir", "x"])
    assert rest == ["run", "diffusion", "--output-dir", "x"] and parse_overrides(pairs, []) == {"gamma_min": -1e-3}
    with pytest.raises(ParameterError, match="twice"):
        parse_overrides([("a", "1"), ("a", "2")], [])
    with pytest.raises(ParameterError, match="NAME and a VALUE"):
        split_parameters(["run", "two_layer", "-p", "d"])


@pytest.fixture
def toy_chapter(tmp_path, monkeypatch):
    (tmp_path / "toy.py").write_text(TOY)
    chapter = Chapter(id="toy", title="toy", params=ToyParameters, claims=(Claim("S-C", "", "", "k_squared", "== 9"),))
    monkeypatch.setattr(lib.book.chapters.declaration, "NOTEBOOKS", tmp_path)
    monkeypatch.setattr(lib.book.run.runner, "load", lambda _id: chapter)
    return chapter


def test_run_publishes_notebook_and_metrics_and_a_failed_run_after_it_nothing(tmp_path, toy_chapter, capfd):
    """A run publishes its notebook and metrics and prints no kernel noise; a failed run after it publishes
    nothing it could be trusted for (one kernel each)."""
    out = tmp_path / "out"
    path = lib.book.run.runner.run_chapter("toy", {"k": 3}, out)
    assert "Kernel is running" not in capfd.readouterr().err
    assert path == out / "toy.ipynb"
    assert json.loads((out / "toy.metrics.json").read_text()) == {"k_squared": 9}
    assert sorted(p.name for p in out.iterdir()) == ["toy.ipynb", "toy.metrics.json"]  # no lock file left
    before = (out / "toy.ipynb").read_bytes()
    with pytest.raises(Exception, match="failing on purpose"):
        lib.book.run.runner.run_chapter("toy", {"k": 4, "fail": True}, out)
    assert (out / "toy.ipynb").read_bytes() == before  # the last good run stays
    assert json.loads((out / "toy.metrics.json").read_text()) == {"k_squared": 9}
    assert (out / "toy.failed.ipynb").exists()
    assert not list(out.glob(".staging-*"))


def test_relative_output_dir_from_elsewhere(tmp_path, toy_chapter, monkeypatch):
    monkeypatch.chdir(tmp_path)
    lib.book.run.runner.run_chapter("toy", {}, "rel/out")
    assert json.loads((tmp_path / "rel/out/toy.metrics.json").read_text()) == {"k_squared": 4}


def test_a_rerun_without_html_removes_the_earlier_runs_page(tmp_path, toy_chapter):
    """An `ID.html` left by an earlier `--html` run would show other parameters and verdicts beside this run."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "toy.html").write_text("<p>k = 5</p>")
    lib.book.run.runner.run_chapter("toy", {"k": 3}, out)
    assert sorted(p.name for p in out.iterdir()) == ["toy.ipynb", "toy.metrics.json"]


def test_the_page_is_published_with_its_run_or_not_at_all(tmp_path, toy_chapter):
    """`lib run --html`: the page is rendered in the staging folder and published with the notebook and metrics,
    under the folder's lock, so that it never shows another run's parameters; a render that fails publishes
    nothing."""
    out = tmp_path / "out"

    def render(notebook: Path) -> Path:
        page = notebook.with_suffix(".html")
        page.write_text(f"<p>{json.loads(notebook.with_name('toy.metrics.json').read_text())}</p>")
        return page

    lib.book.run.runner.run_chapter("toy", {"k": 3}, out, render=render)
    assert sorted(p.name for p in out.iterdir()) == ["toy.html", "toy.ipynb", "toy.metrics.json"]
    assert "9" in (out / "toy.html").read_text()
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def broken(notebook: Path) -> Path:
        raise RuntimeError("render failed")

    with pytest.raises(RuntimeError, match="render failed"):
        lib.book.run.runner.run_chapter("toy", {"k": 4}, out, render=broken)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before and not list(out.glob(".staging-*"))


def test_lib_run_writes_into_lib_output_dir_without_output_dir(tmp_path, monkeypatch):
    """`lib run` without --output-dir writes where LIB_OUTPUT_DIR says; --output-dir comes first."""
    from lib.book.commands.main import main

    asked = []

    def run_chapter(chapter_id, overrides, output_dir, **kwargs):
        asked.append(Path(output_dir))
        raise KeyboardInterrupt  # nothing is computed: `lib run` reports an interrupted run

    monkeypatch.setattr(lib.book.run.runner, "run_chapter", run_chapter)
    monkeypatch.setenv("LIB_OUTPUT_DIR", str(tmp_path / "env"))
    assert main(["run", "one_layer"]) == 130
    assert main(["run", "one_layer", "--output-dir", str(tmp_path / "flag")]) == 130
    assert asked == [tmp_path / "env", tmp_path / "flag"]


def test_stale_staging_of_a_killed_run_is_cleaned(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = tmp_path / ".staging-toy-abc"
    stale.mkdir()
    (stale / "pid").write_text(dead.stdout.strip())
    alive = tmp_path / ".staging-toy-def"
    alive.mkdir()
    (alive / "pid").write_text(str(os.getpid()))
    lib.book.run.runner.clean_stale_staging(tmp_path, "toy")
    assert not stale.exists() and alive.exists()


def test_cost_beyond_reason_is_refused(monkeypatch):
    @dataclass(frozen=True)
    class Heavy(Parameters):
        n: int = param(1, "size", min=1)

        def cost(self):
            return lib.book.chapters.declaration.Cost(seconds=self.n * 3600.0, gigabytes=self.n * 1e3)

    chapter = Chapter(id="heavy", title="h", params=Heavy)
    with pytest.raises(ParameterError, match="GB"):
        lib.book.run.runner.check_cost(chapter, chapter.validate({"n": 10}))


INTERRUPTED_RUN = """
import sys
from pathlib import Path
import lib.book.chapters.declaration, lib.book.run.runner
from tests.unit.test_runner import ToyParameters
from lib.book.chapters.declaration import Chapter
from lib.book.commands.main import main
here = Path(sys.argv[1])
lib.book.chapters.declaration.NOTEBOOKS = here
lib.book.run.runner.load = lambda _id: Chapter(id="toy", title="toy", params=ToyParameters)
sys.exit(main(["run", "toy", "--output-dir", str(here / "out")]))
"""
SLOW_CELL = """
import os, time
open(os.path.join(os.environ["LIB_OUTPUT_DIR"], "kernel.pid"), "w").write(str(os.getpid()))
time.sleep(120)
"""


@pytest.mark.slow(7)
@pytest.mark.parametrize(
    "stop, code, line",
    [
        (signal.SIGINT, 130, "interrupted; nothing was published\n"),
        (signal.SIGTERM, 143, "terminated; nothing was published\n"),
    ],
)
def test_ctrl_c_and_sigterm_print_one_line_publish_nothing_and_stop_the_kernel(tmp_path, stop, code, line):
    (tmp_path / "toy.py").write_text(TOY.replace("import os\n", SLOW_CELL, 1))
    (tmp_path / "driver.py").write_text(INTERRUPTED_RUN)
    run = subprocess.Popen(
        [sys.executable, str(tmp_path / "driver.py"), str(tmp_path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    deadline = time.monotonic() + 120
    while not list(tmp_path.glob("out/.staging-toy-*/kernel.pid")) and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(0.5)  # the pid file is written: the kernel is in the cell
    kernel = int(next(tmp_path.glob("out/.staging-toy-*/kernel.pid")).read_text())
    run.send_signal(stop)
    out, err = run.communicate(timeout=60)
    assert run.returncode == code and err == line, err
    assert not (tmp_path / "out").exists()  # no staging, no failed notebook, no metrics: the folder it made goes
    with pytest.raises(ProcessLookupError):
        for _ in range(50):
            os.kill(kernel, 0)
            time.sleep(0.1)


def test_published_notebooks_carry_no_machine_paths(tmp_path):
    """papermill records the absolute staging paths it ran; the published notebook (the book's download)
    names the chapter's source and its own file name instead."""
    import nbformat

    path = tmp_path / "ch.ipynb"
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["papermill"] = {"input_path": str(tmp_path / ".staging-x/ch.source.ipynb"), "version": "2"}
    path.write_text(nbformat.writes(notebook))
    lib.book.run.runner.without_machine_paths(path, "ch")
    record = nbformat.read(path, as_version=4).metadata["papermill"]
    assert record == {"input_path": "notebooks/ch.py", "output_path": "ch.ipynb", "version": "2"}
    assert str(tmp_path) not in path.read_text()


def test_a_chapters_kernel_listens_on_local_sockets_in_a_folder_of_its_own_removed_after():
    """No TCP port to lose to another process between jupyter_client's choice and the kernel's bind (a fresh
    clone's CI failed so): the kernel starts and answers on IPC sockets, whose folder is gone afterwards."""
    from jupyter_client import KernelManager

    from lib.book.run.runner import _kernel_sockets

    with _kernel_sockets() as config:
        socket = config.KernelManager.ip
        assert config.KernelManager.transport == "ipc" and len(f"{socket}-5") <= 107
        manager = KernelManager(kernel_name="python3", config=config)
        manager.start_kernel(extra_arguments=["--IPKernelApp.log_level=CRITICAL"])
        try:
            client = manager.client()
            client.start_channels()
            client.wait_for_ready(timeout=60)
            assert manager.transport == "ipc" and os.path.exists(f"{socket}-1")
            client.stop_channels()
        finally:
            manager.shutdown_kernel(now=True)
    assert not os.path.exists(os.path.dirname(socket))


def test_cli_claims_refuses_the_metrics_of_a_run_that_did_not_finish(tmp_path, lib_command):
    """A papermill run killed mid-way leaves its metrics file (written as the chapter goes): `lib claims FILE` says in
    one line (exit 2) that its run did not finish, rather than reading its missing claims as "changed"."""
    from lib.book.chapters import load
    from lib.book.verdicts.claims import chapter_fingerprint

    record = {
        "chapter": "one_layer",
        "parameters": load("one_layer").defaults(),
        "code_fingerprint": chapter_fingerprint("one_layer"),
    }
    (tmp_path / "e.metrics.json").write_text(json.dumps({"_run": record}))
    done = lib_command("claims", str(tmp_path / "e.metrics.json"))
    assert done.returncode == 2 and "e.metrics.json: the run that wrote it did not finish" in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
