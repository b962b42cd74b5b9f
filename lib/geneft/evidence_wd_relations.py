"""Evidence shards of Fig. 8b and 8c (greater-than, complete bipartite) at the paper's setting.

`weight_decay_relation_row_seed` is `lib.geneft.evidence_wd.weight_decay_row_seed` with the relation read
from the shard instead of the configuration, so that one set holds both panels (Fig. 8a, mod 3, is the set
`weight_decay_1e5`, whose stored shards keep their own function).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from lib.geneft.evidence_wd import weight_decay_row_seed


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
