"""SIM data generator (Swing-by paper, Section 2.1; App. B for the combination test points).

Cluster p in [s] is N(mu_p e_p, diag(sigma)^2), with sigma non-zero on the first s
coordinates only; optionally a cluster at the origin (as in the authors' code), a random
rotation of the whole input space (authors' code: inputs rotated by a random orthogonal
matrix), and a truncation that removes every training point within a radius of the test
point (App. F.3, Fig. 16), or the stronger truncation the reviewers asked for: every training
point in the open orthant of the test point (all concept coordinates > 0), i.e. the half of each
cluster that faces x_hat. The paper calls sigma a standard deviation; the authors' code uses it as
a variance: `sigma_is_variance=True` follows the code.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class SIMData:
    """A sampled SIM training set and its OOD test points, all in input (possibly rotated) space."""

    x: np.ndarray  # (N, d) training inputs (also the targets: identity mapping)
    cluster: np.ndarray  # (N,) cluster index in 0..s-1, or -1 for the origin cluster
    test_point: np.ndarray  # (d,) x_hat = sum_p mu_p e_p, rotated
    combo_points: np.ndarray  # (2^s, d) sum_p b_p mu_p e_p for b in {0,1}^s, rotated
    combos: np.ndarray  # (2^s, s) the 0/1 patterns b of `combo_points`
    rotation: np.ndarray  # (d, d) orthogonal Q; inputs are Q z for concept-space z
    mu: np.ndarray  # (s,)
    std: np.ndarray  # (s,) standard deviations actually used

    @property
    def d(self) -> int:
        return self.x.shape[1]

    @property
    def s(self) -> int:
        return len(self.mu)

    def to_concept(self, y: np.ndarray) -> np.ndarray:
        """Map outputs (..., d) back to the unrotated concept coordinates: Q^T y."""
        return y @ self.rotation


def cluster_stds(sigma, sigma_is_variance: bool = False) -> np.ndarray:
    """Standard deviations from the `sigma` parameter (the authors' code passes variances)."""
    sigma = np.asarray(sigma, dtype=float)
    if np.any(sigma < 0):
        raise ValueError(f"sigma must be non-negative, got {sigma}")
    return np.sqrt(sigma) if sigma_is_variance else sigma


def setting_error(mu, sigma, d: int) -> str | None:
    """Why (mu, sigma, d) is no SIM setting (Sec. 2.1: one sigma per cluster, s = len(mu) <= d), or None."""
    s, k = len(mu), len(sigma)
    if k != s or s > d:
        return (
            f"sigma needs one entry per cluster and s = len(mu) must not exceed d (need s <= d): "
            f"got len(mu) = {s}, len(sigma) = {k}, d = {d}"
        )
    return None


def population_second_moment(mu, std, d: int, origin_cluster: bool = False) -> np.ndarray:
    """Diagonal a of A = E[x x^T] (eq. C.13): a_p = sigma_p^2 + mu_p^2 / s for p <= s, else 0.

    With a cluster at the origin the mixture has s+1 equally likely components, so the mean
    term is mu_p^2 / (s+1).
    """
    mu, std = np.asarray(mu, float), np.asarray(std, float)
    if error := setting_error(mu, std, d):
        raise ValueError(error)
    s = len(mu)
    a = np.zeros(d)
    a[:s] = std**2 + mu**2 / (s + int(origin_cluster))
    return a


def random_rotation(d: int, rng: np.random.Generator) -> np.ndarray:
    """Haar-random orthogonal matrix (QR of a Gaussian matrix with the sign fix)."""
    q, r = np.linalg.qr(rng.standard_normal((d, d)))
    return q * np.sign(np.diag(r))


def sim_dataset(
    mu,
    sigma,
    d: int,
    n: int,
    *,
    sigma_is_variance: bool = False,
    origin_cluster: bool = False,
    rotate: bool = False,
    truncate_radius: float | None = None,
    truncate_orthant: bool = False,
    seed: int = 0,
) -> SIMData:
    """Sample the SIM training set: n points per cluster (Section 2.1).

    `truncate_radius` resamples every point closer than that to the test point (App. F.3);
    `truncate_orthant` resamples every point whose s concept coordinates are all positive (the
    orthant of x_hat). Resampling draws from a separate random stream, so that with the same seed
    only the resampled points differ.
    """
    mu = np.asarray(mu, dtype=float)
    std = cluster_stds(sigma, sigma_is_variance)
    if error := setting_error(mu, std, d):
        raise ValueError(error)
    s = len(mu)
    rng = np.random.default_rng(seed)
    resample_rng = np.random.default_rng(
        [seed, 1]
    )  # own stream: a truncated set keeps the full set's other points and rotation
    means = np.zeros((s + int(origin_cluster), d))
    means[np.arange(s), np.arange(s)] = mu
    labels = np.append(np.arange(s), [-1] * int(origin_cluster)).astype(int)
    noise_scale = np.zeros(d)
    noise_scale[:s] = std
    test = np.zeros(d)
    test[:s] = mu
    blocks = []
    for mean in means:
        pts = mean + rng.standard_normal((n, d)) * noise_scale
        if truncate_radius is not None or truncate_orthant:
            for _ in range(1000):
                bad = _truncated(pts, test, s, truncate_radius, truncate_orthant)
                if not bad.any():
                    break
                pts[bad] = mean + resample_rng.standard_normal((bad.sum(), d)) * noise_scale
            else:
                raise ValueError(
                    f"truncation (radius {truncate_radius}, orthant {truncate_orthant}) leaves almost no mass in a cluster"
                )
        blocks.append(pts)
    x = np.concatenate(blocks)
    cluster = np.repeat(labels, n)
    combos = np.array(list(itertools.product([0, 1], repeat=s)), dtype=float)
    combo_points = np.zeros((len(combos), d))
    combo_points[:, :s] = combos * mu
    q = random_rotation(d, rng) if rotate else np.eye(d)
    return SIMData(
        x=x @ q.T,
        cluster=cluster,
        test_point=q @ test,
        combo_points=combo_points @ q.T,
        combos=combos,
        rotation=q,
        mu=mu,
        std=std,
    )


def _truncated(pts: np.ndarray, test: np.ndarray, s: int, radius: float | None, orthant: bool) -> np.ndarray:
    """Which points (unrotated) a truncation removes: within `radius` of the test point, or in its orthant."""
    bad = np.zeros(len(pts), dtype=bool)
    if radius is not None:
        bad |= np.linalg.norm(pts - test, axis=1) < radius
    if orthant:
        bad |= np.all(pts[:, :s] > 0, axis=1)
    return bad


def gaussian_density(point: np.ndarray, data: SIMData, origin_cluster: bool = False) -> float | np.ndarray:
    """Density of the training mixture at `point` (in concept coordinates), restricted to the first s axes.

    The mixture is that of Section 2.1 ("Training Set") and eq. (C.7): a cluster p drawn uniformly, then
    x ~ N(mu_p 1_p, diag(sigma)^2), plus the optional cluster at 0; its components weigh equally here.

    The mixture is degenerate off the first s axes, so the density is taken on the s-dim
    concept plane (a reviewer asked how much training mass sits at the test point). `point` may be
    a stack of points (..., >= s): one density each (an array), the same numbers point by point.
    """
    s = data.s
    z = np.asarray(point, float)[..., None, :s]
    means = np.diag(data.mu)
    if origin_cluster:
        means = np.vstack([means, np.zeros(s)])
    var = np.maximum(data.std**2, 1e-300)
    dens = np.exp(-0.5 * (((z - means) ** 2) / var).sum(axis=-1)) / np.sqrt((2 * np.pi) ** s * var.prod())
    return float(dens.mean()) if dens.ndim == 1 else dens.mean(axis=-1)
