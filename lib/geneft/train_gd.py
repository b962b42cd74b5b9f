"""Train a grid of GenEFT networks with plain full-batch gradient descent, the dynamics of eq. (12).

Theorem 3 and eq. (12) integrate the gradient flow of the repons, x' = -eta_x dL/dx and
A' = -eta_A dL/dA, with the encoder rate eta_x = eta_enc and the decoder rate eta_A = eta_dec.
The book's trainer (`lib.geneft.train`) uses AdamW, whose per-parameter normalisation changes
the effective rates; `train_models_gd` is the same batched computation (the same networks,
initialisation, training-first pair order, hand-written forward and backward passes of
`lib.geneft.network`) with the update theta <- theta - eta grad L, eta = eta_enc on the
embeddings and eta_dec on the decoder, no momentum, no weight decay.

Every step evaluates all pairs, so the first steps at which train and test accuracy exceed 0.9
(Table 4) are exact; with `early_stop` a model leaves the stack once both are known. A model
whose parameters stop being finite (a rate too large for gradient descent) leaves at once, with
its accuracies at that step. No checkpoints: the shards that use it run for minutes.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from lib.geneft.network import Layout, Workspace, flatten, init_stack, input_dim
from lib.geneft.train import ACC_LEVEL, CHUNK_ACTIVATIONS, TrainResult, _model_tensors, _per_model, _step_pass
from lib.progress import progress


def train_models_gd(
    labels: np.ndarray,
    train_masks: np.ndarray,
    *,
    mode: str = "concat",
    depth: int = 3,
    width: int = 50,
    embed_dim: int = 2,
    lr_enc=0.1,
    lr_dec=0.1,
    init_scale: float = 1.0,
    steps: int = 10_000,
    seeds=None,
    eval_every: int = 100,
    early_stop: bool = True,
) -> TrainResult:
    """Train M = len(train_masks) models on `labels` (n, n) 0/1 by gradient descent on the mean training
    binary cross-entropy; per-model rates `lr_enc` (embeddings) and `lr_dec` (decoder). Returns the
    trainer's `TrainResult` (final accuracies at `steps` or at the early stop; history every `eval_every`)."""
    labels = np.asarray(labels)
    masks = np.asarray(train_masks, dtype=bool)
    n, m_all = labels.shape[0], masks.shape[0]
    if labels.shape != (n, n) or masks.shape[1:] != (n, n):
        raise ValueError(f"labels must be (n, n) and train_masks (M, n, n); got {labels.shape}, {masks.shape}")
    if steps < 0 or eval_every < 1:
        raise ValueError(f"need steps >= 0 and eval_every >= 1; got {steps}, {eval_every}")
    seeds = np.arange(m_all) if seeds is None else np.broadcast_to(np.asarray(seeds), (m_all,))
    lr_e, lr_d = _per_model(lr_enc, m_all, "lr_enc"), _per_model(lr_dec, m_all, "lr_dec")
    layout = Layout(n, embed_dim, (input_dim(mode, embed_dim), *[width] * depth, 1))
    chunk = max(1, CHUNK_ACTIVATIONS // (n * n * max(width, input_dim(mode, embed_dim))))
    stack = init_stack(seeds, n, mode=mode, depth=depth, width=width, embed_dim=embed_dim, init_scale=init_scale)
    tm = _model_tensors(labels, masks, layout, flatten(stack).detach(), lr_e, lr_d, np.zeros(m_all))
    eval_steps = np.arange(0, steps + 1, eval_every)
    step_train, step_test = np.full(m_all, -1), np.full(m_all, -1)
    stopped, final = np.full(m_all, steps), np.full((3, m_all), np.nan)
    embed = np.zeros((m_all, n, embed_dim), np.float32)
    hist = np.full((3, m_all, len(eval_steps)), np.nan)
    ws = Workspace()
    for t in progress(range(steps + 1), desc="train grid (gradient descent)"):
        z, grad = _step_pass(tm, layout, mode, chunk, ws, all_pairs=True)
        correct = (z > 0) == tm["y"].bool()
        n_right, n_right_train = correct.sum(1), (correct & tm["train_row"]).sum(1)
        acc = torch.stack([n_right_train / tm["n_train"], (n_right - n_right_train) / tm["n_test"], n_right / (n * n)])
        acc = acc.float().numpy()
        ids = tm["ids"].numpy()
        for first, a in ((step_train, acc[0]), (step_test, acc[1])):
            first[ids] = np.where((first[ids] < 0) & (a > ACC_LEVEL), t, first[ids])
        if t % eval_every == 0:
            loss = F.binary_cross_entropy_with_logits(z, tm["y"], reduction="none")
            hist[:2, ids, t // eval_every] = acc[:2]
            hist[2, ids, t // eval_every] = ((loss * tm["train_row"]).sum(1) / tm["n_train"]).numpy()
        finite = torch.isfinite(tm["flat"]).all(1).numpy()
        done = ~finite | (((step_train[ids] >= 0) & (step_test[ids] >= 0)) if early_stop else False)
        if t == steps:
            done[:] = True
        if done.any():
            final[:, ids[done]] = acc[:, done]
            stopped[ids[done]] = t
            embed[ids[done]] = layout.views(tm["flat"][torch.from_numpy(done)])[0].numpy()
        if done.all():
            break
        tm["flat"].sub_(grad.mul_(tm["lr"]))
        if done.any():
            keep = torch.from_numpy(~done)
            tm = {k: v[keep] for k, v in tm.items()}
    return TrainResult(
        train_acc=final[0],
        test_acc=final[1],
        full_acc=final[2],
        step_train_90=step_train,
        step_test_90=step_test,
        stopped_at=stopped,
        eval_steps=eval_steps,
        embed=embed,
        history={"train_acc": hist[0], "test_acc": hist[1], "train_loss": hist[2]},
    )
