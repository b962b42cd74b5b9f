"""Helpers moved out of the chapters into lib: data sets and shapes by name, evidence cells, sweeps, plots."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from lib.geneft.statics import decoder_label
from lib.sim import metrics as M
from lib.sim.observations import (
    SWING_ARRAYS,
    concept_test_point,
    mlp_shape,
    sim_datasets,
    swing_cell,
    train_concept_runs,
)
from lib.sim.train import train_datasets
from lib.theory import stage_checks as sc
from lib.theory import two_layer as tl
from lib.theory.two_layer_sweeps import (
    detour_stage_flags,
    flow_failure,
    fraction_at_least,
    most_descents,
    nonmonotone_flags,
    sgd_failure,
    training_loss_flags,
)
from lib.util.plotting import shade_stages, training_fraction_axis


class FakeEvidence:
    """An evidence set whose `concat` returns the named array of one cell."""

    def __init__(self, arrays):
        self.arrays, self.calls = arrays, []

    def concat(self, name, **cell):
        self.calls.append((name, cell))
        return self.arrays[name]


def test_sim_datasets_one_per_setting_and_seed_and_the_test_point_in_concepts():
    data = sim_datasets(
        [[1.0, 2.0], [2.0, 4.0]],
        [[0.05, 0.05]] * 2,
        4,
        [0, 1],
        n=8,
        sigma_is_variance=False,
        origin_cluster=False,
        rotate=True,
    )
    assert len(data) == 4
    np.testing.assert_allclose(concept_test_point(data[0])[:2], [1.0, 2.0], atol=1e-12)
    np.testing.assert_allclose(concept_test_point(data[2])[:2], [2.0, 4.0], atol=1e-12)


def test_mlp_shape_by_name():
    shape = mlp_shape("4-relu", 64, 16, False)
    assert (shape.d, shape.width, shape.depth, shape.activation, shape.bias) == (64, 16, 4, "relu", False)


def test_concept_runs_keep_the_concept_plane_and_the_ood_loss_of_the_batched_run():
    options = dict(n=16, sigma_is_variance=False, origin_cluster=True, rotate=True)
    data = sim_datasets([[1.0, 2.0]], [[0.05, 0.05]], 4, [0, 1], **options)
    sgd = dict(lr=0.1, epochs=2.0, batch=8, loss="mse", stop_tol=None)
    runs = train_concept_runs(
        mlp_shape("2-linear", 4, 3, True), [[1.0, 2.0]], [[0.05, 0.05]], [0, 1], [5, 6], data=options, **sgd
    )
    traj, y = train_datasets(mlp_shape("2-linear", 4, 3, True), data, [5, 6], **sgd)
    assert runs.plane.shape == (len(y), 2, 2) and runs.steps_per_epoch == traj.steps_per_epoch
    np.testing.assert_array_equal(runs.plane, y[:, :, 0, :2])
    for i, ds in enumerate(data):
        np.testing.assert_array_equal(runs.ood_loss[:, i], M.ood_loss(y[:, i, 0], concept_test_point(ds)))
        assert M.slowdown_ratio(runs.distance[:, i]) == M.terminal_slowdown(y[:, i, 0], concept_test_point(ds)) or (
            np.isnan(M.terminal_slowdown(y[:, i, 0], concept_test_point(ds)))
        )


def test_swing_cell_reads_every_array_of_one_cell_with_its_prefix():
    ev = FakeEvidence({f"cut_{k}": np.arange(3) for k in SWING_ARRAYS})
    cell = swing_cell(ev, "high", 1.0, "radius", prefix="cut_")
    assert set(cell) == set(SWING_ARRAYS)
    assert ev.calls[0] == ("cut_turn_back", {"protocol": "high", "init_scale": 1.0, "truncation": "radius"})


def test_fraction_at_least_pools_a_cell():
    ev = FakeEvidence({"descents": np.array([1, 2, 3, 3])})
    estimate = fraction_at_least(ev, "descents", 3, experiment="triple")
    assert estimate.value == 0.5 and estimate.n == 4 and estimate.low < 0.5 < estimate.high


def test_nonmonotone_flags_one_flag_per_seed():
    flags = nonmonotone_flags(
        mu=[1.0, 2.0],
        sigma=[0.05, 0.05],
        d=2,
        width=None,
        scale=0.01,
        kind="gaussian",
        n=5,
        horizon=20.0,
        n_times=50,
        tol=0.01,
        power=1,
        seed=0,
    )
    assert flags.shape == (5,) and flags.dtype == bool


def test_plot_helpers_and_labels():
    fig, ax = plt.subplots()
    training_fraction_axis(ax)
    shade_stages(ax, [("growth", "g", 0.0, 1.0), ("suppression", "s", 1.0, 2.0)])
    assert ax.get_xscale() == "log" and len(ax.patches) == 2
    plt.close(fig)
    assert decoder_label({"width": 10, "embed_dim": 4}) == "w 10, d 4"


def test_detour_stage_flags_are_those_of_the_whole_ensemble():
    mu, sigma = [1.0, 2.0], [0.05, 0.05]
    whole = tl.ensemble(mu, sigma, 3, 3, 0.05, "gaussian", 12, 60.0, 80, 0.01, 1, 4)
    flags = detour_stage_flags(
        mu=mu, sigma=sigma, d=3, width=3, scale=0.05, kind="gaussian", n=12, horizon=60.0, n_times=80, tol=0.01,
        power=1, seed=4,
    )  # fmt: skip
    np.testing.assert_array_equal(flags, tl.cluster_detours(whole["w"], mu)["different_stages"])


def test_training_loss_flags_are_the_flags_of_the_training_curves():
    mu, sigma = [1.0, 2.0], [0.05, 0.05]
    u0 = tl.init_u(6, 2, 2, 0.05, seed=0)
    for batch in (None, 8):
        curves = tl.training_curves(u0, mu, sigma, 100, 0.05, 200, 4, batch, 0)
        flags = training_loss_flags(
            u0=u0, mu=mu, sigma=sigma, n_per_cluster=100, lr=0.05, steps=200, record_every=4, batch=batch, seed=0,
            tol=0.01,
        )  # fmt: skip
        train_bump = tl.descents_batch(curves["train"], 0.01 * curves["train"][0].mean())[1]
        ood_bump = tl.descents_batch(curves["ood"], 0.01 * curves["ood"][0].mean())[1]
        np.testing.assert_array_equal(flags["train_monotone"], train_bump == 0)
        np.testing.assert_array_equal(flags["ood_nonmonotone"], ood_bump > 0)


def test_most_descents_is_the_best_seed_of_the_ensemble():
    mu, sigma = [1.0, 1.5, 2.2], [0.05] * 3
    whole = tl.ensemble(mu, sigma, 3, 3, 0.2, "uniform", 10, 200.0, 100, 0.01, 1, 2)
    best = most_descents(
        mu=mu, sigma=sigma, d=3, scale=0.2, kind="uniform", n=10, horizon=200.0, n_times=100, tol=0.01, power=1, seed=2
    )
    i = int(whole["descents"].argmax())
    assert best["descents"] == whole["descents"][i]
    np.testing.assert_array_equal(best["loss"], whole["loss"][:, i])
    np.testing.assert_array_equal(best["times"], whole["times"])
    floor = sc.init_entry_scale("uniform", 0.2, 3)
    assert best["stages"] == tl.stages(whole["w"][:, i], whole["a"], 3, whole["times"], floor)


def test_sgd_failure_summarises_the_sgd_run():
    mu, sigma = [0.7, 1.7, 3.0], [0.05] * 3
    u0 = tl.init_u(4, 3, 3, 0.05, "gaussian", 3)
    tau, w = tl.train_u(u0, mu, sigma, 100, 0.05, 100, record_every=5, batch=8, seed=3)
    summary = sgd_failure(
        n=4, d=3, width=3, scale=0.05, kind="gaussian", mu=mu, sigma=sigma, n_per_cluster=100, lr=0.05, steps=100,
        record_every=5, batch=8, seed=3,
    )  # fmt: skip
    expected = tl.failure_summary(w, tau, mu)
    assert summary.keys() == expected.keys()
    for key, value in expected.items():
        np.testing.assert_array_equal(summary[key], value)


def test_flow_failure_summarises_the_ensemble_and_keeps_the_longest_plateau():
    mu, sigma = [0.7, 1.7, 3.0], [0.05] * 3
    whole = tl.ensemble(mu, sigma, 3, 3, 0.05, "gaussian", 40, 400.0, 120, 0.01, 1, 3)
    expected = tl.failure_summary(whole["w"], whole["times"], mu)
    failure = flow_failure(
        mu=mu,
        sigma=sigma,
        d=3,
        scale=0.05,
        kind="gaussian",
        n=40,
        horizon=400.0,
        n_times=120,
        tol=0.01,
        power=1,
        seed=3,
    )
    for key, value in expected.items():
        np.testing.assert_array_equal(failure["summary"][key], value)
    plateau, escape = expected["plateau"], expected["escape"]
    assert plateau.any()  # the figure's seed is chosen among the plateau seeds
    i = int(np.flatnonzero(plateau)[np.argmax(escape[plateau])])
    assert failure["longest_plateau"] == i
    np.testing.assert_array_equal(failure["times"], whole["times"])
    np.testing.assert_array_equal(failure["diagonal"], np.stack([whole["w"][:, i, k, k] for k in range(3)], -1))
    np.testing.assert_array_equal(failure["loss"], whole["loss"][:, i])
