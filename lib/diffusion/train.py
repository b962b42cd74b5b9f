"""Training runs: one (colour signal, seed) run is trained, evaluated at checkpoints, cached.

A run is keyed by a hash of its configuration: a finished run is loaded from
`lib.book.cache_dir("diffusion")`, an interrupted one resumes from its last checkpoint
(model, optimiser, random states and the evaluations so far, written atomically), so
re-executing the chapter never retrains what exists. At every checkpoint the model samples
the unseen (blue, small) prompt and its size-nudged variants with the same noise (common random
numbers across checkpoints) and the concept classifier reads the samples out.
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from lib.diffusion.classifier import ConceptClassifier, accuracy, train_classifier
from lib.diffusion.data import TRAIN_CLASSES, UNSEEN, Circles, make_dataset
from lib.diffusion.unet import UNet
from lib.diffusion.vdm import VDM
from lib.io import atomic_save

# ----------------------------------------------------------------------------------------------
# Configuration
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunConfig:
    """Everything that determines a run's numbers (App. G.1-G.3; sizes scaled by parameters)."""

    colour_signal: float
    seed: int = 0
    size_mean: float = 0.45
    size_signal: float = 0.4
    resolution: int = 16
    n_per_class: int = 2048
    channels: tuple[int, ...] = (16, 32, 64)
    blocks: int = 2
    heads: int = 4
    dropout: float = 0.1
    gamma_min: float = -5.0
    gamma_max: float = 10.0
    data_noise: float = 1e-3
    learn_schedule: bool = True
    lr: float = 1e-3
    weight_decay: float = 0.01
    batch_size: int = 64
    grad_clip: float = 1.0
    steps: int = 1000
    eval_every: int = 250
    samples: int = 128
    sampler_steps: int = 50
    nudges: tuple[float, ...] = (0.1,)
    classifier_steps: int = 400

    @property
    def dgp(self) -> Circles:
        return Circles(self.colour_signal, self.size_mean, self.size_signal, self.resolution)

    @classmethod
    def from_params(cls, p, colour_signal: float, seed: int = 0) -> "RunConfig":
        """The run of the chapter's parameters (a namespace, names as in lib/specs/diffusion.py)."""
        return cls(colour_signal, seed, p.size_mean, p.size_signal, p.image_size, p.n_per_class, tuple(p.channels),
                   p.blocks, p.attention_heads, p.dropout, p.gamma_min, p.gamma_max, p.data_noise, p.learn_schedule,
                   p.lr, p.weight_decay, p.batch_size, p.grad_clip, p.steps, p.eval_every, p.samples,
                   p.sampler_steps, tuple(p.nudges), p.classifier_steps)

    def key(self) -> str:
        return hashlib.sha1(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:16]

    def prompts(self) -> np.ndarray:
        """Row 0: the exact unseen prompt (blue, small); then one row per size nudge."""
        return np.stack([self.dgp.prompt(*UNSEEN, size_offset=o) for o in (0.0, *self.nudges)])


def resolve_device(name: str) -> str:
    """'auto' picks CUDA when present (the paper's configuration on a GPU), else the CPU."""
    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("device 'cuda' requested but no CUDA device is available")
    return name


def build_model(cfg: RunConfig) -> VDM:
    net = UNet(list(cfg.channels), cfg.blocks, cfg.heads, cfg.dropout)
    model = VDM(net, cfg.gamma_min, cfg.gamma_max, cfg.data_noise)
    model.gamma.requires_grad_(cfg.learn_schedule)
    return model


# ----------------------------------------------------------------------------------------------
# Concept classifier (one per data-generating process, cached)
# ----------------------------------------------------------------------------------------------


def concept_classifier(cfg: RunConfig, cache: Path, device: str) -> tuple[ConceptClassifier, float]:
    """The read-out for this run's DGP and its held-out accuracy, trained once and cached."""
    dgp = cfg.dgp
    key = hashlib.sha1(json.dumps([asdict(dgp), cfg.classifier_steps]).encode()).hexdigest()[:16]
    path = cache / f"classifier-{key}.pt"
    model = ConceptClassifier()
    if path.exists():
        saved = torch.load(path, map_location="cpu")
        model.load_state_dict(saved["state"])
        return model.to(device).eval(), saved["accuracy"]
    model = train_classifier(dgp, cfg.classifier_steps, device=device)
    acc = accuracy(model, dgp)
    atomic_save(path, lambda p: torch.save({"state": model.state_dict(), "accuracy": acc}, p))
    return model, acc


# ----------------------------------------------------------------------------------------------
# Evaluation at a checkpoint
# ----------------------------------------------------------------------------------------------


def read_out(model: VDM, clf: ConceptClassifier, prompts: np.ndarray, cfg: RunConfig, device: str) -> np.ndarray:
    """(n_prompts, samples, 3) concept read-out of samples; the same noise at every call."""
    gen = torch.Generator(device=device).manual_seed(10_000 + cfg.seed)
    cond = torch.from_numpy(np.repeat(prompts, cfg.samples, axis=0)).to(device)
    model.eval()
    x = model.sample(cond, cfg.resolution, cfg.sampler_steps, gen)
    model.train()
    return clf.concepts(x).cpu().numpy().reshape(len(prompts), cfg.samples, 3)


# ----------------------------------------------------------------------------------------------
# Training with checkpoints
# ----------------------------------------------------------------------------------------------


def _rng_states(device: str) -> dict:
    states = {"torch": torch.get_rng_state()}
    if device == "cuda":
        states["cuda"] = torch.cuda.get_rng_state()
    return states


def train_run(cfg: RunConfig, cache: Path, device: str = "cpu", bar=None, max_new_steps: int | None = None
              ) -> dict | None:
    """Train one run (resuming from its checkpoint), return its evaluations and final model state.

    Result keys: eval_steps (K,), concepts (K, n_prompts, samples, 3), loss (K,), prompts,
    train_concepts (3 training classes, samples, 3) at the end, classifier_accuracy, seconds,
    gamma (K, 2) endpoints of the learned schedule, state (final model state dict).
    With `max_new_steps`, stop after that many steps in this call (checkpointed) and return None.
    """
    run_dir = cache / cfg.key()
    done, ckpt = run_dir / "result.pt", run_dir / "checkpoint.pt"
    if done.exists():
        return torch.load(done, map_location="cpu", weights_only=False)
    clf, clf_acc = concept_classifier(cfg, cache, device)
    data = make_dataset(cfg.dgp, cfg.n_per_class, seed=cfg.seed)
    x_all, c_all = data.x.to(device), data.cond.to(device)
    torch.manual_seed(cfg.seed)
    model = build_model(cfg).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    batches = torch.Generator().manual_seed(cfg.seed)
    rec = {"eval_steps": [], "concepts": [], "loss": [], "gamma": [], "seconds": 0.0}
    step, running = 0, []
    if ckpt.exists():
        saved = torch.load(ckpt, map_location="cpu", weights_only=False)
        model.load_state_dict(saved["model"])
        opt.load_state_dict(saved["opt"])
        batches.set_state(saved["batches"])
        torch.set_rng_state(saved["rng"]["torch"])
        if device == "cuda":
            torch.cuda.set_rng_state(saved["rng"]["cuda"])
        rec, step, running = saved["rec"], saved["step"], saved.get("running", [])
    prompts = cfg.prompts()
    start, new_steps = time.perf_counter(), 0

    def checkpoint() -> None:
        rec["seconds"] += time.perf_counter() - start
        state = {"model": model.state_dict(), "opt": opt.state_dict(), "batches": batches.get_state(),
                 "rng": _rng_states(device), "rec": rec, "step": step, "running": running}
        atomic_save(ckpt, lambda p: torch.save(state, p))

    while True:
        if step % cfg.eval_every == 0 or step == cfg.steps:
            if not rec["eval_steps"] or rec["eval_steps"][-1] != step:
                rec["eval_steps"].append(step)
                rec["concepts"].append(read_out(model, clf, prompts, cfg, device))
                rec["loss"].append(float(np.mean(running)) if running else float("nan"))
                rec["gamma"].append([model.gamma(torch.zeros(())).item(), model.gamma(torch.ones(())).item()])
                running = []
                checkpoint()
                start = time.perf_counter()
        if step == cfg.steps:
            break
        if max_new_steps is not None and new_steps == max_new_steps:
            checkpoint()
            return None
        idx = torch.randint(0, len(x_all), (cfg.batch_size,), generator=batches).to(device)
        loss = model.loss(x_all[idx], c_all[idx])
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
        opt.step()
        running.append(loss.item())
        step, new_steps = step + 1, new_steps + 1
        if bar is not None:
            bar.update(1)
    train_prompts = np.stack([cfg.dgp.prompt(*c) for c in TRAIN_CLASSES])
    result = {
        "config": asdict(cfg), "eval_steps": np.array(rec["eval_steps"]), "concepts": np.stack(rec["concepts"]),
        "loss": np.array(rec["loss"]), "gamma": np.array(rec["gamma"]), "prompts": prompts,
        "train_concepts": read_out(model, clf, train_prompts, cfg, device),
        "classifier_accuracy": clf_acc, "seconds": rec["seconds"] + time.perf_counter() - start,
        "state": {k: v.cpu() for k, v in model.state_dict().items()},
    }
    atomic_save(done, lambda p: torch.save(result, p))
    ckpt.unlink(missing_ok=True)
    return result
