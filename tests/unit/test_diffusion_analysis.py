"""Statistics of S-6 (lib/diffusion/analysis.py) on planted, known answers."""

import numpy as np
import pytest

from lib.diffusion import analysis as an
from lib.util.stats import Estimate


def test_blank_samples_stay_paired_with_the_largest_error():
    coords = np.array([[1.0, 1.0], [np.nan, np.nan], [0.0, 1.0]])
    np.testing.assert_allclose(an.sample_error(coords), [0.0, 1.0, 0.5])


def test_decay_fit_recovers_the_rate():
    steps = np.arange(0, 2001, 125)
    d = 0.05 + 0.8 * np.exp(-2e-3 * steps) + 0.005 * np.random.default_rng(2).standard_normal(len(steps))
    d[0] = 0.3  # untrained point is ignored
    fit = an.fit_decay(steps, d)
    assert fit.r2 > 0.98 and fit.rate.low < 2e-3 < fit.rate.high and fit.start == 125


def test_decay_r2_has_a_seed_bootstrap_interval():
    steps = np.arange(0, 2001, 125)
    rng = np.random.default_rng(3)
    dist = 0.8 * np.exp(-2e-3 * steps)
    traj = np.stack(
        [
            np.stack([1 - dist / np.sqrt(2), 1 - dist / np.sqrt(2)], -1) + 0.01 * rng.standard_normal((len(steps), 2))
            for _ in range(5)
        ]
    )
    est, _ = an.decay_r2(traj, steps)
    assert est.n == 5 and est.low <= est.value <= est.high and est.value > 0.95


def test_bend_and_lead_are_measured_apart():
    """A trajectory that goes by (red, small): size ahead (bend toward size) and size learned first."""
    steps = np.arange(0, 1100, 100)
    u = np.linspace(0, 1, 11)
    colour, size = u**2, np.sqrt(u)  # size ahead throughout
    traj = np.stack([np.stack([colour, size], -1)] * 3)
    assert np.all(an.bend(traj, "size") > 0) and np.all(an.bend(traj, "colour") < 0)
    assert np.all(an.colour_lead(traj, steps) < 0)  # colour later


def test_crossing_step_interpolates_and_censors():
    steps = np.array([0, 100, 200, 300])
    assert an.crossing_step(np.array([0.9, 0.5, 1.0, 1.0]), steps) == pytest.approx(150)  # step 0 ignored
    assert an.crossing_step(np.array([0.0, 0.1, 0.2, 0.3]), steps) == 400


@pytest.mark.parametrize(
    "low, high, verdict",
    [((10, 50), (-60, -5), "holds"), ((10, 50), (5, 60), "does not hold"), ((-10, 50), (-60, -5), "inconclusive")],
)
def test_order_reversed_is_three_valued(low, high, verdict):
    est = lambda lo, hi: Estimate((lo + hi) / 2, lo, hi, 5, "t")
    assert an.order_reversed(est(*low), est(*high)) == verdict


def test_success_rate_is_per_seed_and_bounded():
    coords = np.full((4, 2, 4, 10, 2), 0.9)
    coords[0, -1, 3, :5] = np.nan  # half the samples blank in seed 0
    est = an.success_rate(coords)
    assert est.value == pytest.approx(0.875) and est.high <= 1 and est.n == 4


def test_training_success_reads_each_prompt_against_its_own_class():
    from lib.diffusion.data import CLASSES

    coords = np.stack([np.broadcast_to(np.array(c, float) * 0.8 + 0.1, (6, 2)) for c in CLASSES])  # (P, S, 2)
    coords = np.broadcast_to(coords, (3, 2, *coords.shape)).copy()  # (seeds, K, P, S, 2)
    assert an.training_success_rate(coords).value == 1.0 and an.success_rate(coords).value == 1.0
    coords[:, -1, 1] = coords[:, -1, 2]  # prompt (red, small) drawn as (blue, big)
    coords[0, -1, 0, :3] = np.nan  # half of seed 0's (red, big) samples blank
    est = an.training_success_rate(coords)
    assert est.value == pytest.approx((2 * 2 / 3 + 1.5 / 3) / 3) and est.n == 3


def test_generalisation_is_judged_only_on_runs_that_draw_their_training_classes():
    low = Estimate(0.1, 0.05, 0.15, 5, "t")
    assert an.generalisation(low, Estimate(0.9, 0.8, 1.0, 5, "t")) == low  # trained: a real failure
    undecided = an.generalisation(low, Estimate(0.45, 0.25, 0.65, 5, "t"))
    assert (undecided.low, undecided.high, undecided.value) == (
        0.0,
        1.0,
        0.1,
    ) and "training prompts" in undecided.method


def test_late_change_sees_a_run_still_learning():
    rng = np.random.default_rng(4)
    steps = np.arange(0, 2401, 150)
    falling = np.linspace(1.0, 0.4, len(steps))[None, :, None] + 0.05 * rng.standard_normal((5, len(steps), 32))
    flat = np.full_like(falling, 0.4) + 0.05 * rng.standard_normal(falling.shape)
    assert an.late_change(falling, steps).high < 0
    assert an.late_change(flat, steps).low < 0 < an.late_change(flat, steps).high
    assert an.late_change(falling, steps).n == 5  # the seeds are the units, not their 32 samples each


def test_readout_agreement_counts_blanks_as_a_class():
    coords = np.zeros((1, 2, 1, 2, 2))
    coords[0, 1, 0, 1] = np.nan
    clf = np.zeros((1, 2, 1, 2, 3))
    clf[..., 2] = 1.0
    clf[0, 1, 0, 1, 2] = 0.0
    assert an.readout_agreement(coords, clf) == 1.0


def test_pending_metrics_are_undecided_over_their_range():
    from lib.diffusion.analysis import pending_metrics

    metrics = {
        "success_rate_0_2": {"value": 0.0, "low": 0.0, "high": 0.0, "n": 2, "method": "wilson"},
        "evidence_seeds_per_contrast": 1,
    }
    out = pending_metrics(metrics, [0.2, 0.5], "incomplete")
    assert out["bend_toward_stronger_0_5"]["n"] == 0 and out["bend_toward_stronger_0_5"]["low"] == -1.0
    assert out["success_rate_0_2"]["low"] == 0.0 and out["success_rate_0_2"]["high"] == 1.0
    assert (
        out["success_rate_0_2"]["method"].startswith("undecided: incomplete")
        and out["evidence_seeds_per_contrast"] == 1
    )
    assert out["colour_first_seeds_0_5"] == "n/a (incomplete)"


def test_analyse_set_on_the_stored_smoke_variant():
    from lib.book.evidence import load

    ev = load("diffusion", "cpu", "smoke")
    contrasts = sorted({s.key["contrast"] for s in ev})
    runs, dgps, by_readout = an.analyse_set({c: [s.arrays for s in ev.where(contrast=c)] for c in contrasts}, ev.config)
    assert set(by_readout) == set(an.READOUTS_OF_CONCEPTS)
    results = by_readout["segmentation"]
    assert set(runs) == set(dgps) == set(results) == set(contrasts)
    for c in contrasts:
        assert dgps[c].colour_signal == c and dgps[c].resolution == ev.config["resolution"]
        assert results[c]["success"].n == len(ev.where(contrast=c)) and results[c]["traj"].shape[-1] == 2
        alone = an.analyse_contrast(runs[c], dgps[c], readout="classifier")  # finds its stronger concept itself
        assert alone["stronger"] == results[c]["stronger"] == by_readout["classifier"][c]["stronger"]
        assert alone["success"] == by_readout["classifier"][c]["success"]
    metrics = an.s6_metrics(results, [ev.where(contrast=c)[0]["calibration_noise_readout"] for c in contrasts], 2)
    for c in contrasts:
        first = int(np.sum(results[c]["leads"] > 0))
        assert metrics[f"colour_first_seeds_{an.contrast_key(c)}"] == f"{first} of {len(ev.where(contrast=c))}"


def test_readouts_at_a_shared_checkpoint():
    from lib.diffusion.analysis import max_difference

    short = {
        "eval_steps": np.array([0, 150, 300]),
        **{k: np.arange(3.0)[:, None] * np.ones((3, 4)) for k in an.READOUTS},
    }
    long = {
        "eval_steps": np.array([0, 100, 200, 300, 400]),
        **{k: np.array([0, 9, 9, 2, 7.0])[:, None] * np.ones((5, 4)) for k in an.READOUTS},
    }
    assert max_difference(an.readouts_at(long, 300), an.readouts_at(short, 300)) == 0
    with pytest.raises(ValueError, match="no checkpoint at step 150"):
        an.readouts_at(long, 150)


def test_continuation_ratio_is_zero_for_the_same_runs_and_about_one_for_other_seeds():
    rng = np.random.default_rng(5)
    refs = [rng.uniform(0, 1, (4, 2)) for _ in range(5)]
    assert an.continuation_ratio(refs[:2], refs[:2], refs) == 0
    assert 0.01 < an.continuation_ratio([r + 0.01 for r in refs[:2]], refs[:2], refs) < 0.05
    others = [rng.uniform(0, 1, (4, 2)) for _ in range(2)]
    assert 0.5 < an.continuation_ratio(others, refs[:2], refs) < 2


def test_prompt_means_at_a_checkpoint():
    from lib.diffusion.data import Circles

    dgp = Circles(0.5, resolution=16)
    colour = np.full((2, 4, 3), dgp.colour_signal)  # blue: coordinate 1
    radius = np.full((2, 4, 3), dgp.size_value(1))  # small: coordinate 1
    arrays = {
        "eval_steps": np.array([0, 10]),
        "colour": colour,
        "radius": radius,
        "present": np.ones((2, 4, 3), bool),
        "classifier": np.zeros((2, 4, 3, 3)),
    }
    np.testing.assert_allclose(an.prompt_means_at(arrays, dgp, 10), np.ones((4, 2)), atol=1e-6)


def test_largest_continuation_ratio_takes_the_worst_contrast():
    from lib.diffusion.data import Circles

    rng = np.random.default_rng(6)

    def shard(colour):
        return {
            "eval_steps": np.array([0, 10]),
            "colour": colour,
            "radius": np.full((2, 4, 3), 0.4),
            "present": np.ones((2, 4, 3), bool),
            "classifier": np.zeros((2, 4, 3, 3)),
        }

    dgps = {c: Circles(c, resolution=16) for c in (0.2, 0.7)}
    originals = {(c, s): shard(rng.uniform(-0.1, 0.1, (2, 4, 3))) for c in dgps for s in range(4)}
    same = {key: originals[key] for key in [(0.2, 0), (0.7, 1)]}
    assert an.largest_continuation_ratio(same, originals, dgps, 10) == 0
    moved = dict(same) | {(0.7, 1): shard(originals[(0.7, 1)]["colour"] + 0.05)}
    assert an.largest_continuation_ratio(moved, originals, dgps, 10) > 0


def test_median_sign_interval_needs_six_seeds_for_95_percent():
    five = an.median_sign_interval(np.array([100.0, 200, 300, 400, 500]), bound=2550)
    assert (five.low, five.high) == (-2550, 2550) and "cannot reach" in five.method  # p >= 1/16 with 5
    ten = an.median_sign_interval(np.arange(1.0, 11.0), bound=1e4)
    assert (ten.value, ten.low, ten.high) == (5.5, 2.0, 9.0)  # x_(2), x_(9): coverage 1 - 22/1024
    censored = np.array([-50.0, 120, 300, 800, 2550, 2550, 2550, 2550, 2550, 2550])  # only the order counts
    assert an.median_sign_interval(censored, bound=2550).low == 120.0


def test_rank_shift_is_hodges_lehmann_with_the_exact_mann_whitney_interval():
    from scipy.stats import mannwhitneyu

    null = an._mann_whitney_null(4, 3)
    assert null.sum() == pytest.approx(1.0) and null.size == 13
    exact = mannwhitneyu([0.0, 1, 2, 3], [10.0, 11, 12], method="exact", alternative="less").pvalue  # U = 0
    assert null[0] == pytest.approx(exact)
    a, b = np.arange(10.0) + 5, np.arange(10.0)
    shift = an.rank_shift(a, b)
    diffs = np.sort((a[:, None] - b[None, :]).ravel())
    assert shift.value == 5.0 and (shift.low, shift.high) == (diffs[23], diffs[76])  # k = 24 for 10 and 10
    assert (
        an.rank_shift(np.arange(3.0), np.arange(3.0) + 1).low == -an.rank_shift(np.arange(3.0), np.arange(3.0) + 1).high
    )


def test_rank_shift_power_is_the_rate_at_which_the_rank_interval_lies_above_zero():
    # the count criterion of rank_shift_power and rank_shift's own interval agree sample by sample
    rng = np.random.default_rng(3)
    k = an.rank_interval_order(12, 9)
    for _ in range(200):
        a, b = rng.standard_normal(12) + 0.9, rng.standard_normal(9)
        assert (an.rank_shift(a, b).low > 0) == ((a[:, None] <= b[None, :]).sum() < k)
    # about (1 - confidence) / 2 under no shift, rising with the shift; 0 when no interval can reach 95 %
    assert an.rank_shift_power(0.0, 30, 30) == pytest.approx(0.025, abs=0.006)
    powers = [an.rank_shift_power(s, 30, 30, draws=4000) for s in (0.2, 0.5, 0.8, 1.2)]
    assert powers == sorted(powers) and powers[-1] > 0.95
    assert an.rank_interval_order(2, 2) is None and an.rank_shift_power(5.0, 2, 2) == 0.0


def test_registered_power_restates_the_registration_at_its_design():
    from lib.diffusion.configs import REGISTERED_CONTRASTS, REGISTERED_SIZING

    power = an.registered_power(REGISTERED_CONTRASTS, 30, 20, REGISTERED_SIZING)
    assert power == {
        **{
            f"registered_power_{kind}_{key}": value
            for key in ("0_2", "0_7")
            for kind, value in (("generalisation", 0.89), ("bend", 0.8), ("rise_in_bend", 0.8))
        },
        "registered_power_colour_lead_shift": 0.84,
    }  # the registration's figures (lib/book/chapters/diffusion.py): 0.9, 0.84, 0.8
    text = an.registered_power_text(power, REGISTERED_SIZING, 30, 20)
    assert "(a) power 0.89" in text and "(b) 0.84" in text and "(c) 0.8 " in text and "(d) 0.8 " in text
    assert "30 + 30 seeds" in text and "20 seeds" in text


def test_the_classifier_read_out_as_concept_coordinates():
    clf = np.array([[0.9, 0.2, 0.8], [0.3, 0.7, 0.4]])  # (P(blue), P(small), P(disc)) of two samples
    coords = an.classifier_coordinates({"classifier": clf})
    np.testing.assert_allclose(coords[0], [0.9, 0.2])
    assert np.isnan(coords[1]).all()  # P(disc) <= 1/2: a blank, as the segmentation marks one
    with pytest.raises(ValueError, match="unknown read-out"):
        an.analyse_contrast({"eval_steps": np.arange(3)}, None, readout="eyeball")


def test_readout_alternative_renames_the_claims_metrics_only():
    metrics = {
        "colour_lead_0_7": 1,
        "classifier_p_disc_on_noise": 0,
        "readout_agreement_0_7": 0.8,
        "order_reversed": "x",
    }
    assert an.readout_alternative(metrics) == {"colour_lead_0_7_classifier": 1, "order_reversed_classifier": "x"}


# ---- the registered design ---------------------------------------------------------------------


def test_on_grid_keeps_the_shared_checkpoints_only():
    steps = np.arange(0, 801, 100)
    arrays = {"eval_steps": steps, "present": np.ones((steps.size, 4, 2), bool), "prompts": np.zeros((4, 4))}
    cut = an.on_grid(arrays, 400)
    assert cut["eval_steps"].tolist() == [0, 400, 800] and cut["present"].shape[0] == 3
    assert cut["prompts"].shape == (4, 4)  # not over checkpoints: kept
    with pytest.raises(ValueError, match="400-grid"):
        an.on_grid({"eval_steps": np.arange(0, 701, 100)}, 400)


def _bending(offsets: list[float], progress: list[float]) -> np.ndarray:
    """One seed's trajectory (K, 2) with the given offsets toward "size" and progress values."""
    off, prog = np.asarray(offsets), np.asarray(progress)
    return np.stack([prog - off / np.sqrt(2), prog + off / np.sqrt(2)], -1)


def test_rise_in_bend_reads_the_mse_between_the_trajectory_s_own_ends():
    progress = [0.1, 0.3, 0.5, 0.6, 0.7, 0.8, 0.95]
    traj = _bending([0.0, 0.0, 0.05, 0.2, 0.3, 0.1, 0.0], progress)[None]
    mse = np.array([[0.9, 0.6, 0.4, 0.5, 0.55, 0.3, 0.1]])  # start (offset 0.05) at 0.4, peak (0.3) at 0.55
    assert an.rise_in_bend(traj, mse, "size")[0] == pytest.approx(0.15)
    assert an.rise_in_bend(traj, mse, "colour")[0] == pytest.approx(0.0)  # toward colour the peak comes first


def test_rise_in_bend_can_be_negative_and_is_nan_without_transit():
    progress = [0.1, 0.5, 0.6, 0.7, 0.95]
    traj = _bending([0.0, 0.0, 0.2, 0.3, 0.0], progress)[None]
    falling = np.array([[0.9, 0.6, 0.5, 0.4, 0.1]])
    assert an.rise_in_bend(traj, falling, "size")[0] == pytest.approx(-0.2)
    never = _bending([0.0] * 5, [0.1, 0.2, 0.3, 0.9, 1.0])[None]
    assert np.isnan(an.rise_in_bend(never, falling, "size")[0])


def test_registered_pending_covers_every_metric_the_registered_claims_read():
    from lib.book.chapters.diffusion import CHAPTER

    pending = an.registered_pending((0.2, 0.7), "incomplete") | an.registered_pending(
        (0.2, 0.7), "incomplete", prefix="registered_gpu"
    )
    read = {m for c in CHAPTER.claims if "registered" in c.id for m in (c.metric, *c.alternative_metrics)}
    assert read <= set(pending) and any(m.startswith("registered_gpu_") for m in read)
    assert all(v["n"] == 0 and v["method"].startswith("undecided") for v in pending.values())
    # the GPU replication's claims read only its own metrics, and never decide a row
    gpu = [c for c in CHAPTER.claims if "registered-gpu" in c.id]
    assert len(gpu) == 7 and all(c.role == "paper" and c.metric.startswith("registered_gpu_") for c in gpu)


def test_read_registered_on_the_stored_smoke_variant():
    from lib.book.evidence import load

    ev = load("diffusion", "cpu", "smoke")
    by_contrast = {c: [s.arrays for s in ev.where(contrast=c)] for c in (0.2, 0.7)}
    stored = {c: runs[:1] for c, runs in by_contrast.items()}
    new = {c: runs[1:] for c, runs in by_contrast.items()}
    metrics = an.read_registered(stored, new, ev.config, common_every=ev.config["eval_every"])
    assert set(metrics) >= set(an.registered_pending((0.2, 0.7), "x"))
    # (a), (b) pool the stored and new seeds; (c), (d) read the new seeds alone
    assert metrics["registered_colour_lead_shift"]["n"] == 2 and metrics["registered_bend_0_2"]["n"] <= 1


def test_read_registered_on_the_gpu_replications_smoke_variant():
    from lib.book.evidence import load

    ev = load("diffusion", "registered_gpu", "smoke")
    runs = {c: [s.arrays for s in ev.where(contrast=c)] for c in (0.2, 0.7)}
    metrics = an.read_registered(
        {c: [] for c in runs}, runs, ev.config, common_every=ev.config["eval_every"], prefix="registered_gpu"
    )
    assert set(metrics) >= set(an.registered_pending((0.2, 0.7), "x", prefix="registered_gpu"))
    assert not any(name.startswith("registered_") and not name.startswith("registered_gpu_") for name in metrics)
    # every seed is read out densely: (a), (b) and (c), (d) read the same seeds
    assert metrics["registered_gpu_colour_lead_shift"]["n"] == len(runs[0.2])


def test_classifier_accuracy_pools_the_images_of_every_classifier():
    acc = an.classifier_accuracy([np.array([1.0, 1.0, 0.75, 1.0]), np.array([1.0, 0.5, 1.0, 1.0])], images_per_class=4)
    assert acc.value == pytest.approx(29 / 32) and acc.n == 32 and acc.low < 29 / 32 < acc.high


def test_seed_band_is_the_mean_with_one_standard_error():
    values = np.array([[1.0, np.nan], [3.0, 2.0], [5.0, np.nan]])
    mean, low, high = an.seed_band(values)
    assert mean[0] == 3.0 and high[0] - mean[0] == pytest.approx(2 / np.sqrt(3))
    assert mean[1] == 2.0 and np.isnan(low[1]) and np.isnan(high[1])  # one seed: no band
    np.testing.assert_allclose(mean[0] - low[0], high[0] - mean[0])


def test_the_bootstrap_refit_gives_the_fit_r2():
    steps = np.arange(0, 2001, 125)
    d = 0.05 + 0.8 * np.exp(-2e-3 * steps) + 0.01 * np.random.default_rng(5).standard_normal(len(steps))
    assert an.least_squares_decay(steps, d[None])[1][0] == pytest.approx(an.fit_decay(steps, d).r2, abs=1e-9)
    params, r2, fits = an.least_squares_decay(steps[:3], d[None, :3])
    assert not fits[0] and np.isnan(r2[0]) and np.isnan(params).all()


def test_the_variable_projection_finds_the_least_squares_optimum():
    """All curves at once (decays, a growth, a flat one, NaN read-outs, a peak late in the run) give
    the parameters that curve_fit converges to from there, and no curve_fit start does better."""
    from scipy.optimize import curve_fit

    rng = np.random.default_rng(0)
    steps = np.arange(0, 8001, 400)
    curves = [
        0.1 + 0.7 * np.exp(-5e-4 * steps),
        0.3 + 0.4 * np.exp(-3e-3 * steps),
        0.9 - 0.01 * np.exp(4e-4 * steps),  # bends down faster and faster
        np.full(len(steps), 0.5),
        np.where(steps < 4000, 0.2, 0.8 * np.exp(-1e-3 * (steps - 4000))),  # peak late
    ]
    d = np.array(curves) + 0.01 * rng.standard_normal((len(curves), len(steps)))
    d[1, [3, 7]] = np.nan
    params, r2, fits = an.least_squares_decay(steps, d)
    assert fits.all()
    for row in range(len(curves)):
        t, y, w, _ = an._from_peak(steps, d[row : row + 1])
        use = w[0] > 0
        s, y = t[0][use], y[0][use]
        ss = ((y - an.decay_curve(s, *params[row])) ** 2).sum()
        for start in (params[row], (y[-1], y[0] - y[-1], 3 / s[-1]), (y.mean(), 0.1, 1e-4)):
            try:
                p, _ = curve_fit(an.decay_curve, s, y, p0=start, maxfev=20000)
            except RuntimeError:
                continue
            assert ss <= ((y - an.decay_curve(s, *p)) ** 2).sum() * (1 + 1e-7) + 1e-15
    single = np.array([an.least_squares_decay(steps, d[row : row + 1])[1][0] for row in range(len(curves))])
    np.testing.assert_allclose(single, r2, rtol=1e-12, equal_nan=True)


@pytest.fixture(scope="module")
def stored_cpu_analysis() -> dict[str, dict[float, dict]]:
    """`analyse_set` of two contrasts of the stored CPU set (five seeds each), by read-out."""
    from lib.book.evidence import load

    ev = load("diffusion", "cpu")
    return an.analyse_set({c: [s.arrays for s in ev.where(contrast=c)] for c in (0.2, 0.5)}, ev.config)[2]


# decay_r2 (value, low, high) on the stored CPU set by the previous search of least_squares_decay (commit
# 206de35: `_linear_part` at one grid rate and one golden-section point at a time)
DECAY_R2_BEFORE = {
    (0.2, "segmentation"): (0.8869264099034498, 0.7542242693819387, 0.9826872536798499),
    (0.2, "classifier"): (0.9130598770222866, 0.6562532622379884, 0.9553580317825735),
    (0.5, "segmentation"): (0.8372464491762837, 0.6322181135500018, 0.9890040861934565),
    (0.5, "classifier"): (0.9560381699654915, 0.8147709840289404, 0.9826649475023183),
}


def test_decay_r2_on_the_stored_runs_is_what_the_single_rate_search_gave(stored_cpu_analysis):
    for (contrast, readout), before in DECAY_R2_BEFORE.items():
        r2 = stored_cpu_analysis[readout][contrast]["r2"]
        np.testing.assert_allclose([r2.value, r2.low, r2.high], before, rtol=1e-12)


def test_the_grid_residuals_are_the_linear_part_s(stored_cpu_analysis):
    """`_grid_residuals` (centred sums, one matrix product per group of curves that share their peak and
    read-outs) gives `_linear_part`'s residual sum of squares at every grid rate, on seed resamples of stored
    runs, with a read-out missing in some curves."""
    result = stored_cpu_analysis["segmentation"][0.5]
    unseen, steps = result["traj"][:, :, an.UNSEEN_PROMPT], result["steps"]
    resamples = np.random.default_rng(0).integers(0, len(unseen), (200, len(unseen)))
    distance = an.distance_to_target(an.trajectory(np.moveaxis(unseen[resamples], -3, -2)))
    distance[::7, 5] = np.nan
    t, d, w, fits = an._from_peak(steps, distance)
    assert fits.all() and len(np.unique(np.column_stack([t, w]), axis=0)) > 2
    scale = 1.0 / np.maximum(t.max(1), 1.0)
    dc = an._centred(d, w, np.maximum(w.sum(1), 1.0))
    sdd = (w * dc * dc).sum(1)
    ss = an._grid_residuals(t, scale, w, dc, sdd, an.RATE_GRID)
    with np.errstate(over="ignore", invalid="ignore"):
        single = np.stack([an._linear_part(np.exp(-(g * scale)[:, None] * t), d, w)[2] for g in an.RATE_GRID], 1)
    np.testing.assert_allclose(ss, single, rtol=1e-9, atol=1e-12 * sdd.max())
