"""The one-layer chapter's settings, free of torch so that parameter validation answers at once.

`effective_lr` is the step on W per unit gradient of the loss (2.1) under either loss scaling;
`Setting` and `vary_first` name the SIM configurations of Figs. 2a and 2b; `sharpness` is the
curvature that bounds a stable learning rate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lib.sim.data import population_second_moment

LOSS_SCALINGS = ("half_sum", "mse")


def effective_lr(lr: float, loss_scaling: str, d: int) -> float:
    """The step on W per unit gradient of (2.1): lr for the loss 1/2||f(x) - x||^2 ("half_sum", eq. 2.1);
    lr * 2/d for PyTorch's MSELoss ("mse"), which also averages over the d coordinates (the authors'
    code reports an "MSE" loss)."""
    if loss_scaling not in LOSS_SCALINGS:
        raise ValueError(f"loss_scaling must be one of {LOSS_SCALINGS}, got {loss_scaling!r}")
    return lr if loss_scaling == "half_sum" else lr * 2.0 / d


@dataclass(frozen=True)
class Setting:
    """One SIM configuration: means, standard deviations and the scale of W(0)."""

    mu: tuple[float, ...]
    std: tuple[float, ...]
    init_scale: float


def vary_first(mu, std, init_scale: float, *, mu1=(), std1=()) -> list[Setting]:
    """Settings that change concept 1 only: one per mu_1 in `mu1`, then one per sigma_1 in `std1`
    (Fig. 2a varies mu_1, Fig. 2b varies sigma_1; the other concepts keep mu and std)."""
    mu, std = tuple(map(float, mu)), tuple(map(float, std))
    return [Setting((float(m),) + mu[1:], std, init_scale) for m in mu1] + [
        Setting(mu, (float(x),) + std[1:], init_scale) for x in std1
    ]


def sharpness(mu, std, origin_cluster: bool = False, bias: bool = False) -> float:
    """Largest eigenvalue of E[z z^T], z = x (or (x, 1) with a bias), for the SIM mixture.

    This is the Hessian of 1/2 ||W z - x||^2 in each row of a one-layer linear model: gradient
    descent on it, and SGD in expectation, diverges once `effective_lr * sharpness >= 2`. In
    concept coordinates E[x x^T] = diag(a) (eq. C.13) and E[x] = mu / (s + origin), so the
    (s + 1) x (s + 1) matrix with the bias row is [[diag(a), E x], [E x^T, 1]]. Infinite when the
    moments overflow.
    """
    mu = np.asarray(mu, float)
    s = len(mu)
    with np.errstate(over="ignore"):
        a = population_second_moment(mu, std, s, origin_cluster)
    if not np.all(np.isfinite(a)):
        return float("inf")
    if not bias:
        return float(a.max())
    moment = np.diag(np.append(a, 1.0))
    moment[:s, s] = moment[s, :s] = mu / (s + int(origin_cluster))
    return float(np.linalg.eigvalsh(moment)[-1])
