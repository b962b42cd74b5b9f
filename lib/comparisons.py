"""Two-sample comparisons with their intervals, beside `lib.stats` (which the evidence sets' code imports,
so its code stays fixed while their shards are stored):

- `auc`: the threshold-free separation of two samples (Mann-Whitney AUC) with a bootstrap interval;
- `proportion_difference`: difference of two binomial proportions, Newcombe's interval.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lib.stats import CONFIDENCE, Estimate, bootstrap_interval


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

    def statistic(a, b, axis=-1):
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
