"""lib/theory/symbolic_one_layer.py: the sympy derivations hold, and they would notice a wrong claim."""

import sympy as sp

from lib.theory import symbolic_one_layer as sym


def test_all_derivations_hold_at_small_dimensions():
    for s, d in [(1, 1), (2, 3), (3, 4)]:
        assert sym.loss_identity(d).holds
        assert sym.population_A(s, d).holds
        assert sym.gradient(d).holds
        assert sym.theorem_4_1(s, d).holds


def test_population_A_entries():
    result = sym.population_A(2, 3)
    mu1, sigma1 = sp.Symbol("mu_1", positive=True), sp.Symbol("sigma_1", positive=True)
    assert sp.simplify(result.derived[0, 0] - (sigma1**2 + mu1**2 / 2)) == 0
    assert result.derived[2, 2] == 0 and result.derived[0, 1] == 0


def test_checks_are_not_vacuous():
    assert not sym._equal(sym.population_A(2, 3).derived, sp.diag(1, 1, 0))
    w = sym.weight_matrix(2)
    assert not sym._equal(sym.gradient(2).derived, w * 2)
    assert sym._gaussian_expectation(sp.Symbol("x") ** 4, [sp.Symbol("x")]) == 3
