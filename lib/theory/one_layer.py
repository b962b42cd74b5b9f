"""One-layer linear model f(W; x) = W x on the SIM task (Swing-by paper, Section 4.1, App. C.2).

The loss (4.1) is L(W) = 1/2 ||(W - I) A^{1/2}||_F^2 with gradient (W - I) A (C.15). The dynamics
are linear in W - I, so two of the three ways to train have exact solutions:

- gradient flow (Theorem 4.1, eq. 4.2 / C.17-C.21): W(t) - I = (W(0) - I) exp(-A t);
- gradient descent with step lr:                       W_k - I = (W_0 - I) (I - lr A)^k;
- minibatch SGD (the paper's protocol, App. F.1: batch 128, lr 0.1) is simulated.

Time is matched as t = lr * k. Arrays follow the convention (..., d) for points and
(..., d, d) for weights, with any leading batch axes (settings, seeds).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from scipy.integrate import solve_ivp
from scipy.stats import linregress

from lib.theory.one_layer_settings import LOSS_SCALINGS, effective_lr  # noqa: F401 (re-exported)
from lib.util.progress import progress

# ----------------------------------------------------------------------------------------------
# Initialisation
# ----------------------------------------------------------------------------------------------


def random_init(shape: tuple[int, ...], init_scale: float, seed) -> np.ndarray:
    """W(0) with i.i.d. N(0, init_scale^2) entries (the paper's small-init regime needs
    init_scale << 1 / (s max mu), Sec. 4.1); `seed` is anything numpy's default_rng takes."""
    return init_scale * np.random.default_rng(seed).standard_normal(shape)


# ----------------------------------------------------------------------------------------------
# Losses: the sampled loss (C.1), its matrix form (4.1), the OOD loss
# ----------------------------------------------------------------------------------------------


def second_moment(x: np.ndarray) -> np.ndarray:
    """Empirical A = X^T X / N of inputs x (..., N, d): the matrix of (4.1) before n -> infinity."""
    return np.swapaxes(x, -1, -2) @ x / x.shape[-2]


def sampled_loss(w: np.ndarray, x: np.ndarray) -> float:
    """The training loss (C.1): 1/2 ||(W - I) x||^2 averaged over the rows of x (N, d)."""
    return 0.5 * float(((x @ (w - np.eye(len(w))).T) ** 2).sum(-1).mean())


def matrix_loss(w: np.ndarray, A: np.ndarray) -> float:
    """The same loss as a matrix norm (4.1 / C.6): 1/2 ||(W - I) A^{1/2}||_F^2, A^{1/2} by eigh."""
    lam, vec = np.linalg.eigh(A)
    root = (vec * np.sqrt(np.clip(lam, 0, None))) @ vec.T
    return 0.5 * float(np.sum(((w - np.eye(len(w))) @ root) ** 2))


def ood_loss(f: np.ndarray, z: np.ndarray) -> np.ndarray:
    """OOD loss 1/2 ||f(x_hat) - x_hat||^2 at the test point (the quantity of Fig. 3)."""
    return 0.5 * ((f - z) ** 2).sum(-1)


# ----------------------------------------------------------------------------------------------
# Theorem 4.1: the gradient flow in closed form
# ----------------------------------------------------------------------------------------------


def growth_and_noise(w0: np.ndarray, a: np.ndarray, z: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Growth term G_k(t) = (1 - e^{-a_k t}) z_k and noise term N_k(t) = sum_i e^{-a_i t} w_ki(0) z_i (eq. 4.2).

    `w0` (..., d, d) and `a` (..., d) in concept coordinates (A = diag(a)), `z` (..., d), `t` (T,).
    Returns two arrays (T, ..., d). The sum over i runs over all d coordinates as in (C.21); it
    equals the paper's sum over i <= s whenever z vanishes off the first s axes (the test points).
    The indicator 1{k <= s} of (4.2) is automatic: a_k = 0 for k > s.
    """
    shape = np.broadcast_shapes(w0.shape[:-1], np.shape(a), np.shape(z))  # (..., d)
    a, z = np.broadcast_to(a, shape), np.broadcast_to(z, shape)
    decay = np.exp(-np.multiply.outer(t, a)) * z  # (T, ..., d)
    growth = z - decay
    noise = np.einsum("...ki,t...i->t...k", w0, decay)
    return growth, noise


def closed_form_output(w0: np.ndarray, a: np.ndarray, z: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Output f(W(t); z) of the gradient flow (Theorem 4.1, eq. 4.2), shape (T, ..., d)."""
    growth, noise = growth_and_noise(w0, a, z, t)
    return growth + noise


def flow_output(w0: np.ndarray, A: np.ndarray, z: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Gradient flow output z - (I - W0) e^{-A t} z for any symmetric A (C.17 before diagonalising), (T, d).

    With the empirical A of a sample this is the flow of the sampled loss, which Theorem 4.1
    approximates by the population A = diag(a).
    """
    lam, vec = np.linalg.eigh(A)
    decay = (np.exp(-np.outer(t, lam)) * (vec.T @ z)) @ vec.T  # e^{-A t} z
    return z - decay @ (np.eye(len(z)) - w0).T


def gradient_flow_numeric(w0: np.ndarray, a: np.ndarray, z: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The flow dW/dt = -(W - I) A (C.15) integrated by scipy (DOP853), output at z: (T, d).

    An independent check of Theorem 4.1 that does not use its closed form.
    """
    d = len(a)

    def rhs(_, w):
        return -((w.reshape(d, d) - np.eye(d)) * a).ravel()

    sol = solve_ivp(rhs, (t[0], t[-1]), w0.ravel(), t_eval=t, method="DOP853", rtol=1e-11, atol=1e-13)
    if not sol.success:
        raise RuntimeError(f"gradient flow integration failed: {sol.message}")
    return np.einsum("kij,j->ki", sol.y.T.reshape(-1, d, d), z)


# ----------------------------------------------------------------------------------------------
# Gradient descent: the exact discrete solution and the full-batch simulation
# ----------------------------------------------------------------------------------------------


def discrete_output(w0: np.ndarray, A: np.ndarray, z: np.ndarray, lr: float, steps: int) -> np.ndarray:
    """Exact GD output f(W_k; z) = z - (I - W_0)(I - lr A)^k z for k = 0..steps: (steps+1, ..., d).

    `A` (..., d, d) is any symmetric second-moment matrix (population diag(a) or empirical);
    with A = diag(a) the k-th power is (1 - lr a_i)^k, the discrete analogue of e^{-a_i t}.
    """
    eye = np.eye(A.shape[-1])
    z = np.broadcast_to(np.asarray(z, float), np.broadcast_shapes(np.shape(z), A.shape[:-1], w0.shape[:-1]))
    u, out = z.copy(), []
    for _ in range(steps + 1):
        out.append(z - np.einsum("...ij,...j->...i", eye - w0, u))
        u = u - lr * np.einsum("...ij,...j->...i", A, u)
    return np.stack(out)


def gd_outputs(x: np.ndarray, w0: np.ndarray, probe: np.ndarray, lr: float, steps: int) -> np.ndarray:
    """Full-batch GD on the sampled loss (C.1): W <- W - lr (W - I) X^T X / N. Outputs at `probe`.

    x (B, N, d), w0 (B, d, d), probe (B, d); returns (steps+1, B, d).
    """
    A, w, eye = second_moment(x), np.array(w0, dtype=float), np.eye(x.shape[-1])
    out = [np.einsum("bij,bj->bi", w, probe)]
    for _ in range(steps):
        w = w - lr * (w - eye) @ A
        out.append(np.einsum("bij,bj->bi", w, probe))
    return np.stack(out)


# ----------------------------------------------------------------------------------------------
# The paper's protocol: minibatch SGD (App. F.1), batched over settings
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SGDRun:
    """Outputs at the probes after every step and the minibatch loss of every step."""

    outputs: np.ndarray  # (steps+1, B, d); index 0 is the initialisation
    train_loss: np.ndarray  # (steps, B) minibatch value of (2.1)


def sgd_outputs(
    x: np.ndarray,
    w0: np.ndarray,
    probe: np.ndarray,
    lr: float,
    batch: int,
    steps: int,
    seeds: list[int],
) -> SGDRun:
    """Plain SGD on 1/2 ||W x - x||^2 averaged over minibatches, B settings at once (App. F.1).

    x (B, N, d) with each setting's own data, w0 (B, d, d), probe (B, d); `lr` is the step on
    W per unit gradient of (2.1) (see `effective_lr`). Each epoch reshuffles setting b's data
    with its own generator seeded by `seeds[b]`, so a setting gives the same numbers alone or in
    any batch; the last minibatch may be short (PyTorch `DataLoader` default). The gradient
    (W - I) X_b^T X_b / |b| is exact (no autograd needed for a linear map).
    """
    xt, w = torch.as_tensor(x, dtype=torch.float64), torch.as_tensor(w0, dtype=torch.float64).clone()
    pt = torch.as_tensor(probe, dtype=torch.float64)
    n_set, n, d = xt.shape
    if len(seeds) != n_set:
        raise ValueError(f"need one seed per setting, got {len(seeds)} for {n_set}")
    gens, offsets = [torch.Generator().manual_seed(int(s)) for s in seeds], torch.arange(n_set)[:, None] * n
    per_epoch, rows = -(-n // batch), xt.reshape(n_set * n, d)
    outputs, losses = [torch.einsum("bij,bj->bi", w, pt)], []
    for step in progress(range(steps), desc="SGD"):
        if step % per_epoch == 0:  # row indices into `rows`: setting b's points are b * n ... b * n + n - 1
            order = torch.stack([torch.randperm(n, generator=g) for g in gens]) + offsets
        idx = order[:, (step % per_epoch) * batch : (step % per_epoch + 1) * batch]
        xb = rows.index_select(0, idx.reshape(-1)).view(n_set, -1, d)
        residual = torch.bmm(xb, w.transpose(1, 2)) - xb  # (B, b, d): W x - x
        losses.append(0.5 * (residual**2).sum(-1).mean(-1))
        w -= lr * torch.bmm(residual.transpose(1, 2), xb) / xb.shape[1]
        outputs.append(torch.einsum("bij,bj->bi", w, pt))
    return SGDRun(torch.stack(outputs).numpy(), torch.stack(losses).numpy() if losses else np.zeros((0, n_set)))


# ----------------------------------------------------------------------------------------------
# Reading a trajectory: rates and who is learned first
# ----------------------------------------------------------------------------------------------


def discrete_rates(a: np.ndarray, lr: float) -> np.ndarray:
    """Per-unit-time rate of (1 - lr a)^k with t = lr k: -ln|1 - lr a| / lr (-> a as lr -> 0)."""
    return -np.log(np.abs(1.0 - lr * np.asarray(a, float))) / lr


def fit_rates(t: np.ndarray, f: np.ndarray, z: np.ndarray, decades: float = 2.0) -> np.ndarray:
    """Exponential rate of each concept coordinate, fitted to a trajectory f (T, s) towards z (s,).

    Least squares of log|z_k - f_k(t)| on t (scipy linregress) over the first stretch of the
    trajectory where the residual is within `decades` orders of magnitude of its start. The
    stretch stops before the residual falls into the noise term of the other coordinates.
    NaN for a coordinate with fewer than 3 usable points (e.g. lr a_k = 1: one-step convergence).
    """
    rates = []
    for k in range(len(z)):
        r = np.abs(z[k] - f[:, k])
        below = np.flatnonzero(r < r[0] * 10.0**-decades)
        stop = below[0] if len(below) else len(r)
        rates.append(-linregress(t[:stop], np.log(r[:stop])).slope if stop >= 3 else np.nan)
    return np.array(rates)


def half_times(t: np.ndarray, f: np.ndarray, z: np.ndarray) -> np.ndarray:
    """First time each coordinate has covered half its way from f_k(0) to z_k (linear interpolation).

    Progress p_k(t) = (f_k(t) - f_k(0)) / (z_k - f_k(0)) is measured from the start, so an
    initial offset (the noise term at t = 0) does not count as learning. f (T, ..., s), z (..., s);
    returns (..., s), inf where half is never reached.
    """
    frac = (f - f[0]) / (z - f[0])
    crossed = frac >= 0.5
    first = np.argmax(crossed, axis=0)
    prev = np.maximum(first - 1, 0)
    f1 = np.take_along_axis(frac, first[None], 0)[0]
    f0 = np.take_along_axis(frac, prev[None], 0)[0]
    w = np.where(first > 0, (0.5 - f0) / np.where(f1 > f0, f1 - f0, 1.0), 0.0)
    return np.where(crossed.any(axis=0), t[prev] + w * (t[first] - t[prev]), np.inf)


# ----------------------------------------------------------------------------------------------
# The limitation: a monotonicity certificate for the OOD loss
# ----------------------------------------------------------------------------------------------


def monotonicity_margin(w0: np.ndarray, a: np.ndarray) -> np.ndarray:
    """lambda_min of sym(C^T C D) with C = (I - W0)[:, :s], D = diag(a_1..a_s) (concept coordinates).

    Under the flow, l(t) = 1/2 ||C v||^2 with v = e^{-D t} z, so dl/dt = -v^T C^T C D v. A
    positive margin proves dl/dt < 0 for every t >= 0 and every test point z in the span of the
    s concept axes: the one-layer OOD loss is then strictly decreasing, i.e. no swing-by.
    w0 (..., d, d); a (d,) with a_k > 0 exactly for k <= s (concept coordinates); returns (...,).
    """
    s = int(np.count_nonzero(a))
    c = (np.eye(w0.shape[-1]) - w0)[..., :, :s]
    m = np.swapaxes(c, -1, -2) @ c * a[:s]
    return np.linalg.eigvalsh(0.5 * (m + np.swapaxes(m, -1, -2)))[..., 0]


def ood_loss_flow(w0: np.ndarray, a: np.ndarray, z: np.ndarray, t: np.ndarray) -> np.ndarray:
    """OOD loss of the flow, 1/2 ||(I - W0) e^{-A t} z||^2 (Theorem 4.1), shape (T, ...).

    Only the coordinates where z is non-zero enter, through the Gram matrix C^T C of
    C = (I - W0)[:, supp z], so a sweep over many d x d initialisations stays cheap.
    """
    idx = np.flatnonzero(z)
    c = (np.eye(w0.shape[-1]) - w0)[..., :, idx]
    gram = np.swapaxes(c, -1, -2) @ c
    v = np.exp(-np.multiply.outer(t, a[idx])) * z[idx]  # (T, s)
    return 0.5 * np.einsum("ti,...ij,tj->t...", v, gram, v, optimize=True)


def is_monotone(loss: np.ndarray, rtol: float = 1e-12) -> np.ndarray:
    """Whether a loss curve (T, ...) never increases along axis 0 (up to rounding)."""
    return np.all(np.diff(loss, axis=0) <= rtol * np.abs(loss[:-1]), axis=0)
