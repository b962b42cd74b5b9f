"""Execute a chapter with papermill: validate first, stage the outputs, publish them atomically.

papermill silently accepts any parameter name; this runner does not: names, values and the
estimated cost are checked against the chapter's declaration (`lib/book/chapters/ID.py`) before a kernel
starts. The `parameters` cell is filled from the declaration's defaults (papermill injects the
overrides after it). The executed notebook and the metrics are written to a staging folder and
moved into `DIR` under a lock only when every cell has run, so an interrupted run never leaves a
notebook that make (or a reader) would take for finished, and two runs into one folder cannot
pair a notebook with the other's metrics.
"""

from __future__ import annotations

import errno
import fcntl
import logging
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

from lib.book.chapters import chapter_ids, load
from lib.book.chapters.declaration import ALLOW_EXPENSIVE_ENV, Chapter, Parameters, check_cost
from lib.book.run.outputs import STAGING_PREFIX, publish, staging_pid_file, usable_output_dir
from lib.util.io import process_alive
from lib.util.paths import ROOT
from lib.util.runtime import DRAFT_FIGURES_ENV, OUTPUT_DIR_ENV, STORED_RESULTS_ENV, Runtime

REFERENCES = ROOT / "tests" / "notebooks"
# The kernel's own log stays off the terminal: its start-up warnings ("Kernel is running over TCP ..."), and
# the traceback it logs when Ctrl-C shuts it down in the middle of a cell (cell errors reach papermill, not this log).
KERNEL_QUIET = ["--IPKernelApp.log_level=CRITICAL"]
# The kernel listens on local (Unix) sockets in a folder of its own, not on TCP ports: jupyter_client picks five
# free ports and the kernel binds them a second or two later, and meanwhile another kernel's connections (chapters
# side by side, the checked outputs beside them) may take one. A fresh clone's `.ci/run` failed so, "Address
# already in use" and "Kernel died before replying to kernel_info" (AMD EPYC, AVX2, 2026-12-02). The folder's path
# stays short: a socket's path has at most 107 bytes.
KERNEL_SOCKET_PREFIX = "lib-kernel-"
# Through a pipe (make's log, CI) the cell progress bar is a heartbeat: shown once a run has lasted
# 30 s, then at most every 30 s, so short runs print nothing and long ones show where they are.
PIPED_PROGRESS = {"delay": 30, "mininterval": 30, "ascii": True}
STALE_STAGING_SECONDS = 24 * 3600


# ----------------------------------------------------------------------------------------------
# Checks before any compute
# ----------------------------------------------------------------------------------------------


def validate_run(
    chapter_id: str,
    overrides: dict[str, Any],
    output_dir: str | os.PathLike,
    allow_expensive: bool = False,
    *,
    source_ok: bool = False,
    option: str = "--output-dir",
) -> tuple[Chapter, Parameters, Path]:
    """Everything checked before a kernel starts: names, values, cost, output folder (`usable_output_dir`, its
    messages naming `option`: `--output-dir`, or LIB_OUTPUT_DIR when the folder came from the variable)."""
    chapter = load(chapter_id)
    params = chapter.validate(overrides)
    check_cost(chapter, params, allow_expensive)
    return chapter, params, usable_output_dir(output_dir, chapter_id, source_ok=source_ok, option=option)


# ----------------------------------------------------------------------------------------------
# Staging and publishing
# ----------------------------------------------------------------------------------------------


def clean_stale_staging(output_dir: Path, chapter_id: str) -> None:
    """Remove staging folders of killed runs (their process is gone, or they are a day old)."""
    for staging in output_dir.glob(f"{STAGING_PREFIX.format(id=chapter_id)}*"):
        pid_file = staging_pid_file(staging)
        try:
            pid = int(pid_file.read_text())
            stale = not process_alive(pid)
        except (OSError, ValueError):
            stale = time.time() - staging.stat().st_mtime > STALE_STAGING_SECONDS
        if stale:
            shutil.rmtree(staging, ignore_errors=True)


@contextmanager
def publish_lock(output_dir: Path) -> Iterator[None]:
    """The lock runs into one folder take to publish (so that neither pairs a notebook with the other's
    metrics): flock(2) on the folder itself, so nothing is created in it (a lock file left behind, or one
    deleted while another run waits on it, which would let two runs hold "the" lock at once)."""
    descriptor = os.open(output_dir, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # releases the lock


class Terminated(KeyboardInterrupt):
    """SIGTERM (what `timeout`, CI cancellation and `kill` send), handled as Ctrl-C is: nothing published."""


# Errors of a full file system or quota: the run's files could not be written; nothing is published,
# not even `ID.failed.ipynb` (the notebook of a cell's own error).
DISK_FULL = (errno.ENOSPC, errno.EDQUOT)


def disk_full(err: BaseException) -> bool:
    """Whether a run stopped because a file system was full: an OSError here, or one raised in the kernel
    (papermill reports it as the cell's error, 'OSError: [Errno 28] ...')."""
    if isinstance(err, OSError):
        return err.errno in DISK_FULL
    evalue = str(getattr(err, "evalue", ""))
    return any(evalue.startswith(f"[Errno {code}]") for code in DISK_FULL)


@contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    previous = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in previous.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@contextmanager
def _quiet_interrupt() -> Iterator[None]:
    """Ctrl-C (KeyboardInterrupt) and SIGTERM (`Terminated`, a KeyboardInterrupt) silence the logs of the
    machinery on their way out (nbclient's "Kernel died while waiting ...", asyncio's "Task exception was never
    retrieved"), so that the one line `lib run` prints is all a reader sees. Only in the main thread, where
    Python delivers signals."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupted(signum: int, frame: Any) -> None:
        logging.disable(logging.CRITICAL)
        raise Terminated if signum == signal.SIGTERM else KeyboardInterrupt

    previous = {s: signal.signal(s, interrupted) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def source_notebook(chapter: Chapter, path: Path) -> None:
    """The chapter as .ipynb with its `parameters` cell filled from the declaration's defaults."""
    import jupytext

    notebook = jupytext.read(chapter.notebook)
    cells = [c for c in notebook.cells if "parameters" in c.metadata.get("tags", [])]
    if len(cells) != 1:
        raise RuntimeError(f"{chapter.notebook}: needs exactly one cell tagged 'parameters', found {len(cells)}")
    cells[0].source = chapter.parameters_source()
    jupytext.write(notebook, path)


def run_chapter(
    chapter_id: str,
    overrides: dict[str, Any],
    output_dir: str | os.PathLike,
    *,
    runtime: Runtime | None = None,
    allow_expensive: bool = False,
    render: Callable[[Path], Path] | None = None,
    source_ok: bool = False,
    option: str = "--output-dir",
) -> Path:
    """Validate, execute the chapter, publish `DIR/ID.ipynb` and `DIR/ID.metrics.json` (and `DIR/ID.html`, the page
    `render` writes beside the executed notebook in the staging folder: `lib.book.pages.rerun.render_page`), all
    together under the folder's lock; return the notebook. Without `render`, an earlier run's page is removed.

    Interrupted (Ctrl-C, or SIGTERM: `Terminated`) or out of disk space (`disk_full`), it removes its staging
    folder and publishes nothing, not even `ID.failed.ipynb`; papermill shuts the kernel down on the way out.
    """
    chapter, _, output_dir = validate_run(
        chapter_id, overrides, output_dir, allow_expensive, source_ok=source_ok, option=option
    )
    clean_stale_staging(output_dir, chapter_id)
    with _quiet_interrupt():
        staging = Path(tempfile.mkdtemp(dir=output_dir, prefix=STAGING_PREFIX.format(id=chapter_id)))
        try:
            try:
                executed = _execute(chapter, overrides, staging, runtime, allow_expensive)
            except Exception as err:
                failed = staging / f"{chapter_id}.ipynb"
                if failed.exists() and not isinstance(err, OSError) and not disk_full(err):
                    os.replace(failed, output_dir / f"{chapter_id}.failed.ipynb")
                raise
            metrics = staging / f"{chapter_id}.metrics.json"
            if not metrics.exists():
                raise RuntimeError(f"chapter {chapter_id} recorded no metrics")
            page = None if render is None else render(executed)  # in the staging folder, before anything is published
            with publish_lock(output_dir):
                (output_dir / f"{chapter_id}.failed.ipynb").unlink(missing_ok=True)
                if page is None:  # an earlier run's page would show other parameters and verdicts beside this run
                    (output_dir / f"{chapter_id}.html").unlink(missing_ok=True)
                pages = [] if page is None else [(page, output_dir / page.name)]
                # the notebook last: make keys on it
                publish([(metrics, output_dir / metrics.name), *pages, (executed, output_dir / executed.name)])
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return output_dir / executed.name


def missing_folders(output_dir: str | os.PathLike) -> list[Path]:
    """The folders of `output_dir` (from itself up) that do not exist yet, the deepest first."""
    path, missing = Path(os.path.abspath(os.path.expanduser(os.fspath(output_dir)))), []
    while not path.exists() and path != path.parent:
        missing.append(path)
        path = path.parent
    return missing


def remove_empty(folders: list[Path]) -> None:
    """Remove `folders` (`missing_folders` before a run) that the run left empty, the deepest first."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return


def _execute(
    chapter: Chapter, overrides: dict[str, Any], staging: Path, runtime: Runtime | None, allow_expensive: bool
) -> Path:
    """Execute the chapter in `staging` (its notebook and metrics written there); return the executed notebook."""
    import papermill

    from lib.book.run.warm_kernels import AsyncWarmKernelManager

    staging_pid_file(staging).write_text(str(os.getpid()))  # also what tells the kernel it runs under `lib run`
    source, executed = staging / f"{chapter.id}.source.ipynb", staging / f"{chapter.id}.ipynb"
    source_notebook(chapter, source)
    environment = {OUTPUT_DIR_ENV: str(staging), **(runtime or Runtime()).environment()}
    if allow_expensive:
        environment[ALLOW_EXPENSIVE_ENV] = "1"
    with _environment(environment), _kernel_sockets() as sockets:
        papermill.execute_notebook(
            str(source),
            str(executed),
            parameters=overrides,
            kernel_name="python3",
            cwd=str(ROOT),
            progress_bar=True if sys.stderr.isatty() else PIPED_PROGRESS,
            request_save_on_cell_execute=False,  # written once at the end (or at a failing cell), not twice a cell
            language="python",
            extra_arguments=KERNEL_QUIET,
            config=sockets,
            kernel_manager_class=AsyncWarmKernelManager,
        )
    without_machine_paths(executed, chapter.id)
    return executed


def kernel_socket_folder() -> str:
    """A fresh folder for kernels' socket files (`KERNEL_SOCKET_PREFIX`), under /tmp where there is one, so that
    a socket's path stays short; the caller removes it."""
    return tempfile.mkdtemp(prefix=KERNEL_SOCKET_PREFIX, dir="/tmp" if os.path.isdir("/tmp") else None)


@contextmanager
def _kernel_sockets() -> Iterator[Any]:
    """The kernel manager's configuration for a kernel on local sockets: IPC transport, its socket files in a
    fresh folder (`kernel_socket_folder`), which is removed afterwards."""
    from traitlets.config import Config

    folder = kernel_socket_folder()
    try:
        yield Config({"KernelManager": {"transport": "ipc", "ip": os.path.join(folder, "kernel")}})
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def without_machine_paths(path: Path, chapter_id: str) -> None:
    """Replace papermill's record of the staging paths it ran (absolute paths of this machine, which the
    book's "download .ipynb" button would hand out) by the chapter's source and published name. In place."""
    import nbformat

    from lib.util.io import atomic_write_text

    notebook = nbformat.read(path, as_version=4)
    record = notebook.metadata.setdefault("papermill", {})
    record.update(input_path=f"notebooks/{chapter_id}.py", output_path=f"{chapter_id}.ipynb")
    atomic_write_text(path, nbformat.writes(notebook))


def refresh_reference(chapter_id: str) -> Path:
    """Re-execute a chapter at its smoke parameters into `tests/notebooks/` (the nbval reference).

    Outputs that nbval does not compare (figures, tables) are stripped, so the references stay small,
    and so is everything that changes from run to run (`stable_reference`): two runs give the same bytes.
    """
    # figures drawn, not rendered: the references keep none; stored results unread: checked outputs exercise the live code
    with _environment({DRAFT_FIGURES_ENV: "1", STORED_RESULTS_ENV: "live"}):
        path = run_chapter(chapter_id, dict(load(chapter_id).smoke), REFERENCES, source_ok=True)
    (REFERENCES / f"{chapter_id}.metrics.json").unlink(missing_ok=True)
    strip_unchecked_outputs(path)
    return path


# papermill's run record that is the same on every run; the rest (times, paths of the staging folder) is not
STABLE_PAPERMILL_KEYS = ("parameters", "default_parameters", "version")


def stable_reference(notebook: Any) -> Any:
    """The notebook without what differs between two runs of the same code: timestamps, durations,
    staging paths, papermill's per-cell record, random cell ids (numbered in order instead). In place."""
    record = notebook.metadata.get("papermill", {})
    notebook.metadata["papermill"] = {k: record[k] for k in STABLE_PAPERMILL_KEYS if k in record}
    for index, cell in enumerate(notebook.cells):
        for key in ("execution", "papermill", "ExecuteTime", "collapsed", "scrolled"):
            cell.metadata.pop(key, None)
        if "id" in cell:
            cell["id"] = f"cell-{index}"
    return notebook


def strip_unchecked_outputs(path: Path) -> None:
    """Keep outputs only in cells marked `# NBVAL_CHECK_OUTPUT` (the only ones `--nbval-lax` compares),
    and nothing that differs between runs (`stable_reference`)."""
    import nbformat

    from lib.util.io import atomic_write_text

    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code" and "# NBVAL_CHECK_OUTPUT" not in cell.source:
            cell.outputs = []
    atomic_write_text(path, nbformat.writes(stable_reference(notebook)))


def list_chapters(chapter_id: str | None = None) -> str:
    """Every chapter (or one) with its parameters: type, default, allowed range and one line of meaning.

    For one chapter, also which claims each parameter reaches: the claims whose condition reads it
    (a threshold), and the claims computed live, which any parameter may move; claims decided by
    stored evidence ignore `-p`.
    """
    lines = []
    for current in [chapter_id] if chapter_id else chapter_ids():
        chapter = load(current)
        lines.append(f"{current}: {chapter.title}")
        for info in chapter.describe():
            rng = info.describe_range()
            lines.append(
                f"  {info.name:<22} {info.type:<11} default {info.default!r:<24} {info.help}"
                + (f" [{rng}]" if rng else "")
            )
            thresholds = [c.id for c in chapter.claims if c.parameter == info.name]
            if chapter_id and thresholds:
                lines.append(f"  {'':<22} threshold of: {', '.join(thresholds)}")
        if chapter_id:
            live = [c.id for c in chapter.claims if c.basis != "evidence"]
            stored = [c.id for c in chapter.claims if c.basis == "evidence"]
            lines.append(f"  claims computed live (any parameter may move them): {', '.join(live) or 'none'}")
            lines.append(f"  claims read from stored evidence (ignore -p): {', '.join(stored) or 'none'}")
        lines.append("")
    return "\n".join(lines)
