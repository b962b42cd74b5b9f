"""Benchmark of the batched GenEFT trainer at Table 3's width (3 x 50, concat, n = 30), per thread.

- Throughput: model-steps per second on a 64-model grid (no early stop, so every model runs every
  step), and its effective GFLOP/s: the nominal count of a full forward and backward pass over all
  n^2 pairs (3 x the forward's 2 n^2 sum(fan_in fan_out)), the count behind the issue's 12 GFLOP/s
  for the autograd trainer. The trainer does fewer (no gradient through test pairs), so this is
  what a naive implementation would need to run as fast. Test pairs evaluated every step (exact
  Table 4 crossings); `..._test_every_10` evaluates them every 10th step (resolution 10 steps).
- `own_shapes_matmul_gflops`, `trainer_fraction_of_own_shapes_matmul`: the trainer's real ceiling, the
  batched matmuls of its own layer shapes alone (`own_shapes_gflops`), and the trainer's rate over it.
- `trainer_fraction_of_matmul_peak`: that rate over a 2048 x 2048 float32 matmul timed in the
  same process on the same threads.
- `trainer_real_gflops`, `trainer_real_fraction_of_matmul_peak`: the arithmetic the trainer really
  does: the forward over all n^2 pairs (test accuracy) but the backward (2 x the forward) over the
  training pairs only, (1 + 2 f) / 3 of the nominal count at training fraction f (0.83 at f = 3/4);
  `adam_loop_real_fraction_of_matmul_peak` the same for the loop of single models (its loss and
  backward also cover the training pairs only).
- `speedup_vs_autograd_batched`: against the same stacked matmuls through autograd and
  torch.optim.Adam (what the trainer was before), same grid, same steps.
- `speedup_vs_adam_loop`: a Fig. 5 grid with early stopping, against a loop of single
  nn.Module models trained with torch.optim.Adam that stop once decided, timed in the same call;
  `..._without_early_stop`: against the same loop run to the end (how the public grokking code
  trains); `adam_loop_fraction_of_matmul_peak`: that loop's nominal rate over the matmul's, the
  ceiling on any speed-up over it (a loop at a fraction f of the peak cannot be beaten by more than
  1 / f without doing less arithmetic).
"""

from __future__ import annotations

import time

import numpy as np
import torch
import torch.nn.functional as F

from lib.book.commands.bench import matmul_gflops
from lib.geneft.evidence import nominal_flops
from lib.geneft.network import init_stack, logits
from lib.geneft.relations import relation_matrix, split_masks
from lib.geneft.train import ACC_LEVEL, train_models

N, DEPTH, WIDTH, EMBED = 30, 3, 50, 2
FRACTION = 0.75
THROUGHPUT_MODELS, THROUGHPUT_STEPS = 64, 60
LOOP_STEPS = 300
LR_ENC, LR_DEC = 10.0 ** np.array([-2.5, -2.0, -1.5, -1.0]), 10.0 ** np.array([-3.0, -2.5, -2.0, -1.5])


def own_shapes_gflops(models: int, repeats: int = 3) -> float:
    """The trainer's own ceiling: the batched matmuls of one forward and backward pass of `models` Table-3
    decoders over all n^2 pairs, (models, n^2, fan_in) x (models, fan_in, fan_out) for every layer, timed
    as torch.bmm alone (no activations, loss or optimiser), best of `repeats`, GFLOP/s. Small and thin
    matrices (fan_in 4 or 50, fan_out 50 or 1) run far below the 2048 x 2048 peak; this rate is what the
    trainer's arithmetic can reach at best on the current threads."""
    sizes = [2 * EMBED] + [WIDTH] * DEPTH + [1]
    shapes = list(zip(sizes[:-1], sizes[1:]))
    x = [torch.randn(models, N * N, fan_in) for fan_in, _ in shapes]
    w = [torch.randn(models, fan_in, fan_out) for fan_in, fan_out in shapes]
    g = [torch.randn(models, N * N, fan_out) for _, fan_out in shapes]

    def one_pass():
        for xi, wi, gi in zip(x, w, g):
            torch.bmm(xi, wi)  # forward
            torch.bmm(gi, wi.transpose(1, 2))  # gradient of the input
            torch.bmm(xi.transpose(1, 2), gi)  # gradient of the weights

    one_pass()
    best = min(_timed(one_pass) for _ in range(repeats))
    flops = 3 * 2 * models * N * N * sum(a * b for a, b in shapes)
    return flops / best / 1e9


def _autograd_batched(labels: np.ndarray, masks: np.ndarray, steps: int) -> None:
    """The same stacked forward (`logits`) through autograd with torch.optim.Adam (foreach)."""
    stack = init_stack(
        np.arange(len(masks)), N, mode="concat", depth=DEPTH, width=WIDTH, embed_dim=EMBED, init_scale=1.0
    )
    opt = torch.optim.Adam(stack.tensors(), lr=1e-3, foreach=True)
    y = torch.tensor(labels.reshape(1, -1), dtype=torch.float32)
    train = torch.tensor(masks.reshape(len(masks), -1))
    for _ in range(steps):
        z = logits(stack, "concat")
        loss = (F.binary_cross_entropy_with_logits(z, y.expand_as(z), reduction="none") * train).sum(1) / train.sum(1)
        opt.zero_grad()
        loss.sum().backward()
        opt.step()
        with torch.no_grad():
            correct = (z > 0) == y.bool()
            (correct & train).sum(1), (correct & ~train).sum(1)


def _single_model(
    labels: torch.Tensor, mask: torch.Tensor, lr_enc: float, lr_dec: float, seed: int, stop: bool = True
) -> None:
    """One model the usual way: nn.Embedding + nn.Sequential decoder, Adam with two parameter groups,
    train and test accuracy every step; with `stop`, stop once both exceed 0.9 (the phase is decided)."""
    torch.manual_seed(seed)
    embed = torch.nn.Embedding(N, EMBED)
    layers = [torch.nn.Linear(2 * EMBED, WIDTH), torch.nn.Tanh()]
    for _ in range(DEPTH - 1):
        layers += [torch.nn.Linear(WIDTH, WIDTH), torch.nn.Tanh()]
    decoder = torch.nn.Sequential(*layers, torch.nn.Linear(WIDTH, 1))
    opt = torch.optim.Adam(
        [{"params": embed.parameters(), "lr": lr_enc}, {"params": decoder.parameters(), "lr": lr_dec}]
    )
    i, j = torch.meshgrid(torch.arange(N), torch.arange(N), indexing="ij")
    pairs = torch.stack([i.ravel(), j.ravel()], 1)
    for _ in range(LOOP_STEPS):
        z = decoder(embed(pairs).reshape(-1, 2 * EMBED)).squeeze(-1)
        with torch.no_grad():
            correct = (z > 0) == labels.bool()
            if stop and correct[mask].float().mean() > ACC_LEVEL and correct[~mask].float().mean() > ACC_LEVEL:
                return
        loss = F.binary_cross_entropy_with_logits(z[mask], labels[mask])
        opt.zero_grad()
        loss.backward()
        opt.step()


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def benchmark() -> dict[str, float]:
    torch.set_num_threads(1)
    labels = relation_matrix("mod3", N)
    net = {"mode": "concat", "depth": DEPTH, "width": WIDTH, "embed_dim": EMBED}

    # throughput: every model every step
    masks = np.repeat(split_masks(N, [FRACTION], [0]), THROUGHPUT_MODELS, 0)
    lr_grid = np.resize(np.outer(LR_ENC, np.ones_like(LR_DEC)).ravel(), THROUGHPUT_MODELS)
    peak = matmul_gflops()
    run = lambda test_every: _timed(
        lambda: train_models(
            labels,
            masks,
            **net,
            lr_enc=lr_grid,
            lr_dec=1e-3,
            steps=THROUGHPUT_STEPS,
            early_stop=False,
            test_every=test_every,
        )
    )
    trainer, trainer_test10 = run(1), run(10)
    autograd = _timed(lambda: _autograd_batched(labels, masks, THROUGHPUT_STEPS))
    peak = max(peak, matmul_gflops())
    own = own_shapes_gflops(THROUGHPUT_MODELS)
    model_steps = THROUGHPUT_MODELS * (THROUGHPUT_STEPS + 1)
    rate = model_steps / trainer
    gflops = rate * nominal_flops(N, **net) / 1e9
    real_share = (1 + 2 * FRACTION) / 3  # forward over all pairs, backward (2 x forward) over the training pairs
    real_gflops = gflops * real_share

    # a Fig. 5 grid with early stopping against a loop of single models
    E, D = np.meshgrid(LR_ENC, LR_DEC, indexing="ij")
    grid_masks = np.repeat(split_masks(N, [FRACTION], [0]), E.size, 0)
    res = None

    def batched_grid():
        nonlocal res
        res = train_models(
            labels, grid_masks, **net, lr_enc=E.ravel(), lr_dec=D.ravel(), steps=LOOP_STEPS, seeds=np.zeros(E.size, int)
        )

    batched = _timed(batched_grid)
    y, mask = torch.tensor(labels.ravel(), dtype=torch.float32), torch.tensor(grid_masks[0].ravel())
    loop = _timed(lambda: [_single_model(y, mask, le, ld, 0) for le, ld in zip(E.ravel(), D.ravel())])
    loop_full = _timed(lambda: [_single_model(y, mask, le, ld, 0, stop=False) for le, ld in zip(E.ravel(), D.ravel())])
    return {
        "trainer_model_steps_per_s": rate,
        "trainer_effective_gflops": gflops,
        "matmul_gflops": peak,
        "trainer_fraction_of_matmul_peak": gflops / peak,
        "own_shapes_matmul_gflops": own,
        "trainer_fraction_of_own_shapes_matmul": gflops / own,
        "trainer_real_gflops": real_gflops,
        "trainer_real_fraction_of_matmul_peak": real_gflops / peak,
        "trainer_model_steps_per_s_test_every_10": model_steps / trainer_test10,
        "speedup_vs_autograd_batched": autograd / trainer,
        "speedup_vs_adam_loop": loop / batched,
        "speedup_vs_adam_loop_without_early_stop": loop_full / batched,
        "adam_loop_fraction_of_matmul_peak": E.size * LOOP_STEPS * nominal_flops(N, **net) / 1e9 / loop_full / peak,
        "adam_loop_real_fraction_of_matmul_peak": (
            real_share * E.size * LOOP_STEPS * nominal_flops(N, **net) / 1e9 / loop_full / peak
        ),
        "grid_model_steps_saved_by_early_stop": 1 - res.stopped_at.sum() / (E.size * LOOP_STEPS),
    }


if __name__ == "__main__":
    for k, v in benchmark().items():
        print(f"{k}: {v:.3g}")
