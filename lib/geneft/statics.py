"""Read-outs of the statics chapter with intervals: networks against the Monte Carlo bound (Fig. 3),
distances of a measured fraction from eq. (4)'s p_c, and whether a decoder can express a relation.

- `excess_over_bound`: the largest excess, over the training fractions, of the networks' mean
  accuracy over the bound's mean (Fig. 3's "under the bound" at every fraction): below 0 when the
  networks stay under the bound everywhere. Per fraction a percentile bootstrap of the difference
  of means (networks' seeds and the bound's samplings resampled independently: they share no
  random numbers), Bonferroni over the fractions.
- `relative_error`, `abs_log2_ratio`: an estimate's distance from a reference value, its interval
  mapped through the distance (the distance is monotone on each side of the reference).
- `fit_all_pairs`: train on all n^2 pairs and report the best train accuracy over seeds: a decoder
  that stays below 1 cannot express the relation (Fig. 7's shallow end is a matter of expressivity).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import TypeVar

import numpy as np

from lib.util.stats import CONFIDENCE, Estimate, bonferroni, bootstrap_interval, bootstrap_mean, largest

S = TypeVar("S")  # an evidence shard: `.key` (its parameters) and its arrays by name

# ----------------------------------------------------------------------------------------------
# Networks against the bound
# ----------------------------------------------------------------------------------------------


def difference_per_fraction(
    network_curves, bound_curves, *, confidence: float = CONFIDENCE, seed: int = 0
) -> list[Estimate]:
    """Mean network accuracy - mean bound at each fraction, percentile bootstrap (scipy) resampling the
    seeds and the samplings independently at `confidence`: resampled means stay within [0, 1], so
    where the bound is 1 the interval never rises above 0 (a t interval would). A fraction where
    both samples are constant gets the exact difference."""

    net, bnd = np.atleast_2d(np.asarray(network_curves, float)), np.atleast_2d(np.asarray(bound_curves, float))
    if net.shape[1] != bnd.shape[1]:
        raise ValueError(f"network and bound curves need the same fractions, got {net.shape} and {bnd.shape}")

    def diff(a, b, axis=-1):
        return np.mean(a, axis=axis) - np.mean(b, axis=axis)

    out = []
    for a, b in zip(net.T, bnd.T):
        d = float(a.mean() - b.mean())
        if len(a) < 2 or len(b) < 2 or (np.ptp(a) == 0 and np.ptp(b) == 0):
            out.append(Estimate(d, d, d, len(a), "difference of means, no spread"))
            continue
        ci = bootstrap_interval((a, b), diff, rng=np.random.default_rng(seed), resamples=1999, confidence=confidence)
        method = f"difference of means, bootstrap percentile over seeds and samplings {confidence:.1%}"
        out.append(Estimate(d, *ci, len(a), method))
    return out


def excess_over_bound(network_curves, bound_curves, *, confidence: float = CONFIDENCE, seed: int = 0) -> Estimate:
    """The largest excess of the networks' mean accuracy (seeds, F) over the bound's mean
    (samplings, F) over the fractions: `largest` of the per-fraction differences, each at the
    Bonferroni level 1 - (1 - confidence) / F, so the whole interval lies at or below 0 when the
    networks are not above the bound at any fraction (simultaneously at `confidence`) and above 0
    when they beat it at some fraction."""
    f = np.atleast_2d(np.asarray(network_curves)).shape[1]
    per = difference_per_fraction(network_curves, bound_curves, confidence=bonferroni(confidence, f), seed=seed)
    method = f"max over {f} fractions of mean network - mean bound, bootstrap percentile, Bonferroni {confidence:.0%}"
    return replace(largest(per), method=method)


# ----------------------------------------------------------------------------------------------
# Which decoder is best: margins between groups of architectures (G-3) or depths (G-7)
# ----------------------------------------------------------------------------------------------


# Section III: "the inductive gap is the smallest for a network in mode 3 with 0 hidden layers" (mod 3) and
# "in mode 2 with 0 hidden layers" (greater-than).
PAPER_BEST_MODE = {"mod3": "squared_difference", "greater_than": "difference"}
PAPER_BEST_DEPTH = 0

# Table 3's decoder: concat mode, 3 hidden layers of width 50, embedding dimension 2
TABLE3_DECODER = {"mode": "concat", "depth": 3, "width": 50, "embed_dim": 2}


def split_architecture(text: str) -> tuple[str, int]:
    """'mode:depth' -> (mode, depth), e.g. 'squared_difference:0' (Section III's modes, n_h hidden layers);
    ValueError when the depth is not an ASCII whole number."""
    mode, _, depth = text.partition(":")
    if not (depth.isascii() and depth.isdigit()):
        raise ValueError(f"{text!r} is not 'mode:depth'")
    return mode, int(depth)


def smallest_gap(gap: Mapping[tuple[str, str], float]) -> dict[str, str]:
    """Per relation, the "mode:depth" architecture of smallest inductive gap (`lib.geneft.bounds.inductive_gap`),
    the reading of Section III's "the inductive gap is the smallest for a network in mode 3 with 0 hidden
    layers": `gap` keyed by (relation, architecture); of equal gaps, the architecture first in `gap` wins."""
    best: dict[str, str] = {}
    for (relation, architecture), value in gap.items():
        if relation not in best or value < gap[relation, best[relation]]:
            best[relation] = architecture
    return best


def curve_area(curves, fractions) -> np.ndarray:
    """Mean accuracy over the range of training fractions (trapezoid rule) of each curve (units, F): the part
    of the inductive gap (`lib.geneft.bounds.inductive_gap`) that depends on the network, so that the gap
    of two decoders against one bound differs by minus the difference of their areas."""
    x = np.asarray(fractions, float)
    y = np.atleast_2d(np.asarray(curves, float))
    return np.sum((y[:, 1:] + y[:, :-1]) / 2 * np.diff(x), axis=1) / (x[-1] - x[0])


def best_mean_margin(
    favoured, others, *, confidence: float = CONFIDENCE, seed: int = 0, resamples: int = 4999
) -> Estimate:
    """max over the favoured groups of their mean minus max over the other groups of theirs: > 0 when the
    best of the favoured beats the best of the others. Each group is one value per unit (a seed), the
    units paired across all groups (a seed draws the same split for every decoder), so the interval is a
    percentile bootstrap resampling the units of all groups together (scipy)."""
    fav = [np.asarray(g, float).ravel() for g in favoured]
    oth = [np.asarray(g, float).ravel() for g in others]
    if not fav or not oth:
        raise ValueError("best_mean_margin needs at least one favoured and one other group")
    units = {len(g) for g in fav + oth}
    if len(units) != 1:
        raise ValueError(f"every group needs the same paired units, got sizes {sorted(units)}")
    k = len(fav)

    def margin(*groups, axis=-1):
        means = np.stack([np.mean(g, axis=axis) for g in groups])
        return np.max(means[:k], axis=0) - np.max(means[k:], axis=0)

    value = float(margin(*fav, *oth))
    n = units.pop()
    if n < 2 or all(np.ptp(g) == 0 for g in fav + oth):
        return Estimate(value, value, value, n, "difference of best means, no spread")
    low, high = bootstrap_interval(
        (*fav, *oth), margin, rng=np.random.default_rng(seed), paired=True, resamples=resamples, confidence=confidence
    )
    method = f"max mean of {k} favoured - max mean of {len(oth)} others, paired bootstrap percentile {confidence:.0%}"
    return Estimate(value, low, high, n, method)


# ----------------------------------------------------------------------------------------------
# Distances from a reference value
# ----------------------------------------------------------------------------------------------


def _distance(estimate: Estimate, reference: float, fn, what: str) -> Estimate:
    low, high = estimate.low, estimate.high
    ends = [fn(low), fn(high)]
    lowest = 0.0 if low <= reference <= high or (low <= reference and not math.isfinite(high)) else min(ends)
    return Estimate(fn(estimate.value), lowest, max(ends), estimate.n, f"{what}; from {estimate.method}")


def relative_error(estimate: Estimate, target: float) -> Estimate:
    """|x / target - 1| for the estimate x, with its interval mapped through the distance."""
    if target == 0:
        raise ValueError("relative error to 0 is undefined")
    return _distance(estimate, target, lambda x: abs(x / target - 1), f"|x / {target:.4g} - 1|")


def abs_log2_ratio(estimate: Estimate, reference: float, *, at_most: float | None = None) -> Estimate:
    """|log2(x / reference)| (doublings between x and the reference). With `at_most`, a value above
    it or not finite (a crossing the grid never reached: `lib.geneft.bounds.fraction_at_accuracy`
    gives NaN or +inf) is taken as `at_most`: a training fraction is at most 1, where every pair is
    trained and a network that fits its data, like the bound, has accuracy 1."""
    if not reference > 0:
        raise ValueError(f"reference must be > 0, got {reference}")

    def fn(x: float) -> float:
        if at_most is not None and not x <= at_most:  # NaN, +inf and values beyond the cap
            x = at_most
        return abs(math.log2(x / reference)) if x > 0 and math.isfinite(x) else math.inf

    capped = "" if at_most is None else f", fractions beyond the grid taken as {at_most:g}"
    return _distance(estimate, reference, fn, f"|log2(x / {reference:.4g})|{capped}")


# ----------------------------------------------------------------------------------------------
# Expressivity: fit every pair
# ----------------------------------------------------------------------------------------------


def fit_all_pairs(
    relation: str,
    n: int,
    *,
    mode: str,
    depth: int,
    width: int,
    embed_dim: int,
    lr: float,
    steps: int,
    seeds,
    init_scale: float = 1.0,
) -> np.ndarray:
    """Train accuracy after training on all n^2 pairs (no test set), one per seed: whether the
    decoder can express the relation at all (1.0 reached by some seed) within `steps`."""
    from lib.geneft.relations import relation_matrix
    from lib.geneft.train import train_models

    seeds = np.asarray(list(seeds))
    masks = np.ones((len(seeds), n, n), dtype=bool)
    res = train_models(
        relation_matrix(relation, n),
        masks,
        mode=mode,
        depth=depth,
        width=width,
        embed_dim=embed_dim,
        lr_enc=lr,
        lr_dec=lr,
        init_scale=init_scale,
        steps=steps,
        seeds=seeds,
        eval_every=max(1, steps // 20),
        early_stop=False,
        plateau_patience=5,
    )
    return res.train_acc


def paper_decoder_margins(
    areas: Mapping[tuple[str, str], np.ndarray], *, seed: int = 0
) -> dict[str, dict[str, Estimate]]:
    """G-3's margins (the paper's Fig. 3 and Sec. III), per relation of `areas` ((relation, "mode:depth") -> one
    `curve_area` per seed, the seeds paired across decoders), each a `best_mean_margin`: under "mode", the best
    decoder of the paper's best mode (PAPER_BEST_MODE) against the best of the other modes; under "depth", the best
    decoder with PAPER_BEST_DEPTH hidden layers against the best with more. Positive: the paper's choice is ahead.
    """
    favoured = {
        "mode": lambda rel, mode, depth: mode == PAPER_BEST_MODE[rel],
        "depth": lambda rel, mode, depth: depth == PAPER_BEST_DEPTH,
    }
    out: dict[str, dict[str, Estimate]] = {name: {} for name in favoured}
    for rel in dict.fromkeys(r for r, _ in areas):
        decoders = {arch: split_architecture(arch) for r, arch in areas if r == rel}
        for name, is_favoured in favoured.items():
            split = [
                [areas[rel, arch] for arch, md in decoders.items() if is_favoured(rel, *md) == side]
                for side in (True, False)
            ]
            out[name][rel] = best_mean_margin(*split, seed=seed)
    return out


def depth_margin_power(
    areas: Mapping[tuple[str, str], np.ndarray], seeds: int, *, draws: int = 200, seed: int = 0
) -> tuple[float, float]:
    """The power of G-3's depth reading on `seeds` fresh seeds per decoder, for sizing a registered confirmation:
    the chances that the smaller of the relations' depth margins (`paper_decoder_margins`, "depth") holds, every
    relation's interval above 0, and that it does not hold, some relation's interval wholly at or below 0.

    Each relation's seeds are as uncertain as the seeds of `areas` leave them (the seeds seen, paired across a
    relation's decoders): a Bayesian bootstrap (Rubin 1981) draws Dirichlet(1, ..., 1) weights over the seeds seen,
    then `seeds` new seeds from those weights, `draws` times, and the declared test is run on each draw. The
    analogue, for a statistic of means, of the beta-binomial predictive that sizes Fig. 6's confirmation
    (`lib.geneft.repons.power_to_find_excess`); a seed unlike every seed seen (a new way of failing) is not drawn."""
    if seeds < 2 or draws < 1:
        raise ValueError(f"a confirmation needs at least 2 seeds and one draw, got {seeds} seeds, {draws} draws")
    rng = np.random.default_rng(seed)
    holds = fails = 0
    for draw in range(draws):
        drawn: dict[tuple[str, str], np.ndarray] = {}
        for rel in dict.fromkeys(r for r, _ in areas):
            keys = [key for key in areas if key[0] == rel]
            seen = len(areas[keys[0]])
            rows = rng.choice(seen, size=seeds, p=rng.dirichlet(np.ones(seen)))
            drawn.update({key: np.asarray(areas[key], float)[rows] for key in keys})
        margins = paper_decoder_margins(drawn, seed=draw)["depth"].values()
        holds += all(m.low > 0 for m in margins)
        fails += any(m.high <= 0 for m in margins)
    return holds / draws, fails / draws


def decoder_curves(*shard_sets, array: str = "full_acc") -> dict[tuple[str, str], np.ndarray]:
    """Accuracy curves per (relation, "mode:depth") decoder, (seeds, fractions), from evidence shards of
    `lib.geneft.evidence.network_curve` (each `array` is (fractions, seeds)); the seeds of the same decoder in
    several sets (more seeds of one design, e.g. decoder_modes and decoder_modes_extra) are stacked in order."""
    curves: dict[tuple[str, str], list[np.ndarray]] = {}
    for shards in shard_sets:
        for sh in shards:
            key = (sh.key["relation"], f"{sh.key['mode']}:{sh.key['depth']}")
            curves.setdefault(key, []).append(np.asarray(sh[array], float).T)
    return {key: np.concatenate(parts) for key, parts in curves.items()}


def by_depth(shards: Iterable[S]) -> list[S]:
    """Evidence shards of a sweep over decoder depth (the Goldilocks zone of Fig. 7, App. E) in increasing
    depth (`key["depth"]`), shards of equal depth in their given order."""
    return sorted(shards, key=lambda sh: sh.key["depth"])


def goldilocks_readings(shards: Iterable, *, seed: int = 0) -> dict[str, object]:
    """The Goldilocks zone of a sweep over decoder depth (the paper's Fig. 7, App. E), each depth one shard holding
    one final `test_acc` and `train_acc` per seed at a single training fraction, the seeds paired across depths.

    `interior_margin`: the best interior depth's mean test accuracy minus the better end's (`best_mean_margin`,
    > 0 for a zone); `deep_deficit`: the best depth's minus the deepest's (memorization); `deep_train_acc`: the
    deepest decoder's mean train accuracy (bootstrap); `best_depth` and `deepest_depth`; and the per-depth
    `depths`, `test` and `train` (one array of seeds each) that the figure draws.
    """
    ordered = by_depth(shards)
    depths = np.array([sh.key["depth"] for sh in ordered])
    test = [np.asarray(sh["test_acc"][0], float) for sh in ordered]
    train = [np.asarray(sh["train_acc"][0], float) for sh in ordered]
    return {
        "interior_margin": best_mean_margin(test[1:-1], [test[0], test[-1]], seed=seed),
        "deep_deficit": best_mean_margin(test, [test[-1]], seed=seed),
        "deep_train_acc": bootstrap_mean(train[-1], seed=seed),
        "best_depth": int(depths[np.argmax([t.mean() for t in test])]),
        "deepest_depth": int(depths[-1]),
        "depths": depths,
        "test": test,
        "train": train,
    }


def decoder_label(key: dict) -> str:
    """The legend label of a network sweep shard's decoder: "w WIDTH, d EMBED_DIM"."""
    return f"w {key['width']}, d {key['embed_dim']}"
