"""The diffusion chapter's evidence configurations as plain data (no torch: the chapter's declaration imports them).

CPU: the set this machine computes (2 cores, about 3 hours); CPU_LONG: its two extreme contrasts
carried on to 8000 steps, and CPU_LONG_EXTRA five more seeds of those; lengths in half-side units of the
image (lib.diffusion.data). PAPER: the paper's configuration (App. G.2-G.3: 32 x 32, widths
[64, 128, 256] with two residual blocks, batch 128, 20k steps, 100 sampling steps, a classifier
trained 10k steps, 5 seeds, contrasts 0.2 to 0.7), computed where a GPU is at hand.
"""

from __future__ import annotations

CPU = {
    "contrasts": [0.2, 0.35, 0.5, 0.7],
    "seeds": [0, 1, 2, 3, 4],
    "resolution": 24,
    "size_mean": 0.45,
    "size_signal": 0.4,
    "blur": 2 / 31,
    "n_per_class": 2048,
    "channels": [16, 32, 64],
    "blocks": 1,
    "heads": 4,
    "dropout": 0.1,
    "gamma_min": -5.0,
    "gamma_max": 10.0,
    "data_noise": 1e-3,
    "learn_schedule": True,
    "lr": 1e-3,
    "weight_decay": 0.01,
    "batch_size": 64,
    "grad_clip": 1.0,
    "ema_decay": 0.995,
    "steps": 2400,
    "eval_every": 150,
    "samples": 32,
    "sampler_steps": 50,
    "nudges": [],
    "classifier_steps": 600,
    "channels_last": False,
    "compile": False,
}

# The CPU runs at the two ends of the contrast range carried on to 8000 steps: the same contrast
# indices and seeds, hence the same random streams, so the first 2400 steps are the CPU set's runs
# (a stored check), and the rest shows whether training reaches the end state Sec. 5 describes.
CPU_LONG = CPU | {"steps": 8000, "eval_every": 400}
CPU_LONG_CONTRASTS = (0.2, 0.7)
# Five more seeds of the same runs: the first five left the order of learning undecided at both ends.
CPU_LONG_EXTRA = CPU_LONG | {"seeds": [5, 6, 7, 8, 9]}

# The registered design of S-6 (declared in lib/book/chapters/diffusion.py, committed before any of its shards):
# twenty more seeds (10 to 29) of the long runs at both ends of the contrast range, read out every 100
# steps, so that with the ten stored seeds (0 to 9, read out every 400) each contrast has 30 seeds: about
# 80 % power for a standardised shift of 0.8 in the order of learning (two-sided 5 %, rank test). Same
# data, model, optimiser, classifier and random-stream construction as cpu_long, so all 30 are draws of
# one design; the denser read-out resolves the bend and the MSE during it.
REGISTERED = CPU_LONG | {"seeds": list(range(10, 30)), "eval_every": 100}
REGISTERED_CONTRASTS = CPU_LONG_CONTRASTS
REGISTERED_COMMON_EVERY = 400  # the read-out grid every registered seed shares (the stored seeds' grid)
# The effects the registered design was sized for (registered with it, lib/book/chapters/diffusion.py), in
# standard deviations over seeds: (a) a success rate of 0.65 against the bar of 1/2 with a seed SD of 0.25;
# (b) a shift of the colour lead of 0.8; (c) a mean offset toward the stronger corner of 0.66; (d) a mean
# rise of the MSE during the bend of 0.66. The chapter states each test's power at these effects.
REGISTERED_SIZING = {
    "generalisation": (0.65 - 0.5) / 0.25,
    "colour_lead_shift": 0.8,
    "bend": 0.66,
    "rise_in_bend": 0.66,
}
# The same design on a GPU (its own set, its own numerics): all 30 seeds read out every 100 steps.
REGISTERED_GPU = REGISTERED | {"seeds": list(range(30))}

PAPER = CPU | {
    "contrasts": [0.2, 0.3, 0.4, 0.5, 0.6, 0.7],
    "resolution": 32,
    "channels": [64, 128, 256],
    "blocks": 2,
    "batch_size": 128,
    "steps": 20000,
    "eval_every": 500,
    "sampler_steps": 100,
    "classifier_steps": 10000,
    "ema_decay": 0.999,
}

# A shard in a few seconds on one core (the live check of the chapter recomputes one): two contrasts and
# two seeds, three read-outs, so that every statistic runs; a test of the code, not of the science.
SMOKE = {
    "contrasts": [0.2, 0.7],
    "seeds": [0, 1],
    "resolution": 16,
    "channels": [8, 16],
    "heads": 2,
    "n_per_class": 128,
    "batch_size": 16,
    "steps": 16,
    "eval_every": 8,
    "samples": 8,
    "sampler_steps": 8,
    "classifier_steps": 6,
}


def shards(config: dict, contrasts: tuple[float, ...] | None = None) -> list[dict]:
    """Every (contrast, seed) pair of a configuration (or of its `contrasts` only), seed-major so that a
    cut-off set has whole seeds."""
    return [{"contrast": c, "seed": s} for s in config["seeds"] for c in contrasts or config["contrasts"]]


def shard_cpu_seconds(
    config: dict, train_ms_per_image: float, sample_ms_per_image_step: float, classifier_s_per_step: float
) -> float:
    """One shard's CPU seconds from measured unit costs (benchmarks/diffusion.py measures them):
    training steps x batch, sampling checkpoints x prompts x samples x sampler steps, classifier steps."""
    checkpoints = len(range(0, config["steps"] + 1, config["eval_every"])) + (
        config["steps"] % config["eval_every"] > 0
    )
    prompts = 4 + len(config["nudges"])
    return (
        config["steps"] * config["batch_size"] * train_ms_per_image / 1e3
        + checkpoints * prompts * config["samples"] * config["sampler_steps"] * sample_ms_per_image_step / 1e3
        + config["classifier_steps"] * classifier_s_per_step
    )
