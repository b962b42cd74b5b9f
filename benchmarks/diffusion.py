"""Benchmark of the diffusion chapter: training throughput (images per second) at the evidence
configuration, for the plain model and the variants tried (channels-last memory format,
torch.compile, two threads), measured in the same call, in interleaved rounds (the median round
per variant), so that a load that changes during the call hits every variant alike.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import replace

import torch

from lib.diffusion.configs import CPU
from lib.diffusion.evidence import run_config
from lib.diffusion.train import Run, run_seeds

VARIANTS = {  # name: (RunConfig overrides, torch threads)
    "plain": ({}, 1),
    "channels_last": ({"channels_last": True}, 1),
    "compile": ({"compile": True}, 1),
    "compile_channels_last": ({"compile": True, "channels_last": True}, 1),
    "plain_2_threads": ({}, 2),
    "compile_2_threads": ({"compile": True}, 2),
}


def benchmark(rounds: int = 3, steps: int = 4) -> dict[str, float]:
    base = replace(run_config(CPU, CPU["contrasts"][0]), compile=False, channels_last=False)
    runs, out = {}, {}
    for name, (overrides, threads) in VARIANTS.items():
        torch.set_num_threads(threads)
        runs[name] = Run(replace(base, **overrides), run_seeds(0, 0))
        start = time.perf_counter()
        runs[name].step()                     # warm-up (compilation for the compiled variants)
        out[f"warmup_s_{name}"] = time.perf_counter() - start
    seconds = {name: [] for name in VARIANTS}
    for _ in range(rounds):
        for name, (_, threads) in VARIANTS.items():
            torch.set_num_threads(threads)
            start = time.perf_counter()
            for _ in range(steps):
                runs[name].step()
            seconds[name].append((time.perf_counter() - start) / steps)
    torch.set_num_threads(1)
    for name in VARIANTS:
        out[f"images_per_second_{name}"] = base.batch_size / statistics.median(seconds[name])
    one_thread = [n for n, (_, t) in VARIANTS.items() if t == 1]
    fastest = max(one_thread, key=lambda n: out[f"images_per_second_{n}"])
    out["images_per_second"] = out[f"images_per_second_{fastest}"]
    out["speedup_fastest_one_thread_vs_plain"] = out["images_per_second"] / out["images_per_second_plain"]
    out["speedup_2_threads_vs_1_plain"] = out["images_per_second_plain_2_threads"] / out["images_per_second_plain"]
    return out


if __name__ == "__main__":
    for key, value in benchmark().items():
        print(f"{key}: {value:.3g}")
