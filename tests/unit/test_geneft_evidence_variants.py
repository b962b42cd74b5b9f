"""lib.geneft.evidence: Fig. 6 by gradient descent and Fig. 5 rows without the early stop."""

import numpy as np
from geneft_tiny import TINY_NETWORK

from lib.geneft.evidence import phase_row, phase_row_to_end, ratio_point_gd

NET = {
    **TINY_NETWORK,
    "steps": 200,
    "eval_every": 50,
    "seeds": 2,
}


def test_phase_row_to_end_continues_the_early_stopped_runs():
    config = {**NET, "init_scale": 1.0, "test_every": 1, "log10_lr_enc": [-1.5], "log10_lr_dec": [-2.0, -1.0]}
    shard = {"relation": "mod3", "row": 0}
    early, full = phase_row(config, shard), phase_row_to_end(config, shard)
    assert full["embed"].shape == early["embed"].shape == (2, 2, 9, 2)
    assert (full["stopped_at"] == 200).all()
    np.testing.assert_array_equal(full["step_train_90"], early["step_train_90"])
    np.testing.assert_array_equal(full["step_test_90"], early["step_test_90"])
    assert np.allclose(full["lr_dec"], [0.01, 0.1])


def test_ratio_point_gd_shapes_and_rates():
    config = {**NET, "relation": "mod3", "lr_dec": 0.5, "log10_ratios": [0.0, 1.0]}
    out = ratio_point_gd(config, {"init_scale": 2.0, "point": 1})
    assert out["step_train_90"].shape == (1, 2) and out["embed"].shape == (1, 2, 9, 2)
    assert np.allclose(out["ratio"], [10.0]) and out["seeds"].tolist() == [0, 1]
