"""What a chapter notebook calls: validate its parameters, record metrics, glue numbers, figures and verdicts.

A chapter starts with three cells:

    guard_parameters("one_layer")                  # before the parameters cell: checks what papermill injects
    d = 64  # type: int  input dimension ...       # the `parameters` cell, generated from lib/book/chapters/one_layer.py
    run = start_chapter("one_layer", globals())    # validates values, joint rules and cost, as `lib run` does
    P = run.params                                 # the chapter's frozen Parameters dataclass

Every parameter is glued as `param_NAME`. Headline numbers go through `run.metric(name, value)`
(written atomically to `ID.metrics.json`, at most every METRICS_WRITE_SECONDS and at the claims table and the
kernel's exit, and glued as `name`, formatted by `lib.util.numbers`; an
estimate is also glued as `name_ci`, its interval, and `name_n`), figures through
`run.figure(name, fig)`, verdict clauses through `run.verdict(claim_id)` (glued as `verdict_SLUG`,
generated from the claim, never typed), and the chapter ends with `run.claims_table()`, which also
glues the chapter's summary box `chapter_summary` and, last, marks the run's record `finished` (`lib claims`
refuses a metrics file without it: a run killed or failed on the way). Warnings raised in the kernel become notices of
the run (its metrics record, the summary box, the build status page), not stderr in the page.

A default computation too long for every build to repeat goes through `run.stored(NAME, function, *args,
**kwargs)`: it returns `function(*args, **kwargs)`, read from the chapter's stored result NAME when one of the
same function, arguments and code is stored (`lib.book.evidence.stored`, `LIB_STORED_RESULTS`); every stored
result it read or could not use is kept in the run's record, and one it could not use is a notice of the run.
"""

from __future__ import annotations

import atexit
import math
import os
import resource
import stat
import time
import warnings
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from lib.book.chapters import load
from lib.book.chapters.declaration import (
    NOT_COMPUTED_KEY,
    Chapter,
    ParameterError,
    Parameters,
    check_cost,
    is_estimate,
    is_not_computed,
    meets,
)
from lib.book.run.outputs import in_source_tree, is_staging_folder, usable_output_dir
from lib.book.run.papermill_route import (
    InjectedParametersGuard,
    command_line_problem,
    metrics_file,
    papermill_command,
    papermill_cwd,
    papermill_output_path,
    papermill_shell_pwd,
)
from lib.book.verdicts.claims import (
    FINISHED_KEY,
    RUN_KEY,
    chapter_fingerprint,
    claims_markdown,
    format_value,
    is_interval,
    not_judged,
    point_number,
    sentence,
    slug,
    verdicts,
)
from lib.book.verdicts.summary import STORED_NOTICE
from lib.util.io import atomic_write_json
from lib.util.numbers import format_estimate, format_number, format_percent
from lib.util.paths import ROOT
from lib.util.runtime import OUTPUT_DIR_ENV, STORED_RESULTS_ENV, folder_setting, setting, stored_results_mode
from lib.util.wording import markdown_table, reader_name

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.display import Markdown
    from matplotlib.figure import Figure

    from lib.book.evidence.load import Available

DEFAULT_RUNS_DIR = ROOT / "runs"
# While a chapter runs, its metrics file is rewritten at most this often (each write is synced to disk, ~20 ms
# on a busy disk, and a chapter records a hundred metrics or more); a notice and the claims table write at once.
METRICS_WRITE_SECONDS = 5.0


def runner_staging() -> Path | None:
    """`lib run`'s staging folder when this kernel runs under `lib run` (LIB_OUTPUT_DIR names it:
    `lib.book.run.outputs.is_staging_folder`), else None."""
    value = setting(OUTPUT_DIR_ENV)  # read as text: on the papermill route a reader's value is checked only where used
    return Path(value) if value is not None and is_staging_folder(value) else None


def unique_metrics_name(chapter_id: str) -> str:
    """A metrics file name no other run takes (time to the second and process id), for a run whose folder is
    not known: two such runs into `runs/` must not overwrite each other's metrics."""
    return f"{chapter_id}.{datetime.now(UTC):%Y%m%dT%H%M%S}-{os.getpid()}.metrics.json"


def withdraw_previous_metrics(namespace: dict[str, Any] | None = None) -> Path | None:
    """Remove the metrics file an earlier papermill run left beside this run's output notebook; return it (None
    when there was none to remove).

    papermill writes its output notebook whether or not the run finishes; the earlier run's metrics beside it would
    pair a refused or failed notebook with another run's numbers (`lib claims OUT.metrics.json` would judge them).
    Called by a chapter's first cell, before any check can stop the run: removed at once (one unlink, atomic), so
    that the folder holds this run's metrics or none. Not for `lib run` (its kernel writes into a staging folder and
    the published files stay as they were until the run is complete), nor in the source tree, where no run writes."""
    if runner_staging() is not None:
        return None
    notebook = papermill_output_path((namespace or {}).get("PAPERMILL_OUTPUT_PATH"))
    if notebook is None or in_source_tree(notebook.parent):
        return None
    previous = metrics_file(notebook)
    try:
        if not stat.S_ISREG(previous.lstat().st_mode) and not stat.S_ISLNK(previous.lstat().st_mode):
            return None  # a folder or other non-file: the output folder's check names it
        previous.unlink()
    except OSError:
        return None
    return previous


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
    to the same decimal place; one without an interval (a p-value to its two digits, a count, an exact value) or one
    that cannot judge its claim gives its text (`format_value` without "p =" and n) and an empty `name_ci`; a float its
    formatted text and `name_percent` (the percentage); a bool, a list or nothing (None) its formatted text; a name of the code its words (`lib.util.wording.reader_name`: "greater than", not
    "greater_than"); anything else the value itself.
    """
    if is_estimate(value) and not is_interval(value):
        reason = not_judged(value)
        shown = f"not judged: {reason}" if reason is not None else point_number(value)
        return {name: shown, f"{name}_ci": "", f"{name}_n": value["n"]}
    if is_estimate(value):
        shown, low, high = format_estimate(value["value"], value["low"], value["high"])
        return {name: shown, f"{name}_ci": f"[{low}, {high}]", f"{name}_n": value["n"]}
    if isinstance(value, float):  # and as a percentage, `name_percent` (myst-nb's ":.1%" would parse the text)
        return {name: format_number(value), f"{name}_percent": format_percent(value)}
    if isinstance(value, bool):
        return {name: format_number(value)}
    if isinstance(value, list) or value is None:
        return {name: format_value(value)}
    if isinstance(value, str):
        return {name: reader_name(value)}
    return {name: value}


def mapping_table(
    mapping: dict[str, Any], key: str = "name", value: str = "value", labels: dict[str, str] | None = None
) -> Markdown:
    """A dict shown as a two-column Markdown table, its values through the book's formatter (never a repr);
    each name as its reader's label in `labels` (Markdown), or as code when `labels` is not given."""
    from IPython.display import Markdown

    rows = ((labels[name] if labels else f"`{name}`", format_value(v)) for name, v in mapping.items())
    return Markdown(markdown_table((key, value), rows))


def headline_text(value: Any, digits: int) -> str:
    """A metric for an nbval-checked line: rounded to `digits` significant digits (machine-independent),
    then through the book's formatter (an estimate as "value [low, high], n = N", never a dict; one without
    an interval, or whose interval rounds onto its value, as "value, n = N")."""
    if is_not_computed(value) or (is_estimate(value) and not_judged(value) is not None):
        return format_value(value)
    if is_estimate(value):
        v, low, high = (format_number(_rounded(value[k], digits)) for k in ("value", "low", "high"))
        return f"{v}, n = {value['n']}" if low == high == v else f"{v} [{low}, {high}], n = {value['n']}"
    rounded = _rounded(value, digits)
    if isinstance(rounded, list):
        return "[" + ", ".join(format_number(x) for x in rounded) + "]"
    return format_number(rounded)


def _rounded(value: Any, digits: int) -> Any:
    if isinstance(value, list):
        return [_rounded(v, digits) for v in value]
    if isinstance(value, float):
        return float(f"{value:.{digits}g}")
    return value


def changed_parameters(chapter: Chapter, params: Parameters) -> list[str]:
    """The names of the parameters whose values differ from the chapter's defaults."""
    defaults = chapter.validate({}).as_dict()
    return [k for k, v in params.as_dict().items() if to_jsonable(v) != to_jsonable(defaults[k])]


def check_stored_results_mode(chapter: Chapter, params: Parameters, mode: str) -> None:
    """ParameterError when `write` is asked for at parameters other than the defaults: stored results are the
    chapter's default computations, and a build at the defaults would find them all of other arguments."""
    changed = changed_parameters(chapter, params)
    if mode == "write" and changed:
        raise ParameterError(
            f"stored results are written at the default parameters only ({STORED_RESULTS_ENV}=write, "
            f"--stored-results write); these differ: {', '.join(changed)}"
        )


def run_provenance() -> dict[str, Any]:
    """When and at which commit a chapter runs (for the status page)."""
    from lib.book.evidence.store import git_commit

    commit, _ = git_commit()
    return {"started": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), "commit": commit}


class ChapterRun:
    """The notebook-side handle of one execution of a chapter."""

    def __init__(self, chapter: Chapter, params: Parameters, directory: Path, metrics_name: str | None = None):
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
        self._started = self._written = time.monotonic()
        self._pending = False
        self.stored_mode = stored_results_mode()
        self.at_defaults = not changed_parameters(chapter, params)
        self.stored_root: Path | None = None  # data/evidence (a test's own folder otherwise)
        self._stored_names: list[str] = []
        self.path = Path(directory) / (metrics_name or f"{chapter.id}.metrics.json")
        self._write(now=True)
        atexit.register(self.flush)  # what a chapter recorded after its last write, when the kernel ends
        warnings.showwarning = self._notice
        for name, value in params.as_dict().items():
            self._glue(f"param_{name}", glued_metric(name, to_jsonable(value))[name])

    def _with_record(self) -> dict[str, Any]:
        return {**self.metrics, RUN_KEY: self.record}

    def _write(self, now: bool = False) -> None:
        """Write the metrics file (atomically), or, unless `now`, only once METRICS_WRITE_SECONDS have passed
        since the last write (`flush` writes what is left)."""
        if not now and time.monotonic() - self._written < METRICS_WRITE_SECONDS:
            self._pending = True
            return
        self.record["elapsed_seconds"] = round(time.monotonic() - self._started, 1)
        self.record["peak_memory_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
        atomic_write_json(self.path, self._with_record())
        self._written, self._pending = time.monotonic(), False

    def flush(self) -> None:
        """Write the metrics file if anything was recorded since its last write."""
        if self._pending:
            self._write(now=True)

    def _notice(
        self,
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        """`warnings.showwarning` of the chapter's kernel: a warning becomes a notice of the run (in the
        metrics record, the chapter's summary box and the status page), never a stderr block in the page."""
        text = f"{category.__name__}: {message}"
        if text not in self.record["notices"]:
            self.record["notices"].append(text)
            self._write(now=True)

    @staticmethod
    def _glue(name: str, value: Any) -> None:
        from myst_nb import glue

        glue(name, value, display=False)

    def metric(self, name: str, value: Any) -> None:
        """Record a headline number or estimate: into `ID.metrics.json` (atomically) and glued as `name`.

        What is glued is text from the book's one formatter (`lib.util.numbers`), never a raw float: an
        estimate as `name` (its value, to the digits its interval justifies), `name_ci`
        ("[low, high]") and `name_n`; a float to at most 4 significant digits. Returns nothing, so
        that a cell ending with it shows no bare repr.
        """
        value = to_jsonable(value)
        self.metrics[name] = value
        self._write()
        for key, text in glued_metric(name, value).items():
            self._glue(key, text)

    def evidence(self, set_name: str, variant: str = "full", *, reference: bool = False) -> Available:
        """Load this chapter's evidence set `set_name` (README, Evidence), recorded in the metrics' `_run`.

        While shards are still missing the set's smoke variant is returned with `pending` saying so
        (the runner repeats it on the console, the status page shows it); a corrupt or stale shard
        stops the chapter with EvidenceError. Shards from another commit with the same code are
        recorded by commit here instead of a warning in the page. `reference`: the variant is only compared
        with (the smoke shards a live check recomputes), never read as the set, so it is not pending.
        """
        from lib.book.evidence import EvidenceCommitWarning, load_or_smoke

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", EvidenceCommitWarning)
            available = load_or_smoke(self.chapter.id, set_name, variant)
        data = available.data
        self.record.setdefault("evidence", []).append(
            {
                "set": data.evidence_set.key,
                "variant": data.variant,
                "shards": len(data),
                "pending": None if reference else available.pending,
                "commits": sorted({str(s.provenance.get("commit", ""))[:12] for s in data}),
            }
        )
        self._write()
        return available

    def stored(self, name: str, function: Callable, /, *args: Any, **kwargs: Any) -> Any:
        """`function(*args, **kwargs)`, read from this chapter's stored result `name` when it matches.

        Under `LIB_STORED_RESULTS=use` (the default), a stored result of the same function ("module:qualname"),
        the same arguments (a canonical hash; `lib.book.evidence.stored.unhashed(x)` passes an argument that does
        not change the result, such as a checkpoint folder, without hashing it) and the same code (what the
        function reaches, and the compute packages' versions), whose files are intact, is returned instead
        of computing. One that exists but does not match (other code, other arguments at the default
        parameters, a damaged file) is never used: the chapter computes live, and a notice of the run names it
        and the command that refreshes it (`lib run` prints it on the terminal). `live` computes everything;
        `write` computes everything and writes each result (at the default parameters only). A result that
        cannot be stored (`lib.book.evidence.stored.encode_result`) or an argument that cannot be hashed
        raises StoredResultError in every mode, so that the chapter's author learns it at once. `function` may be
        a `functools.partial` of a lib function (its arguments join the call's).
        """
        import functools

        from lib.book.evidence import stored as store
        from lib.book.evidence.store import processor_text

        while isinstance(function, functools.partial):  # a partial of a lib function: its arguments are the call's
            args, kwargs = function.args + args, {**function.keywords, **kwargs}
            function = function.func
        store.check_name(name)
        if name in self._stored_names:
            raise ValueError(f"stored result {name!r} is asked for twice in one run of {self.chapter.id}")
        self._stored_names.append(name)
        function_name = store.qualified_name(function)
        entry: dict[str, Any] = {"name": name, "function": function_name}
        if self.stored_mode == "use":
            found = store.check_stored(self.chapter.id, name, function, args, kwargs, root=self.stored_root)
            if found.status == "ok":
                entry.update(
                    state="read",
                    commit=str(found.provenance.get("commit", ""))[:12],
                    processor=processor_text(found.provenance),
                    wall_seconds=found.provenance.get("wall_seconds"),
                )
                self._stored_entry(entry)
                return found.value
            entry["reason"] = f"{found.status}: {found.problem}"
            if self.at_defaults or found.status not in (
                "missing",
                "other arguments",
            ):  # else expected: other parameters
                entry["notice"] = (
                    f"{STORED_NOTICE}{self.chapter.id}/{name} not used ({found.status}: {found.problem}); computed live. "
                    f"Refresh: {store.refresh_command(self.chapter.id)}"
                )
                if entry["notice"] not in self.record["notices"]:
                    self.record["notices"].append(entry["notice"])
        else:
            store.argument_hash(function, args, kwargs)  # an argument that cannot be hashed fails in every mode
        call_args, call_kwargs = store.passed(args, kwargs)
        started = time.perf_counter()
        value = function(*call_args, **call_kwargs)
        wall = time.perf_counter() - started
        entry.update(state="computed live", wall_seconds=round(wall, 3))
        if self.stored_mode == "write":
            from lib.util.runtime import current

            directory, written = store.write_stored(
                self.chapter.id,
                name,
                function,
                args,
                kwargs,
                value,
                wall_seconds=wall,
                threads=current().threads,
                root=self.stored_root,
            )
            entry["state"] = "written" if written else "unchanged"
        else:
            store.encode_result(value)  # a result that cannot be stored fails in every mode
        self._stored_entry(entry)
        return value

    def _stored_entry(self, entry: dict[str, Any]) -> None:
        self.record.setdefault("stored", []).append(entry)
        self._write(now="notice" in entry)

    def skip(self, name: str, reason: str) -> None:
        """Record a metric that these parameters do not compute, with the reason: a claim on it reads
        "not computed", the prose and a headline show the reason, and nothing downstream meets a missing key."""
        self.metrics[name] = {NOT_COMPUTED_KEY: reason}
        self._write()
        self._glue(name, format_value(self.metrics[name]))
        self._glue(f"{name}_ci", "")  # as for an estimate that cannot judge its claim: prose may quote both

    def text(self, name: str, value: str | float) -> None:
        """Glue a piece of text for the prose (not a metric: a sentence that depends on the result); a number
        goes through the book's formatter, like a metric."""
        if not isinstance(value, str):
            value = glued_metric(name, to_jsonable(value))[name]
        self._glue(name, value)

    def prose(self, name: str, markdown: str) -> None:
        """Glue a piece of MyST Markdown for the prose, pasted inline with {glue:md}`name:myst`: a sentence that
        depends on the result and needs typeset mathematics ($\\eta_\\mathrm{enc} = 10^{-3}$), which `text`
        would show as its TeX source."""
        from IPython.display import Markdown

        self._glue(name, Markdown(markdown))

    def figure(self, name: str, fig: Figure) -> None:
        """Glue a matplotlib figure for a numbered `{glue:figure}` in the prose, then close it.

        Under `LIB_DRAFT_FIGURES=1` (the nbval runs, whose references keep no figure) every artist and text is
        drawn, but not laid out (the layout engine is the book build's, and was more than half of a draft's time)
        nor rendered to an image, and nothing is glued."""
        import matplotlib.pyplot as plt

        from lib.util.runtime import draft_figures

        if draft_figures():
            fig.set_layout_engine("none")
            fig.draw_without_rendering()
        else:
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

    def headline(self, *names: str, digits: int = 3, checks: Mapping[str, str] | None = None) -> None:
        """Print recorded metrics for an nbval-checked cell (`# NBVAL_CHECK_OUTPUT`), machine-independently.

        `names` are metrics that are the same on every machine and thread count (exact results,
        counts, booleans, values derived from stored evidence): printed rounded to `digits`
        significant digits, estimates as "value [low, high], n = N". `checks` maps the metrics of
        live floating-point computations to the condition their claim uses ("<= 1e-4", "> 1"):
        printed as "name <= 1e-4" when it is met, with the value only when it is not, since the
        digits of a live float vary with the CPU's kernels and the thread count (CONTRIBUTING).
        """
        for name in names:
            print(f"{name} = {headline_text(self.metrics[name], digits)}")
        for name, condition in (checks or {}).items():
            value = self.metrics[name]
            if is_not_computed(value):  # these parameters do not compute it (`skip`): the reason, no condition
                print(f"{name} = {headline_text(value, digits)}")
                continue
            met = meets(value, condition)
            print(f"{name} {condition}" if met else f"{name} = {headline_text(value, digits)}, fails {condition}")

    def claims_table(self) -> Markdown:
        """This chapter's declared claims against the metrics recorded so far (a Markdown table).

        Also glues every claim's verdict sentence, so the prose can cite any of them.
        """
        from IPython.display import Markdown

        if self.stored_mode == "write":  # the run is complete: it reached every stored result it has
            from lib.book.evidence.stored import write_manifest

            removed = write_manifest(self.chapter.id, self._stored_names, self.stored_root)
            self.record["stored_removed"] = removed
        self._write(now=True)
        for claim in self.chapter.claims:
            self.verdict(claim.id)
        self.summary_box()
        table = Markdown(claims_markdown([self.chapter], {self.chapter.id: self._with_record()}))
        self.finish()
        return table

    def finish(self) -> None:
        """Mark the run complete in its metrics' record (`FINISHED_KEY`: when), written at once (atomically): the
        chapter's last cell (`claims_table`) calls it, so that a metrics file without the mark is a run that did
        not finish (killed, failed, still running), which `lib claims` refuses."""
        self.record[FINISHED_KEY] = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        self._write(now=True)

    def summary_box(self) -> str:
        """The chapter's summary admonition (MyST), glued as `chapter_summary` for the chapter's first page:

        ```{glue:md} chapter_summary
        :format: myst
        ```
        """
        from IPython.display import Markdown

        from lib.book.verdicts.summary import chapter_sources, chapter_summary_markdown, gpu_pending_chapters

        found = verdicts([self.chapter], {self.chapter.id: self._with_record()})
        text = chapter_summary_markdown(
            self.chapter, found, gpu_pending_chapters(), self.record["notices"], chapter_sources(self.chapter.id)
        )
        self._glue("chapter_summary", Markdown(text))
        return text


def evidence_notices(metrics: Mapping[str, Any]) -> list[str]:
    """One line per evidence set a run showed through its smoke variant (from the metrics' `_run`)."""
    used = metrics.get(RUN_KEY, {}).get("evidence", [])
    return [
        f"notice: {entry['set']}: {entry['pending']}; the chapter reads it as incomplete"
        for entry in used
        if entry["pending"]
    ]


def stored_notices(metrics: Mapping[str, Any]) -> list[str]:
    """What a run did with its stored results, for the terminal (from the metrics' `_run`): one line per stored
    result it could not use, and after a `write` run one line of what was written."""
    record = metrics.get(RUN_KEY, {})
    entries = record.get("stored", [])
    lines = [f"notice: {entry['notice']}" for entry in entries if entry.get("notice")]
    states = [entry["state"] for entry in entries]
    if "written" in states or "unchanged" in states:
        removed = record.get("stored_removed") or []
        lines.append(
            f"stored results of {record.get('chapter')}: {states.count('written')} written, "
            f"{states.count('unchanged')} unchanged"
            + (f", {len(removed)} removed ({', '.join(removed)})" if removed else "")
        )
    return lines


def _installed_guards(shell: InteractiveShell) -> list[InjectedParametersGuard]:
    return [t for t in shell.input_transformers_cleanup if isinstance(t, InjectedParametersGuard)]


def guard_parameters(chapter_id: str) -> None:
    """Have IPython check the cell papermill injects after the `parameters` cell before it runs.

    A chapter's first cell calls it: papermill pastes parameter names verbatim as code, so a cell
    that is not `NAME = literal` lines of declared parameters is refused, naming the offending text
    (see `lib.book.run.papermill_route`). First of all, before anything can stop the run, it removes the
    metrics an earlier papermill run left beside this run's output notebook (`withdraw_previous_metrics`), and
    says so; outside IPython it does only that.
    """
    from IPython import get_ipython

    withdrawn = withdraw_previous_metrics()
    if withdrawn is not None:
        print(f"removed {withdrawn}, the metrics of an earlier run into this notebook")

    shell = get_ipython()
    if shell is None:
        return
    for guard in _installed_guards(shell):
        shell.input_transformers_cleanup.remove(guard)
    shell.input_transformers_cleanup.append(InjectedParametersGuard(load(chapter_id)))


def metrics_destination(chapter_id: str, namespace: dict[str, Any]) -> tuple[Path, str, bool]:
    """Where a run's metrics go, the folder checked (`usable_output_dir`) and created: (folder, file name, whether
    the run's folder is known).

    Under `lib run`, its staging folder (checked by `lib run`, which may publish into `book/chapters` or the nbval
    references), as `ID.metrics.json`. On the papermill route, beside papermill's output notebook, named after it
    (LIB_OUTPUT_DIR is not read there: the notebook says where); where that notebook is not known, LIB_OUTPUT_DIR as
    `ID.metrics.json`, refused in the source tree by a message naming LIB_OUTPUT_DIR; else `runs/`, under a name
    of its own (`unique_metrics_name`). ParameterError, one line, when the folder or the file cannot be used."""
    staging = runner_staging()
    if staging is not None:
        folder = usable_output_dir(staging, chapter_id, option=OUTPUT_DIR_ENV, source_ok=True)
        return folder, f"{chapter_id}.metrics.json", True
    notebook = papermill_output_path(namespace.get("PAPERMILL_OUTPUT_PATH"))
    if notebook is not None:
        folder, name, option = notebook.parent, metrics_file(notebook).name, "the output folder"
    elif setting(OUTPUT_DIR_ENV) is not None:
        folder, name, option = (
            folder_setting(OUTPUT_DIR_ENV, DEFAULT_RUNS_DIR),
            f"{chapter_id}.metrics.json",
            OUTPUT_DIR_ENV,
        )
    else:
        folder, name, option = DEFAULT_RUNS_DIR, unique_metrics_name(chapter_id), "the output folder"
    folder = usable_output_dir(folder, chapter_id, option=option)
    target = folder / name
    if os.path.lexists(target) and not target.is_file():
        raise ParameterError(f"{option} {folder}: {name} there is not a regular file; the run could not write it")
    return folder, name, notebook is not None or option == OUTPUT_DIR_ENV


def start_chapter(chapter_id: str, namespace: dict[str, Any]) -> ChapterRun:
    """Validate the parameters found in `namespace` (the notebook's globals) and start recording.

    The same checks as `python -m lib run`, in the cell after the parameters (and after the cell
    papermill injects): names, values, joint rules, the estimated cost (unless LIB_ALLOW_EXPENSIVE=1 and
    the request is possible at all) and the output folder (`lib.book.run.outputs.usable_output_dir`).
    Parameters missing from `namespace` take their declared defaults (a notebook opened by hand).
    Raises `ParameterError`, one line in the notebook, before any computation.
    """
    from IPython import get_ipython

    from lib.util import runtime
    from lib.util.plotting import use_book_style

    withdraw_previous_metrics(namespace)  # (papermill's Python API: only a PAPERMILL_OUTPUT_PATH parameter names it)
    shell = get_ipython()
    for guard in _installed_guards(shell) if shell is not None else []:
        shell.input_transformers_cleanup.remove(guard)
    chapter = load(chapter_id)
    command = papermill_command()
    if command is not None:
        problem = command_line_problem(command, chapter, papermill_cwd(), papermill_shell_pwd())
        if problem is not None:
            raise ParameterError(problem)
    params = chapter.validate({k: namespace[k] for k in chapter.defaults() if k in namespace})
    check_cost(chapter, params, allow_expensive=runtime.allow_expensive())
    check_stored_results_mode(chapter, params, stored_results_mode())
    directory, name, known = metrics_destination(chapter_id, namespace)
    runtime.apply()
    use_book_style()
    run = ChapterRun(chapter, params, directory, name)
    if not known:
        print(
            f"metrics: {run.path} (where this run writes its notebook is not known: set {OUTPUT_DIR_ENV}, or give "
            "papermill's Python API parameters={'PAPERMILL_OUTPUT_PATH': OUT}, to write the metrics beside it)"
        )
    return run
