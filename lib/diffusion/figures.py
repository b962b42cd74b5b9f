"""Figures of the diffusion chapter: the data, Fig. 6's three panels, success and hidden capability."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from lib.diffusion.data import CLASSES, Circles, sample_images

NAMES = {(0, 0): "red, big", (0, 1): "red, small", (1, 0): "blue, big", (1, 1): "blue, small"}


def data_grid(dgps: list[Circles], per_class: int = 2, seed: int = 0):
    """Rows: colour signals; columns: the four classes (the last never seen in training)."""
    fig, axes = plt.subplots(len(dgps), 4 * per_class, figsize=(1.0 * 4 * per_class, 1.15 * len(dgps)), squeeze=False)
    for row, dgp in zip(axes, dgps):
        x, _ = sample_images(dgp, np.repeat(np.array(CLASSES), per_class, axis=0), np.random.default_rng(seed))
        for k, ax in enumerate(row):
            ax.imshow(x[k].transpose(1, 2, 0), interpolation="nearest")
            ax.set_xticks([]), ax.set_yticks([])
            if k % per_class == 0:
                ax.set_title(NAMES[CLASSES[k // per_class]] + ("\n(held out)" if k // per_class == 3 else ""), fontsize=7)
        row[0].set_ylabel(f"$s_c$ = {dgp.colour_signal:g}", fontsize=8)
    fig.tight_layout()
    return fig


def image_row(images: np.ndarray, labels: list[str]):
    """A row of images (n, 3, R, R) in [0, 1], each with a label."""
    fig, axes = plt.subplots(1, len(images), figsize=(0.9 * len(images), 1.2), squeeze=False)
    for ax, img, lab in zip(axes[0], images, labels):
        ax.imshow(img.transpose(1, 2, 0), interpolation="nearest")
        ax.set_xticks([]), ax.set_yticks([])
        ax.set_title(lab, fontsize=6)
    fig.tight_layout()
    return fig


def fig6(res: list[dict], steps: np.ndarray, label: str):
    """(a) concept-space trajectory, (b) concept-space MSE, (c) |dC/dt| with its exponential fit."""
    fig, (a, b, c) = plt.subplots(1, 3, figsize=(11, 3.5))
    colours = plt.cm.viridis(np.linspace(0.1, 0.85, len(res)))
    for r, col in zip(res, colours):
        lab = f"$s_c$ = {r['colour_signal']:g}"
        a.plot(*r["traj"].T, "-o", color=col, ms=3, label=lab)
        b.plot(steps, r["mse"], "-", color=col, label=lab)
        b.fill_between(steps, r["mse"] - 2 * r["mse_se"], r["mse"] + 2 * r["mse_se"], color=col, alpha=0.2)
        c.semilogy(r["speed_t"], r["speed"], "o", color=col, ms=3, label=lab)
        f = r["fit"]
        if np.isfinite(f["rate"]):
            t = r["speed_t"][r["speed_t"] >= f["start"]]
            c.semilogy(t, f["amplitude"] * np.exp(-f["rate"] * t), "--", color=col,
                       label=f"fit, $R^2$ = {f['r2']:.2f}")
    for (x, y), name in zip(CLASSES, NAMES.values()):
        a.annotate(name, (x, y), fontsize=7, ha="center", va="bottom" if y else "top", color="k" if (x, y) != (1, 1) else "C3")
    a.set(xlabel="P(blue)", ylabel="P(small)", xlim=(-0.1, 1.1), ylim=(-0.1, 1.15), title=f"(a) trajectory [{label}]")
    b.set(xlabel="training step", ylabel="concept-space MSE", title="(b) MSE of (blue, small), ±2 s.e.")
    c.set(xlabel="training step", ylabel="|dC/dt| per step", title="(c) concept-space speed")
    for ax in (a, b, c):
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def success(res: list[dict], steps: np.ndarray, nudges: list[float], label: str):
    """Fraction of (blue, small) samples for the exact and the nudged prompts, and of blank samples."""
    fig, axes = plt.subplots(1, len(res), figsize=(4 * len(res), 3), squeeze=False, sharey=True)
    for ax, r in zip(axes[0], res):
        ax.plot(steps, r["success"], "-o", ms=3, label="exact prompt: (blue, small)")
        ax.plot(steps, r["blank"], ":", color="0.4", label="exact prompt: blank")
        for j, o in enumerate(nudges):
            ax.plot(steps, r["nudged"][:, j], "--", label=f"size nudged by +{o:g}: (blue, small)")
        ax.set(title=f"$s_c$ = {r['colour_signal']:g} [{label}]", xlabel="training step", ylim=(-0.03, 1.03))
    axes[0, 0].set_ylabel("fraction of samples")
    axes[0, 0].legend(fontsize=7)
    fig.tight_layout()
    return fig
