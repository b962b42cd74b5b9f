"""lib.geneft.train: batched AdamW against torch.optim.AdamW, early stopping, checkpoint resume."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from lib.geneft import train as train_mod
from lib.geneft.network import init_stack, logits
from lib.geneft.relations import relation_matrix, split_masks
from lib.geneft.train import train_models

N = 9
R = relation_matrix("mod3", N)
KW = {"mode": "concat", "depth": 2, "width": 8, "embed_dim": 2, "init_scale": 1.0}


def _torch_adamw(mask, seed, lr_enc, lr_dec, wd, steps):
    """One model trained with torch.optim.AdamW (encoder and decoder parameter groups)."""
    stack = init_stack([seed], N, **KW)
    opt = torch.optim.AdamW(
        [
            {"params": stack.encoder, "lr": lr_enc, "weight_decay": 0.0},
            {"params": stack.decoder, "lr": lr_dec, "weight_decay": wd},
        ]
    )
    y = torch.tensor(R.reshape(1, -1), dtype=torch.float32)
    tr = torch.tensor(mask.reshape(1, -1))
    for _ in range(steps):
        opt.zero_grad()
        z = logits(stack, KW["mode"])
        (F.binary_cross_entropy_with_logits(z, y, reduction="none") * tr).sum().div(tr.sum()).backward()
        opt.step()
    return stack.embed.detach()[0].numpy()


def test_batched_adamw_matches_torch_adamw_per_model():
    masks = split_masks(N, [0.75], [0, 1])
    lr_enc, lr_dec, wd = np.array([1e-2, 3e-3]), np.array([2e-3, 5e-2]), np.array([0.0, 0.5])
    res = train_models(
        R, masks, **KW, lr_enc=lr_enc, lr_dec=lr_dec, weight_decay_dec=wd, steps=30, seeds=[4, 5], early_stop=False
    )
    for m in range(2):
        ref = _torch_adamw(masks[m], [4, 5][m], lr_enc[m], lr_dec[m], wd[m], 30)
        np.testing.assert_allclose(res.embed[m], ref, rtol=1e-4, atol=1e-5)


def test_first_hit_steps_and_phase_bookkeeping():
    masks = split_masks(N, [0.75], [0, 1, 2])
    res = train_models(R, masks, **KW, lr_enc=0.05, lr_dec=0.05, steps=400, seeds=[0, 1, 2], eval_every=10)
    h = res.history
    for m in range(3):
        if res.step_train_90[m] >= 0:  # the recorded step is the first evaluation above 0.9
            col = res.step_train_90[m] // 10
            assert np.all(h["train_acc"][m, :col][~np.isnan(h["train_acc"][m, :col])] <= 0.9)
        decided = res.step_train_90[m] >= 0 and res.step_test_90[m] >= 0
        assert res.stopped_at[m] == (max(res.step_train_90[m], res.step_test_90[m]) if decided else 400)


def test_a_model_in_a_batch_trains_as_alone_and_early_stop_keeps_outcomes():
    masks = split_masks(N, [0.75], [0, 1, 2])
    lr = np.array([0.05, 1e-3, 0.02])
    common = dict(**KW, lr_enc=lr, lr_dec=0.01, steps=150, seeds=[7, 8, 9], eval_every=50)
    full = train_models(R, masks, **common, early_stop=False)
    stop = train_models(R, masks, **common, early_stop=True)
    np.testing.assert_array_equal(full.step_train_90, stop.step_train_90)
    np.testing.assert_array_equal(full.step_test_90, stop.step_test_90)
    alone = train_models(R, masks[1:2], **{**common, "lr_enc": lr[1], "seeds": [8]}, early_stop=False)
    np.testing.assert_allclose(alone.test_acc, full.test_acc[1:2])
    np.testing.assert_allclose(alone.history["train_loss"][0], full.history["train_loss"][1], rtol=1e-4)


def test_checkpoint_resume_reproduces_the_run(tmp_path, monkeypatch):
    masks = split_masks(N, [0.75], [0, 1])
    common = dict(**KW, lr_enc=0.01, lr_dec=0.01, steps=60, seeds=[0, 1], eval_every=10, early_stop=False)
    ref = train_models(R, masks, **common)
    ckpt = tmp_path / "grid.pt"
    saves = []
    real_save = train_mod.atomic_save

    def interrupted_save(path, fn):  # saves at steps 25 and 50, then the run is "killed"
        if len(saves) == 2:
            raise KeyboardInterrupt
        saves.append(path)
        real_save(path, fn)

    monkeypatch.setattr(train_mod, "atomic_save", interrupted_save)
    with pytest.raises(KeyboardInterrupt):
        train_models(R, masks, **common, checkpoint=ckpt, checkpoint_every=25)
    monkeypatch.setattr(train_mod, "atomic_save", real_save)
    assert torch.load(ckpt, weights_only=True)["state"]["step"] == 50
    resumed = train_models(R, masks, **common, checkpoint=ckpt, checkpoint_every=25)  # resumes at step 50
    np.testing.assert_allclose(resumed.history["train_loss"], ref.history["train_loss"], rtol=1e-6)
    assert torch.load(ckpt, weights_only=True)["state"]["step"] == 60  # the finished grid is saved too


def test_invalid_inputs_fail_clearly():
    masks = split_masks(N, [0.5], [0])
    with pytest.raises(ValueError, match="lr_enc"):
        train_models(R, masks, **KW, lr_enc=-1.0, steps=5)
    with pytest.raises(ValueError, match="labels"):
        train_models(R[:3], masks, **KW, steps=5)


@pytest.mark.slow(8)
def test_plateau_patience_stops_decided_models():
    """A model leaves once it fits its training pairs and its full accuracy is flat for k evaluations;
    its result equals that of the same model trained to the end whenever the outcome was truly flat."""
    masks = split_masks(N, [0.5, 0.75], [0, 1])
    kw = dict(**KW, lr_enc=1e-2, lr_dec=1e-2, steps=600, seeds=[1, 2, 3, 4], early_stop=False, eval_every=20)
    full = train_models(R, masks, **kw)
    stopped = train_models(R, masks, **kw, plateau_patience=5)
    early = stopped.stopped_at < 600
    assert early.any()
    assert (stopped.train_acc[early] == 1.0).all()
    for m in np.flatnonzero(early):
        hist = stopped.history["train_acc"][m]
        assert np.isnan(hist[stopped.stopped_at[m] // 20 + 1 :]).all()
    # outcomes decided early agree with the full run for most models (a late change is possible: grokking)
    assert np.mean(np.abs(stopped.full_acc - full.full_acc) < 0.05) >= 0.75


def test_mixed_fractions_in_chunks_train_as_alone(monkeypatch):
    """Models of several training fractions, sorted and split into chunks of two: each model's
    run equals its run alone (the chunk's rows beyond a model's training pairs carry no gradient)."""
    masks = split_masks(N, [0.3, 0.9, 0.6], [0, 1])
    common = dict(**KW, lr_enc=0.02, lr_dec=0.01, steps=40, eval_every=10, early_stop=False)
    monkeypatch.setattr(train_mod, "CHUNK_ACTIVATIONS", 2 * N * N * KW["width"])
    grid = train_models(R, masks, **common, seeds=np.arange(6))
    for m in (0, 3, 4):
        alone = train_models(R, masks[m : m + 1], **common, seeds=[m])
        np.testing.assert_allclose(alone.history["train_loss"][0], grid.history["train_loss"][m], rtol=1e-5)
        np.testing.assert_allclose(alone.embed[0], grid.embed[m], rtol=1e-4, atol=1e-6)


def test_same_inputs_give_the_same_numbers():
    masks = split_masks(N, [0.5, 0.75], [0, 1])
    kw = dict(**KW, lr_enc=0.03, lr_dec=0.01, steps=50, seeds=[0, 1, 2, 3], eval_every=10)
    a, b = train_models(R, masks, **kw), train_models(R, masks, **kw)
    np.testing.assert_array_equal(a.embed, b.embed)
    np.testing.assert_array_equal(a.history["train_loss"], b.history["train_loss"])


def test_checkpoint_of_other_inputs_or_unreadable_is_recomputed(tmp_path):
    """The key holds every input: a saved grid of other inputs is not reused; a truncated file is
    recomputed, never trusted."""
    masks = split_masks(N, [0.75], [0])
    common = dict(**KW, lr_enc=0.01, lr_dec=0.01, steps=20, seeds=[0], eval_every=10, early_stop=False)
    ckpt = tmp_path / "grid.pt"
    ref = train_models(R, masks, **common, checkpoint=ckpt)
    saved = torch.load(ckpt, weights_only=True)
    saved["state"]["hist"][2, 0, 0] = -7.0  # a loss at step 0 that the current code would never produce
    torch.save(saved, ckpt)
    loss0 = lambda: train_models(R, masks, **common, checkpoint=ckpt).history["train_loss"][0, 0]
    assert loss0() == -7.0  # same inputs: reused
    other = train_models(R, masks, **{**common, "lr_dec": 0.02}, checkpoint=ckpt).history["train_loss"][0, 0]
    assert other == ref.history["train_loss"][0, 0]  # step 0 does not depend on the rate: recomputed, not -7
    ckpt.write_bytes(ckpt.read_bytes()[:100])
    assert loss0() == ref.history["train_loss"][0, 0]


def test_testing_every_k_steps_has_resolution_k():
    """With test_every = k the train crossings stay exact and a test crossing is the first tested
    step above 0.9: at most k - 1 steps after the exact one."""
    masks = split_masks(N, [0.75], [0, 1, 2, 3])
    kw = dict(
        **KW, lr_enc=np.array([0.05, 0.03, 0.02, 0.05]), lr_dec=0.02, steps=300, seeds=[0, 1, 2, 3], eval_every=50
    )
    exact = train_models(R, masks, **kw)
    coarse = train_models(R, masks, **kw, test_every=7)
    np.testing.assert_array_equal(coarse.step_train_90, exact.step_train_90)
    hit = exact.step_test_90 >= 0
    assert hit.any()
    assert (coarse.step_test_90[hit] >= exact.step_test_90[hit]).all()
    assert (coarse.step_test_90[hit] <= exact.step_test_90[hit] + 6).all()
    assert ((coarse.step_test_90[hit] % 7 == 0) | (coarse.step_test_90[hit] % 50 == 0)).all()
