"""Symmetric two-layer linear model f(U; x) = U U^T x (Swing-by paper, Section 4.2, App. D, E).

The Jacobian W = U U^T of the model trained on L(U) = 1/2 ||(U U^T - I) A^{1/2}||_F^2 moves by
the flow (D.2). Gradient flow on U gives dW/dt = 2 x (D.2); this module integrates
dU/dtau = -1/2 grad L(U), so that tau is the paper's time and dW/dtau is exactly (D.2).
Stepping U keeps W positive semi-definite; stepping W directly does not.

Everything is batched over init seeds: U has shape (n, d, d'), W has shape (..., n, d, d).
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.integrate import solve_ivp

from lib.sim.data import population_second_moment, sim_dataset

# ----------------------------------------------------------------------------------------------
# Signal strengths
# ----------------------------------------------------------------------------------------------


def signal_strengths(mu, std, d: int, covariance_power: int = 1) -> np.ndarray:
    """Diagonal a of A = diag(sigma^2 + mu^2 / s) (eq. C.13), raised to `covariance_power`.

    Power 1 is the paper's derivation; power 2 is what the authors' theory script used (S = A^2).
    """
    return population_second_moment(mu, std, d) ** covariance_power


# ----------------------------------------------------------------------------------------------
# The Jacobian flow and its three terms (eq. 4.3, D.2-D.6)
# ----------------------------------------------------------------------------------------------


def w_rhs(w: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Right-hand side of (D.2): W A + A W - 1/2 (A W^2 + W^2 A + 2 W A W).

    `a` is (d,), or (n, d) for a batch of n settings matching w (n, d, d).
    """
    wa, aw = w * a[..., None, :], a[..., :, None] * w
    return wa + aw - 0.5 * (aw @ w + w @ wa + 2 * wa @ w)


def growth_term(w: np.ndarray, a: np.ndarray) -> np.ndarray:
    """G_ij = w_ij (a_i + a_j) (eq. D.4)."""
    return _growth(w, a[:, None], a[None, :])


def suppression_term(w: np.ndarray, a: np.ndarray) -> np.ndarray:
    """S_ij = 1/2 w_ij [w_ii (3 a_i + a_j) + 1{i != j} w_jj (3 a_j + a_i)] (eq. D.5)."""
    diag = np.diagonal(w, axis1=-2, axis2=-1)
    return _suppression(w, diag[..., :, None], diag[..., None, :], a[:, None], a[None, :], 1.0 - np.eye(len(a)))


def _growth(wij: np.ndarray, ai: np.ndarray, aj: np.ndarray) -> np.ndarray:
    """G_ij (eq. D.4) from the entry and the strengths, each an array broadcasting to the entries wanted."""
    return wij * (ai + aj)


def _suppression(wij, wii, wjj, ai, aj, off) -> np.ndarray:
    """S_ij (eq. D.5) from w_ij, w_ii, w_jj, a_i, a_j and off = 1{i != j}, arrays broadcasting to the entries."""
    return 0.5 * wij * (wii * (3 * ai + aj) + off * wjj * (3 * aj + ai))


def noise_term(w: np.ndarray, a: np.ndarray) -> np.ndarray:
    """N_ij = 1/2 sum_{k != i, j} w_ki w_kj (a_i + a_j + 2 a_k) (eq. D.6)."""
    d = len(a)
    keep = 1.0 - np.eye(d)[:, :, None] - np.eye(d)[:, None, :]  # (k, i, j): 0 where k == i or k == j
    keep = np.clip(keep, 0.0, 1.0)
    weight = a[None, :, None] + a[None, None, :] + 2 * a[:, None, None]
    return 0.5 * np.einsum("...ki,...kj,kij->...ij", w, w, keep * weight)


def terms(w: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(G, S, N) with dW/dtau = G - S - N (eq. 4.3)."""
    return growth_term(w, a), suppression_term(w, a), noise_term(w, a)


# ----------------------------------------------------------------------------------------------
# Initialization
# ----------------------------------------------------------------------------------------------


def init_u(n: int, d: int, width: int, scale: float, kind: str = "gaussian", seed: int = 0) -> np.ndarray:
    """n initial U of shape (d, width), one per seed of the batch.

    "gaussian": entries N(0, scale^2) (App. E.2). "uniform": entries U[0, scale) as in the
    authors' theory script (scale 0.2 there), which makes every entry of W positive.
    """
    rng = np.random.default_rng(seed)
    if kind == "gaussian":
        return scale * rng.standard_normal((n, d, width))
    if kind == "uniform":
        return scale * rng.random((n, d, width))
    raise ValueError(f"unknown init kind {kind!r}: use 'gaussian' or 'uniform'")


def gram(u: np.ndarray) -> np.ndarray:
    """W = U U^T, batched."""
    return u @ np.swapaxes(u, -1, -2)


# ----------------------------------------------------------------------------------------------
# Integrating the flow by stepping U (batched over seeds)
# ----------------------------------------------------------------------------------------------


def u_rhs(u: np.ndarray, a: np.ndarray) -> np.ndarray:
    """dU/dtau = -1/2 grad L(U) = -1/2 [(W - I) A + A (W - I)] U, so that dW/dtau is (D.2)."""
    e = gram(u) - np.eye(len(a))
    return -0.5 * (e * a + a[:, None] * e) @ u


def integrate(u0: np.ndarray, a: np.ndarray, times: np.ndarray, rtol: float = 1e-8) -> np.ndarray:
    """W(tau) at `times` for every seed: (n_times, n, d, d). One adaptive Runge-Kutta solve for the batch.

    solve_ivp controls the RMS error over the whole state, so the tolerance is divided by
    sqrt(n): each seed is then held to about `rtol`, as if it were solved alone.
    """
    shape = u0.shape
    tight = rtol / np.sqrt(shape[0])

    def fun(_t, y):
        return u_rhs(y.reshape(shape), a).ravel()

    sol = solve_ivp(
        fun,
        (0.0, float(times[-1])),
        u0.ravel(),
        method="DOP853",
        t_eval=times,
        rtol=tight,
        atol=1e-6 * tight * float(np.abs(u0).max()),
    )
    if not sol.success:
        raise RuntimeError(f"flow integration failed: {sol.message}")
    return gram(sol.y.T.reshape((len(times),) + shape))


def time_grid(horizon: float, n: int, start: float = 1e-2) -> np.ndarray:
    """0 followed by log-spaced times up to `horizon` (stages live on many time scales)."""
    return np.concatenate([[0.0], np.geomspace(start, horizon, n - 1)])


# ----------------------------------------------------------------------------------------------
# Observables: OOD loss, training loss, outputs
# ----------------------------------------------------------------------------------------------


def test_point(mu, d: int) -> np.ndarray:
    """x_hat = sum_p mu_p e_p (Section 2.1)."""
    x = np.zeros(d)
    x[: len(mu)] = mu
    return x


def ood_loss(w: np.ndarray, mu) -> np.ndarray:
    """1/2 ||W x_hat - x_hat||^2: the squared error of eq. (2.1) at the OOD test point x_hat = sum_p mu_p 1_p
    (Section 2.1, "Evaluation"), for the linear model f(W; x) = W x (the test loss of Fig. 5, Sec. 4.2)."""
    x = test_point(mu, w.shape[-1])
    return 0.5 * (((w - np.eye(len(x))) @ x) ** 2).sum(-1)


def train_loss(w: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Population training loss 1/2 ||(W - I) A^{1/2}||_F^2 (eq. C.6)."""
    e = w - np.eye(len(a))
    return 0.5 * (e**2 * a).sum((-2, -1))


def cluster_mean_outputs(w: np.ndarray, mu) -> np.ndarray:
    """f(mu_p e_p) = mu_p W[:, p] for every training cluster p: (..., s, d) (App. F.4, Fig. 18)."""
    mu = np.asarray(mu, float)
    return np.swapaxes(w[..., :, : len(mu)] * mu, -1, -2)


# ----------------------------------------------------------------------------------------------
# Shape of a loss curve: extrema, descents, bumps
# ----------------------------------------------------------------------------------------------


def turning_points(curve: np.ndarray, tol: float) -> list[int]:
    """Indices of alternating local extrema of `curve`, ignoring swings smaller than `tol`.

    A zig-zag filter: a new extremum is confirmed only once the curve has moved more than
    `tol` back from it, so numerical noise never counts as a descent. The list starts at
    index 0 and ends at the last index.
    """
    points, direction, ext = [0], 0, 0
    for i in range(1, len(curve)):
        if direction == 0:  # not yet moved by more than tol from the start
            if abs(curve[i] - curve[0]) > tol:
                direction, ext = (1 if curve[i] > curve[0] else -1), i
        elif (curve[i] - curve[ext]) * direction >= 0:
            ext = i  # the current run goes on
        elif abs(curve[i] - curve[ext]) > tol:
            points.append(ext)  # confirmed extremum: the curve turned by > tol
            direction, ext = -direction, i
    points += sorted({k for k in (ext, len(curve) - 1) if k > points[-1]})
    return points


def swings(curve: np.ndarray, tol: float) -> np.ndarray:
    """Signed changes between consecutive turning points larger than `tol`."""
    pts = turning_points(curve, tol)
    delta = np.diff(curve[pts])
    return delta[np.abs(delta) > tol]


def count_descents(curve: np.ndarray, tol: float) -> int:
    """Number of decreases by more than `tol` between consecutive extrema (1 = monotone descent)."""
    return int((swings(curve, tol) < 0).sum())


def max_bump(curve: np.ndarray, tol: float) -> float:
    """Largest rise between a local minimum and the next local maximum (0 if none exceeds `tol`)."""
    up = swings(curve, tol)
    up = up[up > 0]
    return float(up.max()) if len(up) else 0.0


def descents_batch(curves: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """(descents, max bump) for every column of `curves` (n_times, n_seeds) at once.

    The zig-zag filter of `turning_points`, stepped through time for all seeds together.
    """
    prev = curves[0].copy()  # last confirmed extremum (the start at first)
    ext = curves[0].copy()  # running extremum of the current run
    direction = np.zeros(curves.shape[1])
    descents = np.zeros(curves.shape[1], int)
    bump = np.zeros(curves.shape[1])
    for x in curves[1:]:
        start = (direction == 0) & (np.abs(x - prev) > tol)
        goes_on = (direction != 0) & ((x - ext) * direction >= 0)
        turn = (direction != 0) & ~goes_on & (np.abs(x - ext) > tol)
        delta = np.where(turn, ext - prev, 0.0)
        descents += delta < -tol
        bump = np.maximum(bump, delta)
        prev = np.where(turn, ext, prev)
        direction = np.where(start, np.sign(x - prev), np.where(turn, -direction, direction))
        ext = np.where(start | goes_on | turn, x, ext)
    delta = np.where(direction != 0, ext - prev, 0.0)
    descents += delta < -tol
    bump = np.maximum(bump, np.where(delta > tol, delta, 0.0))
    return descents, np.where(bump > tol, bump, 0.0)


# ----------------------------------------------------------------------------------------------
# Stages from the terms (Sec. 4.2.1)
# ----------------------------------------------------------------------------------------------


def _half_max_window(rate: np.ndarray, times: np.ndarray) -> tuple[float, float] | None:
    """Times where a positive pulse `rate` is above half its peak (None if it never is positive)."""
    if rate.max() <= 0:
        return None
    above = np.flatnonzero(rate >= 0.5 * rate.max())
    return float(times[above[0]]), float(times[above[-1]])


def stages(
    w: np.ndarray, a: np.ndarray, s: int, times: np.ndarray, minor_floor: float
) -> list[tuple[str, str, float, float]]:
    """Growth and suppression stages of one trajectory w (n_times, d, d), computed from the terms.

    Growth stage of major entry p: where its net growth G_pp - S_pp is above half its peak.
    Suppression stage of a minor entry (i, j) (i < s or j < s, i < j): where the suppression
    rate sign(w_ij) (S_ij - G_ij) is above half its peak, for entries whose magnitude ever
    exceeds `minor_floor`. Returns (kind, entry label, start, end), sorted by start.
    """
    g, sup, _ = terms(w, a)
    out = []
    for p in range(s):
        win = _half_max_window(g[:, p, p] - sup[:, p, p], times)
        if win:
            out.append(("growth", f"w{p + 1}{p + 1}", *win))
    d = w.shape[-1]
    for i in range(d):
        for j in range(i + 1, d):
            if i >= s or np.abs(w[:, i, j]).max() < minor_floor:
                continue
            rate = np.sign(w[:, i, j]) * (sup[:, i, j] - g[:, i, j])
            win = _half_max_window(rate, times)
            if win:
                out.append(("suppression", f"w{i + 1}{j + 1}", *win))
    return sorted(out, key=lambda st: st[2])


def stage_alignment(curve: np.ndarray, times: np.ndarray, stage_list, tol: float) -> float:
    """Fraction of the curve's descents that overlap a growth stage and rises that overlap a suppression stage."""
    pts = turning_points(curve, tol)
    hits, total = 0, 0
    for lo, hi in itertools.pairwise(pts):
        change = curve[hi] - curve[lo]
        if abs(change) <= tol:
            continue
        kind = "growth" if change < 0 else "suppression"
        total += 1
        hits += any(k == kind and st < times[hi] and en > times[lo] for k, _, st, en in stage_list)
    return hits / total if total else float("nan")


def turning_points_batch(curves: np.ndarray, tol: float) -> np.ndarray:
    """`turning_points` of every column of `curves` (n_times, n) at once: (n, k) time indices, each row the
    list of its column padded with -1 at the end. The zig-zag filter stepped through time for all columns."""
    n_times, n = curves.shape
    seeds = np.arange(n)
    direction = np.zeros(n)
    ext = np.zeros(n, int)
    turns = []  # (columns, confirmed extremum) per time step, in time order
    for i in range(1, n_times):
        x, at_ext = curves[i], curves[ext, seeds]
        start = (direction == 0) & (np.abs(x - curves[0]) > tol)
        goes_on = (direction != 0) & ((x - at_ext) * direction >= 0)
        turn = (direction != 0) & ~goes_on & (np.abs(x - at_ext) > tol)
        if turn.any():
            turns.append((seeds[turn], ext[turn]))
        direction = np.where(start, np.where(x > curves[0], 1.0, -1.0), np.where(turn, -direction, direction))
        ext = np.where(start | goes_on | turn, i, ext)
    cols = np.concatenate([c for c, _ in turns] + [np.zeros(0, int)])
    points = np.concatenate([p for _, p in turns] + [np.zeros(0, int)])
    order = np.argsort(cols, kind="stable")  # by column, each in time order
    cols, points = cols[order], points[order]
    counts = np.bincount(cols, minlength=n)
    out = np.full((n, counts.max(initial=0) + 3), -1)
    out[:, 0] = 0
    out[cols, 1 + np.arange(len(cols)) - np.repeat(np.cumsum(counts) - counts, counts)] = points
    last = out[seeds, counts]  # the last confirmed extremum (0 if none)
    tail_ext = ext > last
    out[seeds[tail_ext], 1 + counts[tail_ext]] = ext[tail_ext]
    end = 1 + counts + tail_ext
    tail_end = n_times - 1 > np.where(tail_ext, ext, last)
    out[seeds[tail_end], end[tail_end]] = n_times - 1
    return out


def stage_windows_all(
    w: np.ndarray, a: np.ndarray, s: int, times: np.ndarray, minor_floor: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The windows of `stages` for every seed of w (n_times, n, d, d) at once, one column per candidate entry
    (the major entries w_pp, p < s, then the minor w_ij, i < s, i < j): growth (m,), whether a column is a
    growth window; start and end (n, m), its times; present (n, m), whether the seed has that window."""
    iu, ju = np.triu_indices(w.shape[-1], 1)
    keep = iu < s  # the minor entries, row by row as `stages` visits them
    i, j = np.concatenate([np.arange(s), iu[keep]]), np.concatenate([np.arange(s), ju[keep]])
    entries = np.moveaxis(w, (-2, -1), (0, 1))  # (d, d, n_times, n): numpy then loops over the seeds, not 2 x 2
    wij, ai, aj = entries[i, j], a[i][:, None, None], a[j][:, None, None]
    g = _growth(wij, ai, aj)
    sup = _suppression(wij, entries[i, i], entries[j, j], ai, aj, (i != j)[:, None, None].astype(float))
    major = (np.arange(len(i)) < s)[:, None, None]
    rate = np.moveaxis(np.where(major, g - sup, np.sign(wij) * (sup - g)), 0, -1)  # (n_times, n, m)
    peak = rate.max(0)
    above = rate >= 0.5 * peak
    start = times[above.argmax(0)]
    end = times[len(times) - 1 - above[::-1].argmax(0)]
    big = np.moveaxis(np.abs(wij).max(1) >= minor_floor, 0, -1)
    present = (peak > 0) & (big | major[:, 0, 0])
    return major[:, 0, 0], start, end, present


def alignment_with_windows(
    curves: np.ndarray,
    times: np.ndarray,
    tol: float,
    growth: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    present: np.ndarray,
) -> np.ndarray:
    """`stage_alignment` of every column of `curves` (n_times, n) against windows as `stage_windows_all` gives
    them: the fraction of its descents that overlap a growth window and rises that overlap a suppression
    window, (n,), nan where no swing counts."""
    pts = turning_points_batch(curves, tol)
    lo, hi = pts[:, :-1], pts[:, 1:]
    valid = hi >= 0
    seeds = np.arange(curves.shape[1])[:, None]
    change = np.where(valid, curves[np.maximum(hi, 0), seeds] - curves[np.maximum(lo, 0), seeds], 0.0)
    counted = valid & (np.abs(change) > tol)
    wanted = (change < 0)[..., None] == growth  # (n, k, m): the window kind each swing needs
    t_lo, t_hi = times[np.maximum(lo, 0)][..., None], times[np.maximum(hi, 0)][..., None]
    overlap = (start[:, None] < t_hi) & (end[:, None] > t_lo)
    hits = (counted & (wanted & overlap & present[:, None]).any(-1)).sum(1)
    total = counted.sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, hits / total, np.nan)


def stage_alignment_all(
    w: np.ndarray, loss: np.ndarray, a: np.ndarray, s: int, times: np.ndarray, tol: float, minor_floor: float = 0.05
) -> np.ndarray:
    """`stage_alignment` of every seed: w (n_times, n, d, d), loss (n_times, n) -> (n,), nan where no swing counts.

    All seeds at once (`stage_windows_all`, `alignment_with_windows`), equal to the one-seed functions."""
    return alignment_with_windows(loss, times, tol, *stage_windows_all(w, a, s, times, minor_floor))


def stage_alignment_fraction(alignment: np.ndarray, among: np.ndarray | None = None):
    """Estimate of the fraction of seeds (`among` a mask, default all with a counted swing) whose every
    descent overlaps a growth stage and every rise a suppression stage (alignment == 1), Wilson interval."""
    from lib.util.stats import fraction

    alignment = np.asarray(alignment, float)
    keep = np.isfinite(alignment) if among is None else np.asarray(among, bool) & np.isfinite(alignment)
    return fraction(alignment[keep] == 1.0)


# ----------------------------------------------------------------------------------------------
# Outputs at the training-cluster means: detours and their stages (App. F.4, Fig. 18)
# ----------------------------------------------------------------------------------------------


def learned_concepts(w: np.ndarray, s: int, half: float = 0.5) -> np.ndarray:
    """Stage index: how many major entries w_pp (p < s) have reached `half` (..., n) from w (..., n, d, d)."""
    return (np.diagonal(w, axis1=-2, axis2=-1)[..., :s] >= half).sum(-1)


def cluster_detours(w: np.ndarray, mu, half: float = 0.5) -> dict[str, np.ndarray]:
    """The off-axis excursion of the output at every training-cluster mean, for every seed (Fig. 18).

    The output at mu_p e_p is mu_p W[:, p] (App. F.4); its off-axis part is the norm of its
    coordinates k != p. The test of "non-regular behaviours at different stages" (App. F.4):
    peak_time (n, s) is the time index of each cluster's largest off-axis excursion, stage (n, s)
    the number of concepts learned (w_qq >= `half`) at that time, and `different_stages` (n,)
    whether the s clusters peak at s different stages. In d = s = 2 both off-axis parts are
    multiples of the one entry w_12 = w_21, so their peaks coincide: the test can only pass
    when irrelevant entries (d > s) move the outputs. `ratio` (n, s): peak over initial excursion.
    """
    s = len(mu)
    out = cluster_mean_outputs(w, mu)  # (T, n, s, d)
    off = np.linalg.norm(out * (1.0 - np.eye(s, w.shape[-1])), axis=-1)  # (T, n, s)
    peak = off.argmax(0)  # (n, s)
    stage_t = learned_concepts(w, s, half)  # (T, n)
    stage = stage_t[peak, np.arange(peak.shape[0])[:, None]]  # (n, s)
    distinct = np.array([len(set(row)) for row in stage])
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = off.max(0) / off[0]
    return {"peak_time": peak, "stage": stage, "different_stages": distinct == s, "ratio": ratio}


# ----------------------------------------------------------------------------------------------
# Direct training of U with torch on sampled SIM data
# ----------------------------------------------------------------------------------------------


def train_u(
    u0: np.ndarray,
    mu,
    sigma,
    n_per_cluster: int,
    lr: float,
    steps: int,
    record_every: int,
    batch: int | None = None,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Train U U^T x on sampled SIM data with torch (full batch, or SGD with `batch` per step).

    Loss 1/(2N) sum ||U U^T x - x||^2 (full batch: written through the sample second moment, the same
    loss at O(d^2) per step instead of O(N d)), gradient by autograd, every seed of the batch u0
    (n, d, d') trained at once. Gradient descent with step lr on L for k steps follows
    dU/dt = -grad L at t = k lr, i.e. the paper's time tau = 2 k lr. Returns (tau, W) at
    every `record_every` steps, W of shape (n_records, n, d, d).
    """
    import torch  # here: the flow and everything else of this module run without it

    d = u0.shape[1]
    data = sim_dataset(mu, sigma, d, n_per_cluster, seed=seed)
    x = torch.as_tensor(data.x, dtype=torch.float64)
    second, eye = x.T @ x / len(x), torch.eye(d, dtype=torch.float64)  # 1/(2N) sum ||(W-I)x||^2 = 1/2 tr(E S E^T)
    u = torch.tensor(u0, dtype=torch.float64, requires_grad=True)
    gen = torch.Generator().manual_seed(seed)
    taus, ws = [], []
    for step in range(steps + 1):
        if step % record_every == 0:
            with torch.no_grad():
                taus.append(2 * lr * step)
                ws.append((u @ u.transpose(1, 2)).numpy().copy())
        if step == steps:
            break
        w = (u[:, :, None, :] * u[:, None, :, :]).sum(-1)  # U U^T entry by entry: no tiny matmuls to differentiate
        if batch is None:  # the full-batch loss through the sample second moment
            e = w - eye
            loss = 0.5 * ((e @ second) * e).sum()
        else:
            xb = x[torch.randint(len(x), (u.shape[0], batch), generator=gen)]
            loss = (0.5 / batch) * ((xb @ w - xb) ** 2).sum()  # W symmetric: x W = (W x)^T
        (grad,) = torch.autograd.grad(loss, u)
        with torch.no_grad():
            u.add_(grad, alpha=-lr)  # a plain gradient step, as torch.optim.SGD takes it
    return np.array(taus), np.stack(ws)


def empirical_train_loss(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Training loss 1/(2N) sum_n ||(W - I) x_n||^2 on the sampled set x (N, d), for W (..., d, d)."""
    second = x.T @ x / len(x)
    e = w - np.eye(x.shape[1])
    return 0.5 * np.einsum("...ij,jk,...ik->...", e, second, e)


def training_curves(
    u0: np.ndarray,
    mu,
    sigma,
    n_per_cluster: int,
    lr: float,
    steps: int,
    record_every: int,
    batch: int | None = None,
    seed: int = 0,
) -> dict[str, np.ndarray]:
    """Train every seed of u0 with `train_u` (GD, or SGD with `batch`) and record, per seed, the full
    training loss on the sampled set and the OOD loss: tau (T,), w, train (T, n), ood (T, n)."""
    tau, w = train_u(u0, mu, sigma, n_per_cluster, lr, steps, record_every, batch, seed)
    x = sim_dataset(mu, sigma, u0.shape[1], n_per_cluster, seed=seed).x
    return {"tau": tau, "w": w, "train": empirical_train_loss(w, x), "ood": ood_loss(w, mu)}


# ----------------------------------------------------------------------------------------------
# Ensembles: how often, and the failure mode (Sec. 4.2.2, App. E.1, E.3)
# ----------------------------------------------------------------------------------------------


def ensemble(
    mu,
    sigma,
    d: int,
    width: int,
    scale: float,
    kind: str,
    n: int,
    horizon: float,
    n_times: int,
    tol: float,
    covariance_power: int = 1,
    seed: int = 0,
) -> dict[str, np.ndarray]:
    """Integrate n init seeds of one setting; OOD loss curves, descents and bumps per seed.

    `tol` is relative to the mean initial OOD loss. Returns times, u0, W (n_times, n, d, d),
    loss (n_times, n), descents (n,), bump (n,), a.
    """
    a = signal_strengths(mu, sigma, d, covariance_power)
    u0 = init_u(n, d, width, scale, kind, seed)
    times = time_grid(horizon, n_times)
    w = integrate(u0, a, times)
    loss = ood_loss(w, mu)
    desc, bump = descents_batch(loss, tol * loss[0].mean())
    return {"times": times, "u0": u0, "w": w, "loss": loss, "descents": desc, "bump": bump, "a": a}


def nonmonotone_fraction(
    mu,
    sigma,
    d: int,
    scale: float,
    kind: str,
    n: int,
    horizon: float,
    n_times: int,
    tol: float,
    covariance_power: int = 1,
    seed: int = 0,
    width: int | None = None,
):
    """Estimate of the fraction of n seeds (width d' = d unless given) whose OOD loss rises by more than `tol`.

    Wilson interval (lib.util.stats.fraction). `covariance_power` 2 is the authors' script (S = A^2).
    """
    run = ensemble(mu, sigma, d, width or d, scale, kind, n, horizon, n_times, tol, covariance_power, seed)
    return swing_fractions(run["descents"], run["bump"])["nonmonotone"]


def swing_fractions(descents: np.ndarray, bump: np.ndarray) -> dict:
    """Over all seeds, with Wilson intervals: "nonmonotone" (some rise above the tolerance, i.e. bump > 0)
    and "two_descents" (at least two descents; a curve that only rises at the start has one)."""
    from lib.util.stats import fraction

    return {"nonmonotone": fraction(np.asarray(bump) > 0), "two_descents": fraction(np.asarray(descents) >= 2)}


def fraction_difference(a: np.ndarray, b: np.ndarray):
    """Estimate of P(a) - P(b) for two independent samples of booleans (Newcombe's score interval,
    statsmodels `confint_proportions_2indep`); n is the smaller sample."""
    from statsmodels.stats.proportion import confint_proportions_2indep

    from lib.util.stats import Estimate

    a, b = np.asarray(a, bool).ravel(), np.asarray(b, bool).ravel()
    low, high = confint_proportions_2indep(int(a.sum()), a.size, int(b.sum()), b.size, method="newcomb")
    return Estimate(float(a.mean() - b.mean()), float(low), float(high), int(min(a.size, b.size)), "newcombe 95%")


def descent_fraction(descents: np.ndarray, k: int):
    """Estimate of the fraction of seeds with at least k descents (triple: k = 3, quadruple: k = 4)."""
    from lib.util.stats import fraction

    return fraction(np.asarray(descents) >= k)


def positive_minor(w0: np.ndarray, a: np.ndarray, s: int) -> np.ndarray:
    """Whether some minor entry w_kq(0), k <= s, k != q, of the strongest direction q is positive (Sec. 4.2.2)."""
    q = int(np.argmax(a[:s]))
    rows = [k for k in range(s) if k != q]
    return (w0[:, rows, q] > 0).any(-1)


def failure_summary(
    w: np.ndarray,
    times: np.ndarray,
    mu,
    shrink: float = 0.5,
    learned: float = 0.9,
    missing: float = 0.1,
    escaped: float = 0.5,
) -> dict[str, np.ndarray]:
    """The Fig. 10 failure in every seed: the weakest direction p suppressed while the others are learned.

    suppressed: w_pp falls below `shrink` times its initial value before it grows;
    plateau: suppressed, and some time has w_jj > `learned` for every j != p while w_pp < `missing`;
    plateau_loss: the OOD loss at the first such time; escape: the first time w_pp > `escaped`
    (inf if it never does within the horizon).
    """
    mu = np.asarray(mu, float)
    p, s = int(np.argmin(mu)), len(mu)
    diag = np.diagonal(w, axis1=-2, axis2=-1)[..., :s]
    others = np.delete(diag, p, axis=-1)
    stuck = (others > learned).all(-1) & (diag[..., p] < missing)  # (n_times, n)
    suppressed = diag[..., p].min(0) < shrink * diag[0, :, p]
    first = stuck.argmax(0)
    loss = ood_loss(w, mu)
    up = diag[..., p] > escaped
    escape = np.where(up.any(0), times[up.argmax(0)], np.inf)
    return {
        "suppressed": suppressed,
        "plateau": suppressed & stuck.any(0),
        "plateau_loss": loss[first, np.arange(len(first))],
        "escape": escape,
    }


def escape_time_median(escape: np.ndarray, horizon: float, seed: int = 0):
    """Median escape time of w_pp over the given seeds with a bootstrap interval (lib.util.stats).

    Seeds that never escape within `horizon` are censored at it: the median is exact while fewer
    than half are censored (the method says how many were)."""
    from lib.util.stats import Estimate, bootstrap_median

    escape = np.asarray(escape, float)
    censored = int(np.isinf(escape).sum())
    est = bootstrap_median(np.where(np.isinf(escape), horizon, escape), seed=seed)
    return Estimate(est.value, est.low, est.high, est.n, f"{est.method}, {censored} censored at {horizon:g}")


def gaussian_init_moments(width: int, tau: float, samples: int, d: int = 2, seed: int = 0) -> tuple[float, float]:
    """Monte Carlo (mean w_11, mean w_12) for U with N(0, tau^2) entries (App. E.2, eq. E.1)."""
    w = gram(init_u(samples, d, width, tau, "gaussian", seed))
    return float(w[:, 0, 0].mean()), float(w[:, 0, 1].mean())
