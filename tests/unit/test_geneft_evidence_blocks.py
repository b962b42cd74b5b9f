"""lib.geneft.evidence.ratio_point_block and ratio_point_gd_block: Fig. 6 in seed blocks (the blocks are the full point's columns), their stacking
(lib.geneft.grid.stack_block_shards), the points read from them (ratio_points), and the declarations of the sets at the paper's setting (issue 34)."""

import numpy as np
import pytest
from geneft_tiny import TINY_NETWORK, Shard

from lib.book.evidence import registry
from lib.geneft import evidence as ev
from lib.geneft import grid as phase_grid
from lib.geneft.evidence import ratio_point_block, ratio_point_gd_block

CONFIG = {
    **TINY_NETWORK,
    "steps": 40,
    "eval_every": 10,
    "seeds": 4,
    "seeds_per_shard": 2,
    "relation": "mod3",
    "lr_enc": 1e-2,
    "log10_ratios": [0.0, 1.0],
    "decoder_init": "normal",
}


def test_blocks_are_the_columns_of_the_whole_point():
    whole = ev.ratio_point(CONFIG, {"init_scale": 0.5, "point": 1})
    blocks = [ratio_point_block(CONFIG, {"init_scale": 0.5, "point": 1, "block": b}) for b in (0, 1)]
    assert [b["seeds"].tolist() for b in blocks] == [[0, 1], [2, 3]]
    for key in ("step_train_90", "step_test_90", "stopped_at"):
        np.testing.assert_array_equal(np.concatenate([b[key] for b in blocks], axis=1), whole[key])
    np.testing.assert_allclose(
        np.concatenate([b["embed"] for b in blocks], axis=1), whole["embed"], rtol=1e-5, atol=1e-6
    )
    stacked = phase_grid.stack_block_shards(
        [Shard({"point": p, "block": b}, blocks[b]) for p in (0, 1) for b in (1, 0)]
    )
    assert stacked["point"].tolist() == [0, 1] and stacked["step_test_90"].shape == (2, 4)
    np.testing.assert_array_equal(stacked["step_test_90"][1], whole["step_test_90"][0])


def test_gradient_descent_blocks_are_the_columns_of_the_whole_point():
    config = {**CONFIG, "lr_dec": 0.5}
    whole = ev.ratio_point_gd(config, {"init_scale": 1.0, "point": 1})
    blocks = [ratio_point_gd_block(config, {"init_scale": 1.0, "point": 1, "block": b}) for b in (0, 1)]
    assert [b["seeds"].tolist() for b in blocks] == [[0, 1], [2, 3]]
    for key in ("step_train_90", "step_test_90", "stopped_at"):
        np.testing.assert_array_equal(np.concatenate([b[key] for b in blocks], axis=1), whole[key])
    uniform = ev.ratio_point_gd({**config, "decoder_init": "uniform"}, {"init_scale": 1.0, "point": 1})
    assert not np.array_equal(uniform["embed"], whole["embed"])  # the decoder_init reaches the trainer


def test_ratio_points_classify_the_stacked_blocks_at_their_ratios():
    blocks = {
        (p, b): ratio_point_block(CONFIG, {"init_scale": 0.5, "point": p, "block": b}) for p in (0, 1) for b in (0, 1)
    }
    grid, ratios = phase_grid.ratio_points(
        [Shard({"point": p, "block": b}, a) for (p, b), a in blocks.items()], CONFIG, 0.01
    )
    np.testing.assert_allclose(ratios, [1.0, 10.0])
    assert grid.phase.shape == (2, 4)
    stacked = phase_grid.stack_block_shards([Shard({"point": p, "block": b}, a) for (p, b), a in blocks.items()])
    expected = phase_grid.grid_from_runs(
        stacked["step_train_90"],
        stacked["step_test_90"],
        stacked["test_acc"],
        stacked["embed"],
        n_test=phase_grid.test_pairs(CONFIG["n"], CONFIG["train_fraction"], CONFIG["split_seed"]),
        steps=CONFIG["steps"],
    )
    np.testing.assert_array_equal(grid.phase, expected.phase)


def test_whole_point_shards_read_as_points_of_one_block():
    """The 1e4-step sets store one shard per point with every seed (no "block" key): `ratio_points` reads them."""
    wholes = {p: ev.ratio_point(CONFIG, {"init_scale": 0.5, "point": p}) for p in (1, 0)}
    grid, ratios = phase_grid.ratio_points([Shard({"point": p}, a) for p, a in wholes.items()], CONFIG, 0.01)
    np.testing.assert_allclose(ratios, [1.0, 10.0])
    stacked = phase_grid.stack_block_shards([Shard({"point": p}, a) for p, a in wholes.items()])
    np.testing.assert_array_equal(
        stacked["step_test_90"], np.concatenate([wholes[0]["step_test_90"], wholes[1]["step_test_90"]])
    )
    assert grid.phase.shape == (2, 4)


def test_blocks_outside_the_set_or_uneven_fail():
    with pytest.raises(ValueError, match="outside"):
        ratio_point_block(CONFIG, {"init_scale": 1.0, "point": 0, "block": 2})
    with pytest.raises(ValueError, match="multiple"):
        ratio_point_block({**CONFIG, "seeds_per_shard": 3}, {"init_scale": 1.0, "point": 0, "block": 0})
    with pytest.raises(ValueError, match="missing"):
        phase_grid.stack_block_shards([Shard({"point": 0, "block": 0}, {}), Shard({"point": 1, "block": 1}, {})])


def _differ(a, b) -> set[str]:
    return {k for k in set(a.config) | set(b.config) if a.config.get(k) != b.config.get(k)}


def test_the_paper_setting_sets_change_only_what_they_declare():
    get = lambda name: registry.get("geneft_dynamics", name)
    normal, short = get("ratio_seeds_1e5_normal"), get("ratio_seeds")
    assert _differ(normal, short) == {"steps", "checkpoint_every", "seeds_per_shard", "decoder_init"}
    assert normal.config["steps"] == 100_000 and normal.config["decoder_init"] == "normal"
    assert {(s["init_scale"], s["point"]) for s in normal.shards} == {
        (s["init_scale"], s["point"]) for s in short.shards
    }
    assert len(normal.shards) == len(short.shards) * normal.config["seeds"] // normal.config["seeds_per_shard"]
    gd_normal, gd_short = get("ratio_seeds_gd_1e5_normal"), get("ratio_seeds_gd")
    assert _differ(gd_normal, gd_short) == {"steps", "seeds_per_shard", "decoder_init"}
    assert gd_normal.config["steps"] == 100_000 and gd_normal.config["decoder_init"] == "normal"
    assert (
        len(gd_normal.shards) == len(gd_short.shards) * gd_normal.config["seeds"] // gd_normal.config["seeds_per_shard"]
    )
    coupled, decoupled = get("weight_decay_1e5_coupled"), get("weight_decay_1e5")
    assert _differ(coupled, decoupled) == {"decay_form"} and coupled.config["decay_form"] == "coupled"
    assert coupled.shards == decoupled.shards
    for old in (short, gd_short, decoupled):  # the stored sets keep their configuration (and so their hash)
        assert "decoder_init" not in old.config and "decay_form" not in old.config
