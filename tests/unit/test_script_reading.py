"""Tests of lib/theory/script_reading.py: the script's Euler steps of W against the flow, A against A^2."""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import pytest

from lib.theory import lemmas as lm
from lib.theory import script_reading as sr
from lib.theory import two_layer as tl

SMALL = sr.ScriptSetting(n_steps=400, step=0.05)


def test_euler_w_is_the_w_recursion():
    a = tl.signal_strengths([1.0, 1.5], [0.05, 0.05], 3, 2)
    w0 = tl.gram(tl.init_u(5, 3, 3, 0.2, "uniform", seed=1))
    loss, _ = sr.euler_w(w0, a, 0.01, 30, [1.0, 1.5])
    w = lm.discrete_run(w0, a, 0.01, 30)
    assert np.allclose(loss, tl.ood_loss(w, [1.0, 1.5]))


def test_flow_and_euler_agree_on_most_seeds():
    flow = sr.script_run(sr.ScriptSetting(), 1, "flow", 40, seed=0)
    euler = sr.script_run(sr.ScriptSetting(), 1, "euler_w", 40, seed=0)
    ok = ~euler["diverged"]
    assert (flow["min_eig"] > -1e-10).all()
    assert np.abs(flow["loss"][:, ok] - euler["loss"][:, ok]).max() < 0.1  # O(step) Euler error
    with pytest.raises(ValueError):
        sr.script_run(SMALL, 1, "rk4", 2)


def test_compare_readings_returns_estimates_on_the_same_seeds():
    out = sr.compare_readings(SMALL, 60, seed=3, integrators=("flow",))
    assert set(out) == {"A/flow", "A2/flow", "A2-A/flow"}
    for key in ("A/flow", "A2/flow"):
        est = out[key]["nonmonotone"]
        assert est.n == 60 and est.low <= est.value <= est.high
    diff = out["A2-A/flow"]["nonmonotone"]
    assert np.isclose(diff.value, out["A2/flow"]["nonmonotone"].value - out["A/flow"]["nonmonotone"].value)
