"""Sweeps of the two-layer chapter with explicit arguments: non-monotone OOD loss over one changed setting
of the symmetric two-layer flow (Section 4.2), and fractions of seeds over a cell of stored evidence."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lib.theory.two_layer import ensemble
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


def fraction_at_least(evidence, name: str, k: float, **cell) -> Estimate:
    """The fraction of seeds (with its Wilson interval) whose array `name` is >= k in one cell of an
    evidence set, its blocks of seeds pooled."""
    return fraction(evidence.concat(name, **cell) >= k)
