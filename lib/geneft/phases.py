"""Phases of training (GenEFT Appendix B, Table 4) and the generalization / memorization boundary.

Table 4, after Liu et al. (2022): with the first steps at which train and test accuracy exceed
0.9 (`step_train_90`, `step_test_90`, -1 if never within the run),

    generalization  both reached, step_test - step_train <  threshold
    grokking        both reached, step_test - step_train >= threshold
    memorization    train reached, test never
    confusion       train never (Table 4's "no, no"; a test-only success is counted here too)

Section IV reads the phase diagram over (eta_enc, eta_dec) for a boundary of constant ratio
eta_dec / eta_enc (eq. 12 depends on the ratio only), a straight line of slope 1 in log-log.
"""
from __future__ import annotations

import numpy as np
from scipy.stats import linregress

PHASES = ("generalization", "grokking", "memorization", "confusion")
GENERALIZATION, GROKKING, MEMORIZATION, CONFUSION = range(4)

# ----------------------------------------------------------------------------------------------
# Table 4
# ----------------------------------------------------------------------------------------------


def classify(step_train_90, step_test_90, threshold: int) -> np.ndarray:
    """Phase index per model (Table 4; see the module docstring), same shape as the inputs."""
    tr, te = np.asarray(step_train_90), np.asarray(step_test_90)
    phase = np.full(tr.shape, CONFUSION)
    both = (tr >= 0) & (te >= 0)
    phase[both & (te - tr < threshold)] = GENERALIZATION
    phase[both & (te - tr >= threshold)] = GROKKING
    phase[(tr >= 0) & (te < 0)] = MEMORIZATION
    return phase


def phase_counts(phase: np.ndarray) -> dict[str, int]:
    """How many models fall in each phase."""
    return {name: int((np.asarray(phase) == i).sum()) for i, name in enumerate(PHASES)}


def generalizes(phase: np.ndarray) -> np.ndarray:
    """Generalization or grokking: the test accuracy got there (Appendix F: grokking is delayed generalization)."""
    return (phase == GENERALIZATION) | (phase == GROKKING)


# ----------------------------------------------------------------------------------------------
# The boundary in the (eta_enc, eta_dec) plane
# ----------------------------------------------------------------------------------------------


def boundary_points(phase: np.ndarray, lr_enc: np.ndarray, lr_dec: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per encoder rate, the decoder rate where generalization gives way to memorization.

    `phase` is (len(lr_enc), len(lr_dec)) on increasing log grids. A column counts when, along
    increasing eta_dec, some generalizing cell is directly followed by a memorizing one; the
    boundary is the geometric mean of the last generalizing and the next memorizing rate (first
    such transition). Returns (eta_enc, eta_dec*) of the columns that have one.
    """
    gen = generalizes(phase)
    enc, dec = [], []
    for i, row in enumerate(phase):
        for j in range(len(lr_dec) - 1):
            if gen[i, j] and row[j + 1] == MEMORIZATION:
                enc.append(lr_enc[i])
                dec.append(np.sqrt(lr_dec[j] * lr_dec[j + 1]))
                break
    return np.asarray(enc), np.asarray(dec)


def boundary_slope(phase: np.ndarray, lr_enc: np.ndarray, lr_dec: np.ndarray) -> float:
    """Least-squares slope of log eta_dec* against log eta_enc (NaN with fewer than 2 boundary points)."""
    enc, dec = boundary_points(phase, lr_enc, lr_dec)
    if len(enc) < 2:
        return float("nan")
    return float(linregress(np.log10(enc), np.log10(dec)).slope)


def critical_ratio(phase: np.ndarray, lr_enc: np.ndarray, lr_dec: np.ndarray) -> np.ndarray:
    """eta_dec* / eta_enc at each boundary point."""
    enc, dec = boundary_points(phase, lr_enc, lr_dec)
    return dec / enc


# ----------------------------------------------------------------------------------------------
# Drawing
# ----------------------------------------------------------------------------------------------

COLORS = ("#4caf50", "#fdd835", "#7e57c2", "#bdbdbd")  # Fig. 5: green, yellow, purple; grey confusion


def draw_phase_diagram(ax, phase: np.ndarray, x: np.ndarray, y: np.ndarray) -> None:
    """Cells of `phase` (len(y), len(x)) on log axes x, y (increasing), coloured as in Fig. 5."""
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    def edges(v):
        lv = np.log10(v)
        mid = (lv[1:] + lv[:-1]) / 2
        return 10 ** np.r_[2 * lv[0] - mid[0], mid, 2 * lv[-1] - mid[-1]]

    ax.pcolormesh(edges(x), edges(y), phase, cmap=ListedColormap(COLORS), vmin=-0.5, vmax=3.5)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.grid(False)
    ax.legend(handles=[Patch(color=c, label=p) for c, p in zip(COLORS, PHASES)], fontsize=7, loc="lower right")
