"""`make bench`: every chapter's benchmark (`benchmarks/ID.py: benchmark() -> dict`) and the
peak resident memory of each chapter executed at its default parameters (budget 4 GB each).

Speed-ups are ratios of two timings taken in the same call, never compared across runs.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lib.io import atomic_write_json
from lib.paths import ROOT
from lib.specs import chapter_ids

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


def run_benchmarks(output: Path, chapters: list[str] | None = None, memory: bool = True) -> dict[str, float | str]:
    """Every chapter's benchmark and default run, written to `output` after each chapter, with the processor
    they ran on (timings are only comparable on the same one)."""
    from lib.evidence.run import cpu_description

    results: dict[str, float | str] = {"processor": cpu_description()}
    for chapter_id in chapters or chapter_ids():
        results.update(chapter_benchmarks(chapter_id))
        if memory:
            rss, wall = chapter_peak_memory(chapter_id)
            results[f"{chapter_id}.peak_rss_mb"] = rss
            results[f"{chapter_id}.default_run_seconds"] = wall
        atomic_write_json(output, results)
    return results


def format_table(results: dict[str, float | str]) -> str:
    width = max(map(len, results), default=10)
    return "\n".join(
        f"{name:<{width}}  {value:>12.4g}" if isinstance(value, float) else f"{name:<{width}}  {value}"
        for name, value in results.items()
    )
