"""Estimates and their intervals."""

import math

import numpy as np
import pytest

from lib.stats import Estimate, bootstrap_mean, bootstrap_median, exact, fraction, paired_difference


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


def test_paired_difference_sign_and_interval():
    rng = np.random.default_rng(0)
    base = rng.normal(size=50)
    result = paired_difference(base + 0.5 + 0.1 * rng.normal(size=50), base)
    assert result.z > 5 and result.estimate.low > 0.4


def test_exact_and_dict():
    assert exact(1.5).as_dict() == {"value": 1.5, "low": 1.5, "high": 1.5, "n": 1, "method": "exact"}
    assert isinstance(exact(1), Estimate)
