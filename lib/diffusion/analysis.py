"""What S-6 is decided with (Swing-by Sec. 5, Fig. 6): read-outs of a contrast's runs and their statistics.

Input per contrast: the shards of its seeds stacked (`stack_seeds`): segmentation read-outs
present/radius/colour (seeds, K, P, S), classifier read-outs (seeds, K, P, S, 3), eval_steps (K,).
Prompt index 3 is the unseen (blue, small); 0-2 the training classes (lib.diffusion.data.CLASSES).
Concept coordinates are the segmentation's (lib.diffusion.segment), in concept units: colour red 0
-> blue 1, size big 0 -> small 1. Samples are paired across checkpoints (same sampling noise), and
a sample without a disc stays in place, marked (`present` False), never dropped.

Every summary over seeds or samples is a `lib.util.stats.Estimate` (value, interval, n, method).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from lib.diffusion.data import CLASSES, UNSEEN, Circles, concept_signals
from lib.diffusion.segment import concept_coordinates
from lib.util.numbers import format_number, interval_text
from lib.util.stats import (
    CONFIDENCE,
    Estimate,
    bootstrap_interval,
    bootstrap_mean,
    fraction,
    t_interval_power,
    undecided,
)

UNSEEN_PROMPT = 3
TARGET = np.array([1.0, 1.0])  # concept coordinates of (blue, small)
LEARNED_LEVEL = 0.75  # a coordinate "learned" when it first reaches this: the level fixed in advance
OTHER_LEVELS = (0.6, 0.9)  # the learned level's robustness row
TRANSIT = (0.45, 0.85)  # progress (colour + size) / 2 between which the bend is measured
CALIBRATION_IMAGES = 64  # fresh images per class in lib.diffusion.classifier.calibration (its n)

# ----------------------------------------------------------------------------------------------
# Read-outs in concept units
# ----------------------------------------------------------------------------------------------


def stack_seeds(shards: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Shards of one contrast (one per seed, same configuration) stacked on a new first axis."""
    return {
        k: np.stack([s[k] for s in shards])
        for k in ("present", "radius", "colour", "classifier", "loss_diffusion", "loss_prior", "loss_recon", "gamma")
    } | {"eval_steps": shards[0]["eval_steps"]}


def coordinates(runs: dict[str, np.ndarray], dgp: Circles) -> np.ndarray:
    """(seeds, K, P, S, 2) segmentation concept coordinates, NaN where no disc is present."""
    coords = concept_coordinates(runs["colour"], runs["radius"], dgp)
    return np.where(runs["present"][..., None], coords, np.nan)


READOUTS_OF_CONCEPTS = ("segmentation", "classifier")  # the first is the read-out fixed in advance


def classifier_coordinates(runs: dict[str, np.ndarray]) -> np.ndarray:
    """(seeds, K, P, S, 2) the classifier's read-out as concept coordinates: (P(blue), P(small)), NaN
    where it gives P(disc) <= 1/2. The other read-out of every S-6 claim (the segmentation's coordinates
    are geometric, these are class probabilities: they agree on the class, not on the distance)."""
    clf = runs["classifier"]
    return np.where(clf[..., 2:3] > 0.5, clf[..., :2], np.nan)


def trajectory(coords: np.ndarray) -> np.ndarray:
    """Mean coordinates over disc samples: (..., S, 2) -> (..., 2) (NaN where every sample is blank)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-blank checkpoints: NaN, as documented
        return np.nanmean(coords, axis=-2)


def sample_error(coords: np.ndarray) -> np.ndarray:
    """Per-sample concept-space error to (blue, small): mean over the two concepts of
    (coordinate clipped to [0, 1] - 1)^2 (Park et al.'s MSE); a blank sample counts as the largest
    error, 1, so that samples stay paired across checkpoints."""
    err = ((np.clip(coords, 0, 1) - TARGET) ** 2).mean(-1)
    return np.where(np.isnan(err), 1.0, err)


def blank_fraction(present: np.ndarray) -> np.ndarray:
    """Fraction of samples without a disc over the last axis."""
    return 1 - present.mean(-1)


def stronger_concept(dgp: Circles) -> str:
    """The concept with the larger concept signal of the data (lib.diffusion.data.concept_signals)."""
    sig = concept_signals(dgp)
    return max(sig, key=sig.get)


# ----------------------------------------------------------------------------------------------
# Small statistics
# ----------------------------------------------------------------------------------------------


def mean_over_seeds(values: np.ndarray, lo: float = -np.inf, hi: float = np.inf) -> Estimate:
    """Mean of per-seed values with Student's t interval (scipy.stats.ttest_1samp), clipped to [lo, hi]."""
    from scipy.stats import ttest_1samp

    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    if x.size == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0, "no finite seed")
    value = float(x.mean())
    if x.size < 2 or np.all(x == x[0]):
        low, high = (value, value) if x.size >= 2 else (lo, hi)
        return Estimate(
            value, max(low, lo), min(high, hi), int(x.size), "t over seeds, no spread" if x.size >= 2 else "one seed"
        )
    ci = ttest_1samp(x, 0.0).confidence_interval(CONFIDENCE)
    return Estimate(
        value, max(float(ci.low), lo), min(float(ci.high), hi), int(x.size), f"t over seeds {CONFIDENCE:.0%}"
    )


def median_sign_interval(values: np.ndarray, bound: float) -> Estimate:
    """Median of per-seed values with the distribution-free interval of the sign test: the order
    statistics [x_(k), x_(n+1-k)] with the largest k whose coverage 1 - 2 P(Bin(n, 1/2) < k) reaches
    CONFIDENCE. It stays valid when values are censored (a concept never learned counts as learned one
    read-out past the end: the order is kept, the size is not). Below 6 seeds no k reaches 95 %
    (n = 5: 1 - 2/32), and the interval is the whole range [-bound, bound]."""
    from scipy.stats import binom

    x = np.sort(np.asarray(values, dtype=float))
    n = x.size
    if n == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0, "no seed")
    reach = [k for k in range(1, n // 2 + 1) if 1 - 2 * binom.cdf(k - 1, n, 0.5) >= CONFIDENCE]
    value = float(np.median(x))
    if not reach:
        p_min = 2 * 0.5**n
        return Estimate(
            value,
            -bound,
            bound,
            n,
            f"median; the sign test cannot reach {CONFIDENCE:.0%} with {n} seeds (p >= {p_min:.3g})",
        )
    k = max(reach)
    return Estimate(value, float(x[k - 1]), float(x[n - k]), n, f"median, sign-test interval {CONFIDENCE:.0%}")


def _mann_whitney_null(m: int, n: int) -> np.ndarray:
    """Exact null distribution of the Mann-Whitney U for samples of m and n without ties: P(U = u), u = 0..mn."""
    counts = {(0, j): np.ones(1) for j in range(n + 1)} | {(i, 0): np.ones(1) for i in range(m + 1)}
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            a, b = counts[i - 1, j], counts[i, j - 1]  # the largest value is from the first sample, or not
            out = np.zeros(i * j + 1)
            out[j : j + a.size] += a
            out[: b.size] += b
            counts[i, j] = out
    return counts[m, n] / counts[m, n].sum()


def rank_interval_order(m: int, n: int) -> int | None:
    """The order k of the exact Mann-Whitney interval [D_(k), D_(mn+1-k)] for samples of m and n (Bauer
    1972): the largest k whose coverage 1 - 2 P(U < k) reaches CONFIDENCE; None when no k does."""
    cdf = np.cumsum(_mann_whitney_null(m, n))
    reach = [k for k in range(1, m * n // 2 + 1) if 1 - 2 * cdf[k - 1] >= CONFIDENCE]
    return max(reach) if reach else None


def rank_shift(a: np.ndarray, b: np.ndarray) -> Estimate:
    """The shift a - b between two independent samples: the Hodges-Lehmann estimate (median of all
    pairwise differences) with the exact Mann-Whitney interval [D_(k), D_(mn+1-k)] (`rank_interval_order`).
    Ranks only, so censored values that keep their order are fine. n is the smaller sample."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    diffs = np.sort((a[:, None] - b[None, :]).ravel())
    k = rank_interval_order(a.size, b.size)
    value = float(np.median(diffs))
    n = int(min(a.size, b.size))
    if k is None:
        span = float(np.abs(diffs).max())
        return Estimate(value, -span, span, n, f"Hodges-Lehmann; too few seeds for a {CONFIDENCE:.0%} interval")
    return Estimate(
        value, float(diffs[k - 1]), float(diffs[diffs.size - k]), n, f"Hodges-Lehmann, Mann-Whitney {CONFIDENCE:.0%}"
    )


def rank_shift_power(shift: float, m: int, n: int, draws: int = 20_000, seed: int = 0) -> float:
    """The power of `rank_shift`'s interval to lie wholly above 0 when a - b is shifted by `shift` standard
    deviations (normal samples of m and n): the interval's low end D_(k) is above 0 when fewer than k of
    the m n pairwise differences are at most 0, so the power is P(#{a_i <= b_j} < k) under the shift. That
    probability by Monte Carlo over `draws` pairs of samples from a seeded generator (standard error at
    most 0.5/sqrt(draws), under 0.004 at the default); 0 when no interval reaches CONFIDENCE."""
    k = rank_interval_order(m, n)
    if k is None:
        return 0.0
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((draws, m, 1)) + shift
    b = rng.standard_normal((draws, 1, n))
    return float(np.mean((a <= b).sum(axis=(1, 2)) < k))


# ----------------------------------------------------------------------------------------------
# Generalisation: success at the end
# ----------------------------------------------------------------------------------------------


def in_corner(coords: np.ndarray, corner: tuple[int, int] = (1, 1)) -> np.ndarray:
    """Samples read as the class `corner` (colour, size in {0, 1}): present and each coordinate on the
    corner's side of 1/2. (..., S, 2) -> (..., S); blank samples are never in a corner."""
    with np.errstate(invalid="ignore"):
        return np.all(np.where(np.asarray(corner, dtype=bool), coords > 0.5, coords < 0.5), axis=-1)


def success(coords: np.ndarray) -> np.ndarray:
    """Samples read as a (blue, small) disc: present and both coordinates above 1/2. (..., S, 2) -> (..., S)."""
    return in_corner(coords, UNSEEN)


def success_rate(coords: np.ndarray) -> Estimate:
    """Fraction of the unseen prompt's samples at the last checkpoint that are (blue, small):
    per seed, then the mean over seeds with a t interval (seeds are the independent units)."""
    per_seed = success(coords[:, -1, UNSEEN_PROMPT]).mean(-1)
    return mean_over_seeds(per_seed, 0.0, 1.0)


def training_success_rate(coords: np.ndarray) -> Estimate:
    """The control for `success_rate`: the fraction of the three training prompts' samples at the last
    checkpoint that are read as their own class (prompt p is CLASSES[p]), per seed, then the mean
    over seeds with a t interval. A model that cannot draw the classes it was shown says nothing
    about composing them."""
    per_seed = np.mean([in_corner(coords[:, -1, p], CLASSES[p]).mean(-1) for p in range(UNSEEN_PROMPT)], axis=0)
    return mean_over_seeds(per_seed, 0.0, 1.0)


def generalisation(success: Estimate, training_success: Estimate, level: float = 0.5) -> Estimate:
    """The success rate a claim of convergence to the unseen class can be judged on. The paper's claim
    is about the end state of training: a run whose training prompts are not yet read as their own
    classes at least `level` of the time (the interval's low end) has not reached it, so its success
    rate is `undecided` over [0, 1], however low, with that reason (lib.util.stats.undecided)."""
    if training_success.low > level:
        return success
    return undecided(
        success,
        0.0,
        1.0,
        f"training prompts drawn as their own class in {training_success.value:.2f} "
        f"[{training_success.low:.2f}, {training_success.high:.2f}] of samples, not yet above {level:g}",
    )


def late_change(err: np.ndarray, steps: np.ndarray, fraction: float = 0.25) -> Estimate:
    """Whether training had settled: the paired change of each seed's mean error (`err`: seeds, checkpoints,
    samples) from the checkpoint at (1 - fraction) of training to the last one, seeds the units (the samples of
    one seed share its model, so they are not independent). An interval below 0 means the error was still
    falling when the run stopped."""
    start = int(np.searchsorted(steps, (1 - fraction) * steps[-1]))
    by_seed = err.mean(-1)
    return mean_over_seeds(by_seed[:, -1] - by_seed[:, start], -1.0, 1.0)  # an error lies in [0, 1]


# ----------------------------------------------------------------------------------------------
# (c) Exponential approach to the target
# ----------------------------------------------------------------------------------------------


def decay_curve(t: np.ndarray, floor: float, amplitude: float, rate: float) -> np.ndarray:
    """d(t) = floor + amplitude exp(-rate t): the distance to the target, whose speed |dd/dt| then
    decays at the exponential rate `rate` (Theorem 4.1)."""
    return floor + amplitude * np.exp(-rate * t)


@dataclass(frozen=True)
class DecayFit:
    """Least-squares fit of decay_curve to a distance curve from its peak on (t relative to the peak)."""

    rate: Estimate  # per step, interval from the fit's covariance (t quantile)
    amplitude: float
    floor: float
    r2: float
    start: int  # step of the peak
    points: int


def _from_peak(steps: np.ndarray, distance: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each curve of `distance` (B, K) from its largest value after step 0 on: (t since the peak (B, K),
    distance (B, K), weights (B, K): 1 on the finite read-outs from the peak on, else 0, whether the
    curve has a segment: at least 4 finite read-outs after step 0 and at least 4 from the peak on)."""
    ok = np.isfinite(distance)
    ok[:, 0] = False
    peak = np.where(ok, distance, -np.inf).argmax(1)
    after = ok & (np.arange(distance.shape[1]) >= peak[:, None])
    fits = (ok.sum(1) >= 4) & (after.sum(1) >= 4)
    t = (steps[None, :] - steps[peak][:, None]).astype(float)
    return t, np.where(after, distance, 0.0), after.astype(float), fits


def _linear_part(e: np.ndarray, d: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(floor, amplitude, residual sum of squares) of the weighted least-squares fit of d = floor +
    amplitude e, for the basis e (..., K) of a fixed rate (d, w broadcast against e): the linear half of
    the variable projection."""
    n = np.maximum(w.sum(-1), 1.0)  # a curve without points has no fit (`least_squares_decay` marks it)
    d_mean, e_mean = (w * d).sum(-1) / n, (w * e).sum(-1) / n
    ec, dc = e - e_mean[..., None], d - d_mean[..., None]
    see = (w * ec * ec).sum(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        amplitude = np.where(see > 1e-300, (w * ec * dc).sum(-1) / see, 0.0)
    floor = d_mean - amplitude * e_mean
    residual = d - floor[..., None] - amplitude[..., None] * e
    return floor, amplitude, (w * residual * residual).sum(-1)


# log10 of the rate relative to 1 / (the segment's last time): 1e-4 to 1e4 decays, and growths up to
# exp(20) over the segment (a curve after its peak can also bend down faster and faster)
DECAY_GRID = np.linspace(-4.0, 4.0, 161)
GROWTH_GRID = np.linspace(-4.0, np.log10(20.0), 89)
RATE_GRID = np.concatenate([-(10.0**GROWTH_GRID), 10.0**DECAY_GRID])  # signed, in units of 1 / the last time


def _centred(x: np.ndarray, w: np.ndarray, n: np.ndarray | float) -> np.ndarray:
    """x (..., K) less its weighted mean over the last axis, sum(w x) / n (n: the weights' sum, at least 1)."""
    return x - ((w * x).sum(-1) / n)[..., None]


def _residual_from_sums(sdd: np.ndarray, sed: np.ndarray, see: np.ndarray) -> np.ndarray:
    """The residual sum of squares of `_linear_part`'s fit d = floor + amplitude e from the centred sums
    S_xy = sum_k w (x - mean x)(y - mean y) (weighted means): S_dd - S_ed^2 / S_ee, or S_dd where S_ee = 0
    (a constant basis, amplitude 0), NaN where S_ee is (a basis that overflows, as in `_linear_part`). The
    same number as the residuals' sum of squares, to rounding."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.isnan(see), np.nan, sdd - np.where(see > 1e-300, sed * sed / see, 0.0))


def _grid_residuals(
    t: np.ndarray, scale: np.ndarray, w: np.ndarray, dc: np.ndarray, sdd: np.ndarray, grid: np.ndarray
) -> np.ndarray:
    """Residual sums of squares (B, G) of `_linear_part`'s fits to the curves (B, K) at every rate
    grid[g] * scale[b] (`_residual_from_sums`), all rates at once; t and w (B, K) are the curves' times and
    weights, dc their centred values and sdd the sums of squares of those. The curves that share their
    times and weights (the same peak and read-outs) share the basis exp(-rate t) of every rate, centred once
    for them; their cross sums S_ed at every rate are one matrix product."""
    ss = np.empty((len(dc), len(grid)))
    _, first, group = np.unique(np.column_stack([t, w]), axis=0, return_index=True, return_inverse=True)
    for g, row in enumerate(first):
        members, weights = np.flatnonzero(group.ravel() == g), w[row]
        with np.errstate(over="ignore", invalid="ignore"):
            basis = _centred(np.exp(-(grid * scale[row])[:, None] * t[row]), weights, max(weights.sum(), 1.0))
        see = (weights * basis * basis).sum(-1)
        ss[members] = _residual_from_sums(sdd[members, None], (weights * dc[members]) @ basis.T, see)
    return ss


def _r2(d: np.ndarray, fitted: np.ndarray) -> float:
    total = ((d - d.mean()) ** 2).sum()
    return float(1 - ((d - fitted) ** 2).sum() / total) if total > 0 else float("nan")


def least_squares_decay(steps: np.ndarray, distance: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Least-squares fits of decay_curve to each curve of `distance` (B, K) from its peak on, all at once:
    (parameters (B, 3) as (floor, amplitude, rate), R^2 (B,), whether the curve has a segment (B,)).

    Variable projection: for a fixed rate the floor and amplitude are linear, so the residual sum of
    squares is a function of the rate alone; its minimum is found on a grid of rates (decays from
    1e-4 to 1e4 times 1 / the segment's length, growths up to exp(20) over it), then refined by golden
    section between the grid's neighbours of the best point (to 1e-9 of a grid step). The search reads the
    residual sum of squares from centred sums (`_residual_from_sums`; every grid rate at once:
    `_grid_residuals`), the fit at the rate found from its residuals (`_linear_part`). Curves without a
    segment (fewer than 4 points) get NaN."""
    t, d, w, fits = _from_peak(steps, np.atleast_2d(np.asarray(distance, dtype=float)))
    scale = 1.0 / np.maximum(t.max(1), 1.0)
    n = np.maximum(w.sum(1), 1.0)  # a curve without points has no fit (marked below)
    dc = _centred(d, w, n)
    sdd = (w * dc * dc).sum(1)
    ss = _grid_residuals(t, scale, w, dc, sdd, RATE_GRID)
    best = np.where(np.isfinite(ss), ss, np.inf).argmin(1)
    sign = np.sign(RATE_GRID[best])
    exponent = np.log10(np.abs(RATE_GRID[best]))
    step = np.where(sign > 0, DECAY_GRID[1] - DECAY_GRID[0], GROWTH_GRID[1] - GROWTH_GRID[0])
    low, high = exponent - step, exponent + step
    high = np.where(sign < 0, np.minimum(high, GROWTH_GRID[-1]), high)

    def residual(x: np.ndarray) -> np.ndarray:
        rate = sign * 10.0**x * scale
        with np.errstate(over="ignore", invalid="ignore"):
            basis = _centred(np.exp(-rate[:, None] * t), w, n)
            value = _residual_from_sums(sdd, (w * basis * dc).sum(1), (w * basis * basis).sum(1))
        return np.where(np.isfinite(value), value, np.inf)

    golden = (np.sqrt(5.0) - 1) / 2
    a, b = low, high
    c, e = b - golden * (b - a), a + golden * (b - a)
    fc, fe = residual(c), residual(e)
    for _ in range(60):  # keep the lower of the two inner points; one new residual per curve and step
        left = fc <= fe
        a, b = np.where(left, a, c), np.where(left, e, b)
        x = np.where(left, b - golden * (b - a), a + golden * (b - a))
        fx = residual(x)
        c, e, fc, fe = np.where(left, x, e), np.where(left, c, x), np.where(left, fx, fe), np.where(left, fc, fx)
    rate = sign * 10.0 ** ((a + b) / 2) * scale
    floor, amplitude, ss_best = _linear_part(np.exp(-rate[:, None] * t), d, w)
    with np.errstate(divide="ignore", invalid="ignore"):
        r2 = np.where(sdd > 0, 1 - ss_best / sdd, np.nan)
    params = np.stack([floor, amplitude, rate], axis=1)
    params[~fits], r2[~fits] = np.nan, np.nan
    return params, r2, fits


def fit_decay(steps: np.ndarray, distance: np.ndarray) -> DecayFit | None:
    """Fit from the largest distance after step 0 on (None with fewer than 4 points or no fit): the least-
    squares fit of `least_squares_decay`, whose rate gets its interval from the covariance that
    scipy.optimize.curve_fit computes when started there."""
    from scipy.optimize import curve_fit
    from scipy.stats import t as student

    params, r2, fits = least_squares_decay(steps, distance[None, :])
    if not fits[0]:
        return None
    t, d, w, _ = _from_peak(steps, np.asarray(distance, dtype=float)[None, :])
    use = w[0] > 0
    s, d = t[0][use], d[0][use]
    try:
        p, cov = curve_fit(decay_curve, s, d, p0=params[0], maxfev=10000)
    except (RuntimeError, ValueError):
        return None
    se = float(np.sqrt(cov[2, 2])) if np.isfinite(cov[2, 2]) else float("inf")
    q = student.ppf(0.5 + CONFIDENCE / 2, max(len(d) - 3, 1))
    rate = Estimate(
        float(p[2]), float(p[2] - q * se), float(p[2] + q * se), len(d), f"curve_fit covariance, t {CONFIDENCE:.0%}"
    )
    start = int(np.flatnonzero(use)[0])
    return DecayFit(rate, float(p[1]), float(p[0]), _r2(d, decay_curve(s, *p)), int(steps[start]), len(d))


def distance_to_target(traj: np.ndarray) -> np.ndarray:
    """||C - (1, 1)|| of trajectory points (..., 2)."""
    return np.linalg.norm(traj - TARGET, axis=-1)


def decay_r2(traj_by_seed: np.ndarray, steps: np.ndarray, seed: int = 0) -> tuple[Estimate, DecayFit | None]:
    """R^2 of the exponential fit to the seed-mean distance curve, with a percentile bootstrap
    interval over seeds (scipy.stats.bootstrap, resampling whole seeds and refitting).

    traj_by_seed (seeds, K, 2): the unseen prompt's trajectory per seed. The 999 resamples' mean curves
    are fitted together (`least_squares_decay`, vectorised over resamples).
    """

    def r2_of(idx: np.ndarray, axis: int = -1) -> np.ndarray:
        mean = trajectory(np.moveaxis(traj_by_seed[np.moveaxis(np.asarray(idx, dtype=int), axis, -1)], -3, -2))
        return least_squares_decay(steps, distance_to_target(mean).reshape(-1, len(steps)))[1].reshape(mean.shape[:-2])

    fit = fit_decay(steps, distance_to_target(trajectory(traj_by_seed.transpose(1, 0, 2))))
    n = len(traj_by_seed)
    if fit is None:
        return Estimate(float("nan"), float("nan"), float("nan"), n, "no fit"), None
    if n < 3:
        return Estimate(fit.r2, 0.0, 1.0, n, "fewer than 3 seeds: no interval"), fit
    with np.errstate(all="ignore"):
        low, high = bootstrap_interval(
            (np.arange(n),), r2_of, rng=np.random.default_rng(seed), vectorized=True, resamples=999
        )
    low, high = (low, high) if np.isfinite(low) and np.isfinite(high) else (0.0, 1.0)
    return Estimate(
        fit.r2, min(low, fit.r2), max(high, fit.r2), n, f"bootstrap percentile over seeds {CONFIDENCE:.0%}"
    ), fit


# ----------------------------------------------------------------------------------------------
# (a) Bend toward the stronger concept, and the order of learning (measured apart)
# ----------------------------------------------------------------------------------------------


def offset_toward(traj: np.ndarray, concept: str) -> np.ndarray:
    """Signed distance of trajectory points (..., 2) off the diagonal colour = size, positive toward
    the training corner of `concept` ("size": (red, small) = (0, 1); "colour": (blue, big) = (1, 0))."""
    sign = 1.0 if concept == "size" else -1.0
    return sign * (traj[..., 1] - traj[..., 0]) / np.sqrt(2)


def bend(traj_by_seed: np.ndarray, concept: str, window: tuple[float, float] = TRANSIT) -> np.ndarray:
    """Per seed, the mean offset toward `concept` over the checkpoints (after the first) whose
    progress (colour + size) / 2 lies in `window`: how far the trajectory swings toward that
    concept's corner while in transit (NaN for a seed with no checkpoint in the window).
    A mean over a fixed window, not the largest excursion, so that sampling noise does not bias it up."""
    t = traj_by_seed[:, 1:]
    progress = t.mean(-1)
    inside = (progress >= window[0]) & (progress <= window[1])
    off = np.where(inside, offset_toward(t, concept), np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # no checkpoint in the window: NaN
        return np.nanmean(off, axis=1)


def crossing_step(values: np.ndarray, steps: np.ndarray, level: float = LEARNED_LEVEL) -> float:
    """First step at which `values` (K,) reaches `level`, linearly interpolated between checkpoints
    (checkpoints after the first only); one eval interval past the end if never."""
    v, s = values[1:], steps[1:]
    hit = np.nonzero(np.nan_to_num(v, nan=-np.inf) >= level)[0]
    if not len(hit):
        return float(steps[-1] + (steps[-1] - steps[-2]))
    i = hit[0]
    if i == 0 or not np.isfinite(v[i - 1]):
        return float(s[i])
    return float(s[i - 1] + (level - v[i - 1]) / (v[i] - v[i - 1]) * (s[i] - s[i - 1]))


def colour_lead(traj_by_seed: np.ndarray, steps: np.ndarray, level: float = LEARNED_LEVEL) -> np.ndarray:
    """Per seed, step at which size reaches `level` minus the step at which colour does:
    positive when colour is learned first."""
    return np.array([crossing_step(t[:, 1], steps, level) - crossing_step(t[:, 0], steps, level) for t in traj_by_seed])


def order_reversed(lead_low: Estimate, lead_high: Estimate) -> str:
    """ "holds" when the colour lead's interval excludes 0 with opposite signs at the lowest and the
    highest contrast, "does not hold" when both exclude 0 with the same sign, else "inconclusive"."""
    side = lambda e: 1 if e.low > 0 else (-1 if e.high < 0 else 0)
    a, b = side(lead_low), side(lead_high)
    if a and b:
        return "holds" if a != b else "does not hold"
    return "inconclusive"


# ----------------------------------------------------------------------------------------------
# The read-out's bias and its agreement with the segmentation
# ----------------------------------------------------------------------------------------------


def classifier_bias_on_noise(noise_readouts: list[np.ndarray], seed: int = 0) -> Estimate:
    """Mean P(blue) the classifiers give pure-noise images (an unbiased read-out: 1/2 or, better,
    P(disc) near 0), bootstrap interval over images of all contrasts' classifiers."""
    return bootstrap_mean(np.concatenate([r[:, 0] for r in noise_readouts]), seed=seed)


def classifier_accuracy(class_accuracies: list[np.ndarray], images_per_class: int = CALIBRATION_IMAGES) -> Estimate:
    """Held-out accuracy of the read-out classifiers (the paper's App. G.3 reports 100 %): the fraction of
    fresh images of the four classes whose three outputs all lie on the right side of 1/2, pooled over
    the classifiers (one (4,) array of per-class accuracies each, calibration_class_accuracy), with its
    Wilson interval over the images."""
    acc = np.concatenate([np.asarray(a, dtype=float).ravel() for a in class_accuracies])
    return fraction(int(round(float((acc * images_per_class).sum()))), acc.size * images_per_class)


def seed_band(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mean, mean - se, mean + se) over seeds (axis 0) of per-seed values, NaN ignored (a seed without a
    value there, e.g. only blank samples): the seed mean and its band of one standard error, the
    standard deviation over seeds over the square root of their number (NaN where fewer than 2 seeds)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN or single-seed points: NaN, as documented
        mean = np.nanmean(values, axis=0)
        n = np.isfinite(values).sum(0)
        se = np.where(n > 1, np.nanstd(values, axis=0, ddof=1) / np.sqrt(np.maximum(n, 1)), np.nan)
    return mean, mean - se, mean + se


def readout_agreement(coords: np.ndarray, classifier: np.ndarray) -> float:
    """Fraction of samples (all checkpoints after the first, all prompts) on which the segmentation
    and the classifier agree on the class, a blank (no disc / P(disc) <= 1/2) counting as a class."""
    seg_disc = np.isfinite(coords[..., 0])
    clf_disc = classifier[..., 2] > 0.5
    with np.errstate(invalid="ignore"):
        seg_cls = (coords[..., 0] > 0.5) * 2 + (coords[..., 1] > 0.5)
    clf_cls = (classifier[..., 0] > 0.5) * 2 + (classifier[..., 1] > 0.5)
    agree = np.where(seg_disc & clf_disc, seg_cls == clf_cls, seg_disc == clf_disc)
    return float(agree[:, 1:].mean())


# ----------------------------------------------------------------------------------------------
# Everything per contrast, and the metrics of the claims
# ----------------------------------------------------------------------------------------------


def analyse_set(
    shards_by_contrast: dict[float, list[dict[str, np.ndarray]]],
    config: dict,
    level: float = LEARNED_LEVEL,
    window: tuple[float, float] = TRANSIT,
    readouts: tuple[str, ...] = READOUTS_OF_CONCEPTS,
) -> tuple[dict[float, dict[str, np.ndarray]], dict[float, Circles], dict[str, dict[float, dict]]]:
    """An evidence set's runs by contrast (each contrast's shard arrays, one per seed), their
    data-generating processes from the set's configuration, and `analyse_contrast` of each under each
    read-out of `readouts` (by read-out, then contrast); each contrast's stronger concept is computed once."""
    runs = {c: stack_seeds(arrays) for c, arrays in shards_by_contrast.items()}
    dgps = {
        c: Circles(c, config["size_mean"], config["size_signal"], config["resolution"], blur=config["blur"])
        for c in runs
    }
    stronger = {c: stronger_concept(dgp) for c, dgp in dgps.items()}
    return (
        runs,
        dgps,
        {
            readout: {c: analyse_contrast(runs[c], dgps[c], level, window, readout, stronger[c]) for c in runs}
            for readout in readouts
        },
    )


READOUTS = ("present", "radius", "colour", "classifier")


def max_difference(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> float:
    """Largest absolute difference between two shards' arrays (NaN where both NaN counts as equal;
    inf when their names or shapes differ), for comparing a live recomputation with a stored shard."""
    if set(a) != set(b) or any(a[k].shape != b[k].shape for k in a):
        return float("inf")
    worst = 0.0
    for k, value in a.items():
        x, y = value.astype(np.float64), b[k].astype(np.float64)
        both_nan = np.isnan(x) & np.isnan(y)
        diff = np.where(both_nan, 0.0, np.abs(x - y))
        worst = max(worst, float(np.nan_to_num(diff, nan=np.inf).max(initial=0.0)))
    return worst


def readouts_at(arrays: dict[str, np.ndarray], step: int) -> dict[str, np.ndarray]:
    """A shard's read-outs (READOUTS) at its checkpoint `step`, for comparing two runs of the same random
    streams at a checkpoint they share."""
    k = np.flatnonzero(arrays["eval_steps"] == step)
    if k.size != 1:
        raise ValueError(f"the shard has no checkpoint at step {step} (checkpoints: {arrays['eval_steps'].tolist()})")
    return {name: arrays[name][k[0]] for name in READOUTS}


def prompt_means_at(arrays: dict[str, np.ndarray], dgp: Circles, step: int) -> np.ndarray:
    """(P, 2) every prompt's mean concept coordinates over its disc samples at checkpoint `step` of one shard."""
    return trajectory(coordinates(readouts_at(arrays, step), dgp))


def continuation_ratio(continued: list[np.ndarray], originals: list[np.ndarray], references: list[np.ndarray]) -> float:
    """How closely continued runs retrace the runs they continue, at a checkpoint both have.

    continued[i] and originals[i]: one run's (P, 2) prompt means (`prompt_means_at`) in its
    continuation and in the original set; references: the original set's runs of every seed. The
    mean distance within pairs over the mean distance between distinct references: 0 for the same
    numbers, about 1 for runs no closer than two seeds. Runs on the same random streams differ only
    by floating-point differences (another machine's kernels), which training may amplify."""
    within = np.nanmean([np.nanmean(np.linalg.norm(a - b, axis=-1)) for a, b in zip(continued, originals)])
    between = np.nanmean(
        [
            np.nanmean(np.linalg.norm(references[i] - references[j], axis=-1))
            for i in range(len(references))
            for j in range(i + 1, len(references))
        ]
    )
    return float(within / between)


def largest_continuation_ratio(
    continued: dict[tuple[float, int], dict[str, np.ndarray]],
    originals: dict[tuple[float, int], dict[str, np.ndarray]],
    dgps: dict[float, Circles],
    step: int,
) -> float:
    """`continuation_ratio` at checkpoint `step` for each contrast that has continued runs, the largest.

    continued: the continued runs' shard arrays by (contrast, seed); originals: every shard of the
    original set by (contrast, seed), each contrast's seeds serving as its references."""
    means = lambda arrays, c: prompt_means_at(arrays, dgps[c], step)
    ratios = []
    for c in sorted({c for c, _ in continued}):
        keys = [key for key in continued if key[0] == c]
        ratios.append(
            continuation_ratio(
                [means(continued[key], c) for key in keys],
                [means(originals[key], c) for key in keys],
                [means(arrays, c) for (oc, _), arrays in originals.items() if oc == c],
            )
        )
    return max(ratios)


def contrast_key(contrast: float) -> str:
    """Metric-name suffix of a contrast: 0.35 -> "0_35"."""
    return f"{contrast:g}".replace(".", "_")


def analyse_contrast(
    runs: dict[str, np.ndarray],
    dgp: Circles,
    level: float = LEARNED_LEVEL,
    window: tuple[float, float] = TRANSIT,
    readout: str = "segmentation",
    stronger: str | None = None,
) -> dict:
    """Trajectories (seeds, K, P, 2), blank fractions, success, the decay fit, the MSE rise during the bend,
    the bend toward the stronger concept and the colour lead, for one contrast's stacked seeds, read
    by the segmentation (concept units) or the classifier (`classifier_coordinates`). `stronger`: the
    data's stronger concept (`stronger_concept(dgp)` when None)."""
    if readout not in READOUTS_OF_CONCEPTS:
        raise ValueError(f"unknown read-out {readout!r}: use one of {READOUTS_OF_CONCEPTS}")
    steps = runs["eval_steps"]
    coords = coordinates(runs, dgp) if readout == "segmentation" else classifier_coordinates(runs)
    traj = trajectory(coords)  # (seeds, K, P, 2)
    unseen = traj[:, :, UNSEEN_PROMPT]
    err = sample_error(coords[:, :, UNSEEN_PROMPT])  # (seeds, K, S)
    stronger = stronger or stronger_concept(dgp)
    r2, fit = decay_r2(unseen, steps)
    leads = colour_lead(unseen, steps, level)
    bound = float(steps[-1] + (steps[-1] - steps[-2]))  # the largest lead a censored crossing allows
    return {
        "steps": steps,
        "coords": coords,
        "traj": traj,
        "traj_pooled": trajectory(coords.transpose(1, 2, 0, 3, 4).reshape(*coords.shape[1:3], -1, 2)),
        "blank": blank_fraction(runs["present"]).mean(0),
        "mse": err.mean((0, 2)),
        "mse_by_seed": err.mean(2),
        "stronger": stronger,
        "success": success_rate(coords),
        "training_success": training_success_rate(coords),
        "mse_late_change": late_change(err, steps),
        "r2": r2,
        "fit": fit,
        "bend": mean_over_seeds(bend(unseen, stronger, window)),
        "rise_in_bend": mean_over_seeds(rise_in_bend(unseen, err.mean(2), stronger, window)),
        "leads": leads,
        "lead": median_sign_interval(leads, bound),
        "leads_at": {x: colour_lead(unseen, steps, x) for x in OTHER_LEVELS},
        "lead_bound": bound,
        "agreement": readout_agreement(coords, runs["classifier"]),
        "classifier_traj": runs["classifier"][..., :2].mean((0, 3)),
    }


def s6_metrics(results: dict[float, dict], noise_readouts: list[np.ndarray], seeds: int) -> dict:
    """The chapter's S-6 metrics (estimates as dicts) from `analyse_contrast` results by contrast.

    noise_readouts: each contrast's classifier on pure noise, (n, 3) arrays (calibration_noise_readout)."""
    pooled = np.concatenate(noise_readouts)
    out: dict = {
        "classifier_p_blue_on_noise": classifier_bias_on_noise(noise_readouts).as_dict(),
        "classifier_p_disc_on_noise": bootstrap_mean(pooled[:, 2]).as_dict(),
        "evidence_seeds_per_contrast": int(seeds),
    }
    for c, r in sorted(results.items()):
        key = contrast_key(c)
        out[f"success_rate_{key}"] = r["success"].as_dict()
        out[f"training_success_rate_{key}"] = r["training_success"].as_dict()
        out[f"generalisation_{key}"] = generalisation(r["success"], r["training_success"]).as_dict()
        out[f"mse_late_change_{key}"] = r["mse_late_change"].as_dict()
        out[f"speed_decay_r2_{key}"] = r["r2"].as_dict()
        out[f"bend_toward_stronger_{key}"] = r["bend"].as_dict()
        out[f"colour_lead_{key}"] = r["lead"].as_dict()
        for x, leads in r["leads_at"].items():
            out[f"colour_lead_{key}_{level_key(x)}"] = median_sign_interval(leads, r["lead_bound"]).as_dict()
        out[f"colour_first_seeds_{key}"] = f"{int(np.sum(r['leads'] > 0))} of {len(r['leads'])}"
        out[f"readout_agreement_{key}"] = r["agreement"]
        out[f"stronger_{key}"] = r["stronger"]
    low, high = results[min(results)], results[max(results)]
    out["order_reversed"] = order_reversed(low["lead"], high["lead"])
    shift = f"colour_lead_shift_{contrast_key(max(results))}_minus_{contrast_key(min(results))}"
    out[shift] = rank_shift(high["leads"], low["leads"]).as_dict()
    for x in OTHER_LEVELS:
        out[f"{shift}_{level_key(x)}"] = rank_shift(high["leads_at"][x], low["leads_at"][x]).as_dict()
    return out


def level_key(level: float) -> str:
    """Metric-name suffix of a learned level other than the fixed one: 0.6 -> "level_0_6"."""
    return "level_" + f"{level:g}".replace(".", "_")


def readout_alternative(metrics: dict, suffix: str = "_classifier") -> dict:
    """The per-contrast S-6 metrics of the other read-out, renamed with `suffix`, for the claims' robustness
    row (the classifier's own bias and the agreement of the two read-outs are left out: they are not claims)."""
    skip = ("classifier_p_", "evidence_seeds_", "readout_agreement_")
    return {f"{name}{suffix}": value for name, value in metrics.items() if not name.startswith(skip)}


def prose(results: dict[float, dict], metrics: dict) -> dict[str, str]:
    """The chapter's per-contrast sentences (lists over contrasts, in ascending contrast) from the metrics."""
    keys = {c: contrast_key(c) for c in sorted(results)}
    return {
        "success_list": "; ".join(interval_text(metrics[f"success_rate_{k}"]) for k in keys.values()),
        "training_success_list": "; ".join(interval_text(metrics[f"training_success_rate_{k}"]) for k in keys.values()),
        "late_change_list": "; ".join(interval_text(metrics[f"mse_late_change_{k}"]) for k in keys.values()),
        "bend_list": "; ".join(
            f"{interval_text(metrics[f'bend_toward_stronger_{k}'])} (toward {results[c]['stronger']})"
            for c, k in keys.items()
        ),
        # medians alone: five seeds give the sign test no 95 % interval (`median_sign_interval`)
        "lead_list": "; ".join(format_number(metrics[f"colour_lead_{k}"]["value"]) for k in keys.values()),
        "r2_list": "; ".join(interval_text(metrics[f"speed_decay_r2_{k}"]) for k in keys.values()),
    }


# ----------------------------------------------------------------------------------------------
# While the evidence set is incomplete
# ----------------------------------------------------------------------------------------------

# The range each S-6 metric can take: an undecided metric spans it, so its claim is inconclusive.
METRIC_RANGES = {
    "classifier_p_disc_on_noise": (0.0, 1.0),
    "success_rate_": (0.0, 1.0),
    "generalisation_": (0.0, 1.0),
    "speed_decay_r2_": (0.0, 1.0),
    "bend_toward_stronger_": (-1.0, 1.0),
    "colour_lead_": (-1e6, 1e6),
}


def pending_metrics(metrics: dict, contrasts: list[float], reason: str) -> dict:
    """The S-6 metrics when the evidence cannot decide them (an incomplete set, read through its smoke
    variant): every metric of METRIC_RANGES, for every contrast of the full set, becomes
    `lib.util.stats.undecided` over that range with `reason` in its method (n = 0 where the smoke variant
    lacks the contrast), so that every claim on it is inconclusive rather than decided by test-size runs."""
    names = (
        {"classifier_p_disc_on_noise"}
        | {f"{prefix}{contrast_key(c)}" for c in contrasts for prefix in METRIC_RANGES if prefix.endswith("_")}
        | {name for name in metrics if name.startswith(tuple(METRIC_RANGES))}  # level variants, the shift
    )
    out = dict(metrics)
    for name in names:
        low, high = next(r for prefix, r in METRIC_RANGES.items() if name.startswith(prefix))
        value = metrics.get(name)
        estimate = (
            Estimate(**value) if isinstance(value, dict) and set(value) == set(Estimate.__dataclass_fields__) else None
        )
        out[name] = undecided(estimate, low, high, reason).as_dict()
    for c in contrasts:  # counts over seeds: none from test-size runs
        out[f"colour_first_seeds_{contrast_key(c)}"] = f"n/a ({reason})"
    return out


# ----------------------------------------------------------------------------------------------
# The registered design (lib.diffusion.configs.REGISTERED, declared in lib/book/chapters/diffusion.py before
# any of its shards was computed): the four primary statistics of S-6
# ----------------------------------------------------------------------------------------------


def on_grid(arrays: dict[str, np.ndarray], every: int) -> dict[str, np.ndarray]:
    """One shard's arrays at the checkpoints that are multiples of `every` only (the read-out grid that
    seeds read out at different rates share): every array whose first axis runs over checkpoints is
    cut to them, the others are kept."""
    steps = arrays["eval_steps"]
    keep = steps % every == 0
    if not keep[-1] or not keep[0]:
        raise ValueError(
            f"the shard's first and last checkpoints ({steps[0]}, {steps[-1]}) are not on the {every}-grid"
        )
    return {k: (v[keep] if v.ndim and v.shape[0] == steps.size else v) for k, v in arrays.items()}


def rise_in_bend(
    traj_by_seed: np.ndarray, mse_by_seed: np.ndarray, concept: str, window: tuple[float, float] = TRANSIT
) -> np.ndarray:
    """Per seed, the concept-space MSE of the unseen prompt at the bend's peak minus at its start
    (the paper's Fig. 6b read during the swing of its Fig. 6a).

    Both ends come from the seed's own trajectory (seeds, K, 2), never from the MSE (seeds, K): among
    the checkpoints after the first whose progress (colour + size) / 2 lies in `window`, the peak is
    the one with the largest offset toward `concept`'s training corner (`offset_toward`), the start the
    one with the smallest offset at or before the peak. 0 when the peak is the first checkpoint in the
    window (no swing, no rise); NaN for a seed with no checkpoint in the window."""
    t, mse = traj_by_seed[:, 1:], mse_by_seed[:, 1:]
    progress = t.mean(-1)
    offsets = offset_toward(t, concept)
    out = np.full(t.shape[0], np.nan)
    for s in range(t.shape[0]):
        inside = np.flatnonzero((progress[s] >= window[0]) & (progress[s] <= window[1]) & np.isfinite(offsets[s]))
        if not inside.size:
            continue
        peak = inside[np.argmax(offsets[s, inside])]
        before = inside[inside <= peak]
        start = before[np.argmin(offsets[s, before])]
        out[s] = mse[s, peak] - mse[s, start]
    return out


def registered_metrics(
    pooled: dict[float, dict], dense: dict[float, dict], suffix: str = "", prefix: str = "registered"
) -> dict:
    """The metrics of the registered S-6 claims from `analyse_contrast` results by contrast (0.2, 0.7):
    `pooled` over all 30 seeds on the common 400-step grid, `dense` over the seeds read out every
    100 steps. (a) generalisation on the end state, gated by its control; (b) the Hodges-Lehmann shift
    of the colour lead, highest minus lowest contrast, at the fixed learned level (the other levels and
    the dense seeds' own grid as robustness rows); (c) the mean offset toward the stronger concept in
    transit; (d) the mean MSE rise during the bend. `suffix` names the read-out's variant, `prefix` the
    evidence set ("registered", or "registered_gpu" for its replication on a GPU)."""
    out: dict = {}
    for c in sorted(pooled):
        key = contrast_key(c) + suffix
        p, d = pooled[c], dense[c]
        out[f"{prefix}_generalisation_{key}"] = generalisation(p["success"], p["training_success"]).as_dict()
        out[f"{prefix}_training_success_{key}"] = p["training_success"].as_dict()
        out[f"{prefix}_bend_{key}"] = d["bend"].as_dict()
        out[f"{prefix}_rise_in_bend_{key}"] = d["rise_in_bend"].as_dict()
        out[f"{prefix}_stronger_{key}"] = d["stronger"]
    low, high = min(pooled), max(pooled)
    shift = f"{prefix}_colour_lead_shift{suffix}"
    out[shift] = rank_shift(pooled[high]["leads"], pooled[low]["leads"]).as_dict()
    for x in OTHER_LEVELS:
        out[f"{shift}_{level_key(x)}"] = rank_shift(pooled[high]["leads_at"][x], pooled[low]["leads_at"][x]).as_dict()
    out[f"{shift}_dense"] = rank_shift(dense[high]["leads"], dense[low]["leads"]).as_dict()
    return out


def registered_power(
    contrasts: tuple[float, ...],
    pooled_seeds: int,
    dense_seeds: int,
    sizing: dict[str, float],
    prefix: str = "registered",
) -> dict[str, float]:
    """The power of each registered S-6 test (`registered_metrics`) at the effect the design was sized for
    (`sizing`, in seed standard deviations: configs.REGISTERED_SIZING), two decimals: (a) the t interval over
    `pooled_seeds` seeds, (b) the rank shift between `pooled_seeds` seeds at each end of the contrast range,
    (c) and (d) the t interval over the `dense_seeds` seeds read out every 100 steps
    (lib.util.stats.t_interval_power, `rank_shift_power`), named by `prefix` as in `registered_metrics`."""
    out = {}
    for c in sorted(contrasts):
        key = contrast_key(c)
        out[f"{prefix}_power_generalisation_{key}"] = t_interval_power(sizing["generalisation"], pooled_seeds)
        out[f"{prefix}_power_bend_{key}"] = t_interval_power(sizing["bend"], dense_seeds)
        out[f"{prefix}_power_rise_in_bend_{key}"] = t_interval_power(sizing["rise_in_bend"], dense_seeds)
    out[f"{prefix}_power_colour_lead_shift"] = rank_shift_power(sizing["colour_lead_shift"], pooled_seeds, pooled_seeds)
    return {name: round(power, 2) for name, power in out.items()}


def registered_power_text(
    power: dict[str, float], sizing: dict[str, float], pooled_seeds: int, dense_seeds: int, prefix: str = "registered"
) -> str:
    """The sentence that states `registered_power`'s results for the reader (numbers through lib.util.numbers);
    the t tests have the same power at every contrast, so each is stated once."""

    def at(kind: str) -> str:
        name = f"{prefix}_power_{kind}"
        values = {v for n, v in power.items() if n == name or n.startswith(name + "_")}
        return " and ".join(format_number(v) for v in sorted(values))

    return (
        f"(a) power {at('generalisation')} for a success rate {format_number(sizing['generalisation'])} SD above "
        f"1/2 (t interval over {pooled_seeds} seeds, at each contrast); (b) {at('colour_lead_shift')} for a shift "
        f"of the colour lead of {format_number(sizing['colour_lead_shift'])} SD (the exact rank interval, "
        f"{pooled_seeds} + {pooled_seeds} seeds); (c) {at('bend')} for a mean offset of "
        f"{format_number(sizing['bend'])} SD and (d) {at('rise_in_bend')} for a mean rise of "
        f"{format_number(sizing['rise_in_bend'])} SD (t intervals over the {dense_seeds} seeds read out every "
        "100 steps, at each contrast)"
    )


# The range each registered metric can take: while the registered set is incomplete, each is undecided
# over it (nothing is computed from the partial set: no interim looks).
REGISTERED_RANGES = {
    "generalisation": (0.0, 1.0),
    "bend": (-1.0, 1.0),
    "rise_in_bend": (-1.0, 1.0),
    "colour_lead_shift": (-1e6, 1e6),
}


def registered_pending(contrasts: tuple[float, ...], reason: str, prefix: str = "registered") -> dict:
    """Every registered metric of the set `prefix` names (both read-outs, every robustness row), undecided
    over its range with `reason`."""
    out = {}
    for suffix in ("", "_classifier"):
        kinds = {
            f"{prefix}_{kind}_{contrast_key(c)}{suffix}": kind
            for c in contrasts
            for kind in REGISTERED_RANGES
            if kind != "colour_lead_shift"
        }
        shift = f"{prefix}_colour_lead_shift{suffix}"
        for name in (shift, f"{shift}_dense", *(f"{shift}_{level_key(x)}" for x in OTHER_LEVELS)):
            kinds[name] = "colour_lead_shift"
        for name, kind in kinds.items():
            out[name] = undecided(None, *REGISTERED_RANGES[kind], reason).as_dict()
    return out


def read_registered(
    stored: dict[float, list[dict[str, np.ndarray]]],
    new: dict[float, list[dict[str, np.ndarray]]],
    config: dict,
    common_every: int,
    level: float = LEARNED_LEVEL,
    window: tuple[float, float] = TRANSIT,
    prefix: str = "registered",
) -> dict:
    """The registered S-6 metrics under both read-outs (`registered_metrics`, named by `prefix`): `stored` the
    ten seeds of the long runs and `new` the twenty of diffusion/registered, shard arrays by contrast; (a) and
    (b) on all seeds cut to the `common_every`-step grid, (c) and (d) on the new seeds' own read-outs. Its
    replication on a GPU (diffusion/registered_gpu) has all 30 seeds in `new` and none in `stored`."""
    pooled = {c: [on_grid(a, common_every) for a in stored[c] + new[c]] for c in new}
    pooled_results = analyse_set(pooled, config, level, window)[2]
    dense_results = analyse_set(new, config, level, window)[2]
    out: dict = {}
    for readout, suffix in (("segmentation", ""), ("classifier", "_classifier")):
        out |= registered_metrics(pooled_results[readout], dense_results[readout], suffix, prefix)
    return out
