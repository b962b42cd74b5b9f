"""Figures of the diffusion chapter: the data, the read-outs' calibration, Fig. 6 in concept units,
per-seed trajectories, the loss and schedule, and samples over training."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from lib.diffusion.analysis import UNSEEN_PROMPT, decay_curve, distance_to_target
from lib.diffusion.data import CLASSES, Circles, sample_images
from lib.plotting import panel_grid

NAMES = {(0, 0): "red, big", (0, 1): "red, small", (1, 0): "blue, big", (1, 1): "blue, small"}


def _colours(n: int):
    return plt.cm.viridis(np.linspace(0.1, 0.85, n))


def data_grid(dgps: list[Circles], per_class: int = 2, seed: int = 0):
    """Rows: colour contrasts; columns: the four classes (the last never seen in training)."""
    fig, axes = plt.subplots(len(dgps), 4 * per_class, figsize=(1.0 * 4 * per_class, 1.15 * len(dgps)), squeeze=False)
    for row, dgp in zip(axes, dgps):
        x, _ = sample_images(dgp, np.repeat(np.array(CLASSES), per_class, axis=0), np.random.default_rng(seed))
        for k, ax in enumerate(row):
            ax.imshow(x[k].transpose(1, 2, 0), interpolation="nearest")
            ax.set_xticks([]), ax.set_yticks([])
            if k % per_class == 0:
                ax.set_title(
                    NAMES[CLASSES[k // per_class]] + ("\n(held out)" if k // per_class == 3 else ""), fontsize=8
                )
        row[0].set_ylabel(f"$s_c$ = {dgp.colour_signal:g}", fontsize=8)
    fig.tight_layout()
    return fig


def calibration(cal: dict[float, dict[str, np.ndarray]]):
    """The classifier on images of known concept value, per contrast: (a) P(blue) against the fraction
    of the way from red to blue, (b) P(small) against the fraction from big to small, (c) its three
    outputs on pure noise."""
    fig, (a, b, c) = plt.subplots(1, 3, figsize=(11, 3.2))
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
    fig.tight_layout()
    return fig


def fig6(results: dict[float, dict]):
    """(a) concept-space trajectories (unseen prompt bold, training prompts thin), seeds pooled;
    (b) concept-space MSE of the unseen prompt, mean over seeds with the seeds' range;
    (c) distance to (blue, small) with the exponential fit from its peak (log scale)."""
    fig, (a, b, c) = plt.subplots(1, 3, figsize=(12, 3.8))
    for (contrast, r), col in zip(sorted(results.items()), _colours(len(results))):
        lab = f"$s_c$ = {contrast:g} ({r['stronger']} stronger)"
        for p in range(r["traj_pooled"].shape[1]):
            bold = p == UNSEEN_PROMPT
            a.plot(
                *r["traj_pooled"][:, p].T,
                "-o" if bold else "-",
                color=col,
                ms=2.5,
                lw=1.8 if bold else 0.7,
                alpha=1 if bold else 0.6,
                label=lab if bold else None,
            )
        steps = r["steps"]
        b.plot(steps, r["mse"], color=col, label=lab)
        b.fill_between(steps, r["mse_by_seed"].min(0), r["mse_by_seed"].max(0), color=col, alpha=0.15)
        dist = distance_to_target(r["traj_pooled"][:, UNSEEN_PROMPT])
        c.semilogy(steps[1:], dist[1:], "o", color=col, ms=3)
        f = r["fit"]
        if f is not None:
            t = steps[steps >= f.start]
            c.semilogy(
                t,
                decay_curve(t - f.start, f.floor, f.amplitude, f.rate.value),
                "--",
                color=col,
                label=f"$s_c$ = {contrast:g}: $R^2$ = {f.r2:.2f}",
            )
    for (x, y), name in zip(CLASSES, NAMES.values()):
        a.annotate(
            name, (x, y), fontsize=8, ha="center", va="bottom" if y else "top", color="k" if (x, y) != (1, 1) else "C3"
        )
    a.plot([0, 1], [0, 1], ":", color="0.6", lw=0.8)
    a.set(
        xlabel="colour (red 0, blue 1)",
        ylabel="size (big 0, small 1)",
        xlim=(-0.15, 1.15),
        ylim=(-0.15, 1.2),
        title="(a) trajectories in concept units",
    )
    b.set(xlabel="training step", ylabel="concept-space MSE (blank = 1)", title="(b) MSE of (blue, small)")
    c.set(xlabel="training step", ylabel="distance to (blue, small)", title="(c) approach to the target")
    for ax in (a, b, c):
        ax.legend(fontsize=8)
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
    fig, (a, b, c) = plt.subplots(1, 3, figsize=(11, 3.0))
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
    fig.tight_layout()
    return fig


def samples_over_training(images: dict[float, np.ndarray], steps: np.ndarray, every: int = 2, per_row: int = 8):
    """Rows: contrasts; columns: every `every`-th checkpoint; one sample of the unseen prompt each
    (images (K, n, 3, R, R) uint8 of one seed, the same sampling noise at every checkpoint). More than
    `per_row` checkpoints are stacked in blocks, so that the figure fits the book's column."""
    cols = list(range(0, len(steps), every))
    blocks = [cols[i : i + per_row] for i in range(0, len(cols), per_row)]
    rows = len(images) * len(blocks)
    fig, axes = plt.subplots(
        rows, min(len(cols), per_row), figsize=(0.85 * min(len(cols), per_row), 0.95 * rows), squeeze=False
    )
    for b, block in enumerate(blocks):
        for i, (contrast, img) in enumerate(sorted(images.items())):
            row = axes[b * len(images) + i]
            for j, ax in enumerate(row):
                if j >= len(block):
                    ax.remove()
                    continue
                ax.imshow(img[block[j], 0].transpose(1, 2, 0), interpolation="nearest")
                ax.set_xticks([]), ax.set_yticks([])
                if i == 0:
                    ax.set_title(f"{int(steps[block[j]])}", fontsize=9)
            row[0].set_ylabel(f"$s_c$ = {contrast:g}", fontsize=9)
    fig.tight_layout()
    return fig
