"""The classifier read-out (lib/diffusion/classifier.py): transit images, soft targets, calibration."""

import numpy as np
import pytest
import torch

from lib.diffusion.classifier import (
    calibration,
    train_classifier,
    transit_batch,
    transit_discs,
)
from lib.diffusion.data import Circles
from lib.diffusion.segment import concept_coordinates, segment


def test_transit_batch_targets():
    dgp = Circles(0.5, resolution=16)
    x, y = transit_batch(dgp, 100, np.random.default_rng(0))
    assert x.shape == (100, 3, 16, 16) and y.shape == (100, 3)
    assert torch.all((y >= 0) & (y <= 1))
    assert torch.all(y[70:, 2] == 0)  # a tenth blank, a fifth noise: no disc
    assert torch.all(y[:70, 2] >= 0.3)


def test_transit_discs_have_the_interpolated_concepts():
    """The segmentation reads a disc a fraction a of the way to blue as colour coordinate a."""
    dgp = Circles(0.6, resolution=24)
    rng = np.random.default_rng(3)
    for a in (0.25, 0.5, 0.75):
        x = transit_discs(dgp, np.full(300, a), np.full(300, a), rng)
        out = segment(x)
        np.testing.assert_allclose(
            np.nanmean(concept_coordinates(out["colour"], out["radius"], dgp), 0), [a, a], atol=0.06
        )


@pytest.mark.slow(20)
def test_trained_classifier_is_calibrated_and_flags_noise():
    torch.set_num_threads(1)
    dgp = Circles(0.7, resolution=8)
    model = train_classifier(dgp, steps=200, seed=0, batch=64)
    cal = calibration(model, dgp, n=32, levels=5)
    assert cal["colour_curve"][0] < 0.3 and cal["colour_curve"][-1] > 0.7
    assert np.all(np.diff(cal["colour_curve"]) > -0.05)
    assert cal["noise_readout"][:, 2].mean() < 0.3 and cal["blank_readout"][:, 2].mean() < 0.3
