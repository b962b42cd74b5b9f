"""Evidence shards of the two-layer chapter: how often the OOD loss swings, against the input dimension d.

One shard integrates one block of init seeds of the flow (D.2) at one d (with d' = d) and keeps,
per seed, the number of descents, the largest rise, and whether a minor entry of the strongest
direction starts positive (Sec. 4.2.2). Blocks of one d pool into the fraction with an interval.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from lib.theory import two_layer as tl


def swing_block(config: dict, shard: dict, checkpoint: Path | None = None) -> dict[str, np.ndarray]:
    """Shard {"d": d, "block": b}: `config["seeds_per_block"]` seeds with init seed `config["seed"] + b`.

    config: mu, sigma, init, init_scale, covariance_power, horizon, n_times, descent_tol, seeds_per_block, seed.
    Returns descents (int16), bump (float32, relative to the mean initial OOD loss), positive_minor (bool).
    """
    d = int(shard["d"])
    run = tl.ensemble(
        config["mu"],
        config["sigma"],
        d,
        d,
        config["init_scale"],
        config["init"],
        config["seeds_per_block"],
        config["horizon"],
        config["n_times"],
        config["descent_tol"],
        config["covariance_power"],
        config["seed"] + int(shard["block"]),
    )
    w0 = run["w"][0]
    return {
        "descents": run["descents"].astype(np.int16),
        "bump": (run["bump"] / run["loss"][0].mean()).astype(np.float32),
        "positive_minor": tl.positive_minor(w0, run["a"], len(config["mu"])),
    }
