"""Benchmark of the two_layer chapter: one batched solve over many seeds vs a loop of per-seed solves."""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import time

from lib.theory import two_layer as tl

# ----------------------------------------------------------------------------------------------
# Settings: the chapter's main setting (Fig. 5) and the quadruple-descent setting (Fig. 9)
# ----------------------------------------------------------------------------------------------

SETTINGS = {
    "fig5": ([1.0, 2.0], [0.05, 0.05], 2, 60.0),
    "fig9": ([1.0, 1.5, 2.2, 2.7], [0.05, 0.05, 0.05, 0.5], 4, 200.0),
}


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def benchmark() -> dict[str, float]:
    out = {}
    for name, (mu, sigma, d, horizon) in SETTINGS.items():
        a = tl.signal_strengths(mu, sigma, d)
        times = tl.time_grid(horizon, 400)
        few = tl.init_u(50, d, d, 0.05, seed=0)
        many = tl.init_u(2000, d, d, 0.05, seed=0)
        loop = _timed(lambda: [tl.integrate(few[i : i + 1], a, times) for i in range(len(few))])
        batch = _timed(lambda: tl.integrate(few, a, times))
        out[f"{name}_loop_50_seeds_s"] = loop
        out[f"{name}_batched_50_seeds_s"] = batch
        out[f"{name}_batched_speedup"] = loop / batch
        out[f"{name}_batched_2000_seeds_s"] = _timed(lambda: tl.integrate(many, a, times))
        out[f"{name}_per_seed_speedup_2000"] = (loop / len(few)) / (out[f"{name}_batched_2000_seeds_s"] / len(many))
    return out


if __name__ == "__main__":
    for key, value in benchmark().items():
        print(f"{key:32s} {value:.3f}")
