"""Figures of the SIM chapters: the task in the concept plane, output trajectories, the hypercube of App. B."""

from __future__ import annotations

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np

from lib.sim.data import SIMData, gaussian_density
from lib.util.plotting import arrow_markers

# ----------------------------------------------------------------------------------------------
# The task (Fig. 1c, 15)
# ----------------------------------------------------------------------------------------------


def plot_task(ax, data: SIMData, origin_cluster: bool, points: int = 0, grid: int = 120) -> None:
    """Log10 training density on the concept plane, cluster means, the test point; optionally `points` samples."""
    mu = data.mu
    lo, hi = -0.6 * mu.max(), 1.4 * mu.max()
    g = np.linspace(lo, hi, grid)
    zz = gaussian_density(np.stack(np.meshgrid(g, g), axis=-1), data, origin_cluster)  # zz[j, i] at (g[i], g[j])
    im = ax.contourf(g, g, np.log10(np.maximum(zz, 1e-30)), levels=np.arange(-30, 2, 2), cmap="Blues")
    plt.colorbar(im, ax=ax, label=r"$\log_{10}$ training density")
    if points:
        z = data.to_concept(data.x[:: max(1, len(data.x) // points)])
        ax.scatter(z[:, 0], z[:, 1], s=2, color="tab:blue", alpha=0.4, label="training points")
    centres = np.vstack([np.diag(mu)] + ([np.zeros(2)] if origin_cluster else []))
    ax.scatter(centres[:, 0], centres[:, 1], s=60, facecolor="none", edgecolor="k", label="cluster means")
    ax.scatter([mu[0]], [mu[1]], marker="*", s=160, color="tab:red", label=r"test point $\hat x$")
    ax.set(xlabel="concept 1", ylabel="concept 2", aspect="equal")


# ----------------------------------------------------------------------------------------------
# Output trajectories (Fig. 2, 11-16)
# ----------------------------------------------------------------------------------------------


def plot_trajectories(
    ax, trajs: list[np.ndarray], labels: list[str], targets: list[np.ndarray], markers: int = 12
) -> None:
    """Concept-plane trajectories (T, >=2), markers at equal time intervals, targets as stars."""
    colors = plt.cm.viridis(np.linspace(0, 0.9, len(trajs)))
    for y, label, target, c in zip(trajs, labels, targets, colors):
        ax.plot(y[:, 0], y[:, 1], color=c, lw=1.2, label=label)
        arrow_markers(ax, y[:, :2], every=len(y) // markers, color=c, markersize=4)
        ax.scatter(*target[:2], marker="*", s=90, color=c, edgecolor="k", zorder=3)
    ax.set(xlabel="concept 1", ylabel="concept 2")
    ax.legend(fontsize=8)


def plot_curves(ax, curves: list[np.ndarray], labels: list[str], steps_per_epoch: int, ylabel: str) -> None:
    """Curves against training time in epochs."""
    colors = plt.cm.viridis(np.linspace(0, 0.9, len(curves)))
    for y, label, c in zip(curves, labels, colors):
        ax.plot(np.arange(len(y)) / steps_per_epoch, y, color=c, lw=1.0, label=label)
    ax.set(xlabel="epoch", ylabel=ylabel)
    ax.legend(fontsize=8)


# ----------------------------------------------------------------------------------------------
# The hypercube of combination points (App. B, Fig. 7)
# ----------------------------------------------------------------------------------------------


def plot_hypercube(ax, losses: np.ndarray, combos: np.ndarray, vmax: float = 1.0):
    """Nodes = 0/1 patterns, laid out by number of ones; edges at Hamming distance 1; colour = loss clipped at vmax."""
    labels = ["".join(str(int(b)) for b in c) for c in combos]
    graph = nx.Graph()
    graph.add_nodes_from(labels)
    graph.add_edges_from(
        (a, b) for i, a in enumerate(labels) for b in labels[i + 1 :] if sum(x != y for x, y in zip(a, b)) == 1
    )
    ones = combos.sum(axis=1)
    pos = {}
    for k in np.unique(ones):
        level = [lab for lab, o in zip(labels, ones) if o == k]
        for j, lab in enumerate(level):
            pos[lab] = (k, j - (len(level) - 1) / 2)
    nx.draw_networkx_edges(graph, pos, ax=ax, alpha=0.3)
    nodes = nx.draw_networkx_nodes(
        graph, pos, ax=ax, node_color=np.minimum(losses, vmax), cmap="magma_r", vmin=0, vmax=vmax, node_size=330
    )
    for label, (x, y) in pos.items():  # beside its node, in black: readable on any colour of the map
        ax.text(
            x + 0.12,
            y,
            label,
            fontsize=8,
            ha="left",
            va="center",
            family="monospace",
            bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.8},
        )
    ax.set_xlim(-0.3, ones.max() + 0.75)
    ax.set_axis_off()
    return nodes


# ----------------------------------------------------------------------------------------------
# Estimates over seeds against a swept parameter (init scale, truncation)
# ----------------------------------------------------------------------------------------------


def plot_estimates(ax, x, estimates, label: str, **style) -> None:
    """Estimates (`lib.util.stats.Estimate` or its dict) at positions x, with their intervals as error bars."""
    get = [e if isinstance(e, dict) else e.as_dict() for e in estimates]
    value = np.array([e["value"] for e in get])
    err = np.array([[e["value"] - e["low"] for e in get], [e["high"] - e["value"] for e in get]])
    ax.errorbar(x, value, yerr=err, capsize=3, marker="o", label=label, **style)
