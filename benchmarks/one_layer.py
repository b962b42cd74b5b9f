"""Benchmark of the chapter one_layer: closed form against simulation, and the batched computations.

- Theorem 4.1 against the SGD protocol for the chapter's 10 settings (d = 64, n = 5000, 400 steps);
- the batched SGD run against the same settings trained one by one (same numbers, checked; at
  d = 64 the run is compute-bound, so batching saves little here);
- the order map's GD as a matrix-vector recurrence against iterating the d x d weights.
Speed-ups are ratios of two timings taken in this call.
"""

from __future__ import annotations

import time

import numpy as np
import torch

from lib.sim.data import population_second_moment, sim_dataset
from lib.theory.one_layer import (
    closed_form_output,
    discrete_output,
    gd_outputs,
    random_init,
    second_moment,
    sgd_outputs,
)

D, N, STEPS, LR = 64, 5000, 400, 0.1
SETTINGS = (
    [([1.0, 2.0], [0.05, 0.05])] * 2
    + [([m, 2.0], [0.05, 0.05]) for m in (1.0, 2.0, 3.0)]
    + [([1.0, 2.0], [x, 0.05]) for x in (0.05, 0.1, 0.5, 1.0, 2.0)]
)


def _timed(fn, *args, **kwargs):
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - start


def benchmark() -> dict[str, float]:
    """Seconds of each computation, the speed-ups, and the largest difference between batched and one by one."""
    torch.set_num_threads(1)
    data = [sim_dataset(m, s, D, N, rotate=True, seed=i) for i, (m, s) in enumerate(SETTINGS)]
    x = np.stack([ds.x for ds in data])
    probe = np.stack([ds.test_point for ds in data])
    w0 = random_init((len(data), D, D), 0.01, 0)
    a = np.stack([population_second_moment(m, s, D) for m, s in SETTINGS])
    z = np.stack([ds.to_concept(ds.test_point) for ds in data])
    t = LR * np.arange(STEPS + 1)

    _, closed = _timed(closed_form_output, w0, a, z, t)
    seeds = list(range(len(data)))
    batched, sgd_batched = _timed(sgd_outputs, x, w0, probe, LR, 128, STEPS, seeds)
    start = time.perf_counter()
    alone = [
        sgd_outputs(x[i : i + 1], w0[i : i + 1], probe[i : i + 1], LR, 128, STEPS, seeds[i : i + 1])
        for i in range(len(data))
    ]
    sgd_single = time.perf_counter() - start

    a_hat = second_moment(x)
    _, vector = _timed(discrete_output, w0, a_hat, probe, LR, STEPS)
    _, matrix = _timed(gd_outputs, x, w0, probe, LR, STEPS)
    return {
        "settings": float(len(data)),
        "closed_form_s": closed,
        "sgd_batched_s": sgd_batched,
        "sgd_one_by_one_s": sgd_single,
        "closed_form_vs_sgd_speedup": sgd_batched / closed,
        "sgd_batched_speedup": sgd_single / sgd_batched,
        "sgd_batched_vs_one_by_one_max_abs_diff": max(
            float(np.abs(batched.outputs[:, i] - run.outputs[:, 0]).max()) for i, run in enumerate(alone)
        ),
        "gd_vector_s": vector,
        "gd_matrix_s": matrix,
        "gd_vector_speedup": matrix / vector,
    }


if __name__ == "__main__":
    for name, value in benchmark().items():
        print(f"{name}: {value:.4g}")
