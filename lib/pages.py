"""Book pages generated from the chapters' declarations: the scorecard and the parameter tables."""
from __future__ import annotations

from pathlib import Path

from lib.chapter import ROOT, Chapter
from lib.claims import claims_markdown, read_metrics, verdicts
from lib.io import atomic_write_text
from lib.specs import chapter_ids, load


def _chapters() -> list[Chapter]:
    return [load(c) for c in chapter_ids()]


def scorecard_page(runs_dir: Path) -> str:
    """Markdown of the scorecard: every declared claim with the paper's and the book's value."""
    chapters = _chapters()
    metrics = {c.id: read_metrics(runs_dir, c.id) for c in chapters}
    found = verdicts(chapters, metrics)
    held = sum(v.holds for v in found)
    known = sum((not v.holds) and not v.claim.expected_to_hold for v in found)
    return (
        "(scorecard)=\n# Scorecard\n\n"
        "Every claim of the two papers that the book reproduces, declared once in `lib/specs/ID.py` "
        "and checked against the number the chapter computes at its default parameters "
        "(`python -m lib claims` prints the same table). "
        f"**{held} of {len(found)} claims hold**; {known} are recorded as not reproduced at the "
        "book's budget, with the reason in the chapter and in {ref}`reproduction-notes`.\n\n"
        + "\n".join(f"## {c.title}\n\nChapter: {{doc}}`../chapters/{c.id}`.\n\n" + claims_markdown([c], metrics)
                    for c in chapters)
    )


def parameters_page() -> str:
    """Markdown tables of each chapter's parameters, generated from the declarations."""
    out = []
    for chapter in _chapters():
        defaults = chapter.defaults()
        out.append(f"### `{chapter.id}`: {chapter.title}\n")
        out.append("| parameter | type | default | allowed | meaning |\n|---|---|---|---|---|")
        for p in chapter.params:
            out.append(f"| `{p.name}` | {p.type} | `{defaults[p.name]!r}` | {p.describe_range() or 'any'} | {p.help} |")
        out.append("")
    return "\n".join(out)


def notes_page(notes_dir: Path) -> str:
    """The reproduction notes: the cross-chapter part, then each chapter's fragment in book order."""
    parts = [(notes_dir / "index.md").read_text()]
    parts += [(notes_dir / f"{c}.md").read_text() for c in chapter_ids() if (notes_dir / f"{c}.md").exists()]
    return "\n\n".join(p.strip() for p in parts) + "\n"


def write_pages(runs_dir: Path, generated_dir: Path) -> None:
    atomic_write_text(generated_dir / "scorecard.md", scorecard_page(runs_dir))
    atomic_write_text(generated_dir / "parameters.md", parameters_page())
    atomic_write_text(generated_dir / "notes.md", notes_page(ROOT / "book" / "notes"))
