"""What a chapter notebook calls: validate its parameters, record metrics, glue numbers, figures and verdicts.

A chapter starts with

    run = start_chapter("one_layer", globals())   # validates the parameters cell
    P = run.params                                 # the chapter's frozen Parameters dataclass

Every parameter is glued as `param_NAME`. Headline numbers go through `run.metric(name, value)`
(written atomically to `ID.metrics.json` and glued as `name`, formatted by `lib.numbers`; an
estimate is also glued as `name_ci`, its interval, and `name_n`), figures through
`run.figure(name, fig)`, verdict clauses through `run.verdict(claim_id)` (glued as `verdict_SLUG`,
generated from the claim, never typed), and the chapter ends with `run.claims_table()`, which also
glues the chapter's summary box `chapter_summary`. Warnings raised in the kernel become notices of
the run (its metrics record, the summary box, the build status page), not stderr in the page.
"""

from __future__ import annotations

import math
import os
import resource
import time
import warnings
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lib.chapter import Chapter, Parameters, is_estimate
from lib.claims import RUN_KEY, claims_markdown, format_value, sentence, slug, verdicts
from lib.io import atomic_write_json
from lib.numbers import format_estimate, format_number
from lib.paths import ROOT
from lib.specs import load

OUTPUT_DIR_ENV = "LIB_OUTPUT_DIR"
DEFAULT_RUNS_DIR = ROOT / "runs"


def output_dir() -> Path:
    """Where metrics go: set by the runner; `runs/` when a notebook is opened by hand."""
    return Path(os.environ.get(OUTPUT_DIR_ENV, DEFAULT_RUNS_DIR))


def to_jsonable(value: Any) -> Any:
    """numpy / torch scalars and arrays and estimates to plain Python (NaN and inf become None)."""
    if hasattr(value, "as_dict"):
        value = value.as_dict()
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    raise TypeError(
        f"metric value {value!r} of type {type(value).__name__} is not a number, bool, string, list or estimate"
    )


def glued_metric(name: str, value: Any) -> dict[str, Any]:
    """What `ChapterRun.metric` glues for a metric: formatted text, keyed by glue name.

    An estimate gives `name` (value), `name_ci` ("[low, high]") and `name_n`, the three numbers
    to the same decimal place; a float, a bool or a list its formatted text; anything else the value itself.
    """
    if is_estimate(value):
        shown, low, high = format_estimate(value["value"], value["low"], value["high"])
        return {name: shown, f"{name}_ci": f"[{low}, {high}]", f"{name}_n": value["n"]}
    if isinstance(value, (bool, float)):
        return {name: format_number(value)}
    if isinstance(value, list):
        return {name: format_value(value)}
    return {name: value}


def mapping_table(mapping: dict[str, Any], key: str = "name", value: str = "value"):
    """A dict shown as a two-column Markdown table, its values through the book's formatter (never a repr)."""
    from IPython.display import Markdown

    rows = [f"| {key} | {value} |", "|---|---|"]
    rows += [f"| `{name}` | {format_value(v)} |" for name, v in mapping.items()]
    return Markdown("\n".join(rows) + "\n")


def headline_text(value: Any, digits: int) -> str:
    """A metric for an nbval-checked line: rounded to `digits` significant digits (machine-independent),
    then through the book's formatter (an estimate as "value [low, high], n = N", never a dict)."""
    rounded = _rounded(value, digits)
    if is_estimate(value):
        v, low, high = (format_number(rounded[k]) for k in ("value", "low", "high"))
        return f"{v} [{low}, {high}], n = {rounded['n']}"
    if isinstance(rounded, list):
        return "[" + ", ".join(format_number(x) for x in rounded) + "]"
    return format_number(rounded)


def _rounded(value: Any, digits: int) -> Any:
    if is_estimate(value):
        return {k: _rounded(value[k], digits) for k in ("value", "low", "high", "n")}
    if isinstance(value, list):
        return [_rounded(v, digits) for v in value]
    if isinstance(value, float):
        return float(f"{value:.{digits}g}")
    return value


def run_provenance() -> dict[str, Any]:
    """When and at which commit a chapter runs (for the status page)."""
    from lib.evidence.store import git_commit

    commit, _ = git_commit()
    return {"started": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), "commit": commit}


def chapter_fingerprint(chapter_id: str) -> str:
    """Fingerprint of the code behind a chapter: its notebook's `lib` import closure and declaration."""
    from lib.deps import chapter_dependencies
    from lib.fingerprint import code_fingerprint

    modules = [
        ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for p in chapter_dependencies(chapter_id)
        if p.suffix == ".py" and p.is_relative_to(ROOT / "lib")
    ]
    return code_fingerprint(*modules)


class ChapterRun:
    """The notebook-side handle of one execution of a chapter."""

    def __init__(self, chapter: Chapter, params: Parameters):
        self.chapter = chapter
        self.params = params
        self.metrics: dict[str, Any] = {}
        self.record = {
            "chapter": chapter.id,
            "parameters": to_jsonable(params.as_dict()),
            "code_fingerprint": chapter_fingerprint(chapter.id),
            **run_provenance(),
            "notices": [],
        }
        self._started = time.monotonic()
        self.path = output_dir() / f"{chapter.id}.metrics.json"
        self._write()
        warnings.showwarning = self._notice
        for name, value in params.as_dict().items():
            self._glue(f"param_{name}", glued_metric(name, to_jsonable(value))[name])

    def _with_record(self) -> dict[str, Any]:
        return {**self.metrics, RUN_KEY: self.record}

    def _write(self) -> None:
        self.record["elapsed_seconds"] = round(time.monotonic() - self._started, 1)
        self.record["peak_memory_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
        atomic_write_json(self.path, self._with_record())

    def _notice(self, message, category, filename, lineno, file=None, line=None) -> None:
        """`warnings.showwarning` of the chapter's kernel: a warning becomes a notice of the run (in the
        metrics record, the chapter's summary box and the status page), never a stderr block in the page."""
        text = f"{category.__name__}: {message}"
        if text not in self.record["notices"]:
            self.record["notices"].append(text)
            self._write()

    @staticmethod
    def _glue(name: str, value: Any) -> None:
        from myst_nb import glue

        glue(name, value, display=False)

    def metric(self, name: str, value: Any) -> None:
        """Record a headline number or estimate: into `ID.metrics.json` (atomically) and glued as `name`.

        What is glued is text from the book's one formatter (`lib.numbers`), never a raw float: an
        estimate as `name` (its value, to the digits its interval justifies), `name_ci`
        ("[low, high]") and `name_n`; a float to at most 4 significant digits. Returns nothing, so
        that a cell ending with it shows no bare repr.
        """
        value = to_jsonable(value)
        self.metrics[name] = value
        self._write()
        for key, text in glued_metric(name, value).items():
            self._glue(key, text)

    def text(self, name: str, value: str | float) -> None:
        """Glue a piece of text for the prose (not a metric: a sentence that depends on the result); a number
        goes through the book's formatter, like a metric."""
        if not isinstance(value, str):
            value = glued_metric(name, to_jsonable(value))[name]
        self._glue(name, value)

    def figure(self, name: str, fig) -> None:
        """Glue a matplotlib figure for a numbered `{glue:figure}` in the prose, then close it."""
        import matplotlib.pyplot as plt

        self._glue(name, fig)  # the kernel's inline backend gives the PNG that glue stores
        plt.close(fig)

    def verdict(self, claim_id: str) -> str:
        """The verdict sentence of a declared claim on the metrics so far, glued as `verdict_SLUG`."""
        found = [v for v in verdicts([self.chapter], {self.chapter.id: self._with_record()}) if v.claim.id == claim_id]
        if not found:
            raise KeyError(f"chapter {self.chapter.id} declares no claim {claim_id!r}")
        text = sentence(found[0])
        self._glue(f"verdict_{slug(claim_id)}", text)
        return text

    def headline(self, *names: str, digits: int = 3) -> None:
        """Print recorded metrics rounded to `digits` significant digits, for an nbval-checked cell.

        Mark the cell `# NBVAL_CHECK_OUTPUT`; the smoke-parameter reference notebook in
        `tests/notebooks/` then pins these numbers.
        """
        for name in names:
            print(f"{name} = {headline_text(self.metrics[name], digits)}")

    def claims_table(self):
        """This chapter's declared claims against the metrics recorded so far (a Markdown table).

        Also glues every claim's verdict sentence, so the prose can cite any of them.
        """
        from IPython.display import Markdown

        for claim in self.chapter.claims:
            self.verdict(claim.id)
        self.summary_box()
        return Markdown(claims_markdown([self.chapter], {self.chapter.id: self._with_record()}))

    def summary_box(self) -> str:
        """The chapter's summary admonition (MyST), glued as `chapter_summary` for the chapter's first page:

        ```{glue:md} chapter_summary
        :format: myst
        ```
        """
        from IPython.display import Markdown

        from lib.summary import chapter_sources, chapter_summary_markdown, gpu_pending_chapters

        found = verdicts([self.chapter], {self.chapter.id: self._with_record()})
        text = chapter_summary_markdown(
            self.chapter, found, gpu_pending_chapters(), self.record["notices"], chapter_sources(self.chapter.id)
        )
        self._glue("chapter_summary", Markdown(text))
        return text


def start_chapter(chapter_id: str, namespace: dict[str, Any]) -> ChapterRun:
    """Validate the parameters found in `namespace` (the notebook's globals) and start recording.

    Parameters missing from `namespace` take their declared defaults (a notebook opened by hand).
    Raises `ParameterError` with a clear message before any computation.
    """
    from lib import runtime
    from lib.plotting import use_book_style

    chapter = load(chapter_id)
    params = chapter.validate({k: namespace[k] for k in chapter.defaults() if k in namespace})
    runtime.apply()
    use_book_style()
    return ChapterRun(chapter, params)
