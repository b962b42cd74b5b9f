"""Releases of the book's verdicts and the changelog page.

A release stores a snapshot of every claim's verdict and value, `book/releases/VERSION.json`, written by
`python -m lib release RUNS_DIR` from the chapters executed at that version (the default runs that
`make book` writes to book/chapters), with the status of every catalogue row. The changelog page compares this
build with the newest snapshot of an earlier release (or, while the version is unchanged, with this version's own)
and lists every row whose status changed (a role can move a row with no verdict changed), every claim whose verdict
changed, with both verdicts and both values, every claim whose role changed (what it is for its row: the paper's
claim, a further statement, a reading, ...), and the claims added or withdrawn since.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from pathlib import Path

from lib.book.chapters.declaration import CATEGORIES, ParameterError, short
from lib.book.verdicts.claims import Verdict, claim_anchor, format_value
from lib.util.io import atomic_write_json
from lib.util.paths import ROOT
from lib.util.repository import build_date, version

RELEASES = ROOT / "book" / "releases"


def snapshot(found: list[Verdict], rows: Mapping[str, str], release: str | None = None) -> dict:
    """The verdicts of a release: version, date, per claim id its chapter, verdict, value (as the book's
    formatter writes it) and category (what it is for its row, a key of CATEGORIES), and per catalogue row (`rows`: row key ->
    status) its status."""
    return {
        "version": release or version(),
        "date": build_date(),
        "rows": dict(rows),
        "claims": {
            v.claim.id: {
                "chapter": v.chapter,
                "verdict": v.verdict,
                "value": format_value(v.value),
                "category": v.claim.category,
            }
            for v in found
        },
    }


def write_snapshot(found: list[Verdict], rows: Mapping[str, str], folder: Path = RELEASES) -> Path:
    """Store the snapshot of this version's verdicts and row statuses as `folder/VERSION.json` (atomic)."""
    data = snapshot(found, rows)
    path = folder / f"{data['version']}.json"
    atomic_write_json(path, data)
    return path


def _version_key(text: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in text.replace("-", ".").split("."))


def _read_snapshot(path: Path) -> dict:
    """A stored release snapshot; ParameterError (one line naming the file) for one that is not a snapshot (an
    edit, a merge conflict's markers)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ParameterError(f"{path}: not a release snapshot ({short(str(err))})") from None
    if not isinstance(data, dict) or not isinstance(data.get("version"), str):
        raise ParameterError(f"{path}: not a release snapshot (no version)")
    return data


def previous_release(folder: Path = RELEASES, current: str | None = None) -> dict | None:
    """The newest stored snapshot of a version before `current` (default: this version); failing that,
    the snapshot of `current` itself; None when no release is stored."""
    current = current or version()
    stored = sorted((_read_snapshot(p) for p in folder.glob("*.json")), key=lambda s: _version_key(s["version"]))
    earlier = [s for s in stored if _version_key(s["version"]) < _version_key(current)]
    same = [s for s in stored if s["version"] == current]
    return (earlier or same or [None])[-1]


def _cell(text: str) -> str:
    return html.escape(text, quote=False).replace("|", "&#124;")


def _link(claim_id: str, chapter: str) -> str:
    return f'<a href="../chapters/{chapter}.html#{claim_anchor(claim_id)}">{html.escape(claim_id)}</a>'


def _row_changes(rows: Mapping[str, str], before: dict) -> list[str]:
    """The changelog's lines on the catalogue rows: a table of the rows whose status changed since `before`, or,
    for a release that stored no row statuses, where those changes are told."""
    if "rows" not in before:
        return [
            f"Release {before['version']} stored no row statuses: a change of a row's status since then, which a "
            "claim's role can make with no verdict changed, is told in the claim's note and the chapter's notes, "
            "with its date.",
            "",
        ]
    then = before["rows"]
    moved = [key for key in rows if key in then and then[key] != rows[key]]
    added = [key for key in rows if key not in then]
    removed = [key for key in then if key not in rows]
    out = [] if moved else ["No catalogue row changed status.", ""]
    if moved:
        out += [
            "```{table}",
            ":class: book-cards",
            "",
            "| row | then | now |",
            "|---|---|---|",
            *(f"| {_cell(key)} | {_cell(then[key])} | {_cell(rows[key])} |" for key in moved),
            "```",
            "",
        ]
    out += _listed("Rows added", [f"{html.escape(key)} ({rows[key]})" for key in added])
    return out + _listed("Rows removed", [f"{html.escape(key)} (was {then[key]})" for key in removed])


def _role_changes(now: Mapping[str, dict], before: dict) -> list[str]:
    """The changelog's line on the claims whose role changed since `before` (both kept), or, for a release that
    stored no roles, where those changes are told."""
    then = before["claims"]
    if then and not any("category" in c for c in then.values()):
        return [
            f"Release {before['version']} stored no claim roles: a claim whose role changed since then (the paper's "
            "claim, a further statement of the paper, a book reading, ...) says so in its note, with its date.",
            "",
        ]
    moved = [c for c in now if "category" in then.get(c, {}) and then[c]["category"] != now[c]["category"]]
    return _listed(
        "Roles changed",
        [
            f"{_link(c, now[c]['chapter'])} (then: {CATEGORIES[then[c]['category']]}; now: {CATEGORIES[now[c]['category']]})"
            for c in moved
        ],
    )


def _listed(label: str, entries: list[str]) -> list[str]:
    """A changelog line naming `entries` after `label` ("Added: a, b."), or nothing when there are none."""
    return [f"{label}: " + ", ".join(entries) + ".", ""] if entries else []


def changelog_page(found: list[Verdict], rows: Mapping[str, str], folder: Path = RELEASES) -> str:
    """The changelog page (MyST): the rows whose status and the claims whose verdict changed since the previous
    release, with both values (`rows`: row key -> status now)."""
    out = ["(changelog)=", "# Changelog of the verdicts", ""]
    before = previous_release(folder)
    if before is None:
        return "\n".join(out + ["No release of the book's verdicts is stored yet (`python -m lib release`).", ""])
    now = snapshot(found, rows)["claims"]
    then = before["claims"]
    changed = [c for c in now if c in then and now[c]["verdict"] != then[c]["verdict"]]
    added = [c for c in now if c not in then]
    withdrawn = [c for c in then if c not in now]
    since = (
        f"release {before['version']} of {before['date']}"
        if before["version"] != version()
        else f"the verdicts recorded for this version, {before['version']}, on {before['date']}"
    )
    out += [
        f"This is version {version()} of the book. Every claim whose verdict differs from {since} "
        f"(`book/releases/{before['version']}.json`), with the verdict and the value then and now; the "
        "scorecard has every claim. A release stores its verdicts with `python -m lib release book/chapters`.",
        "",
        *_row_changes(rows, before),
        f"{len(changed)} of the {len(now)} claims changed verdict, {len(added)} {'was' if len(added) == 1 else 'were'} added and "
        f"{len(withdrawn)} withdrawn.",
        "",
    ]
    if changed:
        out += [
            "```{table}",
            ":class: book-cards",  # one card per claim on a phone (book/_ext/table_cards.py)
            "",
            "| claim | then | value then | now | value now |",
            "|---|---|---|---|---|",
            *(
                f"| {_link(c, now[c]['chapter'])} | {then[c]['verdict']} | {_cell(then[c]['value'])} "
                f"| {now[c]['verdict']} | {_cell(now[c]['value'])} |"
                for c in changed
            ),
            "```",
            "",
        ]
    out += _role_changes(now, before)
    out += _listed("Added", [f"{_link(c, now[c]['chapter'])} ({now[c]['verdict']})" for c in added])
    out += _listed("Withdrawn", [f"{html.escape(c)} (was {then[c]['verdict']})" for c in withdrawn])
    return "\n".join(out)
