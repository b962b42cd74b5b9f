"""Tests of lib/theory/two_layer.py and lib/theory/symbolic_two_layer.py against closed forms and sympy."""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import pytest
import sympy as sp
import torch

from lib.sim.data import sim_dataset
from lib.theory import symbolic_two_layer as sym
from lib.theory import two_layer as tl

# ----------------------------------------------------------------------------------------------
# Symbolic derivation
# ----------------------------------------------------------------------------------------------


def test_gradient_flow_on_u_is_twice_d2():
    assert sym.time_rescaling(d=2, width=3) == 2


@pytest.mark.parametrize("d", [2, 3])
def test_decomposition_is_exact(d):
    assert sym.decomposition_exact(d)


def test_numeric_terms_match_sympy():
    d = 3
    rhs, g, s, n = sym.decomposition(d)
    rng = np.random.default_rng(0)
    w = tl.gram(rng.standard_normal((d, d)))
    a = rng.random(d) + 0.1
    subs = {sp.Symbol(f"a{k + 1}", positive=True): a[k] for k in range(d)}
    subs |= {sp.Symbol(f"w{i + 1}{j + 1}"): w[i, j] for i in range(d) for j in range(i, d)}
    for sym_m, num in zip((g, s, n), tl.terms(w, a)):
        assert np.allclose(np.array(sym_m.subs(subs), dtype=float), num)
    assert np.allclose(np.array(rhs.subs(subs), dtype=float), tl.w_rhs(w, a))


# ----------------------------------------------------------------------------------------------
# Flow
# ----------------------------------------------------------------------------------------------


def test_u_rhs_moves_w_by_d2():
    rng = np.random.default_rng(1)
    u, a = rng.standard_normal((5, 3, 4)), rng.random(3)
    du = tl.u_rhs(u, a)
    dw = du @ u.transpose(0, 2, 1) + u @ du.transpose(0, 2, 1)
    assert np.allclose(dw, tl.w_rhs(tl.gram(u), a))


def test_diagonal_init_follows_logistic_closed_form():
    # U diagonal: w_kk = u_k^2 obeys dw/dtau = 2 a w (1 - w), the logistic curve.
    a = np.array([0.5, 2.0])
    w0 = np.array([0.01, 0.02])
    u0 = np.diag(np.sqrt(w0))[None]
    times = tl.time_grid(10.0, 50)
    w = tl.integrate(u0, a, times)
    exact = w0 / (w0 + (1 - w0) * np.exp(-2 * a * times[:, None]))
    assert np.allclose(np.diagonal(w[:, 0], axis1=1, axis2=2), exact, atol=1e-6)


def test_batched_equals_one_by_one():
    a = tl.signal_strengths([1.0, 2.0], [0.05, 0.05], 2)
    u0 = tl.init_u(4, 2, 2, 0.05, seed=3)
    times = tl.time_grid(30.0, 60)
    batch = tl.integrate(u0, a, times)
    single = np.concatenate([tl.integrate(u0[i : i + 1], a, times) for i in range(4)], axis=1)
    assert np.abs(batch - single).max() < 1e-4


def test_losses_and_signal_strengths():
    a = tl.signal_strengths([1.0, 2.0], [0.1, 0.2], 3)
    assert np.allclose(a, [0.01 + 0.5, 0.04 + 2.0, 0.0])
    assert np.allclose(tl.signal_strengths([1.0, 2.0], [0.1, 0.2], 3, 2), a**2)
    w = np.zeros((1, 3, 3))
    assert np.isclose(tl.ood_loss(w, [1.0, 2.0])[0], 2.5)
    assert np.isclose(tl.train_loss(w, a)[0], 0.5 * a.sum())
    assert np.isclose(tl.train_loss(np.eye(3)[None], a)[0], 0.0)


def test_train_u_matches_flow():
    torch.set_num_threads(1)
    u0 = tl.init_u(2, 2, 2, 0.1, seed=0)
    taus, w_train = tl.train_u(u0, [1.0, 2.0], [0.05, 0.05], 2000, lr=0.02, steps=500, record_every=50)
    a = tl.signal_strengths([1.0, 2.0], [0.05, 0.05], 2)
    w_flow = tl.integrate(u0, a, taus)
    assert np.abs(w_train - w_flow).max() < 0.05


def _train_u_with_optimizer(u0, mu, sigma, n_per_cluster, lr, steps, batch, seed):
    """The plain formulation: W = U U^T by matmul, the losses as written, torch.optim.SGD; W at the end."""
    x = torch.as_tensor(sim_dataset(mu, sigma, u0.shape[1], n_per_cluster, seed=seed).x, dtype=torch.float64)
    second, eye = x.T @ x / len(x), torch.eye(u0.shape[1], dtype=torch.float64)
    u = torch.tensor(u0, dtype=torch.float64, requires_grad=True)
    gen, opt = torch.Generator().manual_seed(seed), torch.optim.SGD([u], lr=lr)
    for _ in range(steps):
        w = u @ u.transpose(1, 2)
        if batch is None:
            loss = 0.5 * torch.einsum("nij,jk,nik->", w - eye, second, w - eye)
        else:
            xb = x[torch.randint(len(x), (u.shape[0], batch), generator=gen)]
            loss = 0.5 * ((xb @ w - xb) ** 2).sum(-1).mean(-1).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return (u @ u.transpose(1, 2)).detach().numpy()


@pytest.mark.parametrize("batch", [None, 8])
def test_train_u_equals_the_optimizer_formulation(batch):
    torch.set_num_threads(1)
    u0 = tl.init_u(5, 3, 3, 0.1, seed=1)
    args = (u0, [0.7, 1.7, 3.0], [0.05] * 3, 200, 0.02, 150)
    _, w = tl.train_u(*args, record_every=150, batch=batch, seed=2)
    np.testing.assert_allclose(w[-1], _train_u_with_optimizer(*args, batch, 2), rtol=1e-12, atol=1e-15)


def test_init_kinds():
    assert (tl.init_u(3, 2, 2, 0.2, "uniform") >= 0).all()
    with pytest.raises(ValueError):
        tl.init_u(3, 2, 2, 0.2, "orthogonal")


# ----------------------------------------------------------------------------------------------
# Descents and stages
# ----------------------------------------------------------------------------------------------


def test_descents_ignore_noise_below_tolerance():
    t = np.linspace(0, 1, 500)
    mono = np.exp(-5 * t) + 1e-4 * np.sin(200 * t)
    assert tl.count_descents(mono, 0.01) == 1
    assert tl.max_bump(mono, 0.01) == 0.0


def test_descents_count_swings():
    t = np.linspace(0, 3 * np.pi, 1000)
    curve = np.cos(t) + 0.01 * t  # down, up, down
    assert tl.count_descents(curve, 0.1) == 2
    assert np.isclose(tl.max_bump(curve, 0.1), 2 + 0.01 * np.pi, atol=1e-2)
    assert tl.turning_points(curve, 0.1)[0] == 0


def test_positive_minor_sign():
    a = np.array([0.5, 2.0])
    w0 = np.array([[[1.0, 0.3], [0.3, 1.0]], [[1.0, -0.3], [-0.3, 1.0]]])
    assert list(tl.positive_minor(w0, a, 2)) == [True, False]


def test_stages_of_a_swing():
    r = tl.ensemble([1.0, 2.0], [0.05, 0.05], 2, 2, 0.05, "gaussian", 200, 60.0, 300, 0.01)
    i = int(np.flatnonzero(r["descents"] >= 2)[0])
    st = tl.stages(r["w"][:, i], r["a"], 2, r["times"], 0.05)
    kinds = [k for k, *_ in st]
    assert "growth" in kinds and "suppression" in kinds
    tol = 0.01 * r["loss"][0].mean()
    assert tl.stage_alignment(r["loss"][:, i], r["times"], st, tol) == 1.0


def test_failure_summary_on_a_hand_made_trajectory():
    times = np.linspace(0, 10, 11)
    w = np.zeros((11, 1, 2, 2))
    w[:, 0, 0, 0] = [0.2, 0.05, 0.01, 0.01, 0.01, 0.01, 0.3, 0.6, 0.9, 1.0, 1.0]
    w[:, 0, 1, 1] = [0.1, 0.5, 0.95, 1, 1, 1, 1, 1, 1, 1, 1]
    out = tl.failure_summary(w, times, [0.5, 2.0])
    assert out["suppressed"][0] and out["plateau"][0]
    assert out["escape"][0] == 7.0
    assert np.isclose(out["plateau_loss"][0], 0.5 * ((0.5 * 0.99) ** 2 + (2 * 0.05) ** 2))  # at tau = 2


def test_gaussian_init_moments():
    m11, m12 = tl.gaussian_init_moments(8, 0.1, 20000)
    assert abs(m11 / 0.08 - 1) < 0.03 and abs(m12) < 0.003


def test_batched_descents_match_one_curve_at_a_time():
    rng = np.random.default_rng(4)
    curves = np.cumsum(rng.standard_normal((300, 50)), axis=0)
    desc, bump = tl.descents_batch(curves, 2.0)
    assert list(desc) == [tl.count_descents(c, 2.0) for c in curves.T]
    assert np.allclose(bump, [tl.max_bump(c, 2.0) for c in curves.T])


def test_stepping_u_keeps_w_psd():
    a = tl.signal_strengths([1.0, 1.5, 2.2], [0.05] * 3, 3)
    w = tl.integrate(tl.init_u(100, 3, 3, 0.05, seed=5), a, tl.time_grid(100.0, 100))
    assert np.linalg.eigvalsh(w).min() > -1e-10


# ----------------------------------------------------------------------------------------------
# Estimates over all seeds (S-5, S-17, S-18)
# ----------------------------------------------------------------------------------------------


def test_swing_fractions_and_descent_fraction():
    est = tl.swing_fractions(np.array([1, 2, 3, 1]), np.array([0.0, 0.1, 0.2, 0.3]))
    assert est["nonmonotone"].value == 0.75 and est["two_descents"].value == 0.5
    assert est["nonmonotone"].n == 4 and est["nonmonotone"].low < 0.75 < est["nonmonotone"].high
    assert tl.descent_fraction(np.array([1, 3, 4]), 3).value == pytest.approx(2 / 3)


def test_nonmonotone_fraction_is_an_estimate_and_power_changes_it():
    one = tl.nonmonotone_fraction([1.0, 1.5], [0.05, 0.05], 3, 0.2, "uniform", 200, 20.0, 200, 0.01, 1, seed=0)
    two = tl.nonmonotone_fraction([1.0, 1.5], [0.05, 0.05], 3, 0.2, "uniform", 200, 20.0, 200, 0.01, 2, seed=0)
    assert one.n == 200 and two.high > 0 and one.low < one.value < one.high
    assert two.low > one.high  # A^2 swings far more often


@pytest.mark.parametrize(
    ("mu", "d", "init", "scale"), [([1.0, 2.0], 2, "gaussian", 0.05), ([1.0, 1.5, 2.2], 4, "uniform", 0.2)]
)
def test_stage_alignment_over_all_seeds_equals_one_seed_at_a_time(mu, d, init, scale):
    r = tl.ensemble(mu, [0.05] * len(mu), d, d, scale, init, 60, 60.0, 200, 0.01)
    tol = 0.01 * r["loss"][0].mean()
    for floor in (0.0, 0.005, 0.05):
        al = tl.stage_alignment_all(r["w"], r["loss"], r["a"], len(mu), r["times"], tol, floor)
        one = [
            tl.stage_alignment(
                r["loss"][:, i], r["times"], tl.stages(r["w"][:, i], r["a"], len(mu), r["times"], floor), tol
            )
            for i in range(60)
        ]
        np.testing.assert_array_equal(al, one)
    est = tl.stage_alignment_fraction(al, r["descents"] >= 2)
    assert est.n == int(((r["descents"] >= 2) & np.isfinite(al)).sum())


def test_turning_points_of_every_column_equal_one_column_at_a_time():
    rng = np.random.default_rng(3)
    t = np.linspace(0, 1, 300)[:, None]
    curves = np.cos(rng.uniform(1, 30, 40) * t) * rng.uniform(0.05, 1, 40) + 0.02 * rng.standard_normal((300, 40))
    curves[:, 0] = 1.0  # never moves by more than tol
    curves[:, 1] = np.linspace(1, 0, 300)  # one descent, the end its last point
    for tol in (0.01, 0.1, 0.5):
        pts = tl.turning_points_batch(curves, tol)
        for i in range(curves.shape[1]):
            assert [p for p in pts[i] if p >= 0] == tl.turning_points(curves[:, i], tol)


def test_cluster_detours_coincide_in_two_dimensions():
    r = tl.ensemble([1.0, 2.0], [0.05, 0.05], 2, 2, 0.05, "gaussian", 40, 60.0, 200, 0.01)
    det = tl.cluster_detours(r["w"], [1.0, 2.0])
    assert (det["peak_time"][:, 0] == det["peak_time"][:, 1]).all()  # both are |w_12|
    assert not det["different_stages"].any()
    assert tl.learned_concepts(np.eye(3)[None], 2)[0] == 2


def test_training_curves_gd_loss_decreases():
    u0 = tl.init_u(3, 2, 2, 0.05, seed=0)
    run = tl.training_curves(u0, [1.0, 2.0], [0.05, 0.05], 300, lr=0.02, steps=600, record_every=10)
    assert np.all(np.diff(run["train"], axis=0) <= 1e-12)
    assert (tl.descents_batch(run["train"], 1e-3 * run["train"][0].mean())[1] == 0).all()
    x = np.random.default_rng(0).standard_normal((50, 2))
    w = np.random.default_rng(1).standard_normal((2, 2))
    assert np.isclose(tl.empirical_train_loss(w, x), 0.5 * (((x @ (w - np.eye(2)).T) ** 2).sum(1)).mean())


def test_escape_time_median_censors_at_horizon():
    est = tl.escape_time_median(np.array([1.0, 2.0, 3.0, np.inf, 5.0]), horizon=10.0)
    assert est.value == 3.0 and "1 censored" in est.method


def test_fraction_difference_interval():
    est = tl.fraction_difference(np.arange(100) < 60, np.arange(200) < 40)
    assert np.isclose(est.value, 0.4) and est.low < 0.4 < est.high and est.n == 100
