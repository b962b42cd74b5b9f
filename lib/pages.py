"""Book pages generated from the chapters' declarations: scorecard, parameter tables, notes and errata."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from lib.chapter import Chapter, short
from lib.claims import MetricsError, changed_parameters, claims_markdown, foreign_metrics, read_metrics, verdicts
from lib.io import atomic_write_text
from lib.paths import ROOT
from lib.specs import chapter_ids, load


def _chapters() -> list[Chapter]:
    return [load(c) for c in chapter_ids()]


def book_metrics(runs_dir: Path, chapters: list[Chapter]) -> dict[str, dict | None]:
    """Every chapter's metrics for the book: runs of the current code at the default parameters only.

    A run with other parameters written into the book's folder, or one from other code or another
    chapter, stops the build (MetricsError, exit 2) instead of silently becoming the book.
    """
    metrics = {c.id: read_metrics(runs_dir, c.id) for c in chapters}
    for chapter in chapters:
        found = metrics[chapter.id]
        if found is None:
            continue
        problem = foreign_metrics(chapter, found)
        changed = changed_parameters(chapter, found)
        if problem or changed:
            reason = problem or f"it was run with parameters other than the defaults ({short(changed)})"
            raise MetricsError(
                f"{runs_dir}/{chapter.id}: {reason}; the book is built from default runs: "
                f"`rm {runs_dir}/{chapter.id}.ipynb && make book` re-executes it"
            )
    return metrics


def scorecard_page(runs_dir: Path) -> str:
    """Markdown of the scorecard: every declared claim with the paper's and the book's value and verdict."""
    chapters = _chapters()
    metrics = book_metrics(runs_dir, chapters)
    found = verdicts(chapters, metrics)
    counts = Counter(v.verdict for v in found)
    differ = sum(not v.as_declared for v in found)
    summary = ", ".join(f"**{n} {k}**" for k, n in counts.most_common())
    return (
        "(scorecard)=\n# Scorecard\n\n"
        "Every claim of the two papers that the book reproduces, declared once in `lib/specs/ID.py` "
        "and checked against the number the chapter computes at its default parameters "
        "(`python -m lib claims` prints the same table). A claim over seeds or draws carries its "
        "interval and n: it **holds** when the whole interval meets the condition, **does not hold** "
        "when none of it does, and is **inconclusive** when the interval straddles the condition. "
        "Exact identities are two-valued; a *consistency check* holds by construction and is not a "
        "reproduction. The *evidence* column says what a verdict rests on.\n\n"
        f"Of {len(found)} claims: {summary}"
        + (f"; **{differ} differ from their declaration**." if differ else "; every verdict is as declared.")
        + " Reasons are in the last column, in the chapters and in {ref}`reproduction-notes`.\n\n"
        + "\n".join(
            f"## {c.title}\n\nChapter: {{doc}}`../chapters/{c.id}`.\n\n" + claims_markdown([c], metrics)
            for c in chapters
        )
    )


def parameters_page() -> str:
    """Markdown tables of each chapter's parameters, generated from the declarations."""
    out = []
    for chapter in _chapters():
        out.append(f"### `{chapter.id}`: {chapter.title}\n")
        out.append("| parameter | type | default | allowed | meaning |\n|---|---|---|---|---|")
        for info in chapter.describe():
            out.append(
                f"| `{info.name}` | {info.type} | `{info.default!r}` | {info.describe_range() or 'any'} | {info.help} |"
            )
        out.append("")
    return "\n".join(out)


def assembled_page(folder: Path) -> str:
    """`folder/index.md`, then each chapter's fragment `folder/ID.md` in book order, then the others."""
    fragments = sorted(p for p in folder.glob("*.md") if p.name != "index.md")
    ordered = [folder / f"{c}.md" for c in chapter_ids() if (folder / f"{c}.md").exists()]
    ordered += [p for p in fragments if p not in ordered]
    parts = [(folder / "index.md").read_text()] + [p.read_text() for p in ordered]
    return "\n\n".join(p.strip() for p in parts) + "\n"


def write_pages(runs_dir: Path, generated_dir: Path) -> None:
    atomic_write_text(generated_dir / "scorecard.md", scorecard_page(runs_dir))
    atomic_write_text(generated_dir / "parameters.md", parameters_page())
    atomic_write_text(generated_dir / "notes.md", assembled_page(ROOT / "book" / "notes"))
    if (ROOT / "book" / "errata" / "index.md").exists():
        atomic_write_text(generated_dir / "errata.md", assembled_page(ROOT / "book" / "errata"))
