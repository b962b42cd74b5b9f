"""Benchmark of the diffusion chapter: training throughput (images per second) at the evidence
configuration, for the plain model and the variants tried (channels-last memory format,
torch.compile, two threads), measured in the same call, in interleaved rounds (the median round
per variant), so that a load that changes during the call hits every variant alike. Also the unit
costs behind the choice of image size and the CPU set's cost model (CPU seconds, one thread):
training per image at 16, 24 and 32 pixels, sampling per image and step, a classifier step.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import replace

import torch

from lib.diffusion.classifier import train_classifier
from lib.diffusion.configs import CPU, shard_cpu_seconds
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
        runs[name].step()  # warm-up (compilation for the compiled variants)
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
    return out | unit_costs()


def unit_costs(steps: int = 3) -> dict[str, float]:
    """CPU milliseconds per training image at 16, 24, 32 px; per image and sampling step and per
    classifier step at the evidence size; and the CPU set's estimated minutes per shard."""
    torch.set_num_threads(1)
    out = {}
    base = run_config(CPU, CPU["contrasts"][0])
    for res in (16, 24, 32):
        run = Run(replace(base, resolution=res), run_seeds(0, 0))
        run.step()
        start = time.process_time()
        for _ in range(steps):
            run.step()
        out[f"train_ms_per_image_{res}px"] = 1e3 * (time.process_time() - start) / (steps * base.batch_size)
    run = Run(base, run_seeds(0, 0))
    start = time.process_time()
    run.sample(base.prompts(), 4)
    out["sample_ms_per_image_step"] = (
        1e3 * (time.process_time() - start) / (4 * len(base.prompts()) * base.sampler_steps)
    )
    start = time.process_time()
    train_classifier(base.dgp, 10, 0)
    out["classifier_s_per_step"] = (time.process_time() - start) / 10
    out["cpu_shard_minutes_estimate"] = (
        shard_cpu_seconds(
            CPU,
            out[f"train_ms_per_image_{base.resolution}px"],
            out["sample_ms_per_image_step"],
            out["classifier_s_per_step"],
        )
        / 60
    )
    return out


if __name__ == "__main__":
    for key, value in benchmark().items():
        print(f"{key}: {value:.3g}")
