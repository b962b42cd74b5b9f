"""The reproducibility summary: one status per catalogue row, derived from its claims' verdicts, never typed.

Each catalogue row of `book/catalogue.md` ("S-2c, S-3", "G-Th3", ...) collects the claims whose id
starts with one of its ids (the part before "/": "S-13, S-14/median" belongs to "S-13, S-14";
a letter suffix belongs to its figure, "S-6a/..." to "S-6"). Its status follows `STATUS_RULE`,
applied to the claims' kinds (lib.book.chapters.declaration.KINDS), bases and verdicts. The landing page, the
scorecard, the chapters' summary boxes and the README results table all read it from here.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from lib.book.chapters.declaration import BAR_RULE, CATEGORIES, FAILS, HOLDS, INCONCLUSIVE, NOT_COMPUTED, Chapter
from lib.book.verdicts.claims import Verdict, claim_anchor, claim_id_html, format_value, is_interval, not_judged
from lib.util.paths import ROOT
from lib.util.wording import as_sentence, plural, reader_list, reader_name, sentence_start

REPRODUCED = "reproduced"
CAVEATS = "reproduced with caveats"
NOT_REPRODUCED = "not reproduced"
ERRATUM = "error in the paper"
UNDECIDED = "undecided at this budget"
DEPENDS = "depends on a free choice"
NEEDS_GPU = "needs a GPU"
STATUSES = (REPRODUCED, CAVEATS, NOT_REPRODUCED, ERRATUM, UNDECIDED, DEPENDS, NEEDS_GPU)

STATUS_RULE = (
    "A row's status is derived from its *primary* claims, never set by hand: the claims each row names as the paper's "
    "own statement, read on the paper's own measure (its figure's quantity, its text's criterion) at the paper's "
    "setting. The roles were assigned on 2026-11-26, when most verdicts were already known; a claim whose test was "
    "declared, or whose role changed, after its evidence had been seen says so, and when, in its note. Every other "
    "claim says what it is "
    "(a further statement of the paper; a book reading: a statistic, bar or threshold the paper does not "
    "set; an extension, derivation or finding beyond the paper; a consistency or method check), is shown "
    "under *also tested*, and never moves the row. When a primary claim **does not hold**, and no free choice of the "
    "analyst changes that, the row is **not reproduced**; when its interval straddles the condition, **undecided at "
    "this budget**; when "
    "it was not computed because its evidence is declared for a GPU that the build did not have, "
    "**needs a GPU**. A primary claim whose verdict changes with a free choice of the analyst (a floor, "
    "a level, a read-out, a bar the paper does not set, each shown with its alternatives in the scorecard) is never "
    "reported plainly: **reproduced "
    "with caveats** when it holds under the choice fixed in advance, **depends on a free choice** when it does not "
    "hold under it (the verdict under each choice is shown beside it), and stays undecided while it is inconclusive. A row takes the first of these that any of its primaries gives: not "
    "reproduced, needs a GPU, undecided at this budget, depends on a free choice, reproduced with caveats. "
    "Otherwise the row is **error in the paper** when one of its primary claims is an *erratum*, a statement "
    "of the paper that the book shows wrong (see the errata), and **reproduced** when every primary claim holds. "
    + BAR_RULE
    + " (The rule was declared on 2026-12-07, when the verdicts at the declared bars were known: one rule for every "
    "such claim, not a choice per claim, picks the alternatives.)"
)

CATALOGUE = ROOT / "book" / "catalogue.md"
# What a point value (no interval) rests on, in a few words.
BASES_SHORT = {
    "exact": "exact",
    "consistency": "by construction",
    "single run": "one run",
    "seeds": "over seeds",
    "evidence": "stored evidence",
}
# Each paper's title and the one sentence of what it claims that opens its part of the summary.
PAPERS = {
    "S": (
        "Swing-by dynamics",
        "{cite:t}`yang2025swingby` claim that concepts are learned in an order set by signal strength and "
        "diversity, that deeper models first swing by the strongest training cluster before generalizing, "
        "and that a symmetric two-layer linear theory explains both.",
    ),
    "G": (
        "GenEFT",
        "{cite:t}`baek2024geneft` claim that generalization needs a critical data fraction set by the "
        "relation's description length, and that embeddings interact like particles whose collision "
        "decides between generalization and memorization.",
    ),
}


@dataclass(frozen=True)
class CatalogueRow:
    """One row of the catalogue: its ids ("S-2c", "S-3"), the paper letter and what it is."""

    ids: tuple[str, ...]
    artifact: str

    @property
    def key(self) -> str:
        return ", ".join(self.ids)

    @property
    def paper(self) -> str:
        return self.ids[0].split("-")[0]


_ROW = re.compile(r"^\|\s*([SG]-[^|]+?)\s*\|\s*([^|]*?)\s*\|")


def catalogue_rows(path: Path = CATALOGUE) -> list[CatalogueRow]:
    """The rows of the catalogue's tables, in page order."""
    rows = []
    for line in Path(path).read_text().splitlines():
        match = _ROW.match(line)
        if match:
            ids = tuple(part.strip() for part in match.group(1).split(","))
            rows.append(CatalogueRow(ids, match.group(2)))
    return rows


def claim_row_ids(claim_id: str) -> tuple[str, ...]:
    """The catalogue ids a claim id names: "S-13, S-14/median" -> ("S-13", "S-14")."""
    return tuple(part.strip() for part in claim_id.split("/")[0].split(","))


def row_of(claim_id: str, rows: list[CatalogueRow]) -> CatalogueRow | None:
    """The catalogue row of a claim: the row that lists one of its ids, or its figure without a panel letter."""
    for candidates in (
        claim_row_ids(claim_id),
        tuple(re.sub(r"(?<=\d)[a-z]$", "", i) for i in claim_row_ids(claim_id)),
    ):
        for row in rows:
            if set(candidates) & set(row.ids):
                return row
    return None


# The status of one primary claim, and how a row combines them: the first of this order that a primary has.
_ORDER = (NOT_REPRODUCED, NEEDS_GPU, UNDECIDED, DEPENDS, CAVEATS, ERRATUM, REPRODUCED)


@dataclass
class RowSummary:
    """A catalogue row with its claims' verdicts and the status its primary claims give."""

    row: CatalogueRow
    verdicts: list[Verdict] = field(default_factory=list)
    gpu_pending: bool = False

    @property
    def primaries(self) -> list[Verdict]:
        """The claims that decide the row (`role="primary"`), in declaration order."""
        return [v for v in self.verdicts if v.claim.role == "primary"]

    @property
    def also_tested(self) -> list[Verdict]:
        """Every other claim of the row: shown, counted apart, never moving its status."""
        return [v for v in self.verdicts if v.claim.role != "primary"]

    @property
    def decisive(self) -> Verdict | None:
        """The primary claim that sets the row's status (the first with the row's status), None without one."""
        found = [v for v in self.primaries if self.claim_status(v) == self.status]
        return found[0] if found else (self.primaries[0] if self.primaries else None)

    @property
    def errata(self) -> list[Verdict]:
        """Primary erratum claims that do not hold: errors the book finds in the paper."""
        return [v for v in self.primaries if v.claim.kind == "erratum" and v.verdict == FAILS]

    def claim_status(self, v: Verdict) -> str:
        """What one primary claim says of its row (see STATUS_RULE)."""
        if v.claim.kind == "erratum":
            return ERRATUM if v.verdict == FAILS else REPRODUCED
        if v.dependent_choices and v.verdict in (HOLDS, FAILS):  # never plain: the analyst's choice moves it
            return CAVEATS if v.verdict == HOLDS else DEPENDS
        if v.verdict == FAILS:
            return NOT_REPRODUCED
        if v.verdict == NOT_COMPUTED:
            return NEEDS_GPU if self.gpu_pending else UNDECIDED
        if v.verdict == INCONCLUSIVE:
            return UNDECIDED
        return REPRODUCED

    @property
    def status(self) -> str:
        found = {self.claim_status(v) for v in self.primaries}
        return next((s for s in _ORDER if s in found), UNDECIDED)

    @property
    def linked(self) -> Verdict | None:
        """The claim a link to the row lands on: its decisive primary, or its first claim while it has none."""
        return self.decisive or (self.verdicts[0] if self.verdicts else None)

    @property
    def chapter(self) -> str | None:
        return self.linked.chapter if self.linked else None

    def decisive_parts(self) -> list[tuple[str, str]]:
        """(claim id, its value and what it must meet: `primary_text`) for each primary claim, an error in the
        paper's errata first, so that the row shows every primary its paper's counts include."""
        shown = self.errata + [v for v in self.primaries if not (v.claim.kind == "erratum" and v.verdict == FAILS)]
        return [(v.claim.id, primary_text(v)) for v in shown]

    def decisive_text(self) -> str:
        """`decisive_parts` as one line: "S-3/rise: 0.42 [0.35, 0.48], n = 480 (needs > 0); ..."."""
        return "; ".join(f"{claim}: {text}" for claim, text in self.decisive_parts()) or "no primary claim declared"

    def reasons(self) -> list[str]:
        """Why the row is not plainly reproduced, a sentence per part (read under the fold "why", one under
        another): its primaries' notes and free choices, and its errata."""
        if not self.primaries:
            return ["No primary claim is declared for this row."]
        noted = [
            (v.claim.id, v.note)
            for v in self.primaries
            if self.claim_status(v) in (NOT_REPRODUCED, UNDECIDED, DEPENDS, NEEDS_GPU) and v.note
        ]
        parts = shared_clauses(noted, len(self.primaries))
        parts += [f"{v.claim.id} {v.robustness_detail}" for v in self.primaries if v.dependent_choices]
        if self.status in (UNDECIDED, NEEDS_GPU) and self.gpu_pending:
            parts.append("the chapter's paper-scale evidence is declared for a GPU and not computed")
        if self.errata:
            parts.append("errors in the paper: " + ", ".join(e.claim.id for e in self.errata))
        return [as_sentence(part) for part in parts]

    def also_tested_parts(self) -> list[str]:
        """The row's other claims, a sentence per kind: "Book reading: S-2c/turn-back (does not hold); ..."."""
        groups: dict[str, list[str]] = {}
        for v in self.also_tested:
            groups.setdefault(v.claim.category, []).append(f"{v.claim.id} ({v.summary})")
        return [f"{sentence_start(CATEGORIES[k])}: {'; '.join(groups[k])}." for k in CATEGORIES if k in groups]


def note_clauses(note: str) -> list[str]:
    """A note's clauses: its parts between "; " outside brackets and inline math."""
    clauses, depth, math, start = [], 0, False, 0
    for i, ch in enumerate(note):
        if ch == "$":
            math = not math
        elif ch in "([{" and not math:
            depth += 1
        elif ch in ")]}" and not math:
            depth -= 1
        elif note.startswith("; ", i) and depth == 0 and not math:
            clauses.append(note[start:i])
            start = i + 2
    return [*clauses, note[start:]]


def shared_clauses(noted: list[tuple[str, str]], whole: int | None = None) -> list[str]:
    """ "LABELS: clause" for the notes of several claims, (label, note) each: a clause that two or more notes share
    is said once, after every label that has it (or "all N primary claims" when that is each of the `whole` N,
    more than two), in the order first met; then each claim's own clauses, in its note's order. Seven
    registered claims whose notes differ only in their power say the registration once; notes that share
    nothing read as before."""
    split = [(label, note_clauses(note)) for label, note in noted]
    holders: dict[str, list[str]] = {}
    for label, clauses in split:
        for clause in dict.fromkeys(clauses):
            holders.setdefault(clause, []).append(label)
    shared = {clause: labels for clause, labels in holders.items() if len(labels) > 1}
    parts = [
        f"{f'all {whole} primary claims' if len(labels) == whole and whole > 2 else ', '.join(labels)}: {clause}"
        for clause, labels in shared.items()
    ]
    for label, clauses in split:
        own = [clause for clause in clauses if clause not in shared]
        if own:
            parts.append(f"{label}: {'; '.join(own)}")
    return parts


def primary_text(v: Verdict) -> str:
    """A claim's value and what it must meet: "0.42 [0.35, 0.48], n = 240 (needs > 0)"; a point value with
    what it rests on ("3, one run"); a yes/no observation as yes or no."""
    basis = "" if is_interval(v.value) else f", {BASES_SHORT[v.claim.basis]}"
    if isinstance(v.value, bool):  # a yes/no observation: the status column says whether it is the paper's
        return f"{'yes' if v.value else 'no'} ({basis.lstrip(', ')})"
    return f"{format_value(v.value)} (needs {v.needs}{basis})"


def gpu_pending_chapters() -> set[str]:
    """Chapters with an evidence set declared for a GPU that has no stored shard (one whose files match their
    recorded hashes, configuration and code: the check `load_or_smoke` makes before it reads any array)."""
    from lib.book.evidence.registry import all_sets
    from lib.book.evidence.status import status

    gpu_sets = [s.key for s in all_sets() if s.gpu]
    if not gpu_sets:
        return set()
    return {row["set"].split("/")[0] for row in status(",".join(gpu_sets), read=False) if not row["counts"].get("ok")}


def summarise(found: list[Verdict], gpu_pending: set[str] | None = None) -> list[RowSummary]:
    """One RowSummary per catalogue row, in catalogue order; ValueError for a claim that names no row."""
    rows = catalogue_rows()
    summaries = {row.key: RowSummary(row) for row in rows}
    orphans = []
    for v in found:
        row = row_of(v.claim.id, rows)
        if row is None:
            orphans.append(v.claim.id)
        else:
            summaries[row.key].verdicts.append(v)
    if orphans:
        raise ValueError(f"claims that name no catalogue row of {CATALOGUE.name}: {orphans}")
    pending = gpu_pending or set()
    for s in summaries.values():
        s.gpu_pending = s.chapter in pending
    return list(summaries.values())


def status_counts(summaries: list[RowSummary]) -> Counter:
    return Counter(s.status for s in summaries)


def claim_counts(found: list[Verdict]) -> dict[str, int]:
    """Verdicts of the paper's primary claims; errors found in the paper; the other claims, counted apart."""
    primary = [v for v in found if v.claim.role == "primary" and v.claim.kind == "claim"]
    return {
        "holds": sum(v.verdict == HOLDS for v in primary),
        "does not hold": sum(v.verdict == FAILS for v in primary),
        "inconclusive": sum(v.verdict == INCONCLUSIVE for v in primary),
        "not computed": sum(v.verdict == NOT_COMPUTED for v in primary),
        "errors in the paper": sum(v.claim.kind == "erratum" and v.verdict == FAILS for v in found),
        "also tested": sum(v.claim.category not in ("primary", "erratum") for v in found),
    }


def primary_counts_text(c: dict[str, int]) -> tuple[int, str]:
    """The paper's primary claims (errata included) as counted by `claim_counts`, and what came of them:
    (19, "10 hold, 0 do not hold, 0 are inconclusive; 9 are errors in the paper")."""
    errors = c["errors in the paper"]
    n = c["holds"] + c["does not hold"] + c["inconclusive"] + c["not computed"] + errors
    text = (
        f"{c['holds']} {'holds' if c['holds'] == 1 else 'hold'}, "
        f"{c['does not hold']} {'does' if c['does not hold'] == 1 else 'do'} not hold, "
        f"{c['inconclusive']} {'is' if c['inconclusive'] == 1 else 'are'} inconclusive"
    )
    if c["not computed"]:
        text += f", {c['not computed']} {'was' if c['not computed'] == 1 else 'were'} not computed"
    return n, text + f"; {errors} {'is an error' if errors == 1 else 'are errors'} in the paper"


def also_tested_counts(found: list[Verdict]) -> dict[str, Counter]:
    """The claims that are not the paper's primary claims or errata, by what they are (CATEGORIES, in order),
    each with its verdicts counted."""
    groups: dict[str, Counter] = {}
    for v in found:
        if v.claim.category not in ("primary", "erratum"):
            groups.setdefault(v.claim.category, Counter())[v.verdict] += 1
    return {k: groups[k] for k in CATEGORIES if k in groups}


def also_tested_sentence(found: list[Verdict]) -> str:
    """ "also tested: 4 further statements of the paper (3 hold, 1 does not hold); 2 book readings (...)"."""
    parts = []
    for category, counts in also_tested_counts(found).items():
        total = sum(counts.values())
        label = CATEGORIES[category]
        name = label if total == 1 else _PLURAL_CATEGORIES.get(category, label + "s")
        verdicts = ", ".join(f"{n} {k if n == 1 else _PLURAL_VERDICTS[k]}" for k in _VERDICT_ORDER if (n := counts[k]))
        parts.append(f"{total} {name} ({verdicts})")
    return "also tested: " + "; ".join(parts) if parts else ""


_VERDICT_ORDER = (HOLDS, FAILS, INCONCLUSIVE, NOT_COMPUTED)
_PLURAL_VERDICTS = {HOLDS: "hold", FAILS: "do not hold", INCONCLUSIVE: "inconclusive", NOT_COMPUTED: "not computed"}
_PLURAL_CATEGORIES = {
    "paper": "further statements of the paper",
    "check": "consistency or method checks",
    "extension": "extensions beyond the paper",
    "derivation": "derivations beyond the paper",
    "finding": "findings beyond the paper",
}


_COMMIT_NOTICE = re.compile(
    r"^EvidenceCommitWarning: evidence (?P<set>\S+ \(\w+\)): (?P<k>\d+) of (?P<n>\d+) shards were computed at commit"
)


STORED_NOTICE = "stored result "  # how a notice of a stored result a run could not use begins (ChapterRun.stored)
_STORED_STATES = {  # lib.book.evidence.stored.STATES, for a reader
    "other arguments": "its arguments differ here",
    "other code": "the code it reaches has changed",
    "damaged": "its files are damaged",
    "missing": "it is not stored",
}
_STORED_NOTICE = re.compile(
    rf"^{STORED_NOTICE}(?P<key>\S+) not used \((?P<state>[a-z ]+)(: .*)?\); computed live\. Refresh: (?P<command>.+)$"
)


def reader_notices(notices: list[str]) -> list[str]:
    """A run's notices (caught warnings, "Category: message") worded for a reader: the evidence store's
    one notice per earlier commit becomes one sentence per set; a library warning names its library's
    category after its message."""
    shards: dict[str, list[int]] = {}
    out = []
    for notice in notices:
        match = _COMMIT_NOTICE.match(notice)
        if match:
            counts = shards.setdefault(match["set"], [0, int(match["n"]), 0])
            counts[0] += int(match["k"])
            counts[2] += 1
            continue
        if stored := _STORED_NOTICE.match(notice):  # the details went to the terminal; the names set as code
            out.append(
                f"the stored result `{stored['key']}` was computed live "
                f"({_STORED_STATES.get(stored['state'], stored['state'])}); "
                f"`{stored['command']}` refreshes it"
            )
            continue
        category, _, message = notice.partition(": ")
        out.append(f"a library warned: {message} ({category})" if message else notice)
    for name, (k, n, commits) in shards.items():
        key, _, variant = name.partition(" (")  # "geneft_dynamics/phase_grid (smoke)"
        earlier = "an earlier commit" if commits == 1 else f"{commits} earlier commits"
        out.insert(
            0,
            f"{k} of {n} shards of the evidence set {reader_name(key.rpartition('/')[2])} ({variant.rstrip(')')} "
            f"variant) were computed at {earlier}, with the same code, and are used",
        )
    return out


SCIENCE_PACKAGES = ("sim", "theory", "geneft", "diffusion")


def chapter_sources(chapter_id: str) -> tuple[list[str], list[str]]:
    """The science modules a chapter runs (its notebook's `lib` import closure, book machinery left out),
    as repository paths, and the evidence sets declared for it."""
    from lib.book.chapters.dependencies import chapter_dependencies
    from lib.book.evidence.registry import all_sets

    code = [
        p.relative_to(ROOT).as_posix()
        for p in chapter_dependencies(chapter_id)
        if p.suffix == ".py" and p.name != "__init__.py" and p.parent.name in SCIENCE_PACKAGES
    ]
    return code, [s.key for s in all_sets() if s.chapter == chapter_id]


def _linked(v: Verdict) -> str:
    """A claim's id linked to its row in its chapter's claims table, read as running text (`claim_id_html`)."""
    return f'<a href="#{claim_anchor(v.claim.id)}">{claim_id_html(v.claim.id, break_at_slash=False)}</a>'


def box_reason(v: Verdict) -> str:
    """What a summary box says of a claim that did not hold or is inconclusive: for one not judged, why (its note,
    "registered before its evidence: ..."); for one judged, its value and what it needed, in one line (its note,
    the evidence and the reason, is in the chapter's claims table, one link away)."""
    reason = not_judged(v.value)
    return primary_text(v) if reason is None else v.note or reason


def chapter_summary_markdown(
    chapter: Chapter,
    found: list[Verdict],
    gpu_pending: set[str] | None = None,
    notices: list[str] = (),
    sources: tuple[list[str], list[str]] = ((), ()),
) -> str:
    """The admonition that opens a chapter (MyST): the catalogue rows it reproduces with their status; the
    paper's primary claims, what held first, then what did not hold and what is inconclusive, each in one line
    (`box_reason`), what they share said once; the other claims counted by what they are; errata, notices, code and the command that reruns it."""
    mine = [v for v in found if v.chapter == chapter.id]
    rows = [s for s in summarise(mine, gpu_pending) if s.verdicts]
    c = claim_counts(mine)
    reproduces = [f"- {s.row.key} ({s.row.artifact}): **{s.status}**" for s in rows]
    n_primary, counts = primary_counts_text(c)
    also = also_tested_sentence(mine)
    primary = [v for v in mine if v.claim.role == "primary" and v.claim.kind == "claim"]
    lines = [
        ":::{admonition} What this chapter reproduces",
        ":class: tip",
        "",
        "**Catalogue rows:**",
        "",
        *reproduces,
        "",
        f"**The paper's claims that decide them ({n_primary}).** {counts}. Each claim links to its row in the "
        "table at the end of the chapter.",
        "",
    ]
    held = [v for v in primary if v.verdict == HOLDS]
    if held:
        lines += ["**Held:** " + ", ".join(_linked(v) for v in held) + ".", ""]
    # a claim that did not hold under the choice fixed in advance, but whose verdict another choice changes, never
    # sets its row plainly (STATUS_RULE; the row may be not reproduced by another claim): listed apart (its claims
    # table row names the choices)
    groups = (
        ("Did not hold", lambda v: v.verdict == FAILS and not v.dependent_choices),
        (
            "Did not hold under the choice fixed in advance, and another choice changes the verdict (so it never "
            "reports its row plainly)",
            lambda v: v.verdict == FAILS and v.dependent_choices,
        ),
        ("Inconclusive", lambda v: v.verdict == INCONCLUSIVE),
        ("Not computed", lambda v: v.verdict == NOT_COMPUTED),
    )
    for title, member in groups:
        reasons = [(_linked(v), box_reason(v)) for v in primary if member(v)]
        if reasons:  # what claims share is said once, with the link of each (`shared_clauses`)
            items = (f"- {part}" for part in shared_clauses(reasons))
            lines += [f"**{title}:**", "", *items, ""]
    if also:
        lines += [f"**Also tested, never moving a row:** {also[len('also tested: ') :]}.", ""]
    errata = [v for v in mine if v.claim.kind == "erratum" and v.verdict == FAILS]
    if errata:
        ids = ", ".join(_linked(v) for v in errata)
        lines += [f"**Errors in the paper** (see the errata): {ids}.", ""]
    if notices:
        lines.append("**Notices of this run** (also on the build status page):")
        lines.append("")
        lines += [f"- {notice}" for notice in reader_notices(notices)]
        lines.append("")
    code, evidence = sources
    parts = []  # counted, not listed: the box fits a screen (the lists are one link away)
    if code:
        packages = reader_list(f"`{p}`" for p in sorted({Path(c).parent.as_posix() for c in code}))
        parts.append(f"Computed by {plural(len(code), 'module')} of {packages} (listed under Code behind the results)")
    if evidence:
        parts.append(f"{plural(len(evidence), 'evidence set')} (their states and commits under Build status)")
    if parts:
        lines += ["**Code and evidence.** " + "; ".join(parts) + ".", ""]
    lines += [
        f"**Rerun.** `python -m lib run {chapter.id} -p NAME VALUE --output-dir runs/` "
        "(the parameters are listed in the Parameters appendix).",
        ":::",
    ]
    return "\n".join(lines) + "\n"
