"""Phases of training (GenEFT Appendix B, Table 4) and the generalization / memorization boundary.

Table 4, after Liu et al. (2022): with the first steps at which train and test accuracy exceed
0.9 (`step_train_90`, `step_test_90`, -1 if never within the run),

    generalization  both reached, step_test - step_train <  threshold
    grokking        both reached, step_test - step_train >= threshold
    memorization    train reached, test never
    confusion       train never (Table 4's "no, no"; a test-only success is counted here too)

Section IV reads the phase diagram over (eta_enc, eta_dec) for a boundary of constant ratio
eta_dec / eta_enc (eq. 12 depends on the ratio only), a straight line of slope 1 in log-log.
`fit_boundary` fits that line to the whole grid at once (a logistic model of the probability of
generalization, seeds pooled per cell), so that no single cell decides it; `classification_margin`
says how far a run's final test accuracy is from Table 4's 0.9 line, in test pairs.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.stats import linregress

from lib.geneft.wd_boundary import INSIDE, row_crossing
from lib.util.stats import CONFIDENCE, Estimate, p_value

PHASES = ("generalization", "grokking", "memorization", "confusion")
GENERALIZATION, GROKKING, MEMORIZATION, CONFUSION = range(4)

# ----------------------------------------------------------------------------------------------
# Table 4
# ----------------------------------------------------------------------------------------------


def classify(step_train_90, step_test_90, threshold: int) -> np.ndarray:
    """Phase index per model (Table 4; see the module docstring), same shape as the inputs."""
    tr, te = np.asarray(step_train_90), np.asarray(step_test_90)
    phase = np.full(tr.shape, CONFUSION)
    both = (tr >= 0) & (te >= 0)
    phase[both & (te - tr < threshold)] = GENERALIZATION
    phase[both & (te - tr >= threshold)] = GROKKING
    phase[(tr >= 0) & (te < 0)] = MEMORIZATION
    return phase


def table4_threshold(steps: int, fraction: float = 0.01) -> int:
    """Table 4's grokking threshold scaled to the run: 10^3 steps of a 10^5-step run is 1% (App. B)."""
    if steps < 1 or not 0 < fraction < 1:
        raise ValueError(f"need steps >= 1 and 0 < fraction < 1, got {steps}, {fraction}")
    return max(1, round(fraction * steps))


def classification_margin(final_test_acc, n_test, level: float = 0.9) -> np.ndarray:
    """Test pairs a run is short of (> 0) or beyond (<= 0) Table 4's "test acc > level" at its last step.

    The count of correct test pairs needed is floor(level * n_test) + 1; a run at 0.893 of 225 test
    pairs (201 correct) is 2 pairs short. A phase decided by a margin of a pair or two is decided
    by noise: `borderline` flags such runs so that a table can say so instead of trusting the label.
    """
    acc, n = np.asarray(final_test_acc, float), np.asarray(n_test)
    needed = np.floor(level * n + 1e-9).astype(np.int64) + 1
    return needed - np.rint(acc * n).astype(np.int64)


def borderline(phase: np.ndarray, final_test_acc, n_test, pairs: int = 2, level: float = 0.9) -> np.ndarray:
    """Memorizing or confused runs whose final test accuracy is within `pairs` test pairs of `level`.

    The declared tolerance of the book's phase tables: such a run keeps its Table 4 label (the paper's
    criterion is strict), is counted separately, and the boundary fit (`fit_boundary`) pools seeds
    over the whole grid, so that no single borderline cell moves it.
    """
    margin = classification_margin(final_test_acc, n_test, level)
    return ~generalizes(np.asarray(phase)) & (margin > 0) & (margin <= pairs)


def phase_counts(phase: np.ndarray) -> dict[str, int]:
    """How many models fall in each phase."""
    return {name: int((np.asarray(phase) == i).sum()) for i, name in enumerate(PHASES)}


def generalizes(phase: np.ndarray) -> np.ndarray:
    """Generalization or grokking: the test accuracy got there (Appendix F: grokking is delayed generalization)."""
    return (phase == GENERALIZATION) | (phase == GROKKING)


# ----------------------------------------------------------------------------------------------
# The boundary in the (eta_enc, eta_dec) plane
# ----------------------------------------------------------------------------------------------


def boundary_points(phase: np.ndarray, lr_enc: np.ndarray, lr_dec: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per encoder rate, the decoder rate where generalization gives way to memorization.

    `phase` is (len(lr_enc), len(lr_dec)) on increasing log grids. A column counts when, along
    increasing eta_dec, some generalizing cell is directly followed by a memorizing one; the
    boundary is the geometric mean of the last generalizing and the next memorizing rate (first
    such transition). Returns (eta_enc, eta_dec*) of the columns that have one.
    """
    gen = generalizes(phase)
    enc, dec = [], []
    for i, row in enumerate(phase):
        for j in range(len(lr_dec) - 1):
            if gen[i, j] and row[j + 1] == MEMORIZATION:
                enc.append(lr_enc[i])
                dec.append(np.sqrt(lr_dec[j] * lr_dec[j + 1]))
                break
    return np.asarray(enc), np.asarray(dec)


def boundary_slope(phase: np.ndarray, lr_enc: np.ndarray, lr_dec: np.ndarray) -> float:
    """Least-squares slope of log eta_dec* against log eta_enc (NaN with fewer than 2 boundary points)."""
    enc, dec = boundary_points(phase, lr_enc, lr_dec)
    if len(enc) < 2:
        return float("nan")
    return float(linregress(np.log10(enc), np.log10(dec)).slope)


def critical_ratio(phase: np.ndarray, lr_enc: np.ndarray, lr_dec: np.ndarray) -> np.ndarray:
    """eta_dec* / eta_enc at each boundary point."""
    enc, dec = boundary_points(phase, lr_enc, lr_dec)
    return dec / enc


# ----------------------------------------------------------------------------------------------
# The boundary fitted to the whole grid: a logistic model of P(generalization)
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BoundaryFit:
    """The line where P(generalization) = 1/2, y* = slope x + const, from logit P = b0 + b1 x + b2 y.

    x, y are the log10 rates of the grid (Fig. 5: x = log10 eta_enc, y = log10 eta_dec; Fig. 8:
    x = log10 wd, y = log10 eta_dec). `intercept` is y*(x_ref) - x_ref: log10 of the critical
    ratio eta_dec*/eta_enc at the reference rate x_ref (Section IV's "ratio of about 10" is 1).
    `separated`: the outcomes are (quasi-)separable by a line, the maximum likelihood estimate does
    not exist, and the estimate comes from Firth's penalised likelihood; `separating_slopes` and
    `separating_intercepts` are then the ranges of every line that separates the data (a bound on
    where the boundary can lie, infinite where the grid does not limit it), and the intervals are
    the hull of the Firth Wald interval and that range. `outcome`: "boundary", or why none exists
    ("all generalize", "none generalize").
    """

    slope: Estimate
    intercept: Estimate
    coefficients: np.ndarray
    covariance: np.ndarray
    x_ref: float
    separated: bool
    separating_slopes: tuple[float, float]
    separating_intercepts: tuple[float, float]
    n_cells: int
    n_models: int
    outcome: str

    def as_dict(self) -> dict:
        return {
            "slope": self.slope.as_dict(),
            "intercept": self.intercept.as_dict(),
            "x_ref": self.x_ref,
            "separated": self.separated,
            "separating_slopes": list(self.separating_slopes),
            "separating_intercepts": list(self.separating_intercepts),
            "n_cells": self.n_cells,
            "n_models": self.n_models,
            "outcome": self.outcome,
            "coefficients": self.coefficients.tolist(),
        }


def fit_boundary(x, y, successes, trials, *, x_ref: float | None = None, confidence: float = CONFIDENCE) -> BoundaryFit:
    """Fit logit P(generalize) = b0 + b1 x + b2 y to cells (x_k, y_k) with successes_k of trials_k.

    Cells are the grid's (rate, rate) points with the seeds pooled (binomial counts); cells with
    zero trials are ignored, nothing else is dropped. Maximum likelihood by statsmodels' GLM
    (Binomial, logit link); without separation the intervals are the delta method on the
    Wald covariance (slope = -b1/b2, y*(x_ref) = -(b0 + b1 x_ref)/b2). With (quasi-)complete
    separation (a line splits the generalizing from the other cells, as a noiseless grid does)
    the MLE runs off to infinity: the fit says so (`separated`) and falls back to Firth's
    penalised likelihood for the value, with the interval widened to the range of separating lines
    (two linear programs each). `x_ref` defaults to the mean x of the cells.
    """
    x, y = np.asarray(x, float).ravel(), np.asarray(y, float).ravel()
    k, t = np.asarray(successes, float).ravel(), np.asarray(trials, float).ravel()
    if not (x.shape == y.shape == k.shape == t.shape) or np.any(k < 0) or np.any(k > t):
        raise ValueError("x, y, successes, trials must have one shape, with 0 <= successes <= trials")
    keep = t > 0
    x, y, k, t = x[keep], y[keep], k[keep], t[keep]
    x_ref = float(np.mean(x)) if x_ref is None else float(x_ref)
    n_cells, n_models = int(keep.sum()), int(t.sum())
    if k.sum() == 0 or k.sum() == t.sum():
        outcome = "none generalize" if k.sum() == 0 else "all generalize"
        none = Estimate(math.nan, math.nan, math.nan, n_models, f"no boundary in the grid: {outcome}")
        return BoundaryFit(
            none,
            none,
            np.full(3, math.nan),
            np.full((3, 3), math.nan),
            x_ref,
            False,
            (math.nan, math.nan),
            (math.nan, math.nan),
            n_cells,
            n_models,
            outcome,
        )
    X = np.column_stack([np.ones_like(x), x, y])
    separated = _separable(X, k, t)
    slopes, intercepts = _separating_ranges(X, k, t, x_ref) if separated else ((math.nan,) * 2, (math.nan,) * 2)
    if separated and np.isnan(slopes[0]):  # separable only by a line x = const: the slope is not limited
        slopes, intercepts = (-math.inf, math.inf), (-math.inf, math.inf)
    if separated:
        beta, cov = _firth(X, k, t)
        method = "Firth (separated data): Wald delta method"
    else:
        import statsmodels.api as sm

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = sm.GLM(np.column_stack([k, t - k]), X, family=sm.families.Binomial()).fit()
        beta, cov = np.asarray(res.params), np.asarray(res.cov_params())
        method = "logistic GLM: Wald delta method"
    slope, intercept = _delta_boundary(beta, cov, x_ref, confidence)
    if separated:
        slope = Estimate(
            slope[0],
            min(slope[1], slopes[0]),
            max(slope[2], slopes[1]),
            n_models,
            f"{method} {confidence:.0%}, hull with separating lines",
        )
        intercept = Estimate(
            intercept[0],
            min(intercept[1], intercepts[0]),
            max(intercept[2], intercepts[1]),
            n_models,
            f"{method} {confidence:.0%}, hull with separating lines",
        )
    else:
        slope = Estimate(*slope, n_models, f"{method} {confidence:.0%}")
        intercept = Estimate(*intercept, n_models, f"{method} {confidence:.0%}")
    return BoundaryFit(slope, intercept, beta, cov, x_ref, separated, slopes, intercepts, n_cells, n_models, "boundary")


def _delta_boundary(beta: np.ndarray, cov: np.ndarray, x_ref: float, confidence: float):
    """(value, low, high) of slope -b1/b2 and of -(b0 + b1 x_ref)/b2 - x_ref, by the delta method."""
    from scipy.stats import norm

    b0, b1, b2 = beta
    z = norm.isf((1 - confidence) / 2)
    g_slope = np.array([0.0, -1 / b2, b1 / b2**2])
    g_icpt = np.array([-1 / b2, -x_ref / b2, (b0 + b1 * x_ref) / b2**2])
    out = []
    for value, g in ((-b1 / b2, g_slope), (-(b0 + b1 * x_ref) / b2 - x_ref, g_icpt)):
        se = float(np.sqrt(max(g @ cov @ g, 0.0)))
        out.append((float(value), float(value - z * se), float(value + z * se)))
    return out


def _firth(X: np.ndarray, k: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Firth's estimate (maximum of loglik + 1/2 log det I(b)) and the inverse information there.

    Binomial counts k of t per row of X, logit link. The Jeffreys-prior penalty keeps the estimate
    finite under separation (Firth 1993; Heinze & Schemper 2002).
    """
    from scipy.optimize import minimize
    from scipy.special import expit, log_expit

    scale = np.r_[1.0, np.maximum(X[:, 1:].std(0), 1e-12)]
    Xs = X / scale

    def negative(b):
        eta = Xs @ b
        loglik = np.sum(k * log_expit(eta) + (t - k) * log_expit(-eta))
        p = expit(eta)
        info = Xs.T @ (Xs * (t * p * (1 - p))[:, None])
        sign, logdet = np.linalg.slogdet(info)
        return -(loglik + 0.5 * logdet) if sign > 0 else np.inf

    res = minimize(
        negative,
        np.zeros(X.shape[1]),
        method="Nelder-Mead",
        options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 20000, "maxfev": 40000},
    )
    res = minimize(negative, res.x, method="BFGS")
    b = res.x
    p = expit(Xs @ b)
    info = Xs.T @ (Xs * (t * p * (1 - p))[:, None])
    cov = np.linalg.inv(info)
    return b / scale, cov / np.outer(scale, scale)


def _separable(X: np.ndarray, k: np.ndarray, t: np.ndarray) -> bool:
    """Whether some b != 0 has X b >= 0 on every success and <= 0 on every failure (quasi-complete
    separation: the logistic MLE does not exist). One linear program, b in the unit box."""
    from scipy.optimize import linprog

    succ, fail = k > 0, k < t
    A = np.r_[-X[succ], X[fail]]
    objective = -(X[succ].sum(0) - X[fail].sum(0))
    res = linprog(objective, A_ub=A, b_ub=np.zeros(len(A)), bounds=[(-1, 1)] * X.shape[1], method="highs")
    return bool(res.status == 0 and -res.fun > 1e-9)


def _separating_ranges(X: np.ndarray, k: np.ndarray, t: np.ndarray, x_ref: float):
    """Ranges of slope and of y*(x_ref) - x_ref over all lines y = s x + c that separate the cells.

    Generalizing below the line: cells with a success need y_k <= s x_k + c, cells with a failure
    y_k >= s x_k + c (a cell with both lies on the line). Returns ((nan, nan), (nan, nan)) when
    no such line exists (the data overlap, the MLE exists), infinite ends where the LP is unbounded.
    Also tries the other orientation (generalizing above) for grids that run the other way.
    """
    from scipy.optimize import linprog

    x, y = X[:, 1], X[:, 2]
    succ, fail = k > 0, k < t
    for sign in (1.0, -1.0):
        # variables (s, c); constraints written as A_ub @ (s, c) <= b_ub
        A = np.r_[
            np.column_stack([-x[succ], -np.ones(succ.sum())]) * sign,
            np.column_stack([x[fail], np.ones(fail.sum())]) * sign,
        ]
        b = np.r_[-y[succ] * sign, y[fail] * sign]
        ranges = []
        for objective in ([1.0, 0.0], [0.0, 1.0]):
            ends = []
            for direction in (1.0, -1.0):
                obj = np.asarray(objective) * direction
                if objective[1]:
                    obj = obj + np.array([x_ref * direction, 0.0])  # y*(x_ref) = s x_ref + c
                res = linprog(obj, A_ub=A, b_ub=b, bounds=[(None, None)] * 2, method="highs")
                if res.status == 2:  # infeasible: not separable in this orientation
                    break
                ends.append(-direction * math.inf if res.status == 3 else direction * res.fun)
            else:
                ranges.append((min(ends), max(ends)))
                continue
            break
        if len(ranges) == 2:
            s_rng, c_rng = ranges
            return s_rng, (c_rng[0] - x_ref, c_rng[1] - x_ref)
    return (math.nan, math.nan), (math.nan, math.nan)


# ----------------------------------------------------------------------------------------------
# The boundary row by row: an estimator beside the logistic fit
# ----------------------------------------------------------------------------------------------


def boundary_at(x, y, successes, trials, at: float, *, confidence: float = CONFIDENCE) -> Estimate:
    """y*(at): where the logistic boundary of a grid (`fit_boundary`) lies at x = `at`, with its delta-method
    interval. For Fig. 5 (x = log10 eta_enc, y = log10 eta_dec) this is log10 eta*_dec at eta_enc = 10^at,
    the intercept of `fit_boundary(..., x_ref=at)` plus `at`: Fig. 5's boundary read at another figure's
    encoder rate (Fig. 8 fixes eta_enc)."""
    intercept = fit_boundary(x, y, successes, trials, x_ref=at, confidence=confidence).intercept
    return Estimate(
        intercept.value + at, intercept.low + at, intercept.high + at, intercept.n, f"{intercept.method}, at x = {at:g}"
    )


def row_boundaries(x, y, successes, trials) -> tuple[np.ndarray, np.ndarray]:
    """Per row of a grid (x_i, y_ij) the y where P(generalize) crosses 1/2, generalization below.

    `x` (I,), `y` (J,) increasing, `successes`, `trials` (I, J). Along each row the fractions of the
    cells with trials are made non-increasing in y (pool-adjacent-violators, weighted by trials) and
    the crossing of 1/2 is linear interpolation between the last cell at or above 1/2 and the next one
    below: `wd_boundary.row_crossing(..., reading="isotonic")`. Rows without a crossing (all above or
    all below 1/2) have no boundary in the grid and are left out. Returns (x_i, y*_i) of the rows
    that have one.
    """
    crossings = [row_crossing(y, k_row, t_row, "isotonic") for k_row, t_row in zip(successes, trials)]
    inside = [i for i, (_, where) in enumerate(crossings) if where == INSIDE]
    return np.asarray(x, float)[inside], np.array([crossings[i][0] for i in inside], float)


def row_boundary_slope(x, y, successes, trials, *, confidence: float = CONFIDENCE) -> Estimate | None:
    """Slope of the per-row crossings (`row_boundaries`) against x: least squares with Student's t
    interval on (rows - 2) degrees of freedom (scipy.stats.linregress), n = rows with a crossing.
    A reading of the boundary that assumes no logistic shape and pools nothing across rows; None
    with fewer than 3 rows."""
    from scipy.stats import t as student_t

    xs, ys = row_boundaries(x, y, successes, trials)
    if len(xs) < 3:
        return None
    fit = linregress(xs, ys)
    half = float(student_t.isf((1 - confidence) / 2, len(xs) - 2) * fit.stderr)
    return Estimate(
        float(fit.slope),
        float(fit.slope) - half,
        float(fit.slope) + half,
        len(xs),
        f"per-row 1/2 crossings (isotonic, interpolated), least squares t {confidence:.0%}",
    )


def distance_from(estimate: Estimate, target: float) -> Estimate:
    """|value - target| with the interval of distances from `target` to the points of [low, high]
    (0 at the low end when the interval contains it): a claim "slope within 0.5 of 1" reads
    `distance_from(fit.slope, 1) < 0.5` and holds only when the whole interval lies within."""
    lo, hi = estimate.low - target, estimate.high - target
    near = 0.0 if lo <= 0 <= hi else min(abs(lo), abs(hi))
    return Estimate(
        abs(estimate.value - target),
        near,
        max(abs(lo), abs(hi)),
        estimate.n,
        f"distance from {target:g}; {estimate.method}",
    )


def compare_intercepts(fits: dict[str, BoundaryFit]) -> dict:
    """Section IV: "the phase boundary appears approximately at the same intercept" across relations.

    Cochran's Q test of homogeneity of the fitted intercepts (statsmodels' meta-analysis
    `combine_effects`, variances from each fit's interval; `p_value` an `Estimate` point over the fits' runs), the fixed-effect pooled intercept
    (`pooled`: one common critical ratio, which Q tests), and the random-effects pooled intercept
    (`pooled_random`: DerSimonian-Laird, the mean of relations whose critical ratios differ by a
    between-relation variance `tau2`; normal interval, and `pooled_random_hksj` with the
    Hartung-Knapp-Sidik-Jonkman t interval on k - 1 degrees of freedom as a robustness reading).
    Fits without a boundary are listed under `excluded` with their outcome, never dropped silently.
    Pass fits made with the same `x_ref` (with slopes other than 1, the intercepts depend on it).
    """
    from scipy.stats import norm
    from statsmodels.stats.meta_analysis import combine_effects

    refs = {round(f.x_ref, 12) for f in fits.values()}
    if len(refs) > 1:
        raise ValueError(f"intercepts at different reference rates cannot be compared: {sorted(refs)}")
    used = {k: f for k, f in fits.items() if f.outcome == "boundary" and np.isfinite(f.intercept.value)}
    excluded = {k: f.outcome for k, f in fits.items() if k not in used}
    if len(used) < 2:
        return {
            "q": math.nan,
            "p_value": None,
            "df": 0,
            "pooled": None,
            "pooled_random": None,
            "pooled_random_hksj": None,
            "tau2": math.nan,
            "used": sorted(used),
            "excluded": excluded,
        }
    from scipy.stats import t as student_t

    z = norm.isf((1 - CONFIDENCE) / 2)
    eff = np.array([f.intercept.value for f in used.values()])
    var = np.array([((f.intercept.high - f.intercept.low) / (2 * z)) ** 2 for f in used.values()])
    res = combine_effects(eff, var, method_re="dl")
    test = res.test_homogeneity()
    n_models = int(sum(f.n_models for f in used.values()))
    mean_fe, mean_re = float(res.mean_effect_fe), float(res.mean_effect_re)
    half_re_hksj = float(student_t.isf((1 - CONFIDENCE) / 2, len(eff) - 1) * res.sd_eff_w_re_hksj)

    def symmetric(mean: float, half: float, method: str) -> Estimate:
        return Estimate(mean, mean - half, mean + half, n_models, f"{method} {CONFIDENCE:.0%}")

    return {
        "q": float(test.statistic),
        "p_value": p_value(float(test.pvalue), n_models, f"Cochran's Q test of one intercept, chi2({int(test.df)})"),
        "df": int(test.df),
        "pooled": symmetric(mean_fe, z * float(res.sd_eff_w_fe), "fixed-effect pooled intercept (inverse variance)"),
        "pooled_random": symmetric(
            mean_re,
            z * float(res.sd_eff_w_re),
            f"random-effects pooled intercept (DerSimonian-Laird) over {len(eff)} relations",
        ),
        "pooled_random_hksj": symmetric(
            mean_re, half_re_hksj, f"random-effects pooled intercept, Hartung-Knapp t({len(eff) - 1})"
        ),
        "tau2": float(res.tau2),
        "used": sorted(used),
        "excluded": excluded,
    }


def intercept_spread(fits: dict[str, BoundaryFit]) -> Estimate | None:
    """Largest difference between the relations' boundary intercepts (decades of the critical ratio).

    The interval is what each intercept's own interval allows (interval arithmetic, no
    multiplicity correction): from max(0, max low - min high) to max high - min low. None when
    fewer than two fits have a boundary (`compare_intercepts` lists which and why)."""
    used = [f.intercept for f in fits.values() if f.outcome == "boundary" and np.isfinite(f.intercept.value)]
    if len(used) < 2:
        return None
    values = [e.value for e in used]
    return Estimate(
        max(values) - min(values),
        max(0.0, max(e.low for e in used) - min(e.high for e in used)),
        max(e.high for e in used) - min(e.low for e in used),
        int(sum(e.n for e in used)),
        "largest difference of intercepts; interval from their intervals",
    )


def rate_spread(successes, trials) -> Estimate:
    """Largest difference in the probability of generalization between groups (the first axis: Fig. 8's
    weight decays), each group's cells and seeds pooled: highest minus lowest pooled fraction, with
    Newcombe's hybrid score interval for that pair (statsmodels `confint_proportions_2indep`). The pair
    is picked by the data, so with many groups the interval is optimistic; with four it is a mild effect."""
    from statsmodels.stats.proportion import confint_proportions_2indep

    k = np.asarray(successes, float).reshape(len(successes), -1).sum(1)
    t = np.asarray(trials, float).reshape(len(trials), -1).sum(1)
    p = k / t
    hi, lo = int(np.argmax(p)), int(np.argmin(p))
    low, high = confint_proportions_2indep(
        k[hi], t[hi], k[lo], t[lo], method="newcomb", compare="diff", alpha=1 - CONFIDENCE
    )
    return Estimate(
        float(p[hi] - p[lo]),
        float(max(low, 0.0)),
        float(high),
        int(t[hi] + t[lo]),
        f"highest minus lowest of {len(k)} pooled fractions, Newcombe {CONFIDENCE:.0%}",
    )


# ----------------------------------------------------------------------------------------------
# Drawing
# ----------------------------------------------------------------------------------------------

COLORS = ("#4caf50", "#fdd835", "#7e57c2", "#bdbdbd")  # Fig. 5: green, yellow, purple; grey confusion


RELATION_TITLES = {"mod3": "mod 3", "mod5": "mod 5", "greater_than": "greater-than", "bipartite": "complete bipartite"}


def draw_phase_diagram(ax, phase: np.ndarray, x: np.ndarray, y: np.ndarray) -> None:
    """Cells of `phase` (len(y), len(x)) on log axes x, y (increasing), coloured as in Fig. 5 (the key:
    `add_phase_legend`, once per figure, outside the panels so that it hides no cell)."""
    from matplotlib.colors import ListedColormap

    def edges(v):
        lv = np.log10(v)
        mid = (lv[1:] + lv[:-1]) / 2
        return 10 ** np.r_[2 * lv[0] - mid[0], mid, 2 * lv[-1] - mid[-1]]

    ax.pcolormesh(edges(x), edges(y), phase, cmap=ListedColormap(COLORS), vmin=-0.5, vmax=3.5)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.grid(False)


def add_phase_legend(fig) -> None:
    """The key of `draw_phase_diagram`'s colours in one row under the panels (a figure with
    layout="constrained" makes room for it)."""
    from matplotlib.patches import Patch

    fig.legend(
        handles=[Patch(color=c, label=p) for c, p in zip(COLORS, PHASES)],
        loc="outside lower center",
        ncol=len(PHASES),
        fontsize=9,
        frameon=False,
    )
