"""lib/book/verdicts/decidability.py: a claim's test at its n can reach both verdicts, or says why not (issue 32)."""

from lib.book.chapters.declaration import FAILS, HOLDS, INCONCLUSIVE, Claim
from lib.book.verdicts.decidability import decidable, reachable
from lib.util.comparisons import count, p_value_of
from lib.util.stats import Estimate, fraction, undecided


def _claim(condition, basis="seeds"):
    return Claim("S-10/x", "s", "p", "x", condition, basis=basis)


def test_a_fraction_at_small_n_cannot_lie_wholly_above_a_high_bar():
    assert reachable(_claim("> 0.9"), fraction(5, 5).as_dict()) == {INCONCLUSIVE, FAILS}
    assert decidable(_claim("> 0.9"), fraction(5, 5).as_dict()).startswith("S-10/x cannot reach holds at n = 5")
    assert decidable(_claim("> 0.9"), fraction(100, 100).as_dict()) == ""


def test_a_fraction_above_zero_cannot_fail_its_count_can():
    assert FAILS not in reachable(_claim("> 0"), fraction(3, 240).as_dict())
    assert decidable(_claim(">= 1"), count([True, False, False]).as_dict()) == ""


def test_an_interval_made_to_be_inconclusive_decides_nothing():
    widened = undecided(Estimate(0.19, 0.1, 0.3, 5, "t"), 0.0, 1.0, "the control failed").as_dict()
    assert reachable(_claim("> 0.5"), widened) == {INCONCLUSIVE}
    assert "cannot reach holds or does not hold" in decidable(_claim("> 0.5"), widened)


def test_an_exact_test_with_a_smallest_p_above_the_level_cannot_pass():
    sign = {
        "value": 0.0625,
        "low": 0.0625,
        "high": 0.0625,
        "n": 5,
        "method": "p-value, exact sign test, smallest p 0.0625",
    }
    assert reachable(_claim("< 0.05"), sign) == {FAILS}
    asymptotic = p_value_of(Estimate(1.5, 1.2, 1.8, 63, "wald"), 1.0).as_dict()
    assert reachable(_claim(">= 0.05"), asymptotic) == {HOLDS, FAILS}


def test_a_freely_moving_interval_and_a_point_value_reach_both():
    assert reachable(_claim("> 1"), Estimate(0.8, 0.6, 0.9, 240, "bootstrap percentile").as_dict()) == {HOLDS, FAILS}
    assert reachable(_claim("< 0.05", basis="single run"), 0.01) == {HOLDS, FAILS}


def test_the_wald_p_value_rejects_exactly_when_the_interval_excludes_the_value():
    slope = Estimate(1.5, 1.2, 1.8, 63, "wald")
    assert p_value_of(slope, 1.0).value < 0.05 < p_value_of(slope, 1.25).value
    assert abs(p_value_of(slope, 1.2).value - 0.05) < 1e-9


def test_a_claim_whose_evidence_is_still_computing_is_not_undecidable_by_design():
    from lib.book.chapters.declaration import Claim
    from lib.book.verdicts.decidability import decidable, pending
    from lib.util.stats import undecided

    claim = Claim("S-X/a", "s", "p", "m", "> 0", basis="evidence", expected="inconclusive", note="registered")
    waiting = undecided(None, -1.0, 1.0, "registered set incomplete").as_dict()
    gated = undecided(None, -1.0, 1.0, "control failed").as_dict()
    assert pending(waiting) and not pending(gated)
    assert decidable(claim, waiting) == "" and "cannot reach" in decidable(claim, gated)


def test_a_claim_whose_data_gave_no_finite_interval_is_not_undecidable_by_design():
    """`decide` leaves an estimate undecided when the data give no finite interval (a boundary no run fits): the
    test reaches both verdicts on other data, so the claim stays declared, with its note saying why."""
    from lib.book.chapters.declaration import Claim
    from lib.book.verdicts.decidability import decidable, unbounded
    from lib.util.stats import Estimate, decide

    claim = Claim("S-X/a", "s", "p", "m", "< 0.5", basis="evidence", expected="inconclusive", note="no row fits")
    value = decide(Estimate(float("inf"), 0.0, float("inf"), 24, "t"), 0.0, 10.0).as_dict()
    assert unbounded(value) and decidable(claim, value) == ""
    assert not unbounded(decide(Estimate(1.0, 0.5, 2.0, 24, "t"), 0.0, 10.0).as_dict())
