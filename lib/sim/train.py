"""The paper's SGD protocol (Swing-by App. F.1), batched over a sweep of same-shaped models.

Plain minibatch SGD, no momentum, no weight decay; every model has its own data stream of
the same size and its own shuffling, and the output at the probe points (the OOD test point,
or the 2^s combination points of App. B) is logged after every step: the swing happens
inside the first epoch.

`train_sgd` writes the backward pass out: the numbers of autograd on the same forward pass, bit for
bit, at about two thirds of its cost.

Two loss scalings are offered. `"half_sum"` is eq. (2.1), 1/2 ||f(x) - x||^2 averaged over the
batch; `"mse"` is PyTorch's `MSELoss` (the mean over batch *and* coordinates, i.e. eq. (2.1)
times 2/d), which the authors' code uses. At d = 64 the two differ by a factor 32 in the
effective learning rate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from lib.sim.data import SIMData
from lib.sim.models import MLPShape, Params, forward, init_mlp
from lib.util.progress import progress

LOSSES = ("mse", "half_sum")
_SHUFFLE_STREAM = 1  # numpy seed [seed, 1] shuffles model `seed`'s data; torch seed `seed` initialises it


# ----------------------------------------------------------------------------------------------
# Result
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Trajectory:
    """Logged outputs of a batched training run (M models, P probe points, T steps)."""

    outputs: np.ndarray  # (T+1, M, P, d) model outputs at the probes; index 0 is the initialisation
    train_loss: np.ndarray  # (T, M) minibatch loss at each step
    steps_per_epoch: int

    def epoch_of(self, step: np.ndarray | int) -> np.ndarray | float:
        """Training time in epochs of a logged step index."""
        return np.asarray(step) / self.steps_per_epoch


# ----------------------------------------------------------------------------------------------
# Training
# ----------------------------------------------------------------------------------------------


def batch_loss(y: torch.Tensor, x: torch.Tensor, loss: str) -> torch.Tensor:
    """Per-model loss (M,) of outputs y against targets x (identity map), both (M, B, d)."""
    sq = ((y - x) ** 2).sum(-1).mean(-1)
    return 0.5 * sq if loss == "half_sum" else sq / x.shape[-1]


def train_sgd(
    shape: MLPShape,
    x: np.ndarray,
    probes: np.ndarray,
    seeds: list[int],
    *,
    lr: float,
    batch: int,
    epochs: float,
    loss: str = "mse",
    stop_tol: float | None = None,
    init_scale: float = 1.0,
    check_every: int = 64,
) -> Trajectory:
    """Train M models (one per seed) on their own data x[m] (M, N, d); log outputs at probes (M, P, d).

    `epochs` may be fractional (e.g. 0.5 trains half an epoch). The last minibatch of an epoch may be
    smaller than `batch` (PyTorch `DataLoader` default). With `stop_tol`, training stops once every model
    maps every probe to itself within `stop_tol` times the largest probe norm: the rest of the run is
    decided (the identity is learned). `init_scale` multiplies the default initialisation (`init_mlp`).

    The numbers are autograd's on `forward` and `batch_loss`, bit for bit (tested against that
    formulation), at about two thirds of its cost, without autograd's bookkeeping:

    The backward pass is written out with the very operations autograd runs for `forward` (per layer:
    dW = (h^T dz)^T, db = sum_batch dz, dh = dz W, ReLU's threshold_backward), the loss's gradient is
    g (y - x) with its scale g taken from autograd on `batch_loss` itself (`_loss_gradient_scale`),
    each epoch's data are gathered once in shuffled order (a minibatch is a slice), and the early stop
    of `stop_tol` is checked every `check_every` steps on the logged outputs (the logs are cut at the
    first step that meets it, as if each step were checked).
    """
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")
    m, n, d = x.shape
    if len(seeds) != m or probes.shape[0] != m:
        raise ValueError(f"need one seed and one probe set per model, got {len(seeds)}, {probes.shape[0]}, {m}")
    xt = torch.as_tensor(x, dtype=torch.float32).reshape(m * n, d)
    pt = torch.as_tensor(probes, dtype=torch.float32)
    params = init_mlp(shape, seeds, init_scale)
    leaves = [t for layer in params for t in layer if t is not None]
    rngs = [np.random.default_rng([int(s), _SHUFFLE_STREAM]) for s in seeds]
    per_epoch = -(-n // batch)
    total = int(round(epochs * per_epoch))
    outputs, losses, checked = [_probe(params, pt, shape)], [], 1
    offsets = torch.arange(m)[:, None] * n
    tol = None if stop_tol is None else stop_tol * float(pt.norm(dim=-1).max())
    scales: dict[int, torch.Tensor] = {}
    for step in progress(range(total), desc="SGD"):
        if step % per_epoch == 0:  # the epoch's data in each model's order: its minibatches are slices
            order = torch.as_tensor(np.stack([r.permutation(n) for r in rngs])) + offsets
            shuffled = xt.index_select(0, order.reshape(-1)).view(m, n, d)
        xb = shuffled[:, (step % per_epoch) * batch : (step % per_epoch + 1) * batch]
        hs = _layer_outputs(params, xb, shape.activation)
        losses.append(batch_loss(hs[-1], xb, loss))
        if xb.shape[1] not in scales:
            scales[xb.shape[1]] = _loss_gradient_scale(xb.shape[1], d, loss)
        grads = _backward(params, hs, (hs[-1] - xb).mul_(scales[xb.shape[1]]), shape.activation)
        torch._foreach_sub_(leaves, torch._foreach_mul(grads, lr))
        outputs.append(_probe(params, pt, shape))
        if tol is not None and (len(outputs) - checked == check_every or step == total - 1):
            reached = _first_within(torch.stack(outputs[checked:]), pt, tol)
            if reached is not None:
                del outputs[checked + reached + 1 :], losses[checked + reached :]
                break
            checked = len(outputs)
    return Trajectory(
        outputs=torch.stack(outputs).numpy(),
        train_loss=torch.stack(losses).numpy() if losses else np.zeros((0, m)),
        steps_per_epoch=per_epoch,
    )


def _layer_outputs(params: Params, x: torch.Tensor, activation: str) -> list[torch.Tensor]:
    """The input and every layer's output of `forward` (the same operations, layer by layer)."""
    hs = [x]
    for i, layer in enumerate(params):
        z = forward([layer], hs[-1])
        hs.append(torch.relu(z) if activation == "relu" and i < len(params) - 1 else z)
    return hs


def _backward(params: Params, hs: list[torch.Tensor], grad: torch.Tensor, activation: str) -> list[torch.Tensor]:
    """Gradients of every weight and bias (in `init_mlp`'s order) from the gradient at the output, by the
    operations autograd runs for `forward`: baddbmm's (dW = (h^T dz)^T, db = dz summed over the batch,
    dh = dz W) and ReLU's threshold_backward on the layer's output."""
    grads = []
    for i in reversed(range(len(params))):
        w, b = params[i]
        if b is not None:
            grads.append(grad.sum(1))
        grads.append(hs[i].transpose(1, 2).bmm(grad).transpose(1, 2))
        if i:
            grad = grad.bmm(w)
            if activation == "relu":
                grad = torch.ops.aten.threshold_backward(grad, hs[i], 0)
    return grads[::-1]


def _loss_gradient_scale(batch: int, d: int, loss: str) -> torch.Tensor:
    """The g of d(batch_loss)/dy = g (y - x) for minibatches of `batch` points: autograd's gradient at y - x = 1.

    Autograd forms c * 2 (y - x) with c its (rounded) scale of the squares; g = 2c exactly, and g (y - x),
    rounded once, is that same number (doubling is exact)."""
    y = torch.ones((1, batch, d), requires_grad=True)
    (grad,) = torch.autograd.grad(batch_loss(y, torch.zeros(1, batch, d), loss).sum(), y)
    return grad[0, 0, 0]


def _first_within(outputs: torch.Tensor, probes: torch.Tensor, tol: float) -> int | None:
    """Index of the first of the logged outputs (K, M, P, d) that maps every probe within `tol` of itself
    (`train_sgd`'s stopping test, step by step), or None."""
    within = ((outputs - probes).norm(dim=-1).amax(dim=(1, 2)) < tol).nonzero()
    return int(within[0, 0]) if len(within) else None


def _probe(params, probes: torch.Tensor, shape: MLPShape) -> torch.Tensor:
    with torch.no_grad():
        return forward(params, probes, shape.activation)


# ----------------------------------------------------------------------------------------------
# Sweeps over data sets
# ----------------------------------------------------------------------------------------------


def stack_data(datasets: list[SIMData], combos: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Training inputs (M, N, d) and probes (M, P, d) of same-sized data sets, ready for `train_sgd`.

    Probes are the OOD test point (P = 1), or with `combos` the 2^s combination points (App. B).
    """
    sizes = {ds.x.shape for ds in datasets}
    if len(sizes) != 1:
        raise ValueError(f"a batched sweep needs data sets of one size, got {sorted(sizes)}")
    x = np.stack([ds.x for ds in datasets])
    probes = np.stack([ds.combo_points if combos else ds.test_point[None] for ds in datasets])
    return x, probes


def train_datasets(
    shape: MLPShape,
    datasets: list[SIMData],
    seeds: list[int],
    combos: bool = False,
    **sgd,
) -> tuple[Trajectory, np.ndarray]:
    """Train one model per data set as one batched run; return it and its concept-space outputs."""
    x, probes = stack_data(datasets, combos)
    traj = train_sgd(shape, x, probes, seeds, **sgd)
    return traj, concept_outputs(traj, datasets)


def concept_outputs(traj: Trajectory, datasets: list[SIMData]) -> np.ndarray:
    """Logged outputs (T+1, M, P, d) mapped back to each model's unrotated concept coordinates."""
    return np.stack([ds.to_concept(traj.outputs[:, i]) for i, ds in enumerate(datasets)], axis=1)
