"""lib.sim.plots: the figures draw what they claim to (graph structure, layers), without a display."""

import itertools

import matplotlib.pyplot as plt
import numpy as np

from lib.sim.data import sim_dataset
from lib.sim.plots import plot_curves, plot_hypercube, plot_task, plot_trajectories


def test_hypercube_has_all_nodes_and_hamming_edges():
    combos = np.array(list(itertools.product([0, 1], repeat=4)), dtype=float)
    fig, ax = plt.subplots()
    nodes = plot_hypercube(ax, np.linspace(0, 2, 16), combos)
    assert len(nodes.get_offsets()) == 16
    assert np.allclose(nodes.get_array(), np.minimum(np.linspace(0, 2, 16), 1.0))  # clipped at vmax
    edges = ax.collections[0]
    assert len(edges.get_segments()) == 4 * 2**3  # a 4-cube has s 2^(s-1) edges
    plt.close(fig)


def test_task_and_trajectory_figures_draw():
    ds = sim_dataset([1.0, 2.0], [0.05, 0.05], 4, 50, sigma_is_variance=True, origin_cluster=True, rotate=True)
    fig, axes = plt.subplots(1, 3)
    plot_task(axes[0], ds, origin_cluster=True, points=20, grid=20)
    y = np.linspace(0, 1, 30)[:, None] * np.r_[ds.mu, 0, 0]
    plot_trajectories(axes[1], [y, y], ["a", "b"], [np.r_[ds.mu, 0, 0]] * 2)
    plot_curves(axes[2], [np.ones(30)], ["c"], 10, "loss")
    assert len(axes[1].get_lines()) == 4  # a line and its markers per trajectory
    assert axes[2].get_lines()[0].get_xdata()[-1] == 2.9  # step 29 at 10 steps per epoch
    plt.close(fig)
