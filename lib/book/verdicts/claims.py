"""Claims against metrics: the scorecard page, `python -m lib claims`, and each chapter's closing table.

A metrics file `ID.metrics.json` maps metric names to numbers, booleans, strings, lists or
estimates `{"value", "low", "high", "n", "method"}`; the key `_run` records the parameters and
the code fingerprint that produced it, and `finished` once the chapter's last cell ran (a file without it is
a run that was killed, failed or still runs: `lib claims` refuses it). Each declared claim gets a verdict (holds / does not
hold / inconclusive / not computed) and is "as declared" when that verdict is its `expected`.
"""

from __future__ import annotations

import html
import json
import math
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lib.book.chapters.declaration import (
    CATEGORIES,
    FAILS,
    HOLDS,
    INCONCLUSIVE,
    NOT_COMPUTED,
    NOT_COMPUTED_KEY,
    PAPERMILL_PATH_PARAMETERS,
    Chapter,
    Claim,
    ParameterError,
    is_estimate,
    is_not_computed,
    short,
)
from lib.util.numbers import format_interval, format_number, format_p_value, snapped
from lib.util.stats import P_VALUE
from lib.util.wording import (
    as_sentence,
    condition_text,
    dependence,
    reader_name,
    robustness_sentence,
    sentence_start,
)

RUN_KEY = "_run"
# The completion mark of a run's record: when its chapter's last cell (`ChapterRun.claims_table`) ran, written last
FINISHED_KEY = "finished"


class MetricsError(ValueError):
    """A metrics file is missing, unreadable, truncated or not a JSON object (exit code 2)."""


ROBUST = "robust"
BAR_CHOICE = "bar (the paper sets none)"  # the free choice of a book bar (lib.book.chapters.declaration.BookBar), as a reader reads it


def bar_text(claim: Claim, bar: float) -> str:
    """An alternative bar of `claim` as its condition reads: "< 0.05"."""
    return condition_text(f"{claim.operator} {bar!r}")


@dataclass(frozen=True)
class Alternative:
    """The claim's condition evaluated under another value of one of its free choices."""

    choice: str
    label: str
    metric: str
    value: Any
    verdict: str


@dataclass(frozen=True)
class Verdict:
    chapter: str
    claim: Claim
    value: Any
    verdict: str
    why: str
    threshold: Any = None
    note: str = ""
    alternatives: tuple[Alternative, ...] = ()

    @property
    def dependent_choices(self) -> list[str]:
        """The free choices under one of whose alternatives the verdict changes."""
        changed = [a.choice for a in self.alternatives if a.verdict not in (self.verdict, NOT_COMPUTED)]
        return list(dict.fromkeys(changed))

    @property
    def robustness(self) -> str:
        """ "" without declared free choices or when the claim was not computed or not judged (`not_judged`: its
        alternatives are not either); "robust" when no computed alternative changes the verdict; otherwise "depends on the X" (a verdict
        that may not be reported plainly)."""
        if not self.alternatives or self.verdict == NOT_COMPUTED or not_judged(self.value) is not None:
            return ""
        if self.dependent_choices:
            return dependence(self.dependent_choices)
        if all(a.verdict == NOT_COMPUTED for a in self.alternatives):
            return "alternatives not computed"
        return ROBUST

    @property
    def robustness_detail(self) -> str:
        """The robustness as a sentence with every alternative's verdict (`lib.util.wording.robustness_sentence`):
        "depends on the learned level: holds with 0.75 (declared), inconclusive with 0.6"; "" for a claim not judged
        (`not_judged`)."""
        if not self.alternatives or self.verdict == NOT_COMPUTED or not_judged(self.value) is not None:
            return ""
        choices = [(c.name, c.fixed) for c in self.claim.free_choices]
        if self.claim.book_bar is not None:
            choices.append((BAR_CHOICE, self.needs))
        return robustness_sentence(
            self.verdict,
            [
                (name, fixed, [(a.label, a.verdict) for a in self.alternatives if a.choice == name])
                for name, fixed in choices
            ],
        )

    @property
    def needs(self) -> str:
        """What the value must be, for a reader (`lib.util.wording.condition_text`): "< 0.05", "true", "concatenation"."""
        return condition_text(self.claim.condition, self.threshold, self.claim.parameter)

    @property
    def as_declared(self) -> bool:
        return self.verdict == self.claim.expected

    @property
    def condition(self) -> str:
        """The claim's condition, with the value of the parameter it names ("< topo_visible_tol = 0.05")."""
        if self.claim.parameter is None:
            return self.claim.condition
        return f"{self.claim.condition} = {short(self.threshold)}"

    @property
    def status(self) -> str:
        if self.as_declared:
            return self.verdict
        return f"{self.verdict} (declared: {self.claim.expected})"

    @property
    def summary(self) -> str:
        """The status with the robustness when a free choice is declared: "holds, robust", "holds, depends on X"."""
        return f"{self.status}, {self.robustness}" if self.robustness else self.status


MAX_METRICS_BYTES = 64 * 2**20  # a chapter's metrics are kilobytes; anything this large is not one


def read_regular_file(path: Path, limit: int, kind: str = "metrics file") -> bytes:
    """The bytes of `path`, which must be a regular file (a `kind`, for the message) of at most `limit` bytes;
    MetricsError otherwise.

    Opened without blocking (a FIFO or a device would wait for a writer, or never end) and checked
    on the open descriptor, so nothing swapped in between a check and the open is read; the read
    stops at `limit` + 1 bytes whatever the file claims.
    """
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError as err:
        raise MetricsError(f"{path}: cannot be read ({err.strerror})") from None
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise MetricsError(f"{path}: not a regular file (a folder, FIFO, socket or device); not read")
    with os.fdopen(descriptor, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise MetricsError(f"{path}: larger than {limit // 2**20} MiB, not a {kind}")
    return data


def metrics_path(location: Path, chapter_id: str) -> Path:
    """Where a chapter's metrics are read from: `location` itself when it is a metrics file (a papermill run's,
    named after its notebook: "out/e.metrics.json"), else `location/ID.metrics.json`."""
    location = Path(location)
    return location if location.name.endswith(".metrics.json") else location / f"{chapter_id}.metrics.json"


def read_metrics(directory: Path, chapter_id: str) -> dict[str, Any] | None:
    """The metrics of a chapter in `directory` (or the metrics file `directory`: `metrics_path`), as
    `read_metrics_file` reads them."""
    return read_metrics_file(metrics_path(directory, chapter_id))


def read_metrics_file(path: Path) -> dict[str, Any] | None:
    """The metrics in the file `path`, None when there is none; MetricsError when unusable (not a regular file,
    too large, not UTF-8 JSON, not an object)."""
    if not os.path.lexists(path):
        return None
    try:
        loaded = json.loads(
            read_regular_file(path, MAX_METRICS_BYTES).decode("utf-8"),
            object_pairs_hook=_unique_keys,
            parse_constant=_no_constant,
            parse_float=_finite_float,
            parse_int=_float_sized_int,
        )
    except MalformedMetrics as err:
        raise MetricsError(f"{path}: malformed: {err}") from None
    except UnicodeDecodeError as err:
        raise MetricsError(f"{path}: not UTF-8 ({err.reason} at byte {err.start})") from None
    except json.JSONDecodeError as err:
        raise MetricsError(f"{path}: not valid JSON, truncated or edited ({err.msg}, line {err.lineno})") from None
    except RecursionError:
        raise MetricsError(f"{path}: JSON nested too deeply, not a metrics file") from None
    if not isinstance(loaded, dict):
        raise MetricsError(f"{path}: expected a JSON object of metric name -> value, got {type(loaded).__name__}")
    try:
        for name, value in loaded.items():
            if name != RUN_KEY and (problem := malformed_value(value)) is not None:
                raise MetricsError(f"{path}: malformed: metric {short(name)}: {problem}")
    except RecursionError:
        raise MetricsError(f"{path}: JSON nested too deeply, not a metrics file") from None
    return loaded


class MalformedMetrics(ValueError):
    """What a chapter run never writes: a repeated key, NaN or Infinity (a run records a non-finite value as null)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(set(keys)) < len(keys):
        repeated = next(k for k in keys if keys.count(k) > 1)
        raise MalformedMetrics(f"the key {short(repeated)} appears twice")
    return dict(pairs)


def _no_constant(text: str) -> Any:
    raise MalformedMetrics(f"{text} is not a number a run records (it writes a non-finite value as null)")


def _finite_float(text: str) -> float:
    """A JSON number with a fraction or an exponent; one beyond the float range (1e999, which Python reads as
    inf) is refused as `Infinity` is."""
    number = float(text)
    if not math.isfinite(number):
        raise MalformedMetrics(f"{text[:40]} overflows to infinity, not a number a run records")
    return number


def _float_sized_int(text: str) -> int:
    """A JSON integer; one beyond the float range (a run's numbers are floats or counts) is refused, as is one
    too long for Python to read (which it would report as an uncaught ValueError)."""
    try:
        number = int(text)
        float(number)
    except (ValueError, OverflowError):
        raise MalformedMetrics(
            f"the integer {text[:20]}... ({len(text)} digits) is beyond any number a run records"
        ) from None
    return number


def malformed_value(value: Any) -> str | None:
    """Why a recorded metric cannot be one (`malformed_estimate` of it or of an entry of a list), or None."""
    if isinstance(value, list):
        return next((p for v in value if (p := malformed_value(v)) is not None), None)
    return malformed_estimate(value)


def malformed_estimate(value: Any) -> str | None:
    """Why a recorded estimate cannot be one (an interval whose low end is above its high end, a negative or
    fractional n, a value that is not a number), or None (also for anything that is not an estimate). An end a run
    could not compute is null (`to_jsonable`). A value outside its interval is not refused: a percentile bootstrap
    of a statistic such as the best of several means can leave its own point estimate out."""
    if not is_estimate(value):
        return None
    numbers = {k: value[k] for k in ("value", "low", "high")}
    if any(v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))) for v in numbers.values()):
        return f"an estimate's value, low and high must be numbers, got {short(numbers)}"
    low, high = numbers["low"], numbers["high"]
    if low is not None and high is not None and low > high:
        return f"an estimate whose low end {low!r} is above its high end {high!r}"
    n = value["n"]
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 0):
        return f"an estimate's n must be a whole number >= 0, got {short(n)}"
    return None


def chapter_fingerprint(chapter_id: str) -> str:
    """Fingerprint of the code behind a chapter: its notebook's `lib` import closure and declaration."""
    from lib.book.chapters.dependencies import chapter_dependencies
    from lib.util.fingerprint import code_fingerprint
    from lib.util.paths import ROOT

    modules = [
        ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for p in chapter_dependencies(chapter_id)
        if p.suffix == ".py" and p.is_relative_to(ROOT / "lib")
    ]
    return code_fingerprint(*modules)


def foreign_metrics(chapter: Chapter, metrics: dict[str, Any]) -> str | None:
    """Why a metrics file cannot be taken as this chapter's run of the current code; None when it can.

    Refused: no `_run` record, another chapter's record, parameters the chapter does not declare, does not
    find all of, or refuses (its own validation: type, range, joint rules), a code fingerprint other than the
    current code's (the metrics are stale: rerun), and a metric of a claim of the wrong type (`mistyped_metric`).
    """
    record = metrics.get(RUN_KEY)
    if not isinstance(record, dict):
        return f"it has no {RUN_KEY} record (not written by `lib run` or a chapter run)"
    if record.get("chapter") != chapter.id:
        return f"it records chapter {str(record.get('chapter'))[:40]!r}, not {chapter.id!r}"
    parameters = record.get("parameters")
    if not isinstance(parameters, dict):
        return f"its {RUN_KEY} record holds no mapping of parameters (got {short(parameters)})"
    if unknown := sorted(set(parameters) - set(chapter.defaults())):
        return f"it records parameters chapter {chapter.id} does not declare: {', '.join(map(short, unknown[:5]))}"
    if missing := [name for name in chapter.defaults() if name not in parameters]:
        return f"it does not record the parameter(s) {', '.join(missing[:5])}"
    try:
        chapter.validate(parameters)
    except ParameterError as err:
        return f"it records parameters the chapter refuses: {err}"
    if record.get("code_fingerprint") != chapter_fingerprint(chapter.id):
        return (
            f"it was computed by other code than the current one (fingerprint "
            f"{str(record.get('code_fingerprint'))[:16]}, now {chapter_fingerprint(chapter.id)}): rerun the chapter"
        )
    return mistyped_metric(chapter, metrics)


def mistyped_metric(chapter: Chapter, metrics: dict[str, Any]) -> str | None:
    """Why a metric that a claim of `chapter` reads (its own or a free choice's) cannot be what the chapter
    recorded, or None: a condition on a number ("< 0.1", "> tol") reads a number or an estimate, never a boolean;
    "== true" reads a boolean, never 1 or "true"; a condition on a name reads a string. A metric not recorded, or
    recorded as not computed (`ChapterRun.skip`), is the claim's "not computed", not a wrong type."""
    parameters = (metrics.get(RUN_KEY) or {}).get("parameters")
    for claim in chapter.claims:
        target = claim.threshold(parameters if isinstance(parameters, dict) else None)
        for metric in (claim.metric, *claim.alternative_metrics):
            value = metrics.get(metric)
            if value is None or is_not_computed(value):
                continue
            if isinstance(target, bool):
                needs, fits = "a boolean (true or false)", isinstance(value, bool)
            elif isinstance(target, (int, float)):
                needs = "a number or an estimate"
                fits = is_estimate(value) or (isinstance(value, (int, float)) and not isinstance(value, bool))
            elif isinstance(target, str):
                needs, fits = "a string", isinstance(value, str)
            else:
                continue
            if not fits:
                return (
                    f"metric {short(metric)} holds {_json_kind(value)}, but claim {claim.id} ({claim.condition}) "
                    f"needs {needs}: not what the chapter records (edited by hand?)"
                )
    return None


def _json_kind(value: Any) -> str:
    """A recorded value as its JSON reads: "the boolean false", "the string 'true'", "the number 1"."""
    if isinstance(value, bool):
        return f"the boolean {json.dumps(value)}"
    if isinstance(value, (int, float)):
        return f"the number {short(value)}"
    if isinstance(value, str):
        return f"the string {short(value)}"
    return f"{'a list' if isinstance(value, list) else 'an object'} {short(value)}"


def unfinished_metrics(metrics: dict[str, Any]) -> str | None:
    """Why a metrics file is not that of a complete run (its record has no completion mark, `FINISHED_KEY`: the
    run was killed, failed or still runs, and its claims would read as "not computed"), or None."""
    record = metrics.get(RUN_KEY)
    if isinstance(record, dict) and isinstance(record.get(FINISHED_KEY), str) and record[FINISHED_KEY]:
        return None
    return (
        "the run that wrote it did not finish (killed, failed or still running: its record has no completion "
        "mark); rerun the chapter"
    )


MAX_NOTEBOOK_BYTES = 512 * 2**20  # an executed chapter with its figures is megabytes


def notebook_beside(metrics_file: Path) -> Path:
    """The notebook a metrics file belongs to: `OUT.ipynb` for `OUT.metrics.json` (papermill's output notebook;
    `ID.ipynb` in a folder of `lib run`)."""
    metrics_file = Path(metrics_file)
    return metrics_file.with_name(metrics_file.name.removesuffix(".metrics.json") + ".ipynb")


def foreign_notebook(chapter: Chapter, metrics: dict[str, Any], metrics_file: Path) -> str | None:
    """Why the metrics in `metrics_file` do not belong to the notebook beside it (`notebook_beside`), or None
    (also when there is none, or it holds no papermill record: not run by papermill, not judged here).

    papermill rewrites its output notebook on every run, also one that never executes (`--prepare-only`, a kernel
    that does not start) and one that fails before the chapter's first cell removes the metrics an earlier run
    left: those metrics then sit beside a notebook of another run. Refused: papermill's record of a run that did
    not complete (no end time, an exception, a code cell that never ran) and parameters papermill injected that
    differ from those the metrics record (compared as the chapter validates them: 1 is 1.0 for a float, never
    true). MetricsError when the notebook cannot be read as one.
    """
    path = notebook_beside(metrics_file)
    if not os.path.lexists(path):
        return None
    unreadable = f"{metrics_file}: the notebook beside it, {path},"
    try:
        notebook = json.loads(read_regular_file(path, MAX_NOTEBOOK_BYTES, "notebook").decode("utf-8"))
    except MetricsError as err:
        raise MetricsError(f"{unreadable} {str(err).removeprefix(f'{path}: ')}") from None
    except UnicodeDecodeError as err:
        raise MetricsError(f"{unreadable} is not a notebook (not UTF-8 at byte {err.start})") from None
    except (ValueError, RecursionError) as err:
        reason = err.msg if isinstance(err, json.JSONDecodeError) else type(err).__name__
        raise MetricsError(f"{unreadable} is not a notebook (not valid JSON: {reason})") from None
    metadata = notebook.get("metadata") if isinstance(notebook, dict) else None
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(metadata, dict) or not isinstance(cells, list):
        raise MetricsError(f"{unreadable} is not a notebook (no metadata and cells)")
    record = metadata.get("papermill")
    if record is None:
        return None
    injected = record.get("parameters", {}) if isinstance(record, dict) else None
    if not isinstance(injected, dict):
        raise MetricsError(f"{unreadable} holds a malformed papermill record ({short(record)})")
    if not isinstance(record.get("end_time"), str) or not record["end_time"]:
        return "papermill's run there did not complete (no end time: prepared only, or still running)"
    if record.get("exception"):
        return "papermill's run there stopped with an exception"
    if (why := unfinished_notebook(cells)) is not None:
        return why
    recorded = (metrics.get(RUN_KEY) or {}).get("parameters") or {}
    infos = {info.name: info for info in chapter.describe()}
    for name, value in injected.items():
        if name in PAPERMILL_PATH_PARAMETERS:  # papermill's --inject-paths: its own, never a chapter's parameter
            continue
        if name not in infos or name not in recorded or not _same_parameter(infos[name], value, recorded[name]):
            given = short(recorded[name]) if name in recorded else "nothing"
            return f"papermill ran it with {short(name)} = {short(value)}, the metrics record {given}"
    return None


def unfinished_notebook(cells: list[Any]) -> str | None:
    """Why the code cells `cells` of an executed notebook are not those of a run that finished, or None: a cell
    that stopped with an error (a refused parameter, a failure), or one with source that never ran (papermill's
    --prepare-only, a kernel that did not start, a run stopped on the way)."""
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if not ("".join(source) if isinstance(source, list) else str(source)).strip():
            continue
        outputs = cell.get("outputs") if isinstance(cell.get("outputs"), list) else []
        if any(isinstance(output, dict) and output.get("output_type") == "error" for output in outputs):
            return "a cell stopped with an error: the run did not finish"
        if cell.get("execution_count") is None:
            return "a cell never ran: the notebook was prepared but not executed, or its run stopped on the way"
    return None


def _same_parameter(info: Any, injected: Any, recorded: Any) -> bool:
    """Whether papermill's value of a parameter and the metrics' record are one value as the chapter reads it
    (`ParamInfo.validate`: an int widened where a float is declared, a bool never a number); a value the
    chapter refuses is no run's."""
    try:
        return _strictly_equal(info.validate(injected), info.validate(recorded))
    except ParameterError:
        return False


def _strictly_equal(a: Any, b: Any) -> bool:
    """Equal, and a boolean only to a boolean (True == 1 in Python), lists entry by entry."""
    if isinstance(a, list) or isinstance(b, list):
        return isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(map(_strictly_equal, a, b))
    return isinstance(a, bool) == isinstance(b, bool) and a == b


def metrics_problem(chapter: Chapter, metrics: dict[str, Any], path: Path) -> str | None:
    """Why the metrics read from `path` cannot be judged as a run of `chapter` by the current code, or None: not
    its run or of other code (`foreign_metrics`), a run that did not finish (`unfinished_metrics`), or the metrics of
    another run than the notebook beside them (`foreign_notebook`). `lib claims` and the book read alike."""
    problem = foreign_metrics(chapter, metrics) or unfinished_metrics(metrics)
    if problem:
        return problem
    if (beside := foreign_notebook(chapter, metrics, path)) is not None:
        return (
            f"another run's metrics than the notebook beside it, {notebook_beside(path)}: {beside}; rerun the chapter"
        )
    return None


def changed_parameters(chapter: Chapter, metrics: dict[str, Any]) -> dict[str, Any]:
    """The parameters of a run that differ from the chapter's defaults (empty for a default run)."""
    parameters = (metrics.get(RUN_KEY) or {}).get("parameters") or {}
    defaults = chapter.defaults()
    return {k: v for k, v in parameters.items() if k in defaults and v != _jsonable_default(defaults[k])}


def _jsonable_default(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def chapters_present(directory: Path, chapters: list[Chapter]) -> list[Chapter]:
    """The chapters that have a metrics file in `directory`."""
    return [c for c in chapters if os.path.lexists(Path(directory) / f"{c.id}.metrics.json")]


# "{name}", not a TeX group of the note's mathematics ("$\eta_{enc}$", "$\mathrm{enc}$"); "10^{name}" is a placeholder.
_PLACEHOLDER = re.compile(r"(?<![\w\\])\{([A-Za-z_][\w.]*)\}")


def note_metrics(note: str) -> list[str]:
    """The metric names a note quotes as `{name}`."""
    return _PLACEHOLDER.findall(note)


def fill_note(note: str, metrics: dict[str, Any]) -> str:
    """A claim's note with each `{name}` replaced by that metric of the run (value [interval], n).

    Notes quote the numbers behind a declared verdict through placeholders, never typed by hand,
    so that a rerun with other parameters or other evidence cannot contradict its own note.
    """
    return _PLACEHOLDER.sub(lambda m: format_value(metrics.get(m.group(1))), note)


def verdicts(chapters: list[Chapter], metrics: dict[str, dict[str, Any] | None]) -> list[Verdict]:
    """The verdict of every claim the chapters declare, on each chapter's metrics (`metrics[chapter.id]`)."""
    out = []
    for chapter in chapters:
        found = metrics.get(chapter.id) or {}
        parameters = (found.get(RUN_KEY) or {}).get("parameters")
        for claim in chapter.claims:
            value = found.get(claim.metric)
            verdict, why = claim.evaluate(value, parameters)
            note = fill_note(claim.note, found)
            alternatives = tuple(
                Alternative(
                    choice.name, label, metric, found.get(metric), claim.evaluate(found.get(metric), parameters)[0]
                )
                for choice in claim.free_choices
                for label, metric in choice.alternatives
            ) + tuple(
                Alternative(
                    BAR_CHOICE, bar_text(claim, bar), claim.metric, value, claim.evaluate(value, parameters, bar)[0]
                )
                for bar in claim.bar_alternatives(parameters)
            )
            out.append(Verdict(chapter.id, claim, value, verdict, why, claim.threshold(parameters), note, alternatives))
    return out


# ----------------------------------------------------------------------------------------------
# Formatting
# ----------------------------------------------------------------------------------------------


NOT_JUDGED = "undecided:"  # the method of an estimate widened to its metric's range (lib.util.stats.undecided)


def not_judged(value: Any) -> str | None:
    """Why an estimate cannot judge its claim (its data are incomplete, its control failed), None when it can:
    such an estimate's interval is the metric's whole range, made to be inconclusive, not measured."""
    if is_estimate(value) and str(value.get("method", "")).startswith(NOT_JUDGED):
        return str(value["method"])[len(NOT_JUDGED) :].split(";")[0].strip()
    return None


def is_interval(value: Any) -> bool:
    """An estimate with a measured interval: not a point (a p-value, a count, an exact value: low == high)
    and not an interval made to be inconclusive (`not_judged`)."""
    if not is_estimate(value) or not_judged(value) is not None:
        return False
    low, high = snapped(value["low"], value["value"]), snapped(value["high"], value["value"])
    return low != high


def is_p_value(value: Any) -> bool:
    """An estimate that is a p-value: its method begins with `lib.util.stats.P_VALUE`."""
    return is_estimate(value) and str(value.get("method", "")).startswith(P_VALUE)


def point_number(value: dict) -> str:
    """The number of an estimate without an interval: a p-value to its two digits, anything else through
    `format_number`."""
    return format_p_value(value["value"]) if is_p_value(value) else format_number(value["value"])


def format_value(value: Any) -> str:
    """A metric as text, through the book's one formatter (`lib.util.numbers`).

    An estimate with an interval reads "value [low, high], n = N" with the digits its interval justifies;
    one without (a count, an exact value) "value, n = N" (n only when above 1), a p-value "p = 0.012, n = N"; one that cannot
    judge its claim "not judged: why"; a float at most 4 significant digits; a list its first six entries, without
    brackets; a name of the code as words (`lib.util.wording.reader_name`).
    """
    if value is None:
        return "not computed"
    if is_not_computed(value):
        return f"not computed ({value[NOT_COMPUTED_KEY]})"
    reason = not_judged(value)
    if reason is not None:
        return f"not judged: {reason}"
    if is_estimate(value) and not is_interval(value):
        n = value["n"]
        point = ("p = " if is_p_value(value) else "") + point_number(value)
        return point + (f", n = {n}" if isinstance(n, int) and n > 1 else "")
    if is_estimate(value):
        return f"{format_interval(value['value'], value['low'], value['high'])}, n = {value['n']}"
    if isinstance(value, (bool, int, float)):
        return format_number(value)
    if isinstance(value, list):
        return ", ".join(format_value(v) for v in value[:6]) + (", …" if len(value) > 6 else "")
    return short(value) if not isinstance(value, str) else reader_name(value)


_BASIS_PHRASE = {
    "exact": "decided exactly",
    "consistency": "a consistency check",
    "single run": "decided on one run",
    "seeds": "decided over seeds",
    "evidence": "decided on stored evidence",
}


def basis_text(v: Verdict) -> str:
    """What the claim is (`Claim.category`: the paper's claim, a book reading, an extension, ...) and the strength
    of its evidence (exact, a consistency check, one run, seeds, stored evidence), with n, as a sentence: "The
    paper's claim, decided on stored evidence, n = 30." """
    n = f", n = {v.value['n']}" if is_estimate(v.value) else ""
    if (reason := not_judged(v.value)) is not None:  # no statistic was computed: nothing was decided, on no n
        return f"{sentence_start(CATEGORIES[v.claim.category])}, not judged: {reason}."
    if v.claim.basis == "consistency" and v.claim.category == "check":
        return f"A consistency check{n}."
    return f"{sentence_start(CATEGORIES[v.claim.category])}, {_BASIS_PHRASE[v.claim.basis]}{n}."


def reason_text(v: Verdict) -> str:
    """The declared reason (`Claim.note`), and for any verdict but "holds" why the interval decided it (not for a
    claim not judged: its interval was made to straddle, `not_judged`)."""
    why = "" if v.verdict == HOLDS or not_judged(v.value) is not None else v.why
    return "; ".join(p for p in (v.note, why, v.robustness_detail) if p)


_VERB = {HOLDS: "holds", FAILS: "does not hold", INCONCLUSIVE: "is inconclusive", NOT_COMPUTED: "was not computed"}


def sentence(v: Verdict) -> str:
    """The verdict as a clause for the prose, generated from the claim, never typed: "S-8 holds: 0.20
    [0.10, 0.30], n = 1000 (needs > 0.01)". No closing period: the prose around it punctuates."""
    label = "is an error in the paper" if v.claim.kind == "erratum" and v.verdict == FAILS else _VERB[v.verdict]
    text = f"{v.claim.id} {label}: {format_value(v.value)} (needs {v.needs})"
    if not v.as_declared:
        text += f", although the chapter declares it {v.claim.expected}"
    if v.robustness_detail:
        text += f"; {v.robustness_detail}"
    return text


def slug(claim_id: str) -> str:
    """A glue-friendly key of a claim id: "S-T4.1/rates" -> "s_t4_1_rates"."""
    return re.sub(r"[^a-z0-9]+", "_", claim_id.lower()).strip("_")


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def claim_anchor(claim_id: str) -> str:
    """The HTML id of a claim's row in its chapter's claims table: "S-T4.1/rates" -> "claim-s-t4-1-rates"."""
    return "claim-" + slug(claim_id).replace("_", "-")


def row_key_html(key: str) -> str:
    """A catalogue row's key ("S-2c, S-3") as HTML with each id kept on one line (book.css, `book-row`): a narrow
    column or a phone's line broke them at their hyphens ("S-" above "2c")."""
    return ", ".join(f'<span class="book-row">{html.escape(one, quote=False)}</span>' for one in key.split(", "))


def claim_id_html(claim_id: str, *, break_at_slash: bool = True) -> str:
    """A claim id as HTML whose row ("G-6" of "G-6/sigma-monotone") stays on one line (`row_key_html`) and whose rest
    wraps after its hyphens, never inside a word. In a table cell (at least as wide as its longest word, book.css
    `book-claim`) it may also wrap before its "/"; in running text (`break_at_slash=False`) a line that has no room
    for the id up to its next hyphen takes it whole, and the row's part never ends a line alone."""
    row, slash, rest = claim_id.partition("/")
    tail = f"{'<wbr>' if break_at_slash else ''}/{html.escape(rest, quote=False)}" if slash else ""
    return f'<span class="book-claim">{row_key_html(row)}{tail}</span>'


def verdict_label(v: Verdict) -> str:
    """The verdict as a reader should read it: an erratum that does not hold is an error in the paper,
    a consistency or method check says so, a verdict that depends on a free choice of the analyst is
    never shown plainly (bold only when it holds, as declared and robust), and a verdict that differs
    from its declaration says that too."""
    label = "error in the paper" if v.claim.kind == "erratum" and v.verdict == FAILS else v.verdict
    if v.claim.basis == "consistency":
        label += " (consistency check)"
    elif v.claim.kind == "method":
        label += " (method check)"
    if v.robustness:
        label += f", {v.robustness}"
    if not v.as_declared:
        label += f"; declared {v.claim.expected}"
    tag = "strong" if v.verdict == HOLDS and v.as_declared and not v.dependent_choices else "span"
    return f'<{tag} class="book-status">{html.escape(label)}</{tag}>'


def details_text(v: Verdict) -> tuple[str, str]:
    """(summary, body) of a claim's folded details: "why" when it does not hold or has a reason, else "paper";
    the body is sentences: the claim's statement, the paper's value (where the paper gives one), what the claim
    is and its evidence (`basis_text`), and the reason."""
    reason = reason_text(v)  # a clause ("the end state is reached ..."): a sentence of its own here
    paper = v.claim.paper_value.strip()
    parts = [as_sentence(v.claim.statement), f"The paper: {paper}." if paper not in ("", "-") else "", basis_text(v)]
    body = " ".join(p for p in (*parts, as_sentence(reason) if reason else "") if p)
    return ("why" if v.verdict != HOLDS or reason else "paper"), body


def _details(v: Verdict) -> str:
    """`details_text`, folded (raw HTML in a table cell), with the declared test as the code reads it: the metric
    of the chapter's metrics file and its condition, which a rerun's metrics are checked against."""
    summary, body = details_text(v)
    declared = html.escape(f"{v.claim.metric} {v.claim.condition}")
    return (
        f"<details><summary>{summary}</summary>{html.escape(body)} "
        f"Declared test, on the run's metrics: <code>{declared}</code>.</details>"
    )


# The header of a table of claims (a chapter's, the scorecard's): the value, what it needs, the folded details.
CLAIMS_TABLE_HEADER = (
    '| claim | verdict | book value | <span class="book-needs">needs</span> | details |\n|---|---|---|---|---|'
)


def claims_table_row(ident: str, v: Verdict, details: str) -> str:
    """One row of a table of claims (`CLAIMS_TABLE_HEADER`, a chapter's and the scorecard's): the claim as `ident`
    (HTML), its verdict, the book's value [interval] n and what it needs (text), and the folded `details` (HTML)."""
    value = html.escape(format_value(v.value), quote=False)
    needs = f'<span class="book-needs">{html.escape(v.needs, quote=False)}</span>'
    return "| " + " | ".join(_cell(x) for x in (ident, verdict_label(v), value, needs, details)) + " |"


def claims_markdown(chapters: list[Chapter], metrics: dict[str, dict[str, Any] | None]) -> str:
    """A chapter's table of claims (Markdown): claim (with its row's anchor), verdict, the book's value [interval] n,
    what it needs, and folded details."""
    rows = [CLAIMS_TABLE_HEADER]
    for v in verdicts(chapters, metrics):
        ident = f'<span id="{claim_anchor(v.claim.id)}"></span>{claim_id_html(v.claim.id)}'
        rows.append(claims_table_row(ident, v, _details(v)))
    return "\n".join(rows) + "\n"


def claims_report(chapters: list[Chapter], directory: Path, only_changed: bool = False) -> tuple[str, int]:
    """The terminal table of `python -m lib claims` and its exit code (`only_changed`: the `--check` form).

    One row per claim: id, what it is (`Claim.category`: primary, erratum, paper, reading, extension,
    derivation, finding, check), verdict, value [interval] n, the declared verdict, and "changed" when
    they differ; a claim decided by stored evidence is marked "evidence: ignores -p" when the run's
    parameters differ from the defaults. Exit code 1 when a verdict differs from its declaration;
    MetricsError (exit 2) when a metrics file of a requested chapter is missing or unusable, its run did not
    finish (`unfinished_metrics`), or the notebook beside it is another run's (`foreign_notebook`).
    """
    metrics = {}
    for chapter in chapters:
        metrics[chapter.id] = read_metrics(directory, chapter.id)
        if metrics[chapter.id] is None:
            raise MetricsError(
                f"{metrics_path(directory, chapter.id)}: no such file "
                f"(run `python -m lib run {chapter.id} --output-dir {directory}`)"
            )
        problem = metrics_problem(chapter, metrics[chapter.id], metrics_path(directory, chapter.id))
        if problem:
            raise MetricsError(f"{metrics_path(directory, chapter.id)}: {problem}")
    rerun = {chapter.id for chapter in chapters if changed_parameters(chapter, metrics[chapter.id])}
    rows, changed = [("claim", "kind", "verdict", "value [interval], n", "declared", "")], 0
    found = verdicts(chapters, metrics)
    for v in found:
        marks = [] if v.as_declared else ["changed"]
        if v.claim.basis == "evidence" and v.chapter in rerun:
            marks.append("evidence: ignores -p")
        if v.robustness:
            marks.append(v.robustness)
        changed += not v.as_declared
        if only_changed and v.as_declared:
            continue
        rows.append(
            (v.claim.id, v.claim.category, v.verdict, format_value(v.value), v.claim.expected, "; ".join(marks))
        )
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = ["  ".join(f"{cell:<{w}}" for cell, w in zip(r, widths)) + "  " + r[5] for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    verdict_names = ("holds", "does not hold", "inconclusive", "not computed")
    for label, group in (
        ("the paper's primary claims", [v for v in found if v.claim.category == "primary"]),
        ("errors in the paper (errata)", [v for v in found if v.claim.category == "erratum"]),
        ("also tested", [v for v in found if v.claim.category not in ("primary", "erratum")]),
    ):
        counts = {k: sum(v.verdict == k for v in group) for k in verdict_names}
        lines.append(f"{label}: {len(group)}" + "".join(f", {n} {k}" for k, n in counts.items() if n))
    robust = sum(v.robustness == ROBUST for v in found)
    dependent = sum(bool(v.dependent_choices) for v in found)
    lines.append(
        f"{len(found) - changed} of {len(found)} as declared"
        + (f"; {robust} robust, {dependent} depending on a free choice" if robust or dependent else "")
    )
    if rerun:
        lines.append(f"parameters differ from the defaults in: {', '.join(sorted(rerun))}")
    return "\n".join(line.rstrip() for line in lines), int(changed > 0)
