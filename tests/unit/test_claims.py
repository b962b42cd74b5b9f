"""lib/claims.py: verdicts as declared, exit codes, unusable metrics files, the Markdown table."""

import json
from dataclasses import dataclass

import pytest

from lib.chapter import Chapter, Claim, Parameters, param
from lib.claims import (
    RUN_KEY,
    MetricsError,
    claims_markdown,
    claims_report,
    fill_note,
    note_metrics,
    read_metrics,
    sentence,
    slug,
    verdicts,
)


@dataclass(frozen=True)
class NoParameters(Parameters):
    pass


def _chapter(expected="holds"):
    return Chapter(
        id="toy",
        title="t",
        params=NoParameters,
        claims=(
            Claim("S-C", "identity", "exact", "err", "< 0.1"),
            Claim(
                "S-8",
                "triple descent",
                "seen",
                "frac",
                "> 0.01",
                basis="seeds",
                expected=expected,
                note="" if expected == "holds" else "no seed of 1000 shows it",
            ),
        ),
    )


def _write(tmp_path, metrics):
    (tmp_path / "toy.metrics.json").write_text(json.dumps(metrics))


def _est(v, lo, hi):
    return {"value": v, "low": lo, "high": hi, "n": 1000, "method": "wilson"}


def test_exit_code_follows_the_declaration(tmp_path):
    _write(tmp_path, {"err": 0.01, "frac": _est(0.0, 0.0, 0.004)})
    text, code = claims_report([_chapter()], tmp_path)
    assert code == 1 and "DIFF" in text and "declared: holds" in text
    _, code = claims_report([_chapter("does not hold")], tmp_path)
    assert code == 0
    _write(tmp_path, {"err": 0.01, "frac": _est(0.01, 0.0, 0.02)})
    _, code = claims_report([_chapter("does not hold")], tmp_path)
    assert code == 1  # inconclusive is not "does not hold"
    _, code = claims_report([_chapter("inconclusive")], tmp_path)
    assert code == 0


@pytest.mark.parametrize(
    "content, message",
    [
        (b'{"err": 0.0', "not valid JSON"),
        (b"\xff\xfe", "not UTF-8"),
        (b"[1, 2]", "expected a JSON object"),
    ],
)
def test_unusable_metrics_files_are_named(tmp_path, content, message):
    (tmp_path / "toy.metrics.json").write_bytes(content)
    with pytest.raises(MetricsError, match=message) as err:
        read_metrics(tmp_path, "toy")
    assert "toy.metrics.json" in str(err.value)


def test_missing_metrics_of_a_requested_chapter(tmp_path):
    with pytest.raises(MetricsError, match="no such file"):
        claims_report([_chapter()], tmp_path)


def test_markdown_sentence_and_slug():
    metrics = {"toy": {"err": 0.01, "frac": _est(0.2, 0.1, 0.3)}}
    table = claims_markdown([_chapter()], metrics)
    assert (
        "0.20 [0.10, 0.30], n = 1000" in table
        and "seeds, n = 1000" in table
        and '<strong class="book-status">holds</strong>' in table
    )
    v = verdicts([_chapter()], metrics)[1]
    assert sentence(v) == "S-8 holds: 0.20 [0.10, 0.30], n = 1000 (needs > 0.01)"
    assert slug("S-T4.1/rates") == "s_t4_1_rates"


def test_a_condition_naming_a_parameter_shows_and_uses_the_runs_value():
    @dataclass(frozen=True)
    class Tolerance(Parameters):
        tol: float = param(0.05, "tolerance", gt=0)

    chapter = Chapter("toy", "t", Tolerance, claims=(Claim("S-7", "s", "p", "m", "< tol", basis="seeds"),))
    run = {"m": _est(0.1, 0.08, 0.12), RUN_KEY: {"parameters": {"tol": 0.2}}}
    v = verdicts([chapter], {"toy": run})[0]
    assert v.verdict == "holds" and v.condition == "< tol = 0.2"
    assert "needs < tol = 0.2" in sentence(v)
    assert verdicts([chapter], {"toy": {**run, RUN_KEY: {"parameters": {"tol": 0.05}}}})[0].verdict == "does not hold"


def test_notes_quote_metrics_through_placeholders():
    note = "rises in {frac} of seeds; {err} off; {absent}"
    assert note_metrics(note) == ["frac", "err", "absent"]
    filled = fill_note(note, {"frac": _est(0.2, 0.1, 0.3), "err": 0.25})
    assert filled == "rises in 0.20 [0.10, 0.30], n = 1000 of seeds; 0.25 off; not computed"
    claim = Claim("S-8", "s", "p", "frac", "> 0.5", basis="seeds", expected="does not hold", note="only {frac}")
    chapter = Chapter("toy", "t", NoParameters, claims=(claim,))
    table = claims_markdown([chapter], {"toy": {"frac": _est(0.2, 0.1, 0.3)}})
    assert "only 0.20 [0.10, 0.30], n = 1000" in table


def test_interval_ends_within_rounding_of_the_estimate_print_as_it():
    from lib.claims import format_value

    wilson_zero = {"value": 0.0, "low": 2.1e-19, "high": 0.06, "n": 60, "method": "wilson 95%"}
    assert format_value(wilson_zero) == "0 [0, 0.060], n = 60"
    small = {"value": 1e-5, "low": 5e-6, "high": 2e-5, "n": 3, "method": "t"}
    assert format_value(small) == "1.0e-05 [5.0e-06, 2.0e-05], n = 3"
