"""lib.geneft.repons and lib.geneft.symbolic: eqs. (8)-(13) against integration, sympy and Monte Carlo."""

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from lib.geneft import repons, symbolic


@pytest.mark.slow(5)
def test_sympy_derivations_of_appendix_c_and_theorem_3_hold():
    checks = symbolic.all_checks()
    assert all(checks.values()), checks
    assert set(checks) == set(symbolic.CHECK_STATEMENTS)  # every check has its reader's statement
    assert not any("|" in text for text in symbolic.CHECK_STATEMENTS.values())  # they sit in table cells


def test_matrix_flow_eq8_follows_the_reduced_system_eq10():
    """Under the ansatz conditions (|r0| = 1, A0^T A0 r0 = r0), eq. (8) projects exactly onto eq. (10)."""
    th = 0.7
    A0 = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]]) @ np.diag([1.0, 0.4])
    r0 = np.array([1.0, 0.0])
    a2_0, c_0, eta_A, eta_x = 1.3, 0.8, 0.6, 1.1

    def rhs(_, z):
        dA, dr = repons.pair_flow(z[:4].reshape(2, 2), z[4:], eta_A, eta_x)
        return np.r_[dA.ravel(), dr]

    sol = solve_ivp(rhs, (0, 3), np.r_[(a2_0 * A0).ravel(), c_0 * r0], rtol=1e-10, atol=1e-12)
    a2, c = repons.integrate_reduced(a2_0, c_0, eta_A, eta_x, 3.0)
    A_end, r_end = sol.y[:4, -1].reshape(2, 2), sol.y[4:, -1]
    np.testing.assert_allclose(r_end, [c[-1, 0], 0.0], atol=1e-7)
    np.testing.assert_allclose(A_end @ r0, a2[-1, 0] * A0 @ r0, atol=1e-7)


def test_conserved_quantity_and_limit_points_along_integration():
    rng = np.random.default_rng(1)
    a0, c0 = rng.normal(size=50), rng.normal(size=50)
    a2, c = repons.integrate_reduced(a0, c0, 0.5, 2.0, 200.0, t_eval=[0.0, 1.0, 200.0])
    C = repons.conserved(a2, c, 0.5, 2.0)
    np.testing.assert_allclose(C, np.broadcast_to(C[0], C.shape), rtol=1e-5, atol=1e-6)
    a_lim, c_lim = repons.limit_point(a0, c0, 0.5, 2.0)
    decided = np.abs(C[0]) > 0.05
    np.testing.assert_allclose(a2[-1, decided], a_lim[decided], atol=1e-3)
    np.testing.assert_allclose(c[-1, decided], c_lim[decided], atol=1e-3)


def test_separatrix_splits_collision_from_no_collision():
    k = repons.separatrix_slope(0.3, 1.2)
    assert k == pytest.approx(np.sqrt(1.2 / 0.6))
    a = np.ones(2)
    hit = repons.collided(a, np.array([0.9 * k, 1.1 * k]), 0.3, 1.2, t_max=2000.0)
    np.testing.assert_array_equal(hit, [True, False])


def test_arctan_law_forms():
    ratio, lr = 1.7, 0.3
    assert repons.arctan_law(ratio, lr) == pytest.approx(2 / np.pi * np.arctan(ratio * np.sqrt(lr / 2)))
    assert repons.arctan_law(ratio, lr, 3) == pytest.approx(
        2 / np.pi * np.arctan(ratio * np.sqrt(lr / (4 / (1 + 1 / 3))))
    )
    assert repons.arctan_law(1.0, 1e9) == pytest.approx(1.0, abs=1e-4)


@pytest.mark.parametrize("sigma_a, eta_x", [(0.5, 1.0), (2.0, 0.1)])
def test_monte_carlo_of_eq10_matches_the_arctan_law(sigma_a, eta_x):
    p = repons.monte_carlo_reduced(sigma_a, 1.0, 1.0, eta_x, samples=4000, seed=0, t_max=1e4)
    assert p == pytest.approx(repons.arctan_law(sigma_a, eta_x), abs=0.025)


def test_cluster_set_is_invariant_under_the_full_gradient_flow():
    n = 5
    a, x = np.array([0.7]), (1.3 * np.r_[n, -np.ones(n)] / (n + 1))[None]
    _da, dx = repons.cluster_gradient_flow(a, x, 0.4, 0.9)
    np.testing.assert_allclose(dx[0, 1:], dx[0, 1])  # the cluster moves together
    assert dx[0].sum() == pytest.approx(0.0, abs=1e-12)  # centre of mass at rest


def test_one_repon_against_n_clustered_matches_eq13():
    p = repons.monte_carlo_cluster(1.0, 1.0, 1.0, 0.5, 6, samples=4000, seed=2, t_max=1e4)
    assert p == pytest.approx(repons.arctan_law(1.0, 0.5, 6), abs=0.025)


def test_the_grids_are_the_points_one_by_one():
    kw = dict(samples=200, seed=3, t_max=1e3, tol=1e-2)
    grid = repons.monte_carlo_reduced_grid([0.5, 2.0], [0.1, 1.0, 10.0], **kw)
    assert grid.shape == (2, 3)
    assert grid[1, 0] == repons.monte_carlo_reduced(2.0, 1.0, 1.0, 0.1, **kw)
    cluster = repons.monte_carlo_cluster_grid([1, 4], [0.1, 10.0], **kw)
    assert cluster.shape == (2, 2)
    assert cluster[1, 1] == repons.monte_carlo_cluster(1.0, 1.0, 1.0, 10.0, 4, **kw)


# ----------------------------------------------------------------------------------------------
# Matrix decoder, the networks' sigma ratio, Fig. 6 comparison, collapse of trained embeddings
# ----------------------------------------------------------------------------------------------


def test_collision_iff_M_psd_and_where_the_arctan_law_applies():
    scalar_1d = repons.collision_study(1, 1, draws=400, seed=0)
    assert scalar_1d.agreement.value == 1.0
    assert scalar_1d.collision.low <= scalar_1d.arctan <= scalar_1d.collision.high + 0.02
    scalar_2d = repons.collision_study(1, 2, draws=300, seed=1)
    assert scalar_2d.m_psd_fraction.value == 0.0 and scalar_2d.collision.value < 0.02
    matrix = repons.collision_study(2, 2, draws=300, seed=2)
    assert matrix.agreement.value >= 0.99
    assert matrix.collision.high < matrix.arctan  # a 2 x 2 decoder collides less often than eq. (12)


def test_psd_probability_matches_the_law_for_scalars():
    p = repons.psd_probability(1, 1, draws=40_000, seed=0, sigma_a=2.0, eta_x=0.5)
    assert p.low <= repons.arctan_law(2.0, 0.5) <= p.high


def test_init_sigma_ratio_grows_with_the_init_scale_and_is_reproducible():
    kw = {"mode": "concat", "depth": 3, "width": 20, "embed_dim": 2}
    small = repons.init_sigma_ratio(np.arange(8), 12, init_scale=0.5, **kw)
    large = repons.init_sigma_ratio(np.arange(8), 12, init_scale=2.0, **kw)
    assert small.low <= small.value <= small.high and small.n == 8
    assert large.value > small.value
    assert repons.init_sigma_ratio(np.arange(8), 12, init_scale=0.5, **kw) == small


@pytest.mark.parametrize("mode", ["concat", "difference", "squared_difference"])
def test_jacobian_moment_equals_one_backward_per_partner(mode):
    """One backward through the first slot gives the same bits as the backward per partner k of
    sum_i z_ik through the shared embedding table (row i != k of that gradient is d z_ik / d E_i)."""
    import torch

    from lib.geneft.network import init_stack, logits

    kw = {"mode": mode, "depth": 2, "width": 7, "embed_dim": 2, "init_scale": 1.0}
    n, seeds = 6, [1, 2, 3]
    stack = init_stack(seeds, n, **kw)
    z = logits(stack, mode).reshape(len(seeds), n, n)
    off = ~torch.eye(n, dtype=torch.bool)
    reference = torch.zeros(len(seeds))
    for k in range(n):
        (g,) = torch.autograd.grad(z[:, :, k].sum(), stack.embed, retain_graph=k < n - 1)
        reference += (g.detach() ** 2).sum(-1)[:, off[:, k]].sum(1)
    jac2, _ = repons.init_repon_moments(seeds, n, **kw)
    assert np.array_equal(jac2, (reference / (n * (n - 1))).numpy().astype(float))


def test_jacobian_moment_matches_finite_differences():
    import torch

    from lib.geneft.network import init_stack, logits

    kw = {"mode": "concat", "depth": 2, "width": 7, "embed_dim": 2, "init_scale": 1.0}
    jac2, _ = repons.init_repon_moments([3], 5, **kw)
    stack = init_stack([3], 5, **kw)
    total, h = 0.0, 1e-3
    with torch.no_grad():
        for i in range(5):
            for k in range(5):
                if i == k:
                    continue
                g = []
                for dim in range(2):
                    e = stack.embed.clone()
                    e[0, i, dim] += h
                    up = logits(type(stack)(e, stack.weights, stack.biases), "concat")[0, i * 5 + k]
                    e[0, i, dim] -= 2 * h
                    down = logits(type(stack)(e, stack.weights, stack.biases), "concat")[0, i * 5 + k]
                    g.append(float(up - down) / (2 * h))
                total += sum(v * v for v in g)
    assert jac2[0] == pytest.approx(total / 20, rel=1e-3)


def test_compare_with_arctan_flags_points_above_the_band():
    from lib.util.stats import Estimate

    sigma = Estimate(1.0, 0.8, 1.2, 10, "test")
    res = repons.compare_with_arctan([30, 3], [30, 30], [10.0, 10.0], sigma)
    np.testing.assert_array_equal(res["above"], [True, False])
    assert res["under_fraction"].value == 0.5
    assert np.all(res["band_low"] < res["band_high"])


def test_sigma_ratio_for_bound_is_where_the_first_point_stops_being_above():
    from lib.util.stats import Estimate

    successes, trials, ratio = [30, 20, 2], [30, 30, 30], [1.0, 10.0, 100.0]
    needed = repons.sigma_ratio_for_bound(successes, trials, ratio)
    at = repons.compare_with_arctan(successes, trials, ratio, Estimate(needed * 1.001, needed, needed * 1.002, 1, "t"))
    below = repons.compare_with_arctan(
        successes, trials, ratio, Estimate(needed * 0.99, needed * 0.98, needed * 0.99, 1, "t")
    )
    assert not at["above"].any() and below["above"].sum() == 1
    assert repons.sigma_ratio_for_bound([0], [30], [1.0]) == 0.0


def test_collapse_of_trained_embeddings_against_phase():
    rng = np.random.default_rng(0)
    labels = np.arange(12) % 3
    emb = rng.normal(size=(8, 12, 2))
    emb[:4] = 0.01 * emb[:4] + np.eye(3, 2)[labels]
    ratio = repons.repon_collapse(emb, labels)
    assert np.all(ratio[:4] < 0.1) and np.all(ratio[4:] > 0.5)
    res = repons.collapse_vs_phase(emb, labels, [1, 1, 1, 1, 0, 0, 0, 0])
    assert res["agreement"].value == 1.0 and res["auc"] == 1.0 and res["mann_whitney_p"] < 0.05
    assert res["auc_estimate"].value == res["auc"] and res["auc_estimate"].n == 8


def test_arctan_shape_test_finds_the_sigma_and_rejects_another_shape():
    ratio = 10.0 ** np.array([0.0, 0.5, 1.0, 1.5])
    t = np.full(4, 4000)
    k = np.round(repons.arctan_law(2.0, 1 / ratio) * t)
    res = repons.arctan_shape_test(k, t, ratio)
    assert res["sigma"] == pytest.approx(2.0, rel=0.05) and res["p_value"] > 0.05 and res["df"] == 3
    steep = repons.arctan_shape_test(np.array([30, 28, 11, 2]), np.full(4, 30), ratio)  # Fig. 6 at init 1
    assert steep["p_value"] < 1e-6 and 3 < steep["sigma"] < 7


def test_the_shape_test_without_each_ratio_shows_whether_a_rejection_rests_on_one_point():
    ratio = 10.0 ** np.array([0.0, 0.5, 1.0, 1.5])
    t = np.full(4, 4000)
    k = np.round(repons.arctan_law(2.0, 1 / ratio) * t)
    k[-1] = 0  # one point far below the law
    without = repons.arctan_shape_without_each(k, t, ratio)
    assert sorted(without) == [0.0, 0.5, 1.0, 1.5] and all(res["df"] == 2 for res in without.values())
    assert without[1.5]["p_value"] > 0.05 and all(without[r]["p_value"] < 1e-6 for r in (0.0, 0.5, 1.0))


def test_the_fig6_drawing_shows_each_init_scale_with_its_band():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lib.geneft import repons
    from lib.util.stats import Estimate

    ratios = {0.5: np.array([1.0, 10.0]), 1.0: np.array([1.0, 10.0])}
    sigma = {s: Estimate(v, v * 0.9, v * 1.1, 30, "test") for s, v in ((0.5, 10.0), (1.0, 20.0))}
    comparisons = {s: repons.compare_with_arctan([30, 20], [30, 30], ratios[s], sigma[s]) for s in ratios}
    fig, ax = plt.subplots()
    repons.draw_generalization_against_ratio(ax, ratios, comparisons, sigma)
    (legend,) = fig.legends  # under the axes, one column per scale: its points over its band
    labels = [t.get_text() for t in legend.get_texts()]
    assert labels == ["init scale 0.5", "eq. (12), scale 0.5", "init scale 1", "eq. (12), scale 1"]
    assert ax.get_legend() is None  # nothing drawn over the points
    assert ax.get_xscale() == "log" and len(ax.collections) >= 2  # two bands (and the error bars)
    np.testing.assert_allclose(np.asarray(ax.lines[0].get_ydata(), float), [1.0, 20 / 30])
    plt.close(fig)
    empty, ax_empty = plt.subplots()
    repons.draw_generalization_against_ratio(ax_empty, {}, {}, sigma)  # a registered set not yet complete
    assert not ax_empty.axison and [t.get_text() for t in ax_empty.texts] == [
        "drawn once every shard of the set is stored"
    ]
    plt.close(empty)


def test_the_fig6_points_table_gives_each_point_its_fraction_band_and_side():
    from lib.util.stats import Estimate

    ratios = {0.5: 10.0 ** np.array([0.0, 0.5]), 2.0: np.array([3.0])}
    sigma = Estimate(10.0, 9.0, 11.0, 30, "test")
    comparisons = {0.5: repons.compare_with_arctan([30, 2], [30, 30], ratios[0.5], sigma)}
    comparisons[2.0] = repons.compare_with_arctan([0], [20], ratios[2.0], sigma)
    lines = repons.generalization_table(ratios, comparisons).splitlines()
    assert lines[0].startswith("| init scale | $\\eta_\\mathrm{dec}/\\eta_\\mathrm{enc}$ |")
    assert lines[2:] == [
        "| 0.5 | $1$ | 1.00 [0.89, 1.00] | 0.901 to 0.919 | no |",
        "| 0.5 | $10^{0.5}$ | 0.067 [0.018, 0.21] | 0.83 to 0.86 | no |",
        "| 2 | $3$ | 0 [0, 0.16] | 0.83 to 0.86 | no |",
    ]
    above = repons.compare_with_arctan([30], [30], [1.0], Estimate(0.01, 0.009, 0.011, 30, "test"))
    assert repons.generalization_table({1.0: [1.0]}, {1.0: above}).splitlines()[2].endswith("| yes |")
    assert repons.generalization_table({}, {}) == ""


def test_g6_statistics_pool_the_points_and_compare_the_extreme_sigma_ratios():
    from lib.util.comparisons import proportion_difference
    from lib.util.stats import Estimate, fraction

    sigma = {0.5: Estimate(1.0, 0.9, 1.1, 30, "test"), 1.0: Estimate(5.0, 4.0, 6.0, 30, "test")}
    counts = {0.5: (np.array([18, 10]), np.array([20, 20])), 1.0: (np.array([2, 0]), np.array([20, 20]))}
    comparisons = {s: repons.compare_with_arctan(*counts[s], [1.0, 10.0], sigma[s]) for s in counts}
    above = np.concatenate([comparisons[s]["above"] for s in counts])
    assert repons.fraction_not_above(comparisons) == fraction(~above)
    # the largest sigma_a / sigma_c (init scale 1) minus the smallest (0.5), pooled over the ratios
    assert repons.generalization_difference_by_sigma(counts, sigma) == proportion_difference(2, 40, 28, 40)
    assert repons.generalization_difference_by_sigma(counts, sigma).value == pytest.approx(2 / 40 - 28 / 40)


def test_g6_all_points_reads_the_largest_excess_at_the_bonferroni_level():
    from lib.util.stats import Estimate, fraction

    tight = Estimate(1.0, 0.99, 1.01, 30, "test")  # band top = the law at sigma_a / sigma_c = 1.01
    far_above = {1.0: repons.compare_with_arctan([30, 30], [30, 30], [1.0, 100.0], tight)}
    excess = repons.excess_over_arctan(far_above)
    top = far_above[1.0]["band_high"]
    wide = fraction(30, 30, confidence=1 - 0.05 / 2)  # two points: each at 97.5%
    assert excess.value == pytest.approx(max(1.0 - top))
    assert excess.low == pytest.approx(max(wide.low - top)) and excess.low > 0  # wholly above: does not hold
    below = {1.0: repons.compare_with_arctan([0, 0], [30, 30], [1.0, 100.0], Estimate(20.0, 19.0, 21.0, 30, "t"))}
    assert repons.excess_over_arctan(below).high < 0  # every point under its band: holds
    # more points widen every point's interval (Bonferroni): the same two points among four read less sharply
    four = {1.0: far_above[1.0], 2.0: below[1.0]}
    assert repons.excess_over_arctan(four).low < excess.low
    with pytest.raises(ValueError):
        repons.excess_over_arctan({})


def _points(pairs):
    """compare_with_arctan-shaped results from (fraction, band top) pairs, 30 seeds each."""
    from lib.util.stats import fraction

    return {1.0: {"points": [fraction(round(p * 30), 30) for p, _ in pairs], "band_high": [t for _, t in pairs]}}


def test_g6_all_points_cost_is_decided_by_the_point_that_decides_the_claim():
    from lib.util.stats import units_to_decide

    level = 1 - 0.05 / 2
    # a point above its top: the claim fails once the first such point clears, the fewest seeds among them
    above = _points([(0.9, 0.6), (29 / 30, 0.9)])
    needed = [units_to_decide(0.9, 0.6, confidence=level), units_to_decide(29 / 30, 0.9, confidence=level)]
    assert repons.seeds_to_clear_arctan(above) == (min(needed), False)
    # every point under its top: the claim holds once all have cleared, the most seeds over the points
    below = _points([(0.5, 0.6), (0.1 / 3, 0.1)])
    needed = [units_to_decide(0.5, 0.6, confidence=level), units_to_decide(1 / 30, 0.1, confidence=level)]
    assert repons.seeds_to_clear_arctan(below) == (max(needed), True)
    # a fraction at its top: no number of seeds
    assert repons.seeds_to_clear_arctan(_points([(0.5, 0.5), (0.1, 0.6)])) == (None, True)
    with pytest.raises(ValueError):
        repons.seeds_to_clear_arctan({})


def test_g6_confirmation_power_is_the_beta_binomial_chance_that_some_point_clears_above():
    from scipy.stats import betabinom
    from statsmodels.stats.proportion import proportion_confint

    # one point: the chance that its new count's Bonferroni (here 95%) Wilson interval lies above the top
    one = _points([(0.9, 0.6)])
    counts = np.arange(61)
    low, _ = proportion_confint(counts, 60, alpha=0.05, method="wilson")
    expected = betabinom(60, 28, 4).pmf(counts)[low > 0.6].sum()  # 27 of 30 seen: Beta(28, 4)
    assert repons.power_to_find_excess(one, 60) == pytest.approx((expected, expected))  # one point: both the same
    # two points (each at the 97.5% level): at least the likelier point's chance; 1 - the product if independent
    pair = _points([(0.9, 0.6), (1.0, 0.87)])
    low, _ = proportion_confint(counts, 60, alpha=0.025, method="wilson")
    clear = [betabinom(60, 28, 4).pmf(counts)[low > 0.6].sum(), betabinom(60, 31, 1).pmf(counts)[low > 0.87].sum()]
    least, independent = repons.power_to_find_excess(pair, 60)
    assert least == pytest.approx(max(clear)) and independent == pytest.approx(1 - (1 - clear[0]) * (1 - clear[1]))
    assert least <= independent
    # more seeds, more power; points far under their band never clear above
    assert repons.power_to_find_excess(pair, 90)[0] > repons.power_to_find_excess(pair, 30)[0]
    assert repons.power_to_find_excess(_points([(0.0, 0.9), (0.1, 0.8)]), 90) == pytest.approx((0.0, 0.0), abs=1e-12)
    with pytest.raises(ValueError):
        repons.power_to_find_excess(pair, 0)


def test_g6_all_points_decision_text_follows_the_interval():
    assert "some point lies above" in repons.arctan_decision_text(_points([(1.0, 0.1), (0.0, 0.9)]), 30)
    assert "every point lies under" in repons.arctan_decision_text(_points([(0.0, 0.9), (0.0, 0.8)]), 30)
    open_ = repons.arctan_decision_text(_points([(0.9, 0.8), (0.1, 0.5)]), 30)
    assert "no point lies above its band" in open_ and "(the set has 30)" in open_ and "would then not hold" in open_


def test_the_collapse_reading_is_one_clause_per_relation():
    from lib.util.stats import Estimate, fraction

    auc = Estimate(0.98, 0.96, 0.99, 189, "test")
    results = {
        "mod3": {"collapsed_if_generalized": fraction(3, 100), "collapsed_if_not": fraction(0, 89), "auc": 0.991,
                 "auc_estimate": auc},
        "bipartite": {"collapsed_if_generalized": None, "collapsed_if_not": fraction(0, 50)},
    }  # fmt: skip
    titles = {"mod3": "mod 3", "bipartite": "complete bipartite"}
    assert repons.collapse_text(results, titles, "collapsed", auc_interval=False) == (
        "On mod 3, 0.030 [0.010, 0.085] of the generalizing runs and 0 [0, 0.041] of the others are collapsed, and "
        "the ratio ranks the generalizing runs below the others with AUC 0.99; on complete bipartite, none of the "
        "generalizing runs (there are none) and 0 [0, 0.071] of the others are collapsed"
    )
    assert "with AUC 0.98 [0.96, 0.99]" in repons.collapse_text(results, titles, "under the cut-off", auc_interval=True)
