"""Tests of lib/theory/appendix_d_gaps.py: each gap of Appendix D reproduced by its computation."""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import pytest
import sympy as sp

from lib.theory import appendix_d_gaps as g
from lib.theory import assumptions_d as ad
from lib.theory import lemmas as lm
from lib.theory import two_layer as tl

A = tl.signal_strengths([1.0, 2.0], [0.05, 0.05], 2)


@pytest.fixture(scope="module")
def const():
    return ad.choose_constants(A, beta=2.0)


def test_d60_loses_a_factor_five():
    assert g.d60_over_d61() == sp.Rational(1, 5)


def test_d64_does_not_follow_with_the_factor(const):
    m = g.d64_margin(const, 2)
    assert m["printed"] < 1 <= m["corrected"]
    assert np.isclose(m["corrected"], 5 * m["printed"])


def test_assumption_d1_excludes_irrelevant_directions():
    assert g.largest_alpha([1.0, 2.0], [0.05, 0.05], 3) == 0.0
    assert g.largest_alpha([1.0, 2.0], [0.05, 0.05], 2) > 0
    c = ad.choose_constants(A, beta=2.0)
    a3 = tl.signal_strengths([1.0, 2.0], [0.05, 0.05], 3)
    assert "D.1" in ad.assumption_violations(c, a3, lm.spread_init(1, 3, c.beta, c.omega))


def test_figure_8_and_9_settings_violate_d5():
    assert (g.strength_ratios([1.0, 1.5, 2.2], [0.05] * 3) < 3).all()
    assert (g.strength_ratios([1.0, 1.5, 2.2, 2.7], [0.05, 0.05, 0.05, 0.5]) < 3).all()
    assert np.allclose(g.strength_ratios([1.0, 2.0], [0.0, 0.0], 2), 16.0)  # A^2 squares the ratios


def test_w_recursion_leaves_psd_cone_within_assumptions(const):
    w0 = g.rank_one_init(const)
    assert ad.assumption_violations(const, A, w0) == []
    assert g.first_step_determinant(const, A, w0[0]) < 0  # exact arithmetic, one step
    run = g.psd_loss_trajectory(const, A, w0, 30000)
    assert run["min_eig_rel"][1, 0] < -1e-7  # far above rounding
    assert run["first_negative_diagonal"][0] > 0
    assert run["lemmas"]["D.5"].any()  # 0 <= w_ii fails
    summary = g.psd_recursion_summary(const, A, w0, 30000)
    assert summary["assumptions"] == run["assumptions"]
    np.testing.assert_array_equal(summary["min_eig_rel_step_1"], run["min_eig_rel"][1])
    np.testing.assert_array_equal(summary["first_negative_diagonal"], run["first_negative_diagonal"])
    assert summary["first_failure"] == lm.first_failure(run["lemmas"])


def test_well_conditioned_init_stays_psd_one_step(const):
    w0 = lm.spread_init(3, 2, const.beta, const.omega, seed=0)
    assert all(g.first_step_determinant(const, A, w) > 0 for w in w0)


def test_two_t1_definitions(const):
    t1 = g.t1_definitions(const)
    assert np.isclose(t1["ratio"], const.kappa**2)
    w = lm.discrete_run(lm.spread_init(2, 2, const.beta, const.omega, seed=0), A, const.eta, int(t1["proof_d1"]) + 1)
    assert not g.phase_exit_before(w, const, t1["lemma_d2"]).any()
    assert g.phase_exit_before(w, const, t1["proof_d1"]).all()
