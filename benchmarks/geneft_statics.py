"""Benchmark of the chapter geneft_statics: the batched trainer (one stack of models, as Fig. 3
trains them) against the same models trained one at a time."""

from __future__ import annotations

import time

import numpy as np
import torch

from lib.geneft.relations import relation_matrix, split_masks
from lib.geneft.train import train_models

N, STEPS = 30, 200
FRACTIONS = [0.05, 0.1, 0.2, 0.3, 0.45, 0.6, 0.75, 0.9]


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def benchmark() -> dict[str, float]:
    torch.set_num_threads(1)
    labels = relation_matrix("mod3", N)
    masks = split_masks(N, FRACTIONS, [0, 1])
    seeds = np.arange(len(masks))
    kw = dict(mode="concat", depth=1, width=10, embed_dim=2, lr_enc=1e-2, lr_dec=1e-2, steps=STEPS, early_stop=False)
    batched = _timed(lambda: train_models(labels, masks, seeds=seeds, **kw))
    single = _timed(
        lambda: [train_models(labels, masks[i : i + 1], seeds=seeds[i : i + 1], **kw) for i in range(len(masks))]
    )
    model_steps = len(masks) * STEPS
    return {
        "train_model_steps_per_s_batched": model_steps / batched,
        "train_model_steps_per_s_one_by_one": model_steps / single,
        "train_batched_speedup": single / batched,
    }
