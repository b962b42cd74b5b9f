"""Learning-rate phase grids of GenEFT networks (Figs. 5, 6 and 8; Table 4).

`train_phase_grid` trains one network per (setting, seed) on one relation and one train/test
split, settings being any broadcastable arrays of encoder rate, decoder rate, decoder weight
decay and init scale, and classifies every run by Table 4 with the grokking threshold at a
fraction of the run (1% as the paper scales it: 10^3 steps of 10^5). The init scale is fixed
per call of the trainer, so the settings are grouped by it. `cell_counts` pools the seeds of a
cell into binomial counts for `lib.geneft.phases.fit_boundary`. `grid_from_runs` classifies
stored runs (the evidence shards of `lib.geneft.evidence`) the same way, `row_grid` reads the rows of Figs. 5
and 8 from their shards (`stack_seed_shards`) and `ratio_points` the points of Fig. 6 (`stack_block_shards`),
`with_rows` replaces rows of a grid by the same cells trained longer, and `evidence_mismatch` names the network
settings in which a live grid and a stored configuration differ (the live grid is compared with the evidence only
where none do).
"""

from __future__ import annotations

from collections import Counter
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


def train_phase_grid(
    relation: str,
    lr_enc,
    lr_dec,
    *,
    weight_decay=0.0,
    init_scale=1.0,
    seeds,
    n: int,
    train_fraction: float,
    split_seed: int,
    mode: str,
    depth: int,
    width: int,
    embed_dim: int,
    steps: int,
    threshold_fraction: float = 0.01,
    eval_every: int = 100,
    checkpoint: Path | None = None,
) -> PhaseGrid:
    """Train len(seeds) networks per setting of the broadcast (lr_enc, lr_dec, weight_decay, init_scale).

    Every run uses the split `split_masks(n, [train_fraction], [split_seed])` (the seeds vary the
    initialisation); lib.geneft.train.train_models with early stopping (a run leaves once both
    first crossings are known, which fixes its phase). `checkpoint`: a file stem; each init
    scale's group is checkpointed at `<stem>_scale<s>.pt` and resumed from it.
    """
    from lib.geneft.train import train_models

    lr_enc, lr_dec, wd, scale = np.broadcast_arrays(
        *(np.asarray(v, float) for v in (lr_enc, lr_dec, weight_decay, init_scale))
    )
    seeds = np.asarray(seeds, dtype=np.int64)
    k, s = lr_enc.size, len(seeds)
    split = split_masks(n, [train_fraction], [split_seed])
    n_test = test_pairs(n, train_fraction, split_seed)
    rep = lambda v: np.repeat(v.ravel(), s)
    out = {key: np.empty(k * s, dtype) for key, dtype in (("test_acc", float), ("tr", int), ("te", int))}
    embed = np.empty((k * s, n, embed_dim), np.float32)
    for sc in np.unique(scale):
        pick = rep(scale) == sc
        res = train_models(
            relation_matrix(relation, n),
            np.repeat(split, pick.sum(), 0),
            mode=mode,
            depth=depth,
            width=width,
            embed_dim=embed_dim,
            lr_enc=rep(lr_enc)[pick],
            lr_dec=rep(lr_dec)[pick],
            weight_decay_dec=rep(wd)[pick],
            init_scale=float(sc),
            steps=steps,
            seeds=np.tile(seeds, k)[pick],
            eval_every=eval_every,
            checkpoint=None if checkpoint is None else Path(f"{checkpoint}_scale{sc:g}.pt"),
        )
        out["test_acc"][pick], out["tr"][pick], out["te"][pick] = res.test_acc, res.step_train_90, res.step_test_90
        embed[pick] = res.embed
    shape = lr_enc.shape + (s,)
    return grid_from_runs(
        out["tr"].reshape(shape),
        out["te"].reshape(shape),
        out["test_acc"].reshape(shape),
        embed.reshape(shape + (n, embed_dim)),
        n_test=n_test,
        steps=steps,
        threshold_fraction=threshold_fraction,
    )


def train_phase_grid_log10(relation: str, log10_lr_enc, log10_lr_dec, **options) -> PhaseGrid:
    """`train_phase_grid` on the grid of learning rates 10^x: encoder rates 10^`log10_lr_enc` along the first axis,
    decoder rates 10^`log10_lr_dec` along the second (`options`: its keyword arguments). Given by their
    exponents, the rates are the same numbers wherever the grid is asked for (a stored grid is found again)."""
    lr_enc, lr_dec = np.meshgrid(10.0 ** np.array(log10_lr_enc), 10.0 ** np.array(log10_lr_dec), indexing="ij")
    return train_phase_grid(relation, lr_enc, lr_dec, **options)


def grid_from_runs(
    step_train_90, step_test_90, test_acc, embed, *, n_test: int, steps: int, threshold_fraction: float = 0.01
) -> PhaseGrid:
    """A PhaseGrid from stored runs: Table 4 applied to the first 0.9 crossings (-1: never) with the
    grokking threshold at `threshold_fraction` of the `steps` the runs were trained for."""
    threshold = phases.table4_threshold(steps, threshold_fraction)
    tr, te = np.asarray(step_train_90, int), np.asarray(step_test_90, int)
    return PhaseGrid(
        phases.classify(tr, te, threshold),
        np.asarray(test_acc, float),
        tr,
        te,
        np.asarray(embed),
        int(n_test),
        threshold,
    )


def _keyed(shards, outer: str, inner: str, what: str) -> tuple[list[int], list[int], dict]:
    """The shards keyed by (`outer`, `inner`) of their keys (a shard without `inner` holds all of it: 0), the
    sorted outer and inner keys present; ValueError, starting with `what`, when a pair of them is missing."""
    by_key = {(int(sh.key[outer]), int(sh.key.get(inner, 0))): sh for sh in shards}
    outers, inners = sorted({o for o, _ in by_key}), sorted({i for _, i in by_key})
    missing = [(o, i) for o in outers for i in inners if (o, i) not in by_key]
    if not by_key or missing:
        raise ValueError(f"{what}: missing ({outer}, {inner}) {missing or 'all'}")
    return outers, inners, by_key


def stack_seed_shards(shards, names=("step_train_90", "step_test_90", "test_acc", "embed")) -> dict:
    """Arrays of one-seed shards (keys "row" and "seed", as `lib.geneft.evidence.phase_row_seed`
    stores them, each (settings, 1, ...)) as (rows, settings, seeds, ...), rows and seeds sorted; "row"
    and "seed" give the keys. A shard without a "seed" key holds every seed of its row (`phase_row`,
    `weight_decay_row`). ValueError when a (row, seed) of the rows and seeds present is missing."""
    rows, seeds, by_key = _keyed(shards, "row", "seed", "one-seed shards do not fill a grid")
    stacked = {
        name: np.stack([np.concatenate([by_key[r, s][name] for s in seeds], axis=1) for r in rows]) for name in names
    }
    return stacked | {"row": np.array(rows), "seed": np.array(seeds)}


def stack_block_shards(shards, names=("step_train_90", "step_test_90", "test_acc", "embed")) -> dict:
    """Arrays of seed-block shards of one init scale (keys "point" and "block", as
    `lib.geneft.evidence.ratio_point_block` stores them, each (1, seeds per block, ...)) as
    (points, seeds, ...), points and blocks sorted; "point" gives the keys. A shard without a "block" key
    holds every seed of its point (`ratio_point`, `ratio_point_gd`). ValueError when a (point, block) of
    the points and blocks present is missing."""
    points, blocks, by_key = _keyed(shards, "point", "block", "seed-block shards do not fill the points")
    stacked = {
        name: np.concatenate([np.concatenate([by_key[p, b][name] for b in blocks], axis=1) for p in points])
        for name in names
    }
    return stacked | {"point": np.array(points)}


def _classified(stacked: dict, config: dict, threshold_fraction: float) -> PhaseGrid:
    """Stacked shards (`stack_seed_shards`, `stack_block_shards`) classified by Table 4 (`grid_from_runs`) at the
    set's `config` (n, train_fraction, split_seed, steps), the grokking threshold at `threshold_fraction`."""
    return grid_from_runs(
        *(stacked[k] for k in ("step_train_90", "step_test_90", "test_acc", "embed")),
        n_test=test_pairs(config["n"], config["train_fraction"], config["split_seed"]),
        steps=config["steps"],
        threshold_fraction=threshold_fraction,
    )


def ratio_points(shards, config: dict, threshold_fraction: float) -> tuple[PhaseGrid, np.ndarray]:
    """The paper's Fig. 6 points of one init scale from its point or seed-block shards (`stack_block_shards`):
    the runs classified by Table 4 as a (points, seeds) PhaseGrid, and each point's learning-rate ratio
    eta_dec / eta_enc = 10**config["log10_ratios"][point]. `config`: the set's (n, train_fraction,
    split_seed, steps, log10_ratios); the grokking threshold at `threshold_fraction` of its steps."""
    stacked = stack_block_shards(shards)
    ratios = 10.0 ** np.asarray(config["log10_ratios"], float)[stacked["point"]]
    return _classified(stacked, config, threshold_fraction), ratios


def row_grid(shards, config: dict, threshold_fraction: float) -> tuple[PhaseGrid, np.ndarray]:
    """A grid of Figs. 5 or 8 from its row shards (one encoder rate or one weight decay per row; one-seed or
    whole-row shards, `stack_seed_shards`): the runs classified by Table 4 as a (rows, decoder rates, seeds)
    PhaseGrid, and the rows' indices (into config["log10_lr_enc"] or config["weight_decays"]), sorted.
    `config`: the set's (n, train_fraction, split_seed, steps); the grokking threshold at `threshold_fraction`
    of its steps."""
    stacked = stack_seed_shards(shards)
    return _classified(stacked, config, threshold_fraction), stacked["row"]


def with_rows(grid: PhaseGrid, positions, other: PhaseGrid) -> PhaseGrid:
    """`grid` with its rows `positions` (first axis) replaced by the rows of `other`: the same cells and
    seeds trained for another number of steps (the Fig. 5 rows at the paper's 1e5 steps). Each run keeps
    the phase Table 4 gave it at its own run length; `threshold` stays `grid`'s (other's is other.threshold)."""
    positions = np.asarray(positions, int)
    if other.phase.shape[0] != len(positions) or other.phase.shape[1:] != grid.phase.shape[1:]:
        raise ValueError(
            f"rows of shape {other.phase.shape} cannot replace rows {positions.tolist()} of {grid.phase.shape}"
        )
    if other.n_test != grid.n_test:
        raise ValueError("the replacing rows use another split (number of test pairs differs)")

    def put(a, b):
        out = np.array(a, copy=True)
        out[positions] = b
        return out

    return PhaseGrid(
        put(grid.phase, other.phase),
        put(grid.test_acc, other.test_acc),
        put(grid.step_train_90, other.step_train_90),
        put(grid.step_test_90, other.step_test_90),
        put(grid.embed, other.embed),
        grid.n_test,
        grid.threshold,
    )


@dataclass(frozen=True)
class RerunComparison:
    """Table 4 phases of rerun shards beside those of the stored shards with the same keys (runs
    flattened in one order), with each run's setting: its index along the shards' first axis (for
    `phase_row` shards, the decoder rate in `config["log10_lr_dec"]`)."""

    stored: np.ndarray
    rerun: np.ndarray
    setting: np.ndarray

    @property
    def agree(self) -> np.ndarray:
        return self.stored == self.rerun

    def changes(self) -> dict[tuple[str, str], int]:
        """Runs whose phase changed, counted by (stored phase, rerun phase) in words (Table 4's names)."""
        changed = zip(self.stored[~self.agree].tolist(), self.rerun[~self.agree].tolist())
        return dict(Counter((phases.PHASES[a], phases.PHASES[b]) for a, b in changed))

    def changed_settings(self) -> dict[int, int]:
        """Runs whose phase changed, counted by their setting (index along the shards' first axis), sorted."""
        return dict(sorted(Counter(self.setting[~self.agree].tolist()).items()))

    def agreement_text(self) -> str:
        """The comparison as a clause: "the phases agree in 155 of 162 runs (the others changed phase: from
        confusion to memorization, 3; ...)"."""
        changes = "; ".join(f"from {a} to {b}, {k}" for (a, b), k in self.changes().items())
        return f"the phases agree in {int(self.agree.sum())} of {self.agree.size} runs" + (
            f" (the others changed phase: {changes})" if changes else ""
        )


def compare_rerun(stored, rerun, *, n_test: int, steps: int, threshold_fraction: float = 0.01) -> RerunComparison:
    """Each rerun shard's runs against the stored shard of the same key, both classified by Table 4
    (`grid_from_runs`, the same threshold). Shards: objects with `.key` and `[name]`
    (as `lib.book.evidence.load` returns them), computed by the same function, configuration and seeds.
    KeyError when a rerun shard has no stored twin; ValueError when their runs differ in shape."""
    by_key = {tuple(sorted(sh.key.items())): sh for sh in stored}
    twins = [(by_key[tuple(sorted(sh.key.items()))], sh) for sh in rerun]

    def table4(sh) -> np.ndarray:
        grid = grid_from_runs(
            sh["step_train_90"],
            sh["step_test_90"],
            sh["test_acc"],
            sh["embed"],
            n_test=n_test,
            steps=steps,
            threshold_fraction=threshold_fraction,
        )
        return grid.phase.ravel()

    left, right = [table4(a) for a, _ in twins], [table4(b) for _, b in twins]
    if [x.shape for x in left] != [x.shape for x in right]:
        raise ValueError("a rerun shard holds other runs than its stored twin")
    return RerunComparison(
        np.concatenate(left) if left else np.zeros(0, int),
        np.concatenate(right) if right else np.zeros(0, int),
        np.concatenate([np.indices(np.shape(b["step_train_90"]))[0].ravel() for _, b in twins])
        if twins
        else np.zeros(0, int),
    )


def test_pairs(n: int, train_fraction: float, split_seed: int) -> int:
    """Test pairs of the split every grid run uses (the denominator of its test accuracy)."""
    return int((~split_masks(n, [train_fraction], [split_seed])[0]).sum())


def lookup_runs(
    config: dict,
    shards,
    log10_lr_enc,
    log10_lr_dec,
    seeds,
    names=("step_train_90", "step_test_90", "test_acc", "embed"),
) -> dict | None:
    """The stored runs of the cells (log10_lr_enc x log10_lr_dec) and seeds of a live grid, arrays
    (len(enc), len(dec), len(seeds), ...), from `phase_row` shards of one relation (their key "row"
    indexes config["log10_lr_enc"]); None when a cell or a seed is not stored."""
    enc, dec = np.asarray(config["log10_lr_enc"], float), np.asarray(config["log10_lr_dec"], float)
    stored_seeds = list(np.arange(int(config["seeds"])) + int(config.get("seed_offset", 0)))
    by_row = {int(sh.key["row"]): sh for sh in shards}
    rows = [next((i for i, v in enumerate(enc) if np.isclose(v, x)), None) for x in log10_lr_enc]
    cols = [next((j for j, v in enumerate(dec) if np.isclose(v, y)), None) for y in log10_lr_dec]
    if None in rows or None in cols or any(i not in by_row for i in rows) or any(s not in stored_seeds for s in seeds):
        return None
    pick = [stored_seeds.index(s) for s in seeds]
    return {name: np.stack([by_row[i][name][cols][:, pick] for i in rows]) for name in names}


NETWORK_SETTINGS = ("n", "train_fraction", "split_seed", "mode", "depth", "width", "embed_dim", "init_scale", "steps")


def evidence_mismatch(config: dict, live: dict) -> list[str]:
    """The network settings (NETWORK_SETTINGS) in which a stored configuration and a live grid differ."""

    def same(a, b) -> bool:
        numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b))
        return bool(np.isclose(a, b, rtol=1e-9, atol=0)) if numbers else a == b

    return [k for k in NETWORK_SETTINGS if k in live and not (k in config and same(config[k], live[k]))]


def cell_counts(grid: PhaseGrid, exclude_confusion: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(generalizing runs, runs) per setting: the seeds of a cell pooled (binomial counts).

    `exclude_confusion`: count only runs that fit their training pairs (Table 4's generalization,
    grokking, memorization), for the generalization/memorization boundary of Figs. 5 and 8; a run in
    confusion is neither side of it."""
    gen = grid.generalized
    runs = np.full(gen.shape[:-1], gen.shape[-1])
    if exclude_confusion:
        runs = runs - (grid.phase == phases.CONFUSION).sum(-1)
    return gen.sum(-1), runs


def majority_phase(grid: PhaseGrid) -> np.ndarray:
    """The most common phase of each cell (ties to the lower index, Table 4's order), for drawing."""
    return np.apply_along_axis(lambda v: np.bincount(v, minlength=len(phases.PHASES)).argmax(), -1, grid.phase)
