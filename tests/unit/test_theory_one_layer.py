"""lib/theory/one_layer.py and one_layer_compare.py against closed forms, brute force and each other."""

import numpy as np
import pytest
import torch

from lib.sim.data import population_second_moment, sim_dataset
from lib.theory.one_layer import (
    closed_form_output,
    discrete_output,
    discrete_rates,
    effective_lr,
    fit_rates,
    flow_output,
    gd_outputs,
    gradient_flow_numeric,
    growth_and_noise,
    half_times,
    is_monotone,
    matrix_loss,
    monotonicity_margin,
    ood_loss,
    ood_loss_flow,
    random_init,
    sampled_loss,
    second_moment,
    sgd_outputs,
)
from lib.theory.one_layer_compare import Setting, compare, lr_refinement, monotonicity_sweep, order_map, vary_first

RNG = np.random.default_rng(0)
D, S = 5, 2
A = np.array([0.7, 1.9, 0.0, 0.0, 0.0])
Z = np.array([1.0, 2.0, 0.0, 0.0, 0.0])
W0 = 0.1 * RNG.standard_normal((D, D))
T = np.linspace(0, 6, 61)


# ----------------------------------------------------------------------------------------------
# Losses
# ----------------------------------------------------------------------------------------------


def test_sampled_loss_equals_matrix_loss_and_gradient_is_w_minus_i_times_a():
    x = RNG.standard_normal((300, D)) * [1, 2, 0.5, 0, 0]
    w = RNG.standard_normal((D, D))
    assert sampled_loss(w, x) == pytest.approx(matrix_loss(w, second_moment(x)), rel=1e-12)
    wt = torch.tensor(w, requires_grad=True)
    xt = torch.tensor(x)
    (0.5 * ((xt @ wt.T - xt) ** 2).sum(-1).mean()).backward()
    np.testing.assert_allclose(wt.grad.numpy(), (w - np.eye(D)) @ second_moment(x), atol=1e-12)


def test_effective_lr():
    assert effective_lr(0.1, "half_sum", 64) == 0.1
    assert effective_lr(0.1, "mse", 64) == pytest.approx(0.1 * 2 / 64)
    with pytest.raises(ValueError, match="loss_scaling"):
        effective_lr(0.1, "sum", 64)


# ----------------------------------------------------------------------------------------------
# Theorem 4.1 and the discrete solution
# ----------------------------------------------------------------------------------------------


def test_closed_form_matches_integrated_flow():
    np.testing.assert_allclose(closed_form_output(W0, A, Z, T), gradient_flow_numeric(W0, A, Z, T), atol=1e-8)


def test_growth_and_noise_terms_by_hand():
    growth, noise = growth_and_noise(W0, A, Z, T)
    k, i = 0, np.arange(S)
    np.testing.assert_allclose(growth[:, k], (1 - np.exp(-A[k] * T)) * Z[k])
    np.testing.assert_allclose(noise[:, 3], (np.exp(-np.outer(T, A[i])) * W0[3, i] * Z[i]).sum(-1))
    assert np.all(growth[:, 2:] == 0)  # k > s: no growth (indicator of eq. 4.2)
    np.testing.assert_allclose(growth[0] + noise[0], W0 @ Z)  # t = 0: the initial output
    np.testing.assert_allclose(growth[-1] + noise[-1], Z, atol=0.1 * np.exp(-A[0] * T[-1]) * 10)


def test_batched_closed_form_equals_per_setting():
    w0 = np.stack([W0, 2 * W0])
    out = closed_form_output(w0, np.stack([A, 2 * A]), np.stack([Z, Z]), T)
    np.testing.assert_allclose(out[:, 1], closed_form_output(2 * W0, 2 * A, Z, T))


def test_discrete_solution_equals_iterated_gd_and_powers():
    x = sim_dataset([1.0, 2.0], [0.3, 0.1], D, 200, rotate=True, seed=1).x
    probe = RNG.standard_normal(D)
    gd = gd_outputs(x[None], W0[None], probe[None], 0.1, 30)[:, 0]
    np.testing.assert_allclose(discrete_output(W0, second_moment(x), probe, 0.1, 30), gd, atol=1e-12)
    exact = Z - (np.eye(D) - W0) @ np.diag((1 - 0.1 * A) ** 7) @ Z
    np.testing.assert_allclose(discrete_output(W0, np.diag(A), Z, 0.1, 7)[-1], exact, atol=1e-12)


def test_discrete_tends_to_flow_as_lr_shrinks():
    errors = []
    for lr in (0.1, 0.05, 0.025):
        steps = int(round(4 / lr))
        disc = discrete_output(W0, np.diag(A), Z, lr, steps)
        errors.append(np.abs(disc - closed_form_output(W0, A, Z, lr * np.arange(steps + 1))).max())
    assert errors[0] / errors[1] == pytest.approx(2, rel=0.15)
    assert errors[1] / errors[2] == pytest.approx(2, rel=0.15)


# ----------------------------------------------------------------------------------------------
# SGD
# ----------------------------------------------------------------------------------------------


def test_sgd_with_full_batch_is_gd_and_is_deterministic():
    x = sim_dataset([1.0, 2.0], [0.3, 0.1], D, 50, seed=2).x[None]
    full = sgd_outputs(x, W0[None], Z[None], 0.1, batch=100, steps=20, seeds=[0])
    np.testing.assert_allclose(full.outputs, gd_outputs(x, W0[None], Z[None], 0.1, 20), atol=1e-12)
    mini = [sgd_outputs(x, W0[None], Z[None], 0.1, batch=16, steps=20, seeds=[3]).outputs for _ in range(2)]
    np.testing.assert_array_equal(*mini)
    assert full.train_loss.shape == (20, 1)


def test_sgd_batched_settings_are_independent_of_each_other():
    x = np.stack([sim_dataset([1.0, 2.0], [0.3, 0.1], D, 50, seed=k).x for k in range(2)])
    both = sgd_outputs(x, np.stack([W0, W0]), np.stack([Z, Z]), 0.1, batch=16, steps=20, seeds=[5, 6]).outputs
    alone = sgd_outputs(x[1:], W0[None], Z[None], 0.1, batch=16, steps=20, seeds=[6]).outputs
    np.testing.assert_allclose(both[:, 1], alone[:, 0], atol=1e-12)


# ----------------------------------------------------------------------------------------------
# Reading trajectories
# ----------------------------------------------------------------------------------------------


def test_fit_rates_recovers_exponentials_and_discrete_rates():
    t = 0.05 * np.arange(200)
    f = Z[:S] * (1 - np.exp(-np.outer(t, A[:S])))
    np.testing.assert_allclose(fit_rates(t, f, Z[:S]), A[:S], rtol=1e-9)
    assert discrete_rates(np.array([1e-6]), 0.1)[0] == pytest.approx(1e-6, rel=1e-6)
    assert discrete_rates(np.array([2.0]), 0.1)[0] == pytest.approx(-np.log(0.8) / 0.1)


def test_half_times_closed_form_and_offset():
    t = np.linspace(0, 10, 100001)
    f = Z[:S] * (1 - np.exp(-np.outer(t, A[:S])))
    np.testing.assert_allclose(half_times(t, f, Z[:S]), np.log(2) / A[:S], rtol=1e-6)
    shifted = f + 0.3 * np.exp(-np.outer(t, A[:S]))  # an initial offset decaying at the same rate
    np.testing.assert_allclose(half_times(t, shifted, Z[:S]), np.log(2) / A[:S], rtol=1e-6)
    assert np.isinf(half_times(t[:3], f[:3], Z[:S])).all()


def test_ood_loss_flow_matches_closed_form_output():
    w0 = np.stack([W0, 5 * W0])
    expected = ood_loss(closed_form_output(w0, A, Z, T), Z)
    np.testing.assert_allclose(ood_loss_flow(w0, A, Z, T), expected, rtol=1e-10)


# ----------------------------------------------------------------------------------------------
# The monotonicity certificate
# ----------------------------------------------------------------------------------------------


def test_certificate_at_zero_init_is_min_a_and_implies_monotone_loss():
    assert monotonicity_margin(np.zeros((D, D)), A) == pytest.approx(A[:S].min())
    w0 = random_init((300, S, S), 0.8, 0)
    a, z, t = A[:S], Z[:S], np.linspace(0, 20, 4001)
    certified = monotonicity_margin(w0, a) > 0
    monotone = is_monotone(ood_loss_flow(w0, a, z, t))
    assert certified.any() and (~monotone).any()  # both cases occur at this scale
    assert np.all(monotone[certified])  # the certificate is sufficient


def test_certificate_fails_for_a_correlated_example():
    # columns of C nearly parallel and opposite in sign: l(t) first falls, then rises
    c = np.array([[1.0, -0.99], [0.0, 0.1411]])
    a, z = np.array([0.2, 3.0]), np.array([1.0, 1.0])
    w0 = np.eye(2) - c
    assert monotonicity_margin(w0, a) < 0
    assert not is_monotone(ood_loss_flow(w0, a, z, np.linspace(0, 10, 2001)))


# ----------------------------------------------------------------------------------------------
# Comparison helpers
# ----------------------------------------------------------------------------------------------


def test_compare_small_run_is_consistent():
    settings = vary_first([1.0, 2.0], [0.05, 0.05], 0.01, mu1=[1.5], std1=[0.5])
    assert settings[0].mu == (1.5, 2.0) and settings[1].std == (0.5, 0.05)
    c = compare(
        settings + [Setting((1.0, 2.0), (0.05, 0.05), 0.3)],
        d=6,
        n=400,
        lr=0.05,
        batch=64,
        steps=60,
        seed=0,
        rotate=True,
        origin_cluster=False,
    )
    assert c.theory.shape == c.gd.shape == c.sgd.shape == (61, 3, 6)
    np.testing.assert_allclose(
        c.a,
        np.stack(
            [population_second_moment(st.mu, st.std, 6) for st in settings + [Setting((1.0, 2.0), (0.05, 0.05), 0.3)]]
        ),
    )
    np.testing.assert_allclose(c.gd, discrete_output(c.w0, c.a_hat, c.z, 0.05, 60), atol=1e-10)
    assert np.abs(c.discrete - c.gd).max() < 0.05  # finite n only
    lrs, errors = lr_refinement(c, 0, factors=(1, 2))
    assert lrs[1] == pytest.approx(0.025) and errors[1] < errors[0]


def test_order_map_follows_a_off_the_boundary():
    om = order_map(
        [1.0, 2.0],
        [0.05, 0.05],
        np.linspace(0.5, 3, 6),
        np.linspace(0, 2, 6),
        n=2000,
        lr=0.1,
        init_scale=0.01,
        seed=0,
        origin_cluster=False,
    )
    assert om.first_sim.shape == (6, 6) and om.matches_theory
    assert om.first_theory[0, 0] == 1 and om.first_theory[-1, -1] == 0
    assert om.near_boundary.any() and not om.near_boundary.all()


def test_monotonicity_sweep_small_init_is_always_monotone():
    certified, rising = monotonicity_sweep(A[:S], Z[:S], [0.001, 2.0], 100, np.linspace(0, 20, 1001), 0)
    assert certified[0] == 1 and rising[0] == 0
    assert rising[1] > 0


def test_flow_output_for_a_general_symmetric_a():
    np.testing.assert_allclose(flow_output(W0, np.diag(A), Z, T), closed_form_output(W0, A, Z, T), atol=1e-12)
    x = sim_dataset([1.0, 2.0], [0.3, 0.1], D, 100, rotate=True, seed=3).x
    a_hat = second_moment(x)
    probe = x[0]
    lam, vec = np.linalg.eigh(a_hat)
    # the numeric flow integrates diagonal A only: solve in A_hat's eigenbasis and rotate back
    w0_eig = vec.T @ W0 @ vec
    expected = gradient_flow_numeric(w0_eig, lam, vec.T @ probe, T) @ vec.T
    np.testing.assert_allclose(flow_output(W0, a_hat, probe, T), expected, atol=1e-7)


def test_rate_refinement_tends_to_a_in_the_flow_limit():
    from lib.theory.one_layer_compare import rate_refinement

    c = compare(
        [Setting((1.0, 2.0), (0.05, 0.05), 0.01)],
        d=4,
        n=4000,
        lr=0.1,
        batch=128,
        steps=200,
        seed=1,
        rotate=True,
        origin_cluster=False,
    )
    r = rate_refinement(c, 0, factors=(1, 2, 4))
    assert r.rates.shape == (3, 2) and r.discrete.shape == (3, 2)
    err = np.abs(r.rates / r.a - 1).max(axis=1)
    assert err[0] > 0.08 and np.all(np.diff(err) < 0)  # lr a_2 = 0.2: the discrete rate is ~12% off
    np.testing.assert_allclose(r.rates[0], r.discrete[0], rtol=0.03)
    assert r.flow_limit_rel_error < 0.02 and r.sampling_rel_error < 0.02
    np.testing.assert_allclose(r.flow_limit, r.flow, rtol=0.02)


def test_fig2_conventions_read_sigma_loss_and_origin_differently():
    from lib.theory.one_layer_compare import AUTHORS, PAPER, fig2_conventions

    paper, authors = fig2_conventions([1.0, 2.0], [0.05, 0.05], fig2a_mu1=[3.0], fig2b_sigma1=[0.5], d=64, lr=0.1)
    assert paper.convention == PAPER and authors.convention == AUTHORS
    np.testing.assert_allclose(paper.a[1], [0.25 + 0.5, 0.0025 + 2.0])  # std 0.5, mu^2 / s
    np.testing.assert_allclose(authors.a[1], [0.5 + 1 / 3, 0.05 + 4 / 3])  # variance 0.5, mu^2 / (s + 1)
    assert authors.eta == pytest.approx(0.1 * 2 / 64) and paper.eta == 0.1
    assert list(paper.first) == [0, 1] and np.all(authors.half_steps > paper.half_steps)


# ----------------------------------------------------------------------------------------------
# Sharpness: the learning-rate limit behind sim_observations' validation
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_sharpness_times_depth_is_the_hessian_top_eigenvalue_at_the_identity(depth):
    """A depth-L linear model with bias, every factor I: the Hessian of 1/2 E||f(x) - x||^2 (per output
    row, a zero-residual point, so Gauss-Newton is exact) has top eigenvalue L x sharpness."""
    from lib.theory.one_layer_settings import sharpness

    mu, std, d = [1.0, 2.0], [0.3, 0.2], 2
    x = torch.tensor(sim_dataset(mu, std, d, 4000, origin_cluster=True, seed=1).x, dtype=torch.float64)
    shapes = [(d, d), (d,)] * depth

    def loss(*flat):
        y = x
        for w, b in zip(flat[::2], flat[1::2]):
            y = y @ (torch.eye(d, dtype=torch.float64) + w).T + b
        return 0.5 * ((y - x) ** 2).sum(1).mean() / d  # per output row

    zeros = tuple(torch.zeros(s, dtype=torch.float64) for s in shapes)
    blocks = torch.autograd.functional.hessian(loss, zeros)
    size = [z.numel() for z in zeros]
    hessian = torch.cat(
        [torch.cat([blocks[i][j].reshape(size[i], size[j]) for j in range(len(size))], 1) for i in range(len(size))]
    )
    top = torch.linalg.eigvalsh(hessian)[-1].item() * d
    assert top == pytest.approx(depth * sharpness(mu, std, origin_cluster=True, bias=True), rel=0.05)


def test_gradient_descent_diverges_just_above_the_sharpness_limit():
    from lib.theory.one_layer_settings import sharpness

    mu, std = [1.0, 2.0], [0.3, 0.2]
    x = sim_dataset(mu, std, 2, 4000, origin_cluster=True, seed=2).x
    z = np.hstack([x, np.ones((len(x), 1))])
    limit = 2 / sharpness(mu, std, origin_cluster=True, bias=True)
    for factor, diverges in ((0.9, False), (1.1, True)):
        w = np.zeros((2, 3))
        for _ in range(400):
            w -= factor * limit * (z @ w.T - x).T @ z / len(x)
        assert (np.abs(w).max() > 1e3) == diverges
