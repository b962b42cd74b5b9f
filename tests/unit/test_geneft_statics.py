"""lib.geneft.statics: excess over the bound with intervals, distances from a reference, expressivity."""

import math

import numpy as np
import pytest

from lib.geneft import statics
from lib.util.stats import Estimate


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
    classes; one hidden layer can (in 100 steps: the budget is six times that)."""
    kw = {"mode": "concat", "width": 16, "embed_dim": 2, "lr": 0.05, "steps": 600, "seeds": [0, 1]}
    assert statics.fit_all_pairs("mod3", 9, depth=0, **kw).max() < 1.0
    assert statics.fit_all_pairs("mod3", 9, depth=1, **kw).max() == 1.0


def test_curve_area_is_the_network_part_of_the_inductive_gap():
    from lib.geneft import bounds

    x = np.array([0.1, 0.2, 0.5, 0.8])
    curves = np.array([[0.5, 0.6, 0.9, 1.0], [0.4, 0.7, 0.8, 1.0]])
    bound = np.array([0.6, 0.8, 1.0, 1.0])
    area = statics.curve_area(curves, x)
    gaps = [bounds.inductive_gap(x, c, bound) for c in curves]
    assert area.shape == (2,)
    assert gaps[0] - gaps[1] == pytest.approx(area[1] - area[0])
    assert statics.curve_area(np.ones((1, 4)), x)[0] == pytest.approx(1.0)


def test_best_mean_margin_sign_interval_and_pairing():
    rng = np.random.default_rng(1)
    shared = rng.normal(0, 0.2, 8)  # a per-seed effect common to every group: pairing removes it
    good, bad, worse = 0.9 + shared, 0.8 + shared, 0.7 + shared + 0.001 * rng.standard_normal(8)
    m = statics.best_mean_margin([good], [bad, worse])
    assert m.value == pytest.approx(0.1) and m.low > 0 and m.n == 8
    assert statics.best_mean_margin([worse], [good]).high < 0
    flat = statics.best_mean_margin([np.ones(3)], [np.zeros(3)])
    assert flat.low == flat.value == flat.high == 1.0
    with pytest.raises(ValueError):
        statics.best_mean_margin([np.ones(3)], [np.ones(4)])
    with pytest.raises(ValueError):
        statics.best_mean_margin([], [np.ones(3)])


def test_decoder_curves_stack_the_seeds_of_one_decoder_across_sets():
    class Shard:
        def __init__(self, mode, seeds):
            self.key = {"relation": "mod3", "mode": mode, "depth": 0}
            self._acc = np.tile(np.arange(seeds, dtype=float), (4, 1))  # (fractions, seeds)

        def __getitem__(self, name):
            return self._acc

    curves = statics.decoder_curves([Shard("concat", 5), Shard("difference", 5)], [Shard("concat", 3)])
    assert curves["mod3", "concat:0"].shape == (8, 4) and curves["mod3", "difference:0"].shape == (5, 4)
    assert curves["mod3", "concat:0"][:, 0].tolist() == [0, 1, 2, 3, 4, 0, 1, 2]  # first set's seeds first


def test_smallest_gap_picks_per_relation_the_first_of_the_smallest():
    gap = {
        ("mod3", "concat:1"): 0.2,
        ("mod3", "squared_difference:0"): 0.1,
        ("mod3", "difference:0"): 0.1,
        ("greater_than", "concat:1"): 0.05,
        ("greater_than", "difference:0"): 0.3,
    }
    assert statics.smallest_gap(gap) == {"mod3": "squared_difference:0", "greater_than": "concat:1"}
    assert list(statics.smallest_gap(gap)) == ["mod3", "greater_than"]  # the relations in `gap`'s order


def test_by_depth_sorts_shards_by_their_depth_keeping_ties_in_order():
    class Shard:
        def __init__(self, depth, tag):
            self.key, self.tag = {"depth": depth}, tag

    shards = [Shard(4, "a"), Shard(0, "b"), Shard(2, "c"), Shard(0, "d")]
    assert [sh.tag for sh in statics.by_depth(shards)] == ["b", "d", "c", "a"]


def test_goldilocks_readings_find_an_interior_zone_and_a_deep_decoder_that_memorizes():
    class Shard:
        def __init__(self, depth, test, train):
            self.key, self.data = {"depth": depth}, {"test_acc": [np.array(test)], "train_acc": [np.array(train)]}

        def __getitem__(self, name):
            return self.data[name]

    shards = [
        Shard(4, [0.5, 0.4, 0.45], [1.0, 1.0, 0.9]),
        Shard(0, [0.3, 0.35, 0.3], [0.7, 0.7, 0.7]),
        Shard(2, [0.9, 0.85, 0.95], [1.0, 1.0, 1.0]),
    ]
    r = statics.goldilocks_readings(shards, seed=0)
    assert list(r["depths"]) == [0, 2, 4] and r["best_depth"] == 2 and r["deepest_depth"] == 4
    assert r["interior_margin"].value == pytest.approx(0.9 - 0.45) and r["interior_margin"].low > 0
    assert r["deep_deficit"].value == pytest.approx(0.9 - 0.45)
    assert r["deep_train_acc"].value == pytest.approx(2.9 / 3)


def test_paper_decoder_margins_compare_the_papers_mode_and_depth_with_the_rest_per_relation():
    areas = {
        ("mod3", "squared_difference:0"): np.array([0.9, 0.85, 0.95]),
        ("mod3", "concat:1"): np.array([0.6, 0.65, 0.6]),
        ("mod3", "difference:1"): np.array([0.7, 0.7, 0.75]),
        ("greater_than", "difference:1"): np.array([0.9, 0.9, 0.95]),
        ("greater_than", "difference:0"): np.array([0.8, 0.8, 0.85]),
        ("greater_than", "concat:1"): np.array([0.5, 0.5, 0.5]),
    }
    m = statics.paper_decoder_margins(areas, seed=0)
    assert list(m["mode"]) == ["mod3", "greater_than"]
    assert m["mode"]["mod3"].value == pytest.approx(0.9 - 0.7166666)  # squared difference against the best other
    assert m["depth"]["mod3"].value == pytest.approx(0.9 - 0.7166666)  # depth 0 against the best with 1
    assert m["mode"]["greater_than"].value == pytest.approx(0.9166666 - 0.5)  # difference (both depths) against concat
    assert m["depth"]["greater_than"].value == pytest.approx(0.8166666 - 0.9166666)  # depth 0 trails: negative


def test_depth_margin_power_follows_the_margin_seen():
    """Depth 0 clearly ahead on every seed seen: a confirmation holds at almost every draw; clearly behind: fails;
    the same arrays and seed give the same power."""
    rng = np.random.default_rng(3)
    base = rng.normal(0.8, 0.02, 10)
    ahead = {("mod3", "squared_difference:0"): base + 0.05, ("mod3", "concat:1"): base}
    holds, fails = statics.depth_margin_power(ahead, 20, draws=20)
    assert holds >= 0.9 and fails == 0
    behind = {("mod3", "squared_difference:0"): base - 0.05, ("mod3", "concat:1"): base}
    assert statics.depth_margin_power(behind, 20, draws=20) == (0.0, 1.0)
    assert statics.depth_margin_power(ahead, 20, draws=5, seed=1) == statics.depth_margin_power(
        ahead, 20, draws=5, seed=1
    )
    with pytest.raises(ValueError):
        statics.depth_margin_power(ahead, 1)
