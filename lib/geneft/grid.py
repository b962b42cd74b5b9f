"""Learning-rate phase grids of GenEFT networks (Figs. 5, 6 and 8; Table 4).

`train_phase_grid` trains one network per (setting, seed) on one relation and one train/test
split, settings being any broadcastable arrays of encoder rate, decoder rate, decoder weight
decay and init scale, and classifies every run by Table 4 with the grokking threshold at a
fraction of the run (1% as the paper scales it: 10^3 steps of 10^5). The init scale is fixed
per call of the trainer, so the settings are grouped by it. `cell_counts` pools the seeds of a
cell into binomial counts for `lib.geneft.phases.fit_boundary`.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lib.geneft import phases
from lib.geneft.relations import relation_matrix, split_masks

# ----------------------------------------------------------------------------------------------
# A grid of runs
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PhaseGrid:
    """Outcome per (setting..., seed): `phase` (Table 4 index), final `test_acc`, first-crossing
    steps, final embeddings `embed` (setting..., seed, n, d); `n_test` test pairs per run and the
    grokking `threshold` in steps. `borderline`: runs within 2 test pairs of Table 4's 0.9."""

    phase: np.ndarray
    test_acc: np.ndarray
    step_train_90: np.ndarray
    step_test_90: np.ndarray
    embed: np.ndarray
    n_test: int
    threshold: int

    @property
    def generalized(self) -> np.ndarray:
        return phases.generalizes(self.phase)

    @property
    def borderline(self) -> np.ndarray:
        return phases.borderline(self.phase, self.test_acc, self.n_test)


def train_phase_grid(relation: str, lr_enc, lr_dec, *, weight_decay=0.0, init_scale=1.0, seeds, n: int,
                     train_fraction: float, split_seed: int, mode: str, depth: int, width: int, embed_dim: int,
                     steps: int, threshold_fraction: float = 0.01, checkpoint: Path | None = None) -> PhaseGrid:
    """Train len(seeds) networks per setting of the broadcast (lr_enc, lr_dec, weight_decay, init_scale).

    Every run uses the split `split_masks(n, [train_fraction], [split_seed])` (the seeds vary the
    initialisation); lib.geneft.train.train_models with early stopping (a run leaves once both
    first crossings are known, which fixes its phase). `checkpoint`: a file stem; each init
    scale's group is checkpointed at `<stem>_scale<s>.pt` and resumed from it.
    """
    from lib.geneft.train import train_models

    lr_enc, lr_dec, wd, scale = np.broadcast_arrays(*(np.asarray(v, float) for v in (lr_enc, lr_dec, weight_decay,
                                                                                          init_scale)))
    seeds = np.asarray(seeds, dtype=np.int64)
    k, s = lr_enc.size, len(seeds)
    threshold = phases.table4_threshold(steps, threshold_fraction)
    split = split_masks(n, [train_fraction], [split_seed])
    n_test = int((~split[0]).sum())
    rep = lambda v: np.repeat(v.ravel(), s)
    out = {key: np.empty(k * s, dtype) for key, dtype in (("phase", int), ("test_acc", float), ("tr", int), ("te", int))}
    embed = np.empty((k * s, n, embed_dim), np.float32)
    for sc in np.unique(scale):
        pick = rep(scale) == sc
        res = train_models(relation_matrix(relation, n), np.repeat(split, pick.sum(), 0), mode=mode, depth=depth,
                           width=width, embed_dim=embed_dim, lr_enc=rep(lr_enc)[pick], lr_dec=rep(lr_dec)[pick],
                           weight_decay_dec=rep(wd)[pick], init_scale=float(sc), steps=steps,
                           seeds=np.tile(seeds, k)[pick], eval_every=max(1, steps // 50),
                           checkpoint=None if checkpoint is None else Path(f"{checkpoint}_scale{sc:g}.pt"))
        out["phase"][pick] = phases.classify(res.step_train_90, res.step_test_90, threshold)
        out["test_acc"][pick], out["tr"][pick], out["te"][pick] = res.test_acc, res.step_train_90, res.step_test_90
        embed[pick] = res.embed
    shape = lr_enc.shape + (s,)
    return PhaseGrid(out["phase"].reshape(shape), out["test_acc"].reshape(shape), out["tr"].reshape(shape),
                     out["te"].reshape(shape), embed.reshape(shape + (n, embed_dim)), n_test, threshold)


def cell_counts(grid: PhaseGrid) -> tuple[np.ndarray, np.ndarray]:
    """(generalizing runs, runs) per setting: the seeds of a cell pooled (binomial counts)."""
    gen = grid.generalized
    return gen.sum(-1), np.full(gen.shape[:-1], gen.shape[-1])


def majority_phase(grid: PhaseGrid) -> np.ndarray:
    """The most common phase of each cell (ties to the lower index, Table 4's order), for drawing."""
    return np.apply_along_axis(lambda v: np.bincount(v, minlength=len(phases.PHASES)).argmax(), -1, grid.phase)
