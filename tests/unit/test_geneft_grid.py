"""lib.geneft.grid: a tiny phase grid (shapes, Table 4 threshold, pooling) and phases.distance_from."""
import numpy as np
import pytest

from lib.geneft import grid, phases
from lib.stats import Estimate

NET = {"n": 9, "train_fraction": 0.75, "split_seed": 0, "mode": "concat", "depth": 1, "width": 8, "embed_dim": 2, "steps": 60}


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


def test_distance_from_an_interval():
    e = Estimate(1.2, 0.9, 1.6, 10, "t")
    d = phases.distance_from(e, 1.0)
    assert d.value == pytest.approx(0.2) and d.low == 0.0 and d.high == pytest.approx(0.6)
    far = phases.distance_from(Estimate(-1.0, -1.5, -0.4, 5, "t"), 0.0)
    assert far.low == pytest.approx(0.4) and far.high == pytest.approx(1.5)
