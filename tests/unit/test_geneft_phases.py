"""lib.geneft.phases: Table 4 and the boundary fit on phase diagrams with a known boundary."""
import numpy as np
import pytest

from lib.geneft import phases as ph


def test_table4_classification():
    tr = np.array([10, 10, 10, -1, -1])
    te = np.array([500, 2000, -1, -1, 30])
    np.testing.assert_array_equal(ph.classify(tr, te, threshold=1000),
                                  [ph.GENERALIZATION, ph.GROKKING, ph.MEMORIZATION, ph.CONFUSION, ph.CONFUSION])
    assert ph.phase_counts(ph.classify(tr, te, 1000)) == {"generalization": 1, "grokking": 1, "memorization": 1,
                                                         "confusion": 2}


@pytest.mark.parametrize("ratio, slope", [(10.0, 1.0), (3.0, 0.5)])
def test_boundary_of_a_synthetic_diagram(ratio, slope):
    """Memorization above eta_dec = ratio * eta_enc^slope (in units of 1e-3): the fit recovers both."""
    enc, dec = np.logspace(-5, -2, 7), np.logspace(-5, 0, 41)
    mem = dec[None, :] > ratio * 1e-3 * (enc[:, None] / 1e-3) ** slope
    phase = np.where(mem, ph.MEMORIZATION, ph.GENERALIZATION)
    assert ph.boundary_slope(phase, enc, dec) == pytest.approx(slope, abs=0.05)
    crit = ph.critical_ratio(phase, enc, dec)
    if slope == 1.0:
        np.testing.assert_allclose(crit, ratio, rtol=0.2)


def test_columns_without_a_transition_are_skipped():
    phase = np.array([[ph.CONFUSION] * 3, [ph.GENERALIZATION, ph.GROKKING, ph.MEMORIZATION]])
    enc, dec = ph.boundary_points(phase, np.array([1e-4, 1e-3]), np.array([1e-4, 1e-3, 1e-2]))
    np.testing.assert_allclose(enc, [1e-3])
    np.testing.assert_allclose(dec, [np.sqrt(1e-5)])
    assert np.isnan(ph.boundary_slope(phase, np.array([1e-4, 1e-3]), np.array([1e-4, 1e-3, 1e-2])))
