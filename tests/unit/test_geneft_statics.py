"""lib.geneft.statics: excess over the bound with intervals, distances from a reference, expressivity."""

import math

import numpy as np
import pytest

from lib.geneft import statics
from lib.stats import Estimate


def test_excess_over_bound_sign_and_interval():
    rng = np.random.default_rng(0)
    bound = 0.8 + 0.01 * rng.standard_normal((20, 4))
    below = 0.6 + 0.01 * rng.standard_normal((6, 4))
    e = statics.excess_over_bound(below, bound)
    assert e.high < 0 and e.low <= e.value <= e.high and e.n == 6
    per = statics.difference_per_fraction(below, bound)
    assert len(per) == 4 and all(p.high < 0 for p in per)
    flat = statics.difference_per_fraction(np.ones((3, 2)), np.ones((5, 2)))
    assert flat[0].low == flat[0].high == 0.0
    at_one = statics.excess_over_bound(np.array([[1.0, 0.99], [0.98, 1.0], [1.0, 1.0]]), np.ones((4, 2)))
    assert at_one.high <= 0  # a bound of 1 cannot be beaten: no interval above it
    above = below.copy()
    above[:, 2] = 0.9  # one fraction beats the bound
    e2 = statics.excess_over_bound(above, bound)
    assert e2.low > 0 and e2.value == pytest.approx(0.9 - bound[:, 2].mean())
    with pytest.raises(ValueError):
        statics.excess_over_bound(below[:, :3], bound)


def test_largest_takes_each_end():
    a, b = Estimate(0.1, -0.2, 0.3, 5, "x"), Estimate(0.0, -0.1, 0.2, 4, "y")
    m = statics.largest([a, b])
    assert (m.value, m.low, m.high, m.n) == (0.1, -0.1, 0.3, 4)


def test_distances_map_the_interval():
    e = Estimate(0.4, 0.3, 0.5, 20, "m")
    r = statics.relative_error(e, 1 / 3)
    assert r.value == pytest.approx(0.2) and r.low == 0.0 and r.high == pytest.approx(0.5)
    far = statics.relative_error(Estimate(0.45, 0.42, 0.48, 20, "m"), 1 / 3)
    assert far.low == pytest.approx(0.26) and far.high == pytest.approx(0.44)
    d = statics.abs_log2_ratio(Estimate(0.2, 0.15, math.inf, 5, "m"), 0.1)
    assert d.value == pytest.approx(1.0) and d.low == pytest.approx(math.log2(1.5)) and d.high == math.inf
    never = statics.abs_log2_ratio(Estimate(math.nan, 0.5, math.inf, 5, "m"), 0.1, at_most=1.0)
    assert never.value == pytest.approx(math.log2(10)) and never.high == pytest.approx(math.log2(10))
    assert never.low == pytest.approx(math.log2(5))


def test_a_linear_concat_decoder_cannot_express_mod3():
    """depth 0 with concat: logit f(i) + g(j), a threshold of an additive function, cannot give three
    classes; one hidden layer can."""
    kw = {"mode": "concat", "width": 16, "embed_dim": 2, "lr": 0.05, "steps": 1500, "seeds": [0, 1]}
    assert statics.fit_all_pairs("mod3", 9, depth=0, **kw).max() < 1.0
    assert statics.fit_all_pairs("mod3", 9, depth=1, **kw).max() == 1.0
