"""Tests of lib/theory/lemmas.py: constants meet the assumptions, the checks catch what they should."""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import pytest

from lib.theory import assumptions_d as ad
from lib.theory import lemmas as lm
from lib.theory import two_layer as tl

A = tl.signal_strengths([1.0, 2.0], [0.05, 0.05], 2)


@pytest.fixture(scope="module")
def setting():
    c = ad.choose_constants(A, beta=2.0)
    w0 = lm.spread_init(2, 2, c.beta, c.omega, seed=0)
    w = lm.discrete_run(w0, A, c.eta, ad.steps_to_converge(c, A))
    return c, w0, w


def test_chosen_constants_meet_every_assumption(setting):
    c, w0, _ = setting
    assert ad.assumption_violations(c, A, w0) == []


def test_spread_init_is_psd_and_in_band():
    w0 = lm.spread_init(20, 3, 3.0, 1e-5, seed=1)
    m = np.abs(w0)
    assert (m >= 1e-5 * (1 - 1e-9)).all() and (m <= 3e-5 * (1 + 1e-9)).all()
    assert (np.linalg.eigvalsh(w0)[:, 0] > 0).all()


def test_discrete_run_is_euler_of_d2():
    w0 = tl.gram(np.random.default_rng(0).standard_normal((3, 2, 2))) * 0.01
    w = lm.discrete_run(w0, A, 0.01, 2)
    assert np.allclose(w[1], w0 + 0.01 * tl.w_rhs(w0, A))


@pytest.mark.parametrize("d", [2, 3, 4])
def test_discrete_run_equals_stepping_w_rhs(d):
    """The entrywise update equals W + eta w_rhs(W) stepped as matrices, settings batched or not, up to rounding."""
    rng = np.random.default_rng(d)
    w0 = tl.gram(rng.standard_normal((5, d, d))) * 0.1
    a, eta = rng.uniform(0.3, 2.0, (5, d)), rng.uniform(0.005, 0.02, 5)
    ref = [w0]
    for _ in range(300):
        ref.append(ref[-1] + eta[:, None, None] * tl.w_rhs(ref[-1], a))
    w = lm.discrete_run(w0, a, eta, 300)
    np.testing.assert_allclose(w, np.stack(ref), rtol=1e-12, atol=1e-15)
    assert (w == np.swapaxes(w, -1, -2)).all()  # symmetric to the last bit
    one = lm.discrete_run(w0[:1], a[0], eta[0], 300)  # one setting alone: the same numbers as in the batch
    assert np.array_equal(one[:, 0], w[:, 0])
    assert np.array_equal(lm.discrete_run(w0, a, eta, 300, record=False), w[-1])


def test_lemmas_hold_and_converge(setting):
    c, _, w = setting
    v = lm.lemma_violations(w, A, c)
    assert set(v) == {f"D.{k}" for k in range(1, 9)}
    assert all(not x.any() for x in v.values())
    assert np.allclose(np.diagonal(w[-1], axis1=-2, axis2=-1), 1.0, atol=2 / c.K)


def test_corollary_d1_needs_p_squared(setting):
    c, _, w = setting
    assert lm.corollary_d1_violations(w, A, c).any()
    assert not lm.corollary_d1_violations(w, A, c, p_power=2).any()
    for p in (1, 2):  # the peak against the cap is "some entry above the cap", as written in Corollary D.1
        cap = 2 * c.P**p * c.gamma * c.alpha * len(A) * c.beta**2 * c.omega**2 * (1 + ad.RTOL)
        some = (np.abs(tl.noise_term(w, A)) > cap).any((-2, -1))
        assert np.array_equal(lm.corollary_d1_violations(w, A, c, p), some)
    over = np.array([np.full((2, 2), np.nan), [[1.0, 1e200], [1e200, 1.0]]])[:, None]  # runs that overflowed
    assert list(lm.noise_peak(over, A)[:, 0] > 1.0) == [False, True]  # NaN: no violation; infinite: one


def test_a_broken_bound_is_caught(setting):
    c, _, w = setting
    bad = w.copy()
    bad[5:, 0, 0, 1] = bad[5:, 0, 1, 0] = 0.5  # an off-diagonal entry leaves the initial phase
    v = lm.lemma_violations(bad, A, c)
    assert v["D.8"][5:, 0].all() and not v["D.8"][:5].any()
    assert lm.first_failure(v)[1] == 5


@pytest.mark.slow(9)
def test_breaking_d5_breaks_suppression(setting):
    c, w0, w = setting
    a_close = tl.signal_strengths([1.0, 1.3], [0.05, 0.05], 2)
    c2 = ad.broken(c, gamma=float(a_close.max() / a_close.min()))
    out = lm.check_settings({"ok": (c, A), "D.5": (c2, a_close)}, 2, len(w) - 1, seed=0)
    assert np.allclose(out["ok"]["final"], w[-1])  # batched settings = separate runs
    assert out["ok"]["assumptions"] == [] and out["D.5"]["assumptions"] == ["D.5"]
    assert out["ok"]["corollary_p"] > 0 and out["ok"]["corollary_p2"] == 0  # Corollary D.1 needs P^2 (see above)
    assert lm.first_failure(out["ok"]["lemmas"]) == (None, None)
    assert lm.first_failure(out["D.5"]["lemmas"])[0] == "D.7"


def test_discrete_run_final_only_matches_recorded():
    w0 = tl.gram(np.random.default_rng(2).standard_normal((3, 2, 2))) * 0.01
    assert np.allclose(lm.discrete_run(w0, A, 0.01, 50, record=False), lm.discrete_run(w0, A, 0.01, 50)[-1])
