"""Training runs (lib/diffusion/train.py) and the concept classifier: resume is exact, cache hits, blanks recognised."""
import numpy as np
import torch

from lib.diffusion.classifier import accuracy, labelled_batch, train_classifier
from lib.diffusion.data import Circles
from lib.diffusion.train import RunConfig, resolve_device, train_run

TINY = RunConfig(0.5, resolution=8, n_per_class=32, channels=(8, 16), blocks=1, heads=2, steps=6, eval_every=3,
                 samples=4, sampler_steps=3, classifier_steps=5, batch_size=8)


def test_interrupted_run_resumes_to_the_same_numbers(tmp_path):
    torch.set_num_threads(1)
    whole = train_run(TINY, tmp_path / "a")
    assert train_run(TINY, tmp_path / "b", max_new_steps=4) is None   # interrupted after 4 steps
    resumed = train_run(TINY, tmp_path / "b")
    np.testing.assert_array_equal(whole["eval_steps"], [0, 3, 6])
    np.testing.assert_array_equal(whole["concepts"], resumed["concepts"])
    np.testing.assert_array_equal(whole["loss"], resumed["loss"])
    assert whole["concepts"].shape == (3, 2, 4, 3)


def test_finished_run_is_loaded_not_retrained(tmp_path):
    first = train_run(TINY, tmp_path)
    assert not (tmp_path / TINY.key() / "checkpoint.pt").exists()
    again = train_run(TINY, tmp_path)
    assert again["seconds"] == first["seconds"]


def test_key_depends_on_every_setting():
    assert TINY.key() != RunConfig(**{**TINY.__dict__, "lr": 2e-3}).key()


def test_device_auto_detects():
    assert resolve_device("auto") == ("cuda" if torch.cuda.is_available() else "cpu")


def test_classifier_recognises_blank_images():
    torch.manual_seed(0)
    dgp = Circles(0.7, resolution=8)
    x, y = labelled_batch(dgp, 100, np.random.default_rng(0), blank_fraction=0.5)
    assert (y[:50, 2] == 0).all() and (y[50:, 2] == 1).all()
    model = train_classifier(dgp, steps=150, batch=64)
    assert accuracy(model, dgp, n=512) > 0.9
