"""`make bench`: every chapter's benchmark (`benchmarks/ID.py: benchmark() -> dict`), the
peak resident memory of each chapter executed at its default parameters (budget 4 GB each), and the
phases of a fresh clone's build (`build_phases`: the environment, each chapter, the HTML, and CI's
`.ci/run` in a second fresh clone), all with the processor named.

Speed-ups are ratios of two timings taken in the same call, never compared across runs.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

from lib.book.chapters import chapter_ids
from lib.util.io import atomic_write_json
from lib.util.paths import ROOT

_RSS = (
    "import resource, subprocess, sys; "
    "subprocess.run([sys.executable, '-m', 'lib', 'run', sys.argv[1], '--output-dir', sys.argv[2]], check=True); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


def chapter_benchmarks(chapter_id: str) -> dict[str, float]:
    path = ROOT / "benchmarks" / f"{chapter_id}.py"
    if not path.exists():
        return {}
    spec = importlib.util.spec_from_file_location(f"benchmarks_{chapter_id}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {f"{chapter_id}.{k}": float(v) for k, v in module.benchmark().items()}


def chapter_peak_memory(chapter_id: str) -> tuple[float, float]:
    """(peak RSS in MB of the chapter's kernel at default parameters, wall seconds)."""
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", _RSS, chapter_id, out], check=True, capture_output=True, text=True, cwd=ROOT
        )
        return int(done.stdout.strip().splitlines()[-1]) / 1024, time.perf_counter() - start


def _timed(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    """Wall seconds of `command` run to success in `cwd`; when it fails, RuntimeError with the last lines
    of its output (the output is kept quiet otherwise)."""
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        tail = "\n".join(done.stdout.splitlines()[-40:])
        raise RuntimeError(f"{' '.join(command)} failed in {cwd} with exit code {done.returncode}:\n{tail}")
    return time.perf_counter() - start


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
    (`make .venv/.installed`), the chapters (`make book`'s executions on all cores, and each chapter's own
    time as its run records it), the HTML alone, `make book` in all, and `.ci/run` in a second fresh clone."""
    env = fresh_clone_environment(os.environ)
    with tempfile.TemporaryDirectory(prefix="bench-build-") as tmp:
        book = _fresh_clone(Path(tmp) / "book")
        phases = {"build.environment_seconds": _timed(["make", ".venv/.installed"], book, env)}
        phases["build.chapters_seconds"] = _timed(["make", *[f"book/chapters/{c}.ipynb" for c in chapters]], book, env)
        for chapter_id in chapters:
            record = json.loads((book / "book" / "chapters" / f"{chapter_id}.metrics.json").read_text())["_run"]
            phases[f"build.{chapter_id}_seconds"] = float(record["elapsed_seconds"])
        phases["build.html_seconds"] = _timed(["make", "book"], book, env)
        phases["build.make_book_seconds"] = sum(
            phases[f"build.{k}_seconds"] for k in ("environment", "chapters", "html")
        )
        shutil.rmtree(book)
        phases["build.ci_seconds"] = _timed([".ci/run"], _fresh_clone(Path(tmp) / "ci"), env)
    return phases


def run_benchmarks(
    output: Path, chapters: list[str] | None = None, memory: bool = True, phases: bool = True
) -> dict[str, float | str]:
    """Every chapter's benchmark and default run, written to `output` after each chapter, then the build's
    phases (`build_phases`), with the processor they ran on (timings are only comparable on the same one)."""
    from lib.book.evidence.run import processor
    from lib.book.evidence.store import processor_text

    results: dict[str, float | str] = {"processor": processor_text({"processor": processor()})}
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
    width = max(map(len, results), default=10)
    return "\n".join(
        f"{name:<{width}}  {value:>12.4g}" if isinstance(value, float) else f"{name:<{width}}  {value}"
        for name, value in results.items()
    )
