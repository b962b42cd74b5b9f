"""The calibration-free read-out (lib/diffusion/segment.py): physical values of real images, blanks and noise."""

import numpy as np
import pytest

from lib.diffusion.classifier import noise_images
from lib.diffusion.data import CLASSES, Circles, render, sample_images
from lib.diffusion.segment import concept_coordinates, segment


def test_radius_and_colour_of_a_clean_disc():
    cond = np.array([[0.3, 0.6, 0.4, 0.2]], dtype=np.float32)
    img = render(cond, np.zeros((1, 2)), np.full((1, 3), 0.9), 32, 0.0, np.random.default_rng(0))
    out = segment(img)
    assert out["present"][0]
    assert abs(out["radius"][0] - 0.3) < 0.03
    assert abs(out["colour"][0] - (0.2 - 0.6)) < 0.02


@pytest.mark.parametrize("contrast", [0.2, 0.7])
@pytest.mark.parametrize("resolution", [16, 24])
def test_real_images_read_as_their_class(contrast, resolution):
    dgp = Circles(contrast, resolution=resolution)
    rng = np.random.default_rng(1)
    for c in CLASSES:
        x, _ = sample_images(dgp, np.tile(c, (200, 1)), rng)
        out = segment(x)
        assert out["present"].mean() > 0.97
        mean = np.nanmean(concept_coordinates(out["colour"], out["radius"], dgp), 0)
        np.testing.assert_allclose(mean, c, atol=0.07)


def test_blanks_and_noise_have_no_disc():
    dgp = Circles(0.3, resolution=24)
    rng = np.random.default_rng(2)
    blanks, _ = sample_images(dgp, np.zeros((100, 2), dtype=int), rng, disc=0.0)
    assert not segment(blanks)["present"].any()
    assert not segment(noise_images(100, 24, rng))["present"].any()
