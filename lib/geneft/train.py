"""Train a whole grid of GenEFT networks as one batched computation (Section IV, Appendix B).

`train_models` trains M encoder-decoder networks (lib.geneft.network) on one relation, each with
its own training mask, seed, encoder / decoder learning rate and decoder weight decay. The
optimiser is AdamW written on the stacked parameters (PyTorch's update rule, per-model learning
rates; the decoupled weight decay acts on the decoder only, as in the effective theory of
grokking code that GenEFT follows); training is full batch on the model's training pairs with
the mean binary cross-entropy (Section II).

Accuracies come for free from the forward pass of every step, so the first steps at which the
train and the test accuracy exceed 0.9 (Table 4) are exact. With `early_stop`, a model whose
phase is decided (both steps known) leaves the stack, which shrinks as the grid resolves;
models that never generalise run to `steps`. With `plateau_patience` = k, a model also leaves
once it fits its training pairs exactly and its accuracy over all pairs has not changed for k
evaluations (the statics figures, whose outcome is the final accuracy). With `checkpoint`, the state is saved atomically
every `checkpoint_every` steps and at the end; a later call with the same inputs resumes from it.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from lib.geneft.network import Stack, init_stack, logits
from lib.io import atomic_save
from lib.progress import progress

ACC_LEVEL = 0.9  # Table 4: "train acc > 0.9", "test acc > 0.9"
BETAS, EPS = (0.9, 0.999), 1e-8  # torch.optim.AdamW defaults

# ----------------------------------------------------------------------------------------------
# Results
# ----------------------------------------------------------------------------------------------


@dataclass
class TrainResult:
    """Per-model outcome. Accuracies are final (at `steps`, or at the early stop).

    `step_train_90` / `step_test_90`: first step with accuracy > 0.9, -1 if never.
    `embed` (M, n, d): the final embeddings (the repon positions of Section IV).
    `history[k]` (M, T) at `eval_steps` (T,), NaN after a model's early stop;
    k in train_acc, test_acc, train_loss. `stopped_at`: last step a model was evaluated.
    """

    train_acc: np.ndarray
    test_acc: np.ndarray
    full_acc: np.ndarray
    step_train_90: np.ndarray
    step_test_90: np.ndarray
    stopped_at: np.ndarray
    eval_steps: np.ndarray
    embed: np.ndarray
    history: dict[str, np.ndarray] = field(default_factory=dict)


# ----------------------------------------------------------------------------------------------
# Optimiser: AdamW on stacked parameters with per-model learning rates
# ----------------------------------------------------------------------------------------------


def _per_model(x, m: int, name: str) -> torch.Tensor:
    arr = np.broadcast_to(np.asarray(x, dtype=np.float64), (m,))
    if np.any(arr < 0) or not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite and >= 0, got {x!r}")
    return torch.tensor(arr.copy())


def adamw_step(params, grads, exp_avg, exp_avg_sq, lrs, wds, t: int) -> None:
    """One in-place AdamW step (torch.optim.AdamW's rule), lr / wd of shape (M,) per model."""
    bc1, bc2 = 1 - BETAS[0] ** t, 1 - BETAS[1] ** t
    for p, g, m, v, lr, wd in zip(params, grads, exp_avg, exp_avg_sq, lrs, wds):
        shape = (-1,) + (1,) * (p.dim() - 1)
        lr, wd = lr.view(shape), wd.view(shape)
        p.mul_(1 - lr * wd)
        m.lerp_(g, 1 - BETAS[0])
        v.mul_(BETAS[1]).addcmul_(g, g, value=1 - BETAS[1])
        p.sub_(lr / bc1 * m / (v.sqrt() / bc2 ** 0.5 + EPS))


# ----------------------------------------------------------------------------------------------
# Training loop
# ----------------------------------------------------------------------------------------------


def train_models(labels: np.ndarray, train_masks: np.ndarray, *, mode: str = "concat", depth: int = 3,
                 width: int = 50, embed_dim: int = 2, lr_enc=1e-3, lr_dec=1e-3, weight_decay_dec=0.0,
                 init_scale: float = 1.0, steps: int = 10_000, seeds=None, eval_every: int = 100,
                 early_stop: bool = True, plateau_patience: int | None = None,
                 checkpoint: str | Path | None = None, checkpoint_every: int = 1000) -> TrainResult:
    """Train M = len(train_masks) models on `labels` (n, n) 0/1; see the module docstring."""
    labels = np.asarray(labels)
    masks = np.asarray(train_masks, dtype=bool)
    n, m_all = labels.shape[0], masks.shape[0]
    if labels.shape != (n, n) or masks.shape[1:] != (n, n):
        raise ValueError(f"labels must be (n, n) and train_masks (M, n, n); got {labels.shape}, {masks.shape}")
    if steps < 0 or eval_every < 1:
        raise ValueError(f"need steps >= 0 and eval_every >= 1, got {steps}, {eval_every}")
    seeds = np.arange(m_all) if seeds is None else np.broadcast_to(np.asarray(seeds), (m_all,))
    lr_e, lr_d = _per_model(lr_enc, m_all, "lr_enc"), _per_model(lr_dec, m_all, "lr_dec")
    wd_d = _per_model(weight_decay_dec, m_all, "weight_decay_dec")

    y = torch.tensor(labels.reshape(-1), dtype=torch.float32)
    train = torch.tensor(masks.reshape(m_all, -1))
    n_train = train.sum(1).clamp(min=1)
    n_test = (~train).sum(1).clamp(min=1)

    eval_steps = np.arange(0, steps + 1, eval_every)
    s = dict(  # the whole state, so that a checkpoint is one dict
        step=0, active=torch.arange(m_all),
        stack=init_stack(seeds, n, mode=mode, depth=depth, width=width, embed_dim=embed_dim, init_scale=init_scale),
        step_train=np.full(m_all, -1), step_test=np.full(m_all, -1), stopped=np.full(m_all, steps),
        final=np.full((3, m_all), np.nan), embed=np.zeros((m_all, n, embed_dim), np.float32), hist=np.full((3, m_all, len(eval_steps)), np.nan),
    )
    s["exp_avg"] = [torch.zeros_like(p) for p in s["stack"].tensors()]
    s["exp_avg_sq"] = [torch.zeros_like(p) for p in s["stack"].tensors()]
    s["last_full"], s["last_change"] = np.full(m_all, -1.0), np.zeros(m_all, dtype=np.int64)
    key = _fingerprint(labels, masks, mode, depth, width, embed_dim, lr_e, lr_d, wd_d, init_scale, steps,
                       seeds, eval_every, early_stop, -1 if plateau_patience is None else plateau_patience)
    if checkpoint is not None and Path(checkpoint).is_file():
        saved = torch.load(checkpoint, weights_only=False)
        if saved.get("key") == key:
            s = saved["state"]

    bar = progress(total=steps, initial=s["step"], desc="train grid")
    while True:
        idx, stack, t = s["active"], s["stack"], s["step"]
        z = logits(stack, mode)
        tr = train[idx]
        loss_each = F.binary_cross_entropy_with_logits(z, y.expand_as(z), reduction="none")
        train_loss = (loss_each * tr).sum(1) / n_train[idx]
        with torch.no_grad():
            correct = (z > 0) == y.bool()
            acc = torch.stack([(correct & tr).sum(1) / n_train[idx], (correct & ~tr).sum(1) / n_test[idx],
                               correct.float().mean(1)]).numpy()
            ids = idx.numpy()
            for first, a in ((s["step_train"], acc[0]), (s["step_test"], acc[1])):
                first[ids] = np.where((first[ids] < 0) & (a > ACC_LEVEL), t, first[ids])
            if t % eval_every == 0:
                col = t // eval_every
                s["hist"][:2, ids, col] = acc[:2]
                s["hist"][2, ids, col] = train_loss.detach().numpy()
            done = (s["step_train"][ids] >= 0) & (s["step_test"][ids] >= 0) if early_stop else np.zeros(len(ids), bool)
            if plateau_patience is not None and t % eval_every == 0:
                changed = s["last_full"][ids] != acc[2]
                s["last_change"][ids[changed]], s["last_full"][ids] = t, acc[2]
                done |= (acc[0] >= 1.0) & (t - s["last_change"][ids] >= plateau_patience * eval_every)
            if t == steps:
                done[:] = True
            s["final"][:, ids[done]] = acc[:, done]
            s["stopped"][ids[done]] = t
            s["embed"][ids[done]] = stack.embed.detach()[torch.from_numpy(done)].numpy()
        if t == steps or done.all():
            break
        grads = torch.autograd.grad(train_loss.sum(), stack.tensors())
        with torch.no_grad():
            n_enc = len(stack.encoder)
            lrs = [lr_e[idx]] * n_enc + [lr_d[idx]] * (len(grads) - n_enc)
            wds = [torch.zeros_like(lr_e[idx])] * n_enc + [wd_d[idx]] * (len(grads) - n_enc)
            adamw_step(stack.tensors(), grads, s["exp_avg"], s["exp_avg_sq"], lrs, wds, t + 1)
        if done.any():
            keep = torch.from_numpy(~done)
            s["active"], s["stack"] = idx[keep], stack.select(keep)
            s["exp_avg"] = [a[keep] for a in s["exp_avg"]]
            s["exp_avg_sq"] = [a[keep] for a in s["exp_avg_sq"]]
        s["step"] = t + 1
        bar.update(1)
        if checkpoint is not None and s["step"] % checkpoint_every == 0:
            atomic_save(checkpoint, lambda tmp: torch.save({"key": key, "state": s}, tmp))
    bar.close()
    if checkpoint is not None:  # the finished grid too: a rerun with the same inputs costs nothing
        atomic_save(checkpoint, lambda tmp: torch.save({"key": key, "state": s}, tmp))
    return TrainResult(train_acc=s["final"][0], test_acc=s["final"][1], full_acc=s["final"][2],
                       step_train_90=s["step_train"], step_test_90=s["step_test"], stopped_at=s["stopped"],
                       eval_steps=eval_steps, embed=s["embed"],
                       history={"train_acc": s["hist"][0], "test_acc": s["hist"][1], "train_loss": s["hist"][2]})


def _fingerprint(*inputs) -> str:
    """Hash of everything that determines a run, so that a checkpoint is only reused for the same run."""
    h = hashlib.sha256()
    for x in inputs:
        h.update(np.asarray(x.numpy() if isinstance(x, torch.Tensor) else x).tobytes() if not isinstance(x, str)
                 else x.encode())
        h.update(b"|")
    return h.hexdigest()
