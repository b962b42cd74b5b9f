"""The stored run under data/diffusion/: the configuration that shows the phenomenon, too long
for the book's CPU budget, trained once by

    .venv/bin/python -m lib.diffusion.stored

which writes data/diffusion/run.npz (evaluations of every run), model.pt (the final model of the
first run trained, float16) and meta.json (configuration, and the seconds each run took).
"""
from __future__ import annotations

import json
import sys
import time

import numpy as np
import torch

from lib.paths import cache_dir
from lib.paths import ROOT
from lib.diffusion.experiment import stack_runs, train_sweep
from lib.diffusion.train import RunConfig, build_model
from lib.io import atomic_save, atomic_write_json

STORE = ROOT / "data" / "diffusion"
COLOUR_SIGNALS = [0.3, 0.7, 0.2]  # training order; stored sorted
SEEDS = [0, 1]
THREADS = 1
CONFIG = RunConfig(colour_signal=COLOUR_SIGNALS[0], blocks=1, steps=3000, eval_every=200, samples=128, nudges=(0.1,))

# ----------------------------------------------------------------------------------------------
# Writing and reading the store
# ----------------------------------------------------------------------------------------------


def save(sweep: dict, seconds: float, command: str) -> None:
    """A stacked sweep (experiment.stack_runs) into run.npz and meta.json; the first run's final model into model.pt."""
    arrays = {k: sweep[k] for k in ("eval_steps", "concepts", "loss", "gamma", "train_concepts", "prompts")}
    arrays["concepts"] = arrays["concepts"].astype(np.float16)
    meta = {k: sweep[k] for k in ("config", "colour_signals", "seeds", "classifier_accuracy", "run_seconds")}
    meta.update(total_seconds=seconds, command=command, threads=THREADS, model_config=sweep["model_config"])
    atomic_save(STORE / "run.npz", lambda p: np.savez_compressed(open(p, "wb"), **arrays))
    atomic_save(STORE / "model.pt", lambda p: torch.save(
        {k: v.half() if v.is_floating_point() else v for k, v in sweep["state"].items()}, p))
    atomic_write_json(STORE / "meta.json", meta)


def load() -> dict:
    """The stored evaluations (numpy arrays indexed [colour signal, seed, ...]) and metadata."""
    with np.load(STORE / "run.npz") as f:
        out = {k: f[k] for k in f.files}
    out["concepts"] = out["concepts"].astype(np.float32)
    out.update(json.loads((STORE / "meta.json").read_text()))
    return out


def load_model(meta: dict):
    """The stored final model (of the first run trained) in float32, and its configuration."""
    c = meta["model_config"]
    cfg = RunConfig(**{**c, "channels": tuple(c["channels"]), "nudges": tuple(c["nudges"])})
    model = build_model(cfg)
    model.load_state_dict({k: v.float() for k, v in torch.load(STORE / "model.pt").items()})
    return model.eval(), cfg


# ----------------------------------------------------------------------------------------------
# Regenerating it
# ----------------------------------------------------------------------------------------------

if __name__ == "__main__":
    torch.set_num_threads(THREADS)
    start = time.perf_counter()
    for n in range(1, len(SEEDS) + 1):  # store after every whole seed: a cut-off run keeps what finished
        runs = train_sweep(CONFIG, COLOUR_SIGNALS, SEEDS[:n], cache_dir("diffusion"))
        first = runs[COLOUR_SIGNALS[0]][0]
        sweep = stack_runs(runs) | {"state": first["state"], "model_config": first["config"]}
        save(sweep, time.perf_counter() - start, ".venv/bin/python -m lib.diffusion.stored")
        print(f"stored seeds {SEEDS[:n]} after {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
