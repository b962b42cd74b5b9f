"""lib/claims.py: verdicts, the strict and the known-failures exit codes, the Markdown table."""
import json

from lib.chapter import Chapter, Claim
from lib.claims import claims_markdown, claims_report


def _chapter(expected=True):
    return Chapter(id="toy", title="t", params=(), claims=(
        Claim("S-C", "identity", "exact", "err", "< 0.1"),
        Claim("S-8", "triple descent", "seen", "frac", "> 0", expected_to_hold=expected),
    ))


def test_report_exit_codes(tmp_path):
    (tmp_path / "toy.metrics.json").write_text(json.dumps({"err": 0.01, "frac": 0.0}))
    text, code = claims_report([_chapter()], tmp_path, known_failures_ok=False)
    assert code == 1 and "FAIL" in text
    _, code = claims_report([_chapter(expected=False)], tmp_path, known_failures_ok=True)
    assert code == 0
    _, code = claims_report([_chapter(expected=False)], tmp_path, known_failures_ok=False)
    assert code == 1
    (tmp_path / "toy.metrics.json").write_text(json.dumps({"err": 0.01, "frac": 0.5}))
    _, code = claims_report([_chapter(expected=False)], tmp_path, known_failures_ok=True)
    assert code == 1  # an unexpected pass means the declaration must be updated


def test_missing_metrics_fail(tmp_path):
    text, code = claims_report([_chapter()], tmp_path, known_failures_ok=True)
    assert code == 1 and "not computed" in text and "no metrics" in text


def test_markdown_table_escapes_pipes():
    md = claims_markdown([_chapter()], {"toy": {"err": 0.01}})
    assert md.count("\n") == 4 and "| S-C |" in md and "**holds**" in md and "does not hold" in md
