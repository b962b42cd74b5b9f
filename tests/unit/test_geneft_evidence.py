"""lib.geneft.evidence: shard functions of the GenEFT grids (shapes, dtypes, determinism, agreement
with the trainer called directly, resumable), the cost model, and no torch at import."""

import subprocess
import sys

import numpy as np
import pytest
from geneft_tiny import TINY_NETWORK

from lib.geneft import evidence as ev
from lib.geneft.evidence import phase_row_seed
from lib.geneft.relations import relation_matrix, split_masks
from lib.geneft.train import train_models

DYN = {
    **TINY_NETWORK,
    "init_scale": 1.0,
    "steps": 60,
    "eval_every": 10,
    "seeds": 2,
    "log10_lr_enc": [-2.0, -1.5],
    "log10_lr_dec": [-2.0, -1.5, -1.0],
}


def test_phase_row_is_the_trainer_on_one_row():
    out = ev.phase_row(DYN, {"relation": "mod3", "row": 1})
    assert out["step_test_90"].shape == (3, 2) and out["step_test_90"].dtype == np.int32
    assert out["embed"].shape == (3, 2, 9, 2) and out["embed"].dtype == np.float32
    lr_dec = np.repeat(10.0 ** np.array(DYN["log10_lr_dec"]), 2)
    ref = train_models(
        relation_matrix("mod3", 9),
        np.repeat(split_masks(9, [0.75], [0]), 6, 0),
        mode="concat",
        depth=1,
        width=8,
        embed_dim=2,
        lr_enc=10**-1.5,
        lr_dec=lr_dec,
        steps=60,
        seeds=[0, 1] * 3,
        eval_every=10,
    )
    np.testing.assert_array_equal(out["step_train_90"].ravel(), ref.step_train_90)
    np.testing.assert_array_equal(out["step_test_90"].ravel(), ref.step_test_90)
    np.testing.assert_allclose(out["test_acc"].ravel(), ref.test_acc, rtol=1e-6)


def test_weight_decay_row_and_ratio_point_shapes_and_determinism():
    cfg8 = {**DYN, "relation": "mod3", "lr_enc": 0.01, "weight_decays": [0.0, 1.0]}
    a = ev.weight_decay_row(cfg8, {"row": 1})
    b = ev.weight_decay_row(cfg8, {"row": 1})
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
    assert a["weight_decay"][0] == 1.0 and a["test_acc"].shape == (3, 2)
    cfg6 = {**DYN, "relation": "mod3", "lr_enc": 0.01, "log10_ratios": [0.0, 1.0], "seeds": 3}
    p = ev.ratio_point(cfg6, {"init_scale": 0.5, "point": 1})
    assert p["test_acc"].shape == (1, 3) and p["ratio"][0] == pytest.approx(10.0)


def test_network_curve_shapes_and_resume(tmp_path):
    cfg = {
        "n": 9,
        "fractions": [0.3, 0.8],
        "seeds": 2,
        "lr": 0.02,
        "init_scale": 1.0,
        "steps": 40,
        "eval_every": 10,
        "patience": None,
        "checkpoint_every": 20,
    }
    shard = {"relation": "greater_than", "mode": "difference", "depth": 0, "width": 1, "embed_dim": 2}
    out = ev.network_curve(cfg, shard, checkpoint=tmp_path)
    assert out["full_acc"].shape == (2, 2) and out["full_acc"].dtype == np.float32
    assert (out["stopped_at"] == 40).all()
    assert (tmp_path / "train.pt").is_file()
    again = ev.network_curve(cfg, shard, checkpoint=tmp_path)  # from the finished checkpoint
    np.testing.assert_array_equal(out["full_acc"], again["full_acc"])


def test_cost_model_scales_with_the_network():
    table3 = ev.model_step_seconds()
    assert 1 / 1500 < table3 < 1 / 500  # Table 3's network: about 900 model-steps/s on one thread
    assert ev.model_step_seconds(width=10, depth=1) < table3 / 5
    assert ev.model_step_seconds(width=100) > 2 * table3
    assert ev.shard_minutes(60, 999) == pytest.approx(60 * 1000 * table3 / 60)


def test_importing_the_module_does_not_import_torch():
    code = "import sys, lib.geneft.evidence; print('torch' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_phase_row_seed_is_one_column_of_phase_row():
    full = ev.phase_row(DYN, {"relation": "mod3", "row": 1})
    one = phase_row_seed(DYN, {"relation": "mod3", "row": 1, "seed": 1})
    assert one["step_test_90"].shape == (3, 1) and one["seeds"].tolist() == [1]
    for key in ("step_train_90", "step_test_90", "stopped_at"):
        np.testing.assert_array_equal(one[key][:, 0], full[key][:, 1])
    np.testing.assert_allclose(one["test_acc"][:, 0], full["test_acc"][:, 1], rtol=1e-6)
    np.testing.assert_allclose(one["embed"][:, 0], full["embed"][:, 1], rtol=1e-5, atol=1e-6)


def test_phase_row_seed_refuses_a_seed_outside_the_set():
    with pytest.raises(ValueError, match="outside"):
        phase_row_seed(DYN, {"relation": "mod3", "row": 0, "seed": 2})


def test_phase_grid_1e5_is_phase_grid_at_the_papers_steps():
    from lib.book.evidence import registry

    short, long = registry.get("geneft_dynamics", "phase_grid"), registry.get("geneft_dynamics", "phase_grid_1e5")
    differ = {k for k in set(short.config) | set(long.config) if short.config.get(k) != long.config.get(k)}
    assert differ == {"steps", "checkpoint_every"} and long.config["steps"] == 100_000
    enc = long.config["log10_lr_enc"]
    assert {(s["relation"], s["row"]) for s in long.shards} == {
        (s["relation"], i) for s in short.shards for i in [s["row"]] if enc[i] <= -3.5
    }
    assert len(long.shards) == 3 * 4 * long.config["seeds"]  # 324 networks of 9 decoder rates
