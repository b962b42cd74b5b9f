"""Estimates with intervals: what a claim over seeds, draws or checkpoints reports.

An `Estimate` is a value with a two-sided interval, the number of independent units behind it and
the method that made the interval. Every interval here comes from scipy.stats or statsmodels:

- `fraction`: Wilson (default) or Clopper-Pearson ("beta") score interval of a binomial proportion
  (`binomial_interval`, the same for many counts at once; `bonferroni`, the level of each of several);
- `bootstrap_median`, `bootstrap_mean`: scipy's BCa bootstrap (percentile when BCa is degenerate);
- `bootstrap_interval`: scipy's bootstrap of any vectorized statistic of one or more samples
  (ratios of medians, pooled ratios, differences of means), the one call behind the others;
- `paired_difference`: mean of paired differences with Student's t interval (samples that share
  random numbers: seeds, noise draws), plus the z of the paired test;
- `exact`: a value that is not an estimate (a sympy identity, a closed form), interval zero width;
- `undecided`, `decide`: an estimate widened to its metric's whole range, for data that cannot
  decide a claim (an incomplete evidence set read through its smoke variant).

Science packages return `Estimate`s; the book stores `as_dict()` in `ID.metrics.json`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Sequence

import numpy as np

from lib.util.numbers import format_interval

if TYPE_CHECKING:
    from IPython.lib.pretty import RepresentationPrinter

CONFIDENCE = 0.95


@dataclass(frozen=True)
class Estimate:
    """A value with its interval [low, high], from `n` independent units, by `method`."""

    value: float
    low: float
    high: float
    n: int
    method: str

    def as_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        return f"{format_interval(self.value, self.low, self.high)} (n = {self.n}, {self.method})"

    def _repr_pretty_(self, printer: RepresentationPrinter, cycle: bool) -> None:
        printer.text(str(self))  # IPython shows an estimate through the formatter


P_VALUE = "p-value"  # how the method of a p-value begins: the book's formatter writes such a point "p = 0.012"


def p_value(p: float, n: int, test: str) -> Estimate:
    """A p-value as a point (low = high = p) from `n` units, its method naming the test: "p-value, likelihood-ratio
    goodness of fit, chi2(2)"."""
    return Estimate(float(p), float(p), float(p), int(n), f"{P_VALUE}, {test}")


def exact(value: float) -> Estimate:
    """A number without sampling error (closed form, symbolic identity): a zero-width interval."""
    return Estimate(float(value), float(value), float(value), 1, "exact")


def largest(estimates: list[Estimate]) -> Estimate:
    """The largest of several estimates: value, low and high each the maximum (a conservative summary:
    the maximum's interval lies above the largest lower end and below the largest upper end)."""
    return _each_end(estimates, max, "largest")


def smallest(estimates: list[Estimate]) -> Estimate:
    """The smallest of several estimates: value, low and high each the minimum (the mirror of `largest`:
    a condition "> 0" on it holds only when it holds for every estimate)."""
    return _each_end(estimates, min, "smallest")


def _each_end(estimates: list[Estimate], pick: Callable[[Iterable[float]], float], name: str) -> Estimate:
    """`pick` (max or min) of the values, of the lower ends and of the upper ends, each taken separately; the
    smallest n."""
    if not estimates:
        raise ValueError(f"{name}() needs at least one estimate")
    return Estimate(
        pick(e.value for e in estimates),
        pick(e.low for e in estimates),
        pick(e.high for e in estimates),
        min(e.n for e in estimates),
        f"{name} of {len(estimates)} estimates (ends taken separately)",
    )


def bonferroni(confidence: float, tests: int) -> float:
    """The confidence of each of `tests` intervals that hold together at `confidence` (Bonferroni)."""
    if tests < 1:
        raise ValueError(f"a Bonferroni level needs at least one test, got {tests}")
    return 1 - (1 - confidence) / tests


def binomial_interval(
    successes: int | np.ndarray, n: int | np.ndarray, *, method: str = "wilson", confidence: float = CONFIDENCE
) -> tuple[float, float] | tuple[np.ndarray, np.ndarray]:
    """statsmodels' `proportion_confint` of `successes` out of `n` (scalars or arrays), the ends that are exact
    made exact: the low end 0 at no successes, the high end 1 at all of them (where every method's interval
    ends, and where statsmodels can leave an end ~1e-17 away at some levels)."""
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(successes, n, alpha=1 - confidence, method=method)
    low = np.where(np.asarray(successes) == 0, 0.0, low)
    high = np.where(np.asarray(successes) == np.asarray(n), 1.0, high)
    return (float(low), float(high)) if low.ndim == 0 else (low, high)


def fraction(
    successes: int | np.ndarray, n: int | None = None, *, method: str = "wilson", confidence: float = CONFIDENCE
) -> Estimate:
    """Proportion with its binomial interval. Pass a count and `n`, or an array of booleans."""
    if n is None:
        flags = np.asarray(successes, dtype=bool).ravel()
        successes, n = int(flags.sum()), int(flags.size)
    if n <= 0:
        raise ValueError("a fraction needs n >= 1")
    low, high = binomial_interval(int(successes), n, method=method, confidence=confidence)
    return Estimate(successes / n, float(low), float(high), n, f"{method} {confidence:.0%}")


def units_to_decide(
    rate: float, bound: float, *, method: str = "wilson", confidence: float = CONFIDENCE, most: int = 10_000
) -> int | None:
    """What deciding a claim on a fraction would take at the rate it saw: the fewest units n whose interval at
    round(rate n) successes lies wholly on one side of `bound` (`binomial_interval`, all n at once);
    None when no n up to `most` does (a rate at the bound)."""
    n = np.arange(1, most + 1)
    low, high = binomial_interval(np.round(rate * n), n, method=method, confidence=confidence)
    clear = (low > bound) | (high < bound)
    return int(n[np.argmax(clear)]) if clear.any() else None


def units_to_narrow(estimate: Estimate, bound: float) -> int | None:
    """What deciding a claim on a mean-like `estimate` (a bootstrap or t interval, narrowing as 1/sqrt(n)) would take
    at the value it saw: the fewest units n at which the interval's end on the side of `bound`, scaled from its
    distance to the value now by sqrt(estimate.n / n), no longer reaches the bound: estimate.n when it already does
    not. None for a value at the bound, or an estimate that is not finite or has no units."""
    ends = (estimate.value, estimate.low, estimate.high, bound)
    if estimate.n < 1 or not all(math.isfinite(x) for x in ends) or estimate.value == bound:
        return None
    reach = estimate.high - estimate.value if estimate.value < bound else estimate.value - estimate.low
    ratio = reach / abs(bound - estimate.value)
    if ratio < 1:  # the interval already lies on one side
        return estimate.n
    needed = estimate.n * ratio**2
    return math.floor(needed) + 1 if math.isfinite(needed) else None


def cost_to_decide(
    estimate: Estimate, bound: float, cost: float, *, narrowing: bool = False
) -> tuple[int | None, float | None]:
    """What deciding a claim on `estimate` (of estimate.n units that cost `cost` in all) against `bound` would take
    at the value it saw: the units `units_to_decide` gives for a fraction (or `units_to_narrow` for an interval
    that narrows as 1/sqrt(n), `narrowing`), and the cost of the units still missing at the cost per unit these
    took, to one decimal (None, None when no number of units would decide it)."""
    units = units_to_narrow(estimate, bound) if narrowing else units_to_decide(estimate.value, bound)
    if units is None:
        return None, None
    return units, round(cost * max(units - estimate.n, 0) / estimate.n, 1)


def every_fraction(n: int, *, method: str = "wilson", confidence: float = CONFIDENCE) -> list[Estimate]:
    """`fraction(k, n, method=method, confidence=confidence)` for every count k = 0 .. n, the intervals computed
    at once (what a claim on a fraction of n can reach: lib.book.verdicts.decidability)."""
    if n <= 0:
        raise ValueError("a fraction needs n >= 1")
    counts = np.arange(n + 1)
    lows, highs = binomial_interval(counts, n, method=method, confidence=confidence)
    label = f"{method} {confidence:.0%}"
    return [Estimate(k / n, float(low), float(high), n, label) for k, low, high in zip(counts.tolist(), lows, highs)]


def bootstrap_interval(
    samples: tuple[np.ndarray, ...],
    statistic: Callable[..., np.ndarray | float],
    *,
    rng: np.random.Generator,
    paired: bool = False,
    vectorized: bool = True,
    method: str = "percentile",
    resamples: int = 4999,
    confidence: float = CONFIDENCE,
) -> tuple[float, float]:
    """(low, high) of scipy.stats.bootstrap for `statistic(*samples, axis=-1)` (`vectorized`), or
    `statistic(*samples)` of one resample at a time.

    `paired` resamples the units of all samples together (one unit: a seed, a sampling, a model);
    otherwise each sample is resampled on its own. Divisions by zero inside resamples are silent
    (a ratio whose resample has a zero denominator is +-inf or NaN, as scipy then reports).
    """
    from scipy.stats import bootstrap

    with np.errstate(divide="ignore", invalid="ignore"):
        ci = bootstrap(
            samples,
            statistic,
            paired=paired,
            vectorized=vectorized,
            confidence_level=confidence,
            method=method,
            n_resamples=resamples,
            random_state=rng,
        ).confidence_interval
    return float(ci.low), float(ci.high)


def _bootstrap(
    samples: Sequence[float], statistic: Callable[..., np.ndarray | float], name: str, seed: int, confidence: float
) -> Estimate:
    x = np.asarray(samples, dtype=float).ravel()
    if x.size == 0 or not np.all(np.isfinite(x)):
        raise ValueError(f"bootstrap {name} needs finite samples, got {x.size} with non-finite ones")
    value = float(statistic(x))
    if x.size < 2 or np.all(x == x[0]):
        return Estimate(value, value, value, int(x.size), f"{name}, no spread")
    from scipy.stats import DegenerateDataWarning

    rng = np.random.default_rng(seed)
    for method in ("BCa", "percentile"):
        # BCa's acceleration is undefined when the jackknife values do not vary (a sample with one
        # distinct value but one, say): scipy then warns and returns NaN, and the percentile interval is used.
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateDataWarning)
            low, high = bootstrap_interval((x,), statistic, rng=rng, method=method, confidence=confidence)
        if np.isfinite(low) and np.isfinite(high):
            return Estimate(value, low, high, int(x.size), f"bootstrap {method} {name} {confidence:.0%}")
    raise ValueError(f"bootstrap {name}: no finite interval")


def bootstrap_median(samples: Sequence[float], *, seed: int = 0, confidence: float = CONFIDENCE) -> Estimate:
    """Median of `samples` with a bootstrap interval (seeded: same samples, same interval)."""
    return _bootstrap(samples, np.median, "median", seed, confidence)


def bootstrap_mean(samples: Sequence[float], *, seed: int = 0, confidence: float = CONFIDENCE) -> Estimate:
    """Mean of `samples` with a bootstrap interval (seeded)."""
    return _bootstrap(samples, np.mean, "mean", seed, confidence)


@dataclass(frozen=True)
class PairedDifference:
    """Mean of a - b over paired units, its t interval, and the paired test's z (signed)."""

    estimate: Estimate
    z: float
    p_value: float


def paired_difference(a: Sequence[float], b: Sequence[float], *, confidence: float = CONFIDENCE) -> PairedDifference:
    """Paired comparison of two samples that share random numbers (unit i of `a` with unit i of `b`).

    Student's t on the differences (scipy.stats.ttest_rel); `z` is the t statistic mapped to a
    standard normal quantile with the same two-sided p-value, so that rises of different n compare.
    """
    from scipy.stats import norm, ttest_rel

    a, b = np.asarray(a, dtype=float).ravel(), np.asarray(b, dtype=float).ravel()
    if a.shape != b.shape or a.size < 2:
        raise ValueError(f"paired samples need the same size >= 2, got {a.size} and {b.size}")
    diff = a - b
    mean = float(diff.mean())
    if np.all(diff == diff[0]):
        z = math.copysign(math.inf, mean) if mean else 0.0
        return PairedDifference(Estimate(mean, mean, mean, a.size, "paired, no spread"), z, 0.0 if mean else 1.0)
    test = ttest_rel(a, b)
    ci = test.confidence_interval(confidence_level=confidence)
    p = float(test.pvalue)
    z = math.copysign(float(norm.isf(p / 2)), mean)
    return PairedDifference(
        Estimate(mean, float(ci.low), float(ci.high), int(a.size), f"paired t {confidence:.0%}"), z, p
    )


def t_interval_power(effect: float, n: int, confidence: float = CONFIDENCE) -> float:
    """The power of a claim judged on Student's t interval of a mean over `n` independent units: the
    probability that the two-sided `confidence` interval lies wholly beyond the claim's bound when the true
    mean is `effect` standard deviations beyond it. That is the one-sided t test at level (1 - confidence)/2,
    whose power is the noncentral t's tail (statsmodels `TTestPower`); 0 for fewer than two units."""
    from statsmodels.stats.power import TTestPower

    if n < 2:
        return 0.0
    return float(TTestPower().power(effect_size=effect, nobs=n, alpha=(1 - confidence) / 2, alternative="larger"))


def undecided(estimate: Estimate | None, low: float, high: float, reason: str) -> Estimate:
    """An estimate whose interval is widened to [low, high] (the metric's range), so that a claim on it
    is inconclusive: for a metric computed on data that cannot decide it (an incomplete evidence set
    replaced by its smoke variant). The value is kept when there is one; `reason` goes into the method."""
    if estimate is None or not np.isfinite(estimate.value):
        return Estimate((low + high) / 2, low, high, 0 if estimate is None else estimate.n, f"undecided: {reason}")
    lo = min(low, estimate.value, estimate.low if np.isfinite(estimate.low) else low)
    hi = max(high, estimate.value, estimate.high if np.isfinite(estimate.high) else high)
    return Estimate(estimate.value, lo, hi, estimate.n, f"undecided: {reason}; {estimate.method}")


# Why `decide` leaves an estimate undecided when the data gave no finite interval: an outcome, not the design.
UNBOUNDED = "no finite estimate: the data do not bound it"


def decide(estimate: Estimate | None, low: float, high: float, pending: str | None = None) -> Estimate:
    """The estimate a claim reads: `undecided` over the metric's range [low, high] when `pending` says
    why the data cannot decide it (incomplete evidence), or when there is no estimate or its interval
    is unbounded (e.g. a phase grid that does not bound a boundary); otherwise the estimate itself."""
    if pending:
        return undecided(estimate, low, high, pending)
    if estimate is None or not all(np.isfinite([estimate.value, estimate.low, estimate.high])):
        return undecided(estimate, low, high, UNBOUNDED)
    return estimate
