"""lib.geneft.grid: a tiny phase grid (shapes, Table 4 threshold, pooling) and phases.distance_from."""

import numpy as np
import pytest
from geneft_tiny import TINY_NETWORK, Shard

from lib.geneft import grid, phases
from lib.util.stats import Estimate

NET = {
    **TINY_NETWORK,
    "steps": 60,
}


def test_tiny_grid_shapes_and_pooling():
    E, D = np.meshgrid([1e-2, 3e-2], [1e-2, 1e-1, 1.0], indexing="ij")
    g = grid.train_phase_grid("mod3", E, D, seeds=[0, 1], **NET)
    assert g.phase.shape == (2, 3, 2) and g.embed.shape == (2, 3, 2, 9, 2)
    assert g.threshold == 1 and g.n_test == 81 - 61
    k, t = grid.cell_counts(g)
    np.testing.assert_array_equal(k, g.generalized.sum(-1))
    assert np.all(t == 2)
    assert grid.majority_phase(g).shape == (2, 3)
    again = grid.train_phase_grid("mod3", E, D, seeds=[0, 1], **NET)
    np.testing.assert_array_equal(again.phase, g.phase)


def test_a_grid_given_by_exponents_is_the_grid_of_their_powers():
    by_exponents = grid.train_phase_grid_log10("mod3", [-2.0, -1.0], [-1.0], seeds=[0], **NET)
    E, D = np.meshgrid(10.0 ** np.array([-2.0, -1.0]), 10.0 ** np.array([-1.0]), indexing="ij")
    by_rates = grid.train_phase_grid("mod3", E, D, seeds=[0], **NET)
    assert by_exponents.phase.shape == (2, 1, 1)
    np.testing.assert_array_equal(by_exponents.step_test_90, by_rates.step_test_90)
    np.testing.assert_array_equal(by_exponents.embed, by_rates.embed)


def test_distance_from_an_interval():
    e = Estimate(1.2, 0.9, 1.6, 10, "t")
    d = phases.distance_from(e, 1.0)
    assert d.value == pytest.approx(0.2) and d.low == 0.0 and d.high == pytest.approx(0.6)
    far = phases.distance_from(Estimate(-1.0, -1.5, -0.4, 5, "t"), 0.0)
    assert far.low == pytest.approx(0.4) and far.high == pytest.approx(1.5)


def test_stored_runs_classified_as_the_live_grid():
    E, D = np.meshgrid([1e-2, 3e-2], [1e-2, 1e-1, 1.0], indexing="ij")
    g = grid.train_phase_grid("mod3", E, D, seeds=[0, 1], **NET)
    again = grid.grid_from_runs(
        g.step_train_90, g.step_test_90, g.test_acc, g.embed, n_test=g.n_test, steps=NET["steps"]
    )
    np.testing.assert_array_equal(again.phase, g.phase)
    assert again.threshold == g.threshold and grid.test_pairs(9, 0.75, 0) == g.n_test


def test_shards_stacked_in_key_order_and_cells_looked_up():
    config = {"log10_lr_enc": [-3.0, -2.0], "log10_lr_dec": [-3.0, -2.5, -2.0], "seeds": 3}
    names = ("step_train_90", "step_test_90", "test_acc", "embed")
    arrays = {
        row: {
            k: np.full((3, 3) + ((4, 2) if k == "embed" else ()), 10 * row) + np.arange(3)
            if k != "embed"
            else np.full((3, 3, 4, 2), row)
            for k in names
        }
        for row in (0, 1)
    }
    shards = [Shard({"relation": "mod3", "row": r}, arrays[r]) for r in (1, 0)]
    stacked = grid.stack_seed_shards(shards)  # whole-row shards: every seed of the row in one
    assert stacked["row"].tolist() == [0, 1] and stacked["step_train_90"].shape == (2, 3, 3)
    assert stacked["step_train_90"][1, 0].tolist() == [10, 11, 12]
    cells = grid.lookup_runs(config, shards, [-2.0], [-2.5, -2.0], [2, 0])
    assert cells["step_train_90"].shape == (1, 2, 2) and cells["step_train_90"][0, 0].tolist() == [12, 10]
    assert cells["embed"].shape == (1, 2, 2, 4, 2)
    assert grid.lookup_runs(config, shards, [-2.5], [-2.0], [0]) is None  # no such row
    assert grid.lookup_runs(config, shards, [-2.0], [-2.0], [3]) is None  # no such seed
    assert grid.lookup_runs(config, shards[:1], [-3.0], [-2.0], [0]) is None  # row not stored


def test_evidence_mismatch_names_the_settings():
    config = {**NET, "init_scale": 1.0, "steps": 10_000}
    assert grid.evidence_mismatch(config, {**NET, "init_scale": 1, "steps": 10_000}) == []
    assert grid.evidence_mismatch(config, {**NET, "init_scale": 0.5, "mode": "difference", "steps": 10_000}) == [
        "mode",
        "init_scale",
    ]


def test_cell_counts_can_leave_confusion_out():
    tr = np.array([[[5, -1, 5]]])
    te = np.array([[[6, -1, -1]]])
    g = grid.grid_from_runs(tr, te, np.zeros((1, 1, 3)), np.zeros((1, 1, 3, 2, 1)), n_test=10, steps=100)
    assert [int(v) for v in grid.cell_counts(g)[1].ravel()] == [3]
    k, t = grid.cell_counts(g, exclude_confusion=True)
    assert int(k[0, 0]) == 1 and int(t[0, 0]) == 2


def test_one_seed_shards_stacked_and_rows_replaced():
    names = ("step_train_90", "step_test_90", "test_acc", "embed")

    def shard(row, seed):
        arrays = {k: np.full((3, 1, 4, 2) if k == "embed" else (3, 1), 100 * row + seed) for k in names}
        return Shard({"relation": "mod3", "row": row, "seed": seed}, arrays)

    shards = [shard(r, s) for r in (2, 0) for s in (1, 0)]
    stacked = grid.stack_seed_shards(shards)
    assert stacked["row"].tolist() == [0, 2] and stacked["seed"].tolist() == [0, 1]
    assert stacked["step_train_90"].shape == (2, 3, 2) and stacked["embed"].shape == (2, 3, 2, 4, 2)
    assert stacked["step_train_90"][1, 0].tolist() == [200, 201]
    with pytest.raises(ValueError, match="missing"):
        grid.stack_seed_shards(shards[1:])

    base = grid.grid_from_runs(
        np.full((3, 3, 2), 10),
        np.full((3, 3, 2), -1),
        np.zeros((3, 3, 2)),
        np.zeros((3, 3, 2, 4, 2)),
        n_test=5,
        steps=1000,
    )
    longer = grid.grid_from_runs(
        np.full((2, 3, 2), 10),
        np.full((2, 3, 2), 50),
        np.ones((2, 3, 2)),
        np.ones((2, 3, 2, 4, 2)),
        n_test=5,
        steps=10_000,
    )
    merged = grid.with_rows(base, [0, 2], longer)
    assert (merged.phase[[0, 2]] == phases.GENERALIZATION).all() and (merged.phase[1] == phases.MEMORIZATION).all()
    assert merged.threshold == base.threshold and (base.phase == phases.MEMORIZATION).all()
    with pytest.raises(ValueError):
        grid.with_rows(base, [0], longer)


def test_a_rerun_is_compared_run_by_run_with_its_stored_twin():
    names = ("step_train_90", "step_test_90", "test_acc", "embed")

    def shard(row: int, test_steps: list[int]) -> Shard:
        train = np.full((1, 3), 10)
        return Shard(
            {"relation": "mod3", "row": row},
            dict(zip(names, (train, np.array([test_steps]), np.ones((1, 3)), np.zeros((1, 3, 2, 2))))),
        )

    # threshold 10 (1% of 1000 steps): test at 15 generalizes, at 200 groks, never (-1) memorizes
    stored = [shard(0, [15, 200, -1]), shard(1, [15, 15, 15])]
    rerun = [shard(1, [15, 15, 200]), shard(0, [15, -1, -1])]  # in another order: matched by key
    compared = grid.compare_rerun(stored, rerun, n_test=10, steps=1000)
    assert compared.agree.sum() == 4 and compared.agree.size == 6
    assert compared.changes() == {("generalization", "grokking"): 1, ("grokking", "memorization"): 1}
    assert compared.changed_settings() == {0: 2}  # both changed runs at the first setting of their shard
    assert compared.agreement_text() == (
        "the phases agree in 4 of 6 runs (the others changed phase: from generalization to grokking, 1; "
        "from grokking to memorization, 1)"
    )
    with pytest.raises(KeyError):
        grid.compare_rerun(stored[:1], rerun, n_test=10, steps=1000)


def test_a_rerun_comparison_counts_changes_by_the_setting_of_the_shards_first_axis():
    names = ("step_train_90", "step_test_90", "test_acc", "embed")
    train = np.full((3, 2), 10)  # 3 settings (decoder rates) x 2 seeds

    def shard(test_steps: list[list[int]]) -> Shard:
        arrays = (train, np.array(test_steps), np.ones((3, 2)), np.zeros((3, 2, 2, 2)))
        return Shard({"relation": "mod3", "row": 0}, dict(zip(names, arrays)))

    stored = [shard([[15, 15], [15, 15], [15, -1]])]
    rerun = [shard([[15, 15], [200, 15], [-1, 15]])]
    compared = grid.compare_rerun(stored, rerun, n_test=10, steps=1000)
    assert compared.changed_settings() == {1: 1, 2: 2}
    assert (
        grid.compare_rerun(stored, stored, n_test=10, steps=1000).agreement_text() == "the phases agree in 6 of 6 runs"
    )
