"""lib/theory/flow_vs_training.py: torch training of U follows the two-layer flow, to first order in the step."""

import numpy as np

from lib.theory import two_layer as tl
from lib.theory.flow_vs_training import flow_vs_training


def test_training_follows_the_flow_and_the_gap_shrinks_with_the_step():
    mu, sigma, d = [1.0, 2.0], [0.05, 0.05], 2
    u0 = np.random.default_rng(0).normal(0, 0.1, (2, d, d))
    a = tl.ensemble(mu, sigma, d, d, 0.1, "gaussian", 2, 1.0, 4, 1e-3, 1, 0)["a"]
    coarse = flow_vs_training(u0, a, mu, sigma, 4000, 0.02, 4.0, seed=0)
    fine = flow_vs_training(u0, a, mu, sigma, 4000, 0.01, 4.0, seed=0)
    assert coarse.w_train.shape == coarse.w_flow.shape == (len(coarse.tau), 2, d, d)
    assert coarse.tau[-1] == 4.0 and coarse.max_deviation < 0.1
    assert fine.max_deviation < coarse.max_deviation
