"""lib.geneft.repons and lib.geneft.symbolic: eqs. (8)-(13) against integration, sympy and Monte Carlo."""
import numpy as np
import pytest
from scipy.integrate import solve_ivp

from lib.geneft import repons, symbolic


def test_sympy_derivations_of_appendix_c_and_theorem_3_hold():
    checks = symbolic.all_checks()
    assert all(checks.values()), checks


def test_matrix_flow_eq8_follows_the_reduced_system_eq10():
    """Under the ansatz conditions (|r0| = 1, A0^T A0 r0 = r0), eq. (8) projects exactly onto eq. (10)."""
    th = 0.7
    A0 = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]]) @ np.diag([1.0, 0.4])
    r0 = np.array([1.0, 0.0])
    a2_0, c_0, eta_A, eta_x = 1.3, 0.8, 0.6, 1.1

    def rhs(_, z):
        dA, dr = repons.pair_flow(z[:4].reshape(2, 2), z[4:], eta_A, eta_x)
        return np.r_[dA.ravel(), dr]

    sol = solve_ivp(rhs, (0, 3), np.r_[(a2_0 * A0).ravel(), c_0 * r0], rtol=1e-10, atol=1e-12)
    a2, c = repons.integrate_reduced(a2_0, c_0, eta_A, eta_x, 3.0)
    A_end, r_end = sol.y[:4, -1].reshape(2, 2), sol.y[4:, -1]
    np.testing.assert_allclose(r_end, [c[-1, 0], 0.0], atol=1e-7)
    np.testing.assert_allclose(A_end @ r0, a2[-1, 0] * A0 @ r0, atol=1e-7)


def test_conserved_quantity_and_limit_points_along_integration():
    rng = np.random.default_rng(1)
    a0, c0 = rng.normal(size=50), rng.normal(size=50)
    a2, c = repons.integrate_reduced(a0, c0, 0.5, 2.0, 200.0, t_eval=[0.0, 1.0, 200.0])
    C = repons.conserved(a2, c, 0.5, 2.0)
    np.testing.assert_allclose(C, np.broadcast_to(C[0], C.shape), rtol=1e-5, atol=1e-6)
    a_lim, c_lim = repons.limit_point(a0, c0, 0.5, 2.0)
    decided = np.abs(C[0]) > 0.05
    np.testing.assert_allclose(a2[-1, decided], a_lim[decided], atol=1e-3)
    np.testing.assert_allclose(c[-1, decided], c_lim[decided], atol=1e-3)


def test_separatrix_splits_collision_from_no_collision():
    k = repons.separatrix_slope(0.3, 1.2)
    assert k == pytest.approx(np.sqrt(1.2 / 0.6))
    a = np.ones(2)
    hit = repons.collided(a, np.array([0.9 * k, 1.1 * k]), 0.3, 1.2, t_max=2000.0)
    np.testing.assert_array_equal(hit, [True, False])


def test_arctan_law_forms():
    ratio, lr = 1.7, 0.3
    assert repons.arctan_law(ratio, lr) == pytest.approx(2 / np.pi * np.arctan(ratio * np.sqrt(lr / 2)))
    assert repons.arctan_law(ratio, lr, 3) == pytest.approx(2 / np.pi * np.arctan(ratio * np.sqrt(lr / (4 / (1 + 1 / 3)))))
    assert repons.arctan_law(1.0, 1e9) == pytest.approx(1.0, abs=1e-4)


@pytest.mark.parametrize("sigma_a, eta_x", [(0.5, 1.0), (2.0, 0.1)])
def test_monte_carlo_of_eq10_matches_the_arctan_law(sigma_a, eta_x):
    p = repons.monte_carlo_reduced(sigma_a, 1.0, 1.0, eta_x, samples=4000, seed=0, t_max=1e4)
    assert p == pytest.approx(repons.arctan_law(sigma_a, eta_x), abs=0.025)


def test_cluster_set_is_invariant_under_the_full_gradient_flow():
    n = 5
    a, x = np.array([0.7]), (1.3 * np.r_[n, -np.ones(n)] / (n + 1))[None]
    da, dx = repons.cluster_gradient_flow(a, x, 0.4, 0.9)
    np.testing.assert_allclose(dx[0, 1:], dx[0, 1])  # the cluster moves together
    assert dx[0].sum() == pytest.approx(0.0, abs=1e-12)  # centre of mass at rest


def test_one_repon_against_n_clustered_matches_eq13():
    p = repons.monte_carlo_cluster(1.0, 1.0, 1.0, 0.5, 6, samples=4000, seed=2, t_max=1e4)
    assert p == pytest.approx(repons.arctan_law(1.0, 0.5, 6), abs=0.025)
