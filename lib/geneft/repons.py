"""Interacting repons (GenEFT Section IV, Theorems 2 and 3, eqs. 8-13).

Two same-class embeddings x_1, x_2 ("repons") near each other see a locally linear decoder
D(x) = A x + b. Gradient flow with decoder rate eta_A and encoder rate eta_x gives eq. (8) for A
and the half separation r = (x_1 - x_2)/2; the ansatz (9) reduces it to the two scalars
(a_2, c) of eq. (10), with the conserved quantity C of eq. (11). C > 0: the repons collide
(c -> 0, generalization); C < 0: the decoder dies first (a_2 -> 0, memorization). With Gaussian
initial a_2, c the collision probability is the arctan law (12); one repon facing N clustered
ones gives eq. (13).

Beyond the scalar pair: eq. (8) with an m x d decoder conserves the matrix
M = A^T A / (2 eta_A) - r r^T / eta_x (eq. 11 is its restriction to the ansatz 9). A collision
(r -> 0) leaves M = A^T A / (2 eta_A), positive semi-definite; a pair that stops apart stops at
A r = 0, where r^T M r = -|r|^4 / eta_x < 0. So the repons collide iff M is PSD, which
`collision_study` checks by integrating eq. (8) from random draws. For m < d, M has a negative
direction almost surely (the collision probability is 0: with a scalar output and 2-d
embeddings, |a x r| is conserved); the arctan law is the case m = d = 1.

Measured against networks: `init_sigma_ratio` reads sigma_a / sigma_c off the networks' own
initialisation (lib.geneft.network), `compare_with_arctan` sets Fig. 6's fractions against the
band of eq. (12) that the measured ratio gives, and `repon_collapse` asks whether the final
embeddings of trained networks collapsed by class as the theory says generalizing ones must.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy.integrate import solve_ivp

from lib.util.comparisons import auc, proportion_difference
from lib.util.numbers import format_estimate, interval_text, significant, tex_number, tex_power_of_ten
from lib.util.stats import (
    CONFIDENCE,
    Estimate,
    binomial_interval,
    bonferroni,
    bootstrap_interval,
    fraction,
    largest,
    units_to_decide,
)
from lib.util.wording import markdown_table, sentence_start

# ----------------------------------------------------------------------------------------------
# The flows: eq. (8), eq. (10), eq. (11)
# ----------------------------------------------------------------------------------------------


def pair_flow(A: np.ndarray, r: np.ndarray, eta_A: float, eta_x: float) -> tuple[np.ndarray, np.ndarray]:
    """Eq. (8): dA/dt = -2 eta_A A r r^T, dr/dt = -eta_x A^T A r."""
    return -2 * eta_A * A @ np.outer(r, r), -eta_x * A.T @ A @ r


def reduced_flow(a2, c, eta_A: float, eta_x: float):
    """Eq. (10): da_2/dt = -2 eta_A c^2 a_2, dc/dt = -eta_x a_2^2 c (elementwise)."""
    return -2 * eta_A * c**2 * a2, -eta_x * a2**2 * c


def conserved(a2, c, eta_A: float, eta_x: float):
    """Eq. (11): C = a_2^2 / (2 eta_A) - c^2 / eta_x, constant along eq. (10)."""
    return a2**2 / (2 * eta_A) - c**2 / eta_x


def separatrix_slope(eta_A: float, eta_x: float) -> float:
    """The lines C = 0: c / a_2 = +-sqrt(eta_x / (2 eta_A)) (Fig. 4)."""
    return float(np.sqrt(eta_x / (2 * eta_A)))


def limit_point(a2, c, eta_A: float, eta_x: float):
    """Where eq. (10) ends (Section IV): C > 0 -> (+-sqrt(2 eta_A C), 0); C < 0 -> (0, +-sqrt(-eta_x C))."""
    C = conserved(np.asarray(a2, float), np.asarray(c, float), eta_A, eta_x)
    return (np.sign(a2) * np.sqrt(np.clip(2 * eta_A * C, 0, None)), np.sign(c) * np.sqrt(np.clip(-eta_x * C, 0, None)))


# ----------------------------------------------------------------------------------------------
# Integrating eq. (10)
# ----------------------------------------------------------------------------------------------


def integrate_reduced(a2_0, c_0, eta_A: float, eta_x: float, t_max: float, t_eval=None):
    """Solve eq. (10) for many starts at once; returns (a_2, c) of shape (len(t_eval) or 1, K).

    Integrated in log|a_2|, log|c| (d log|a_2|/dt = -2 eta_A c^2, d log|c|/dt = -eta_x a_2^2),
    which keeps signs fixed and resolves the exponential approach to the limit point.
    """
    a0, c0 = np.atleast_1d(np.asarray(a2_0, float)), np.atleast_1d(np.asarray(c_0, float))

    def rhs(_, z):
        u, v = z[0::2], z[1::2]
        return np.stack([-2 * eta_A * np.exp(2 * v), -eta_x * np.exp(2 * u)], 1).ravel()

    z = _solve_pairs(rhs, np.log(np.abs(a0)), np.log(np.abs(c0)), t_max, [t_max] if t_eval is None else t_eval)
    return np.sign(a0) * np.exp(z[:, 0::2]), np.sign(c0) * np.exp(z[:, 1::2])


def _solve_pairs(rhs, u0: np.ndarray, v0: np.ndarray, t_max: float, t_eval) -> np.ndarray:
    """Integrate K independent 2-d systems stored interleaved (u_0, v_0, u_1, ...); returns (T, 2K)."""
    return _solve_blocks(rhs, np.stack([u0, v0], 1), t_max, t_eval)


def _solve_blocks(rhs, z0: np.ndarray, t_max: float, t_eval, rtol: float = 1e-8, atol: float = 1e-10) -> np.ndarray:
    """Integrate K independent b-dimensional systems, z0 (K, b) stored row by row; returns (T, K b).

    The Jacobian is block diagonal with b x b blocks, i.e. banded (lband = uband = b - 1), so
    LSODA's stiff steps cost O(K) instead of a dense (K b)^2 Jacobian.
    """
    b = z0.shape[1]
    sol = solve_ivp(
        rhs, (0, t_max), z0.ravel(), method="LSODA", t_eval=t_eval, rtol=rtol, atol=atol, lband=b - 1, uband=b - 1
    )
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


def arctan_law(sigma_ratio, eta_x_over_eta_A, n_cluster: float = 1):
    """Eq. (12) (n_cluster = 1) and eq. (13): p_r = 2/pi arctan(sigma_a/sigma_c sqrt(eta_x (1 + 1/N) / (4 eta_A)))."""
    k = np.sqrt(np.asarray(eta_x_over_eta_A, float) * (1 + 1 / np.asarray(n_cluster, float)) / 4)
    return 2 / np.pi * np.arctan(np.asarray(sigma_ratio, float) * k)


def monte_carlo_reduced(
    sigma_a: float,
    sigma_c: float,
    eta_A: float,
    eta_x: float,
    *,
    samples: int,
    seed: int,
    t_max: float,
    tol: float = 1e-2,
) -> float:
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


def simulate_cluster(
    a0: np.ndarray, c0: np.ndarray, n_cluster: int, eta_A: float, eta_x: float, *, t_max: float
) -> np.ndarray:
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


def monte_carlo_cluster(
    sigma_a: float,
    sigma_c: float,
    eta_A: float,
    eta_x: float,
    n_cluster: int,
    *,
    samples: int,
    seed: int,
    t_max: float,
    tol: float = 1e-2,
) -> float:
    """Fraction of Gaussian starts for which `simulate_cluster` ends with the repons collided."""
    rng = np.random.default_rng(seed)
    a0, c0 = rng.normal(0, sigma_a, samples), rng.normal(0, sigma_c, samples)
    return float((simulate_cluster(a0, c0, n_cluster, eta_A, eta_x, t_max=t_max) < tol).mean())


def monte_carlo_reduced_grid(
    sigma_ratios, lr_ratios, *, samples: int, seed: int, t_max: float, tol: float = 1e-2
) -> np.ndarray:
    """`monte_carlo_reduced` at every sigma_a / sigma_c in `sigma_ratios` (rows) and eta_x / eta_A in
    `lr_ratios` (columns), with sigma_c = eta_A = 1: the collision fractions of the paper's eq. (10) that its
    arctan law (12) predicts; each point draws its starts from `seed`."""
    return np.array(
        [
            [
                monte_carlo_reduced(s, 1.0, 1.0, r, samples=samples, seed=seed, t_max=t_max, tol=tol)
                for r in np.array(lr_ratios)
            ]
            for s in np.array(sigma_ratios)
        ]
    )


def monte_carlo_cluster_grid(
    n_cluster, lr_ratios, *, samples: int, seed: int, t_max: float, tol: float = 1e-2
) -> np.ndarray:
    """`monte_carlo_cluster` for one repon against N clustered ones, N in `n_cluster` (rows), at eta_x / eta_A in
    `lr_ratios` (columns), with sigma_a = sigma_c = eta_A = 1: the collision fractions the paper's eq. (13)
    predicts; each point draws its starts from `seed`."""
    return np.array(
        [
            [
                monte_carlo_cluster(1.0, 1.0, 1.0, r, int(m), samples=samples, seed=seed, t_max=t_max, tol=tol)
                for r in np.array(lr_ratios)
            ]
            for m in np.array(n_cluster)
        ]
    )


# ----------------------------------------------------------------------------------------------
# Beyond the scalar pair: eq. (8) with an m x d decoder and the conserved matrix M
# ----------------------------------------------------------------------------------------------


def conserved_matrix(A: np.ndarray, r: np.ndarray, eta_A: float, eta_x: float) -> np.ndarray:
    """M = A^T A / (2 eta_A) - r r^T / eta_x, conserved along eq. (8); A (..., m, d), r (..., d)."""
    return A.swapaxes(-1, -2) @ A / (2 * eta_A) - r[..., :, None] * r[..., None, :] / eta_x


def integrate_pair_flow(
    A0: np.ndarray, r0: np.ndarray, eta_A: float, eta_x: float, t_max: float
) -> tuple[np.ndarray, np.ndarray]:
    """Eq. (8) for K independent draws at once: A0 (K, m, d), r0 (K, d); returns (A, r) at t_max."""
    K, m, d = A0.shape

    def rhs(_, z):
        z = z.reshape(K, m * d + d)
        A, r = z[:, : m * d].reshape(K, m, d), z[:, m * d :]
        Ar = np.einsum("kij,kj->ki", A, r)
        dA = -2 * eta_A * Ar[:, :, None] * r[:, None, :]
        dr = -eta_x * np.einsum("kij,ki->kj", A, Ar)
        return np.concatenate([dA.reshape(K, -1), dr], 1).ravel()

    z = _solve_blocks(rhs, np.concatenate([A0.reshape(K, -1), r0], 1), t_max, [t_max], rtol=1e-9, atol=1e-12)
    z = z[-1].reshape(K, m * d + d)
    return z[:, : m * d].reshape(K, m, d), z[:, m * d :]


@dataclass(frozen=True)
class CollisionStudy:
    """Random draws of eq. (8): A entries N(0, sigma_a^2), r entries N(0, sigma_c^2), shape m x d.

    `collided` (K,): |r(t_max)| < tol |r(0)|; `m_psd` (K,): smallest eigenvalue of M >= 0 (relative
    to the size of M); `min_eig`: that eigenvalue. `collision`, `m_psd_fraction`: fractions with
    Wilson intervals; `agreement`: fraction of draws where both say the same; `arctan`: eq. (12)
    at the same sigma_a / sigma_c and eta_x / eta_A (it is exact for m = d = 1).
    """

    m: int
    d: int
    collided: np.ndarray
    m_psd: np.ndarray
    min_eig: np.ndarray
    collision: Estimate
    m_psd_fraction: Estimate
    agreement: Estimate
    arctan: float


def collision_study(
    m: int,
    d: int,
    *,
    sigma_a: float = 1.0,
    sigma_c: float = 1.0,
    eta_A: float = 1.0,
    eta_x: float = 1.0,
    draws: int,
    seed: int,
    t_max: float = 1e4,
    tol: float = 1e-2,
) -> CollisionStudy:
    """Integrate eq. (8) from `draws` Gaussian starts and compare the outcome with the sign of M."""
    rng = np.random.default_rng(seed)
    A0 = rng.normal(0, sigma_a, (draws, m, d))
    r0 = rng.normal(0, sigma_c, (draws, d))
    _, r = integrate_pair_flow(A0, r0, eta_A, eta_x, t_max)
    collided = np.linalg.norm(r, axis=1) < tol * np.linalg.norm(r0, axis=1)
    M = conserved_matrix(A0, r0, eta_A, eta_x)
    eig = np.linalg.eigvalsh(M)
    min_eig = eig[:, 0] / np.abs(eig).max(1)
    psd = min_eig >= -1e-12
    return CollisionStudy(
        m,
        d,
        collided,
        psd,
        min_eig,
        fraction(collided),
        fraction(psd),
        fraction(collided == psd),
        float(arctan_law(sigma_a / sigma_c, eta_x / eta_A)),
    )


def psd_probability(
    m: int,
    d: int,
    *,
    sigma_a: float = 1.0,
    sigma_c: float = 1.0,
    eta_A: float = 1.0,
    eta_x: float = 1.0,
    draws: int,
    seed: int,
) -> Estimate:
    """P(M is PSD) over Gaussian draws, from the criterion alone (no integration: many draws are cheap)."""
    rng = np.random.default_rng(seed)
    M = conserved_matrix(rng.normal(0, sigma_a, (draws, m, d)), rng.normal(0, sigma_c, (draws, d)), eta_A, eta_x)
    eig = np.linalg.eigvalsh(M)
    return fraction(eig[:, 0] / np.abs(eig).max(1) >= -1e-12)


# ----------------------------------------------------------------------------------------------
# The networks' own sigma_a / sigma_c (Fig. 6)
# ----------------------------------------------------------------------------------------------


def init_repon_moments(
    seeds,
    n: int,
    *,
    mode: str,
    depth: int,
    width: int,
    embed_dim: int,
    init_scale: float,
    decoder_init: str = "uniform",
) -> tuple[np.ndarray, np.ndarray]:
    """Per model at initialisation: mean |J_ik|^2 and mean |r_ij|^2 over its pairs, each (M,).

    J_ik = d logit(i, k) / d E_i is the decoder's local linear map A seen by repon i against
    partner k (first slot, k != i); r_ij = (E_i - E_j) / 2 (i != j) the half separation of a pair.
    The networks are lib.geneft.network.init_stack with the given architecture, scale and decoder init.
    """
    import torch

    from lib.geneft.network import combine_slots, decode, init_stack

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
    m, e = len(seeds), stack.embed.detach()
    # the embedding in the first slot of every pair as its own leaf: one backward gives every J_ik
    first = e[:, :, None, :].expand(m, n, n, embed_dim).clone().requires_grad_(True)
    z = decode(combine_slots(first, e[:, None, :, :].expand(m, n, n, embed_dim), mode), stack)
    (g,) = torch.autograd.grad(z.sum(), first)
    j2 = (g**2).sum(-1)  # |J_ik|^2, (M, n, n)
    off = ~torch.eye(n, dtype=torch.bool)
    jac2 = torch.zeros(m)
    for k in range(n):  # partner by partner, i != k
        jac2 += j2[:, :, k][:, off[:, k]].sum(1)
    jac2 /= n * (n - 1)
    r2 = (((e[:, :, None] - e[:, None]) / 2) ** 2).sum(-1)[:, off].mean(1)
    return jac2.numpy().astype(float), r2.numpy().astype(float)


def init_sigma_ratio(
    seeds,
    n: int,
    *,
    mode: str,
    depth: int,
    width: int,
    embed_dim: int,
    init_scale: float,
    decoder_init: str = "uniform",
    confidence: float = CONFIDENCE,
    seed: int = 0,
) -> Estimate:
    """sigma_a / sigma_c of eq. (12) read off the networks' initialisation, with a bootstrap over models.

    With a random unit direction r0 of the separation, a_2 = A r0 has variance E|A|^2 / d and
    c = r . r0 has variance E|r|^2 / d, so sigma_a / sigma_c = sqrt(E|J|^2 / E|r|^2)
    (`init_repon_moments`). The scale of the loss cancels: scaling eq. (6) rescales time only.
    """

    jac2, r2 = init_repon_moments(
        seeds,
        n,
        mode=mode,
        depth=depth,
        width=width,
        embed_dim=embed_dim,
        init_scale=init_scale,
        decoder_init=decoder_init,
    )
    ratio = lambda a, b, axis=-1: np.sqrt(a.mean(axis) / b.mean(axis))
    value = float(ratio(jac2, r2))
    if len(jac2) < 2:
        return Estimate(value, value, value, len(jac2), "one model, no interval")
    ci = bootstrap_interval(
        (jac2, r2), ratio, rng=np.random.default_rng(seed), paired=True, method="BCa", confidence=confidence
    )
    return Estimate(value, *ci, len(jac2), f"bootstrap BCa over models {confidence:.0%}")


def compare_with_arctan(successes, trials, dec_over_enc, sigma_ratio: Estimate) -> dict:
    """Fig. 6: fractions that generalize against the band of eq. (12) the measured sigma_a / sigma_c gives.

    eq. (12) with eta_x = eta_enc, eta_A = eta_dec, evaluated at the interval's ends of
    `sigma_ratio` (the law grows with it): band (low, high). A point is above the bound when its
    Wilson interval lies entirely above the band's top. Returns per point the fraction (Estimate),
    the band, `above` (bool), and `under_fraction`: the fraction of points not above (Wilson).
    """
    k, t = np.asarray(successes).ravel(), np.asarray(trials).ravel()
    ratio = np.broadcast_to(np.asarray(dec_over_enc, float), np.asarray(successes).shape).ravel()
    band_low = arctan_law(sigma_ratio.low, 1 / ratio)
    band_high = arctan_law(sigma_ratio.high, 1 / ratio)
    points = [fraction(int(a), int(b)) for a, b in zip(k, t)]
    above = np.array([p.low > hi for p, hi in zip(points, band_high)])
    return {
        "points": points,
        "band_low": band_low,
        "band_high": band_high,
        "law": arctan_law(sigma_ratio.value, 1 / ratio),
        "above": above,
        "under_fraction": fraction(int((~above).sum()), len(above)),
    }


def fraction_not_above(comparisons: dict) -> Estimate:
    """G-6's statistic: the fraction of Fig. 6's points, pooled over the init scales of `comparisons`
    (`compare_with_arctan`'s results keyed by init scale), that do not lie above the band of eq. (12), with the
    Wilson 95% interval over the points."""
    return fraction(~np.concatenate([np.asarray(c["above"], bool) for c in comparisons.values()]))


def excess_over_arctan(comparisons: dict, *, confidence: float = CONFIDENCE) -> Estimate:
    """Fig. 6 read as the paper states it: every point under eq. (12). The largest excess, over the points of
    `comparisons` (`compare_with_arctan`'s results keyed by init scale, pooled), of the fraction of seeds that
    generalize over the top of its band of eq. (12); each fraction's Wilson interval is at the Bonferroni level
    1 - (1 - confidence) / points, so the whole interval lies at or below 0 when no point is above the law
    (simultaneously at `confidence`) and above 0 when some point is (as `statics.excess_over_bound` for Fig. 3)."""
    points = _arctan_points(comparisons)
    level = bonferroni(confidence, len(points))
    excesses = []
    for p, top in points:
        wide = fraction(round(p.value * p.n), p.n, confidence=level)
        excesses.append(Estimate(p.value - top, wide.low - top, wide.high - top, p.n, ""))
    method = f"max over {len(points)} points of the fraction minus the band's top, Wilson, Bonferroni {confidence:.0%}"
    return replace(largest(excesses), method=method)


def _arctan_points(comparisons: dict) -> list[tuple[Estimate, float]]:
    """(fraction, top of its band of eq. (12)) for every point of `comparisons`, pooled over the init scales."""
    points = [(p, float(top)) for c in comparisons.values() for p, top in zip(c["points"], c["band_high"])]
    if not points:
        raise ValueError("Fig. 6's all-points reading needs at least one point")
    return points


def seeds_to_clear_arctan(comparisons: dict, *, confidence: float = CONFIDENCE) -> tuple[int | None, bool]:
    """What deciding `excess_over_arctan` would cost at the fractions seen: (seeds per point, whether the claim would
    then hold). Each point's Bonferroni Wilson interval clears its band's top from `units_to_decide` seeds at its
    observed fraction. When some point's fraction lies above its top, the claim fails as soon as one such interval
    clears: the fewest seeds among those points (False). Otherwise it holds once every interval is below: the most
    seeds over all points (True). None seeds when no number does (a fraction at its top)."""
    points = _arctan_points(comparisons)
    level = bonferroni(confidence, len(points))
    needed = [(units_to_decide(p.value, top, confidence=level), p.value > top) for p, top in points]
    above = [n for n, is_above in needed if is_above]
    if above:
        finite = [n for n in above if n is not None]
        return (min(finite) if finite else None), False
    counts = [n for n, _ in needed]
    return (None if None in counts else max(counts)), True


def power_to_find_excess(comparisons: dict, seeds: int, *, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The power of `excess_over_arctan` on `seeds` fresh seeds per point, for sizing a registered confirmation: the
    probability that some point's Wilson interval, at the Bonferroni level over the points of `comparisons`, lies
    above the top of its band of eq. (12), when each point's true fraction is as uncertain as the seeds already
    seen leave it (a uniform prior updated by the point's count, so that the new count is beta-binomial; exact,
    each point's beta-binomial summed over the counts whose interval clears its top).

    Returns (at least, if independent): the chance of the point likeliest to clear, which bounds the power from
    below whatever the dependence between the points (the same seeds train every point, and a seed that fails at one
    ratio tends to fail at the next), and the power were the points independent."""
    from scipy.stats import betabinom

    if seeds < 1:
        raise ValueError(f"a confirmation needs at least one seed per point, got {seeds}")
    points = _arctan_points(comparisons)
    level = bonferroni(confidence, len(points))
    counts = np.arange(seeds + 1)
    low, _ = binomial_interval(counts, seeds, confidence=level)
    seen = [(round(p.value * p.n), p.n, top) for p, top in points]
    clears = [float(betabinom(seeds, k + 1, n - k + 1).pmf(counts)[low > top].sum()) for k, n, top in seen]
    independent = 1.0 - float(np.prod([1.0 - c for c in clears]))
    return max(clears), max(0.0, independent)  # no round-off below 0 when no point can clear


def arctan_decision_text(comparisons: dict, seeds: int, *, confidence: float = CONFIDENCE) -> str:
    """`excess_over_arctan` and its cost in words, for the claim's note: where the points lie at the Bonferroni
    level, and how many seeds per point (against the `seeds` the set has) would decide it, which way."""
    excess = excess_over_arctan(comparisons, confidence=confidence)
    if excess.low > 0:
        return "at the Bonferroni level some point lies above its band: the claim does not hold"
    if excess.high <= 0:
        return "at the Bonferroni level every point lies under its band's top: the claim holds"
    more, holds = seeds_to_clear_arctan(comparisons, confidence=confidence)
    cost = (
        f"deciding takes about {more} seeds per point at the fractions seen (the set has {seeds}), and the claim "
        f"would then {'hold' if holds else 'not hold'}"
        if more is not None
        else "no number of seeds decides it at the fractions seen (a point sits at its band's top)"
    )
    return f"at the Bonferroni level no point lies above its band, and not every point lies under it; {cost}"


def generalization_difference_by_sigma(counts: dict, sigma: dict) -> Estimate:
    """Eq. (12)'s direction: p_r grows with sigma_a / sigma_c. The fraction of runs that generalize, pooled over
    the ratios, at the init scale with the largest measured sigma_a / sigma_c minus that at the one with the
    smallest (Newcombe 95%). `counts`: init scale -> (generalizing runs, runs) per point (`grid.cell_counts`);
    `sigma`: init scale -> its measured sigma_a / sigma_c (`init_sigma_ratio`)."""
    by_sigma = sorted(counts, key=lambda scale: sigma[scale].value)
    (k_low, n_low), (k_high, n_high) = (counts[scale] for scale in (by_sigma[0], by_sigma[-1]))
    return proportion_difference(int(np.sum(k_high)), int(np.sum(n_high)), int(np.sum(k_low)), int(np.sum(n_low)))


def generalization_table(ratios: dict, comparisons: dict) -> str:
    """Fig. 6's points as a Markdown table (MyST, typeset headers), one row per init scale and eta_dec / eta_enc:
    the fraction of seeds that generalize (`compare_with_arctan`'s points, Wilson 95%), the band of eq. (12) at
    the measured sigma_a / sigma_c (its ends to the digits that tell them apart), and whether the point lies above
    it (what G-6's statistic counts). `ratios` and `comparisons` are keyed by init scale, `ratios` holding each
    scale's ratios in the order of its points; "" when there are none."""
    header = (
        "init scale",
        "$\\eta_\\mathrm{dec}/\\eta_\\mathrm{enc}$",
        "generalizes (Wilson 95%)",
        "band of eq. (12)",
        "above it (Wilson 95%)",
    )
    return markdown_table(
        header,
        (
            (
                f"{scale:g}",
                f"${_ratio_tex(ratio)}$",
                interval_text(point),
                " to ".join(format_estimate((low + high) / 2, low, high)[1:]),
                "yes" if above else "no",
            )
            for scale, scale_ratios in ratios.items()
            for ratio, point, low, high, above in zip(
                scale_ratios,
                comparisons[scale]["points"],
                comparisons[scale]["band_low"],
                comparisons[scale]["band_high"],
                comparisons[scale]["above"],
                strict=True,
            )
        ),
    )


def _ratio_tex(ratio: float) -> str:
    """An eta_dec / eta_enc of the paper's half-decade grids as a power of ten ("10^{0.5}"), any other ratio as
    the book's formatter writes it."""
    exponent = round(float(np.log10(ratio)), 2)
    return tex_power_of_ten(exponent) if np.isclose(10.0**exponent, ratio, rtol=1e-6) else tex_number(float(ratio))


def draw_generalization_against_ratio(ax, ratios: dict, comparisons: dict, sigma: dict) -> None:
    """The paper's Fig. 6 as the book draws it: per init scale, the fraction of seeds that generalize (the Wilson
    intervals of `compare_with_arctan`'s points) against eta_dec / eta_enc, with the band of eq. (12) at the
    sigma_a / sigma_c measured at that scale (`sigma`, shaded). All three are keyed by init scale; `ratios` holds
    each scale's eta_dec / eta_enc in the order of its points. With no points (`ratios` empty: a set registered
    before its evidence and not yet complete), the axes say so instead."""
    if not ratios:
        ax.text(
            0.5, 0.5, "drawn once every shard of the set is stored", ha="center", va="center", transform=ax.transAxes
        )
        ax.set_axis_off()
        return
    every = np.concatenate([np.asarray(r, float) for r in ratios.values()])
    fine = np.logspace(np.log10(every.min()) - 0.2, np.log10(every.max()) + 0.2, 200)
    entries = []  # per scale its points, then its band: one legend column each
    for scale, ratio in ratios.items():
        points = comparisons[scale]["points"]
        errors = np.clip([[p.value - p.low for p in points], [p.high - p.value for p in points]], 0, None)
        line = ax.errorbar(
            ratio, [p.value for p in points], yerr=errors, fmt="o-", lw=1, capsize=2, label=f"init scale {scale:g}"
        )
        band = ax.fill_between(
            fine,
            arctan_law(sigma[scale].low, 1 / fine),
            arctan_law(sigma[scale].high, 1 / fine),
            color=line[0].get_color(),
            alpha=0.25,
            label=f"eq. (12), scale {scale:g}",
        )
        entries += [line, band]
    ax.set(
        xscale="log", xlabel=r"$\eta_\mathrm{dec} / \eta_\mathrm{enc}$", ylabel="P(generalization)", ylim=(-0.05, 1.05)
    )
    # under the axes, one column per init scale (its points over its band: a legend fills its columns in turn);
    # inside them the legend covered points and their intervals
    ax.figure.set_layout_engine("constrained")
    ax.figure.legend(handles=entries, fontsize=8, loc="outside lower center", ncols=len(ratios))


def sigma_ratio_for_bound(successes, trials, dec_over_enc) -> float:
    """Fig. 6 read backwards: the smallest sigma_a / sigma_c at which eq. (12) is not below any point.

    Inverts eq. (12), sigma_a / sigma_c = tan(pi p / 2) / sqrt(eta_x / (2 eta_A)), at each point's
    Wilson lower end p (eta_x = eta_enc, eta_A = eta_dec), and takes the largest: at any larger
    ratio no point's interval lies wholly above the law. Infinite when a lower end is 1.
    """
    k, t = np.asarray(successes).ravel(), np.asarray(trials).ravel()
    ratio = np.broadcast_to(np.asarray(dec_over_enc, float), np.asarray(successes).shape).ravel()
    low = np.array([fraction(int(a), int(b)).low for a, b in zip(k, t)])
    needed = np.tan(np.pi * low / 2) / np.sqrt(1 / (2 * ratio))
    needed[low >= 1] = np.inf
    return float(needed.max())


def arctan_shape_test(successes, trials, dec_over_enc) -> dict:
    """Fig. 6 without a measured sigma: does eq. (12) fit the probabilities at any sigma_a / sigma_c?

    The binomial counts (successes of trials at each ratio eta_dec / eta_enc) are fitted by maximum
    likelihood with P = (2/pi) arctan(s sqrt(eta_enc / (2 eta_dec))), s the one free parameter (searched
    over 1e-4..1e4 on a log scale); the likelihood-ratio statistic against one free probability per
    point (the deviance) is chi-squared with (points - 1) degrees of freedom. Returns `sigma` (the best
    s), `deviance`, `df` and `p_value` (small: no sigma_a / sigma_c gives the observed shape).
    """
    from scipy.optimize import minimize_scalar
    from scipy.special import xlogy
    from scipy.stats import chi2

    k, t = np.asarray(successes, float).ravel(), np.asarray(trials, float).ravel()
    ratio = np.broadcast_to(np.asarray(dec_over_enc, float), np.asarray(successes).shape).ravel()
    eps = 1e-12

    def loglik(p):
        p = np.clip(p, eps, 1 - eps)
        return float(np.sum(xlogy(k, p) + xlogy(t - k, 1 - p)))

    fit = minimize_scalar(
        lambda log_s: -loglik(arctan_law(10.0**log_s, 1 / ratio)),
        bounds=(-4, 4),
        method="bounded",
        options={"xatol": 1e-8},
    )
    deviance = max(2 * (loglik(k / t) - (-fit.fun)), 0.0)
    df = len(k) - 1
    return {"sigma": float(10.0**fit.x), "deviance": float(deviance), "df": df, "p_value": float(chi2.sf(deviance, df))}


# ----------------------------------------------------------------------------------------------
# Trained networks: did the repons collapse by class?
# ----------------------------------------------------------------------------------------------


def repon_collapse(embed: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Per model: mean within-class distance / mean between-class distance of the embeddings.

    `embed` (M, n, d) final embeddings (lib.geneft.train.TrainResult.embed), `labels` (n,) the
    relation's classes (lib.geneft.relations.class_labels). 0 is a full collapse of every class to
    a point (Theorem 1's optimum; Theorem 2's collision), about 1 is no class structure.
    """
    e = np.asarray(embed, float)
    labels = np.asarray(labels)
    dist = np.linalg.norm(e[:, :, None] - e[:, None], axis=-1)
    same = labels[:, None] == labels[None, :]
    off = ~np.eye(len(labels), dtype=bool)
    return dist[:, same & off].mean(1) / dist[:, ~same].mean(1)


def collapse_vs_phase(embed: np.ndarray, labels: np.ndarray, generalized, threshold: float = 0.1) -> dict:
    """Whether repons collapsed (`repon_collapse` < threshold) exactly where the networks generalized.

    Theorem 2 ties generalization to collision. Returns the agreement (collapsed == generalized) and
    P(collapsed | generalized), P(collapsed | not) as Wilson fractions, the per-model ratios, and
    the Mann-Whitney test (scipy) that the ratio is smaller for generalizing models with its AUC
    (threshold-free; `auc_estimate`: with a bootstrap interval, lib.util.comparisons.auc). Caveat:
    lib.geneft.train stops a model once its phase is decided, so a generalizing model's embeddings
    are those at its early stop, not at t -> infinity.
    """
    from scipy.stats import mannwhitneyu

    ratio = repon_collapse(embed, labels)
    gen = np.asarray(generalized, bool).ravel()
    collapsed = ratio < threshold
    out = {"ratio": ratio, "collapsed": collapsed, "threshold": threshold, "agreement": fraction(collapsed == gen)}
    out["collapsed_if_generalized"] = fraction(collapsed[gen]) if gen.any() else None
    out["collapsed_if_not"] = fraction(collapsed[~gen]) if (~gen).any() else None
    if gen.any() and (~gen).any():
        test = mannwhitneyu(ratio[gen], ratio[~gen], alternative="less")
        out["mann_whitney_p"] = float(test.pvalue)
        out["auc"] = float(1 - test.statistic / (gen.sum() * (~gen).sum()))
        out["auc_estimate"] = auc(ratio[gen], ratio[~gen])
    return out


def collapse_text(results: dict, titles: dict, state: str, *, auc_interval: bool) -> str:
    """`collapse_vs_phase`'s results in words, one clause per relation (`results` and `titles` keyed by relation)
    joined by "; ": the fractions of the generalizing runs and of the others that are `state` ("collapsed",
    "under the cut-off"), and the AUC with which the ratio ranks the generalizing runs below the others (with
    its bootstrap interval when `auc_interval`); a group without runs says so. No closing period."""

    def share(estimate, runs: str) -> str:
        return (
            f"none of the {runs} (there are none)" if estimate is None else f"{interval_text(estimate)} of the {runs}"
        )

    def ranking(result: dict) -> str:
        if "auc" not in result:
            return ""
        value = interval_text(result["auc_estimate"]) if auc_interval else significant(result["auc"], 2)
        return f", and the ratio ranks the generalizing runs below the others with AUC {value}"

    clauses = [
        f"on {titles[relation]}, {share(result['collapsed_if_generalized'], 'generalizing runs')} and "
        f"{share(result['collapsed_if_not'], 'others')} are {state}{ranking(result)}"
        for relation, result in results.items()
    ]
    return sentence_start("; ".join(clauses))


def arctan_shape_without_each(successes, trials, dec_over_enc) -> dict[float, dict]:
    """`arctan_shape_test` with each ratio eta_dec / eta_enc left out in turn, keyed by log10 of the ratio left
    out: whether a rejection of eq. (12)'s shape rests on a single point (issue 32)."""
    k, t = np.asarray(successes, float).ravel(), np.asarray(trials, float).ravel()
    ratio = np.broadcast_to(np.asarray(dec_over_enc, float), np.asarray(successes).shape).ravel()
    return {
        round(float(np.log10(r)), 6): arctan_shape_test(k[ratio != r], t[ratio != r], ratio[ratio != r])
        for r in np.unique(ratio)
    }
