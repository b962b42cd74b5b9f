"""Training runs (lib/diffusion/train.py, evidence.py): own seeds per run, EMA, exact resume, paired samples."""

import numpy as np
import pytest
import torch

from lib.diffusion.configs import CPU, SMOKE, shards
from lib.diffusion.evidence import contrast_seed_run, run_config
from lib.diffusion.train import Run, RunConfig, run_seeds, train

TINY = RunConfig(
    0.5,
    resolution=8,
    n_per_class=32,
    channels=(8, 16),
    blocks=1,
    heads=2,
    steps=6,
    eval_every=3,
    samples=4,
    sampler_steps=3,
    classifier_steps=5,
    batch_size=8,
)
SMOKE_CONFIG = CPU | SMOKE


def readout(run: Run) -> dict:
    return {"x": run.sample(TINY.prompts(), TINY.samples).numpy()}


def test_runs_of_other_contrasts_or_seeds_share_no_random_numbers():
    a, b, c = (Run(TINY, run_seeds(*k)) for k in ((0, 0), (1, 0), (0, 1)))
    wa, wb, wc = (next(r.model.net.parameters()).detach() for r in (a, b, c))
    assert not torch.equal(wa, wb) and not torch.equal(wa, wc)
    assert not torch.equal(a.x, b.x) and not torch.equal(a.x, c.x)
    assert a.sample_seed not in (b.sample_seed, c.sample_seed)
    again = Run(TINY, run_seeds(0, 0))
    assert torch.equal(wa, next(again.model.net.parameters()).detach())


def test_interrupted_run_resumes_to_the_same_numbers(tmp_path):
    torch.set_num_threads(1)
    whole = train(Run(TINY, run_seeds(0, 0)), readout)
    assert train(Run(TINY, run_seeds(0, 0)), readout, tmp_path, stop_after=4) is None  # killed after step 4
    resumed = train(Run(TINY, run_seeds(0, 0)), readout, tmp_path)
    np.testing.assert_array_equal(whole["eval_steps"], [0, 3, 6])
    for key in ("x", "loss_diffusion", "loss_recon", "gamma"):
        np.testing.assert_array_equal(whole[key], resumed[key])


def test_samples_reuse_their_noise_and_come_from_the_ema():
    run = Run(TINY, run_seeds(0, 0))
    first = run.sample(TINY.prompts(), 2)
    assert torch.equal(first, run.sample(TINY.prompts(), 2))  # common random numbers
    run.step()
    ema, live = (dict(m.named_parameters()) for m in (run.ema.module, run.model))
    name = "net.stem.weight"
    assert not torch.equal(ema[name], live[name])  # averaged, not a copy


def test_evidence_configuration_and_shards():
    assert len(CPU["seeds"]) >= 5 and len(CPU["contrasts"]) >= 4
    assert min(CPU["contrasts"]) <= 0.2 and max(CPU["contrasts"]) >= 0.7
    assert len(shards(CPU)) == 20
    assert run_config(CPU, 0.35).colour_signal == 0.35


@pytest.mark.slow(10)
def test_smoke_shard_arrays():
    torch.set_num_threads(1)
    a = contrast_seed_run(SMOKE_CONFIG, {"contrast": 0.2, "seed": 0})
    k, p, s = a["present"].shape
    assert (k, p, s) == (3, 4, SMOKE_CONFIG["samples"]) and a["classifier"].shape == (k, p, s, 3)
    assert a["images"].dtype == np.uint8


def test_max_difference_of_shards():
    from lib.diffusion.analysis import max_difference

    a = {"x": np.array([1.0, np.nan]), "n": np.array([1, 2])}
    assert max_difference(a, {"x": np.array([1.0, np.nan]), "n": np.array([1, 2])}) == 0
    assert max_difference(a, {"x": np.array([1.5, np.nan]), "n": np.array([1, 2])}) == 0.5
    assert max_difference(a, {"x": np.array([1.0, 0.0]), "n": np.array([1, 2])}) == np.inf
    assert max_difference(a, {"x": np.array([1.0])}) == np.inf
