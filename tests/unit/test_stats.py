"""Estimates and their intervals."""

import math

import numpy as np
import pytest

from lib.util.comparisons import auc, proportion_difference
from lib.util.stats import (
    Estimate,
    binomial_interval,
    bonferroni,
    bootstrap_interval,
    bootstrap_mean,
    bootstrap_median,
    cost_to_decide,
    decide,
    every_fraction,
    exact,
    fraction,
    largest,
    paired_difference,
    smallest,
    t_interval_power,
    undecided,
    units_to_decide,
)


def test_fraction_wilson_matches_statsmodels_and_contains_value():
    est = fraction(7, 10)
    assert est.value == 0.7 and est.n == 10 and est.low < 0.7 < est.high
    assert est.low == pytest.approx(0.3968, abs=1e-3) and est.high == pytest.approx(0.8922, abs=1e-3)
    assert fraction(np.array([True, False, True, True])).value == 0.75


def test_fraction_edges_are_informative():
    zero = fraction(0, 30)
    assert zero.low == 0 and 0.05 < zero.high < 0.15
    with pytest.raises(ValueError):
        fraction(0, 0)


@pytest.mark.parametrize("n, tests", [(10, 8), (20, 4), (90, 4)])
def test_fraction_ends_are_exact_at_no_and_every_success(n, tests):
    """At these Bonferroni levels statsmodels' Wilson ends land ~1e-17 off 0 and 1; a fraction's do not."""
    from statsmodels.stats.proportion import proportion_confint

    level = bonferroni(0.95, tests)
    raw_low, _ = proportion_confint(0, n, alpha=1 - level, method="wilson")
    _, raw_high = proportion_confint(n, n, alpha=1 - level, method="wilson")
    assert raw_low != 0 or raw_high != 1  # the round-off this guards against
    assert fraction(0, n, confidence=level).low == 0.0 and fraction(n, n, confidence=level).high == 1.0
    lows, highs = binomial_interval(np.arange(n + 1), n, confidence=level)
    assert lows[0] == 0.0 and highs[-1] == 1.0 and (lows[1:] > 0).all() and (highs[:-1] < 1).all()


def test_bonferroni_level():
    assert bonferroni(0.95, 1) == 0.95 and bonferroni(0.95, 4) == pytest.approx(0.9875)
    with pytest.raises(ValueError):
        bonferroni(0.95, 0)


@pytest.mark.parametrize("method", ["wilson", "beta"])
@pytest.mark.parametrize("n, confidence", [(1, 0.95), (5, 0.95), (37, 0.9), (200, 0.95)])
def test_every_fraction_is_fraction_of_every_count(method, n, confidence):
    """The intervals of all counts at once equal those computed one count at a time, to the last bit."""
    assert every_fraction(n, method=method, confidence=confidence) == [
        fraction(k, n, method=method, confidence=confidence) for k in range(n + 1)
    ]
    with pytest.raises(ValueError):
        every_fraction(0)


def test_bootstrap_is_seeded_and_brackets():
    x = np.random.default_rng(1).normal(size=40)
    a, b = bootstrap_median(x, seed=3), bootstrap_median(x, seed=3)
    assert a == b and a.low <= a.value <= a.high
    m = bootstrap_mean(x)
    assert m.low < x.mean() < m.high and m.n == 40


def test_bootstrap_degenerate_and_non_finite():
    assert bootstrap_median([2.0, 2.0, 2.0]).low == 2.0
    with pytest.raises(ValueError):
        bootstrap_mean([1.0, math.inf])


def test_bootstrap_where_bca_is_undefined_uses_the_percentile_interval_silently():
    """One value differs from the rest: the jackknife medians do not vary, BCa is undefined, and scipy
    warns (a warning that would reach a chapter's notices); the percentile interval is used instead."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = bootstrap_median([1.0] * 7 + [2.0])
    assert est.value == 1.0 and "percentile" in est.method


def test_paired_difference_sign_and_interval():
    rng = np.random.default_rng(0)
    base = rng.normal(size=50)
    result = paired_difference(base + 0.5 + 0.1 * rng.normal(size=50), base)
    assert result.z > 5 and result.estimate.low > 0.4


def test_exact_and_dict():
    assert exact(1.5).as_dict() == {"value": 1.5, "low": 1.5, "high": 1.5, "n": 1, "method": "exact"}
    assert isinstance(exact(1), Estimate)


def test_undecided_widens_to_the_range():
    u = undecided(Estimate(0.2, 0.1, 0.3, 5, "t"), 0.0, 1.0, "incomplete")
    assert (u.value, u.low, u.high, u.n) == (0.2, 0.0, 1.0, 5) and "incomplete" in u.method
    inf = undecided(Estimate(0.2, 0.0, float("inf"), 5, "t"), 0.0, 10.0, "x")
    assert inf.high == 10.0
    assert undecided(None, 0.0, 1.0, "x").value == 0.5


def test_decide_keeps_finite_estimates_and_widens_the_rest():
    e = Estimate(0.2, 0.1, 0.3, 5, "t")
    assert decide(e, 0.0, 1.0) is e
    assert decide(e, 0.0, 1.0, "incomplete").high == 1.0
    assert decide(Estimate(0.2, 0.0, float("inf"), 5, "t"), 0.0, 10.0).high == 10.0
    assert decide(None, 0.0, 1.0).low == 0.0


def test_undecided_interval_contains_its_value():
    u = undecided(Estimate(22.7, float("-inf"), float("inf"), 40, "t"), 0.0, 10.0, "x")
    assert u.low <= u.value <= u.high == 22.7


def test_bootstrap_interval_of_a_two_sample_statistic_is_seeded_and_covers_it():
    rng = np.random.default_rng(0)
    a, b = rng.normal(2.0, 1.0, 40), rng.normal(1.0, 1.0, 40)

    def diff(x, y, axis=-1):
        return x.mean(axis) - y.mean(axis)

    first = bootstrap_interval((a, b), diff, rng=np.random.default_rng(3))
    assert first == bootstrap_interval((a, b), diff, rng=np.random.default_rng(3))
    assert first[0] < diff(a, b) < first[1] and first[1] - first[0] < 1.5
    paired = bootstrap_interval((a, b), diff, rng=np.random.default_rng(3), paired=True, method="BCa")
    assert paired[0] < diff(a, b) < paired[1]


def test_auc_is_mann_whitney_with_a_seeded_bootstrap_interval():
    from scipy.stats import mannwhitneyu

    rng = np.random.default_rng(1)
    x, y = rng.normal(0, 1, 40), rng.normal(1, 1, 50)
    est = auc(x, y)
    u = mannwhitneyu(x, y).statistic
    assert est.value == pytest.approx(1 - u / (40 * 50)) and est.n == 90
    assert est.low < est.value < est.high and auc(x, y) == est
    assert auc([0, 0], [0, 0]).value == 0.5 and auc([0, 1], [2, 3]).value == 1.0
    assert auc([0.0], [1.0, 2.0]).low == 0.0
    with pytest.raises(ValueError):
        auc([], [1.0])


def test_proportion_difference_newcombe():
    d = proportion_difference(71, 120, 110, 120)
    assert d.value == pytest.approx(71 / 120 - 110 / 120) and d.high < 0 < 1 and d.n == 240
    assert proportion_difference(5, 10, 5, 10).low < 0 < proportion_difference(5, 10, 5, 10).high
    with pytest.raises(ValueError):
        proportion_difference(0, 0, 1, 2)


def test_location_ratios_of_a_bimodal_sample_differ_by_statistic():
    from lib.util.comparisons import location_ratio

    rng = np.random.default_rng(0)
    bimodal = np.concatenate([rng.normal(0.05, 0.01, 150), rng.normal(0.4, 0.05, 90)])
    unimodal = rng.normal(0.12, 0.01, 240)
    median, mean = (location_ratio(bimodal, unimodal, s) for s in ("median", "mean"))
    assert median.high < 1 < mean.low and median.n == 240
    assert "90th percentiles" in location_ratio(bimodal, unimodal, "90th percentile").method


def test_t_interval_power_is_the_rate_at_which_the_t_interval_lies_beyond_the_bound():
    from scipy.stats import ttest_1samp

    rng = np.random.default_rng(0)
    x = rng.standard_normal((20000, 20)) + 0.5  # true mean 0.5 SD above the bound 0
    lows = ttest_1samp(x, 0.0, axis=1).confidence_interval(0.95).low
    assert t_interval_power(0.5, 20) == pytest.approx(np.mean(lows > 0), abs=0.01)
    assert t_interval_power(0.0, 20) == pytest.approx(0.025)  # the interval's one-sided error under no effect
    assert t_interval_power(0.66, 20) == pytest.approx(0.80, abs=0.005) and t_interval_power(1.0, 1) == 0.0


def test_units_to_decide_is_the_fewest_units_whose_interval_clears_the_bound():
    assert units_to_decide(0.75, 0.5) == 16  # 12 of 16: Wilson [0.505, 0.90]; 9 of 12 still reaches 0.47
    assert fraction(12, 16).low > 0.5 > fraction(9, 12).low
    assert units_to_decide(0.1, 0.5) == units_to_decide(0.9, 0.5) and units_to_decide(0.5, 0.5) is None


def test_cost_to_decide_prices_the_missing_units_at_the_cost_per_unit_seen():
    assert cost_to_decide(fraction(6, 8), 0.5, 12.0) == (16, 12.0)  # 8 more points at 1.5 core-hours each
    assert cost_to_decide(fraction(12, 12), 0.5, 3.0) == (units_to_decide(1.0, 0.5), 0.0)  # decided: nothing missing
    assert cost_to_decide(fraction(4, 8), 0.5, 12.0) == (None, None)


def test_units_to_narrow_scales_the_interval_end_on_the_bounds_side_as_one_over_root_n():
    from lib.util.stats import Estimate, units_to_narrow

    # value -0.03, upper end 0.015 on 10 units: the upper reach (0.045) is 1.5 times the distance to 0, so the end
    # clears 0 once sqrt(n / 10) > 1.5, from 23 units (22.5 would only touch it)
    margin = Estimate(-0.03, -0.1, 0.015, 10, "test")
    assert units_to_narrow(margin, 0.0) == 23
    assert units_to_narrow(Estimate(0.03, -0.015, 0.1, 10, "test"), 0.0) == 23  # the mirror image: the lower end
    assert units_to_narrow(Estimate(-0.03, -0.05, -0.01, 10, "test"), 0.0) == 10  # already decided: the units it has
    assert cost_to_decide(Estimate(-0.03, -0.05, -0.01, 10, "test"), 0.0, 5.0, narrowing=True) == (10, 0.0)
    assert units_to_narrow(Estimate(0.0, -0.1, 0.1, 10, "test"), 0.0) is None
    assert units_to_narrow(Estimate(1e-310, -0.1, 0.1, 10, "test"), 0.0) is None  # no finite number of units
    assert units_to_narrow(Estimate(float("nan"), -0.1, 0.1, 10, "test"), 0.0) is None
    assert cost_to_decide(margin, 0.0, 5.0, narrowing=True) == (23, 6.5)  # 13 more units at 0.5 each


def test_largest_takes_each_end():
    a, b = Estimate(0.1, -0.2, 0.3, 5, "x"), Estimate(0.0, -0.1, 0.2, 4, "y")
    m = largest([a, b])
    assert (m.value, m.low, m.high, m.n) == (0.1, -0.1, 0.3, 4)


def test_smallest_takes_each_end_separately():
    a, b = Estimate(0.2, 0.1, 0.3, 5, "a"), Estimate(0.1, -0.1, 0.4, 4, "b")
    s = smallest([a, b])
    assert (s.value, s.low, s.high, s.n) == (0.1, -0.1, 0.3, 4)
    with pytest.raises(ValueError):
        smallest([])
