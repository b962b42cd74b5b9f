"""Which concept an MLP learns first (Section 3.1, Fig. 2a and 2b).

`lib.sim.metrics.learned_first` gives, per run, the concept ahead when the mean progress reaches
one half. The paper's two statements are about every run of a setting: the concept with the
stronger signal (the larger mean, Fig. 2a) and, at equal means, the one with the larger spread
(Fig. 2b) is learned first.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np


def stronger_signal_first(first: np.ndarray, means: Sequence[Sequence[float]]) -> bool:
    """Fig. 2a: in every run of every setting whose concept means differ, the concept with the
    larger mean is learned first. `first` (settings, seeds): index learned first (-1: never);
    `means` (settings, concepts). Settings with equal means say nothing and are skipped."""
    first = np.atleast_2d(first)
    return all(
        bool(np.all(row == int(np.argmax(mu)))) for row, mu in zip(first, np.asarray(means, float)) if np.ptp(mu) > 0
    )


def more_diverse_first(first: np.ndarray, stds: Sequence[float]) -> bool:
    """Fig. 2b: in every run of one setting, the concept with the larger spread (standard
    deviation of its clusters) is learned first. `first` (seeds,)."""
    return bool(np.all(np.asarray(first) == int(np.argmax(stds))))
