"""Figures of the diffusion chapter: the data, the read-outs' calibration, Fig. 6 in concept units,
per-seed trajectories, the loss and schedule, and samples over training."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from lib.diffusion.analysis import UNSEEN_PROMPT, decay_curve, distance_to_target, seed_band
from lib.diffusion.data import CLASSES, Circles, sample_images
from lib.util.plotting import image_montage, panel_grid

NAMES = {(0, 0): "red, big", (0, 1): "red, small", (1, 0): "blue, big", (1, 1): "blue, small"}


def _colours(n: int):
    return plt.cm.viridis(np.linspace(0.1, 0.85, n))


def data_grid(dgps: list[Circles], per_class: int = 2, seed: int = 0):
    """Rows: colour contrasts; columns: the four classes (the last never seen in training)."""
    fig, ax = plt.subplots(figsize=(0.9 * 4 * per_class, 1.0 * len(dgps) + 0.45))
    images = []
    for dgp in dgps:
        x, _ = sample_images(dgp, np.repeat(np.array(CLASSES), per_class, axis=0), np.random.default_rng(seed))
        images.append(x.transpose(0, 2, 3, 1))
    labels = [NAMES[c] + ("\n(held out)" if k == 3 else "") for k, c in enumerate(CLASSES)]
    image_montage(ax, np.array(images), labels, [f"$s_c$ = {dgp.colour_signal:g}" for dgp in dgps], per_class)
    fig.tight_layout()
    return fig


def calibration(cal: dict[float, dict[str, np.ndarray]]):
    """The classifier on images of known concept value, per contrast: (a) P(blue) against the fraction
    of the way from red to blue, (b) P(small) against the fraction from big to small, (c) its three
    outputs on pure noise."""
    fig, (a, b, c) = panel_grid(3, (3.7, 3.2), max_columns=2, layout="constrained")
    for (contrast, arr), col in zip(sorted(cal.items()), _colours(len(cal))):
        a.plot(arr["grid"], arr["colour_curve"], "-o", ms=3, color=col, label=f"$s_c$ = {contrast:g}")
        b.plot(arr["grid"], arr["size_curve"], "-o", ms=3, color=col)
    for ax in (a, b):
        ax.plot([0, 1], [0, 1], ":", color="0.5", label="calibrated")
    noise = np.concatenate([arr["noise_readout"] for arr in cal.values()])
    c.boxplot([noise[:, 0], noise[:, 1], noise[:, 2]], tick_labels=["P(blue)", "P(small)", "P(disc)"])
    a.set(xlabel="colour: fraction of the way red → blue", ylabel="mean P(blue)", title="(a) colour")
    b.set(xlabel="radius: fraction of the way big → small", ylabel="mean P(small)", title="(b) size")
    c.set(ylim=(-0.03, 1.03), title="(c) on pure-noise images, all contrasts")
    a.legend(fontsize=8)
    return fig


def _corner_labels(ax) -> None:
    """The four target corners of the concept space, marked and named outside the unit square (diagonally
    outward, so that no label covers a trajectory inside it)."""
    for (x, y), name in NAMES.items():
        unseen = (x, y) == (1, 1)
        ax.plot(x, y, "s", ms=5, mfc="none", mec="C3" if unseen else "0.3", mew=1.2)
        ax.annotate(
            name,
            (x, y),
            xytext=(-6 if x == 0 else 6, -6 if y == 0 else 6),
            textcoords="offset points",
            ha="right" if x == 0 else "left",
            va="top" if y == 0 else "bottom",
            fontsize=9,
            color="C3" if unseen else "0.2",
        )


def fig6(results: dict[float, dict]):
    """The paper's Fig. 6 over seeds, one colour per contrast: (a) the unseen prompt's trajectory in concept
    units, seed mean with error bars of one standard error over seeds in each coordinate, single seeds
    faint; (b) its concept-space MSE and (c) its distance to (blue, small), seed mean with a band of one
    standard error (`lib.diffusion.analysis.seed_band`), single seeds faint, and in (c) the exponential fit
    to the seed-mean trajectory's distance from its peak (log scale). The legend sits in its own cell."""
    fig, axes = plt.subplots(2, 2, figsize=(7.5, 7.0))
    a, b, c, key = axes.ravel()
    handles = []
    for (contrast, r), col in zip(sorted(results.items()), _colours(len(results))):
        steps, unseen = r["steps"], r["traj"][:, :, UNSEEN_PROMPT]  # (seeds, K, 2)
        for s in range(unseen.shape[0]):
            a.plot(*unseen[s, 1:].T, "-", color=col, lw=0.6, alpha=0.25)
            b.plot(steps, r["mse_by_seed"][s], "-", color=col, lw=0.6, alpha=0.25)
            c.semilogy(steps[1:], distance_to_target(unseen[s, 1:]), "-", color=col, lw=0.6, alpha=0.25)
        mean, low, high = seed_band(unseen[:, 1:])
        a.errorbar(
            *mean.T, xerr=(mean - low)[:, 0], yerr=(mean - low)[:, 1], fmt="-o", ms=3, lw=1.8, elinewidth=0.8, color=col
        )
        for ax, values, x in ((b, r["mse_by_seed"], steps), (c, distance_to_target(unseen[:, 1:]), steps[1:])):
            mean, low, high = seed_band(values)
            ax.plot(x, mean, "-", color=col, lw=1.8)
            ax.fill_between(x, low, high, color=col, alpha=0.25, lw=0)
        f = r["fit"]
        if f is not None:
            t = steps[steps >= f.start]
            c.semilogy(t, decay_curve(t - f.start, f.floor, f.amplitude, f.rate.value), "--", color=col, lw=1.2)
        n = unseen.shape[0]
        handles.append(
            Line2D(
                [],
                [],
                color=col,
                lw=1.8,
                marker="o",
                ms=3,
                label=f"$s_c$ = {contrast:g} ({r['stronger']} stronger):\nmean over {n} seeds",
            )
        )
    handles += [
        Patch(color="0.5", alpha=0.25, label="± 1 standard error over seeds\n(error bars in (a), band in (b), (c))"),
        Line2D([], [], color="0.5", lw=0.6, alpha=0.5, label="single seeds"),
        Line2D(
            [], [], color="0.3", lw=1.2, ls="--", label="exponential fit from the peak\n(to the seed-mean trajectory)"
        ),
    ]
    _corner_labels(a)
    a.plot([0, 1], [0, 1], ":", color="0.6", lw=0.8)
    a.set(xlim=(-0.55, 1.55), ylim=(-0.3, 1.35))
    a.set_xlabel("colour (red 0, blue 1)", fontsize=9)
    a.set_ylabel("size (big 0, small 1)", fontsize=9)
    a.set_title("(a) trajectory of the unseen (blue, small)", fontsize=10)
    b.set_xlabel("training step", fontsize=9)
    b.set_ylabel("concept-space MSE (blank = 1)", fontsize=9)
    b.set_title("(b) MSE of (blue, small)", fontsize=10)
    c.set_xlabel("training step", fontsize=9)
    c.set_ylabel("distance to (blue, small)", fontsize=9)
    c.set_title("(c) approach to the target", fontsize=10)
    for ax in (a, b, c):
        ax.tick_params(labelsize=8)
    key.axis("off")
    key.legend(handles=handles, loc="center", fontsize=9, frameon=False)
    fig.tight_layout()
    return fig


def seed_trajectories(results: dict[float, dict]):
    """The unseen prompt's trajectory seed by seed (one panel per contrast, three to a row): the unit of
    the claims."""
    fig, axes = panel_grid(len(results), (2.5, 2.4), max_columns=3, sharey=True, layout="constrained")
    for ax, (contrast, r) in zip(axes, sorted(results.items())):
        for s, col in zip(range(r["traj"].shape[0]), plt.cm.tab10.colors):
            ax.plot(*r["traj"][s, 1:, UNSEEN_PROMPT].T, "-o", ms=2, lw=0.8, color=col, label=f"seed {s}")
        ax.plot([0, 1], [0, 1], ":", color="0.6", lw=0.8)
        ax.set(title=f"$s_c$ = {contrast:g} ({r['stronger']} stronger)", xlim=(-0.15, 1.15), ylim=(-0.15, 1.2))
        ax.title.set_fontsize(9)
    for ax in axes:
        ax.set(xlabel="colour", ylabel="size" if ax.get_subplotspec().is_first_col() else "")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=5, fontsize=9)
    return fig


def training_curves(runs: dict[float, dict]):
    """(a) the diffusion term of the loss, (b) the reconstruction term, (c) the EMA schedule's gamma_0 and
    gamma_1, mean over seeds, per contrast."""
    fig, (a, b, c) = panel_grid(3, (3.7, 3.0), max_columns=2, layout="constrained")
    for (contrast, r), col in zip(sorted(runs.items()), _colours(len(runs))):
        steps = r["eval_steps"]
        a.plot(steps[1:], r["loss_diffusion"][:, 1:].mean(0), color=col, label=f"$s_c$ = {contrast:g}")
        b.semilogy(steps[1:], r["loss_recon"][:, 1:].mean(0), color=col)
        c.plot(steps, r["gamma"][..., 0].mean(0), color=col)
        c.plot(steps, r["gamma"][..., 1].mean(0), "--", color=col)
    a.set(xlabel="training step", ylabel="bits / dim", title="(a) diffusion term")
    b.set(xlabel="training step", ylabel="bits / dim", title="(b) reconstruction term")
    c.set(xlabel="training step", ylabel=r"$\gamma$", title=r"(c) $\gamma_0$ (solid), $\gamma_1$ (dashed)")
    a.legend(fontsize=8)
    return fig


def samples_over_training(images: dict[float, np.ndarray], steps: np.ndarray, every: int = 2, per_row: int = 8):
    """Rows: contrasts; columns: every `every`-th checkpoint; one sample of the unseen prompt each
    (images (K, n, 3, R, R) uint8 of one seed, the same sampling noise at every checkpoint). More than
    `per_row` checkpoints are stacked in blocks of equal length, so that the figure fits the book's column."""
    cols = list(range(0, len(steps), every))
    width = -(-len(cols) // -(-len(cols) // per_row))  # blocks of equal length, at most per_row
    blocks = [cols[i : i + width] for i in range(0, len(cols), width)]
    fig, axes = plt.subplots(
        len(blocks), 1, figsize=(0.85 * width + 0.7, (0.85 * len(images) + 0.3) * len(blocks)), squeeze=False
    )
    contrasts = sorted(images)
    for ax, block in zip(axes[:, 0], blocks):
        grid = np.full((len(contrasts), width) + images[contrasts[0]].shape[-2:] + (3,), 255, dtype=np.uint8)
        for i, contrast in enumerate(contrasts):
            for j, k in enumerate(block):
                grid[i, j] = images[contrast][k, 0].transpose(1, 2, 0)
        labels = [f"{int(steps[k])}" for k in block] + [""] * (width - len(block))
        image_montage(ax, grid, labels, [f"$s_c$ = {c:g}" for c in contrasts])
    fig.tight_layout()
    return fig
