"""lib/sim/order.py: the learning-order verdicts of Fig. 2a and 2b."""

import numpy as np

from lib.sim.order import more_diverse_first, stronger_signal_first


def test_stronger_signal_first_over_settings_with_unequal_means():
    means = [[1.0, 2.0], [2.0, 2.0], [3.0, 1.0]]
    first = np.array([[1, 1, 1], [0, 1, 0], [0, 0, 0]])  # the equal-means row says nothing
    assert stronger_signal_first(first, means)
    first[2, 1] = 1
    assert not stronger_signal_first(first, means)
    first[2, 1] = -1  # a run that never reaches half way is not a success
    assert not stronger_signal_first(first, means)


def test_more_diverse_first_needs_every_run():
    assert more_diverse_first(np.array([0, 0, 0]), [0.3, 0.1])
    assert not more_diverse_first(np.array([0, 1, 0]), [0.3, 0.1])
