"""Interacting repons (GenEFT Section IV, Theorems 2 and 3, eqs. 8-13).

Two same-class embeddings x_1, x_2 ("repons") near each other see a locally linear decoder
D(x) = A x + b. Gradient flow with decoder rate eta_A and encoder rate eta_x gives eq. (8) for A
and the half separation r = (x_1 - x_2)/2; the ansatz (9) reduces it to the two scalars
(a_2, c) of eq. (10), with the conserved quantity C of eq. (11). C > 0: the repons collide
(c -> 0, generalization); C < 0: the decoder dies first (a_2 -> 0, memorization). With Gaussian
initial a_2, c the collision probability is the arctan law (12); one repon facing N clustered
ones gives eq. (13).
"""
from __future__ import annotations

import numpy as np
from scipy.integrate import solve_ivp

# ----------------------------------------------------------------------------------------------
# The flows: eq. (8), eq. (10), eq. (11)
# ----------------------------------------------------------------------------------------------


def pair_flow(A: np.ndarray, r: np.ndarray, eta_A: float, eta_x: float) -> tuple[np.ndarray, np.ndarray]:
    """Eq. (8): dA/dt = -2 eta_A A r r^T, dr/dt = -eta_x A^T A r."""
    return -2 * eta_A * A @ np.outer(r, r), -eta_x * A.T @ A @ r


def reduced_flow(a2, c, eta_A: float, eta_x: float):
    """Eq. (10): da_2/dt = -2 eta_A c^2 a_2, dc/dt = -eta_x a_2^2 c (elementwise)."""
    return -2 * eta_A * c ** 2 * a2, -eta_x * a2 ** 2 * c


def conserved(a2, c, eta_A: float, eta_x: float):
    """Eq. (11): C = a_2^2 / (2 eta_A) - c^2 / eta_x, constant along eq. (10)."""
    return a2 ** 2 / (2 * eta_A) - c ** 2 / eta_x


def separatrix_slope(eta_A: float, eta_x: float) -> float:
    """The lines C = 0: c / a_2 = +-sqrt(eta_x / (2 eta_A)) (Fig. 4)."""
    return float(np.sqrt(eta_x / (2 * eta_A)))


def limit_point(a2, c, eta_A: float, eta_x: float):
    """Where eq. (10) ends (Section IV): C > 0 -> (+-sqrt(2 eta_A C), 0); C < 0 -> (0, +-sqrt(-eta_x C))."""
    C = conserved(np.asarray(a2, float), np.asarray(c, float), eta_A, eta_x)
    return (np.sign(a2) * np.sqrt(np.clip(2 * eta_A * C, 0, None)),
            np.sign(c) * np.sqrt(np.clip(-eta_x * C, 0, None)))


# ----------------------------------------------------------------------------------------------
# Integrating eq. (10)
# ----------------------------------------------------------------------------------------------


def integrate_reduced(a2_0, c_0, eta_A: float, eta_x: float, t_max: float, t_eval=None):
    """Solve eq. (10) for many starts at once; returns (a_2, c) of shape (len(t_eval) or 1, K).

    Integrated in log|a_2|, log|c| (d log|a_2|/dt = -2 eta_A c^2, d log|c|/dt = -eta_x a_2^2),
    which keeps signs fixed and resolves the exponential approach to the limit point.
    """
    a0, c0 = np.atleast_1d(np.asarray(a2_0, float)), np.atleast_1d(np.asarray(c_0, float))
    k = a0.size

    def rhs(_, z):
        u, v = z[0::2], z[1::2]
        return np.stack([-2 * eta_A * np.exp(2 * v), -eta_x * np.exp(2 * u)], 1).ravel()

    z = _solve_pairs(rhs, np.log(np.abs(a0)), np.log(np.abs(c0)), t_max, [t_max] if t_eval is None else t_eval)
    return np.sign(a0) * np.exp(z[:, 0::2]), np.sign(c0) * np.exp(z[:, 1::2])


def _solve_pairs(rhs, u0: np.ndarray, v0: np.ndarray, t_max: float, t_eval) -> np.ndarray:
    """Integrate K independent 2-d systems stored interleaved (u_0, v_0, u_1, ...); returns (T, 2K).

    The Jacobian is block diagonal with 2 x 2 blocks, i.e. banded (lband = uband = 1), so LSODA's
    stiff steps cost O(K) instead of a dense (2K)^2 Jacobian.
    """
    z0 = np.stack([u0, v0], 1).ravel()
    sol = solve_ivp(rhs, (0, t_max), z0, method="LSODA", t_eval=t_eval, rtol=1e-8, atol=1e-10, lband=1, uband=1)
    if not sol.success:
        raise RuntimeError(f"integration failed: {sol.message}")
    return sol.y.T


def collided(a2_0, c_0, eta_A: float, eta_x: float, t_max: float, tol: float = 1e-2) -> np.ndarray:
    """Whether the repons of eq. (10) have collided by t_max: |c(t_max)| < tol |c(0)|."""
    _, c = integrate_reduced(a2_0, c_0, eta_A, eta_x, t_max)
    return np.abs(c[-1]) < tol * np.abs(np.atleast_1d(c_0))


# ----------------------------------------------------------------------------------------------
# Theorem 3: the arctan law (12) and the N-repon form (13)
# ----------------------------------------------------------------------------------------------


def arctan_law(sigma_ratio, eta_x_over_eta_A, n_cluster: int | float = 1):
    """Eq. (12) (n_cluster = 1) and eq. (13): p_r = 2/pi arctan(sigma_a/sigma_c sqrt(eta_x (1 + 1/N) / (4 eta_A)))."""
    k = np.sqrt(np.asarray(eta_x_over_eta_A, float) * (1 + 1 / np.asarray(n_cluster, float)) / 4)
    return 2 / np.pi * np.arctan(np.asarray(sigma_ratio, float) * k)


def monte_carlo_reduced(sigma_a: float, sigma_c: float, eta_A: float, eta_x: float, *, samples: int,
                        seed: int, t_max: float, tol: float = 1e-2) -> float:
    """Fraction of Gaussian starts a_2 ~ N(0, sigma_a^2), c ~ N(0, sigma_c^2) whose eq. (10) flow collides."""
    rng = np.random.default_rng(seed)
    a0, c0 = rng.normal(0, sigma_a, samples), rng.normal(0, sigma_c, samples)
    return float(collided(a0, c0, eta_A, eta_x, t_max, tol).mean())


def cluster_gradient_flow(a, x, eta_A: float, eta_x: float):
    """Gradient flow of l = 1/2 sum_i (a x_i + b - y)^2 (eq. 6 with N + 1 repons) at b = y = 0.

    `a` (S,) is the decoder weight (one embedding dimension), `x` (S, N + 1) the repon positions;
    returns (da/dt, dx/dt) with rates eta_A, eta_x (eq. 7).
    """
    err = a[:, None] * x
    return -eta_A * (err * x).sum(1), -eta_x * a[:, None] * err


def simulate_cluster(a0: np.ndarray, c0: np.ndarray, n_cluster: int, eta_A: float, eta_x: float, *,
                     t_max: float) -> np.ndarray:
    """One repon and N clustered ones under a linear decoder; returns |separation(t_max)| / |separation(0)|.

    The lone repon starts at 2 c0 N/(N+1), the N others together at -2 c0/(N+1) (half separation
    c0, as r in eq. 8; centre of mass 0), with b = y = 0. That set is invariant under the full
    flow (`cluster_gradient_flow`): the N repons get equal gradients, the centre of mass and b
    stay at 0. Along it the flow is integrated in log|a| and log|s|, s = x_0 - x_1, with the
    right-hand side taken from the (N + 1)-repon gradient, not from eq. (13): at b = y = 0,
    da/dt is a * s^2 times its value at a = s = 1 and ds/dt is a^2 * s times it, so the
    logarithmic rates are evaluated at the unit point (no underflow as a or s -> 0).
    """
    n1 = n_cluster + 1
    da1, dx1 = cluster_gradient_flow(np.ones(1), np.r_[n_cluster, -np.ones(n_cluster)][None] / n1, eta_A, eta_x)
    rate_a, rate_s = da1[0], dx1[0, 0] - dx1[0, 1]

    def rhs(_, z):
        return np.stack([rate_a * np.exp(2 * z[1::2]), rate_s * np.exp(2 * z[0::2])], 1).ravel()

    log_s0 = np.log(np.abs(2 * c0))
    z = _solve_pairs(rhs, np.log(np.abs(a0)), log_s0, t_max, [t_max])
    return np.exp(z[-1, 1::2] - log_s0)


def monte_carlo_cluster(sigma_a: float, sigma_c: float, eta_A: float, eta_x: float, n_cluster: int, *,
                        samples: int, seed: int, t_max: float, tol: float = 1e-2) -> float:
    """Fraction of Gaussian starts for which `simulate_cluster` ends with the repons collided."""
    rng = np.random.default_rng(seed)
    a0, c0 = rng.normal(0, sigma_a, samples), rng.normal(0, sigma_c, samples)
    return float((simulate_cluster(a0, c0, n_cluster, eta_A, eta_x, t_max=t_max) < tol).mean())
