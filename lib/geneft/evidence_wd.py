"""Evidence shards of Fig. 8 at the paper's setting (eta_enc = 1e-5, 1e5 steps), one initialisation each.

`weight_decay_row_seed` is `lib.geneft.evidence.weight_decay_row` restricted to one seed, as
`lib.geneft.evidence_seed.phase_row_seed` is for Fig. 5: at 1e5 steps a shard of every seed would
take hours, one seed's row of decoder rates takes minutes and resumes from its checkpoint.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from lib.geneft.evidence import weight_decay_row


def weight_decay_row_seed(config: dict, shard: dict, checkpoint: Path | None = None) -> dict[str, np.ndarray]:
    """Fig. 8, shard {"row": i, "seed": s}: `weight_decay_row` (decoder weight decay config["weight_decays"][i],
    every eta_dec of config["log10_lr_dec"] at eta_enc = config["lr_enc"]) for the one initialisation s.

    config: as `weight_decay_row` (its "seeds" is the number of seeds of the whole set; s < seeds).
    Returns as `weight_decay_row` with a seed axis of length 1.
    """
    seed = int(shard["seed"])
    if not 0 <= seed < int(config["seeds"]):
        raise ValueError(f"shard seed {seed} outside the set's {config['seeds']} seeds")
    one = {**config, "seeds": 1, "seed_offset": int(config.get("seed_offset", 0)) + seed}
    return weight_decay_row(one, {"row": shard["row"]}, checkpoint)
