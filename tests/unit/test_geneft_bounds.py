"""Tests of lib.geneft.bounds: eqs. (1)-(5) against brute force and sympy, App. D inference and sampling."""

import itertools

import numpy as np
import pytest
import sympy as sp

from lib.geneft.bounds import (
    class_probabilities,
    critical_fraction,
    derive_inferable_fraction,
    infer_equivalence,
    infer_order,
    inferable_fraction,
    monte_carlo_bound,
    order_probabilities,
    upper_bound,
)
from lib.geneft.relations import class_labels, relation_matrix, split_masks

# ----------------------------------------------------------------------------------------------
# Eqs. (1)-(5)
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("b,m", [(2, 3), (3, 4), (5, 2), (4, 6)])
def test_balls_in_buckets_brute_force(b, m):
    """Mean fraction of non-empty buckets over all b^m throws equals f(m), eq. (3)."""
    filled = [len(set(t)) for t in itertools.product(range(b), repeat=m)]
    assert np.mean(filled) / b == pytest.approx(inferable_fraction(m, b))


def test_sympy_derivation_matches_numerics():
    d = derive_inferable_fraction()
    b, m, n_pairs, alpha = d["symbols"]
    assert sp.simplify(d["f"] - (1 - (1 - 1 / b) ** m)) == 0
    assert sp.simplify(d["E_filled"] + d["E_empty"] - b) == 0
    vals = {b: 39.75, n_pairs: 900, alpha: 0.9}
    assert float(d["p_c"].subs(vals)) == pytest.approx(critical_fraction(39.75, 900, 0.9))


def test_critical_fraction_solves_eq3():
    for b in (26.2, 39.8, 107.7):
        pc = critical_fraction(b, 900, 0.9)
        assert inferable_fraction(900 * pc, b) == pytest.approx(0.9)
    with pytest.raises(ValueError):
        critical_fraction(10, 900, 1.0)


def test_upper_bound_limits():
    assert upper_bound(0, 40, 1 / 3) == pytest.approx(2 / 3)
    assert upper_bound(1e6, 40, 1 / 3) == pytest.approx(1.0)
    assert upper_bound(0, 40, 0.8) == pytest.approx(0.8)


# ----------------------------------------------------------------------------------------------
# Inference (App. D, first step) against brute force over every consistent relation
# ----------------------------------------------------------------------------------------------


def set_partitions(items):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in set_partitions(rest):
        for i in range(len(part)):
            yield part[:i] + [[first] + part[i]] + part[i + 1 :]
        yield [[first]] + part


def determined(candidates, r, mask):
    """Entries equal in every candidate relation that agrees with r on mask: value or -1."""
    ok = [c for c in candidates if (c[mask] == r[mask]).all()]
    stack = np.stack(ok)
    return np.where((stack == stack[0]).all(0), stack[0], -1)


@pytest.mark.parametrize("seed", range(4))
def test_infer_equivalence_is_exact(seed):
    n = 6
    r = relation_matrix("mod3", n)
    mask = split_masks(n, [0.25], [seed])
    cands = []
    for part in set_partitions(list(range(n))):
        lab = np.empty(n, int)
        for c, block in enumerate(part):
            lab[block] = c
        cands.append((lab[:, None] == lab[None, :]).astype(int))
    assert (infer_equivalence(r, mask)[0] == determined(cands, r, mask[0])).all()


@pytest.mark.parametrize("seed", range(4))
def test_infer_order_is_exact(seed):
    n = 6
    r = relation_matrix("greater_than", n)
    mask = split_masks(n, [0.3], [seed])
    cands = []
    for perm in itertools.permutations(range(n)):
        rank = np.argsort(perm)
        cands.append((rank[:, None] > rank[None, :]).astype(int))
    assert (infer_order(r, mask)[0] == determined(cands, r, mask[0])).all()


# ----------------------------------------------------------------------------------------------
# Guessing the rest (App. D, second step)
# ----------------------------------------------------------------------------------------------


def test_class_probabilities_no_information():
    n = 9
    known = np.full((1, n, n), -1, np.int8)
    np.fill_diagonal(known[0], 1)
    p = class_probabilities(known, class_labels("mod3", n))
    off = ~np.eye(n, dtype=bool)
    assert np.allclose(p[0][off], 1 / 3) and np.allclose(np.diagonal(p[0]), 1)


def test_order_sampler_matches_exact_linear_extensions():
    """P[i > j] from the chain against the exact frequencies over all linear extensions."""
    n = 6
    r = relation_matrix("greater_than", n)
    known = infer_order(r, split_masks(n, [0.2], [1]))
    exts = []
    for perm in itertools.permutations(range(n)):
        rank = np.argsort(perm)
        rel = (rank[:, None] > rank[None, :]).astype(int)
        if ((known[0] < 0) | (rel == known[0])).all():
            exts.append(rel)
    exact = np.mean(exts, axis=0)
    est = order_probabilities(known, 4000, 4, np.random.default_rng(0))[0]
    assert np.abs(est - exact).max() < 0.04


def _reference_linear_extensions(above, n_samples, sweeps, rng):
    """The sampler as first written (float uniforms, chain-major, one pass per step): the reference
    `sample_linear_extensions` must reproduce draw for draw."""
    n_orders, n = above.shape[0], above.shape[-1]
    below = np.ascontiguousarray(above.transpose(0, 2, 1), dtype=np.float32)
    placed = np.zeros((n_orders, n_samples, n), dtype=bool)
    order = np.empty((n_orders * n_samples, n), dtype=np.int32)
    rows = np.arange(n_orders * n_samples)
    for t in range(n):
        blocked = ((~placed).astype(np.float32) @ below) > 0
        pick = np.argmax(np.where(~placed & ~blocked, rng.random(placed.shape), -1.0), axis=-1).reshape(-1)
        order[:, t] = pick
        placed.reshape(-1, n)[rows, pick] = True
    free = ~above.reshape(-1)
    first_entry = np.repeat(np.arange(n_orders) * (n * n), n_samples)[:, None]
    for _ in range(sweeps * n):
        for first in (0, 1):
            pairs = (n - first) // 2
            lo = order[:, first : first + 2 * pairs : 2]
            hi = order[:, first + 1 : first + 1 + 2 * pairs : 2]
            swap = (rng.random(lo.shape) < 0.5) & free[first_entry + (hi * n + lo)]
            lo[swap], hi[swap] = hi[swap], lo[swap]
    return order.reshape(n_orders, n_samples, n).astype(np.int64)


@pytest.mark.parametrize("n,samplings,orderings,sweeps", [(7, 2, 50, 3), (12, 3, 40, 2), (13, 2, 30, 0)])
def test_order_sampler_draw_for_draw(n, samplings, orderings, sweeps, monkeypatch):
    """The same orderings as the reference sampler from the same generator, which ends in the same state
    (several chain blocks: `_CHAIN_BLOCK` made small)."""
    import lib.geneft.bounds as bounds

    monkeypatch.setattr(bounds, "_CHAIN_BLOCK", 7)
    above = infer_order(relation_matrix("greater_than", n), split_masks(n, [0.1, 0.3], range(samplings))) == 1
    rng_new, rng_ref = np.random.default_rng(3), np.random.default_rng(3)
    new = bounds.sample_linear_extensions(above, orderings, sweeps, rng_new)
    assert np.array_equal(new, _reference_linear_extensions(above, orderings, sweeps, rng_ref))
    assert rng_new.random() == rng_ref.random()


def test_raw_words_are_the_uniforms():
    """`rng.random` is (w >> 11) / 2^53 of the words `_raw_words` gives, for every generator it accepts."""
    from lib.geneft.bounds import _RAW_DOUBLE, _raw_words

    for kind in _RAW_DOUBLE:
        words = _raw_words(np.random.Generator(kind(5)))((4, 6))
        assert np.array_equal((words >> np.uint64(11)) * 2.0**-53, np.random.Generator(kind(5)).random((4, 6)))
    with pytest.raises(TypeError, match="MT19937"):
        _raw_words(np.random.Generator(np.random.MT19937(0)))


def test_monte_carlo_bound_ends_and_guess():
    mc = monte_carlo_bound("bipartite", 20, [0.01, 1.0], samplings=4)
    assert mc.accuracy[-1] == pytest.approx(1.0) and mc.inferred[-1] == pytest.approx(1.0)
    assert mc.p_star[0] == pytest.approx(0.5)
    gt = monte_carlo_bound("greater_than", 12, [0.1, 0.5], samplings=2, orderings=200)
    assert 0.5 < gt.accuracy[0] < gt.accuracy[1] <= 1.0
    with pytest.raises(ValueError, match="no Monte Carlo bound"):
        monte_carlo_bound("random_graph", 10, [0.1], samplings=1)


def test_inductive_gap_is_mean_gap():
    from lib.geneft.bounds import inductive_gap

    x = np.array([0.1, 0.2, 0.4])
    assert inductive_gap(x, np.zeros(3), np.full(3, 0.3)) == pytest.approx(0.3)
    assert inductive_gap(x, np.array([0.0, 0.1, 0.2]), np.array([0.0, 0.2, 0.2])) == pytest.approx(0.05)


# ----------------------------------------------------------------------------------------------
# Read-outs with intervals: p_* over the whole curve, first crossings, eq. (4) against the bound
# ----------------------------------------------------------------------------------------------


def test_first_crossing_interpolates_and_says_never():
    from lib.geneft.bounds import first_crossing

    x = np.array([0.1, 0.2, 0.3])
    out = first_crossing(x, np.array([[0.5, 0.8, 1.0], [0.95, 0.97, 0.99], [0.1, 0.2, 0.3]]), 0.9)
    assert out[0] == pytest.approx(0.25) and out[1] == pytest.approx(0.1) and np.isnan(out[2])


def test_fraction_at_accuracy_interval_over_curves():
    from lib.geneft.bounds import fraction_at_accuracy

    x = np.linspace(0, 1, 21)
    rng = np.random.default_rng(0)
    centres = 0.5 + 0.05 * rng.normal(size=12)
    curves = 1 / (1 + np.exp(-(x[None] - centres[:, None]) * 30))
    est = fraction_at_accuracy(x, curves, 0.5)
    assert est.low <= est.value <= est.high and est.n == 12
    assert abs(est.value - centres.mean()) < 0.05


def test_p_star_pooled_and_bipartite_consistency():
    from lib.geneft.bounds import p_star_pooled

    fr = np.linspace(0.05, 0.5, 6)
    mod3 = p_star_pooled(monte_carlo_bound("mod3", 15, fr, 6))
    assert 0 < mod3.low <= mod3.value <= mod3.high < 0.5 and mod3.n == 6
    bip = p_star_pooled(monte_carlo_bound("bipartite", 16, fr, 4))
    assert bip.value == pytest.approx(0.5)  # two classes of equal size: 1/2 by symmetry


def test_p_star_small_data_limit_and_eq5_fit():
    from lib.geneft.bounds import p_star_eq5_fit, p_star_pooled

    fr = np.array([0.02, 0.1, 0.3])
    mc = monte_carlo_bound("mod3", 15, fr, 6)
    first = p_star_pooled(mc, upto=0.02)
    assert first.value == pytest.approx(mc.p_star[0]) and "<= 0.02" in first.method
    assert abs(first.value - 1 / 3) < abs(p_star_pooled(mc).value - 1 / 3)  # the limit is nearer the prior 1/k
    with pytest.raises(ValueError):
        p_star_pooled(mc, upto=0.01)
    fitted = p_star_eq5_fit(mc, 20.0, 15 * 15)
    assert 0 < fitted < 0.5


def test_eq4_p_c_beside_the_bound_and_the_inferred_fraction():
    from lib.geneft.bounds import critical_fraction_vs_accuracy, fraction_at_accuracy
    from lib.geneft.description import description_length

    fr = np.linspace(0.02, 0.6, 15)
    mc = monte_carlo_bound("mod3", 15, fr, 6)
    b = description_length(relation_matrix("mod3", 15))
    out = critical_fraction_vs_accuracy(mc, b, 15 * 15)
    assert out["p_c"].method == "exact" and out["p_c"].value == critical_fraction(b, 15 * 15, 0.9)
    assert out["bound"].value < out["inferred"].value  # accuracy 0.9 comes before inferring 90%
    assert out["bound"] == fraction_at_accuracy(fr, mc.accuracy_samples.T, 0.9, what="samplings")
    networks = np.clip(np.linspace(0.6, 1.0, 15)[None] + np.zeros((4, 1)), 0, 1)
    assert fraction_at_accuracy(fr, networks, 0.9, what="seeds").value == pytest.approx(
        0.02 + (0.9 - 0.6) / 0.4 * 0.58, rel=1e-6
    )
