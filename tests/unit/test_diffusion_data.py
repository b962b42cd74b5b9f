"""The circles data-generating process (lib/diffusion/data.py) against its definition."""

import numpy as np

from lib.diffusion.data import (
    TRAIN_CLASSES,
    UNSEEN,
    Circles,
    concept_signals,
    render,
    sample_conditions,
)
from lib.diffusion.train import make_dataset


def test_class_means_and_prompts():
    dgp = Circles(0.4, size_mean=0.45, size_signal=0.4)
    np.testing.assert_allclose(dgp.colour_mean(0), [0.7, 0.3, 0.3])
    np.testing.assert_allclose(dgp.colour_mean(1), [0.3, 0.3, 0.7])
    np.testing.assert_allclose(dgp.prompt(*UNSEEN), [0.25, 0.3, 0.3, 0.7], rtol=1e-6)
    np.testing.assert_allclose(dgp.prompt(*UNSEEN, size_offset=0.1)[0], 0.35, rtol=1e-6)


def test_jitter_within_bounds():
    dgp = Circles(0.4)
    labels = np.tile([1, 1], (5000, 1))
    cond = sample_conditions(dgp, labels, np.random.default_rng(0))
    assert np.all(np.abs(cond[:, 1:] - dgp.colour_mean(1)) <= 0.4 / 8 + 1e-6)
    assert np.all(cond[:, 0] >= 0.1) and np.all(np.abs(cond[:, 0] - 0.25) <= 3 * 0.4 / 8 + 1e-6)


def test_render_disc_area_and_colour():
    """Noise-free render: the disc covers pi r^2 of the [-1, 1]^2 square and has the prompt's colour."""
    n, res = 1, 64
    cond = np.array([[0.5, 0.2, 0.3, 0.9]], dtype=np.float32)
    img = render(cond, np.zeros((n, 2)), np.ones((n, 3)), res, 0.0, np.random.default_rng(0))
    inside = img[0, 0] < 0.6
    area = inside.mean() * 4
    assert abs(area - np.pi * 0.25) < 0.05
    np.testing.assert_allclose(img[0, :, res // 2, res // 2], [0.2, 0.3, 0.9], atol=1e-3)
    blank = render(cond, np.zeros((n, 2)), np.ones((n, 3)), res, 0.0, np.random.default_rng(0), disc=False)
    assert np.all(blank == 1)


def test_dataset_holds_out_blue_small():
    ds = make_dataset(Circles(0.3, resolution=8), 10)
    assert ds.x.shape == (30, 3, 8, 8) and ds.x.min() >= 0 and ds.x.max() <= 1
    assert not any((tuple(l) == UNSEEN) for l in ds.labels.tolist())
    assert {tuple(l) for l in ds.labels.tolist()} == set(TRAIN_CLASSES)


def test_concept_signal_grows_with_colour_contrast():
    weak, strong = concept_signals(Circles(0.2), n=64), concept_signals(Circles(0.7), n=64)
    assert strong["colour"] > weak["colour"] and weak["size"] > weak["colour"] and strong["colour"] > strong["size"]
