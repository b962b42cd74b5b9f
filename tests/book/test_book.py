"""The built book: every chapter executed, its claims as declared, every page rendered.

Runs after `make book` (see `make test`)."""

import subprocess
import sys

import pytest

from lib.book.chapters import chapter_ids, load
from lib.book.verdicts.claims import note_metrics, read_metrics
from lib.util.paths import ROOT

RUNS = ROOT / "book" / "chapters"
HTML = ROOT / "_build" / "html"


@pytest.mark.parametrize("chapter_id", chapter_ids())
def test_chapter_executed_and_rendered(chapter_id):
    assert (RUNS / f"{chapter_id}.ipynb").exists(), "run `make book` first"
    assert (RUNS / f"{chapter_id}.metrics.json").exists()
    assert not (RUNS / f"{chapter_id}.failed.ipynb").exists()
    assert (HTML / "book" / "chapters" / f"{chapter_id}.html").exists()


def test_claims_as_declared():
    """`python -m lib claims` over the book's runs: every verdict is the one its chapter declares."""
    done = subprocess.run(
        [sys.executable, "-m", "lib", "claims", str(RUNS), "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("chapter_id", chapter_ids())
def test_claim_notes_quote_recorded_metrics(chapter_id):
    """Every `{metric}` a claim's note quotes, and every metric of its free choices' alternatives, is a
    metric its chapter records at default parameters."""
    recorded = read_metrics(RUNS, chapter_id) or {}
    missing = {
        c.id: m
        for c in load(chapter_id).claims
        for m in note_metrics(c.note) + c.alternative_metrics
        if m not in recorded
    }
    assert not missing, f"notes quote metrics the chapter does not record: {missing}"


def test_scorecard_and_notes_pages():
    for page in (
        "book/generated/scorecard.html",
        "book/generated/notes.html",
        "book/generated/errata.html",
        "book/bibliography.html",
    ):
        assert (HTML / page).exists(), page
