"""Assumptions D.1-D.5 of the Swing-by paper (App. D.1): their constants, a choice that meets them, and
the number of steps of (D.1) they imply.

Numpy and the standard library only, so that a chapter's parameters can be costed (lib.book.chapters.two_layer)
without importing the simulation. Appendix D indexes directions in ascending signal strength; here
every pair (i, j) with a_i > a_j is its "i > j", whatever the order of the input.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

RTOL = 1e-9

# ----------------------------------------------------------------------------------------------
# Constants and assumptions (App. D.1)
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Constants:
    """The constants of Assumptions D.1-D.5."""

    alpha: float
    gamma: float
    beta: float
    omega: float
    eta: float
    K: float
    kappa: float
    P: float
    C: float


def strong_weak_pairs(a: np.ndarray) -> list[tuple[int, int]]:
    """Pairs (i, j) with a_i > a_j: the paper's 'i > j' in its ascending order."""
    return [(i, j) for i in range(len(a)) for j in range(len(a)) if a[i] > a[j]]


def assumption_violations(c: Constants, a: np.ndarray, w0: np.ndarray) -> list[str]:
    """Names of the Assumptions D.1-D.5 that (c, a, W(0)) violate; w0 is (n, d, d)."""
    d, bad = len(a), []
    m = np.abs(w0)
    if not (
        c.alpha > 0
        and c.gamma > 1
        and c.beta > 1
        and np.all(a >= c.alpha * (1 - RTOL))
        and np.all(a <= c.gamma * c.alpha * (1 + RTOL))
        and np.all(m >= c.omega * (1 - RTOL))
        and np.all(m <= c.beta * c.omega * (1 + RTOL))
    ):
        bad.append("D.1")  # (D.7), (D.8)
    if not (c.K >= 20 and c.eta <= 1 / (9 * c.K * c.gamma * c.alpha)):
        bad.append("D.2")
    if not (c.P > 0 and c.P * c.omega * c.beta <= 0.4):
        bad.append("D.3")
    bound = min(c.kappa - 1, 1 - c.kappa**-0.5) / (c.P * c.K * c.gamma * d * c.beta**2)
    if not (
        c.omega <= min(bound, 1 / math.sqrt(2 * c.beta))
        and c.kappa > 1.1
        and c.kappa <= 1 + 0.5 * c.K / c.C
        and c.P >= 2
    ):
        bad.append("D.4")  # (D.9)
    rhs = math.log(c.P) / (10 * c.kappa**2 * math.log(1 / (c.P * c.beta * c.omega)) + math.log(c.P * c.beta))
    if not (
        c.C > 1
        and all((a[i] + a[j]) / (2 * a[i]) <= rhs and a[i] - 3 * a[j] >= c.alpha / c.C for i, j in strong_weak_pairs(a))
    ):
        bad.append("D.5")  # (D.10)
    return bad


def choose_constants(
    a: np.ndarray, beta: float, K: float = 20.0, kappa: float = 1.15, margin: float = 1.01
) -> Constants:
    """Constants meeting Assumptions D.2-D.5 for strengths a (D.1 then constrains the initialization).

    alpha = min a, gamma = max a / alpha, eta and C at their largest allowed values, P omega at
    the largest value (D.9) allows, and P just large enough for (D.10).
    """
    a = np.asarray(a, float)
    alpha, gamma = float(a.min()), float(a.max() / a.min())
    d = len(a)
    eta = 1 / (9 * K * gamma * alpha)
    C = 0.5 * K / (kappa - 1)
    p_omega = min(kappa - 1, 1 - kappa**-0.5) / (K * gamma * d * beta**2) / margin  # P * omega
    x = math.log(1 / (p_omega * beta))  # log 1/(P beta omega)
    r = max((a[i] + a[j]) / (2 * a[i]) for i, j in strong_weak_pairs(a))
    log_p = margin * r * (10 * kappa**2 * x + math.log(beta)) / (1 - r)
    return Constants(
        alpha=alpha,
        gamma=gamma,
        beta=beta,
        omega=p_omega / math.exp(log_p),
        eta=eta,
        K=K,
        kappa=kappa,
        P=math.exp(log_p),
        C=C,
    )


def steps_to_converge(c: Constants, a: np.ndarray) -> int:
    """Enough steps for the weakest diagonal entry to grow from omega to 1 and settle (Lemmas D.3, D.4)."""
    rate = 2 * c.eta * float(np.min(a)) / c.kappa
    return int((math.log(1 / c.omega) + math.log(c.K) * 4) / rate)


def broken(c: Constants, **changes) -> Constants:
    """The same constants with some replaced (to break an assumption on purpose)."""
    return replace(c, **changes)
