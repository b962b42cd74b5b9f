"""Training one (colour contrast, seed) run: its own random streams, EMA weights, resumable checkpoints.

Every run draws four independent random streams from numpy's SeedSequence((contrast index, seed)):
the training set, the initialisation, the training noise (batches, diffusion times and noise,
dropout) and the sampling noise. Runs of different contrasts or seeds share nothing, so
checkpoint-to-checkpoint changes of different runs are independent. The sampling noise is the
same at every checkpoint of a run (common random numbers), so samples are paired across checkpoints.

An exponential moving average of the weights (torch.optim.swa_utils.AveragedModel, decay
`ema_decay` with the usual warm-up min(decay, (1 + n) / (10 + n))) is what is sampled, as in
Kingma et al.'s VDM. The gradient-norm clip applies to the U-Net only: the reconstruction term's
gradient on the schedule's lower end is thousands of times larger (exp(gamma_0) / data_noise^2)
and would otherwise set the U-Net's step size.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch.optim.swa_utils import AveragedModel

from lib.diffusion.data import CLASSES, TRAIN_CLASSES, UNSEEN, Circles, sample_images
from lib.diffusion.unet import UNet
from lib.diffusion.vdm import VDM
from lib.util.io import atomic_save

# ----------------------------------------------------------------------------------------------
# The training set: images of the three seen classes, fixed for the run
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Dataset:
    """A fixed training set: images in [0, 1], conditioning vectors, class labels (colour, size)."""

    x: torch.Tensor
    cond: torch.Tensor
    labels: torch.Tensor


def make_dataset(dgp: Circles, n_per_class: int, classes=TRAIN_CLASSES, seed: int = 0) -> Dataset:
    """n_per_class images of each class in `classes` (default: the three training classes)."""
    rng = np.random.default_rng(seed)
    labels = np.repeat(np.array(classes), n_per_class, axis=0)
    x, cond = sample_images(dgp, labels, rng)
    return Dataset(torch.from_numpy(x), torch.from_numpy(cond), torch.from_numpy(labels))


# ----------------------------------------------------------------------------------------------
# Configuration
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunConfig:
    """Everything that determines a run's numbers except its seed (App. G.1-G.3; sizes by parameters).

    Lengths (size_mean, size_signal, blur) in half-side units of the image (lib.diffusion.data).
    """

    colour_signal: float
    resolution: int = 24
    size_mean: float = 0.45
    size_signal: float = 0.4
    blur: float = 2 / 31
    n_per_class: int = 2048
    channels: tuple[int, ...] = (16, 32, 64)
    blocks: int = 1
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
    ema_decay: float = 0.995
    steps: int = 2000
    eval_every: int = 125
    samples: int = 32
    sampler_steps: int = 50
    nudges: tuple[float, ...] = ()
    classifier_steps: int = 600
    channels_last: bool = False
    compile: bool = False

    @property
    def dgp(self) -> Circles:
        return Circles(self.colour_signal, self.size_mean, self.size_signal, self.resolution, blur=self.blur)

    def prompts(self) -> np.ndarray:
        """Rows: the four classes' exact means in CLASSES order (the last, (blue, small), unseen),
        then the unseen prompt with its small radius nudged by each of `nudges`."""
        rows = [self.dgp.prompt(*c) for c in CLASSES] + [self.dgp.prompt(*UNSEEN, size_offset=o) for o in self.nudges]
        return np.stack(rows)

    def eval_steps(self) -> np.ndarray:
        """Checkpoints at which the prompts are sampled: 0, eval_every, ..., and the last step."""
        return np.unique(np.append(np.arange(0, self.steps + 1, self.eval_every), self.steps))


def run_seeds(contrast_index: int, seed: int) -> dict[str, np.random.SeedSequence]:
    """The run's four independent streams, spawned from SeedSequence((contrast_index, seed))."""
    data, init, noise, sample = np.random.SeedSequence((contrast_index, seed)).spawn(4)
    return {"data": data, "init": init, "train": noise, "sample": sample}


def torch_seed(ss: np.random.SeedSequence) -> int:
    """A 63-bit torch seed from a SeedSequence."""
    return int(ss.generate_state(2, np.uint64)[0] >> np.uint64(1))


def build_model(cfg: RunConfig) -> VDM:
    net = UNet(list(cfg.channels), cfg.blocks, cfg.heads, cfg.dropout)
    model = VDM(net, cfg.gamma_min, cfg.gamma_max, cfg.data_noise)
    model.gamma.requires_grad_(cfg.learn_schedule)
    return model


def ema_update(decay: float):
    """AveragedModel's multi_avg_fn: ema <- lerp(ema, current, 1 - min(decay, (1 + n) / (10 + n)))."""

    def update(ema_params, params, num_averaged):
        n = float(num_averaged)
        torch._foreach_lerp_(ema_params, params, 1 - min(decay, (1 + n) / (10 + n)))

    return update


# ----------------------------------------------------------------------------------------------
# A run: model, EMA, optimiser, data and random streams, with a state that resumes exactly
# ----------------------------------------------------------------------------------------------


class Run:
    """One (contrast, seed) run. `step()` trains one step; `sample(prompts)` draws from the EMA model."""

    def __init__(self, cfg: RunConfig, seeds: dict[str, np.random.SeedSequence], device: str = "cpu"):
        self.cfg, self.device = cfg, device
        data = make_dataset(cfg.dgp, cfg.n_per_class, seed=seeds["data"])
        self.x, self.cond = data.x.to(device), data.cond.to(device)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(torch_seed(seeds["init"]))
            self.model = build_model(cfg).to(device)
        if cfg.channels_last:
            self.model = self.model.to(memory_format=torch.channels_last)
            self.x = self.x.contiguous(memory_format=torch.channels_last)
        self.ema = AveragedModel(self.model, multi_avg_fn=ema_update(cfg.ema_decay))
        self.ema.update_parameters(self.model)
        params = [p for p in self.model.parameters() if p.requires_grad]
        self.opt = torch.optim.AdamW(params, lr=cfg.lr, weight_decay=cfg.weight_decay)
        self.loss_terms = torch.compile(self.model.loss_terms) if cfg.compile else self.model.loss_terms
        self.noise = torch.Generator(device).manual_seed(torch_seed(seeds["train"]))
        self.batches = torch.Generator().manual_seed(torch_seed(seeds["train"]) ^ 1)
        self.sample_seed = torch_seed(seeds["sample"])
        self.step_count = 0
        torch.manual_seed(torch_seed(seeds["train"]))  # dropout draws from the global stream

    def step(self) -> dict[str, float]:
        """One AdamW step on a mini-batch of the fixed training set; returns the loss terms (bpd)."""
        self.model.train()
        idx = torch.randint(0, len(self.x), (self.cfg.batch_size,), generator=self.batches).to(self.device)
        u0 = torch.rand((), generator=self.noise, device=self.device).item()
        terms = self.loss_terms(self.x[idx], self.cond[idx], u0)
        self.opt.zero_grad(set_to_none=True)
        sum(terms.values()).backward()
        torch.nn.utils.clip_grad_norm_(self.model.net.parameters(), self.cfg.grad_clip)
        self.opt.step()
        self.ema.update_parameters(self.model)
        self.step_count += 1
        return {k: float(v.detach()) for k, v in terms.items()}

    @torch.no_grad()
    def sample(self, prompts: np.ndarray, samples: int) -> torch.Tensor:
        """`samples` images per prompt row from the EMA model, in prompt-major order, always with the
        same sampling noise (common random numbers across checkpoints)."""
        gen = torch.Generator(self.device).manual_seed(self.sample_seed)
        cond = torch.from_numpy(np.repeat(prompts, samples, axis=0)).to(self.device)
        ema = self.ema.module.eval()
        return ema.sample(cond, self.cfg.resolution, self.cfg.sampler_steps, gen)

    @torch.no_grad()
    def gamma_endpoints(self) -> tuple[float, float]:
        """gamma_0 and gamma_1 of the EMA model's schedule."""
        g = self.ema.module.gamma
        return float(g(torch.zeros(()))), float(g(torch.ones(())))

    def state_dict(self) -> dict:
        return {
            "model": self.model.state_dict(),
            "ema": self.ema.state_dict(),
            "opt": self.opt.state_dict(),
            "noise": self.noise.get_state(),
            "batches": self.batches.get_state(),
            "global": torch.get_rng_state(),
            "step": self.step_count,
        }

    def load_state_dict(self, state: dict) -> None:
        self.model.load_state_dict(state["model"])
        self.ema.load_state_dict(state["ema"])
        self.opt.load_state_dict(state["opt"])
        self.noise.set_state(state["noise"])
        self.batches.set_state(state["batches"])
        torch.set_rng_state(state["global"])
        self.step_count = int(state["step"])


# ----------------------------------------------------------------------------------------------
# Training loop with evaluations and checkpoints
# ----------------------------------------------------------------------------------------------


def train(
    run: Run,
    evaluate: Callable[[Run], dict[str, np.ndarray]],
    checkpoint: Path | None = None,
    stop_after: int | None = None,
) -> dict[str, np.ndarray] | None:
    """Train `run` to cfg.steps, calling `evaluate(run)` at every checkpoint of cfg.eval_steps().

    Returns the evaluations stacked along a first axis (one row per checkpoint) plus `loss_<term>`
    (mean of each loss term over the steps since the previous checkpoint; NaN at step 0), `gamma`
    (the EMA schedule's endpoints) and `eval_steps`. After every evaluation the whole state is
    saved atomically to `checkpoint/state.pt` (if given); a call finds it and resumes, with the
    same numbers as an uninterrupted run. `stop_after`: return None after that many new steps (tests).
    """
    cfg, path = run.cfg, (checkpoint / "state.pt" if checkpoint is not None else None)
    records: dict[str, list] = {}
    running: dict[str, list[float]] = {}
    if path is not None and path.exists():
        saved = torch.load(path, map_location=run.device, weights_only=True)
        run.load_state_dict(saved["run"])
        records = {k: list(v.numpy()) for k, v in saved["records"].items()}
        running = {k: list(v.numpy()) for k, v in saved["running"].items()}
    targets, new_steps, start = set(cfg.eval_steps().tolist()), 0, time.perf_counter()
    while True:
        if run.step_count in targets and len(records.get("eval_steps", [])) == sorted(targets).index(run.step_count):
            row = evaluate(run) | {"eval_steps": np.array(run.step_count), "gamma": np.array(run.gamma_endpoints())}
            for term in ("diffusion", "prior", "recon"):
                row[f"loss_{term}"] = np.array(np.mean(running[term]) if running.get(term) else np.nan)
            for k, v in row.items():
                records.setdefault(k, []).append(np.asarray(v))
            running = {}
            if path is not None:
                state = {
                    "run": run.state_dict(),
                    "records": {k: torch.from_numpy(np.stack(v)) for k, v in records.items()},
                    "running": {},
                }
                atomic_save(path, lambda p, state=state: torch.save(state, p))
        if run.step_count >= cfg.steps:
            break
        if stop_after is not None and new_steps == stop_after:
            return None
        for k, v in run.step().items():
            running.setdefault(k, []).append(v)
        new_steps += 1
    out = {k: np.stack(v) for k, v in records.items()}
    out["seconds_this_call"] = np.array(time.perf_counter() - start)
    return out
