"""lib/theory/stage_checks.py: the init-derived floor, the placebo windows, the turning reading of App. F.4."""

import numpy as np
import pytest

from lib.theory import stage_checks as sc
from lib.theory import two_layer as tl


@pytest.fixture(scope="module")
def main_setting():
    return tl.ensemble([1.0, 2.0], [0.05, 0.05], 2, 2, 0.05, "gaussian", 300, 60.0, 200, 0.01)


def test_init_entry_scale_is_the_mean_initial_diagonal():
    assert sc.init_entry_scale("gaussian", 0.05, 2) == pytest.approx(0.005)
    u = tl.init_u(20000, 2, 3, 0.2, "uniform", seed=1)
    assert np.einsum("nij,nij->n", u, u).mean() / 2 == pytest.approx(sc.init_entry_scale("uniform", 0.2, 3), rel=0.02)
    with pytest.raises(ValueError, match="unknown init"):
        sc.init_entry_scale("orthogonal", 0.1, 2)


def test_the_floor_of_0_05_drops_windows_and_the_placebos_fail(main_setting):
    """Minor entries start near d' tau^2 = 0.005 and many peak below 0.05: with that floor a rise they cause
    finds no window. With the init-derived floor every swing aligns, and the placebos do not."""
    r = main_setting
    tol, swung = 0.01 * r["loss"][0].mean(), r["bump"] > 0
    floor = sc.init_entry_scale("gaussian", 0.05, 2)
    at = {f: tl.stage_alignment_all(r["w"], r["loss"], r["a"], 2, r["times"], tol, f) for f in (floor, 0.05)}
    assert np.nanmin(at[floor][swung]) == 1.0
    assert (at[0.05][swung] <= at[floor][swung]).all() and (at[0.05][swung] < 1).any()
    for placebo in sc.STAGE_PLACEBOS:
        control = sc.placebo_alignment_all(r["w"], r["loss"], r["a"], 2, r["times"], tol, floor, placebo)
        assert tl.stage_alignment_fraction(control, swung).value < 0.2


def test_placebo_windows():
    growth, start, end = np.array([True, False]), np.array([[1.0, 2.0]]), np.array([[2.0, 4.0]])
    kinds, *times = sc.placebo_windows(growth, start, end, "swapped")
    assert list(kinds) == [False, True] and times[0] is start and times[1] is end
    kinds, shifted_start, shifted_end = sc.placebo_windows(growth, start, end, "shifted")
    assert kinds is growth and (shifted_start == [[3.0, 6.0]]).all() and (shifted_end == [[6.0, 12.0]]).all()
    with pytest.raises(ValueError, match="unknown placebo"):
        sc.placebo_windows(growth, start, end, "reversed")


def _one_seed_alignment(r, tol, floor, placebo=None):
    """The alignment seed by seed, from `two_layer.stages` and `two_layer.stage_alignment`, with the placebo's
    windows built from each seed's stage list."""
    flip = {"growth": "suppression", "suppression": "growth"}
    out = []
    for i in range(r["w"].shape[1]):
        st = tl.stages(r["w"][:, i], r["a"], len(r["a"]), r["times"], floor)
        if placebo == "swapped":
            st = [(flip[k], label, t0, t1) for k, label, t0, t1 in st]
        elif placebo == "shifted":
            st = [(k, label, sc.PLACEBO_SHIFT * t0, sc.PLACEBO_SHIFT * t1) for k, label, t0, t1 in st]
        out.append(tl.stage_alignment(r["loss"][:, i], r["times"], st, tol))
    return np.array(out)


@pytest.mark.parametrize("floor", [0.0, 0.005, 0.05])
def test_placebo_alignment_equals_the_one_seed_formulation(main_setting, floor):
    r = main_setting
    tol = 0.01 * r["loss"][0].mean()
    for placebo in sc.STAGE_PLACEBOS:
        batched = sc.placebo_alignment_all(r["w"], r["loss"], r["a"], 2, r["times"], tol, floor, placebo)
        np.testing.assert_array_equal(batched, _one_seed_alignment(r, tol, floor, placebo))


def test_the_turning_reading_can_tell_the_stages_apart_at_d_2(main_setting):
    """At d = s = 2 the excursions peak together (one entry), the turns away from the targets need not."""
    r, mu = main_setting, [1.0, 2.0]
    assert not tl.cluster_detours(r["w"], mu)["different_stages"].any()
    loose = sc.cluster_off_course(r["w"], mu, r["times"], speed_floor=0.01)
    assert loose["stage"].shape == (300, 2) and loose["different_stages"].mean() > 0.3
    assert ((loose["angle"] >= 0) & (loose["angle"] <= np.pi)).all()
    strict = sc.cluster_off_course(r["w"], mu, r["times"], speed_floor=0.3)
    assert strict["different_stages"].mean() < loose["different_stages"].mean()
