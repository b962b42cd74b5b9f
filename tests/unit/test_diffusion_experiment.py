"""Concept-space analysis (lib/diffusion/experiment.py) on constructed read-outs with known answers."""
import numpy as np

from lib.diffusion.experiment import (analyse, bend_distance, blank_fraction, exponential_fit, first_learned, mse_curve,
                                      pooled, rise_between_descents, scale_table, speed, success_rate, trajectory)


def readout(points, disc=1.0, samples=20):
    """(K, samples, 3) read-out with every sample at the given (colour, size) point."""
    pts = np.asarray(points, float)
    out = np.empty((len(pts), samples, 3))
    out[..., :2] = pts[:, None]
    out[..., 2] = disc
    return out


def test_blanks_are_excluded_and_counted():
    c = readout([[0.9, 0.9]])
    c[0, :10, 2] = 0.1         # ten blank samples ...
    c[0, :10, :2] = 0.0        # ... whose colour/size heads say (red, big)
    traj, _ = trajectory(c)
    np.testing.assert_allclose(traj[0], [0.9, 0.9])
    assert blank_fraction(c)[0] == 0.5 and success_rate(c)[0] == 0.5
    np.testing.assert_allclose(mse_curve(c)[0][0], 0.01)
    c[0, :15, 2] = 0.1         # only five discs left: too few for a point
    assert np.isnan(trajectory(c)[0]).all() and np.isnan(mse_curve(c)[0]).all()


def test_pooled_concatenates_seeds():
    a = np.stack([readout([[0, 0]]), readout([[1, 1]])])
    assert pooled(a).shape == (1, 40, 3)
    np.testing.assert_allclose(trajectory(pooled(a))[0][0], [0.5, 0.5])


def test_rise_between_descents():
    se = np.full(6, 0.01)
    assert rise_between_descents(np.array([0.5, 0.3, 0.2, 0.35, 0.1, 0.05]), se)
    assert not rise_between_descents(np.array([0.5, 0.3, 0.2, 0.15, 0.1, 0.05]), se)
    assert not rise_between_descents(np.array([0.5, 0.3, 0.2, 0.22, 0.1, 0.05]), se)  # rise within noise
    assert not rise_between_descents(np.array([0.5, 0.3, 0.2, 0.35, 0.4, 0.45]), se)  # no second descent


def test_first_learned_and_bend():
    via_red_small = np.array([[0.0, 0.0], [0.1, 0.6], [0.3, 0.9], [0.9, 0.95]])
    assert first_learned(via_red_small) == "size"
    assert first_learned(via_red_small[:, ::-1]) == "colour"
    assert first_learned(np.zeros((3, 2))) == "neither"
    np.testing.assert_allclose(bend_distance(via_red_small, "size"), 0.6 / np.sqrt(2))
    assert bend_distance(via_red_small, "colour") < 0.05


def test_exponential_fit_recovers_rate():
    steps = np.arange(0, 2001, 100)
    r = np.exp(-steps / 500.0)
    traj = np.stack([1 - r, 1 - r], axis=1)
    t, v = speed(traj, steps)
    fit = exponential_fit(t, v)
    assert abs(fit["rate"] - 1 / 500) < 1e-6 and fit["r2"] > 0.999999


def test_scale_table_formats_missing_values():
    table = scale_table({"a": {"order_reversed": True, "speed_fit_r2": 0.123}, "b": {"speed_fit_r2": float("nan")}})
    assert "| true | n/a |" in table and "| 0.12 | n/a |" in table and table.count("\n") == 7


def test_analyse_survives_an_all_blank_sweep():
    k, n = 4, 8
    concepts = np.zeros((1, 1, k, 2, n, 3))                      # [signal, seed, K, prompt, sample, 3]
    sweep = {"eval_steps": np.arange(k) * 10, "colour_signals": [0.3], "config": {
        "size_mean": 0.45, "size_signal": 0.4, "resolution": 8}, "concepts": concepts,
        "train_concepts": np.zeros((1, 1, 3, n, 3))}
    (r,) = analyse(sweep)
    assert np.isnan(r["bend"]) and r["first_learned"] == "neither" and not r["rises"] and r["blank"][-1] == 1
