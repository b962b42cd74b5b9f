"""Relations as data (GenEFT Section II, Table 1): relation matrices and train/test splits.

A relation R on n elements is the n x n 0/1 matrix R[i, j] = R(x_i, x_j). The data set is all
n^2 ordered pairs (i, j), diagonal included ("n^2 = 900 data samples" for n = 30, Section II);
a training set is a random subset of them, the rest is the test set.

Conventions where the paper is loose:
- greater_than: R[i, j] = 1 iff i > j. Table 1 writes "x < y"; the two are the same relation up
  to relabelling i -> n-1-i (description length and bounds identical).
- bipartite: complete bipartite graph between S = {0, ..., n//2 - 1} and its complement
  (Table 1), R[i, j] = 1 iff exactly one of i, j lies in S; the diagonal is 0.
- random_graph: an Erdos-Renyi graph G(n, 1/2), symmetric, no self-loops, drawn with `seed`
  (not in the paper; a generic graph with a trivial automorphism group, for Section III).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

RELATIONS = ("mod3", "mod5", "greater_than", "bipartite", "random_graph")

# ----------------------------------------------------------------------------------------------
# Relation matrices
# ----------------------------------------------------------------------------------------------


def class_labels(name: str, n: int) -> np.ndarray | None:
    """Class of each element for the class-structured relations, else None.

    mod3 / mod5: i mod k (equivalence classes, R[i, j] = [c_i == c_j]); bipartite: side of the
    bipartition (R[i, j] = [c_i != c_j]).
    """
    _check_name(name)
    idx = np.arange(n)
    if name in ("mod3", "mod5"):
        return idx % int(name[-1])
    if name == "bipartite":
        return (idx >= n // 2).astype(np.int64)
    return None


def relation_matrix(name: str, n: int, seed: int = 0) -> np.ndarray:
    """The (n, n) int64 0/1 matrix of relation `name` (Table 1; see the module docstring)."""
    _check_name(name)
    if n < 2:
        raise ValueError(f"need at least n = 2 elements, got n = {n}")
    idx = np.arange(n)
    if name in ("mod3", "mod5", "bipartite"):
        c = class_labels(name, n)
        same = c[:, None] == c[None, :]
        return (same if name != "bipartite" else ~same).astype(np.int64)
    if name == "greater_than":
        return (idx[:, None] > idx[None, :]).astype(np.int64)
    upper = np.triu(np.random.default_rng(seed).random((n, n)) < 0.5, k=1)
    return (upper | upper.T).astype(np.int64)


def _check_name(name: str) -> None:
    if name not in RELATIONS:
        raise ValueError(f"unknown relation {name!r}; known: {', '.join(RELATIONS)}")


# ----------------------------------------------------------------------------------------------
# Train / test splits
# ----------------------------------------------------------------------------------------------


def split_masks(n: int, fractions: Sequence[float], seeds: Sequence[int]) -> np.ndarray:
    """Training masks, bool (len(fractions) * len(seeds), n, n), row-major over (fraction, seed).

    Each mask marks round(fraction * n^2) ordered pairs (i, j), diagonal included, chosen
    uniformly at random (Section II: the n^2 samples R_ij are the data set). For one seed the
    masks are nested across fractions: the pairs come from one random permutation of the n^2
    pairs (numpy generator seeded with `seed`), and a fraction takes its first m. The test set
    is the complement.
    """
    fractions = [float(f) for f in fractions]
    if any(not 0.0 <= f <= 1.0 for f in fractions):
        raise ValueError(f"training fractions must lie in [0, 1], got {fractions}")
    if n < 2:
        raise ValueError(f"need at least n = 2 elements, got n = {n}")
    orders = [np.random.default_rng(int(s)).permutation(n * n) for s in seeds]
    masks = np.zeros((len(fractions), len(orders), n * n), dtype=bool)
    for a, f in enumerate(fractions):
        m = int(round(f * n * n))
        for b, order in enumerate(orders):
            masks[a, b, order[:m]] = True
    return masks.reshape(len(fractions) * len(orders), n, n)
