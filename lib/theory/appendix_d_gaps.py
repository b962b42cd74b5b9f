"""Gaps in Appendix D of the Swing-by paper, each as a computation.

1. (D.60) -> (D.61): with w_ij >= omega and a_i - 3 a_j >= alpha / C (Assumption D.5),
   (D.60) = -(w_ij / 5)(a_i - 3 a_j) is only <= -omega alpha / (5 C), not -omega alpha / C; with the
   factor 1/5 the noise bound of (D.63) is no longer dominated: (D.64) does not follow.
2. Assumption D.1 needs a_k >= alpha > 0 for every k, but a_k = 0 for k > s (C.13): d > s is excluded.
3. Lemmas D.4 and D.5 use that W stays PSD; the recursion (D.1) does not keep it (Euler on W =
   the exact step of U minus eta^2 dU dU^T), so a rank-deficient W(0) within every assumption leaves
   the PSD cone at the first step and its diagonal later turns negative.
4. The multiple-descent settings of Figs. 8 and 9 violate a_i >= 3 a_j of Assumption D.5.
5. Two definitions of T_1: kappa log P / (2 eta gamma alpha) in the proof of Lemma D.1,
   log P / (2 eta gamma alpha kappa) in Lemma D.2, a factor kappa^2 apart.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from lib.theory import two_layer as tl
from lib.theory.assumptions_d import Constants, assumption_violations
from lib.theory.lemmas import discrete_run, first_failure, lemma_violations
from lib.theory.symbolic_two_layer import d2_rhs

# ----------------------------------------------------------------------------------------------
# (D.60) -> (D.61) -> (D.64)
# ----------------------------------------------------------------------------------------------


def d60_over_d61() -> sp.Expr:
    """(D.60) at the edge of the assumptions (w_ij = omega, a_i = 3 a_j + alpha / C) divided by (D.61)'s
    bound -omega alpha / C, simplified: 1/5 (the step (i) claims >= 1)."""
    w, aj, alpha, c = sp.symbols("omega a_j alpha C", positive=True)
    ai = 3 * aj + alpha / c
    d60 = -sp.Rational(1, 5) * w * ai + sp.Rational(3, 5) * w * aj
    return sp.simplify(d60 / (-w * alpha / c))


def d64_margin(c: Constants, d: int) -> dict[str, float]:
    """The ratio of the noise bound 2 P gamma alpha d beta^2 omega^2 of (D.63) to the suppression margin:
    "printed" against omega alpha / C of (D.61), "corrected" against omega alpha / (5 C) that (D.60)
    gives. Below 1, (D.64) < 0 follows; at or above 1 it does not."""
    noise = 2 * c.P * c.gamma * c.alpha * d * c.beta**2 * c.omega**2
    margin = c.omega * c.alpha / c.C
    return {"printed": noise / margin, "corrected": noise / (margin / 5)}


# ----------------------------------------------------------------------------------------------
# Assumption D.1 and d > s; Assumption D.5 and the settings of Figs. 8, 9
# ----------------------------------------------------------------------------------------------


def largest_alpha(mu, sigma, d: int, covariance_power: int = 1) -> float:
    """The largest alpha that (D.7) alpha <= a_k allows for every k: min_k a_k (0 whenever d > s)."""
    return float(tl.signal_strengths(mu, sigma, d, covariance_power).min())


def strength_ratios(mu, sigma, covariance_power: int = 1) -> np.ndarray:
    """Ratios a_(k+1) / a_(k) of consecutive sorted strengths (d = s); Assumption D.5 needs every one > 3."""
    a = np.sort(tl.signal_strengths(mu, sigma, len(mu), covariance_power))
    return a[1:] / a[:-1]


# ----------------------------------------------------------------------------------------------
# The recursion (D.1) leaves the PSD cone
# ----------------------------------------------------------------------------------------------


def rank_one_init(c: Constants, direction=(1.0, 1.3)) -> np.ndarray:
    """W(0) = u u^T scaled so that min |w_ij(0)| = omega (1 + 1e-6): PSD, rank one, in the band of (D.8)
    when max |u_k u_l| / min |u_k u_l| <= beta. Shape (1, d, d)."""
    u = np.asarray(direction, float)[:, None]
    w = u @ u.T
    return (w / np.abs(w).min() * c.omega * (1 + 1e-6))[None]


def first_step_determinant(c: Constants, a: np.ndarray, w0: np.ndarray) -> sp.Rational:
    """det W(1) after one step of (D.1) from W(0) (d, d), in exact rational arithmetic (sympy, the floats'
    exact binary values, no rounding): negative for d = 2 means W(1) has a negative eigenvalue."""
    exact = lambda x: sp.Rational(float(x))
    w = sp.Matrix(w0.shape[0], w0.shape[1], lambda i, j: exact(w0[i, j]))
    return (w + exact(c.eta) * d2_rhs(w, sp.diag(*[exact(x) for x in a]))).det()


def psd_loss_trajectory(c: Constants, a: np.ndarray, w0: np.ndarray, steps: int) -> dict:
    """Run (D.1) from w0 (n, d, d) and report: the assumptions violated at the start, the smallest
    eigenvalue relative to the largest at every step (n_steps + 1, n), the first step with a
    negative diagonal entry (-1 if none), and the lemma violations of the run."""
    with np.errstate(all="ignore"):
        w = discrete_run(w0, a, c.eta, steps)
        ok = np.isfinite(w).all((-2, -1))
        eig = np.full(w.shape[:2] + (w.shape[-1],), np.nan)
        eig[ok] = np.linalg.eigvalsh(w[ok])
        rel = eig[..., 0] / np.abs(eig).max(-1)
        neg_diag = (np.diagonal(w, axis1=-2, axis2=-1) < 0).any(-1)
    first_neg = np.where(neg_diag.any(0), neg_diag.argmax(0), -1)
    return {
        "assumptions": assumption_violations(c, a, w0),
        "min_eig_rel": rel,
        "first_negative_diagonal": first_neg,
        "lemmas": lemma_violations(w, a, c),
    }


def psd_recursion_summary(c: Constants, a: np.ndarray, w0: np.ndarray, steps: int) -> dict:
    """What the chapter reads of `psd_loss_trajectory` (a trajectory of megabytes): the assumptions violated at
    the start, the smallest eigenvalue relative to the largest after one step of (D.1) ("min_eig_rel_step_1",
    (n,)), the first step with a negative diagonal entry per seed (-1 if none) and the earliest lemma violation
    over the seeds, (lemma, step) (`lib.theory.lemmas.first_failure`; (None, None) if none)."""
    run = psd_loss_trajectory(c, a, w0, steps)
    return {
        "assumptions": run["assumptions"],
        "min_eig_rel_step_1": run["min_eig_rel"][1],
        "first_negative_diagonal": run["first_negative_diagonal"],
        "first_failure": first_failure(run["lemmas"]),
    }


# ----------------------------------------------------------------------------------------------
# T_1
# ----------------------------------------------------------------------------------------------


def t1_definitions(c: Constants) -> dict[str, float]:
    """T_1 of Lemma D.2 (log P / (2 eta gamma alpha kappa)) and of the proof of Lemma D.1
    (kappa log P / (2 eta gamma alpha)), their ratio (kappa^2), and how far the bound of Lemma D.1
    at the longer T_1 overshoots the initial phase: exp(2 eta T gamma alpha kappa) / P = P^(kappa^2 - 1)."""
    short = math.log(c.P) / (2 * c.eta * c.gamma * c.alpha * c.kappa)
    long = c.kappa * math.log(c.P) / (2 * c.eta * c.gamma * c.alpha)
    return {
        "lemma_d2": short,
        "proof_d1": long,
        "ratio": long / short,
        "log10_overshoot_at_long": (c.kappa**2 - 1) * math.log10(c.P),
    }


def phase_exit_before(w: np.ndarray, c: Constants, t: float) -> np.ndarray:
    """Whether some entry leaves the initial phase |w_ij| <= P beta omega by step t, per seed: w (T, n, d, d)."""
    k = min(int(t), len(w) - 1)
    return (np.abs(w[: k + 1]) > c.P * c.beta * c.omega * (1 + 1e-9)).any((0, -2, -1))
