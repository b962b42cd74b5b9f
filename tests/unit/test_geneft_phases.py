"""lib.geneft.phases: Table 4 and the boundary fit on phase diagrams with a known boundary."""

import numpy as np
import pytest

from lib.geneft import phases as ph


def test_table4_classification():
    tr = np.array([10, 10, 10, -1, -1])
    te = np.array([500, 2000, -1, -1, 30])
    np.testing.assert_array_equal(
        ph.classify(tr, te, threshold=1000),
        [ph.GENERALIZATION, ph.GROKKING, ph.MEMORIZATION, ph.CONFUSION, ph.CONFUSION],
    )
    assert ph.phase_counts(ph.classify(tr, te, 1000)) == {
        "generalization": 1,
        "grokking": 1,
        "memorization": 1,
        "confusion": 2,
    }


@pytest.mark.parametrize("ratio, slope", [(10.0, 1.0), (3.0, 0.5)])
def test_boundary_of_a_synthetic_diagram(ratio, slope):
    """Memorization above eta_dec = ratio * eta_enc^slope (in units of 1e-3): the fit recovers both."""
    enc, dec = np.logspace(-5, -2, 7), np.logspace(-5, 0, 41)
    mem = dec[None, :] > ratio * 1e-3 * (enc[:, None] / 1e-3) ** slope
    phase = np.where(mem, ph.MEMORIZATION, ph.GENERALIZATION)
    assert ph.boundary_slope(phase, enc, dec) == pytest.approx(slope, abs=0.05)
    crit = ph.critical_ratio(phase, enc, dec)
    if slope == 1.0:
        np.testing.assert_allclose(crit, ratio, rtol=0.2)


def test_columns_without_a_transition_are_skipped():
    phase = np.array([[ph.CONFUSION] * 3, [ph.GENERALIZATION, ph.GROKKING, ph.MEMORIZATION]])
    enc, dec = ph.boundary_points(phase, np.array([1e-4, 1e-3]), np.array([1e-4, 1e-3, 1e-2]))
    np.testing.assert_allclose(enc, [1e-3])
    np.testing.assert_allclose(dec, [np.sqrt(1e-5)])
    assert np.isnan(ph.boundary_slope(phase, np.array([1e-4, 1e-3]), np.array([1e-4, 1e-3, 1e-2])))


# ----------------------------------------------------------------------------------------------
# Threshold, margin, and the logistic boundary over the whole grid
# ----------------------------------------------------------------------------------------------


def test_table4_threshold_is_one_percent_of_the_run():
    assert ph.table4_threshold(100_000) == 1000
    assert ph.table4_threshold(10_000) == 100
    with pytest.raises(ValueError):
        ph.table4_threshold(0)


def test_margin_flags_a_cell_two_pairs_short_of_0_9():
    """Fig. 8's cell at 0.893 of 225 test pairs: memorization by Table 4, 2 pairs short, borderline."""
    acc = np.array([201, 203, 150]) / 225
    np.testing.assert_array_equal(ph.classification_margin(acc, 225), [2, 0, 53])
    phase = np.array([ph.MEMORIZATION, ph.GENERALIZATION, ph.MEMORIZATION])
    np.testing.assert_array_equal(ph.borderline(phase, acc, 225, pairs=2), [True, False, False])


def grid(sharpness=3.0, seeds=5, seed=0):
    x, y = np.meshgrid(np.linspace(-5, -2, 7), np.linspace(-5, -1, 9), indexing="ij")
    p = 1 / (1 + np.exp(-sharpness * (x + 1 - y)))  # boundary y = x + 1: ratio 10, slope 1
    t = np.full(x.shape, seeds)
    return x, y, np.random.default_rng(seed).binomial(t, p), t


def test_logistic_boundary_recovers_slope_and_ratio_within_its_interval():
    x, y, k, t = grid()
    fit = ph.fit_boundary(x, y, k, t)
    assert not fit.separated and fit.outcome == "boundary"
    assert fit.slope.low < 1 < fit.slope.high and fit.slope.high - fit.slope.low < 0.5
    assert fit.intercept.low < 1 < fit.intercept.high
    assert fit.n_models == k.size * 5 and fit.n_cells == k.size


def test_boundary_read_at_one_encoder_rate():
    x, y, k, t = grid()
    at = ph.boundary_at(x, y, k, t, -4.0)  # the true boundary y = x + 1 passes y = -3 there
    assert at.low < -3.0 < at.high and at.high - at.low < 0.6
    fit = ph.fit_boundary(x, y, k, t, x_ref=-4.0)
    assert at.value == pytest.approx(fit.intercept.value - 4.0) and at.n == fit.intercept.n


def test_interval_coverage_of_the_slope_over_replicate_grids():
    """Delta-method intervals cover the true slope in most replicates (nominal 95%)."""
    hits = [ph.fit_boundary(*grid(seed=s)[:2], *grid(seed=s)[2:]).slope for s in range(40)]
    covered = np.mean([h.low <= 1 <= h.high for h in hits])
    assert covered >= 0.85


def test_separated_grid_is_reported_and_bounded_by_separating_lines():
    x, y, _, t = grid()
    k = np.where(y < x + 1, 5, 0)
    fit = ph.fit_boundary(x, y, k, t)
    assert fit.separated and "Firth" in fit.slope.method
    assert fit.separating_slopes[0] <= 1 <= fit.separating_slopes[1]
    assert fit.slope.low <= fit.separating_slopes[0] and fit.slope.high >= fit.separating_slopes[1]
    assert fit.separating_intercepts == pytest.approx((0.5, 1.0))


def test_grid_without_a_boundary_says_so():
    x, y, _, t = grid()
    fit = ph.fit_boundary(x, y, t, t)
    assert fit.outcome == "all generalize" and np.isnan(fit.slope.value) and "no boundary" in fit.slope.method


def test_intercepts_compared_across_relations():
    x, y, k, t = grid()
    same = {r: ph.fit_boundary(x, y, *grid(seed=i)[2:], x_ref=-3.5) for i, r in enumerate(["a", "b", "c"])}
    res = ph.compare_intercepts(same)
    assert res["df"] == 2 and res["p_value"].value > 0.01 and res["used"] == ["a", "b", "c"]
    assert res["p_value"].method.startswith("p-value") and res["p_value"].n == res["pooled"].n
    shifted = dict(same, d=ph.fit_boundary(x, y + 1.5, k, t, x_ref=-3.5), e=ph.fit_boundary(x, y, t, t, x_ref=-3.5))
    res = ph.compare_intercepts(shifted)
    assert res["p_value"].value < 1e-3 and res["excluded"] == {"e": "all generalize"}
    with pytest.raises(ValueError):
        ph.compare_intercepts({"a": same["a"], "z": ph.fit_boundary(x, y, k, t, x_ref=0.0)})


def test_intercept_spread_from_the_intervals():
    from lib.util.stats import Estimate

    def fit(value, low, high, outcome="boundary"):
        return ph.BoundaryFit(
            Estimate(1.0, 0.5, 1.5, 9, "t"),
            Estimate(value, low, high, 9, "t"),
            np.zeros(3),
            np.zeros((3, 3)),
            0.0,
            False,
            (0, 0),
            (0, 0),
            3,
            9,
            outcome,
        )

    s = ph.intercept_spread({"a": fit(1.0, 0.8, 1.2), "b": fit(1.5, 1.3, 1.7), "c": fit(0, 0, 0, "all generalize")})
    assert s.value == pytest.approx(0.5) and s.low == pytest.approx(0.1) and s.high == pytest.approx(0.9)
    assert ph.intercept_spread({"a": fit(1.0, 0.2, 1.8), "b": fit(1.1, 0.5, 1.7)}).low == 0.0
    assert ph.intercept_spread({"a": fit(1.0, 0.8, 1.2)}) is None


def test_rate_spread_between_groups():
    k = np.array([[2, 0, 0], [3, 3, 3], [1, 1, 0]])
    t = np.full((3, 3), 3)
    s = ph.rate_spread(k, t)
    assert s.value == pytest.approx(1 - 2 / 9) and 0 < s.low < s.value < s.high <= 1 and s.n == 18
    same = ph.rate_spread(np.full((2, 4), 5), np.full((2, 4), 10))
    assert same.value == 0 and same.low == 0 and same.high > 0


def test_random_effects_pool_widens_with_heterogeneous_relations():
    x, y, k, t = grid()
    same = {r: ph.fit_boundary(x, y, *grid(seed=i)[2:], x_ref=-3.5) for i, r in enumerate(["a", "b", "c"])}
    res = ph.compare_intercepts(same)
    assert res["pooled_random"].value == pytest.approx(res["pooled"].value, abs=0.05)
    shifted = dict(same, d=ph.fit_boundary(x, y + 1.5, k, t, x_ref=-3.5))
    het = ph.compare_intercepts(shifted)
    width = lambda e: e.high - e.low  # noqa: E731
    assert het["tau2"] > 0.1 and width(het["pooled_random"]) > 3 * width(het["pooled"])
    assert (
        width(het["pooled_random_hksj"]) > width(het["pooled_random"]) and "DerSimonian" in het["pooled_random"].method
    )


def test_row_boundaries_cross_one_half_and_their_slope():
    x = np.array([-4.0, -3.0, -2.0, -1.0])
    y = np.arange(-5.0, 0.01, 0.5)
    true = x + 1.0  # slope 1, generalization below y = x + 1
    t = np.full((4, len(y)), 4)
    k = np.where(y[None] < true[:, None], 4, 0)
    k[0, 0] = 0  # a non-monotone cell is pooled away
    xs, ys = ph.row_boundaries(x, y, k, t)
    assert xs.tolist() == x.tolist() and np.allclose(ys, true - 0.25, atol=0.26)
    est = ph.row_boundary_slope(x, y, k, t)
    assert est.value == pytest.approx(1.0, abs=0.05) and est.n == 4 and est.low <= 1 <= est.high
    assert ph.row_boundary_slope(x[:2], y, k[:2], t[:2]) is None
    xs, _ = ph.row_boundaries(x, y, np.zeros_like(k), t)  # no crossing: no rows
    assert len(xs) == 0


def test_phase_diagram_key_sits_outside_the_panels():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, layout="constrained")
    for ax in axes:
        ph.draw_phase_diagram(ax, np.array([[0, 1], [2, 3]]), np.array([1e-3, 1e-2]), np.array([1e-4, 1e-3]))
    ph.add_phase_legend(fig)
    assert all(ax.get_legend() is None for ax in axes)
    assert [t.get_text() for t in fig.legends[0].get_texts()] == list(ph.PHASES)
    plt.close(fig)
