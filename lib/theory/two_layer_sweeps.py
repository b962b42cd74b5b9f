"""Sweeps of the two-layer chapter with explicit arguments: non-monotone OOD loss over one changed setting
of the symmetric two-layer flow (Section 4.2), and fractions of seeds over a cell of stored evidence.

Each function runs one of the chapter's ensembles or training runs and returns only what the chapter reads
from it (flags per seed, one seed's curves), so that the chapter can keep its result as a stored result
(`lib.book.evidence.stored`) instead of megabytes of trajectories."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lib.theory.stage_checks import init_entry_scale
from lib.theory.two_layer import (
    cluster_detours,
    descents_batch,
    ensemble,
    failure_summary,
    init_u,
    stages,
    train_u,
    training_curves,
)
from lib.util.stats import Estimate, fraction


def nonmonotone_flags(
    *,
    mu: Sequence[float],
    sigma: Sequence[float],
    d: int,
    width: int | None,
    scale: float,
    kind: str,
    n: int,
    horizon: float,
    n_times: int,
    tol: float,
    power: int,
    seed: int,
) -> np.ndarray:
    """Whether the OOD loss of each of `n` init seeds rises by more than `tol` (relative) at least once
    under the flow (D.2) with A^power; `width` None means d' = d."""
    run = ensemble(mu, sigma, d, width or d, scale, kind, n, horizon, n_times, tol, power, seed)
    return run["bump"] > 0


def detour_stage_flags(
    *,
    mu: Sequence[float],
    sigma: Sequence[float],
    d: int,
    width: int,
    scale: float,
    kind: str,
    n: int,
    horizon: float,
    n_times: int,
    tol: float,
    power: int,
    seed: int,
) -> np.ndarray:
    """Whether the s training-cluster means of each of `n` init seeds make their largest off-axis excursion
    at s different stages (`lib.theory.two_layer.cluster_detours`, the paper's Fig. 18, App. F.4), under
    the flow (D.2) with A^power."""
    run = ensemble(mu, sigma, d, width, scale, kind, n, horizon, n_times, tol, power, seed)
    return cluster_detours(run["w"], mu)["different_stages"]


def training_loss_flags(
    *,
    u0: np.ndarray,
    mu: Sequence[float],
    sigma: Sequence[float],
    n_per_cluster: int,
    lr: float,
    steps: int,
    record_every: int,
    batch: int | None,
    seed: int,
    tol: float,
) -> dict[str, np.ndarray]:
    """Train every seed of u0 (n, d, d') on sampled SIM data by gradient descent (`batch` None) or SGD
    (`lib.theory.two_layer.training_curves`) and flag, per seed, "train_monotone": its training loss on the
    sampled set never rises by more than `tol` times the mean initial training loss, and "ood_nonmonotone": its
    OOD loss rises by more than `tol` times the mean initial OOD loss (turning points of the zig-zag filter,
    `descents_batch`; the paper's Fig. 17)."""
    curves = training_curves(u0, mu, sigma, n_per_cluster, lr, steps, record_every, batch, seed)
    _, train_bump = descents_batch(curves["train"], tol * curves["train"][0].mean())
    _, ood_bump = descents_batch(curves["ood"], tol * curves["ood"][0].mean())
    return {"train_monotone": train_bump == 0, "ood_nonmonotone": ood_bump > 0}


def most_descents(
    *,
    mu: Sequence[float],
    sigma: Sequence[float],
    d: int,
    scale: float,
    kind: str,
    n: int,
    horizon: float,
    n_times: int,
    tol: float,
    power: int,
    seed: int,
) -> dict:
    """The seed with the most descents of its OOD loss among `n` (d' = d = s, the paper's App. E.1 settings),
    for a figure: "descents" (its count), "loss" (n_times,), "times" (n_times,) and "stages" (`stages`, every
    entry of the s = d clusters, with the minor floor at the expected initial diagonal entry
    `init_entry_scale`, eq. E.1)."""
    run = ensemble(mu, sigma, d, d, scale, kind, n, horizon, n_times, tol, power, seed)
    i = int(run["descents"].argmax())
    return {
        "descents": int(run["descents"][i]),
        "loss": run["loss"][:, i],
        "times": run["times"],
        "stages": stages(run["w"][:, i], run["a"], d, run["times"], init_entry_scale(kind, scale, d)),
    }


def flow_failure(
    *,
    mu: Sequence[float],
    sigma: Sequence[float],
    d: int,
    scale: float,
    kind: str,
    n: int,
    horizon: float,
    n_times: int,
    tol: float,
    power: int,
    seed: int,
) -> dict:
    """The failure mode of the paper's Fig. 10 under the flow (D.2) with A^power: `n` init seeds (d' = d)
    summarised per seed by `failure_summary` ("summary"), and for a figure the seed with the longest plateau
    ("longest_plateau": the latest escape among the seeds that reach the plateau; seed 0 when none does), its
    diagonal entries w_pp ("diagonal", (n_times, d)) and OOD loss ("loss", (n_times,)) on the time grid ("times")."""
    run = ensemble(mu, sigma, d, d, scale, kind, n, horizon, n_times, tol, power, seed)
    summary = failure_summary(run["w"], run["times"], mu)
    plateau = summary["plateau"]
    i = int(np.flatnonzero(plateau)[np.argmax(summary["escape"][plateau])]) if plateau.any() else 0
    return {
        "summary": summary,
        "times": run["times"],
        "longest_plateau": i,
        "diagonal": np.diagonal(run["w"][:, i], axis1=-2, axis2=-1),
        "loss": run["loss"][:, i],
    }


def sgd_failure(
    *,
    n: int,
    d: int,
    width: int,
    scale: float,
    kind: str,
    mu: Sequence[float],
    sigma: Sequence[float],
    n_per_cluster: int,
    lr: float,
    steps: int,
    record_every: int,
    batch: int,
    seed: int,
) -> dict[str, np.ndarray]:
    """The failure mode of the paper's Fig. 10 under SGD: `n` inits (`init_u`, `seed`) trained by SGD on sampled
    SIM data (`train_u`, the same `seed`), summarised per seed by `failure_summary` (suppressed, plateau,
    plateau_loss, escape)."""
    u0 = init_u(n, d, width, scale, kind, seed)
    tau, w = train_u(u0, mu, sigma, n_per_cluster, lr, steps, record_every, batch, seed)
    return failure_summary(w, tau, mu)


def fraction_at_least(evidence, name: str, k: float, **cell) -> Estimate:
    """The fraction of seeds (with its Wilson interval) whose array `name` is >= k in one cell of an
    evidence set, its blocks of seeds pooled."""
    return fraction(evidence.concat(name, **cell) >= k)
