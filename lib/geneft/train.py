"""Train a whole grid of GenEFT networks as one batched computation (Section IV, Appendix B).

`train_models` trains M encoder-decoder networks (lib.geneft.network) on one relation, each with
its own training mask, seed, encoder / decoder learning rate and decoder weight decay. The
optimiser is Adam (PyTorch's update rule) on one flat (M, P) parameter buffer with per-model,
per-parameter learning rates; the weight decay acts on the decoder only, as in the
effective theory of grokking code that GenEFT follows, in one of two forms (`DECAY_FORMS`; the
paper states neither): "decoupled" (AdamW, `torch.optim.AdamW`: theta <- theta (1 - lr wd) before the
Adam step, the default) or "coupled" (L2 in the loss, `torch.optim.Adam(weight_decay=wd)`: grad +=
wd theta before the moments). Training is full batch on the model's
training pairs with the mean binary cross-entropy (Section II).

Speed (benchmarks/geneft_dynamics.py): the forward and backward passes are written by hand
(`lib.geneft.network.forward` / `backward`, no autograd); every model evaluates its pairs
training-first, so gradients flow through the training pairs only; models are processed in
chunks of about `CHUNK_ACTIVATIONS` hidden activations, so that their activations stay in cache; the chunks
are formed after sorting the models by their number of training pairs; steps that do not test
(`test_every` > 1) evaluate the training pairs only.

The training pairs are evaluated at every step, so the first step at which the train accuracy
exceeds 0.9 (Table 4) is exact; the test pairs at every `test_every`-th step (and at every
evaluation and the last step), so the first step at which the test accuracy exceeds 0.9 is exact
for `test_every` = 1 (the default) and otherwise the first tested step above 0.9, at most
`test_every` - 1 steps after the true one (its resolution). With `early_stop`, a model whose phase is decided (both
steps known) leaves the stack, which shrinks as the grid resolves; models that never generalise
run to `steps`. With `plateau_patience` = k, a model also leaves once it fits its training pairs
exactly and its accuracy over all pairs has not changed for k evaluations (the statics figures,
whose outcome is the final accuracy). With `checkpoint`, the state is saved atomically every
`checkpoint_every` steps and at the end (tensors only, loaded with `weights_only=True`); a later
call with the same inputs resumes from it. The checkpoint's path is the caller's to key by the code
(`lib.book.evidence.run` keys it by the shard's code fingerprint, the chapter's cache by its modules'), so
that the trainer's results do not depend on the code that names its files.

`train_models_gd` trains the same networks with plain full-batch gradient descent, the dynamics of
eq. (12): Theorem 3 and eq. (12) integrate the gradient flow of the repons, x' = -eta_x dL/dx and
A' = -eta_A dL/dA, with eta_x = eta_enc and eta_A = eta_dec, whereas AdamW's per-parameter
normalisation changes the effective rates. It is the same batched computation (the same networks,
initialisation, training-first pair order, hand-written passes) with the update
theta <- theta - eta grad L, eta = eta_enc on the embeddings and eta_dec on the decoder, no momentum,
no weight decay. Every step evaluates all pairs, so both 0.9 crossings (Table 4) are exact; with
`early_stop` a model leaves the stack once both are known. A model whose parameters stop being
finite (a rate too large for gradient descent) leaves at once, with its accuracies at that step.
No checkpoints: the shards that use it run for minutes.
"""

from __future__ import annotations

import hashlib
import pickle
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from lib.geneft.network import (
    Layout,
    Pairs,
    Workspace,
    backward,
    flatten,
    forward,
    init_stack,
    input_dim,
)
from lib.util.io import atomic_save
from lib.util.progress import progress

ACC_LEVEL = 0.9  # Table 4: "train acc > 0.9", "test acc > 0.9"
BETAS, EPS = (0.9, 0.999), 1e-8  # torch.optim.AdamW defaults
DECAY_FORMS = ("decoupled", "coupled")  # AdamW; Adam with L2 in the loss
CHUNK_ACTIVATIONS = 16 * 900 * 50  # hidden units x pair rows per chunk (measured: 8 to 16 Table 3 models)

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
# Optimiser: AdamW on a flat (M, P) buffer, learning rate and decay per model and parameter
# ----------------------------------------------------------------------------------------------


def _per_model(x, m: int, name: str) -> np.ndarray:
    arr = np.broadcast_to(np.asarray(x, dtype=np.float64), (m,))
    if np.any(arr < 0) or not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite and >= 0, got {x!r}")
    return arr.copy()


def adamw_step(
    flat: torch.Tensor,
    grad: torch.Tensor,
    exp_avg: torch.Tensor,
    exp_avg_sq: torch.Tensor,
    lr: torch.Tensor,
    decay: torch.Tensor | None,
    t: int,
    ws: Workspace | None = None,
    l2: torch.Tensor | None = None,
) -> None:
    """One in-place Adam step on (M, P) buffers, `lr` (M, P) per parameter, `t` the step count from 1.

    Adam with bias-corrected moments (Kingma & Ba 2015, "Adam", Algorithm 1); decoupled weight decay is AdamW
    and coupled decay Adam with L2 regularization, the two variants of Loshchilov & Hutter 2019, "Decoupled
    Weight Decay Regularization", Algorithm 2 (the GenEFT paper names neither; see the module docstring).

    Decoupled decay (torch.optim.AdamW's rule): `decay` = 1 - lr * weight_decay (M, P) multiplies the
    parameters first. Coupled decay (torch.optim.Adam's `weight_decay`, L2 in the loss): `l2` =
    weight_decay (M, P) adds l2 * theta to `grad` (in place) before the moments. Either may be None.
    """
    bc1, bc2 = 1 - BETAS[0] ** t, 1 - BETAS[1] ** t
    if decay is not None:
        flat.mul_(decay)
    if l2 is not None:
        grad.addcmul_(flat, l2)
    exp_avg.lerp_(grad, 1 - BETAS[0])
    exp_avg_sq.mul_(BETAS[1]).addcmul_(grad, grad, value=1 - BETAS[1])
    denom = (ws or Workspace()).take("adam", flat.shape, flat.dtype)
    torch.sqrt(exp_avg_sq, out=denom).div_(bc2**0.5).add_(EPS)
    flat.sub_(torch.div(exp_avg, denom, out=denom).mul_(lr), alpha=1 / bc1)


# ----------------------------------------------------------------------------------------------
# Per-model data: pairs in training-first order
# ----------------------------------------------------------------------------------------------


def _model_tensors(
    labels: np.ndarray,
    masks: np.ndarray,
    layout: Layout,
    stack_flat: torch.Tensor,
    lr_e: np.ndarray,
    lr_d: np.ndarray,
    wd_d: np.ndarray,
    decay_form: str = "decoupled",
) -> dict[str, torch.Tensor]:
    """Everything indexed by model, so that leaving the stack is one `[keep]` per entry: "decay"
    (decoupled) or "l2" (coupled) holds the decoder weight decay in the form `adamw_step` reads."""
    m, n = masks.shape[0], labels.shape[0]
    flat_masks = masks.reshape(m, -1)
    order = np.argsort(~flat_masks, axis=1, kind="stable")  # training pairs first, each group in pair order
    n_train = flat_masks.sum(1)
    rows = np.arange(n * n)[None, :] < n_train[:, None]
    enc = layout.n_encoder
    lr = np.concatenate([np.repeat(lr_e[:, None], enc, 1), np.repeat(lr_d[:, None], layout.size - enc, 1)], 1)
    wd = np.concatenate([np.zeros((m, enc)), np.repeat(wd_d[:, None], layout.size - enc, 1)], 1)
    decay = {"decay": 1 - lr * wd} if decay_form == "decoupled" else {"l2": wd}
    return {
        **{k: torch.tensor(v, dtype=stack_flat.dtype) for k, v in decay.items()},
        "ids": torch.arange(m),
        "flat": stack_flat,
        "exp_avg": torch.zeros_like(stack_flat),
        "exp_avg_sq": torch.zeros_like(stack_flat),
        "lr": torch.tensor(lr, dtype=stack_flat.dtype),
        "first": torch.from_numpy(order // n),
        "second": torch.from_numpy(order % n),
        "y": torch.tensor(labels.reshape(-1)[order], dtype=stack_flat.dtype),
        "train_row": torch.from_numpy(rows),
        "n_train": torch.from_numpy(np.maximum(n_train, 1)),
        "n_test": torch.from_numpy(np.maximum(n * n - n_train, 1)),
    }


def _step_pass(
    t: dict[str, torch.Tensor], layout: Layout, mode: str, chunk: int, ws: Workspace, all_pairs: bool
) -> tuple[torch.Tensor, torch.Tensor]:
    """Logits (M, n^2) and the gradient (M, P) of each model's mean training loss. Without
    `all_pairs`, only each chunk's first rows up to its largest training set are evaluated (the
    other logits are left stale: read only a model's training rows then)."""
    m = t["flat"].shape[0]
    z = ws.take("logits", t["y"].shape, t["flat"].dtype)
    grad = ws.take("grad", t["flat"].shape, t["flat"].dtype)
    for lo in range(0, m, chunk):
        sl = slice(lo, lo + chunk)
        flat = t["flat"][sl]
        rows = int(t["n_train"][sl].max())  # training rows come first; beyond a model's own, dz = 0
        upto = z.shape[1] if all_pairs else rows
        z[sl, :upto], cache = forward(flat, layout, Pairs(t["first"][sl, :upto], t["second"][sl, :upto]), mode, ws)
        dz = (torch.sigmoid(z[sl, :rows]) - t["y"][sl, :rows]) * t["train_row"][sl, :rows] / t["n_train"][sl, None]
        backward(flat, layout, mode, cache, dz, out=grad[sl])
    return z, grad


# ----------------------------------------------------------------------------------------------
# Training loop
# ----------------------------------------------------------------------------------------------


def _grid(labels, train_masks, seeds, mode: str, depth: int, width: int, embed_dim: int, steps: int, eval_every: int):
    """The checked inputs of both trainers and what they share: (labels, masks (M, n, n) bool, seeds (M,),
    the parameter layout, the models per chunk)."""
    labels = np.asarray(labels)
    masks = np.asarray(train_masks, dtype=bool)
    n, m_all = labels.shape[0], masks.shape[0]
    if labels.shape != (n, n) or masks.shape[1:] != (n, n):
        raise ValueError(f"labels must be (n, n) and train_masks (M, n, n); got {labels.shape}, {masks.shape}")
    if steps < 0 or eval_every < 1:
        raise ValueError(f"need steps >= 0 and eval_every >= 1; got {steps}, {eval_every}")
    seeds = np.arange(m_all) if seeds is None else np.broadcast_to(np.asarray(seeds), (m_all,))
    layout = Layout(n, embed_dim, (input_dim(mode, embed_dim), *[width] * depth, 1))
    chunk = max(1, CHUNK_ACTIVATIONS // (n * n * max(width, input_dim(mode, embed_dim))))
    return labels, masks, seeds, layout, chunk


def train_models(
    labels: np.ndarray,
    train_masks: np.ndarray,
    *,
    mode: str = "concat",
    depth: int = 3,
    width: int = 50,
    embed_dim: int = 2,
    lr_enc=1e-3,
    lr_dec=1e-3,
    weight_decay_dec=0.0,
    init_scale: float = 1.0,
    decoder_init: str = "uniform",
    decay_form: str = "decoupled",
    steps: int = 10_000,
    seeds=None,
    eval_every: int = 100,
    early_stop: bool = True,
    plateau_patience: int | None = None,
    test_every: int = 1,
    checkpoint: str | Path | None = None,
    checkpoint_every: int = 1000,
) -> TrainResult:
    """Train M = len(train_masks) models on `labels` (n, n) 0/1; see the module docstring.

    `decoder_init`: `lib.geneft.network.init_stack`'s ("uniform" or "normal"); `decay_form`: how
    `weight_decay_dec` acts, "decoupled" (AdamW) or "coupled" (L2 in the loss), see `DECAY_FORMS`."""
    if test_every < 1:
        raise ValueError(f"need test_every >= 1; got {test_every}")
    if decay_form not in DECAY_FORMS:
        raise ValueError(f"unknown decay_form {decay_form!r}; known: {', '.join(DECAY_FORMS)}")
    labels, masks, seeds, layout, chunk = _grid(
        labels, train_masks, seeds, mode, depth, width, embed_dim, steps, eval_every
    )
    n, m_all = labels.shape[0], masks.shape[0]
    lr_e, lr_d = _per_model(lr_enc, m_all, "lr_enc"), _per_model(lr_dec, m_all, "lr_dec")
    wd_d = _per_model(weight_decay_dec, m_all, "weight_decay_dec")

    eval_steps = np.arange(0, steps + 1, eval_every)
    key = _fingerprint(
        labels,
        masks,
        mode,
        depth,
        width,
        embed_dim,
        lr_e,
        lr_d,
        wd_d,
        init_scale,
        decoder_init,
        decay_form,
        steps,
        seeds,
        eval_every,
        early_stop,
        -1 if plateau_patience is None else plateau_patience,
        test_every,
    )
    s = _load(checkpoint, key)
    if s is None:
        stack = init_stack(
            seeds,
            n,
            mode=mode,
            depth=depth,
            width=width,
            embed_dim=embed_dim,
            init_scale=init_scale,
            decoder_init=decoder_init,
        )
        t = _model_tensors(labels, masks, layout, flatten(stack), lr_e, lr_d, wd_d, decay_form)
        by_size = torch.from_numpy(np.argsort(masks.reshape(m_all, -1).sum(1), kind="stable"))
        s = {  # the whole state, so that a checkpoint is one dict
            "step": 0,
            "models": {k: v[by_size] for k, v in t.items()},
            "step_train": np.full(m_all, -1),
            "step_test": np.full(m_all, -1),
            "stopped": np.full(m_all, steps),
            "final": np.full((3, m_all), np.nan),
            "embed": np.zeros((m_all, n, embed_dim), np.float32),
            "hist": np.full((3, m_all, len(eval_steps)), np.nan),
            "last_full": np.full(m_all, -1.0),
            "last_change": np.zeros(m_all, dtype=np.int64),
        }

    ws = Workspace()
    bar = progress(total=steps, initial=s["step"], desc="train grid")
    while True:
        t, tm = s["step"], s["models"]
        tested = t % test_every == 0 or t % eval_every == 0 or t == steps  # test pairs evaluated
        z, grad = _step_pass(tm, layout, mode, chunk, ws, all_pairs=tested)
        correct = (z > 0) == tm["y"].bool()
        n_right, n_right_train = correct.sum(1), (correct & tm["train_row"]).sum(1)
        acc = (
            torch.stack([n_right_train / tm["n_train"], (n_right - n_right_train) / tm["n_test"], n_right / (n * n)])
            .float()
            .numpy()
        )
        ids = tm["ids"].numpy()
        for first, a in ((s["step_train"], acc[0]), (s["step_test"], acc[1]))[: 2 if tested else 1]:
            first[ids] = np.where((first[ids] < 0) & (a > ACC_LEVEL), t, first[ids])
        if t % eval_every == 0:
            loss = F.binary_cross_entropy_with_logits(z, tm["y"], reduction="none")
            col = t // eval_every
            s["hist"][:2, ids, col] = acc[:2]
            s["hist"][2, ids, col] = ((loss * tm["train_row"]).sum(1) / tm["n_train"]).numpy()
        decided = (s["step_train"][ids] >= 0) & (s["step_test"][ids] >= 0) & tested  # leaves on a tested step
        done = decided if early_stop else np.zeros(len(ids), bool)
        if plateau_patience is not None and t % eval_every == 0:
            changed = s["last_full"][ids] != acc[2]
            s["last_change"][ids[changed]], s["last_full"][ids] = t, acc[2]
            done |= (acc[0] >= 1.0) & (t - s["last_change"][ids] >= plateau_patience * eval_every)
        if t == steps:
            done[:] = True
        if done.any():
            s["final"][:, ids[done]] = acc[:, done]
            s["stopped"][ids[done]] = t
            s["embed"][ids[done]] = layout.views(tm["flat"][torch.from_numpy(done)])[0].numpy()
        if t == steps or done.all():
            break
        adamw_step(
            tm["flat"], grad, tm["exp_avg"], tm["exp_avg_sq"], tm["lr"], tm.get("decay"), t + 1, ws, tm.get("l2")
        )
        if done.any():
            keep = torch.from_numpy(~done)
            s["models"] = {k: v[keep] for k, v in tm.items()}
        s["step"] = t + 1
        bar.update(1)
        if checkpoint is not None and s["step"] % checkpoint_every == 0:
            _save(checkpoint, key, s)
    bar.close()
    if checkpoint is not None:  # the finished grid too: a rerun with the same inputs costs nothing
        _save(checkpoint, key, s)
    return TrainResult(
        train_acc=s["final"][0],
        test_acc=s["final"][1],
        full_acc=s["final"][2],
        step_train_90=s["step_train"],
        step_test_90=s["step_test"],
        stopped_at=s["stopped"],
        eval_steps=eval_steps,
        embed=s["embed"],
        history={"train_acc": s["hist"][0], "test_acc": s["hist"][1], "train_loss": s["hist"][2]},
    )


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
    decoder_init: str = "uniform",
    steps: int = 10_000,
    seeds=None,
    eval_every: int = 100,
    early_stop: bool = True,
) -> TrainResult:
    """Train M = len(train_masks) models on `labels` (n, n) 0/1 by gradient descent on the mean training
    binary cross-entropy; per-model rates `lr_enc` (embeddings) and `lr_dec` (decoder), the decoder drawn
    as `decoder_init` says (`lib.geneft.network.init_stack`). Returns the trainer's `TrainResult` (final
    accuracies at `steps` or at the early stop; history every `eval_every`)."""
    labels, masks, seeds, layout, chunk = _grid(
        labels, train_masks, seeds, mode, depth, width, embed_dim, steps, eval_every
    )
    n, m_all = labels.shape[0], masks.shape[0]
    lr_e, lr_d = _per_model(lr_enc, m_all, "lr_enc"), _per_model(lr_dec, m_all, "lr_dec")
    network = {"mode": mode, "depth": depth, "width": width, "embed_dim": embed_dim}
    stack = init_stack(seeds, n, **network, init_scale=init_scale, decoder_init=decoder_init)
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


# ----------------------------------------------------------------------------------------------
# Checkpoints: tensors only (safe to load), keyed by the inputs
# ----------------------------------------------------------------------------------------------


def _fingerprint(*inputs) -> str:
    """Hash of everything that determines a run, so that a checkpoint is only reused for the same run."""
    h = hashlib.sha256()
    for x in inputs:
        h.update(
            np.asarray(x.numpy() if isinstance(x, torch.Tensor) else x).tobytes()
            if not isinstance(x, str)
            else x.encode()
        )
        h.update(b"|")
    return h.hexdigest()


def _save(path: str | Path, key: str, s: dict) -> None:
    state = {k: torch.from_numpy(v) if isinstance(v, np.ndarray) else v for k, v in s.items()}
    atomic_save(path, lambda tmp: torch.save({"key": key, "state": state}, tmp))


def _load(path: str | Path | None, key: str) -> dict | None:
    """The saved state of the run `key`, or None (no file, another run or code, unreadable)."""
    if path is None or not Path(path).is_file():
        return None
    try:
        saved = torch.load(path, weights_only=True)
    except (RuntimeError, OSError, EOFError, ValueError, pickle.UnpicklingError):  # truncated or foreign: recompute
        return None
    if not isinstance(saved, dict) or saved.get("key") != key:
        return None
    return {k: v.numpy() if isinstance(v, torch.Tensor) else v for k, v in saved["state"].items()}
