"""Evidence shards of the diffusion chapter: one shard trains one (colour contrast, seed) run.

At every checkpoint the EMA model samples the four class prompts (three seen in training, the
unseen (blue, small) last) and any nudged prompts, with the same sampling noise at every
checkpoint, and two read-outs are stored per sample: the segmentation's physical values
(lib.diffusion.segment: disc present, radius, colour) and the calibrated classifier's
(P(blue), P(small), P(disc)). Nothing is dropped: a sample without a disc is marked, not removed.
The classifier of a contrast is trained from SeedSequence((contrast index, CLASSIFIER_STREAM)),
the same for every seed of that contrast, and its calibration on images in transit is stored with
the shard. The shard checkpoints after every evaluation under `checkpoint` and resumes there.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import numpy as np
import torch

from lib.diffusion.classifier import ConceptClassifier, calibration, train_classifier
from lib.diffusion.segment import segment
from lib.diffusion.train import Run, RunConfig, run_seeds, train
from lib.util.io import atomic_save

CLASSIFIER_STREAM = 2**31 - 1  # second word of the classifier's SeedSequence (seeds are smaller)
KEEP_IMAGES = 4  # samples of the unseen prompt kept as images at every checkpoint

# ----------------------------------------------------------------------------------------------
# Configuration (the sets' configurations: lib.diffusion.configs)
# ----------------------------------------------------------------------------------------------


def run_config(config: dict, contrast: float) -> RunConfig:
    """The RunConfig of one contrast from an evidence configuration (keys: RunConfig's fields)."""
    names = {f.name for f in fields(RunConfig)} - {"colour_signal"}
    kwargs = {k: (tuple(v) if isinstance(v, list) else v) for k, v in config.items() if k in names}
    return RunConfig(colour_signal=float(contrast), **kwargs)


def trained_classifier(cfg: RunConfig, contrast_index: int, checkpoint: Path | None) -> ConceptClassifier:
    """The contrast's read-out, trained once per shard (deterministic) and kept under `checkpoint`."""
    path = checkpoint / "classifier.pt" if checkpoint is not None else None
    if path is not None and path.exists():
        model = ConceptClassifier()
        model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
        return model.eval()
    model = train_classifier(cfg.dgp, cfg.classifier_steps, np.random.SeedSequence((contrast_index, CLASSIFIER_STREAM)))
    if path is not None:
        atomic_save(path, lambda p: torch.save(model.state_dict(), p))
    return model


# ----------------------------------------------------------------------------------------------
# The shard
# ----------------------------------------------------------------------------------------------


def contrast_seed_run(config: dict, shard: dict, checkpoint: Path | None = None) -> dict[str, np.ndarray]:
    """Shard {"contrast": c, "seed": s}: train, read out at every checkpoint, return compact arrays.

    Arrays (K checkpoints, P prompts = 4 classes in CLASSES order + nudges, S samples):
    eval_steps (K,); present (K, P, S) bool; radius, colour (K, P, S) float32 (segmentation,
    physical units); classifier (K, P, S, 3) float32; images (K, KEEP_IMAGES, 3, R, R) uint8 of the
    unseen prompt; loss_diffusion, loss_prior, loss_recon (K,) (bits/dim, mean since the previous
    checkpoint); gamma (K, 2); prompts (P, 4); calibration_* (lib.diffusion.classifier.calibration).
    """
    contrast, seed = float(shard["contrast"]), int(shard["seed"])
    contrast_index = [float(c) for c in config["contrasts"]].index(contrast)
    cfg = run_config(config, contrast)
    device = "cuda" if config.get("device") == "cuda" and torch.cuda.is_available() else "cpu"
    if checkpoint is not None:
        checkpoint.mkdir(parents=True, exist_ok=True)
    clf = trained_classifier(cfg, contrast_index, checkpoint)
    prompts = cfg.prompts()
    n_prompts, n = len(prompts), cfg.samples

    def evaluate(run: Run) -> dict[str, np.ndarray]:
        x = run.sample(prompts, n).float().cpu()
        seg = segment(x.numpy())
        unseen = x[3 * n : 3 * n + KEEP_IMAGES]
        return {
            "present": seg["present"].reshape(n_prompts, n),
            "radius": seg["radius"].reshape(n_prompts, n),
            "colour": seg["colour"].reshape(n_prompts, n),
            "classifier": clf.concepts(x).numpy().reshape(n_prompts, n, 3).astype(np.float32),
            "images": (unseen.numpy() * 255).round().astype(np.uint8),
        }

    records = train(Run(cfg, run_seeds(contrast_index, seed), device), evaluate, checkpoint)
    records.pop("seconds_this_call")
    out = {k: (v.astype(np.float32) if v.dtype == np.float64 else v) for k, v in records.items()}
    out["eval_steps"] = records["eval_steps"].astype(np.int32)
    out["prompts"] = prompts.astype(np.float32)
    out.update({f"calibration_{k}": v.astype(np.float32) for k, v in calibration(clf, cfg.dgp).items()})
    return out
