"""Benchmark of the diffusion chapter: training step, batched sampling, and the speed-up of sampling
every prompt of a checkpoint in one batch over sampling them one prompt at a time."""
from __future__ import annotations

import time

import numpy as np
import torch

from lib.diffusion.data import Circles, make_dataset
from lib.diffusion.train import RunConfig, build_model


def _time(fn, repeat: int = 3) -> float:
    fn()
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat


def benchmark() -> dict[str, float]:
    torch.set_num_threads(1)
    torch.manual_seed(0)
    cfg = RunConfig(0.3, blocks=1, nudges=(0.1, 0.2, 0.3))
    model = build_model(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
    ds = make_dataset(cfg.dgp, 64)

    def step():
        loss = model.loss(ds.x[:64], ds.cond[:64])
        opt.zero_grad()
        loss.backward()
        opt.step()

    prompts = torch.from_numpy(np.repeat(cfg.prompts(), 32, axis=0))   # 4 prompts x 32 samples
    sample = lambda c: model.sample(c, cfg.resolution, 5, torch.Generator().manual_seed(0))
    batched = _time(lambda: sample(prompts), repeat=1)
    looped = _time(lambda: [sample(c) for c in prompts.split(32)], repeat=1)
    render = _time(lambda: make_dataset(Circles(0.3), 512), repeat=3)
    return {
        "train_step_s": _time(step, repeat=3),
        "sample_128_images_5_steps_s": batched,
        "batched_sampling_speedup": looped / batched,
        "render_1536_images_s": render,
    }


if __name__ == "__main__":
    print(benchmark())
