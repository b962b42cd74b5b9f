"""Tests of lib.geneft.description: nauty's |Aut(G)| against brute force and the closed forms."""

import itertools
import math

import numpy as np
import pytest

from lib.geneft.description import (
    closed_form_bits,
    description_length,
    log2_automorphisms,
    log2_factorial,
    table2_bits,
    table2_excess_parts,
)
from lib.geneft.relations import RELATIONS, relation_matrix


def brute_force_automorphisms(r: np.ndarray) -> int:
    """Count permutations p with r[p][:, p] == r by enumerating all n! of them."""
    n = r.shape[0]
    return sum((r[np.ix_(p, p)] == r).all() for p in map(list, itertools.permutations(range(n))))


# ----------------------------------------------------------------------------------------------
# nauty against brute force
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_random_small_digraphs_with_loops(seed):
    rng = np.random.default_rng(seed)
    n = 6
    r = (rng.random((n, n)) < [0.2, 0.5, 0.5, 0.8, 0.3, 0.5][seed]).astype(int)
    if seed % 2:
        r = np.triu(r) | np.triu(r).T  # symmetric case
    assert log2_automorphisms(r) == pytest.approx(math.log2(brute_force_automorphisms(r)), abs=1e-9)


@pytest.mark.parametrize("name", ["mod3", "greater_than", "bipartite", "random_graph"])
def test_named_relations_brute_force(name):
    r = relation_matrix(name, 7, seed=3)
    assert log2_automorphisms(r) == pytest.approx(math.log2(brute_force_automorphisms(r)), abs=1e-9)


def test_loops_matter():
    """A loop on one vertex of an otherwise empty graph leaves (n-1)! automorphisms."""
    r = np.zeros((5, 5), int)
    r[0, 0] = 1
    assert 2 ** log2_automorphisms(r) == pytest.approx(24)


# ----------------------------------------------------------------------------------------------
# Closed forms (Section III, Table 2)
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [r for r in RELATIONS if r != "random_graph"])
@pytest.mark.parametrize("n", [20, 29, 30, 40])
def test_closed_forms(name, n):
    assert description_length(relation_matrix(name, n)) == pytest.approx(closed_form_bits(name, n), abs=1e-6)


def test_k15_15_and_total_order():
    """|Aut(K_{15,15})| = 2 (15!)^2, so b = log2 C(30,15) - 1; a total order has b = log2 30!."""
    r = relation_matrix("bipartite", 30)
    assert log2_automorphisms(r) == pytest.approx(1 + 2 * math.log2(math.factorial(15)))
    assert description_length(r) == pytest.approx(math.log2(math.comb(30, 15)) - 1)
    assert description_length(relation_matrix("greater_than", 30)) == pytest.approx(math.log2(math.factorial(30)))
    assert log2_factorial(30) == pytest.approx(math.log2(math.factorial(30)))


def test_equivalence_exact_form():
    """mod 3 on 30 elements: b = log2(30! / ((10!)^3 3!))."""
    exact = math.log2(math.factorial(30) / (math.factorial(10) ** 3 * 6))
    assert closed_form_bits("mod3", 30) == pytest.approx(exact)
    assert table2_bits("mod3", 30) == pytest.approx(30 * math.log2(3))


def test_random_graph_trivial_group():
    """G(30, 1/2) has a trivial automorphism group for these seeds: b = log2 30!."""
    for seed in range(3):
        assert description_length(relation_matrix("random_graph", 30, seed)) == pytest.approx(log2_factorial(30))


@pytest.mark.parametrize("name", ["mod3", "mod5", "bipartite"])
def test_table2_excess_splits_into_equal_sizes_and_relabelling(name):
    equal_sizes, relabelling = table2_excess_parts(name, 30)
    assert equal_sizes + relabelling == pytest.approx(table2_bits(name, 30) - closed_form_bits(name, 30))
    k = {"mod3": 3, "mod5": 5, "bipartite": 2}[name]
    assert relabelling == pytest.approx(math.log2(math.factorial(k)))
    assert equal_sizes > relabelling  # most of the overestimate at n = 30
    assert table2_excess_parts("greater_than", 30) is None
