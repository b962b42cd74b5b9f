"""Fig. 8's boundary row by row: where generalization gives way to memorization as eta_dec rises.

Eq. (12) puts the generalization/memorization boundary at a critical ratio eta_dec / eta_enc: below
it the repons do not collide and the network generalizes, above it they collide and it memorizes.
At the fixed eta_enc of Fig. 8 every row (one decoder weight decay) therefore has one boundary, the
decoder rate at which the probability of generalizing first falls below 1/2 as eta_dec rises from the
grid's smallest ratio. Appendix F's claim, "the memorization-generalization boundary is independent
of the weight decay", is then that this rate is the same in every row, weight decay 0 included
(which a fit in log wd cannot use).

`crossings` reads rows (all resamples of the bootstrap at once), `boundary_spread` the largest difference between the rows, in decades
of eta_dec, with a bootstrap over the initialisations (each seed is one initialisation trained in
every cell, so seeds are resampled jointly across the grid).
"""

from __future__ import annotations

import warnings

import numpy as np

from lib.util.numbers import format_number
from lib.util.stats import CONFIDENCE, Estimate, bootstrap_interval

READINGS = ("first", "isotonic")  # the row as measured; the row made non-increasing first (phases.row_boundaries)
INSIDE, BELOW, ABOVE, EMPTY = "inside", "below", "above", "empty"


def crossings(y, successes, trials, reading: str = "first") -> tuple[np.ndarray, np.ndarray]:
    """(y*, where) of every row of `successes`, `trials` (..., J) at once: the y at which the fraction that
    generalizes first falls below 1/2, and where that lies (arrays of shape (...)).

    `y` (J,) increasing (log10 eta_dec); runs in confusion are already left out of both counts (as
    `lib.geneft.grid.cell_counts(..., exclude_confusion=True)` counts them). Cells without trials are
    skipped. y* is linear interpolation between the last cell at or above 1/2 and the next. `reading`
    "isotonic" first makes the fractions non-increasing, weighted by trials (the least-squares isotonic
    fit, whose value at cell j is min over a <= j of max over b >= j of the pooled fraction of cells a..b):
    Fig. 5's per-row estimator, `lib.geneft.phases.row_boundaries`, reads its rows this way. `where` is
    "inside" for a crossing in the grid; "below" (y* = the first cell: the row generalizes less than half
    the time everywhere, its boundary is at or under the grid) and "above" (y* = the last cell: it never
    falls below 1/2) place a boundary outside the grid at the grid's edge; "empty" when no cell has
    trials (y* NaN).
    """
    if reading not in READINGS:
        raise ValueError(f"reading must be one of {READINGS}, got {reading!r}")
    k, t = np.broadcast_arrays(np.asarray(successes, float), np.asarray(trials, float))
    y = np.broadcast_to(np.asarray(y, float), k.shape)
    cells = k.shape[-1]
    # the cells with trials first, in their order: row r's kept cells are positions 0 .. n_keep[r] - 1
    order = np.argsort(t <= 0, axis=-1, kind="stable")
    k, t, y = (np.take_along_axis(a, order, axis=-1) for a in (k, t, y))
    n_keep = (t > 0).sum(-1)
    position = np.arange(cells)
    valid = position < n_keep[..., None]
    with np.errstate(divide="ignore", invalid="ignore"):
        if reading == "isotonic":
            k_sum = np.concatenate([np.zeros_like(k[..., :1]), np.cumsum(k, -1)], -1)
            t_sum = np.concatenate([np.zeros_like(t[..., :1]), np.cumsum(t, -1)], -1)
            pooled = (k_sum[..., None, 1:] - k_sum[..., :-1, None]) / (t_sum[..., None, 1:] - t_sum[..., :-1, None])
            a, b = position[:, None], position[None, :]  # pooled[..., a, b]: cells a..b
            pooled = np.where((b >= a) & (b < n_keep[..., None, None]), pooled, -np.inf)
            # cell j: min over a <= j of (max over b >= j of pooled[a, b])
            highest = np.maximum.accumulate(pooled[..., ::-1], axis=-1)[..., ::-1]  # [a, j]: max over b >= j
            p = np.min(np.where(a <= b, highest, np.inf), axis=-2)
        else:
            p = k / t
    p = np.where(valid, p, np.nan)
    below = valid & (p < 0.5)
    first_below = below.argmax(-1)
    previous = np.maximum(first_below - 1, 0)

    def at(a: np.ndarray, j: np.ndarray) -> np.ndarray:
        return np.take_along_axis(a, j[..., None], axis=-1)[..., 0]

    y0, y1, p0, p1 = at(y, previous), at(y, first_below), at(p, previous), at(p, first_below)
    with np.errstate(divide="ignore", invalid="ignore"):
        inside = y0 + (y1 - y0) * (p0 - 0.5) / (p0 - p1)
    empty, starts_below, never = n_keep == 0, below[..., 0], ~below.any(-1)
    last = at(y, np.maximum(n_keep - 1, 0))
    value = np.select([empty, starts_below, never], [np.nan, y[..., 0], last], inside)
    where = np.select([empty, starts_below, never], [EMPTY, BELOW, ABOVE], INSIDE)
    return value, where


def row_crossing(y, successes, trials, reading: str = "first") -> tuple[float, str]:
    """(y*, where) for one row of `successes`, `trials` (J,): `crossings` of a single row."""
    value, where = crossings(y, successes, trials, reading)
    return float(value), str(where)


def row_crossings(y, generalized, fitted, reading: str = "first") -> tuple[np.ndarray, list[str]]:
    """`crossings` of every row of a grid of runs: `generalized`, `fitted` (rows, J, seeds) booleans
    (generalization or grokking; not in confusion). Returns (y* per row, where per row)."""
    gen, fit = np.asarray(generalized, bool), np.asarray(fitted, bool)
    if gen.shape != fit.shape or gen.ndim != 3:
        raise ValueError(f"generalized and fitted must be (rows, rates, seeds) alike, got {gen.shape}, {fit.shape}")
    value, where = crossings(y, (gen & fit).sum(-1), fit.sum(-1), reading)
    return value, [str(w) for w in where]


def crossings_text(weight_decays, crossing, where) -> str:
    """`row_crossings`' result in words, one entry per row: the boundary's log10 eta_dec (the book's point
    formatter, `format_number`, as the spreads between them are printed: -5.125, -4.25), or that it lies below or
    above the grid, or "none" when no run of the row fits, each "at wd = w"."""
    words = {BELOW: "below the grid", ABOVE: "above the grid", EMPTY: "none (no run fits)"}
    return ", ".join(
        f"{format_number(float(value)) if position == INSIDE else words[position]} at wd = {float(wd):g}"
        for wd, value, position in zip(weight_decays, crossing, where, strict=True)
    )


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
    crossing, where = row_crossings(y, gen, fit, reading)  # also checks the shapes

    def largest_difference(crossing: np.ndarray) -> np.ndarray:
        """Over the last axis (rows): max - min of the finite crossings, NaN with fewer than two."""
        finite = np.isfinite(crossing)
        with np.errstate(invalid="ignore"):
            wide = np.where(finite, crossing, -np.inf).max(-1) - np.where(finite, crossing, np.inf).min(-1)
        return np.where(finite.sum(-1) >= 2, wide, np.nan)

    def spread(seeds: np.ndarray, axis: int = -1) -> np.ndarray:
        """The spread for every resample of seeds (..., n) at once (scipy's vectorized statistic)."""
        chosen = np.moveaxis(np.asarray(seeds), axis, -1)
        g, f = gen[..., chosen], fit[..., chosen]  # (rows, J, ..., n)
        k, t = (np.moveaxis(a.sum(-1), (0, 1), (-2, -1)) for a in (g & f, f))  # (..., rows, J)
        return largest_difference(crossings(y, k, t, reading)[0])

    seeds = np.arange(gen.shape[-1])
    value = float(largest_difference(crossing))
    if gen.shape[-1] > 1:
        # A resample of seeds with fewer than two fitting rows has no spread (NaN), and then neither has the
        # interval: scipy says so with a DegenerateDataWarning (worded for BCa), which would be a notice on the
        # chapter's page. The NaN is this function's answer, read below, so the warning is not shown.
        from scipy.stats import DegenerateDataWarning

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateDataWarning)
            low, high = bootstrap_interval(
                (seeds,),
                spread,
                rng=np.random.default_rng(seed),
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
