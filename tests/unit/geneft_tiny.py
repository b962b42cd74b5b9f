"""The tiny GenEFT network the unit tests of grids and evidence shards train (9 entities, one hidden layer of 8)."""

TINY_NETWORK = {
    "n": 9,
    "train_fraction": 0.75,
    "split_seed": 0,
    "mode": "concat",
    "depth": 1,
    "width": 8,
    "embed_dim": 2,
}
