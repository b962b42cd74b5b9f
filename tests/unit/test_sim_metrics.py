"""lib.sim.metrics against hand-computed values and brute force."""

import itertools

import numpy as np
import pytest

from lib.sim import metrics as M
from lib.sim.data import sim_dataset

# ----------------------------------------------------------------------------------------------
# Out-of-distribution test point
# ----------------------------------------------------------------------------------------------


def test_density_ratio_closed_form():
    """Clusters (1,0), (0,2), (0,0) with variance v: at x_hat = (1,2) the ratio is about exp(-1 / (2 v))."""
    v = 0.05
    ds = sim_dataset([1.0, 2.0], [v, v], 4, 10, sigma_is_variance=True, origin_cluster=True)
    own = 1 + np.exp(-5 / (2 * v)) + np.exp(-4 / (2 * v))  # at (0, 2): its own cluster, (1, 0), the origin
    at_test = np.exp(-1 / (2 * v)) + np.exp(-4 / (2 * v)) + np.exp(-5 / (2 * v))
    assert np.isclose(M.density_ratio_at_test(ds, True), at_test / own, rtol=1e-9)


def test_fraction_near_test():
    ds = sim_dataset([1.0, 2.0], [0.5, 0.5], 3, 2000, seed=1)
    brute = np.mean([np.linalg.norm(x - ds.test_point) < 0.5 for x in ds.x])
    assert M.fraction_near_test(ds, 0.5) == brute
    cut = sim_dataset([1.0, 2.0], [0.5, 0.5], 3, 2000, seed=1, truncate_radius=0.5)
    assert M.fraction_near_test(cut, 0.5) == 0


# ----------------------------------------------------------------------------------------------
# Order and slow-down
# ----------------------------------------------------------------------------------------------


def test_progress_and_learned_first():
    t = np.linspace(0, 1, 101)[:, None]
    mu = np.array([1.0, 2.0])
    traj = np.hstack([t**2 * mu[0], np.sqrt(t) * mu[1]])  # concept 2 runs ahead
    assert np.allclose(M.concept_progress(traj, mu)[-1], 1.0)
    assert M.learned_first(traj, mu) == 1
    assert M.learned_first(traj[:, ::-1] * mu / mu[::-1], mu) == 0
    assert M.learned_first(traj[:10], mu) == -1  # mean progress never reaches 1/2


def test_terminal_slowdown_of_an_exponential():
    t = np.arange(20000)[:, None]
    target = np.array([1.0, 2.0])
    traj = target * (1 - np.exp(-1e-3 * t))
    assert np.isclose(M.terminal_slowdown(traj, target), np.log(2) / np.log(10 / 9), rtol=0.01)
    assert np.isnan(M.terminal_slowdown(traj[:100], target))


# ----------------------------------------------------------------------------------------------
# Detour and loss rise
# ----------------------------------------------------------------------------------------------


def test_detour_straight_path_is_zero():
    mu = np.array([1.0, 2.0])
    traj = np.linspace(0, 1, 50)[:, None] * np.r_[mu, 0.0]
    det = M.detour(traj, mu)
    assert np.allclose(det["in_plane"], 0) and np.allclose(det["toward"], 0) and np.allclose(det["out_of_plane"], 0)


def test_detour_through_the_strongest_cluster():
    """Path 0 -> (0, 2) -> (1, 2): at (0, 2) the distance to the segment is 2/sqrt(5), all toward (0, 2)."""
    mu = np.array([1.0, 2.0])
    traj = np.array([[0.0, 0.0, 0.0], [0.0, 2.0, 0.5], [1.0, 2.0, 0.0]])
    det = M.detour(traj, mu)
    scale = np.sqrt(5)
    assert np.isclose(det["in_plane"][1], 2 / np.sqrt(5) / scale)
    assert np.isclose(det["toward"][1], 0.8 / scale)  # deviation (-0.8, 0.4) along (-1, 0)
    assert np.isclose(det["out_of_plane"][1], 0.5 / scale)


def test_loss_rise():
    assert M.loss_rise(np.array([4.0, 3.0, 2.0, 2.0, 1.0])) == 0
    assert np.isclose(M.loss_rise(np.array([4.0, 2.0, 3.0, 2.5, 0.5])), 0.25)
    assert np.isclose(M.ood_loss(np.array([[1.0, 1.0]]), np.array([0.0, 3.0]))[0], 2.5)


# ----------------------------------------------------------------------------------------------
# Order homomorphism on the hypercube
# ----------------------------------------------------------------------------------------------


def _combos(s):
    return np.array(list(itertools.product([0, 1], repeat=s)), dtype=float)


def test_comparable_pairs_count_is_3s_minus_2s():
    for s in (1, 2, 3, 4):
        assert len(M.comparable_pairs(_combos(s))) == 3**s - 2**s


def test_max_order_violation_brute_force():
    combos = _combos(3)
    rng = np.random.default_rng(0)
    losses = rng.random((5, 8))
    brute = [
        max(
            losses[t, u] - losses[t, v] for u in range(8) for v in range(8) if u != v and np.all(combos[u] <= combos[v])
        )
        for t in range(5)
    ]
    np.testing.assert_allclose(M.max_order_violation(losses, combos), brute)
    monotone = combos.sum(axis=1)[None] * np.ones((3, 1))
    assert M.max_order_violation(monotone, combos).tolist() == [-1, -1, -1]  # eq. (B.2) holds at every step
    assert M.max_order_violation(-monotone, combos).tolist() == [3, 3, 3]


def test_learning_order_violations():
    combos = _combos(2)  # 00, 01, 10, 11
    t_learned = np.array([0, 2, 4, 6])
    losses = (np.arange(8)[:, None] < t_learned[None]).astype(float)  # loss 1 until learned, then 0
    assert M.learning_order_violations(losses, combos, 0.5) == 0
    swapped = (np.arange(8)[:, None] < np.array([0, 2, 7, 6])[None]).astype(float)  # 11 before 10
    assert M.learning_order_violations(swapped, combos, 0.5) == 1
    never = np.ones((8, 4))
    never[:, 3] = 0  # 11 learned, nothing else: 00, 01, 10 all violate
    assert M.learning_order_violations(never, combos, 0.5) == 3


def test_turn_back_measures_the_retreat_from_the_running_peak_above_the_start():
    from lib.sim.metrics import turn_back

    mu = np.array([1.0, 2.0])
    straight = np.linspace([0, 0], [1, 2], 50)
    np.testing.assert_array_equal(turn_back(straight, mu), [0, 0])
    swing = np.array([[0, 0], [0.6, 0.5], [0.3, 1.5], [1.0, 2.0]])  # toward x_hat, back toward (0, 2), return
    np.testing.assert_allclose(turn_back(swing, mu), [0.3, 0.0])
    offset = np.array([[0.4, 0], [0.1, 1.0], [1.0, 2.0]])  # starts high: an init offset, no turn-back
    np.testing.assert_allclose(turn_back(offset, mu), [0.0, 0.0])


def test_moment_shift_of_truncations():
    from lib.sim.data import sim_dataset
    from lib.sim.metrics import moment_shift

    full = sim_dataset([1.0, 2.0], [0.2, 0.2], 3, 4000, seed=0)
    radius = moment_shift(full, sim_dataset([1.0, 2.0], [0.2, 0.2], 3, 4000, truncate_radius=0.5, seed=0))
    orthant = moment_shift(full, sim_dataset([1.0, 2.0], [0.2, 0.2], 3, 4000, truncate_orthant=True, seed=0))
    assert 0 < radius["points_changed"] < 0.01  # the tail of cluster 2 within 0.5 of x_hat
    assert radius["mean_shift"] < 0.002
    assert orthant["points_changed"] == pytest.approx(0.5, abs=0.03)  # the half of each cluster facing x_hat
    assert orthant["mean_shift"] > 0.03 and orthant["second_moment_shift"] > 0.003
