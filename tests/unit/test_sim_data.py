"""lib/sim/data.py: the SIM generator against its definition (Sec. 2.1, App. B, App. F.3)."""

import numpy as np
import pytest

from lib.sim.data import cluster_stds, gaussian_density, population_second_moment, random_rotation, sim_dataset

MU, SIGMA = [1.0, 2.0, 3.0], [0.1, 0.2, 0.3]


def test_shapes_labels_and_test_points():
    ds = sim_dataset(MU, SIGMA, 5, 100, seed=0)
    assert ds.x.shape == (300, 5) and ds.d == 5 and ds.s == 3
    np.testing.assert_array_equal(np.bincount(ds.cluster), [100, 100, 100])
    np.testing.assert_array_equal(ds.test_point, [1, 2, 3, 0, 0])
    assert ds.combo_points.shape == (8, 5) and ds.combos.shape == (8, 3)
    np.testing.assert_array_equal(ds.combo_points[-1], ds.test_point)
    np.testing.assert_array_equal(ds.combo_points[0], np.zeros(5))
    assert np.all(ds.x[:, 3:] == 0)  # non-informative directions carry no data


def test_cluster_means_and_spreads():
    ds = sim_dataset(MU, SIGMA, 4, 20000, seed=1)
    for p in range(3):
        pts = ds.x[ds.cluster == p]
        expected = np.zeros(4)
        expected[p] = MU[p]
        np.testing.assert_allclose(pts.mean(0), expected, atol=0.01)
        np.testing.assert_allclose(pts.std(0)[:3], SIGMA, rtol=0.03)


def test_sigma_as_variance():
    np.testing.assert_allclose(cluster_stds([4.0, 0.25], sigma_is_variance=True), [2.0, 0.5])
    np.testing.assert_allclose(cluster_stds([4.0, 0.25]), [4.0, 0.25])
    ds = sim_dataset([1.0, 2.0], [0.04, 0.09], 2, 20000, sigma_is_variance=True, seed=2)
    np.testing.assert_allclose(ds.std, [0.2, 0.3])
    np.testing.assert_allclose(ds.x[ds.cluster == 0].std(0), [0.2, 0.3], rtol=0.03)
    with pytest.raises(ValueError, match="non-negative"):
        cluster_stds([-1.0, 1.0])


def test_population_second_moment_matches_sample_and_origin_cluster():
    np.testing.assert_allclose(population_second_moment(MU, SIGMA, 4), [0.01 + 1 / 3, 0.04 + 4 / 3, 0.09 + 3, 0])
    np.testing.assert_allclose(population_second_moment(MU, SIGMA, 3, origin_cluster=True)[0], 0.01 + 1 / 4)
    for origin in (False, True):
        ds = sim_dataset(MU, SIGMA, 4, 40000, origin_cluster=origin, seed=3)
        sample = ds.x.T @ ds.x / len(ds.x)
        np.testing.assert_allclose(sample, np.diag(population_second_moment(MU, SIGMA, 4, origin)), atol=0.01)
    assert (sim_dataset(MU, SIGMA, 4, 10, origin_cluster=True).cluster == -1).sum() == 10


def test_rotation_is_orthogonal_and_consistent():
    q = random_rotation(6, np.random.default_rng(0))
    np.testing.assert_allclose(q @ q.T, np.eye(6), atol=1e-12)
    plain = sim_dataset(MU, SIGMA, 6, 50, seed=4)
    rotated = sim_dataset(MU, SIGMA, 6, 50, rotate=True, seed=4)
    np.testing.assert_allclose(rotated.to_concept(rotated.x), plain.x, atol=1e-12)
    np.testing.assert_allclose(rotated.to_concept(rotated.test_point), plain.test_point, atol=1e-12)


def test_deterministic_by_seed():
    a, b = sim_dataset(MU, SIGMA, 4, 30, rotate=True, seed=7), sim_dataset(MU, SIGMA, 4, 30, rotate=True, seed=7)
    np.testing.assert_array_equal(a.x, b.x)
    assert not np.array_equal(a.x, sim_dataset(MU, SIGMA, 4, 30, rotate=True, seed=8).x)


def test_truncation_keeps_points_away_from_the_test_point():
    ds = sim_dataset([1.0, 1.0], [0.5, 0.5], 2, 2000, truncate_radius=0.5, seed=5)
    assert np.linalg.norm(ds.x - ds.test_point, axis=1).min() >= 0.5
    with pytest.raises(ValueError, match="truncation"):
        sim_dataset([1.0, 1.0], [0.01, 0.01], 2, 10, truncate_radius=5.0, seed=0)


def test_invalid_shapes():
    with pytest.raises(ValueError, match="s <= d"):
        sim_dataset(MU, SIGMA, 2, 10)
    with pytest.raises(ValueError, match="len\\(sigma\\)"):
        sim_dataset(MU, SIGMA[:2], 4, 10)


def test_gaussian_density_at_a_cluster_centre():
    ds = sim_dataset([1.0, 2.0], [0.5, 0.5], 2, 10, seed=0)
    peak = 1 / (2 * np.pi * 0.25)
    expected = 0.5 * (peak + peak * np.exp(-0.5 * (1 + 4) / 0.25))
    assert gaussian_density(np.array([1.0, 0.0]), ds) == pytest.approx(expected)


def test_gaussian_density_of_a_stack_of_points_is_the_density_point_by_point():
    ds = sim_dataset([1.0, 2.0], [0.3, 0.6], 3, 10, seed=0)
    grid = np.stack(np.meshgrid(np.linspace(-1, 3, 7), np.linspace(-2, 2, 5)), axis=-1)
    together = gaussian_density(grid, ds, origin_cluster=True)
    assert together.shape == (5, 7)
    alone = [[gaussian_density(p, ds, origin_cluster=True) for p in row] for row in grid]
    np.testing.assert_array_equal(together, alone)  # bit for bit


def test_orthant_truncation_empties_the_test_points_orthant_and_keeps_the_rest():
    full = sim_dataset([1.0, 2.0], [0.3, 0.3], 4, 2000, origin_cluster=True, rotate=True, seed=5)
    cut = sim_dataset([1.0, 2.0], [0.3, 0.3], 4, 2000, origin_cluster=True, rotate=True, truncate_orthant=True, seed=5)
    z = cut.to_concept(cut.x)
    assert not np.any(np.all(z[:, :2] > 0, axis=1))
    inside = np.all(full.to_concept(full.x)[:, :2] > 0, axis=1)
    np.testing.assert_array_equal(cut.x[~inside], full.x[~inside])  # only the orthant is resampled
    np.testing.assert_array_equal(cut.rotation, full.rotation)
