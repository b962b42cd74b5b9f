"""Evidence shards of Fig. 6 at the paper's 1e5 steps, one block of initialisations each.

`ratio_point_block` is `lib.geneft.evidence.ratio_point` restricted to a block of consecutive seeds:
at 1e5 steps a point of 30 seeds bounds at about an hour of one core, a block of 15 at half that, and
a partial run already holds whole blocks. The set's config names the number of seeds of a point
("seeds", from "seed_offset", default 0) and of a block ("seeds_per_shard"); shard "block" b trains
seeds b * seeds_per_shard ... (b + 1) * seeds_per_shard - 1 of them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from lib.geneft.evidence import ratio_point


def ratio_point_block(config: dict, shard: dict, checkpoint: Path | None = None) -> dict[str, np.ndarray]:
    """Fig. 6, shard {"init_scale": c, "point": k, "block": b}: `ratio_point` for the b-th block of
    config["seeds_per_shard"] seeds (eta_dec = eta_enc * 10**config["log10_ratios"][k], init scale c).

    config: as `ratio_point` (its "seeds" is the number of seeds of a point, a multiple of
    "seeds_per_shard"; decoder_init and decay_form are passed on). Returns as `ratio_point` with a
    seed axis of length seeds_per_shard; "seeds" holds the block's seeds.
    """
    per, total, block = int(config["seeds_per_shard"]), int(config["seeds"]), int(shard["block"])
    if per < 1 or total % per:
        raise ValueError(f"seeds {total} is not a multiple of seeds_per_shard {per}")
    if not 0 <= block < total // per:
        raise ValueError(f"shard block {block} outside the set's {total // per} blocks of {per} seeds")
    one = {**config, "seeds": per, "seed_offset": int(config.get("seed_offset", 0)) + block * per}
    return ratio_point(one, {"init_scale": shard["init_scale"], "point": shard["point"]}, checkpoint)
