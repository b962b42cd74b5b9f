"""Shared plotting helpers: one style for every figure of the book, and small drawing utilities."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import matplotlib.pyplot as plt
import numpy as np

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def use_book_style() -> None:
    """Readable defaults for figures rendered at the book's column width; in a kernel, PNGs at twice the
    resolution (HiDPI, "retina"), so that figures stay sharp on high-density screens."""
    try:
        from IPython import get_ipython
        from matplotlib_inline.backend_inline import set_matplotlib_formats

        if get_ipython() is not None:
            set_matplotlib_formats("retina")
    except ImportError:  # no IPython: plain matplotlib
        pass
    plt.rcParams.update(
        {
            "figure.dpi": 110,
            "savefig.dpi": 110,
            "figure.figsize": (6.4, 4.0),
            "axes.grid": True,
            "grid.alpha": 0.3,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "legend.frameon": False,
            "font.size": 10,
            "legend.fontsize": 9,
        }
    )


# The width a figure is shown at in the book's column at 1280 px, in inches at the book's 110 dpi (about
# 800 CSS px): a figure no wider than this shows its 8-10 pt text at 8 pt or more (issue 35).
COLUMN_INCHES = 7.5


def small_text(fig: Figure, smallest: float = 8.0) -> list[str]:
    """The texts of `fig` shown under `smallest` pt in the book's column, where a figure wider than
    `COLUMN_INCHES` is scaled down to it (issue 35), with the width itself when it is over: "" entries
    never; an empty list when the figure is readable."""
    from matplotlib.text import Text

    width = fig.get_figwidth()
    problems = [f"figure {width:g} in wide, over the column's {COLUMN_INCHES:g} in"] if width > COLUMN_INCHES else []
    scale = min(1.0, COLUMN_INCHES / width)
    fig.canvas.draw()  # creates the tick labels
    for text in fig.findobj(Text):
        if text.get_visible() and text.get_text().strip() and text.get_fontsize() * scale < smallest:
            problems.append(f"{text.get_text()!r} at {text.get_fontsize() * scale:.1f} pt")
    return problems


def panel_grid(n: int, panel: tuple[float, float], max_columns: int = 3, **kwargs: Any) -> tuple[Figure, list[Axes]]:
    """A figure of `n` panels of size `panel` (inches), in rows of at most `max_columns` so that the
    figure fits the book's column instead of shrinking its text (`COLUMN_INCHES`); panels left over in
    the last row are removed. Returns (figure, list of the n axes); `kwargs` go to `plt.subplots`."""
    columns = min(n, max_columns)
    rows = -(-n // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(panel[0] * columns, panel[1] * rows), squeeze=False, **kwargs)
    flat = list(axes.flat)
    for ax in flat[n:]:
        ax.remove()
    return fig, flat[:n]


def image_montage(
    ax: Axes,
    images: np.ndarray,
    column_labels: list[str],
    row_labels: list[str],
    column_span: int = 1,
    gap: int = 1,
    fontsize: float = 9,
) -> None:
    """Draw images (rows, columns, H, W, 3) (floats in [0, 1] or uint8) as one picture on `ax`, white
    lines of `gap` pixels between them, a label left of every row and one above every `column_span`
    columns, centred on them.

    One image on one axes instead of an axes per image: a grid of 32 small axes took most of the time
    of drawing its figure."""
    rows, columns, height, width, _ = images.shape
    pixels = images.astype(np.float32) / (255.0 if images.dtype == np.uint8 else 1.0)
    canvas = np.ones((rows * (height + gap) - gap, columns * (width + gap) - gap, 3), dtype=np.float32)
    for r in range(rows):
        for c in range(columns):
            canvas[r * (height + gap) : r * (height + gap) + height, c * (width + gap) : c * (width + gap) + width] = (
                pixels[r, c]
            )
    ax.imshow(canvas, interpolation="nearest")
    span = column_span * (width + gap) - gap
    ax.set_xticks(
        [g * column_span * (width + gap) + (span - 1) / 2 for g in range(len(column_labels))],
        column_labels,
        fontsize=fontsize,
    )
    ax.set_yticks([r * (height + gap) + (height - 1) / 2 for r in range(rows)], row_labels, fontsize=fontsize)
    ax.xaxis.tick_top()
    ax.tick_params(length=0)
    ax.grid(False)
    for spine in ax.spines.values():
        spine.set_visible(False)


def arrow_markers(ax: Axes, xy: np.ndarray, every: int, **kwargs: Any) -> None:
    """Draw markers at equal time intervals along a 2-D trajectory `xy` of shape (T, 2)."""
    idx = np.arange(0, len(xy), max(1, every))
    ax.plot(xy[idx, 0], xy[idx, 1], linestyle="none", marker=kwargs.pop("marker", ">"), **kwargs)


def training_fraction_axis(ax: Axes) -> None:
    """A log x-axis of training fractions with plain tick labels (0.02 ... 1)."""
    ax.set_xscale("log")
    ax.set_xticks([0.02, 0.05, 0.1, 0.2, 0.5, 1.0], ["0.02", "0.05", "0.1", "0.2", "0.5", "1"])
    ax.xaxis.set_minor_formatter(plt.NullFormatter())
    ax.set_xlabel("training fraction")


def shade_stages(ax: Axes, stages: Iterable[tuple[str, str, float, float]]) -> None:
    """Shade each stage `(kind, label, t0, t1)` of a time axis: growth green, any other kind red."""
    for kind, _label, t0, t1 in stages:
        ax.axvspan(t0, t1, color="tab:green" if kind == "growth" else "tab:red", alpha=0.12)


def stage_handles() -> list:
    """Legend entries for the bands of `shade_stages`: growth (green) and suppression (red)."""
    from matplotlib.patches import Patch

    return [
        Patch(color="tab:green", alpha=0.12, label="growth stage"),
        Patch(color="tab:red", alpha=0.12, label="suppression stage"),
    ]
