"""How much data a relation needs: eqs. (1)-(5) and the Monte Carlo upper bound of Appendix D.

Analytic side (Section III): m training samples thrown like balls into the b "buckets" (bits)
of the relation; the inferable fraction f(m) (eq. 3), the critical fraction p_c (eq. 4) and
the accuracy bound f_UB (eq. 5). `derive_inferable_fraction` re-derives (1)-(4) with sympy.

Monte Carlo side (Appendix D): sample a training set, fill in every entry that the relation's
known properties imply, then guess the rest as well as the training data allow:
- equivalence classes (and the complete bipartite graph, the complement of a two-class
  equivalence): symmetry, reflexivity, transitivity; then the paper's candidate classes
  pos[i] (App. D) and, each element uniform over its candidates, P[R_ij = 1];
- total order: antisymmetry, transitivity; then orderings sampled uniformly among those
  consistent with the inferred partial order (a Markov chain on linear extensions), whose
  frequencies give P[R_ij = 1].
The bound is (known entries + sum over the rest of max(p, 1 - p)) / n^2.

Read-outs with intervals (over the samplings of the training set): `p_star_pooled` reads p_*
in its small-data limit or from the whole fraction curve (`p_star_eq5_fit`: the value that fits
eq. 5 to the curve), `fraction_at_accuracy` the training fraction where a curve (the
bound's, or networks' per seed) first reaches an accuracy, beside eq. (4)'s p_c, which targets
the inferable fraction f, not the accuracy.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import sympy as sp

from lib.geneft.relations import class_labels, relation_matrix
from lib.util.stats import CONFIDENCE, Estimate, bootstrap_interval, exact

# ----------------------------------------------------------------------------------------------
# Eqs. (1)-(5)
# ----------------------------------------------------------------------------------------------


def inferable_fraction(m, b: float):
    """f(m) = 1 - (1 - 1/b)^m, eq. (3): expected fraction of the b buckets hit by m balls."""
    return 1.0 - (1.0 - 1.0 / b) ** np.asarray(m, dtype=float)


def critical_fraction(b: float, n_pairs: int, alpha: float = 0.9) -> float:
    """p_c = log2(1 - alpha) / (N log2(1 - 1/b)), eq. (4): the fraction where f(N p_c) = alpha."""
    if not 0 < alpha < 1 or b <= 1:
        raise ValueError(f"need 0 < alpha < 1 and b > 1, got alpha={alpha}, b={b}")
    return float(np.log2(1 - alpha) / (n_pairs * np.log2(1 - 1 / b)))


def upper_bound(m, b: float, p_star: float):
    """f_UB(m) = f(m) + max(p_*, 1 - p_*) (1 - f(m)), eq. (5)."""
    f = inferable_fraction(m, b)
    return f + max(p_star, 1 - p_star) * (1 - f)


def p_star_theory(name: str) -> float:
    """The paper's guessing probability p_* (Section III): 1/k for k classes, 1/2 bipartite, ~1/3 order."""
    return {"mod3": 1 / 3, "mod5": 1 / 5, "bipartite": 1 / 2, "greater_than": 1 / 3}[name]


def derive_inferable_fraction() -> dict[str, sp.Expr]:
    """Eqs. (1)-(4) from the balls-in-buckets model, with sympy.

    Bucket i stays empty iff each of the m independent, uniform balls misses it:
    P[Z_i = 1] = ((b - 1)/b)^m. Linearity of expectation gives (1), its complement (2), the
    fraction (3), and solving f(N p) = alpha for p gives (4).
    """
    b, m, n_pairs, p, alpha = sp.symbols("b m N p alpha", positive=True)
    p_empty = ((b - 1) / b) ** m
    e_empty = b * p_empty  # eq. (1)
    e_filled = sp.simplify(b - e_empty)  # eq. (2)
    f = sp.simplify(e_filled / b)  # eq. (3)
    p_c = sp.solve(sp.Eq(f.subs(m, n_pairs * p), alpha), p)[0]
    return {
        "E_empty": e_empty,
        "E_filled": e_filled,
        "f": f,
        "p_c": sp.simplify(p_c),
        "symbols": (b, m, n_pairs, alpha),
    }


# ----------------------------------------------------------------------------------------------
# Inference from the training pairs (App. D, first step)
# ----------------------------------------------------------------------------------------------


def transitive_closure(adj: np.ndarray) -> np.ndarray:
    """Boolean transitive closure of a stack of adjacency matrices (..., n, n), by repeated squaring."""
    reach = adj.astype(bool)
    while True:
        step = reach | (np.matmul(reach.astype(np.float32), reach.astype(np.float32)) > 0)
        if (step == reach).all():
            return reach
        reach = step


def infer_equivalence(r: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Entries of an equivalence relation implied by the training pairs: (S, n, n) in {-1, 0, 1}.

    Symmetry and reflexivity: the positive pairs, both ways, plus the diagonal; transitivity:
    their closure (same block). A negative pair separates the two blocks entirely.
    """
    n = r.shape[0]
    pos = masks & (r == 1)
    neg = masks & (r == 0)
    same = transitive_closure(pos | pos.transpose(0, 2, 1) | np.eye(n, dtype=bool))
    sf = same.astype(np.float32)
    negf = (neg | neg.transpose(0, 2, 1)).astype(np.float32)
    differ = (sf @ negf @ sf) > 0
    return np.where(same, 1, np.where(differ, 0, -1)).astype(np.int8)


def infer_order(r: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Entries of a strict total order (R[i, j] = 1 iff i > j) implied by the training pairs.

    Antisymmetry: R_ij = 1 gives R_ji = 0 and R_ij = 0 (i != j) gives R_ji = 1, the diagonal
    is 0; transitivity: the closure of the known "greater than" arcs.
    """
    n = r.shape[0]
    off = ~np.eye(n, dtype=bool)
    greater = (masks & (r == 1)) | (masks & (r == 0) & off).transpose(0, 2, 1)
    above = transitive_closure(greater)
    return np.where(above, 1, np.where(above.transpose(0, 2, 1) | ~off, 0, -1)).astype(np.int8)


# ----------------------------------------------------------------------------------------------
# Best guesses for the rest (App. D, second step)
# ----------------------------------------------------------------------------------------------


def class_probabilities(known: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """P[R_ij = 1] for an equivalence relation from the candidate classes pos[i] (App. D).

    pos[i] is {class of i} when i is known to be related to some j != i (the paper reads the
    class off the reference labels), else all classes but those of the j known unrelated to i.
    With i and j independent and uniform over their candidates, P = |pos_i & pos_j| /
    (|pos_i| |pos_j|). Known entries keep their value.
    """
    n = labels.shape[0]
    k = int(labels.max()) + 1
    onehot = np.eye(k, dtype=bool)[labels]  # (n, k)
    linked = ((known == 1) & ~np.eye(n, dtype=bool)).any(-1)  # (S, n)
    excluded = ((known == 0)[..., None] & onehot).any(-2)  # (S, n, k)
    cand = np.where(linked[..., None], onehot, ~excluded).astype(np.float32)
    cand /= cand.sum(-1, keepdims=True)
    p = cand @ cand.transpose(0, 2, 1)
    return np.where(known >= 0, known, p)


_CHAIN_BLOCK = 16384  # chains per block of `sample_linear_extensions`' transpositions (measured: 8k to 32k)

# Bit generators whose `Generator.random` is (w >> 11) / 2^53 of one 64-bit word w from `random_raw`
_RAW_DOUBLE = (np.random.PCG64, np.random.PCG64DXSM, np.random.Philox, np.random.SFC64)


def _raw_words(rng: np.random.Generator) -> Callable[[tuple[int, ...]], np.ndarray]:
    """`random_raw` of `rng`'s bit generator: the words `rng.random` would turn into doubles, one each."""
    bits = rng.bit_generator
    if not isinstance(bits, _RAW_DOUBLE):
        names = ", ".join(kind.__name__ for kind in _RAW_DOUBLE)
        raise TypeError(f"need a bit generator of one 64-bit word per double ({names}), got {type(bits).__name__}")
    return bits.random_raw


def sample_linear_extensions(above: np.ndarray, n_samples: int, sweeps: int, rng: np.random.Generator) -> np.ndarray:
    """Orderings (S, n_samples, n), uniform among those with i after j wherever above[s, i, j].

    One batch of chains for all S partial orders at once. Start: random topological sorts
    (Kahn's algorithm, a random choice among the available elements). Then `sweeps` * n
    rounds of the lazy odd-even transposition chain: in a round, every adjacent pair of ranks
    (t, t+1) with t even, then every one with t odd, swaps with probability 1/2 unless the
    order forbids it. Each such update is symmetric, so the uniform distribution on the linear
    extensions is stationary; adjacent transpositions connect all of them. order[s, c, t] is
    the element of rank t (ascending) in chain c.

    Random numbers, in this order: per placement uniforms u (S, n_samples, n), the available element
    with the largest u placed next; per half-round uniforms (S n_samples, pairs), a pair proposed for
    a swap where u < 1/2. They are `rng.random`'s numbers read off its 64-bit words (`_RAW_DOUBLE`):
    u = (w >> 11) / 2^53, so u orders (ties included) as w >> 11, and u < 1/2 iff w < 2^63.
    Layout: the chains are held rank by rank, (n, S n_samples), so that a half-round works on whole
    rows, each element as s n + element, so that the constraint of ranks (lo, hi) is entry
    hi n + lo of a table with n^2 + n entries per order.
    """
    n_orders, n = above.shape[0], above.shape[-1]
    chains = n_orders * n_samples
    words = _raw_words(rng)
    # start: Kahn's algorithm; waiting[c, i] = predecessors of i not yet placed in chain c (n once placed)
    below = np.ascontiguousarray(above.transpose(0, 2, 1), dtype=np.int8 if n < 128 else np.int16)  # [s, j, i]
    waiting = np.repeat(below.sum(1, dtype=below.dtype), n_samples, axis=0)
    row_of = np.repeat(np.arange(n_orders) * n, n_samples)  # chain c's first row of below.reshape(S n, n)
    dtype = np.int16 if n_orders * n <= np.iinfo(np.int16).max else np.int32
    order = np.empty((n, chains), dtype=dtype)  # order[t, c] = s n + (element of rank t in chain c)
    chain = np.arange(chains)
    for t in range(n):
        key = words((chains, n)) >> np.uint64(11)
        key += np.uint64(1)  # > 0, and 0 where the element is not available
        np.copyto(key, np.uint64(0), where=waiting != 0)
        pick = np.argmax(key, axis=1)  # the first largest, as the argmax of the uniforms
        order[t] = row_of + pick
        waiting -= below.reshape(n_orders * n, n)[row_of + pick]
        waiting[chain, pick] = n
    # the chain, in blocks of chains that stay in cache
    free = np.concatenate([~above.reshape(n_orders, n * n), np.zeros((n_orders, n), bool)], 1).ravel()
    index = np.empty((n // 2, _CHAIN_BLOCK), np.intp)
    exchanged = np.empty((n // 2, _CHAIN_BLOCK), dtype)
    for _ in range(sweeps * n):
        for first in (0, 1):
            pairs = (n - first) // 2
            proposed = np.ascontiguousarray((words((chains, pairs)) < np.uint64(1 << 63)).T)
            for c in range(0, chains, _CHAIN_BLOCK):
                block = order[:, c : c + _CHAIN_BLOCK]
                lo, hi = block[first : first + 2 * pairs : 2], block[first + 1 : first + 2 * pairs + 1 : 2]
                swap, width = proposed[:, c : c + _CHAIN_BLOCK], block.shape[1]
                i = np.multiply(hi, n, out=index[:pairs, :width], dtype=np.intp)
                i += lo  # (s n + hi) n + s n + lo
                swap &= free[i]
                x = np.bitwise_xor(lo, hi, out=exchanged[:pairs, :width])
                x *= swap  # swapped in place: lo ^ (lo ^ hi) = hi
                lo ^= x
                hi ^= x
    return order.T.reshape(n_orders, n_samples, n).astype(np.int64) - (np.arange(n_orders) * n)[:, None, None]


def order_probabilities(known: np.ndarray, n_samples: int, sweeps: int, rng: np.random.Generator) -> np.ndarray:
    """P[R_ij = 1] = P[i > j] over orderings consistent with the inferred entries (App. D)."""
    order = sample_linear_extensions(known == 1, n_samples, sweeps, rng)
    n = known.shape[-1]
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.broadcast_to(np.arange(n), order.shape), axis=-1)
    after = np.stack([(r[:, :, None] > r[:, None, :]).sum(0) for r in rank])  # one order's chains at a time
    return np.where(known >= 0, known, after / n_samples)


# ----------------------------------------------------------------------------------------------
# The Monte Carlo upper bound (Fig. 2)
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MonteCarloBound:
    """Per training fraction (F,): mean over samplings of the bound and its parts.

    accuracy: upper bound on accuracy over all n^2 pairs; inferred: fraction of entries known
    from the training pairs and the relation's properties; p_star: mean of min(p, 1 - p) over
    the entries the data leave open (0 < p < 1), pooled over samplings (NaN where none);
    uncertain: the mean number of such entries. Per sampling, (F, S): `accuracy_samples`,
    `inferred_samples`, `open_miss` (sum of min(p, 1 - p) over the open entries), `open_count`
    (their number).
    """

    fractions: np.ndarray
    accuracy: np.ndarray
    accuracy_sd: np.ndarray
    inferred: np.ndarray
    p_star: np.ndarray
    uncertain: np.ndarray
    accuracy_samples: np.ndarray
    inferred_samples: np.ndarray
    open_miss: np.ndarray
    open_count: np.ndarray


def monte_carlo_bound(
    name: str, n: int, fractions, samplings: int, *, orderings: int = 1000, sweeps: int = 4, seed: int = 0
) -> MonteCarloBound:
    """Appendix D's Monte Carlo bound for `name` at each training fraction, over `samplings` masks.

    The masks of sampling s are lib.geneft.relations.split_masks with seed `seed + s` (nested
    across fractions); the orderings of a total order come from numpy's generator seeded with
    `seed`.
    """
    from lib.geneft.relations import split_masks

    r = relation_matrix(name, n)
    fractions = np.asarray(fractions, dtype=float)
    masks = split_masks(n, fractions, [seed + s for s in range(samplings)])
    if name == "greater_than":
        known = infer_order(r, masks)
        prob = order_probabilities(known, orderings, sweeps, np.random.default_rng(seed))
    elif name in ("mod3", "mod5", "bipartite"):
        flip = name == "bipartite"  # K_{a,c} is the complement of a 2-class equivalence
        known = infer_equivalence(1 - r if flip else r, masks)
        prob = class_probabilities(known, class_labels(name, n))
        if flip:
            known = np.where(known >= 0, 1 - known, -1).astype(np.int8)
            prob = 1 - prob
    else:
        raise ValueError(f"no Monte Carlo bound for relation {name!r}; use mod3, mod5, bipartite or greater_than")
    shape = (len(fractions), samplings)
    acc = np.maximum(prob, 1 - prob).mean((-2, -1)).reshape(shape)
    inferred = (known >= 0).mean((-2, -1)).reshape(shape)
    open_ = (prob > 0) & (prob < 1)
    miss = np.where(open_, np.minimum(prob, 1 - prob), 0).sum((-2, -1)).reshape(shape)
    count = open_.sum((-2, -1)).reshape(shape)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_star = miss.sum(1) / count.sum(1)
    return MonteCarloBound(
        fractions=fractions,
        accuracy=acc.mean(1),
        accuracy_sd=acc.std(1),
        inferred=inferred.mean(1),
        p_star=p_star,
        uncertain=count.mean(1),
        accuracy_samples=acc,
        inferred_samples=inferred,
        open_miss=miss,
        open_count=count,
    )


def inductive_gap(fractions, accuracy, bound) -> float:
    """Mean vertical gap bound - accuracy over the range of training fractions (trapezoid rule).

    Section III calls the architecture-dependent part of the delay between the networks'
    accuracy curve and the theoretical bound the "inductive gap"; this is its area per unit
    of training fraction (positive when the network lies below the bound).
    """
    x = np.asarray(fractions, float)
    gap = np.asarray(bound, float) - np.asarray(accuracy, float)
    return float(np.sum((gap[1:] + gap[:-1]) / 2 * np.diff(x)) / (x[-1] - x[0]))


# ----------------------------------------------------------------------------------------------
# Read-outs with intervals: p_* over the whole curve, the fraction where accuracy reaches a level
# ----------------------------------------------------------------------------------------------


def p_star_pooled(
    mc: MonteCarloBound, *, upto: float | None = None, confidence: float = CONFIDENCE, seed: int = 0
) -> Estimate:
    """p_*: sum of min(p, 1 - p) over every open entry of every fraction <= `upto` (None: the whole
    curve) and sampling, divided by their number; percentile bootstrap over the samplings (a
    sampling's nested masks are one unit). Section III's p_* is the guessing probability of eq. (5)
    where the data leave the relation open, its small-data limit: `upto` = the smallest fraction
    reads that limit, the whole curve mixes in the entries that later data leave partly informed.
    For the complete bipartite graph (two classes of equal size) every open entry has p = 1/2 by
    symmetry: p_* = 1/2 there is a consistency check, not a finding.
    """
    window = np.ones(len(mc.fractions), bool) if upto is None else mc.fractions <= upto * (1 + 1e-12)
    if not window.any():
        raise ValueError(f"no training fraction <= {upto}")
    miss = mc.open_miss[window].sum(0).astype(float)  # per sampling
    count = mc.open_count[window].sum(0).astype(float)
    where = "over fractions" if upto is None else f"over fractions <= {upto:g}"
    if count.sum() == 0:
        return Estimate(math.nan, math.nan, math.nan, len(count), f"no open entry {where}")
    ratio = lambda a, b, axis=-1: a.sum(axis) / b.sum(axis)
    value = float(ratio(miss, count))
    if len(miss) < 2 or np.allclose(miss / np.maximum(count, 1), value):
        return Estimate(value, value, value, len(miss), f"pooled {where} and samplings, no spread")
    ci = bootstrap_interval((miss, count), ratio, rng=np.random.default_rng(seed), paired=True, confidence=confidence)
    return Estimate(value, *ci, len(miss), f"pooled {where}, bootstrap percentile over samplings {confidence:.0%}")


def p_star_eq5_fit(mc: MonteCarloBound, b: float, n_pairs: int) -> float:
    """The p_* that makes eq. (5) fit the Monte Carlo accuracy curve: least squares of
    acc - f = (1 - p_*)(1 - f) over the fractions (f: eq. 3 at m = fraction x n_pairs), closed form.
    It absorbs every difference in shape between eq. (3) and the Monte Carlo's inferred fraction
    (it gives less than 1/2 for the bipartite graph, whose open entries are all at 1/2), so it is
    a robustness reading of p_*, not its definition."""
    f = inferable_fraction(np.asarray(mc.fractions) * n_pairs, b)
    return float(1.0 - np.sum((mc.accuracy - f) * (1 - f)) / np.sum((1 - f) ** 2))


def first_crossing(fractions, accuracy, level: float = 0.9) -> np.ndarray:
    """Training fraction where each curve first reaches `level`, linearly interpolated between the
    grid's fractions; `accuracy` (..., F). NaN where a curve never reaches it within the grid, the
    first fraction where it starts at or above it (the grid does not resolve the crossing)."""
    x = np.asarray(fractions, float)
    acc = np.asarray(accuracy, float)
    above = acc >= level
    first = np.argmax(above, axis=-1)
    out = np.full(acc.shape[:-1], np.nan)
    hit = above.any(-1)
    i = first[hit]
    a = acc[hit]
    lo = np.clip(i - 1, 0, None)
    a0, a1 = np.take_along_axis(a, lo[:, None], -1)[:, 0], np.take_along_axis(a, i[:, None], -1)[:, 0]
    w = np.where(i > 0, (level - a0) / np.where(a1 > a0, a1 - a0, 1), 0.0)
    out[hit] = x[lo] + w * (x[i] - x[lo])
    return out


def fraction_at_accuracy(
    fractions, curves, level: float = 0.9, *, confidence: float = CONFIDENCE, seed: int = 0, what: str = "curves"
) -> Estimate:
    """Training fraction where the mean of `curves` (S, F) (samplings of the bound, or seeds of a
    network) first reaches `level`, with a percentile bootstrap over the S curves. A resample whose
    mean never reaches `level` counts as +inf (the interval is then open above: high = inf), so
    nothing is dropped. NaN value when the mean curve itself never reaches it within the grid.
    """
    curves = np.atleast_2d(np.asarray(curves, float))
    x = np.asarray(fractions, float)

    def statistic(idx, axis=-1):
        mean = curves[np.asarray(idx, int)].mean(-2)
        return np.nan_to_num(first_crossing(x, mean, level), nan=np.inf)

    value = float(first_crossing(x, curves.mean(0), level))
    n = curves.shape[0]
    if n < 2:
        return Estimate(value, value, value, n, f"one {what[:-1]}, no interval")
    ci = bootstrap_interval(
        (np.arange(n),), statistic, rng=np.random.default_rng(seed), resamples=1999, confidence=confidence
    )
    return Estimate(
        value, *ci, n, f"first crossing of {level:g} (mean curve), bootstrap percentile over {what} {confidence:.0%}"
    )


def critical_fraction_vs_accuracy(
    mc: MonteCarloBound, b: float, n_pairs: int, *, alpha: float = 0.9, seed: int = 0
) -> dict[str, Estimate]:
    """Eq. (4)'s p_c (b the relation's description length, N = `n_pairs`) beside the training fractions
    where the Monte Carlo bound `mc` (App. D) reaches accuracy alpha ("bound") and where its inferable
    fraction reaches alpha ("inferred"), each a `fraction_at_accuracy` over the bound's samplings. Eq. (4)
    targets the inferable fraction f(N p) = alpha, a stricter target than accuracy alpha (a guess is right
    with probability max(p_*, 1 - p_*)), so p_c lies above the bound's crossing unless the bound's
    inference is weaker than the balls-in-buckets count.
    """
    return {
        "p_c": exact(critical_fraction(b, n_pairs, alpha)),
        "inferred": fraction_at_accuracy(mc.fractions, mc.inferred_samples.T, alpha, seed=seed, what="samplings"),
        "bound": fraction_at_accuracy(mc.fractions, mc.accuracy_samples.T, alpha, seed=seed, what="samplings"),
    }
