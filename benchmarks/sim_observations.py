"""Benchmark of the chapter sim_observations: one batched sweep against the same runs trained one by one.

The sweep is the Fig. 2a/2b order sweep of a two-layer linear model (8 configurations) at the
paper's sizes (d = 64, width 64, 5000 points per cluster, batch 128), for a few epochs.
"""
from __future__ import annotations

import time

import numpy as np
import torch

from lib.sim.data import sim_dataset
from lib.sim.models import MLPShape
from lib.sim.train import train_datasets

EPOCHS = 2.0
CONFIGS = [([m1, 2.0], [0.05, 0.05]) for m1 in (1.0, 2.0, 3.0)] + [([1.0, 2.0], [s1, 0.05]) for s1 in (0.1, 0.5, 1.0, 2.0, 4.0)]


def benchmark() -> dict[str, float]:
    """Seconds for the batched sweep and for the same runs one by one, their ratio, and their largest difference."""
    torch.set_num_threads(1)
    data = [sim_dataset(m, s, 64, 5000, sigma_is_variance=True, origin_cluster=True, rotate=True, seed=0)
            for m, s in CONFIGS]
    shape = MLPShape(64, 64, 2)
    sgd = dict(lr=0.1, batch=128, epochs=EPOCHS)
    seeds = [0] * len(data)
    start = time.perf_counter()
    _, together = train_datasets(shape, data, seeds, **sgd)
    batched = time.perf_counter() - start
    start = time.perf_counter()
    alone = [train_datasets(shape, [ds], [0], **sgd)[1][:, 0] for ds in data]
    single = time.perf_counter() - start
    diff = max(float(np.abs(together[:, i] - y).max()) for i, y in enumerate(alone))
    return {"batched_s": batched, "one_by_one_s": single, "speedup": single / batched,
            "max_abs_diff_batched_vs_single": diff, "models": float(len(data))}


if __name__ == "__main__":
    for name, value in benchmark().items():
        print(f"{name}: {value:.4g}")
