"""lib/sim/sweeps.py: seed sweeps of the SIM MLPs (turn-back, loss rise, truncation, App. B) and their estimates."""

import numpy as np
import pytest

from lib.sim.models import MLPShape, end_to_end_rms
from lib.sim.sweeps import (
    Protocol,
    block_seeds,
    median_ratio,
    swing_block,
    swing_estimates,
    swing_runs,
    topological_block,
    topological_estimates,
    truncation_effect,
    truncation_pairs,
)

TINY = Protocol(d=3, width=3, depth=2, n=200, lr=0.05, epochs=2, batch=32)


def test_swing_runs_shapes_determinism_and_batch_independence():
    a = swing_runs(TINY, [0, 1, 2], keep=20)
    b = swing_runs(TINY, [0, 1, 2], keep=20)
    np.testing.assert_array_equal(a.turn_back, b.turn_back)
    assert a.turn_back.shape == (3, 2) and a.loss_rise.shape == (3,) and a.outputs.shape[1:] == (3, 2)
    assert len(a.epoch) <= 20 and a.ood.shape == (len(a.epoch), 3)
    assert np.all(a.turn_back >= 0) and np.all(a.loss_rise >= 0) and np.all(a.final_distance >= 0)
    alone = swing_runs(TINY, [1], keep=20)  # a seed gives the same run in any batch
    np.testing.assert_allclose(alone.turn_back[0], a.turn_back[1], atol=1e-5)


def test_estimates_are_intervals_over_seeds():
    rng = np.random.default_rng(0)
    est = swing_estimates(rng.random((12, 2)), rng.random(12) * 0.1, rng.random(12), rise_tol=0.05)
    assert set(est) == {"turn_back", "loss_rise", "rise_fraction", "bulge"}
    for e in est.values():
        assert e.n == 12 and e.low <= e.value <= e.high
    assert est["rise_fraction"].method.startswith("wilson")


def test_median_ratio_interval_contains_the_ratio_and_separates_different_samples():
    rng = np.random.default_rng(1)
    low, high = 2 + rng.random(30), 1 + rng.random(30)
    r = median_ratio(low, high)
    assert r.low <= r.value <= r.high and r.value == pytest.approx(np.median(low) / np.median(high))
    assert r.low > 1  # medians 2.5 vs 1.5
    same = median_ratio(low, low + 0.0)
    assert same.low < 1 < same.high


def test_init_scale_multiplies_the_initialisation():
    shape = MLPShape(4, 5, 3)
    base, small = end_to_end_rms(shape, [0, 1]), end_to_end_rms(shape, [0, 1], 0.5)
    assert small == pytest.approx(base * 0.5**3, rel=1e-5)  # three linear layers, bias left out
    with pytest.raises(ValueError, match="linear"):
        end_to_end_rms(MLPShape(4, 5, 3, "relu"), [0])


def test_truncation_pairs_share_init_and_orthant_moves_the_data():
    p = Protocol(d=3, width=3, depth=2, n=200, lr=0.05, epochs=1, batch=32, sigma=(0.3, 0.3))
    full, cut, dev = truncation_pairs(p, [0, 1], "orthant", keep=10)
    np.testing.assert_allclose(full.outputs[0], cut.outputs[0], atol=1e-6)  # same initialisation
    assert dev.shape == (2,) and np.all(dev > 0)
    ref = swing_runs(p, [0, 1], keep=10)
    np.testing.assert_allclose(full.turn_back, ref.turn_back, atol=1e-5)
    eff = truncation_effect(full.turn_back, cut.turn_back, full.loss_rise, cut.loss_rise, dev)
    assert eff["max_deviation"].n == 2 and eff["turn_back_change"].n == 2


def test_shards_are_deterministic_and_compact():
    config = {"protocols": {"tiny": TINY.as_dict()}, "seeds_per_block": 2, "seed": 0, "keep": 10}
    shard = {"protocol": "tiny", "init_scale": 0.5, "truncation": "none", "block": 1}
    a, b = swing_block(config, shard), swing_block(config, shard)
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    np.testing.assert_array_equal(a["seeds"], block_seeds(0, 1, 2))
    assert a["turn_back"].dtype == np.float32
    cut = swing_block(config, {**shard, "truncation": "radius"})
    assert {"cut_turn_back", "max_deviation"} <= set(cut)
    topo = {
        "protocol": Protocol(
            mu=(1.0, 2.0, 3.0),
            sigma=(0.5, 0.5, 0.5),
            d=4,
            width=6,
            depth=2,
            activation="relu",
            n=100,
            epochs=1,
            batch=50,
        ).as_dict(),
        "snapshots": [0.5, 1.0],
        "learned": 0.1,
        "seeds_per_block": 2,
        "seed": 0,
    }
    out = topological_block(topo, {"sigma_is_variance": 1, "block": 0})
    assert out["snapshot_violation"].shape == (2, 2)
    est = topological_estimates(out["snapshot_violation"], out["order_violations"], tol=0.05)
    assert 0 <= est["visible_fraction"].value <= 1


def test_protocol_refuses_unknown_truncation():
    with pytest.raises(ValueError, match="truncation"):
        Protocol(truncation="square")


def test_the_twins_distance_and_the_swing_are_compared_in_one_unit():
    """The distance is stored over ||mu|| and the turn-back over mu_k: both go back to the output's unit first."""
    from lib.sim.sweeps import distance_over_swing

    mu = [1.0, 2.0]
    deviation = np.full(9, 0.2 / np.sqrt(5.0))  # 0.2 in the output's unit
    turn_back = np.tile([0.1, 0.01], (9, 1))  # concept 1 falls back 0.1 mu_1 = 0.1, concept 2 0.02
    ratio = distance_over_swing(deviation, turn_back, mu)
    assert ratio.value == pytest.approx(2.0) and ratio.n == 9
