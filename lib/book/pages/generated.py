"""Book pages generated from the chapters' declarations: scorecard, parameter tables, notes and errata."""

from __future__ import annotations

import html
import os
import re
from collections import Counter
from pathlib import Path

from lib.book.chapters import chapter_ids, load
from lib.book.chapters.declaration import Chapter, ParameterError, short
from lib.book.pages.changelog import changelog_page
from lib.book.pages.citation import citation_page
from lib.book.pages.code_links import Sources, figure_captions, metric_sources
from lib.book.verdicts.claims import (
    CLAIMS_TABLE_HEADER,
    RUN_KEY,
    MetricsError,
    Verdict,
    changed_parameters,
    claim_anchor,
    claim_id_html,
    claims_table_row,
    details_text,
    metrics_path,
    metrics_problem,
    read_metrics,
    row_key_html,
    verdicts,
)
from lib.book.verdicts.summary import (
    DEPENDS,
    ERRATUM,
    NEEDS_GPU,
    PAPERS,
    STATUS_RULE,
    STATUSES,
    RowSummary,
    also_tested_sentence,
    claim_counts,
    gpu_pending_chapters,
    primary_counts_text,
    reader_notices,
    status_counts,
    summarise,
)
from lib.util.io import atomic_write_text
from lib.util.numbers import significant
from lib.util.paths import ROOT
from lib.util.repository import commit_markdown, source_url
from lib.util.wording import plural, sentence_start


def _chapters() -> list[Chapter]:
    return [load(c) for c in chapter_ids()]


def book_metrics(runs_dir: Path, chapters: list[Chapter]) -> dict[str, dict | None]:
    """Every chapter's metrics for the book: runs of the current code at the default parameters only.

    A run with other parameters written into the book's folder, one from other code or another chapter, or an
    executed notebook without its metrics, stops the build (MetricsError, exit 2) instead of silently becoming
    the book.
    """
    metrics = {c.id: read_metrics(runs_dir, c.id) for c in chapters}
    for chapter in chapters:
        found = metrics[chapter.id]
        if found is None and os.path.lexists(Path(runs_dir) / f"{chapter.id}.ipynb"):
            raise MetricsError(
                f"{runs_dir}/{chapter.id}.metrics.json: missing beside its executed notebook; the book never shows "
                f"a chapter without its metrics: `make book` re-executes it"
            )
        if found is None:
            continue
        problem = metrics_problem(chapter, found, metrics_path(runs_dir, chapter.id))
        changed = changed_parameters(chapter, found)
        if problem or changed:
            reason = problem or f"it was run with parameters other than the defaults ({short(changed)})"
            raise MetricsError(
                f"{runs_dir}/{chapter.id}.metrics.json: {reason}; the book is built from default runs: "
                f"`rm {runs_dir}/{chapter.id}.ipynb && make book` re-executes it"
            )
    return metrics


def verdicts_and_statuses(runs_dir: Path) -> tuple[list[Verdict], dict[str, str]]:
    """Every claim's verdict and each catalogue row's status (row key -> status) from the book's default runs in
    `runs_dir`: what a release stores and the changelog compares."""
    _, _, found, summaries = _state(runs_dir)
    return found, {s.row.key: s.status for s in summaries}


def _state(runs_dir: Path) -> tuple[list[Chapter], dict, list[Verdict], list[RowSummary]]:
    """The chapters, their metrics in `runs_dir`, every claim's verdict and the catalogue rows' summaries."""
    chapters = _chapters()
    metrics = book_metrics(runs_dir, chapters)
    found = verdicts(chapters, metrics)
    return chapters, metrics, found, summarise(found, gpu_pending_chapters())


_COUNTED = {
    ERRATUM: "with an error in the paper",
    DEPENDS: "depending on a free choice",
    NEEDS_GPU: "waiting for a GPU",
}


def _counts_sentence(counts: Counter) -> str:
    return ", ".join(f"{n} {_COUNTED.get(status, status)}" for status in STATUSES if (n := counts.get(status)))


def _claims_sentence(found: list[Verdict]) -> str:
    n, counts = primary_counts_text(claim_counts(found))
    text = f"Of its {plural(n, 'primary claim')} of the paper: {counts}"
    also = also_tested_sentence(found)
    return text + (f". Counted apart, {also}." if also else ".")


def _html(text: str) -> str:
    return html.escape(text, quote=False).replace("|", "&#124;").replace("\n", " ")  # quotes stay: math reads them


def _markdown_text(text: str) -> str:
    """Plain `text` as it reads, in a Markdown table cell: HTML's characters and the bar escaped (`_html`), and the
    characters that would start emphasis, code, a link or a formula ("stop_tol * ||x_hat||", "$") taken literally."""
    return re.sub(r"([*_`\[\]$])", r"\\\1", _html(text))


def _folded(summary: str, body: str) -> str:
    return f"<details><summary>{summary}</summary>{_html(body)}</details>" if body else ""


def _folded_sentences(summary: str, sentences: list[str]) -> str:
    """`_folded`, its sentences one under another: a list when there are several."""
    if len(sentences) < 2:
        return _folded(summary, "".join(sentences))
    items = "".join(f"<li>{_html(sentence)}</li>" for sentence in sentences)
    return f'<details><summary>{summary}</summary><ul class="book-folded">{items}</ul></details>'


def summary_table(summaries: list[RowSummary], link: str) -> str:
    """Markdown: row (linked to its decisive claim in its chapter), artifact, status, its primary claims'
    results, and folded: why, and what else was tested (never moving the row)."""
    rows = ["| row | what the paper shows | status | the paper's claims | why; also tested |", "|---|---|---|---|---|"]
    for s in summaries:
        v = s.linked
        ident = (
            f'<a href="{link}{v.chapter}.html#{claim_anchor(v.claim.id)}">{row_key_html(s.row.key)}</a>'
            if v is not None
            else row_key_html(s.row.key)
        )
        decisive = "; ".join(f"{claim_id_html(claim)}: {_html(text)}" for claim, text in s.decisive_parts())
        decisive = decisive or _html(s.decisive_text())  # no primary claim declared
        why = _folded_sentences("why", s.reasons()) + _folded_sentences("also tested", s.also_tested_parts())
        status = f'<strong class="book-status">{s.status}</strong>'
        rows.append(f"| {ident} | {_html(s.row.artifact)} | {status} | {decisive} | {why} |")
    return "\n".join(rows) + "\n"


def _rows_by_status(summaries: list[RowSummary], link: str) -> list[str]:
    """One line per status other than reproduced, naming its rows, each linked to its decisive claim."""
    lines = []
    for status in STATUSES[1:]:
        rows = [s for s in summaries if s.status == status]
        if rows:
            links = "; ".join(
                f'<a href="{link}{s.chapter}.html#{claim_anchor(s.linked.claim.id)}">{row_key_html(s.row.key)}</a>'
                if s.linked is not None
                else row_key_html(s.row.key)
                for s in rows
            )
            lines.append(f"- **{sentence_start(status)}:** {links}.")
    return lines


def summary_page(runs_dir: Path) -> str:
    """The landing page's reproducibility summary (included by book/intro.md): per paper, counts and one row
    per catalogue artifact with its status, decisive number and a link to the claim in its chapter."""
    _, _, found, summaries = _state(runs_dir)
    out = [
        f"Of the {len(summaries)} artifacts of the catalogue: {_counts_sentence(status_counts(summaries))}.",
        "",
        *_rows_by_status(summaries, "chapters/"),
        "",
        ":::{admonition} How a status is decided",
        ":class: dropdown",
        STATUS_RULE,
        ":::",
        "",
    ]
    for paper, (title, blurb) in PAPERS.items():
        rows = [s for s in summaries if s.row.paper == paper]
        ids = {v.claim.id for s in rows for v in s.verdicts}
        out += [
            f"### {title}",
            "",
            f"{blurb} Of its {len(rows)} catalogue rows: {_counts_sentence(status_counts(rows))}. "
            + _claims_sentence([v for v in found if v.claim.id in ids]),
            "",
            summary_table(rows, "chapters/"),
        ]
    return "\n".join(out)


def scorecard_page(runs_dir: Path) -> str:
    """Markdown of the scorecard: every claim, grouped by paper and chapter, each linking to its chapter."""
    chapters, metrics, found, summaries = _state(runs_dir)
    differ = sum(not v.as_declared for v in found)
    out = [
        "(scorecard)=",
        "# Scorecard",
        "",
        "Every claim of the two papers that the book checks, declared in the chapter's code with its test and "
        "the verdict it records, and checked against the number the chapter computes at its default parameters "
        "(`python -m lib claims` prints the same table). Most tests were declared before their numbers were "
        "computed; a claim declared, or re-declared, after its evidence had been seen says so, and when, in its "
        "note. A claim over seeds or draws carries its interval and n: it **holds** when "
        "the whole interval meets the condition, **does not hold** when none of it does, and is "
        "**inconclusive** when the interval straddles the condition. Exact identities are two-valued. An "
        "*error in the paper* is a statement of the paper that the book shows wrong (see the errata); a "
        "*consistency check* cannot tell the paper's statement from its alternatives (it holds by construction, or "
        "whatever the truth; a small sample may still leave it inconclusive) and a *method check* tests the book's "
        "own read-out: neither is a reproduction. A verdict that rests on a free choice of the analyst (a floor, a "
        "level, a read-out, a bar the paper does not set) says whether it is *robust* (no computed alternative changes it) or *depends on* the "
        "choice. Only the *primary* claims, the paper's own statements on the paper's own "
        "measure at the paper's setting, decide a catalogue row; every other claim says what it is (a further "
        "statement of the paper, a book reading, a claim beyond the paper, a check) and is listed under "
        "*also tested*, counted apart. Each claim links to its row in its chapter; "
        "*why* unfolds the paper's statement, the evidence and the reason.",
        "",
        _claims_sentence(found).replace("Of its", "Of the", 1)
        + (
            f" **{differ} differ from the verdict their declaration records.**"
            if differ
            else " Every verdict is the one its declaration records: a build that computes another fails."
        ),
        "",
    ]
    for paper, (title, _) in PAPERS.items():
        out += [f"## {title}", ""]
        for chapter in chapters:
            mine = [v for v in found if v.chapter == chapter.id and v.claim.id[0] == paper]
            if not mine:
                continue
            out += [
                f"### {chapter.title}",
                "",
                f"Chapter {{doc}}`../chapters/{chapter.id}`. " + _claims_sentence(mine),
                "",
            ]
            primary = [v for v in mine if v.claim.category in ("primary", "erratum")]
            others = [v for v in mine if v not in primary]
            if primary:
                out += ["The paper's claims, which decide the rows:", "", scorecard_table(primary)]
            if others:
                out += ["Also tested, never moving a row:", "", scorecard_table(others)]
    return "\n".join(out)


def code_anchor(function: str) -> str:
    """The HTML id of a function's entry on the page "Code behind the results" (autodoc: its dotted name)."""
    return function


def evidence_anchor(key: str) -> str:
    """The label (and HTML id) of an evidence set on the build status page:
    "two_layer/a_or_a2" -> "evidence-two-layer-a-or-a2"; a caption links it as {ref}`KEY <LABEL>`."""
    return "evidence-" + "".join(c if c.isalnum() else "-" for c in key.lower())


def sources_html(sources: Sources, link: str = "") -> str:
    """ "code: f, g · evidence: chapter/set" as HTML, each function linked to its entry on the code page and
    each evidence set to its row on the status page (`link`: the folder of both, relative to the page)."""
    code = ", ".join(
        f'<a href="{link}code.html#{code_anchor(f)}"><code>{html.escape(f)}</code></a>' for f in sources.functions
    )
    evidence = (
        ", ".join(
            f'<a href="{link}status.html#{evidence_anchor(e)}"><code>{html.escape(e)}</code></a>'
            for e in sources.evidence
        )
        if sources.evidence
        else "none: computed live by the chapter"
    )
    return f"Code: {code or 'none'} · evidence: {evidence}."


def scorecard_table(mine: list[Verdict]) -> str:
    """A chapter's claims on the scorecard: claim (linked to its row in the chapter, with a link to the code
    that computes it), verdict, value [interval] n, what the value needs (`Verdict.needs`), and folded: the
    paper's statement, the condition on the metric, the reason, the functions and the evidence set behind
    it (lib.book.pages.code_links)."""
    rows = [CLAIMS_TABLE_HEADER]
    for v in mine:
        sources = metric_sources(v.chapter, v.claim.metric)
        target = f"../chapters/{v.chapter}.html#{claim_anchor(v.claim.id)}"
        code = (
            f' <a class="book-code" href="code.html#{code_anchor(sources.functions[0])}">code</a>'
            if sources.functions
            else ""
        )
        summary, body = details_text(v)
        details = f"<details><summary>{summary}</summary>{_html(body)}<br>{sources_html(sources)}</details>"
        rows.append(claims_table_row(f'<a href="{target}">{claim_id_html(v.claim.id)}</a>{code}', v, details))
    return "\n".join(rows) + "\n"


def code_functions() -> dict[str, list[str]]:
    """Every lib function a scorecard row or a figure caption names, with what it is behind (MyST: each
    claim linked to its row in its chapter, each figure by {numref}), in module order."""
    behind: dict[str, list[str]] = {}
    for chapter in _chapters():
        for claim in chapter.claims:
            link = f'<a href="../chapters/{chapter.id}.html#{claim_anchor(claim.id)}">{_html(claim.id)}</a>'
            for function in metric_sources(chapter.id, claim.metric).functions:
                behind.setdefault(function, []).append(link)
        for caption in figure_captions(chapter.id):
            for function in caption.functions:
                behind.setdefault(function, []).append(
                    f"{{numref}}`{caption.label}`" if caption.label else caption.name
                )
    return {f: list(dict.fromkeys(behind[f])) for f in sorted(behind)}


def code_page() -> str:
    """The appendix "Code behind the results": one autodoc entry per function that a scorecard row or a
    figure caption names, grouped by module; each entry's [source] link opens the module's code (viewcode)."""
    out = [
        "(code-behind-results)=",
        "# Code behind the results",
        "",
        "Every function of `lib` that computes a claim of the scorecard or a figure of a chapter, with its "
        "documentation and a link to its source (*[source]*, the module rendered in this book). The scorecard "
        "rows and the figure captions link here. Which function a claim rests on is read from its chapter's "
        "notebook: the call that records the claim's metric, and the calls behind the values it uses; the "
        "evidence set it reads is named beside it.",
        "",
    ]
    module = None
    for function, users in code_functions().items():
        owner = function.rpartition(".")[0]
        if owner != module:
            module = owner
            out += [f"## `{module}`", ""]
            url = source_url(module.replace(".", "/") + ".py")
            out += [f"[The module in the repository]({url}).", ""] if url else []
        out += ["```{eval-rst}", f".. autofunction:: {function}", "```", "", f"Behind: {', '.join(users)}.", ""]
    return "\n".join(out)


def parameters_page() -> str:
    """Markdown tables of each chapter's parameters, generated from the declarations."""
    out = []
    for chapter in _chapters():
        out.append(f"## {chapter.title}\n\nChapter `{chapter.id}`: `python -m lib run {chapter.id} -p NAME VALUE`.\n")
        # one card per parameter on a phone (book/_ext/table_cards.py)
        out.append(
            "```{table}\n:class: book-cards\n\n| parameter | type | default | allowed | meaning |\n|---|---|---|---|---|"
        )
        for info in chapter.describe():
            out.append(
                f"| `{info.name}` | {info.type} | `{info.default!r}` | {info.describe_range() or 'any'} | "
                f"{_markdown_text(info.help)} |"
            )
        out.append("```\n")
    return "\n".join(out)


def assembled_page(folder: Path) -> str:
    """`folder/index.md`, then each chapter's fragment `folder/ID.md` in book order, then the others."""
    fragments = sorted(p for p in folder.glob("*.md") if p.name != "index.md")
    ordered = [folder / f"{c}.md" for c in chapter_ids() if (folder / f"{c}.md").exists()]
    ordered += [p for p in fragments if p not in ordered]
    parts = [(folder / "index.md").read_text()] + [p.read_text() for p in ordered]
    return "\n\n".join(p.strip() for p in parts) + "\n"


def write_pages(runs_dir: Path, generated_dir: Path) -> None:
    """Write the generated pages (summary, scorecard, status, code, changelog, ...) of the runs in `runs_dir`
    into `generated_dir`."""
    pages = {  # every page made before any is written: a refusal on the way leaves the folder as it was
        "summary.md": summary_page(runs_dir),
        "scorecard.md": scorecard_page(runs_dir),
        "status.md": status_page(runs_dir),
        "code.md": code_page(),
        "changelog.md": changelog_page(*verdicts_and_statuses(runs_dir)),
        "parameters.md": parameters_page(),
        "citation.md": citation_page(),
        "notes.md": assembled_page(ROOT / "book" / "notes"),
    }
    if (ROOT / "book" / "errata" / "index.md").exists():
        pages["errata.md"] = assembled_page(ROOT / "book" / "errata")
    for name, text in pages.items():
        atomic_write_text(generated_dir / name, text)


README_START = "<!-- results: generated by `python -m lib readme` from the built chapters; a test checks it -->"
README_END = "<!-- results: end -->"


def readme_results(runs_dir: Path) -> str:
    """The README's results table (Papers-with-Code style): per chapter, its catalogue rows' statuses,
    its claims' verdict counts and the command that reruns it."""
    chapters, _, found, summaries = _state(runs_dir)
    out = [
        f"Of the {len(summaries)} artifacts of the two papers: {_counts_sentence(status_counts(summaries))} "
        "(the rule, and a link per row, on the book's first page).",
        "",
        "The counts are of the papers' primary claims, which decide the rows; the other claims (further "
        "statements of the paper, book readings, claims beyond the paper, checks) are counted apart.",
        "",
        "| chapter | catalogue rows | holds | does not hold | inconclusive | errors in the paper | also tested | rerun |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for chapter in chapters:
        mine = [v for v in found if v.chapter == chapter.id]
        rows = " · ".join(f"{s.row.key} {s.status}" for s in summaries if s.chapter == chapter.id)
        c = claim_counts(mine)
        out.append(
            f"| {chapter.title} | {rows} | {c['holds']} | {c['does not hold']} | {c['inconclusive']} "
            f"| {c['errors in the paper']} | {c['also tested']} | `python -m lib run {chapter.id}` |"
        )
    return "\n".join(out) + "\n"


def with_readme_results(readme: str, results: str) -> str:
    """`readme` with the text between its results markers replaced by `results`; ValueError without markers."""
    if readme.count(README_START) != 1 or readme.count(README_END) != 1:
        raise ValueError(f"README.md needs one pair of markers {README_START!r} ... {README_END!r}")
    head, rest = readme.split(README_START)
    _, tail = rest.split(README_END)
    return f"{head}{README_START}\n{results}{README_END}{tail}"


def readme_results_block(readme: str) -> str:
    """The results table currently in `readme` (between its markers)."""
    return readme.split(README_START)[1].split(README_END)[0].lstrip("\n")


def write_readme(runs_dir: Path, readme: Path = ROOT / "README.md") -> None:
    """Rewrite the README's results table from the chapters' metrics in `runs_dir`; ParameterError when the README
    lacks its markers."""
    results = readme_results(runs_dir)
    try:
        text = with_readme_results(readme.read_text(), results)
    except ValueError as err:  # its markers edited away
        raise ParameterError(f"{readme.name}: {err}") from None
    atomic_write_text(readme, text)


def _evidence_rows(chapter_id: str) -> list[tuple[str, str]]:
    """One (set key, line) per evidence set declared for the chapter: state of its shards, their commits
    and core-minutes; for a set with shards still to compute, their declared cost and the command."""
    import json

    from lib.book.evidence.registry import all_sets
    from lib.book.evidence.status import status
    from lib.book.evidence.store import core_seconds

    lines = []
    for evidence_set in [s for s in all_sets() if s.chapter == chapter_id]:
        row = status(evidence_set.key)[0]
        states = ", ".join(f"{n} {state}" for state, n in sorted(row["counts"].items()))
        provenance = [
            json.loads(p.read_text())
            for p in (ROOT / "data" / "evidence" / chapter_id / evidence_set.name).glob("*/provenance.json")
        ]
        commits = [commit_markdown(c) for c in sorted({p.get("commit", "unknown") for p in provenance})]
        minutes = sum(core_seconds(p) for p in provenance) / 60
        gpu = ", declared for a GPU" if evidence_set.gpu else ""
        to_go = sum(n for state, n in row["counts"].items() if state != "ok")
        resume = (
            f"; {to_go} to compute, about {significant(row['minutes_to_go'], 2, strip=True)} core-minutes: "
            f"`make evidence SETS={evidence_set.key}`"
            if to_go
            else ""
        )
        lines.append(
            (
                evidence_set.key,
                f"`{evidence_set.name}`: {row['shards']} shards ({states}{gpu}); commits {', '.join(commits) or 'none'}; "
                f"{minutes:.0f} core-minutes{resume}",
            )
        )
    return lines


def stored_results_line(record: dict) -> str:
    """What a run did with its chapter's stored results (its record's `stored`), in one line: how many it read,
    the commits and processors that computed them, and how many it computed live (with why, when it could not
    use a stored one); "" when the chapter has none."""
    entries = record.get("stored") or []
    if not entries:
        return ""
    read = [e for e in entries if e.get("state") == "read"]
    live = [e for e in entries if e.get("state") != "read"]
    parts = []
    if read:
        commits = ", ".join(commit_markdown(c) for c in sorted({e.get("commit") or "unknown" for e in read}))
        processors = "; ".join(sorted({e.get("processor") or "not recorded" for e in read}))
        parts.append(f"{len(read)} read (commits {commits}; {processors})")
    if live:
        unused = [e for e in live if e.get("notice")]
        parts.append(
            f"{len(live)} computed live"
            + (
                f" ({len(unused)} stored but not used: " + ", ".join(f"`{e['name']}`" for e in unused) + ")"
                if unused
                else ""
            )
        )
    return "stored results: " + ", ".join(parts)


def status_page(runs_dir: Path) -> str:
    """The build status page: per chapter, when, at which commit, with which parameters and evidence it ran."""
    from lib.book.evidence.declare import config_hash

    out = [
        "(build-status)=",
        "# Build status",
        "",
        "How each chapter of this book was computed: the date and the commit of its run, its run time "
        "and peak memory, the hash of its parameters and those that differ from the defaults, the "
        "evidence sets it declares (shards by state, the commits that computed them, core-minutes), the stored "
        "results of its default computations it read (the commits and processors that computed them) and "
        "the notices of its run (warnings of the libraries and of the evidence store, caught and kept "
        "here rather than printed into the page).",
        "",
        "| chapter | run | parameters | evidence | notices |",
        "|---|---|---|---|---|",
    ]
    chapters = _chapters()
    evidence_rows = {chapter.id: _evidence_rows(chapter.id) for chapter in chapters}  # every shard checked once
    for chapter in chapters:
        record = (read_metrics(runs_dir, chapter.id) or {}).get(RUN_KEY) or {}
        if not record:
            out.append(f"| {{doc}}`../chapters/{chapter.id}` | not run | | | |")
            continue
        parameters = record.get("parameters", {})
        defaults = chapter.defaults()
        changed = [k for k in defaults if parameters.get(k) != defaults[k]]
        run = "; ".join(
            x
            for x in (
                record.get("started", ""),
                f"commit {commit_markdown(record['commit'])}" if record.get("commit") else "",
                f"{record['elapsed_seconds']:.0f} s" if "elapsed_seconds" in record else "",
                f"{record['peak_memory_mb']} MB peak" if "peak_memory_mb" in record else "",
                f"code `{record.get('code_fingerprint', '')}`",
            )
            if x
        )
        params = (
            '<span class="book-status">default parameters</span>'
            if not changed
            else "changed: " + ", ".join(f"`{k}`" for k in changed)
        ) + f" (hash `{config_hash(parameters)[:8]}`)"
        lines = [_html(line) for _, line in evidence_rows[chapter.id]]
        if stored := stored_results_line(record):  # and the names, folded: a chapter reads dozens
            names = ", ".join(f"`{e['name']}`" for e in record["stored"])  # code names, set as code
            lines.append(_html(stored) + _folded(f"{len(record['stored'])} names", names))
        evidence = "<br>".join(lines) or "no evidence sets"  # a cell that reads alone (a card on a phone)
        notices = reader_notices(record.get("notices") or [])
        folded = _folded(f"{len(notices)} notices", " · ".join(notices)) if notices else "no notices"
        out.append(f"| {{doc}}`../chapters/{chapter.id}` | {run} | {params} | {evidence} | {folded} |")
    out += [
        "",
        "## Evidence sets",
        "",
        "Each evidence set of the book, with the state of its shards; the figure captions and the scorecard "
        "rows that read a set link here.",
        "",
    ]
    for chapter in chapters:
        for key, line in evidence_rows[chapter.id]:
            out += [f"({evidence_anchor(key)})=", f"**`{key}`** ({{doc}}`../chapters/{chapter.id}`): {_html(line)}", ""]
    return "\n".join(out) + "\n"
