"""Benchmark of the chapter sim_observations: one batched sweep against the same runs trained one by one.

The sweep is the Fig. 2a/2b order sweep (8 configurations) of linear models of depth 1, 2 and 4
at the paper's sizes (d = 64, width 64, 5000 points per cluster, batch 128), for two epochs.
"""

from __future__ import annotations

import time

import numpy as np
import torch

from lib.sim.data import sim_dataset
from lib.sim.models import MLPShape
from lib.sim.train import train_datasets

EPOCHS = 2.0
CONFIGS = [([m1, 2.0], [0.05, 0.05]) for m1 in (1.0, 2.0, 3.0)] + [
    ([1.0, 2.0], [s1, 0.05]) for s1 in (0.1, 0.5, 1.0, 2.0, 4.0)
]


def _time_sweep(shape: MLPShape, data, sgd: dict) -> tuple[float, float, float]:
    seeds = [0] * len(data)
    start = time.perf_counter()
    _, together = train_datasets(shape, data, seeds, **sgd)
    batched = time.perf_counter() - start
    start = time.perf_counter()
    alone = [train_datasets(shape, [ds], [0], **sgd)[1][:, 0] for ds in data]
    single = time.perf_counter() - start
    return batched, single, max(float(np.abs(together[:, i] - y).max()) for i, y in enumerate(alone))


def benchmark() -> dict[str, float]:
    """Per depth: seconds for the batched sweep and for the same runs one by one, their ratio, their largest difference."""
    torch.set_num_threads(1)
    data = [
        sim_dataset(m, s, 64, 5000, sigma_is_variance=True, origin_cluster=True, rotate=True, seed=0)
        for m, s in CONFIGS
    ]
    out = {"models": float(len(data))}
    for depth in (1, 2, 4):
        batched, single, diff = _time_sweep(MLPShape(64, 64, depth), data, dict(lr=0.1, batch=128, epochs=EPOCHS))
        out |= {
            f"depth{depth}_batched_s": batched,
            f"depth{depth}_one_by_one_s": single,
            f"depth{depth}_speedup": single / batched,
            f"depth{depth}_max_abs_diff": diff,
        }
    return out


if __name__ == "__main__":
    for name, value in benchmark().items():
        print(f"{name}: {value:.4g}")
