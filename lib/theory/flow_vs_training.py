"""The two-layer gradient flow (Section 4.2, eq. D.2) against torch training of U on sampled data.

The flow is the population dynamics; training U by full-batch gradient descent on a finite SIM
sample follows it up to the step size and the sampling error. Halving the step shows which of
the two dominates: a deviation that halves with it is the discretisation's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lib.theory import two_layer as tl


@dataclass(frozen=True)
class FlowVsTraining:
    """Paper time tau (T,), trained and integrated W (T, n, d, d), and their largest entry difference."""

    tau: np.ndarray
    w_train: np.ndarray
    w_flow: np.ndarray
    max_deviation: float


def flow_vs_training(
    u0: np.ndarray, a: np.ndarray, mu, sigma, n_per_cluster: int, lr: float, horizon: float, seed: int = 0
) -> FlowVsTraining:
    """Train U from `u0` (n, d, d') by gradient descent with step `lr` up to paper time `horizon`
    (tau = 2 lr steps, `tl.train_u`) on `n_per_cluster` sampled points per cluster, and integrate
    the flow with data spectrum `a` from the same U at the same times (`tl.integrate`)."""
    steps = int(horizon / (2 * lr))
    tau, w_train = tl.train_u(u0, mu, sigma, n_per_cluster, lr, steps, record_every=max(1, steps // 200), seed=seed)
    w_flow = tl.integrate(u0, a, tau)
    return FlowVsTraining(tau, w_train, w_flow, float(np.abs(w_train - w_flow).max()))
