"""Tests of lib.geneft.relations: Table 1 relations and the train/test splits."""

import numpy as np
import pytest

from lib.geneft.relations import RELATIONS, class_labels, relation_matrix, split_masks

# ----------------------------------------------------------------------------------------------
# Relation matrices
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", RELATIONS)
@pytest.mark.parametrize("n", [20, 30, 40])
def test_shape_dtype_binary(name, n):
    r = relation_matrix(name, n)
    assert r.shape == (n, n) and r.dtype == np.int64
    assert set(np.unique(r)) <= {0, 1}


def test_definitions_brute_force():
    n = 30
    r3, r5, gt, bp = (relation_matrix(k, n) for k in ("mod3", "mod5", "greater_than", "bipartite"))
    for i in range(n):
        for j in range(n):
            assert r3[i, j] == (i % 3 == j % 3)
            assert r5[i, j] == (i % 5 == j % 5)
            assert gt[i, j] == (i > j)
            assert bp[i, j] == ((i < n // 2) != (j < n // 2))


def test_properties():
    n = 31
    eq = relation_matrix("mod3", n)
    assert (eq == eq.T).all() and eq.diagonal().all()
    assert ((eq @ eq > 0) <= (eq > 0)).all()  # transitive
    gt = relation_matrix("greater_than", n)
    assert not (gt & gt.T).any() and (gt + gt.T + np.eye(n, dtype=int) == 1).all()
    assert ((gt @ gt > 0) <= (gt > 0)).all()
    bp = relation_matrix("bipartite", n)
    assert (bp == bp.T).all() and bp.sum() == 2 * (n // 2) * (n - n // 2)
    assert class_labels("greater_than", n) is None


def test_random_graph_seeded_symmetric():
    a, b, c = (relation_matrix("random_graph", 30, seed=s) for s in (1, 1, 2))
    assert (a == b).all() and (a != c).any()
    assert (a == a.T).all() and not a.diagonal().any()
    assert 0.35 < a.sum() / (30 * 29) < 0.65


def test_unknown_relation():
    with pytest.raises(ValueError, match="unknown relation"):
        relation_matrix("mod4", 10)


# ----------------------------------------------------------------------------------------------
# Splits
# ----------------------------------------------------------------------------------------------


def test_split_counts_order_and_nesting():
    fr, seeds = [0.1, 0.5, 0.75], [0, 1]
    m = split_masks(30, fr, seeds)
    assert m.shape == (6, 30, 30) and m.dtype == bool
    for a, f in enumerate(fr):
        for b in range(2):
            assert m[a * 2 + b].sum() == round(f * 900)
    assert (m[0] <= m[2]).all() and (m[2] <= m[4]).all()  # nested per seed
    assert (m[0] != m[1]).any()
    assert (split_masks(30, fr, seeds) == m).all()  # deterministic


def test_split_bad_fraction():
    with pytest.raises(ValueError):
        split_masks(10, [1.5], [0])
