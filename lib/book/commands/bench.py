"""`make bench`: every chapter's benchmark (`benchmarks/ID.py: benchmark() -> dict`), the
peak resident memory of each chapter executed at its default parameters (budget 4 GB each), and the
phases of a fresh clone's build (`build_phases`: the environment, each chapter, the HTML, and CI's
`.ci/run` in a second fresh clone), all with the processor named and the phases with the host's own speed
before and after them (`matmul_gflops` on one thread: a host's speed can drift by a quarter within the hour).

Speed-ups are ratios of two timings taken in the same call, never compared across runs.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from lib.book.chapters import chapter_ids
from lib.util.io import atomic_write_json
from lib.util.paths import ROOT
from lib.util.runtime import WARM_KERNELS_ENV

_RSS = (
    "import resource, subprocess, sys; "
    "subprocess.run([sys.executable, '-m', 'lib', 'run', sys.argv[1], '--output-dir', sys.argv[2]], check=True); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


def chapter_benchmarks(chapter_id: str) -> dict[str, float]:
    """The timings of `benchmarks/<chapter_id>.py`, keyed `chapter_id.name`; empty when the chapter has none."""
    path = ROOT / "benchmarks" / f"{chapter_id}.py"
    if not path.exists():
        return {}
    spec = importlib.util.spec_from_file_location(f"benchmarks_{chapter_id}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {f"{chapter_id}.{k}": float(v) for k, v in module.benchmark().items()}


def chapter_peak_memory(chapter_id: str) -> tuple[float, float]:
    """(peak RSS in MB of the chapter's kernel at default parameters, wall seconds). The kernel is started afresh
    (`LIB_WARM_KERNELS=0`): a kernel forked from a warm template is not a child of the run, whose peak this reads."""
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", _RSS, chapter_id, out],
            check=True,
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, WARM_KERNELS_ENV: "0"},
        )
        return int(done.stdout.strip().splitlines()[-1]) / 1024, time.perf_counter() - start


class Timing(NamedTuple):
    """A phase's wall seconds; the CPU seconds (user + system) of its processes and every descendant they
    waited for; and the seconds the machine's CPUs were busy meanwhile (`cpu_ticks`), which also count what the
    first misses: processes nobody waits for, such as Chromium's renderers in the browser checks (61 of the 115
    busy core-seconds there, AMD EPYC) and the kernels forked from a warm template, and whatever else runs. On
    two cores a phase can take no less wall time than half its busy core-seconds."""

    wall: float
    cpu: float
    busy: float


class Ticks(NamedTuple):
    """Clock ticks of the machine's CPUs so far (`cpu_ticks`)."""

    all: int
    stolen: int
    busy: int


CLOCK_TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _child_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _busy_seconds() -> float:
    ticks = cpu_ticks()
    return ticks.busy / CLOCK_TICKS_PER_SECOND if ticks else float("nan")


def _timed(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> Timing:
    """The `Timing` of `command` run to success in `cwd`; when it fails, RuntimeError with the last lines
    of its output (the output is kept quiet otherwise)."""
    start, cpu, busy = time.perf_counter(), _child_cpu_seconds(), _busy_seconds()
    done = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        tail = "\n".join(done.stdout.splitlines()[-40:])
        raise RuntimeError(f"{' '.join(command)} failed in {cwd} with exit code {done.returncode}:\n{tail}")
    return Timing(time.perf_counter() - start, _child_cpu_seconds() - cpu, _busy_seconds() - busy)


def cpu_ticks(stat: str | None = None) -> Ticks | None:
    """The clock ticks of the machine's CPUs so far, from the first line of /proc/stat (`stat`, its text, for a
    test): all of user, nice, system, idle, iowait, irq, softirq and steal; stolen (steal, the time the hypervisor
    gave to other guests); busy (user, nice, system, irq and softirq). None where there is no such file."""
    if stat is None:
        try:
            stat = Path("/proc/stat").read_text()
        except OSError:
            return None
    fields = [int(x) for x in stat.splitlines()[0].split()[1:9]]
    if len(fields) != 8:
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields
    return Ticks(sum(fields), steal, user + nice + system + irq + softirq)


def cpu_list_size(text: str) -> int:
    """How many CPUs a kernel CPU list names ("0-1,4" is three: the format of /sys/devices/system/cpu/...)."""
    ranges = (part.split("-") for part in text.strip().split(",") if part)
    return sum(int(r[-1]) - int(r[0]) + 1 for r in ranges)


def matmul_gflops(size: int = 2048, repeats: int = 3, threads: int | None = None) -> float:
    """Best of `repeats` float32 matmuls of two size x size matrices, GFLOP/s on the current threads (or on
    `threads`, restored after): the reference that speed figures are ratios against."""
    import torch

    before = torch.get_num_threads()
    if threads is not None:
        torch.set_num_threads(threads)
    try:
        a, b = torch.randn(size, size), torch.randn(size, size)
        a @ b
        best = math.inf
        for _ in range(repeats):
            start = time.perf_counter()
            a @ b
            best = min(best, time.perf_counter() - start)
    finally:
        torch.set_num_threads(before)
    return 2 * size**3 / best / 1e9


def host_facts() -> dict[str, float]:
    """The machine's CPUs as timings need them: the CPUs this process may use, and hardware threads per core
    (two vCPUs that are the two threads of one core share it)."""
    facts = {"host.cpus": float(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count())}
    try:
        siblings = Path("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list").read_text()
        facts["host.threads_per_core"] = float(cpu_list_size(siblings))
    except (OSError, ValueError):
        pass
    return facts


def _fresh_clone(into: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(ROOT), str(into)], check=True)
    return into


def fresh_clone_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment a fresh clone is built in: without the book's own settings (`LIB_*`), the calling make's
    (`MAKE*`, `MFLAGS`), or a `PYTHONPATH`, under which the clone's kernels would import a developer's checkout
    instead of the clone's own code."""
    return {k: v for k, v in environ.items() if not k.startswith(("LIB_", "MAKE", "MFLAGS")) and k != "PYTHONPATH"}


def build_phases(chapters: list[str]) -> dict[str, float]:
    """Wall seconds of a fresh clone of this repository's HEAD, as a reader and CI meet it: the environment
    (`make .venv/.installed`), the chapters (`make chapters`: `make book`'s executions on all cores, and each
    chapter's own time as its run records it), the HTML alone, `make book` in all, and `.ci/run` in a second fresh
    clone; the CPU seconds and the machine's busy core-seconds of each (`Timing`), and the fraction of the machine's CPU
    time stolen by the hypervisor meanwhile (`cpu_ticks`): timings from a host whose cores were busy elsewhere say
    so."""
    env = fresh_clone_environment(os.environ)
    ticks = cpu_ticks()
    phases: dict[str, float] = {"build.matmul_gflops_before": matmul_gflops(threads=1)}

    def timed(name: str, command: list[str], cwd: Path) -> None:
        timing = _timed(command, cwd, env)
        phases[f"build.{name}_seconds"], phases[f"build.{name}_cpu_seconds"] = timing.wall, timing.cpu
        phases[f"build.{name}_busy_core_seconds"] = timing.busy

    with tempfile.TemporaryDirectory(prefix="bench-build-") as tmp:
        book = _fresh_clone(Path(tmp) / "book")
        timed("environment", ["make", ".venv/.installed"], book)
        timed("chapters", ["make", "chapters"], book)
        for chapter_id in chapters:
            record = json.loads((book / "book" / "chapters" / f"{chapter_id}.metrics.json").read_text())["_run"]
            phases[f"build.{chapter_id}_seconds"] = float(record["elapsed_seconds"])
        timed("html", ["make", "book"], book)
        for unit in ("seconds", "cpu_seconds", "busy_core_seconds"):
            phases[f"build.make_book_{unit}"] = sum(
                phases[f"build.{k}_{unit}"] for k in ("environment", "chapters", "html")
            )
        shutil.rmtree(book)
        timed("ci", [".ci/run"], _fresh_clone(Path(tmp) / "ci"))
    phases["build.matmul_gflops_after"] = matmul_gflops(threads=1)
    end = cpu_ticks()
    if ticks and end and end.all > ticks.all:
        phases["build.steal_fraction"] = (end.stolen - ticks.stolen) / (end.all - ticks.all)
    return phases


def run_benchmarks(
    output: Path, chapters: list[str] | None = None, memory: bool = True, phases: bool = True
) -> dict[str, float | str]:
    """Every chapter's benchmark and default run, written to `output` after each chapter, then the build's
    phases (`build_phases`), with the processor they ran on (timings are only comparable on the same one)."""
    from lib.book.evidence.run import processor
    from lib.book.evidence.store import processor_text

    results: dict[str, float | str] = {"processor": processor_text({"processor": processor()}), **host_facts()}
    for chapter_id in chapters or chapter_ids():
        results.update(chapter_benchmarks(chapter_id))
        if memory:
            rss, wall = chapter_peak_memory(chapter_id)
            results[f"{chapter_id}.peak_rss_mb"] = rss
            results[f"{chapter_id}.default_run_seconds"] = wall
        atomic_write_json(output, results)
    if phases:
        results.update(build_phases(chapters or chapter_ids()))
        atomic_write_json(output, results)
    return results


def format_table(results: dict[str, float | str]) -> str:
    """`results` as aligned text, one name and value a line."""
    width = max(map(len, results), default=10)
    return "\n".join(
        f"{name:<{width}}  {value:>12.4g}" if isinstance(value, float) else f"{name:<{width}}  {value}"
        for name, value in results.items()
    )
