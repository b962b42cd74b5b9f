"""The tiny GenEFT network the unit tests of grids and evidence shards train (9 entities, one hidden layer of 8),
and a stored shard as the chapters read it."""

TINY_NETWORK = {
    "n": 9,
    "train_fraction": 0.75,
    "split_seed": 0,
    "mode": "concat",
    "depth": 1,
    "width": 8,
    "embed_dim": 2,
}


class Shard:
    """A stored shard as `lib.book.evidence.load` gives it: `.key` and arrays by name."""

    def __init__(self, key, arrays):
        self.key, self.arrays = key, arrays

    def __getitem__(self, name):
        return self.arrays[name]
