"""Execute a chapter with papermill: validate first, stage the outputs, publish them atomically.

papermill silently accepts any parameter name; this runner does not: names and values are
checked against the chapter's declaration (`lib/specs/ID.py`) before a kernel starts.
The executed notebook and the metrics are written to a staging folder and moved into
`DIR` only when every cell has run, so an interrupted run never leaves a notebook that
make (or a reader) would take for finished.
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from lib.book import OUTPUT_DIR_ENV
from lib.chapter import ROOT
from lib.specs import chapter_ids, load


def run_chapter(chapter_id: str, overrides: dict[str, Any], output_dir: Path) -> Path:
    """Validate `overrides`, execute the chapter, and return the path of the executed notebook."""
    import jupytext
    import papermill

    chapter = load(chapter_id)
    chapter.validate(overrides, partial=True)  # raises ParameterError before any compute
    output_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=output_dir, prefix=f".staging-{chapter_id}-"))
    source = staging / f"{chapter_id}.source.ipynb"
    executed = staging / f"{chapter_id}.ipynb"
    jupytext.write(jupytext.read(chapter.notebook), source)
    previous = os.environ.get(OUTPUT_DIR_ENV)
    os.environ[OUTPUT_DIR_ENV] = str(staging)
    try:
        papermill.execute_notebook(
            str(source), str(executed), parameters=overrides, kernel_name="python3",
            cwd=str(ROOT), progress_bar=sys.stderr.isatty(), language="python",
        )
    except BaseException:
        if executed.exists():
            os.replace(executed, output_dir / f"{chapter_id}.failed.ipynb")
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        if previous is None:
            os.environ.pop(OUTPUT_DIR_ENV, None)
        else:
            os.environ[OUTPUT_DIR_ENV] = previous
    metrics = staging / f"{chapter_id}.metrics.json"
    if not metrics.exists():
        raise RuntimeError(f"chapter {chapter_id} recorded no metrics")
    (output_dir / f"{chapter_id}.failed.ipynb").unlink(missing_ok=True)
    os.replace(metrics, output_dir / metrics.name)
    os.replace(executed, output_dir / executed.name)  # last: make keys on the notebook
    shutil.rmtree(staging, ignore_errors=True)
    return output_dir / executed.name


REFERENCES = ROOT / "tests" / "notebooks"


def refresh_reference(chapter_id: str) -> Path:
    """Re-execute a chapter at its smoke parameters into `tests/notebooks/` (the nbval reference)."""
    path = run_chapter(chapter_id, dict(load(chapter_id).smoke), REFERENCES)
    (REFERENCES / f"{chapter_id}.metrics.json").unlink(missing_ok=True)
    return path


def list_chapters() -> str:
    """Every chapter with its parameters, defaults, allowed ranges and one line of meaning."""
    lines = []
    for chapter_id in chapter_ids():
        chapter = load(chapter_id)
        defaults = chapter.defaults()
        lines.append(f"{chapter_id}: {chapter.title}")
        for p in chapter.params:
            rng = p.describe_range()
            lines.append(f"  {p.name:<22} {p.type:<11} default {defaults[p.name]!r:<24} {p.help}" + (f" [{rng}]" if rng else ""))
        lines.append("")
    return "\n".join(lines)
