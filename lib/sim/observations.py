"""The SIM observations chapter's setup with explicit arguments: data sets per setting, model shapes by
name, the test point in concept coordinates, the batched runs kept to what the chapter reads of them, and the
per-seed arrays of one cell of a swing evidence set."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lib.sim.data import SIMData, sim_dataset
from lib.sim.metrics import ood_loss
from lib.sim.models import MLPShape
from lib.sim.train import train_datasets

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


@dataclass(frozen=True)
class ConceptRuns:
    """What the chapter reads of a batched run (`lib.sim.train.train_datasets`), per logged step and model: the
    output at the OOD test point in the concept plane (`plane`, (T+1, M, s): the first s concept coordinates) and
    the OOD loss 1/2 ||f(x_hat) - x_hat||^2 and the distance ||f(x_hat) - x_hat|| over all d coordinates
    (`ood_loss`, `distance`, (T+1, M)); and the steps per epoch (`steps_per_epoch`) of the epoch axis."""

    plane: np.ndarray
    ood_loss: np.ndarray
    distance: np.ndarray
    steps_per_epoch: int


def train_concept_runs(
    shape: MLPShape, mus, sigmas, data_seeds: Sequence[int], seeds: Sequence[int], *, data: dict, **sgd
) -> ConceptRuns:
    """Train one model per SIM data set (`sim_datasets(mus, sigmas, shape.d, data_seeds, **data)`, pairs outer,
    seeds inner) as one batched run (`lib.sim.train.train_datasets` with init seeds `seeds` and its SGD options
    `sgd`) and keep what the chapter reads of it: the test point's output in the concept plane and its OOD loss
    (`ConceptRuns`), a few hundred kilobytes where the whole output trajectory in d = 64 dimensions takes
    megabytes. The data sets are given by their parameters, not their points: a stored run is found again from
    numbers that are the same on every processor."""
    datasets = sim_datasets(mus, sigmas, shape.d, data_seeds, **data)
    traj, y = train_datasets(shape, datasets, list(seeds), **sgd)
    s = len(datasets[0].mu)
    if any(len(ds.mu) != s for ds in datasets):
        raise ValueError("a batched run of data sets with different numbers of concepts")
    targets = [concept_test_point(ds) for ds in datasets]
    loss = np.stack([ood_loss(y[:, i, 0], target) for i, target in enumerate(targets)], axis=1)
    distance = np.stack([np.linalg.norm(y[:, i, 0] - target, axis=1) for i, target in enumerate(targets)], axis=1)
    return ConceptRuns(np.ascontiguousarray(y[:, :, 0, :s]), loss, distance, int(traj.steps_per_epoch))


def swing_cell(evidence, protocol: str, init_scale: float = 1.0, truncation: str = "none", prefix: str = "") -> dict:
    """Per-seed arrays (turn-back, loss rise, bulge, final distance) of one cell of a swing evidence set,
    its blocks of seeds concatenated; `prefix` selects the arrays of a variant ("cut_")."""
    cell = dict(protocol=protocol, init_scale=init_scale, truncation=truncation)
    return {name: evidence.concat(prefix + name, **cell) for name in SWING_ARRAYS}
