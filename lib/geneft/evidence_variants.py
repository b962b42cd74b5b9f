"""Evidence shards that vary how the Fig. 5 / Fig. 6 networks are trained (the shard interface of `lib.evidence`).

- `ratio_point_gd`   Fig. 6 under the dynamics eq. (12) is derived for: `lib.geneft.evidence.ratio_point`
                     with plain full-batch gradient descent (`lib.geneft.train_gd`) instead of AdamW, at a
                     fixed decoder rate (the one that bounds a stable step) and eta_enc = eta_dec / ratio.
- `phase_row_to_end` Fig. 5 / Theorem 2: `lib.geneft.evidence.phase_row` without the early stop, so that
                     every run's final embeddings (the repon positions) are read at the same step, the
                     end of the run, whatever its phase.

Both train one model per (setting, seed) on the config's fixed split, `split_masks(n,
[train_fraction], [split_seed])`, as the AdamW shards do, and return the same arrays (settings, seeds).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np

from lib.geneft.relations import relation_matrix, split_masks


def _fixed_split_runs(config: dict, relation: str, lr_enc, lr_dec, init_scale: float, train) -> dict[str, np.ndarray]:
    """One model per (setting, seed) trained by `train(labels, masks, lr_enc=, lr_dec=, init_scale=, seeds=)`;
    arrays (settings, seeds), settings in the order of the broadcast (lr_enc, lr_dec)."""
    lr_enc, lr_dec = np.broadcast_arrays(*(np.atleast_1d(np.asarray(v, float)) for v in (lr_enc, lr_dec)))
    seeds = np.arange(int(config["seeds"])) + int(config.get("seed_offset", 0))
    k, s, n = lr_enc.size, len(seeds), int(config["n"])
    masks = np.repeat(split_masks(n, [config["train_fraction"]], [config["split_seed"]]), k * s, 0)
    res = train(
        relation_matrix(relation, n),
        masks,
        lr_enc=np.repeat(lr_enc, s),  # setting-major, seed-minor
        lr_dec=np.repeat(lr_dec, s),
        init_scale=float(init_scale),
        seeds=np.tile(seeds, k),
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


def _network(config: dict) -> dict:
    return {k: config[k] for k in ("mode", "depth", "width", "embed_dim")}


def ratio_point_gd(config: dict, shard: dict, checkpoint: Path | None = None) -> dict[str, np.ndarray]:
    """Fig. 6 by gradient descent, shard {"init_scale": c, "point": k}: eta_enc = eta_dec / 10**config["log10_ratios"][k]
    at the decoder rate eta_dec = config["lr_dec"] and init scale c, config["seeds"] seeds, on config["relation"].
    The decoder rate is the fixed one because it is the one that bounds the stable step of gradient descent.

    config: n, train_fraction, split_seed, mode, depth, width, embed_dim, steps, eval_every, seeds, relation,
    lr_dec, log10_ratios [, seed_offset]. A run leaves once its phase is decided (both 0.9 crossings found,
    exact: every step evaluates all pairs). `checkpoint` is not used (minutes per shard).
    Returns as `lib.geneft.evidence.ratio_point`: per seed step_train_90, step_test_90 (-1: never), train_acc,
    test_acc, stopped_at, embed (n, d), with a settings axis of length 1; seeds (S,), ratio (1,).
    """
    from lib.geneft.train_gd import train_models_gd

    ratio = 10.0 ** float(config["log10_ratios"][int(shard["point"])])
    lr_dec = float(config["lr_dec"])
    train = partial(
        train_models_gd,
        **_network(config),
        steps=int(config["steps"]),
        eval_every=int(config["eval_every"]),
        early_stop=True,
    )
    out = _fixed_split_runs(config, config["relation"], lr_dec / ratio, lr_dec, float(shard["init_scale"]), train)
    return {**out, "ratio": np.array([ratio], np.float32)}


def phase_row_to_end(config: dict, shard: dict, checkpoint: Path | None = None) -> dict[str, np.ndarray]:
    """Fig. 5 without the early stop, shard {"relation": r, "row": i}: eta_enc = 10**config["log10_lr_enc"][i],
    every eta_dec = 10**config["log10_lr_dec"] x config["seeds"] seeds, AdamW (`lib.geneft.train`) to config["steps"].

    config: as `lib.geneft.evidence.phase_row` (n, train_fraction, split_seed, mode, depth, width, embed_dim,
    init_scale, steps, eval_every, seeds, log10_lr_enc, log10_lr_dec [, seed_offset, checkpoint_every]); the
    crossings are exact (all pairs every step). Returns as `phase_row`, every run read at `steps`.
    """
    from lib.geneft.train import train_models

    lr_enc = 10.0 ** float(config["log10_lr_enc"][int(shard["row"])])
    lr_dec = 10.0 ** np.asarray(config["log10_lr_dec"], float)
    train = partial(
        train_models,
        **_network(config),
        weight_decay_dec=0.0,
        steps=int(config["steps"]),
        eval_every=int(config["eval_every"]),
        test_every=1,
        early_stop=False,
        checkpoint=None if checkpoint is None else Path(checkpoint) / "train.pt",
        checkpoint_every=int(config.get("checkpoint_every", 1000)),
    )
    out = _fixed_split_runs(config, shard["relation"], lr_enc, lr_dec, config["init_scale"], train)
    return {**out, "lr_enc": np.array([lr_enc], np.float32), "lr_dec": lr_dec.astype(np.float32)}
