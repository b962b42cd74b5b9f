"""Every claim over seeds or evidence can be decided: its recorded test, at its recorded n, can reach both
"holds" and "does not hold" (issue 32; lib/book/verdicts/decidability.py, whose rules tests/unit/test_decidability.py checks).

Runs after `make book` (see `make test`): the test and n of a claim are what its chapter recorded.
"""

import pytest

from lib.book.chapters import chapter_ids, load
from lib.book.verdicts.claims import RUN_KEY, read_metrics
from lib.book.verdicts.decidability import decidable
from lib.util.paths import ROOT

RUNS = ROOT / "book" / "chapters"


@pytest.mark.parametrize("chapter_id", chapter_ids())
def test_every_claim_over_seeds_or_evidence_can_hold_and_can_fail(chapter_id):
    metrics = read_metrics(RUNS, chapter_id)
    assert metrics is not None, "run `make book` first"
    parameters = (metrics.get(RUN_KEY) or {}).get("parameters")
    undecidable = [
        why
        for claim in load(chapter_id).claims
        if claim.basis in ("seeds", "evidence") and (why := decidable(claim, metrics.get(claim.metric), parameters))
    ]
    assert not undecidable, "claims that cannot be decided by design: " + "; ".join(undecidable)
