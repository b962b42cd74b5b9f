"""What a chapter notebook calls: validate its parameters, record metrics, glue numbers and figures.

A chapter starts with

    run = start_chapter("one_layer", globals())   # validates the parameters cell
    P = run.params                                 # a namespace of validated values

and then records headline numbers with `run.metric(name, value)` (written atomically to
`ID.metrics.json` and glued for the prose as `{glue:text}` name), figures with
`run.figure(name, fig)` (glued for a numbered `{glue:figure}`), and ends with
`run.claims_table()`.
"""
from __future__ import annotations

import math
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from lib.chapter import ROOT, Chapter
from lib.io import atomic_write_json
from lib.specs import load

OUTPUT_DIR_ENV = "LIB_OUTPUT_DIR"
CACHE_DIR_ENV = "LIB_CACHE_DIR"
DEFAULT_RUNS_DIR = ROOT / "runs"


def output_dir() -> Path:
    """Where metrics go: set by the runner; `runs/` when a notebook is opened by hand."""
    return Path(os.environ.get(OUTPUT_DIR_ENV, DEFAULT_RUNS_DIR))


def cache_dir(*parts: str) -> Path:
    """Cache for long computations (trained models, checkpoints), keyed by the caller."""
    path = Path(os.environ.get(CACHE_DIR_ENV, ROOT / ".cache")).joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


def to_jsonable(value: Any) -> Any:
    """numpy / torch scalars and arrays to plain Python (NaN and inf become None)."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    raise TypeError(f"metric value {value!r} of type {type(value).__name__} is not a number, bool, string or list")


def _rounded(value: Any, digits: int) -> Any:
    if isinstance(value, list):
        return [_rounded(v, digits) for v in value]
    if isinstance(value, float):
        return float(f"{value:.{digits}g}")
    return value


class ChapterRun:
    """The notebook-side handle of one execution of a chapter."""

    def __init__(self, chapter: Chapter, params: dict[str, Any]):
        self.chapter = chapter
        self.params = SimpleNamespace(**params)
        self.metrics: dict[str, Any] = {}
        self.path = output_dir() / f"{chapter.id}.metrics.json"
        atomic_write_json(self.path, self.metrics)

    def metric(self, name: str, value: Any) -> Any:
        """Record a headline number: into `ID.metrics.json` (atomically) and glued as `name`."""
        from myst_nb import glue

        value = to_jsonable(value)
        self.metrics[name] = value
        atomic_write_json(self.path, self.metrics)
        glue(name, value, display=False)
        return value

    def text(self, name: str, value: str) -> None:
        """Glue a piece of text for the prose (not a metric: a sentence that depends on the result)."""
        from myst_nb import glue

        glue(name, value, display=False)

    def figure(self, name: str, fig) -> None:
        """Glue a matplotlib figure for a numbered `{glue:figure}` in the prose, then close it."""
        import matplotlib.pyplot as plt
        from myst_nb import glue

        glue(name, fig, display=False)  # the kernel's inline backend gives the PNG that glue stores
        plt.close(fig)

    def headline(self, *names: str, digits: int = 3) -> None:
        """Print recorded metrics rounded to `digits` significant digits, for an nbval-checked cell.

        Mark the cell `# NBVAL_CHECK_OUTPUT`; the smoke-parameter reference notebook in
        `tests/notebooks/` then pins these numbers.
        """
        for name in names:
            print(f"{name} = {_rounded(self.metrics[name], digits)}")

    def claims_table(self):
        """This chapter's declared claims against the metrics recorded so far (a Markdown table)."""
        from IPython.display import Markdown

        from lib.claims import claims_markdown

        return Markdown(claims_markdown([self.chapter], {self.chapter.id: self.metrics}))


def start_chapter(chapter_id: str, namespace: dict[str, Any]) -> ChapterRun:
    """Validate the parameters found in `namespace` (the notebook's globals) and start recording.

    Raises `ParameterError` with a clear message before any computation.
    """
    chapter = load(chapter_id)
    values = {p.name: namespace[p.name] for p in chapter.params if p.name in namespace}
    params = chapter.validate(values)
    from lib.plotting import use_book_style

    use_book_style()
    return ChapterRun(chapter, params)
