"""The SIM observations chapter's setup with explicit arguments: data sets per setting, model shapes by
name, the test point in concept coordinates, and the per-seed arrays of one cell of a swing evidence set."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lib.sim.data import SIMData, sim_dataset
from lib.sim.models import MLPShape

SWING_ARRAYS = ("turn_back", "loss_rise", "bulge", "final_distance")


def sim_datasets(
    mus: Sequence[Sequence[float]],
    sigmas: Sequence[Sequence[float]],
    dim: int,
    seeds: Sequence[int],
    *,
    n: int,
    sigma_is_variance: bool,
    origin_cluster: bool,
    rotate: bool,
    **options,
) -> list[SIMData]:
    """One SIM data set (Section 2.1) per (mu, sigma) pair and seed, pairs outer, seeds inner."""
    return [
        sim_dataset(
            m,
            s,
            dim,
            n,
            sigma_is_variance=sigma_is_variance,
            origin_cluster=origin_cluster,
            rotate=rotate,
            seed=k,
            **options,
        )
        for m, s in zip(mus, sigmas)
        for k in seeds
    ]


def concept_test_point(data: SIMData) -> np.ndarray:
    """The OOD test point x_hat = sum_p mu_p e_p in concept coordinates (undoing the rotation)."""
    return data.to_concept(data.test_point)


def mlp_shape(model: str, dim: int, width: int, bias: bool) -> MLPShape:
    """The shape of a model named "LAYERS-ACTIVATION" ("2-relu", "4-linear") on inputs of dimension `dim`."""
    layers, activation = model.split("-")
    return MLPShape(dim, width, int(layers), activation, bias)


def swing_cell(evidence, protocol: str, init_scale: float = 1.0, truncation: str = "none", prefix: str = "") -> dict:
    """Per-seed arrays (turn-back, loss rise, bulge, final distance) of one cell of a swing evidence set,
    its blocks of seeds concatenated; `prefix` selects the arrays of a variant ("cut_")."""
    cell = dict(protocol=protocol, init_scale=init_scale, truncation=truncation)
    return {name: evidence.concat(prefix + name, **cell) for name in SWING_ARRAYS}
