"""Lemmas D.1-D.8 of the Swing-by paper (App. D.2) as checkable inequalities along the discrete update.

Appendix D indexes directions in *ascending* signal strength (for i > j, a_i > a_j: Assumption
D.5 needs a_i - 3 a_j > 0), the reverse of the main text; here every pair (i, j) of Lemma D.7 is
taken with a_i > a_j whatever the order of the input. The discrete update is (D.1)-(D.2):
W(t+1) = W(t) + eta [W A + A W - 1/2 (A W^2 + W^2 A + 2 W A W)].
Inequalities are checked with a relative slack of `RTOL` for floating-point rounding. The constants
and assumptions are in lib.theory.assumptions_d.
"""

from __future__ import annotations

import math

import numpy as np

from lib.theory.assumptions_d import RTOL, Constants, assumption_violations, strong_weak_pairs
from lib.theory.two_layer import gram, noise_term

# ----------------------------------------------------------------------------------------------
# Initializations meeting Assumption D.1
# ----------------------------------------------------------------------------------------------


def spread_init(n: int, d: int, beta: float, omega: float, seed: int = 0, min_eig: float = 0.1) -> np.ndarray:
    """n PSD W(0) = U U^T with every |w_ij(0)| in [omega, beta omega] (Assumption D.1), by rejection.

    Near-singular draws (smallest eigenvalue below `min_eig` times the largest) are rejected too:
    the update (D.1) steps W itself, and rounding can leave a near-singular W(0) with a tiny
    negative eigenvalue that (D.2) then amplifies without bound.
    """
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        w = gram(rng.standard_normal((4096, d, d)))
        m = np.abs(w).reshape(len(w), -1)
        eig = np.linalg.eigvalsh(w)
        ok = (m.max(1) <= beta * m.min(1) * (1 - 1e-6)) & (eig[:, 0] >= min_eig * eig[:, -1])
        out.extend(w[ok] / m[ok].min(1)[:, None, None] * omega * (1 + 1e-6))
    return np.stack(out[:n])


# ----------------------------------------------------------------------------------------------
# The discrete update (D.1)
# ----------------------------------------------------------------------------------------------


def step_coefficients(a: np.ndarray, eta, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(lin, quad) with W(t+1)_ij = lin_ij W_ij + sum_k quad_ijk W_ik W_kj: the update (D.1) with (D.2) written
    entry by entry, (D.2)_ij = (a_i + a_j) w_ij - 1/2 sum_k (a_i + a_j + 2 a_k) w_ik w_kj.

    `a` is (d,) or (n, d), `eta` a number or (n,). Entries first, the n seeds last: lin (d, d, n), quad (d, d, d, n).
    """
    a = np.broadcast_to(np.asarray(a, float), (n, np.shape(a)[-1])).T  # (d, n)
    eta = np.broadcast_to(np.asarray(eta, float), (n,))
    lin = 1 + eta * (a[:, None] + a[None, :])
    quad = -0.5 * eta * (a[:, None, None] + a[None, :, None] + 2 * a[None, None, :])
    return lin, quad


def discrete_run(w0: np.ndarray, a: np.ndarray, eta, steps: int, record: bool = True) -> np.ndarray:
    """W(0..steps) under (D.1)-(D.2): shape (steps + 1, n, d, d), or only W(steps) if not `record`.

    `a` is (d,) or (n, d) and `eta` a number or (n,): several settings advance in one loop. Each step is one
    einsum over the entries of all seeds (`step_coefficients`; the seeds on the last axis, so that numpy's
    loops run over them): the same update as W + eta `two_layer.w_rhs`(W), up to the order of the roundings.
    """
    lin, quad = step_coefficients(a, eta, len(w0))
    w = np.moveaxis(w0, 0, -1).copy()  # (d, d, n)
    out = np.empty((steps + 1 if record else 1,) + w.shape)
    out[0] = w
    for t in range(steps):
        w = w * lin + np.einsum("ikn,kjn,ijkn->ijn", w, w, quad)
        if record:
            out[t + 1] = w
    return np.ascontiguousarray(np.moveaxis(out, -1, 1)) if record else np.moveaxis(w, -1, 0).copy()


def check_settings(
    settings: dict[str, tuple[Constants, np.ndarray]], n: int, steps: int, seed: int = 0
) -> dict[str, dict]:
    """Run (D.1) for every (constants, a) of `settings` in one batched loop and check each.

    Returns, per label: the assumptions violated, the lemma violations, the violations of
    Corollary D.1 as printed (P) and with P^2, W at the last step, and the largest off-diagonal
    |w_ij| over the run relative to the edge P beta omega of the initial phase.
    """
    w0 = {k: spread_init(n, len(a), c.beta, c.omega, seed) for k, (c, a) in settings.items()}
    a_all = np.concatenate([np.tile(a, (n, 1)) for _, a in settings.values()])
    eta_all = np.repeat([c.eta for c, _ in settings.values()], n)
    with np.errstate(over="ignore", invalid="ignore"):
        traj = discrete_run(np.concatenate(list(w0.values())), a_all, eta_all, steps)
    out = {}
    for k, (label, (c, a)) in enumerate(settings.items()):
        w = traj[:, k * n : (k + 1) * n]
        out[label] = {
            "assumptions": assumption_violations(c, a, w0[label]),
            "lemmas": lemma_violations(w, a, c),
            "corollary_p": int(corollary_d1_violations(w, a, c).sum()),
            "corollary_p2": int(corollary_d1_violations(w, a, c, p_power=2).sum()),
            "final": w[-1],
            "offdiag_over_phase": float(
                np.nanmax(np.abs(w[..., ~np.eye(len(a), dtype=bool)])) / (c.P * c.beta * c.omega)
            ),
        }
    return out


# ----------------------------------------------------------------------------------------------
# Lemmas D.1-D.8 (App. D.2)
# ----------------------------------------------------------------------------------------------


def _first_true(mask: np.ndarray) -> np.ndarray:
    """Index of the first True along axis 0, or len if none."""
    return np.where(mask.any(0), mask.argmax(0), len(mask))


def lemma_violations(w: np.ndarray, a: np.ndarray, c: Constants) -> dict[str, np.ndarray]:
    """For each lemma, a boolean (steps + 1, n) array: True where the lemma's inequality fails.

    w is a trajectory (steps + 1, n, d, d) of (D.1).
    """
    with np.errstate(over="ignore", invalid="ignore"):
        return _violations(w, a, c)


def _violations(w: np.ndarray, a: np.ndarray, c: Constants) -> dict[str, np.ndarray]:
    T, d = len(w), len(a)
    t = np.arange(T, dtype=float)[:, None, None, None]
    aij = a[:, None] + a[None, :]
    m0, m = np.abs(w[0]), np.abs(w)
    diag = np.diagonal(w, axis1=-2, axis2=-1)  # (T, n, d)
    off = ~np.eye(d, dtype=bool)
    phase = c.P * c.beta * c.omega  # edge of the initial phase (Def. D.1)
    slack = 1 + RTOL
    v = {}

    # D.1: |w_ij(t)| <= |w_ij(0)| exp(eta t (a_i + a_j) kappa)   (D.11)
    bound = m0 * np.exp(np.minimum(c.eta * t * aij * c.kappa, 700))
    v["D.1"] = (m > bound * slack).any((-2, -1))

    # D.2: for t <= T1, |w_ij(t)| >= |w_ij(0)| exp(eta t (a_i + a_j) / kappa), same sign, initial phase   (D.23)
    t1 = math.log(c.P) / (2 * c.eta * c.gamma * c.alpha * c.kappa)
    early = t <= t1
    low = m0 * np.exp(c.eta * t * aij / c.kappa)
    bad = (m * slack < low) | (w * w[0] <= 0) | (m > phase * slack)
    v["D.2"] = (early & bad).any((-2, -1))

    # D.3: for t <= T1^(i), w_ii(t) >= w_ii(0) exp(2 eta t a_i / kappa), initial phase   (D.35)
    tt = t[..., 0]
    t1i = np.log(phase / diag[0]) / (2 * c.eta * a * c.kappa)
    bad = (diag * slack < diag[0] * np.exp(2 * c.eta * tt * a / c.kappa)) | (diag > phase * slack)
    v["D.3"] = ((tt <= t1i) & bad).any(-1)

    # D.4: from t0 (w_ii >= P beta omega) while w_ii < lambda: w_ii(t0 + t) >= w_ii(t0) exp(2 eta t a_i (1 - lambda) / kappa)   (D.36)
    t0 = _first_true(diag >= phase)  # (n, d)
    steps = np.arange(T)[:, None, None]
    w_t0 = np.take_along_axis(diag, np.minimum(t0, T - 1)[None], 0)
    v["D.4"] = np.zeros((T, diag.shape[1]), bool)
    for lam in (0.5, 0.85, 1 - 1 / c.K - 1e-9):
        reached = steps >= t0
        before = steps < np.maximum(t0, _first_true((diag >= lam) & reached))
        low = w_t0 * np.exp(2 * c.eta * (steps - t0) * a * (1 - lam) / c.kappa)
        v["D.4"] |= (reached & before & (diag * slack < low) & (diag >= 0)).any(-1) | (diag < 0).any(-1)

    # D.5 and Corollary D.2: 0 <= w_ii <= 1 + 2/K and |w_ii(t+1) - w_ii(t)| <= 1/K
    jump = np.vstack([np.zeros((1,) + diag.shape[1:]), np.abs(np.diff(diag, axis=0))])
    v["D.5"] = ((diag < 0) | (diag > (1 + 2 / c.K) * slack) | (jump > slack / c.K)).any(-1)

    # D.6: once w_ii >= 1 - 2/K it stays there
    floor = 1 - 2 / c.K
    v["D.6"] = ((steps >= _first_true(diag >= floor)) & (diag * slack < floor)).any(-1)

    # D.7: for a_i > a_j, after the first t0 with w_ii > 0.8: |w_ij(t)| <= max(|w_ij(t0)|, omega)   (D.57)
    v["D.7"] = np.zeros((T, diag.shape[1]), bool)
    for i, j in strong_weak_pairs(a):
        t0 = _first_true(diag[:, :, i] > 0.8)  # (n,)
        ref = np.abs(w[np.minimum(t0, T - 1), np.arange(len(t0)), i, j])
        cap = np.maximum(ref, c.omega) * slack
        v["D.7"] |= (steps[..., 0] >= t0) & (np.abs(w[:, :, i, j]) > cap)

    # D.8 (Assertion D.1): off-diagonal entries stay in the initial phase
    v["D.8"] = ((m > phase * slack) & off).any((-2, -1))
    return v


def corollary_d1_violations(w: np.ndarray, a: np.ndarray, c: Constants, p_power: int = 1) -> np.ndarray:
    """Where |N_ij(t)| > 2 P^p gamma alpha d beta^2 omega^2 fails: (steps + 1, n).

    p_power=1 is Corollary D.1 as printed; with every off-diagonal entry below P beta omega the
    sum over k of |w_ki w_kj| is only bounded by P^2 beta^2 omega^2, so p_power=2 is the bound
    Assertion D.1 actually gives.
    """
    return noise_peak(w, a) > corollary_d1_cap(c, len(a), p_power)


def noise_peak(w: np.ndarray, a: np.ndarray) -> np.ndarray:
    """The largest |N_ij(t)| over the entries (eq. D.6), (steps + 1, n); entries that are NaN (a run that
    overflowed) are passed over, so that `noise_peak > cap` is "some |N_ij| exceeds cap"."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.fmax.reduce(np.abs(noise_term(w, a)).reshape(w.shape[:-2] + (-1,)), axis=-1)


def corollary_d1_cap(c: Constants, d: int, p_power: int = 1) -> float:
    """The bound 2 P^p gamma alpha d beta^2 omega^2 of Corollary D.1 (p = 1 as printed), with the slack RTOL."""
    return 2 * c.P**p_power * c.gamma * c.alpha * d * c.beta**2 * c.omega**2 * (1 + RTOL)


def first_failure(violations: dict[str, np.ndarray]) -> tuple[str | None, int | None]:
    """(lemma, step) of the earliest violation over all seeds; (None, None) if none."""
    firsts = {k: int(np.flatnonzero(v.any(1))[0]) for k, v in violations.items() if v.any()}
    if not firsts:
        return None, None
    name = min(firsts, key=lambda k: (firsts[k], k))
    return name, firsts[name]
