"""Description length of a relation (GenEFT Section III, Table 2).

b = log2(n! / |Aut(G)|): the number of graphs with the same structure as G is n! / |Aut(G)|
(Section III, "An arbitrary real-world graph ..."). |Aut(G)| is counted by nauty (through
pynauty), never by enumerating automorphisms (K_{15,15} has 2 (15!)^2 of them). The exact
closed forms of |Aut(G)| for the book's relations, and the paper's Table 2 approximations,
are here too so that the three can be compared.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pynauty

from lib.geneft.relations import class_labels

LOG2_10 = math.log2(10.0)

# ----------------------------------------------------------------------------------------------
# Automorphism group by nauty
# ----------------------------------------------------------------------------------------------


def log2_automorphisms(r: np.ndarray) -> float:
    """log2 |Aut(G)| of the directed graph with adjacency r (self-loops allowed), by nauty.

    Self-loops enter as a vertex colouring (looped vs unlooped vertices), which nauty's graph
    type does not hold directly; an automorphism must map looped vertices to looped ones.
    A symmetric r is passed as an undirected graph, anything else as a directed one.
    """
    r = np.asarray(r) != 0
    n = r.shape[0]
    symmetric = bool((r == r.T).all())
    off = r & ~np.eye(n, dtype=bool)
    adjacency = {i: np.flatnonzero(off[i]).tolist() for i in range(n)}
    loops = np.diagonal(r)
    colouring = [set(np.flatnonzero(loops).tolist()), set(np.flatnonzero(~loops).tolist())]
    graph = pynauty.Graph(
        n, directed=not symmetric, adjacency_dict=adjacency, vertex_coloring=[c for c in colouring if c]
    )
    _, mantissa, exponent, _, _ = pynauty.autgrp(graph)
    return math.log2(mantissa) + exponent * LOG2_10


def description_length(r: np.ndarray) -> float:
    """b = log2(n! / |Aut(G)|) in bits (Section III), with |Aut(G)| from nauty."""
    n = np.asarray(r).shape[0]
    return log2_factorial(n) - log2_automorphisms(r)


def log2_factorial(n: int) -> float:
    """log2 n! (exact up to float rounding, via lgamma)."""
    return math.lgamma(n + 1) / math.log(2)


# ----------------------------------------------------------------------------------------------
# Closed forms
# ----------------------------------------------------------------------------------------------


def closed_form_log2_automorphisms(name: str, n: int) -> float | None:
    """log2 |Aut(G)| in closed form for the book's named relations (None for random_graph).

    Classes of sizes s_1..s_k (equivalence relation, or the two sides of a complete bipartite
    graph): elements permute within a class and classes of equal size permute among
    themselves, |Aut| = prod_c s_c! * prod_s (number of classes of size s)!. This gives a!c!
    for K_{a,c} with a != c (Section III) and 2 (a!)^2 for a = c. Total order: |Aut| = 1.
    """
    if name == "greater_than":
        return 0.0
    labels = class_labels(name, n)
    if labels is None:
        return None
    sizes = Counter(np.bincount(labels).tolist())
    return sum(m * log2_factorial(s) + log2_factorial(m) for s, m in sizes.items())


def closed_form_bits(name: str, n: int) -> float | None:
    """Exact b = log2 n! - log2 |Aut| from the closed form above (None for random_graph)."""
    log_aut = closed_form_log2_automorphisms(name, n)
    return None if log_aut is None else log2_factorial(n) - log_aut


def table2_bits(name: str, n: int) -> float:
    """The paper's Table 2 estimate of b.

    Equivalence with k classes: n log2 k; total order: log2 n! (Table 2 also writes
    ~ n log2(n/e), the text ~ n log2(n/2)); complete bipartite: n; a generic symmetric graph
    without self-loops: n(n-1)/2 (Table 2 lists n(n+1)/2 for symmetric relations with loops).
    """
    if name in ("mod3", "mod5"):
        return n * math.log2(int(name[-1]))
    if name == "greater_than":
        return log2_factorial(n)
    if name == "bipartite":
        return float(n)
    return n * (n - 1) / 2


def table2_excess_parts(name: str, n: int) -> tuple[float, float] | None:
    """Where Table 2's n log2 k (n for the bipartite graph, k = 2) overestimates the exact b of a
    relation with k classes: (equal_sizes, relabelling) in bits, summing to table2_bits - b.

    n log2 k counts every assignment of the n elements to k labelled classes. The relation fixes
    the class sizes s_c, which leaves the multinomial n! / prod s_c! assignments (`equal_sizes`:
    n log2 k minus its log2), and classes of equal size can be relabelled without changing the
    relation (`relabelling`: sum over sizes of log2 (number of classes of that size)!). None for a
    relation without classes.
    """
    labels = class_labels(name, n)
    if labels is None:
        return None
    counts = np.bincount(labels)
    log2_multinomial = log2_factorial(n) - sum(log2_factorial(int(s)) for s in counts)
    relabelling = sum(log2_factorial(m) for m in Counter(counts.tolist()).values())
    return table2_bits(name, n) - log2_multinomial, relabelling
