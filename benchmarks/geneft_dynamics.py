"""Benchmark of the batched GenEFT trainer: one Fig. 5 grid, batched with early stopping vs a loop of
single models trained with torch.optim.Adam (how the public grokking code trains), timed in one call."""
from __future__ import annotations

import time

import numpy as np
import torch

from lib.geneft.relations import relation_matrix, split_masks
from lib.geneft.train import train_models

N, STEPS = 30, 400
LR_ENC, LR_DEC = 10.0 ** np.array([-2.5, -2.0]), 10.0 ** np.array([-3.0, -2.5, -2.0, -1.5])


def _single_model(labels: torch.Tensor, mask: torch.Tensor, lr_enc: float, lr_dec: float, seed: int) -> None:
    """One model the usual way: nn.Embedding + nn.Sequential decoder, Adam with two parameter groups."""
    torch.manual_seed(seed)
    embed = torch.nn.Embedding(N, 2)
    decoder = torch.nn.Sequential(torch.nn.Linear(4, 50), torch.nn.Tanh(), torch.nn.Linear(50, 50), torch.nn.Tanh(),
                                  torch.nn.Linear(50, 50), torch.nn.Tanh(), torch.nn.Linear(50, 1))
    opt = torch.optim.Adam([{"params": embed.parameters(), "lr": lr_enc}, {"params": decoder.parameters(), "lr": lr_dec}])
    i, j = torch.meshgrid(torch.arange(N), torch.arange(N), indexing="ij")
    pairs = torch.stack([i.ravel(), j.ravel()], 1)
    for _ in range(STEPS):
        z = decoder(embed(pairs).reshape(-1, 4)).squeeze(-1)
        loss = torch.nn.functional.binary_cross_entropy_with_logits(z[mask], labels[mask])
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():  # the accuracies the phase criteria need, every step
            ((z > 0) == labels.bool())[~mask].float().mean()


def benchmark() -> dict[str, float]:
    torch.set_num_threads(1)
    labels_np = relation_matrix("mod3", N)
    E, D = np.meshgrid(LR_ENC, LR_DEC, indexing="ij")
    masks = np.repeat(split_masks(N, [0.75], [0]), E.size, 0)

    t0 = time.perf_counter()
    res = train_models(labels_np, masks, lr_enc=E.ravel(), lr_dec=D.ravel(), steps=STEPS, seeds=np.zeros(E.size, int))
    batched = time.perf_counter() - t0

    labels, mask = torch.tensor(labels_np.ravel(), dtype=torch.float32), torch.tensor(masks[0].ravel())
    t0 = time.perf_counter()
    for le, ld in zip(E.ravel(), D.ravel()):
        _single_model(labels, mask, le, ld, 0)
    loop = time.perf_counter() - t0
    return {"models": float(E.size), "steps": float(STEPS), "batched_early_stop_s": batched, "adam_loop_s": loop,
            "speedup": loop / batched, "model_steps_saved_by_early_stop": 1 - res.stopped_at.sum() / (E.size * STEPS)}


if __name__ == "__main__":
    for k, v in benchmark().items():
        print(f"{k}: {v:.3g}")
