"""Claims against metrics: the scorecard page, `python -m lib claims`, and each chapter's closing table."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lib.chapter import Chapter, Claim


@dataclass(frozen=True)
class Verdict:
    chapter: str
    claim: Claim
    value: Any
    holds: bool

    @property
    def status(self) -> str:
        if self.holds:
            return "holds" if self.claim.expected_to_hold else "holds (declared not to: update the declaration)"
        return "does not hold" + ("" if self.claim.expected_to_hold else " (known)")

    @property
    def as_expected(self) -> bool:
        return self.holds == self.claim.expected_to_hold


def read_metrics(directory: Path, chapter_id: str) -> dict[str, Any] | None:
    path = Path(directory) / f"{chapter_id}.metrics.json"
    return json.loads(path.read_text()) if path.exists() else None


def verdicts(chapters: list[Chapter], metrics: dict[str, dict[str, Any] | None]) -> list[Verdict]:
    out = []
    for chapter in chapters:
        found = metrics.get(chapter.id) or {}
        for claim in chapter.claims:
            value = found.get(claim.metric)
            out.append(Verdict(chapter.id, claim, value, claim.holds(value)))
    return out


def format_value(value: Any) -> str:
    if value is None:
        return "not computed"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list):
        return "[" + ", ".join(format_value(v) for v in value[:6]) + (", …" if len(value) > 6 else "") + "]"
    return str(value)


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def claims_markdown(chapters: list[Chapter], metrics: dict[str, dict[str, Any] | None]) -> str:
    """A Markdown table: catalogue id, verdict, statement, paper value, book value and its condition."""
    rows = [
        "| id | verdict | the paper says | paper value | book value | metric and condition |",
        "|---|---|---|---|---|---|",
    ]
    for v in verdicts(chapters, metrics):
        verdict = f"**{v.status}**" if v.holds else v.status
        rows.append(
            "| " + " | ".join(_cell(x) for x in (
                v.claim.id, verdict, v.claim.statement, v.claim.paper_value, format_value(v.value),
                f"`{v.claim.metric} {v.claim.condition}`",
            )) + " |"
        )
    return "\n".join(rows) + "\n"


def claims_report(chapters: list[Chapter], directory: Path, known_failures_ok: bool) -> tuple[str, int]:
    """Plain-text table for the terminal and the exit code of `python -m lib claims`."""
    metrics = {c.id: read_metrics(directory, c.id) for c in chapters}
    lines, bad = [], 0
    for v in verdicts(chapters, metrics):
        failing = not v.as_expected if known_failures_ok else not v.holds
        bad += failing
        mark = "FAIL" if failing else " ok "
        lines.append(
            f"[{mark}] {v.claim.id:<8} {v.chapter:<17} {v.claim.metric} = {format_value(v.value)}"
            f"  (needs {v.claim.condition}; paper: {v.claim.paper_value}) -> {v.status}"
        )
    missing = [c.id for c in chapters if metrics[c.id] is None]
    if missing:
        lines.append(f"no metrics in {directory} for: {', '.join(missing)}")
    total = sum(len(c.claims) for c in chapters)
    lines.append(f"{total - bad} of {total} claims as required ({'known failures accepted' if known_failures_ok else 'strict'})")
    return "\n".join(lines), int(bad > 0)
