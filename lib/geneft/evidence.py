"""Evidence shards of the GenEFT chapters: grids of trained networks split across processes.

Each function below is a shard function of the evidence tier (`lib.book.evidence`):
`f(config, shard, checkpoint=None) -> dict[str, np.ndarray]`, deterministic given (config,
shard), using the threads torch is given, resuming from `checkpoint` (the trainer's own atomic
checkpoint, keyed by its inputs and code) when a long shard is interrupted. Arrays are compact:
float32 accuracies and embeddings, int32 steps.

- `phase_row`       Fig. 5: one relation, one encoder rate (a row of the (eta_enc, eta_dec) grid),
                    every decoder rate x seeds.
- `weight_decay_row` Fig. 8: one decoder weight decay at the given encoder rate, every decoder
                    rate x seeds.
- `ratio_point`     Fig. 6: one learning-rate ratio eta_dec / eta_enc at one init scale, many seeds
                    (the probability of generalization per point).
- `phase_row_seed`, `weight_decay_row_seed`, `weight_decay_relation_row_seed`
                    the same at the paper's 1e5 steps, one initialisation per shard (a shard of every
                    seed would take hours; one seed's row takes minutes and resumes from its checkpoint);
                    the last reads the relation from the shard, so that one set holds Fig. 8b and 8c.
- `ratio_point_block` Fig. 6 at 1e5 steps: `ratio_point` for one block of consecutive seeds.
- `ratio_point_gd`  Fig. 6 under the dynamics eq. (12) is derived for: `ratio_point` with plain
                    full-batch gradient descent (`lib.geneft.train.train_models_gd`) instead of AdamW,
                    at a fixed decoder rate (the one that bounds a stable step), eta_enc = eta_dec / ratio.
- `ratio_point_gd_block` the same at 1e5 steps: `ratio_point_gd` for one block of consecutive seeds.
- `phase_row_to_end` Fig. 5 / Theorem 2: `phase_row` without the early stop, so that every run's
                    final embeddings (the repon positions) are read at the same step, the end of the run.
- `network_curve`   Fig. 3 / G-3 and Fig. 7 / G-7: one decoder (mode, depth, width, embedding
                    dimension) on one relation, every training fraction x seeds; accuracy over all
                    pairs, train and test.

The dynamics shards return the first steps at which train and test accuracy exceed 0.9 (the
train step exact, the test step exact with config "test_every" = 1, else to that resolution), so
the chapter classifies them by Table 4 at the threshold it states; final accuracies and embeddings (the repon positions, for the collapse analysis).
Seeds vary the initialisation; the split is `split_masks(n, [train_fraction], [split_seed])` for
the dynamics shards (as in `lib.geneft.grid`) and varies with the seed for the statics curves.

Cost: `model_step_seconds` models the trainer's measured one-thread rate per architecture (this
machine's Zen 3 core); `shard_minutes` bounds a shard by every model running every step.
This module imports torch only inside the shard functions, so a declaration can import it.
"""

from __future__ import annotations

import itertools
from functools import partial
from pathlib import Path

import numpy as np

from lib.geneft.relations import relation_matrix, split_masks

# One-thread seconds per model-step = OVERHEAD + PER_MAC n^2 MACs + PER_ACTIVATION n^2 width depth,
# fitted to the trainer's measured rates over eight decoders (depth 0-6, width 10-200, d 2-8) and
# scaled so that Table 3's network (3 x 50, concat, n = 30) costs what it costs with every pair
# evaluated every step at training fraction 0.75 (about 900 model-steps/s; measured under the
# load of other jobs, so an upper bound): fewer training pairs or `test_every` > 1 cost less.
OVERHEAD_S = 8e-5
PER_MAC_S = 1.0e-10
PER_ACTIVATION_S = 4.2e-9

# ----------------------------------------------------------------------------------------------
# Cost model
# ----------------------------------------------------------------------------------------------


def _dims(mode: str, depth: int, width: int, embed_dim: int) -> list[int]:
    return [2 * embed_dim if mode == "concat" else embed_dim, *[width] * depth, 1]


def nominal_flops(n: int, mode: str, depth: int, width: int, embed_dim: int) -> float:
    """Forward and backward over all n^2 pairs of one model for one step: 3 x 2 n^2 sum(fan_in fan_out)."""
    return 6.0 * n * n * sum(a * b for a, b in itertools.pairwise(_dims(mode, depth, width, embed_dim)))


def model_step_seconds(n: int = 30, mode: str = "concat", depth: int = 3, width: int = 50, embed_dim: int = 2) -> float:
    """One-thread seconds per model-step of the trainer (see the constants above)."""
    macs = sum(a * b for a, b in itertools.pairwise(_dims(mode, depth, width, embed_dim)))
    return OVERHEAD_S + PER_MAC_S * n * n * macs + PER_ACTIVATION_S * n * n * width * depth


def shard_minutes(models: int, steps: int, **network) -> float:
    """Upper bound of a shard's one-thread minutes: every model runs every step (no early stop)."""
    return models * (steps + 1) * model_step_seconds(**network) / 60.0


# ----------------------------------------------------------------------------------------------
# Dynamics: phase grids (Figs. 5, 6, 8)
# ----------------------------------------------------------------------------------------------


def _network(config: dict) -> dict:
    return {k: config[k] for k in ("mode", "depth", "width", "embed_dim")}


def _optional_training(config: dict) -> dict:
    """The trainer's decoder initialisation and decay form where the config names them (absent: the
    trainer's defaults, PyTorch's uniform decoder and AdamW's decoupled decay), so that a set declared
    before these keys existed keeps its configuration and its results."""
    return {k: str(config[k]) for k in ("decoder_init", "decay_form") if k in config}


def _fixed_split_runs(config: dict, relation: str, init_scale: float, train, **rates) -> dict[str, np.ndarray]:
    """One model per (setting, seed) on the config's fixed split `split_masks(n, [train_fraction], [split_seed])`,
    trained by `train(labels, masks, init_scale=, seeds=, **rates)`: the per-setting `rates` (lr_enc, lr_dec
    [, weight_decay_dec]) broadcast together, each setting repeated over the seeds. Arrays (settings, seeds)."""
    names = list(rates)
    values = np.broadcast_arrays(*(np.atleast_1d(np.asarray(rates[name], float)) for name in names))
    seeds = np.arange(int(config["seeds"])) + int(config.get("seed_offset", 0))
    k, s, n = values[0].size, len(seeds), int(config["n"])
    masks = np.repeat(split_masks(n, [config["train_fraction"]], [config["split_seed"]]), k * s, 0)
    res = train(
        relation_matrix(relation, n),
        masks,
        init_scale=float(init_scale),
        seeds=np.tile(seeds, k),
        **{name: np.repeat(v.ravel(), s) for name, v in zip(names, values, strict=True)},  # setting-major
    )
    shape = (k, s)
    return {
        "step_train_90": res.step_train_90.astype(np.int32).reshape(shape),
        "step_test_90": res.step_test_90.astype(np.int32).reshape(shape),
        "train_acc": res.train_acc.astype(np.float32).reshape(shape),
        "test_acc": res.test_acc.astype(np.float32).reshape(shape),
        "stopped_at": res.stopped_at.astype(np.int32).reshape(shape),
        "embed": res.embed.astype(np.float32).reshape(shape + res.embed.shape[1:]),
        "seeds": seeds.astype(np.int32),
    }


def _adamw(config: dict, checkpoint: Path | None, early_stop: bool = True):
    """The AdamW trainer (`lib.geneft.train.train_models`) with the config's network, steps and evaluations,
    resuming from `checkpoint`; with `early_stop`, a run leaves once its phase is decided."""
    from lib.geneft.train import train_models

    return partial(
        train_models,
        **_network(config),
        steps=int(config["steps"]),
        eval_every=int(config["eval_every"]),
        test_every=int(config.get("test_every", 1)),
        early_stop=early_stop,
        checkpoint=None if checkpoint is None else Path(checkpoint) / "train.pt",
        checkpoint_every=int(config.get("checkpoint_every", 1000)),
        **_optional_training(config),
    )


def _one_seed(config: dict, seed: int) -> dict:
    """The set's config restricted to its initialisation `seed` (of config["seeds"]): a shard of one seed."""
    if not 0 <= int(seed) < int(config["seeds"]):
        raise ValueError(f"shard seed {seed} outside the set's {config['seeds']} seeds")
    return {**config, "seeds": 1, "seed_offset": int(config.get("seed_offset", 0)) + int(seed)}


def phase_row(config: dict, shard: dict, checkpoint: Path | None = None) -> dict[str, np.ndarray]:
    """Fig. 5, shard {"relation": r, "row": i}: eta_enc = 10**config["log10_lr_enc"][i], every
    eta_dec = 10**config["log10_lr_dec"] x config["seeds"] seeds.

    config: n, train_fraction, split_seed, mode, depth, width, embed_dim, init_scale, steps,
    eval_every, seeds, log10_lr_enc, log10_lr_dec [, test_every (default 1: exact test crossings;
    k: resolution k steps), seed_offset, checkpoint_every, decoder_init ("uniform" default, or
    "normal": Fig. 6's standard normal), decay_form ("decoupled" default: AdamW, or "coupled": L2)].
    Returns per (decoder rate, seed): step_train_90, step_test_90 (-1: never), train_acc,
    test_acc, stopped_at, embed (n, d); and lr_enc (1,), lr_dec (J,), seeds (S,).
    """
    lr_enc = 10.0 ** float(config["log10_lr_enc"][int(shard["row"])])
    lr_dec = 10.0 ** np.asarray(config["log10_lr_dec"], float)
    out = _fixed_split_runs(
        config, shard["relation"], config["init_scale"], _adamw(config, checkpoint), lr_enc=lr_enc, lr_dec=lr_dec
    )
    return {**out, "lr_enc": np.array([lr_enc], np.float32), "lr_dec": lr_dec.astype(np.float32)}


def weight_decay_row(config: dict, shard: dict, checkpoint: Path | None = None) -> dict[str, np.ndarray]:
    """Fig. 8, shard {"row": i}: decoder weight decay config["weight_decays"][i] at eta_enc =
    config["lr_enc"], every eta_dec = 10**config["log10_lr_dec"] x seeds, on config["relation"].

    config: as `phase_row` without log10_lr_enc, plus relation, lr_enc, weight_decays.
    Returns as `phase_row`, plus weight_decay (1,).
    """
    wd = float(config["weight_decays"][int(shard["row"])])
    lr_dec = 10.0 ** np.asarray(config["log10_lr_dec"], float)
    train = _adamw(config, checkpoint)
    out = _fixed_split_runs(
        config,
        config["relation"],
        config["init_scale"],
        train,
        lr_enc=config["lr_enc"],
        lr_dec=lr_dec,
        weight_decay_dec=wd,
    )
    return {**out, "weight_decay": np.array([wd], np.float32), "lr_dec": lr_dec.astype(np.float32)}


def ratio_point(config: dict, shard: dict, checkpoint: Path | None = None) -> dict[str, np.ndarray]:
    """Fig. 6, shard {"init_scale": c, "point": k}: eta_dec = eta_enc * 10**config["log10_ratios"][k]
    at eta_enc = config["lr_enc"] and init scale c, config["seeds"] seeds, on config["relation"].

    config: as `phase_row` without log10_lr_enc / log10_lr_dec / init_scale, plus relation,
    lr_enc, log10_ratios. Returns as `phase_row` (one setting), plus ratio (1,).
    """
    ratio = 10.0 ** float(config["log10_ratios"][int(shard["point"])])
    lr_enc = float(config["lr_enc"])
    train = _adamw(config, checkpoint)
    out = _fixed_split_runs(
        config, config["relation"], shard["init_scale"], train, lr_enc=lr_enc, lr_dec=lr_enc * ratio
    )
    return {**out, "ratio": np.array([ratio], np.float32)}


# ----------------------------------------------------------------------------------------------
# Dynamics at the paper's 1e5 steps: one initialisation, or one block of them, per shard (Figs. 5, 6, 8)
# ----------------------------------------------------------------------------------------------


def _seed_block(config: dict, shard: dict) -> dict:
    """The set's config restricted to the shard's block b = shard["block"] of config["seeds_per_shard"]
    seeds (of config["seeds"], a multiple of it)."""
    per, total, block = int(config["seeds_per_shard"]), int(config["seeds"]), int(shard["block"])
    if per < 1 or total % per:
        raise ValueError(f"seeds {total} is not a multiple of seeds_per_shard {per}")
    if not 0 <= block < total // per:
        raise ValueError(f"shard block {block} outside the set's {total // per} blocks of {per} seeds")
    return {**config, "seeds": per, "seed_offset": int(config.get("seed_offset", 0)) + block * per}


def ratio_point_block(config: dict, shard: dict, checkpoint: Path | None = None) -> dict[str, np.ndarray]:
    """Fig. 6, shard {"init_scale": c, "point": k, "block": b}: `ratio_point` for the b-th block of
    config["seeds_per_shard"] seeds (eta_dec = eta_enc * 10**config["log10_ratios"][k], init scale c).

    config: as `ratio_point` (its "seeds" is the number of seeds of a point, a multiple of
    "seeds_per_shard"; decoder_init and decay_form are passed on). Returns as `ratio_point` with a
    seed axis of length seeds_per_shard; "seeds" holds the block's seeds.
    """
    point = {"init_scale": shard["init_scale"], "point": shard["point"]}
    return ratio_point(_seed_block(config, shard), point, checkpoint)


def ratio_point_gd_block(config: dict, shard: dict, checkpoint: Path | None = None) -> dict[str, np.ndarray]:
    """Fig. 6 by gradient descent, shard {"init_scale": c, "point": k, "block": b}: `ratio_point_gd` for the
    b-th block of config["seeds_per_shard"] seeds (eta_enc = eta_dec / 10**config["log10_ratios"][k]).

    config: as `ratio_point_gd` plus seeds_per_shard (decoder_init is passed on). Returns as
    `ratio_point_gd` with a seed axis of length seeds_per_shard; "seeds" holds the block's seeds.
    """
    point = {"init_scale": shard["init_scale"], "point": shard["point"]}
    return ratio_point_gd(_seed_block(config, shard), point, checkpoint)


def phase_row_seed(config: dict, shard: dict, checkpoint: Path | None = None) -> dict[str, np.ndarray]:
    """Fig. 5, shard {"relation": r, "row": i, "seed": s}: `phase_row` for the one initialisation s.

    config: as `phase_row` (its "seeds" is the number of seeds of the whole set; s < seeds).
    Returns as `phase_row` with a seed axis of length 1.
    """
    return phase_row(_one_seed(config, shard["seed"]), {"relation": shard["relation"], "row": shard["row"]}, checkpoint)


def weight_decay_row_seed(config: dict, shard: dict, checkpoint: Path | None = None) -> dict[str, np.ndarray]:
    """Fig. 8, shard {"row": i, "seed": s}: `weight_decay_row` (decoder weight decay config["weight_decays"][i],
    every eta_dec of config["log10_lr_dec"] at eta_enc = config["lr_enc"]) for the one initialisation s.

    config: as `weight_decay_row` (its "seeds" is the number of seeds of the whole set; s < seeds).
    Returns as `weight_decay_row` with a seed axis of length 1.
    """
    return weight_decay_row(_one_seed(config, shard["seed"]), {"row": shard["row"]}, checkpoint)


def weight_decay_relation_row_seed(config: dict, shard: dict, checkpoint: Path | None = None) -> dict[str, np.ndarray]:
    """Fig. 8, shard {"relation": r, "row": i, "seed": s}: `weight_decay_row_seed` on relation r (a name of
    `lib.geneft.relations`), decoder weight decay config["weight_decays"][i], initialisation s.

    config: as `weight_decay_row_seed`, without "relation". Returns as `weight_decay_row_seed`.
    """
    if "relation" in config:
        raise ValueError("the relation is the shard's, not the configuration's")
    return weight_decay_row_seed(
        {**config, "relation": shard["relation"]}, {"row": shard["row"], "seed": shard["seed"]}, checkpoint
    )


# ----------------------------------------------------------------------------------------------
# Dynamics trained otherwise: gradient descent (Fig. 6), no early stop (Fig. 5, Theorem 2)
# ----------------------------------------------------------------------------------------------


def ratio_point_gd(config: dict, shard: dict, checkpoint: Path | None = None) -> dict[str, np.ndarray]:
    """Fig. 6 by gradient descent, shard {"init_scale": c, "point": k}: eta_enc = eta_dec / 10**config["log10_ratios"][k]
    at the decoder rate eta_dec = config["lr_dec"] and init scale c, config["seeds"] seeds, on config["relation"].
    The decoder rate is the fixed one because it is the one that bounds the stable step of gradient descent.

    config: n, train_fraction, split_seed, mode, depth, width, embed_dim, steps, eval_every, seeds, relation,
    lr_dec, log10_ratios [, seed_offset, decoder_init]. A run leaves once its phase is decided (both 0.9
    crossings found, exact: every step evaluates all pairs). `checkpoint` is not used (minutes per shard).
    Returns as `lib.geneft.evidence.ratio_point`: per seed step_train_90, step_test_90 (-1: never), train_acc,
    test_acc, stopped_at, embed (n, d), with a settings axis of length 1; seeds (S,), ratio (1,).
    """
    from lib.geneft.train import train_models_gd

    ratio = 10.0 ** float(config["log10_ratios"][int(shard["point"])])
    lr_dec = float(config["lr_dec"])
    train = partial(
        train_models_gd,
        **_network(config),
        steps=int(config["steps"]),
        eval_every=int(config["eval_every"]),
        early_stop=True,
        **_optional_training(config),
    )
    out = _fixed_split_runs(
        config, config["relation"], shard["init_scale"], train, lr_enc=lr_dec / ratio, lr_dec=lr_dec
    )
    return {**out, "ratio": np.array([ratio], np.float32)}


def phase_row_to_end(config: dict, shard: dict, checkpoint: Path | None = None) -> dict[str, np.ndarray]:
    """Fig. 5 without the early stop, shard {"relation": r, "row": i}: eta_enc = 10**config["log10_lr_enc"][i],
    every eta_dec = 10**config["log10_lr_dec"] x config["seeds"] seeds, AdamW (`lib.geneft.train`) to config["steps"].

    config: as `lib.geneft.evidence.phase_row` (n, train_fraction, split_seed, mode, depth, width, embed_dim,
    init_scale, steps, eval_every, seeds, log10_lr_enc, log10_lr_dec [, test_every, seed_offset,
    checkpoint_every]); the crossings are exact with test_every 1 (the default). Returns as `phase_row`,
    every run read at `steps`.
    """
    lr_enc = 10.0 ** float(config["log10_lr_enc"][int(shard["row"])])
    lr_dec = 10.0 ** np.asarray(config["log10_lr_dec"], float)
    train = _adamw(config, checkpoint, early_stop=False)
    out = _fixed_split_runs(config, shard["relation"], config["init_scale"], train, lr_enc=lr_enc, lr_dec=lr_dec)
    return {**out, "lr_enc": np.array([lr_enc], np.float32), "lr_dec": lr_dec.astype(np.float32)}


# ----------------------------------------------------------------------------------------------
# Statics: accuracy against training fraction (Figs. 3 and 7)
# ----------------------------------------------------------------------------------------------


def network_curve(config: dict, shard: dict, checkpoint: Path | None = None) -> dict[str, np.ndarray]:
    """G-3 / G-7, shard {"relation": r, "mode": m, "depth": h, "width": w, "embed_dim": d}: one
    decoder trained at every fraction of config["fractions"] x config["seeds"] seeds (the seed draws
    the split, nested across fractions, and the initialisation, the same at every fraction), encoder and decoder rate config["lr"], until
    config["steps"] or until it fits its training pairs and its accuracy over all pairs has been
    flat for config["patience"] evaluations (every config["eval_every"] steps; null: no stop). The
    test pairs are evaluated at the evaluations only (the curve needs final accuracies only).

    Returns per (fraction, seed): full_acc (accuracy over all n^2 pairs, what Fig. 3 plots
    against the bound), train_acc, test_acc, stopped_at; and fractions (F,), seeds (S,).
    """
    from lib.geneft.train import train_models

    n, fractions = int(config["n"]), np.asarray(config["fractions"], float)
    seeds = np.arange(int(config["seeds"])) + int(config.get("seed_offset", 0))
    masks = split_masks(n, fractions, seeds)
    network = {
        "mode": shard["mode"],
        "depth": int(shard["depth"]),
        "width": int(shard["width"]),
        "embed_dim": int(shard["embed_dim"]),
    }
    res = train_models(
        relation_matrix(shard["relation"], n),
        masks,
        **network,
        lr_enc=config["lr"],
        lr_dec=config["lr"],
        init_scale=float(config["init_scale"]),
        steps=int(config["steps"]),
        seeds=np.tile(seeds, len(fractions)),  # one init per seed at every fraction (paired)
        eval_every=int(config["eval_every"]),
        test_every=int(config["eval_every"]),
        early_stop=False,
        plateau_patience=config.get("patience"),
        checkpoint=None if checkpoint is None else Path(checkpoint) / "train.pt",
        checkpoint_every=int(config.get("checkpoint_every", 1000)),
    )
    shape = (len(fractions), len(seeds))
    return {
        "full_acc": res.full_acc.astype(np.float32).reshape(shape),
        "train_acc": res.train_acc.astype(np.float32).reshape(shape),
        "test_acc": res.test_acc.astype(np.float32).reshape(shape),
        "stopped_at": res.stopped_at.astype(np.int32).reshape(shape),
        "fractions": fractions.astype(np.float32),
        "seeds": seeds.astype(np.int32),
    }
