"""Numbers read off SIM output trajectories (Swing-by Sections 3.1-3.3, App. B, F.3).

All functions take trajectories in concept coordinates (see `SIMData.to_concept`): a
trajectory is an array (T, d) of outputs at the test point x_hat = (mu, 0, ..., 0), one row
per logged SGD step.
"""

from __future__ import annotations

import itertools

import numpy as np

from lib.sim.data import SIMData, gaussian_density

# ----------------------------------------------------------------------------------------------
# How far out of distribution the test point is (Fig. 15, 16; the reviewers' request)
# ----------------------------------------------------------------------------------------------


def density_ratio_at_test(data: SIMData, origin_cluster: bool) -> float:
    """Training density at x_hat over the density at the strongest cluster's mean (concept plane)."""
    strongest = np.diag(data.mu)[np.argmax(data.mu)]
    return gaussian_density(data.mu, data, origin_cluster) / gaussian_density(strongest, data, origin_cluster)


def fraction_near_test(data: SIMData, radius: float) -> float:
    """Fraction of training points within `radius` of the test point (those App. F.3 truncates)."""
    return float(np.mean(np.linalg.norm(data.x - data.test_point, axis=1) < radius))


def moment_shift(full: SIMData, other: SIMData) -> dict[str, float]:
    """How much a change of the training set moves what a linear network sees of it.

    The loss of a linear network of any depth, with biases, depends on the data only through the
    mean m = E[x] and the second moment A = E[x x^T] (expand 1/2 E||W x + b - x||^2), so two sets
    with the same (m, A) give the same gradient-descent trajectory. Returns the relative changes
    ||dm|| / ||x_hat|| and ||dA||_F / ||A||_F, and the fraction of points that differ.
    """

    def moments(ds):
        return ds.x.mean(0), ds.x.T @ ds.x / len(ds.x)

    (m0, a0), (m1, a1) = moments(full), moments(other)
    return {
        "mean_shift": float(np.linalg.norm(m1 - m0) / np.linalg.norm(full.test_point)),
        "second_moment_shift": float(np.linalg.norm(a1 - a0) / np.linalg.norm(a0)),
        "points_changed": float(np.mean(np.any(full.x != other.x, axis=1))),
    }


# ----------------------------------------------------------------------------------------------
# Generalization order (Section 3.1)
# ----------------------------------------------------------------------------------------------


def concept_progress(traj: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """Fraction (T, s) of the way from the initial output to mu_k covered along each concept k."""
    mu = np.asarray(mu, float)
    y = traj[:, : len(mu)]
    return (y - y[0]) / (mu - y[0])


def progress_at_half(traj: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """Progress (s,) of each concept when the mean progress first reaches 1/2 (NaN if never).

    The concept with the larger entry is the one learned first (Fig. 2a/2b).
    """
    p = concept_progress(traj, mu)
    reached = np.flatnonzero(p.mean(axis=1) >= 0.5)
    return p[reached[0]] if reached.size else np.full(p.shape[1], np.nan)


def learned_first(traj: np.ndarray, mu: np.ndarray) -> int:
    """Index of the concept ahead when the mean progress reaches 1/2; -1 if it never does."""
    p = progress_at_half(traj, mu)
    return -1 if np.isnan(p).any() else int(np.argmax(p))


# ----------------------------------------------------------------------------------------------
# Terminal slow-down (Section 3.2)
# ----------------------------------------------------------------------------------------------


def first_step_below(dist: np.ndarray, level: float) -> float:
    """First index at which dist <= level, or NaN."""
    hit = np.flatnonzero(dist <= level)
    return float(hit[0]) if hit.size else np.nan


def terminal_slowdown(traj: np.ndarray, target: np.ndarray) -> float:
    """Steps to close the last tenth of the initial distance (0.2 -> 0.1) over steps to close the first (1 -> 0.9).

    Both intervals remove the same amount, a tenth of the initial distance D0 = ||f(x_hat) - x_hat||
    at step 0. A pure exponential relaxation gives ln 2 / ln(10/9) ~ 6.6; NaN if 0.1 D0 is never reached.
    """
    return slowdown_ratio(np.linalg.norm(traj - target, axis=1))


def slowdown_ratio(dist: np.ndarray) -> float:
    """`terminal_slowdown` of a distance curve ||f(x_hat) - x_hat|| per step: steps from 0.2 to 0.1 of its initial
    value over steps from 1 to 0.9 of it (NaN if 0.1 of it is never reached).

    Section 3.2's terminal slow-down. Theorem 4.1 (eq. 4.2) makes each coordinate relax exponentially; a
    distance that relaxes at one rate a, D(t) = D0 exp(-a t), gives ln(0.2/0.1) / ln(1/0.9) = ln 2 / ln(10/9)
    ~ 6.58 whatever a is, and a ratio above that is a slow-down beyond one exponential."""
    first = first_step_below(dist, 0.9 * dist[0])
    last = first_step_below(dist, 0.1 * dist[0]) - first_step_below(dist, 0.2 * dist[0])
    return last / first


# ----------------------------------------------------------------------------------------------
# Detour and loss rise (Section 3.3, Fig. 2c, 3, 13-16)
# ----------------------------------------------------------------------------------------------


def detour(traj: np.ndarray, mu: np.ndarray) -> dict[str, np.ndarray]:
    """Deviation of the output from the straight path y(0) -> x_hat, per step.

    `in_plane`: distance, within the concept plane (first s coordinates), from the segment
    between the initial in-plane output and mu. `toward`: its component along the direction
    from x_hat to the strongest training cluster mu_k e_k (k = argmax mu), the Swing-by detour.
    `out_of_plane`: norm of the output outside the concept plane. All divided by ||x_hat||.
    """
    mu = np.asarray(mu, float)
    s, scale = len(mu), np.linalg.norm(mu)
    y = traj[:, :s]
    a, ab = y[0], mu - y[0]
    lam = np.clip((y - a) @ ab / (ab @ ab), 0.0, 1.0)
    dev = y - (a + lam[:, None] * ab)
    k = int(np.argmax(mu))
    toward = mu[k] * np.eye(s)[k] - mu
    return {
        "in_plane": np.linalg.norm(dev, axis=1) / scale,
        "toward": dev @ toward / np.linalg.norm(toward) / scale,
        "out_of_plane": np.linalg.norm(traj[:, s:], axis=1) / scale,
    }


def turn_back(traj: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """How far each concept coordinate retreats from its running maximum, in units of mu_k: (s,).

    The Swing-by path (Sec. 3.3, Fig. 2c) goes toward x_hat, turns toward the strongest training
    cluster (the weaker concepts' coordinates fall back) and returns. For coordinate k this is
    max_t [max_{t' <= t} y_k(t') - max(y_k(t), y_k(0))] / mu_k: the fall from the peak reached so
    far, counted only above the initial output, so that a coordinate that merely starts above its
    later values (an offset of the initialisation decaying) does not count as a turn-back.
    Zero for a coordinate that never decreases. traj (T, >= s) in concept coordinates.
    """
    mu = np.asarray(mu, float)
    y = traj[:, : len(mu)]
    peak = np.maximum.accumulate(y, axis=0)
    return np.max(peak - np.maximum(y, y[:1]), axis=0) / mu


def ood_loss(traj: np.ndarray, target: np.ndarray) -> np.ndarray:
    """OOD loss 1/2 ||f(x_hat) - x_hat||^2 per step (the authors' plotted loss)."""
    return 0.5 * ((traj - target) ** 2).sum(axis=-1)


def loss_rise(loss: np.ndarray) -> float:
    """Largest rise of the loss above its running minimum, relative to the initial loss.

    Zero for a non-increasing curve; the double-descent-like bump of Fig. 3 makes it positive.
    """
    return float(np.max(loss - np.minimum.accumulate(loss)) / loss[0])


# ----------------------------------------------------------------------------------------------
# Order homomorphism on the hypercube (App. B, eq. B.2)
# ----------------------------------------------------------------------------------------------


def comparable_pairs(combos: np.ndarray) -> np.ndarray:
    """Index pairs (u, v), u != v, with u <= v componentwise, for 0/1 patterns (2^s, s)."""
    pairs = [(i, j) for i, j in itertools.permutations(range(len(combos)), 2) if np.all(combos[i] <= combos[j])]
    return np.array(pairs, dtype=int).reshape(-1, 2)


def max_order_violation(losses: np.ndarray, combos: np.ndarray) -> np.ndarray:
    """Largest l(u) - l(v) over the comparable pairs u <= v, per step: losses (T, 2^s) -> (T,), <= 0 at the
    steps where eq. (B.2) (u <= v implies l(u) <= l(v)) holds."""
    pairs = comparable_pairs(combos)
    return (losses[:, pairs[:, 0]] - losses[:, pairs[:, 1]]).max(axis=1)


def learning_order_violations(losses: np.ndarray, combos: np.ndarray, learned: float) -> int:
    """Comparable pairs u <= v where v is learned (loss < `learned`) strictly before u (App. B, Fig. 7).

    A point never learned gets time infinity: v learned while u never is counts as a violation.
    """
    below = losses < learned
    t = np.where(below.any(axis=0), below.argmax(axis=0), np.inf)
    pairs = comparable_pairs(combos)
    return int((t[pairs[:, 0]] > t[pairs[:, 1]]).sum())
