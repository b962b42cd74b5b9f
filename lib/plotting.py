"""Shared plotting helpers: one style for every figure of the book, and small drawing utilities."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np


def use_book_style() -> None:
    """Readable defaults for figures rendered at the book's column width."""
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
        }
    )


def arrow_markers(ax, xy: np.ndarray, every: int, **kwargs) -> None:
    """Draw markers at equal time intervals along a 2-D trajectory `xy` of shape (T, 2)."""
    idx = np.arange(0, len(xy), max(1, every))
    ax.plot(xy[idx, 0], xy[idx, 1], linestyle="none", marker=kwargs.pop("marker", ">"), **kwargs)
