"""Claims against metrics: the scorecard page, `python -m lib claims`, and each chapter's closing table.

A metrics file `ID.metrics.json` maps metric names to numbers, booleans, strings, lists or
estimates `{"value", "low", "high", "n", "method"}`; the key `_run` records the parameters and
the code fingerprint that produced it. Each declared claim gets a verdict (holds / does not
hold / inconclusive / not computed) and is "as declared" when that verdict is its `expected`.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lib.chapter import FAILS, HOLDS, INCONCLUSIVE, NOT_COMPUTED, Chapter, Claim, is_estimate, short
from lib.numbers import format_interval, format_number

RUN_KEY = "_run"


class MetricsError(ValueError):
    """A metrics file is missing, unreadable, truncated or not a JSON object (exit code 2)."""


@dataclass(frozen=True)
class Verdict:
    chapter: str
    claim: Claim
    value: Any
    verdict: str
    why: str
    threshold: Any = None
    note: str = ""

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


def read_metrics(directory: Path, chapter_id: str) -> dict[str, Any] | None:
    """The metrics of a chapter in `directory`, None when there is no file; MetricsError when unusable."""
    path = Path(directory) / f"{chapter_id}.metrics.json"
    if not path.exists():
        return None
    try:
        loaded = json.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as err:
        raise MetricsError(f"{path}: not UTF-8 ({err.reason} at byte {err.start})") from None
    except json.JSONDecodeError as err:
        raise MetricsError(f"{path}: not valid JSON, truncated or edited ({err.msg}, line {err.lineno})") from None
    except OSError as err:
        raise MetricsError(f"{path}: cannot be read ({err.strerror})") from None
    if not isinstance(loaded, dict):
        raise MetricsError(f"{path}: expected a JSON object of metric name -> value, got {type(loaded).__name__}")
    return loaded


def chapters_present(directory: Path, chapters: list[Chapter]) -> list[Chapter]:
    """The chapters that have a metrics file in `directory`."""
    return [c for c in chapters if (Path(directory) / f"{c.id}.metrics.json").exists()]


_PLACEHOLDER = re.compile(r"\{([A-Za-z_][\w.]*)\}")


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
    out = []
    for chapter in chapters:
        found = metrics.get(chapter.id) or {}
        parameters = (found.get(RUN_KEY) or {}).get("parameters")
        for claim in chapter.claims:
            value = found.get(claim.metric)
            verdict, why = claim.evaluate(value, parameters)
            note = fill_note(claim.note, found)
            out.append(Verdict(chapter.id, claim, value, verdict, why, claim.threshold(parameters), note))
    return out


# ----------------------------------------------------------------------------------------------
# Formatting
# ----------------------------------------------------------------------------------------------


def format_value(value: Any) -> str:
    """A metric as text, through the book's one formatter (`lib.numbers`).

    An estimate reads "value [low, high], n = N" with the digits its interval justifies; a float
    at most 4 significant digits; a list its first six entries.
    """
    if value is None:
        return "not computed"
    if is_estimate(value):
        return f"{format_interval(value['value'], value['low'], value['high'])}, n = {value['n']}"
    if isinstance(value, (bool, int, float)):
        return format_number(value)
    if isinstance(value, list):
        return "[" + ", ".join(format_value(v) for v in value[:6]) + (", …" if len(value) > 6 else "") + "]"
    return short(value) if not isinstance(value, str) else value[:80]


_BASIS_LABEL = {
    "exact": "exact",
    "consistency": "consistency check",
    "single run": "single run",
    "seeds": "seeds",
    "evidence": "evidence tier",
}


def basis_text(v: Verdict) -> str:
    """Strength of the evidence: exact / consistency check / single run / seeds / evidence tier, with n."""
    n = f", n = {v.value['n']}" if is_estimate(v.value) else ""
    return _BASIS_LABEL[v.claim.basis] + n


def reason_text(v: Verdict) -> str:
    """The declared reason (`Claim.note`), and for any verdict but "holds" why the interval decided it."""
    return "; ".join(p for p in (v.note, "" if v.verdict == HOLDS else v.why) if p)


_VERB = {HOLDS: "holds", FAILS: "does not hold", INCONCLUSIVE: "is undecided", NOT_COMPUTED: "was not computed"}


def sentence(v: Verdict) -> str:
    """The verdict as a clause for the prose, generated from the claim, never typed: "S-8 holds: 0.20
    [0.10, 0.30], n = 1000 (needs > 0.01)". No closing period: the prose around it punctuates."""
    label = "is an error in the paper" if v.claim.kind == "erratum" and v.verdict == FAILS else _VERB[v.verdict]
    text = f"{v.claim.id} {label}: {format_value(v.value)} (needs {v.condition})"
    if not v.as_declared:
        text += f", although the chapter declares it {v.claim.expected}"
    return text


def slug(claim_id: str) -> str:
    """A glue-friendly key of a claim id: "S-T4.1/rates" -> "s_t4_1_rates"."""
    return re.sub(r"[^a-z0-9]+", "_", claim_id.lower()).strip("_")


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def claim_anchor(claim_id: str) -> str:
    """The HTML id of a claim's row in its chapter's claims table: "S-T4.1/rates" -> "claim-s-t4-1-rates"."""
    return "claim-" + slug(claim_id).replace("_", "-")


def verdict_label(v: Verdict) -> str:
    """The verdict as a reader should read it: an erratum that does not hold is an error in the paper,
    a consistency or method check says so, a verdict that differs from its declaration says that too."""
    label = "error in the paper" if v.claim.kind == "erratum" and v.verdict == FAILS else v.verdict
    if v.claim.basis == "consistency":
        label += " (consistency check)"
    elif v.claim.kind == "method":
        label += " (method check)"
    if not v.as_declared:
        label += f"; declared {v.claim.expected}"
    tag = "strong" if v.verdict == HOLDS and v.as_declared else "span"
    return f'<{tag} class="book-status">{html.escape(label)}</{tag}>'


def _details(v: Verdict) -> str:
    """The paper's statement, its value, the evidence and the reason, folded (raw HTML in a table cell)."""
    reason = reason_text(v)
    body = f"{v.claim.statement} (paper: {v.claim.paper_value}). Evidence: {basis_text(v)}." + (
        f" {reason}" if reason else ""
    )
    summary = "why" if v.verdict != HOLDS or reason else "paper"
    return f"<details><summary>{summary}</summary>{html.escape(body)}</details>"


def claims_markdown(chapters: list[Chapter], metrics: dict[str, dict[str, Any] | None], link: str | None = None) -> str:
    """A compact Markdown table: claim, verdict, the book's value [interval] n, condition, folded details.

    Without `link`, each row carries its claim's anchor (the chapter's own table); with `link`
    (the relative folder of the chapter pages, e.g. "../chapters/"), each id links to that anchor.
    """
    rows = ["| claim | verdict | book value | condition | details |", "|---|---|---|---|---|"]
    for v in verdicts(chapters, metrics):
        target = claim_anchor(v.claim.id)
        ident = (
            f'<a href="{link}{v.chapter}.html#{target}">{html.escape(v.claim.id)}</a>'
            if link is not None
            else f'<span id="{target}"></span>{html.escape(v.claim.id)}'
        )
        cells = (ident, verdict_label(v), format_value(v.value), f"`{v.claim.metric} {v.condition}`", _details(v))
        rows.append("| " + " | ".join(_cell(x) for x in cells) + " |")
    return "\n".join(rows) + "\n"


def claims_report(chapters: list[Chapter], directory: Path) -> tuple[str, int]:
    """Plain-text table for the terminal and the exit code of `python -m lib claims`.

    Exit 1 when a verdict differs from its declaration; MetricsError (exit 2) when a metrics
    file of a requested chapter is missing or unusable.
    """
    metrics = {}
    for chapter in chapters:
        metrics[chapter.id] = read_metrics(directory, chapter.id)
        if metrics[chapter.id] is None:
            raise MetricsError(
                f"{Path(directory) / (chapter.id + '.metrics.json')}: no such file "
                f"(run `python -m lib run {chapter.id} --output-dir {directory}`)"
            )
    lines, bad = [], 0
    found = verdicts(chapters, metrics)
    for v in found:
        bad += not v.as_declared
        mark = " ok " if v.as_declared else "DIFF"
        lines.append(
            f"[{mark}] {v.claim.id:<22} {v.chapter:<17} {v.claim.metric} = {format_value(v.value)}"
            f"  (needs {v.condition}; {basis_text(v)}) -> {v.status}"
        )
    counts = {k: sum(v.verdict == k for v in found) for k in ("holds", "does not hold", "inconclusive", "not computed")}
    lines.append(", ".join(f"{n} {k}" for k, n in counts.items()) + f"; {len(found) - bad} of {len(found)} as declared")
    return "\n".join(lines), int(bad > 0)
