"""The stored run under data/diffusion/: the configuration that shows the phenomenon, too long
for the book's CPU budget, trained once by

    .venv/bin/python -m lib.diffusion.stored

which writes data/diffusion/run.npz (evaluations of every run), model.pt (the final model of the
first run, float16) and data/diffusion/timing.json (the wall-clock time it took).
"""
from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
import torch

from lib.book import cache_dir
from lib.chapter import ROOT
from lib.diffusion.experiment import train_sweep
from lib.diffusion.train import RunConfig, build_model
from lib.io import atomic_save, atomic_write_json

STORE = ROOT / "data" / "diffusion"
COLOUR_SIGNALS = [0.3, 0.7]
SEEDS = [0, 1]
CONFIG = RunConfig(colour_signal=COLOUR_SIGNALS[0], steps=4000, eval_every=250, samples=128, nudges=(0.1,))

# ----------------------------------------------------------------------------------------------
# Writing and reading the store
# ----------------------------------------------------------------------------------------------


def save(runs: dict[float, list[dict]], seconds: float, command: str) -> None:
    """Stack every run's evaluations into run.npz; the first run's final model into model.pt."""
    signals = sorted(runs)
    n_seeds = min(len(v) for v in runs.values())
    pick = lambda key: np.stack([np.stack([r[key] for r in runs[c][:n_seeds]]) for c in signals])
    arrays = {k: pick(k) for k in ("concepts", "loss", "gamma", "train_concepts", "prompts")}
    arrays["concepts"] = arrays["concepts"].astype(np.float16)
    first = runs[signals[0]][0]
    meta = {"config": first["config"], "colour_signals": signals, "seeds": SEEDS[:n_seeds],
            "classifier_accuracy": [runs[c][0]["classifier_accuracy"] for c in signals],
            "run_seconds": [[r["seconds"] for r in runs[c][:n_seeds]] for c in signals],
            "total_seconds": seconds, "command": command}
    atomic_save(STORE / "run.npz", lambda p: np.savez_compressed(
        open(p, "wb"), eval_steps=first["eval_steps"], **arrays))
    half = {k: v.half() if v.is_floating_point() else v for k, v in first["state"].items()}
    atomic_save(STORE / "model.pt", lambda p: torch.save(half, p))
    atomic_write_json(STORE / "meta.json", meta)


def load() -> dict:
    """The stored evaluations (numpy arrays indexed [colour signal, seed, ...]) and metadata."""
    with np.load(STORE / "run.npz") as f:
        out = {k: f[k] for k in f.files}
    out["concepts"] = out["concepts"].astype(np.float32)
    out.update(json.loads((STORE / "meta.json").read_text()))
    return out


def load_model(meta: dict):
    """The stored final model (first colour signal, first seed), in float32."""
    cfg = RunConfig(**{**meta["config"], "channels": tuple(meta["config"]["channels"]),
                       "nudges": tuple(meta["config"]["nudges"])})
    model = build_model(cfg)
    model.load_state_dict({k: v.float() for k, v in torch.load(STORE / "model.pt").items()})
    return model.eval(), cfg


# ----------------------------------------------------------------------------------------------
# Regenerating it
# ----------------------------------------------------------------------------------------------

if __name__ == "__main__":
    torch.set_num_threads(1)
    start = time.perf_counter()
    runs = train_sweep(CONFIG, COLOUR_SIGNALS, SEEDS, cache_dir("diffusion"))
    save(runs, time.perf_counter() - start, ".venv/bin/python -m lib.diffusion.stored")
    print(f"stored {STORE} in {time.perf_counter() - start:.0f} s", file=sys.stderr)
