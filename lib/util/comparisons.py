"""Two-sample comparisons with their intervals, and tests of a stated value, beside `lib.util.stats` (which the
evidence sets' code imports, so its code stays fixed while their shards are stored):

- `auc`: the threshold-free separation of two samples (Mann-Whitney AUC) with a bootstrap interval;
- `proportion_difference`: difference of two binomial proportions, Newcombe's interval;
- `location_ratio`: median, mean or 90th percentile of one sample over another's, bootstrap interval;
- `count`: how many units of n show something, exact (a claim of existence);
- `p_value_of`: the p-value of a value the paper states, read from an estimate's interval.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lib.util.stats import CONFIDENCE, P_VALUE, Estimate, bootstrap_interval


def auc(
    smaller: Sequence[float], larger: Sequence[float], *, seed: int = 0, confidence: float = CONFIDENCE
) -> Estimate:
    """Area under the ROC curve that `smaller` lies below `larger`: P(X < Y) + P(X = Y)/2 for X drawn
    from the first sample and Y from the second (Mann-Whitney U / (n_x n_y)); 1/2 is no separation,
    1 a perfect one, with no threshold. Percentile bootstrap, each sample resampled on its own (seeded).
    """
    x, y = np.asarray(smaller, float).ravel(), np.asarray(larger, float).ravel()
    if x.size == 0 or y.size == 0 or not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError(f"auc needs two non-empty finite samples, got {x.size} and {y.size}")

    def statistic(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray | float:
        a, b = np.moveaxis(a, axis, -1), np.moveaxis(b, axis, -1)
        below = (a[..., :, None] < b[..., None, :]).mean((-2, -1))
        tied = (a[..., :, None] == b[..., None, :]).mean((-2, -1))
        return below + tied / 2

    value = float(statistic(x, y))
    n = int(x.size + y.size)
    if x.size < 2 or y.size < 2:
        return Estimate(value, 0.0, 1.0, n, "AUC, too few units for an interval")
    low, high = bootstrap_interval((x, y), statistic, rng=np.random.default_rng(seed), confidence=confidence)
    return Estimate(value, low, high, n, f"AUC (Mann-Whitney), bootstrap percentile {confidence:.0%}")


def proportion_difference(
    successes_a: int, n_a: int, successes_b: int, n_b: int, *, confidence: float = CONFIDENCE
) -> Estimate:
    """successes_a / n_a - successes_b / n_b with Newcombe's hybrid score interval (statsmodels
    `confint_proportions_2indep`), for two independent groups of units."""
    from statsmodels.stats.proportion import confint_proportions_2indep

    if min(n_a, n_b) <= 0:
        raise ValueError("a proportion difference needs n >= 1 in both groups")
    low, high = confint_proportions_2indep(
        successes_a, n_a, successes_b, n_b, method="newcomb", compare="diff", alpha=1 - confidence
    )
    return Estimate(
        successes_a / n_a - successes_b / n_b, float(low), float(high), int(n_a + n_b), f"Newcombe {confidence:.0%}"
    )


LOCATIONS = {
    "median": np.median,
    "mean": np.mean,
    "90th percentile": lambda x, axis=-1: np.quantile(x, 0.9, axis=axis),
}


def location_ratio(
    low: Sequence[float],
    high: Sequence[float],
    statistic: str = "median",
    *,
    seed: int = 0,
    confidence: float = CONFIDENCE,
) -> Estimate:
    """statistic(low) / statistic(high) of two independent samples (`statistic` one of LOCATIONS), with a
    scipy.stats.bootstrap interval (each sample resampled separately, percentile method): the read-outs of
    S-2c's free choice of statistic besides `lib.sim.sweeps.median_ratio` (issue 32)."""
    low, high = np.asarray(low, float).ravel(), np.asarray(high, float).ravel()
    location = LOCATIONS[statistic]

    def ratio(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray | float:
        return location(a, axis=axis) / location(b, axis=axis)

    with np.errstate(divide="ignore", invalid="ignore"):
        value = float(ratio(low, high))
    ci = bootstrap_interval((low, high), ratio, rng=np.random.default_rng(seed), confidence=confidence)
    method = f"bootstrap percentile ratio of {statistic}s {confidence:.0%} (n = {low.size}, {high.size})"
    return Estimate(value, *ci, int(min(low.size, high.size)), method)


def count(flags: Sequence[bool]) -> Estimate:
    """How many of `flags` are true, of n: an exact count (no interval), for a claim that something happens
    at all ("some seed swings"), which a count decides and an interval of the fraction cannot fail."""
    flags = np.asarray(flags, dtype=bool).ravel()
    k = int(flags.sum())
    return Estimate(k, k, k, int(flags.size), "count")


def p_value_of(estimate: Estimate, target: float, confidence: float = CONFIDENCE) -> Estimate:
    """The two-sided p-value of "the quantity is `target`", read from `estimate`'s interval (a Wald test with the
    standard error of the interval's side that faces `target`): p < 1 - confidence exactly when the interval
    excludes `target`. A point (low = high = p) with the estimate's n: the paper's value tested, not a margin."""
    from scipy.stats import norm

    z = float(norm.isf((1 - confidence) / 2))
    end = estimate.low if target < estimate.value else estimate.high
    se = abs(estimate.value - end) / z
    p = float(2 * norm.sf(abs(estimate.value - target) / se)) if se > 0 else float(estimate.value == target)
    return Estimate(p, p, p, estimate.n, f"{P_VALUE} of {target:g} (Wald, from the {confidence:.0%} interval)")
