"""Evidence shards of one initialisation each, for runs long enough that a shard of every seed would take hours.

`phase_row_seed` is `lib.geneft.evidence.phase_row` restricted to one seed: the set's config names
the seeds (config "seeds", from config "seed_offset", default 0) and each shard trains one of them,
so that the Fig. 5 grid at the paper's 1e5 steps (Section IV) is stored shard by shard in minutes
each and a partial run already covers whole rows at the seeds it has finished.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from lib.geneft.evidence import phase_row


def phase_row_seed(config: dict, shard: dict, checkpoint: Path | None = None) -> dict[str, np.ndarray]:
    """Fig. 5, shard {"relation": r, "row": i, "seed": s}: `phase_row` for the one initialisation s.

    config: as `phase_row` (its "seeds" is the number of seeds of the whole set; s < seeds).
    Returns as `phase_row` with a seed axis of length 1.
    """
    seed = int(shard["seed"])
    if not 0 <= seed < int(config["seeds"]):
        raise ValueError(f"shard seed {seed} outside the set's {config['seeds']} seeds")
    one = {**config, "seeds": 1, "seed_offset": int(config.get("seed_offset", 0)) + seed}
    return phase_row(one, {"relation": shard["relation"], "row": shard["row"]}, checkpoint)
