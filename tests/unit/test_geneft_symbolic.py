"""lib.geneft.symbolic: the checks beyond the paper and the typos the book corrects (errata)."""

from lib.geneft import symbolic


def test_matrix_M_is_conserved_along_eq8():
    assert symbolic.matrix_conserved_quantity(2, 2)
    assert symbolic.matrix_conserved_quantity(1, 2)


def test_eq14_needs_the_factor_2_in_db_dt():
    assert symbolic.eq14_bias_factor() == {"printed_solves_stated_b": False, "corrected_solves_stated_b": True}


def test_eq12_needs_abs_and_sigma_c():
    assert all(symbolic.eq12_signed_region().values())


def test_ansatz_needs_the_eigenvector_condition():
    assert symbolic.reduced_system_from_ansatz()
    assert symbolic.ansatz_needs_the_eigenvector_condition()


def test_is_zero_expands_then_simplifies():
    """A polynomial identity is decided by expansion, one that needs sin^2 + cos^2 = 1 or exp rules by the
    simplification after it, and a nonzero difference stays nonzero (entries of a matrix likewise)."""
    import sympy as sp

    x, y = sp.symbols("x y", real=True)
    assert symbolic._is_zero((x + y) ** 3 - (x**3 + 3 * x**2 * y + 3 * x * y**2 + y**3))
    assert symbolic._is_zero(sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1)
    assert symbolic._is_zero(sp.exp(x) * sp.exp(-x) - 1)
    assert not symbolic._is_zero(sp.sin(x) ** 2 - sp.cos(x) ** 2)
    assert symbolic._is_zero(sp.Matrix([[x * (x + 1) - x**2 - x, 0]]))
    assert not symbolic._is_zero(sp.Matrix([0, x - y]))
