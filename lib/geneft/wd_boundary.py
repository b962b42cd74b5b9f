"""Fig. 8's boundary row by row: where generalization gives way to memorization as eta_dec rises.

Eq. (12) puts the generalization/memorization boundary at a critical ratio eta_dec / eta_enc: below
it the repons do not collide and the network generalizes, above it they collide and it memorizes.
At the fixed eta_enc of Fig. 8 every row (one decoder weight decay) therefore has one boundary, the
decoder rate at which the probability of generalizing first falls below 1/2 as eta_dec rises from the
grid's smallest ratio. Appendix F's claim, "the memorization-generalization boundary is independent
of the weight decay", is then that this rate is the same in every row, weight decay 0 included
(which a fit in log wd cannot use).

`row_crossing` reads one row, `boundary_spread` the largest difference between the rows, in decades
of eta_dec, with a bootstrap over the initialisations (each seed is one initialisation trained in
every cell, so seeds are resampled jointly across the grid).
"""

from __future__ import annotations

import numpy as np

from lib.util.stats import CONFIDENCE, Estimate, bootstrap_interval

READINGS = ("first", "isotonic")  # the row as measured; the row made non-increasing first (phases.row_boundaries)
INSIDE, BELOW, ABOVE, EMPTY = "inside", "below", "above", "empty"


def row_crossing(y, successes, trials, reading: str = "first") -> tuple[float, str]:
    """(y*, where) for one row: the y at which the fraction that generalizes first falls below 1/2.

    `y` (J,) increasing (log10 eta_dec), `successes`, `trials` (J,) (runs in confusion already left out
    of both, as `lib.geneft.grid.cell_counts(..., exclude_confusion=True)` counts them). Cells without
    trials are skipped. y* is linear interpolation between the last cell at or above 1/2 and the next.
    `reading` "isotonic" first makes the fractions non-increasing (pool-adjacent-violators weighted by
    trials): Fig. 5's per-row estimator, `lib.geneft.phases.row_boundaries`, reads its rows this way.
    `where` is "inside" for a crossing in the grid; "below" (y* = the first cell: the row generalizes
    less than half the time everywhere, its boundary is at or under the grid) and "above" (y* = the last
    cell: it never falls below 1/2) place a boundary outside the grid at the grid's edge; "empty" when no
    cell has trials (y* NaN).
    """
    if reading not in READINGS:
        raise ValueError(f"reading must be one of {READINGS}, got {reading!r}")
    y, k, t = (np.asarray(a, float) for a in (y, successes, trials))
    keep = t > 0
    if not keep.any():
        return float("nan"), EMPTY
    y, p = y[keep], k[keep] / t[keep]
    if reading == "isotonic":
        from scipy.optimize import isotonic_regression

        p = isotonic_regression(p, weights=t[keep], increasing=False).x
    if p[0] < 0.5:
        return float(y[0]), BELOW
    below = np.flatnonzero(p < 0.5)
    if len(below) == 0:
        return float(y[-1]), ABOVE
    j = int(below[0])
    return float(y[j - 1] + (y[j] - y[j - 1]) * (p[j - 1] - 0.5) / (p[j - 1] - p[j])), INSIDE


def row_crossings(y, generalized, fitted, reading: str = "first") -> tuple[np.ndarray, list[str]]:
    """`row_crossing` of every row of a grid of runs: `generalized`, `fitted` (rows, J, seeds) booleans
    (generalization or grokking; not in confusion). Returns (y* per row, where per row)."""
    gen, fit = np.asarray(generalized, bool), np.asarray(fitted, bool)
    if gen.shape != fit.shape or gen.ndim != 3:
        raise ValueError(f"generalized and fitted must be (rows, rates, seeds) alike, got {gen.shape}, {fit.shape}")
    rows = [row_crossing(y, (gen[i] & fit[i]).sum(-1), fit[i].sum(-1), reading) for i in range(len(gen))]
    return np.array([r[0] for r in rows]), [r[1] for r in rows]


def boundary_spread(
    y,
    generalized,
    fitted,
    *,
    reading: str = "first",
    widest: float = 10.0,
    seed: int = 0,
    confidence: float = CONFIDENCE,
) -> Estimate:
    """Largest difference between the rows' boundaries (`row_crossings`), in the units of `y` (decades).

    Interval: percentile bootstrap resampling the seeds (the last axis) jointly across rows, since seed s
    is the same initialisation in every cell. A row whose boundary lies outside the grid at the point
    estimate is placed at the grid's edge, so the spread is then only a lower bound: the interval's upper
    end is widened to `widest` (the metric's range), and such a spread cannot be found small. Bounds are
    NaN when some resample leaves fewer than two rows with runs that fit (`lib.util.stats.decide` then leaves
    the claim undecided). n = the runs that fit their training pairs.
    """
    gen, fit = np.asarray(generalized, bool), np.asarray(fitted, bool)

    def spread(seeds) -> float:
        crossing, _ = row_crossings(y, gen[..., seeds], fit[..., seeds], reading)
        finite = crossing[np.isfinite(crossing)]
        return float(finite.max() - finite.min()) if len(finite) >= 2 else float("nan")

    seeds = np.arange(gen.shape[-1])
    value = spread(seeds)
    _, where = row_crossings(y, gen, fit, reading)
    if gen.shape[-1] > 1:
        low, high = bootstrap_interval(
            (seeds,),
            spread,
            rng=np.random.default_rng(seed),
            vectorized=False,
            confidence=confidence,
        )
    else:
        low = high = value
    if np.isfinite([low, high]).all():  # a resample without two rows that fit has no spread: NaN, left undecided
        low, high = min(low, value), max(high, value)
    outside = sum(w in (BELOW, ABOVE) for w in where)
    if outside:
        high = widest
    return Estimate(
        value,
        low,
        high,
        int(fit.sum()),
        f"largest difference of {len(where)} row boundaries ({reading} 1/2 crossing), seeds bootstrapped "
        f"(percentile {confidence:.0%})"
        + (f"; {outside} row(s) outside the grid: upper end widened" if outside else ""),
    )
