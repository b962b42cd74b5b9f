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
