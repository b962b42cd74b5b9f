"""lib.geneft.evidence: one-seed shards of the Fig. 8 weight-decay rows."""

import numpy as np
import pytest
from geneft_tiny import TINY_NETWORK, Shard

from lib.geneft.evidence import weight_decay_row, weight_decay_row_seed

CONFIG = {
    **TINY_NETWORK,
    "init_scale": 1.0,
    "steps": 60,
    "eval_every": 20,
    "test_every": 1,
    "seeds": 2,
    "relation": "mod3",
    "lr_enc": 1e-2,
    "log10_lr_dec": [-2.0, -1.0],
    "weight_decays": [0.0, 1.0],
}


def test_one_seed_shard_is_the_row_at_that_seed():
    whole = weight_decay_row(CONFIG, {"row": 1})
    one = weight_decay_row_seed(CONFIG, {"row": 1, "seed": 1})
    assert one["step_train_90"].shape == (2, 1) and one["seeds"].tolist() == [1]
    np.testing.assert_array_equal(one["step_train_90"][:, 0], whole["step_train_90"][:, 1])
    np.testing.assert_allclose(one["embed"][:, 0], whole["embed"][:, 1], atol=1e-5)
    assert one["weight_decay"].tolist() == [1.0]
    with pytest.raises(ValueError):
        weight_decay_row_seed(CONFIG, {"row": 0, "seed": 2})


def test_relation_shard_is_the_one_seed_shard_of_that_relation():
    from lib.geneft.evidence import weight_decay_relation_row_seed

    rest = {k: v for k, v in CONFIG.items() if k != "relation"}
    shard = weight_decay_relation_row_seed(rest, {"relation": "bipartite", "row": 1, "seed": 0})
    direct = weight_decay_row_seed({**rest, "relation": "bipartite"}, {"row": 1, "seed": 0})
    np.testing.assert_array_equal(shard["step_train_90"], direct["step_train_90"])
    with pytest.raises(ValueError, match="shard's"):
        weight_decay_relation_row_seed(CONFIG, {"relation": "bipartite", "row": 1, "seed": 0})


def test_the_scan_reads_the_same_grid_from_whole_rows_and_from_one_seed_shards():
    from lib.geneft import grid as phase_grid

    rows = {r: weight_decay_row(CONFIG, {"row": r}) for r in (1, 0)}
    seeds = {(r, s): weight_decay_row_seed(CONFIG, {"row": r, "seed": s}) for r in (0, 1) for s in (1, 0)}
    whole, rows_whole = phase_grid.row_grid([Shard({"row": r}, a) for r, a in rows.items()], CONFIG, 0.01)
    split, rows_split = phase_grid.row_grid(
        [Shard({"row": r, "seed": s}, a) for (r, s), a in seeds.items()], CONFIG, 0.01
    )
    assert rows_whole.tolist() == rows_split.tolist() == [0, 1]
    assert whole.phase.shape == (2, 2, 2)  # (weight decays, decoder rates, seeds)
    np.testing.assert_array_equal(whole.phase, split.phase)
    np.testing.assert_array_equal(
        whole.phase[1],
        phase_grid.grid_from_runs(
            *(rows[1][k] for k in ("step_train_90", "step_test_90", "test_acc", "embed")),
            n_test=phase_grid.test_pairs(CONFIG["n"], CONFIG["train_fraction"], CONFIG["split_seed"]),
            steps=CONFIG["steps"],
            threshold_fraction=0.01,
        ).phase,
    )
