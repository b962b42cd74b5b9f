"""Concept-space read-out by a classifier (App. G.3), trained and calibrated on images in transit.

The paper maps a generated image to (P(blue), P(small)) with a classifier trained on the four
classes. Generated images during training are rarely clean members of a class: their colour lies
between red and blue, their radius between big and small, the disc may be faded or noisy, and an
untrained model draws pure noise. So this classifier is trained on exactly those images, with
soft targets equal to the concept value (the fraction of the way from red to blue, from big to
small): on a disc whose colour is a fraction a of the way to blue it should read P(blue) = a.
A third output says whether a disc is there at all (faded discs: their opacity; blank and noise
images: 0); colour and size are learned from disc images only. `calibration` measures how well
the trained classifier meets these targets, and its bias on pure noise.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from lib.diffusion.data import CLASSES, Circles, render, sample_images

# ----------------------------------------------------------------------------------------------
# Network
# ----------------------------------------------------------------------------------------------


class ConceptClassifier(nn.Module):
    """Conv stack, global max pool, MLP head with three logits: blue, small, disc present."""

    def __init__(self, width: int = 32):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, width, 3, padding=1),
            nn.GELU(),
            nn.Conv2d(width, width, 3, padding=1),
            nn.GELU(),
            nn.Conv2d(width, width, 3, padding=1, stride=2),
            nn.GELU(),
            nn.Conv2d(width, width, 3, padding=1),
            nn.GELU(),
        )
        self.head = nn.Sequential(nn.Linear(width, width), nn.GELU(), nn.Linear(width, 3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(2 * x - 1).amax(dim=(2, 3)))

    @torch.no_grad()
    def concepts(self, x: torch.Tensor) -> torch.Tensor:
        """(n, 3): P(blue), P(small), P(disc) for images in [0, 1]."""
        return torch.sigmoid(self(x))


# ----------------------------------------------------------------------------------------------
# Images in transit: interpolated concepts, faded and noisy discs, blanks, pure noise
# ----------------------------------------------------------------------------------------------


def noise_images(n: int, resolution: int, rng: np.random.Generator) -> np.ndarray:
    """What an untrained model generates: Gaussian pixels around grey, std U(0.1, 1), clipped to [0, 1]."""
    std = rng.uniform(0.1, 1.0, (n, 1, 1, 1))
    return np.clip(0.5 + std * rng.standard_normal((n, 3, resolution, resolution)), 0, 1).astype(np.float32)


def transit_discs(
    dgp: Circles,
    colour: np.ndarray,
    small: np.ndarray,
    rng: np.random.Generator,
    opacity: np.ndarray | float = 1.0,
    noise_std: np.ndarray | float = 0.0,
) -> np.ndarray:
    """Discs whose colour is a fraction `colour` of the way from the red to the blue mean and whose
    radius is a fraction `small` of the way from the big to the small mean (jittered as the data),
    with `opacity` and extra Gaussian pixel noise of std `noise_std`; random centre and background."""
    n = len(colour)
    s_c, s_s = dgp.colour_signal, dgp.size_signal
    rgb = (1 - colour[:, None]) * dgp.colour_mean(0) + colour[:, None] * dgp.colour_mean(1)
    rgb = rgb + rng.uniform(-s_c / 8, s_c / 8, (n, 3))
    radius = (1 - small) * dgp.size_value(0) + small * dgp.size_value(1) + rng.uniform(-3 * s_s / 8, 3 * s_s / 8, n)
    cond = np.concatenate([np.maximum(radius, 0.1)[:, None], rgb], axis=1)
    centre, background = rng.uniform(-0.5, 0.5, (n, 2)), rng.uniform(0.8, 1.0, (n, 3))
    x = render(cond, centre, background, dgp.resolution, dgp.pixel_noise, rng, opacity, dgp.blur)
    noise = np.broadcast_to(np.asarray(noise_std, dtype=np.float64), (n,))[:, None, None, None]
    return np.clip(x + noise * rng.standard_normal(x.shape), 0, 1).astype(np.float32)


def transit_batch(dgp: Circles, n: int, rng: np.random.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """n training images of the read-out with targets (colour, small, disc) in [0, 1].

    A fifth pure noise, a tenth blank backgrounds, the rest discs: concept values at the class
    values (half of them) or uniform in between, a third faded (opacity U(0.3, 1), target =
    opacity), half with extra pixel noise of std U(0, 0.15).
    """
    n_noise, n_blank = n // 5, n // 10
    n_disc = n - n_noise - n_blank
    at_class = rng.random((n_disc, 2)) < 0.5
    values = np.where(at_class, rng.integers(0, 2, (n_disc, 2)), rng.random((n_disc, 2)))
    opacity = np.where(rng.random(n_disc) < 1 / 3, rng.uniform(0.3, 1.0, n_disc), 1.0)
    noise_std = np.where(rng.random(n_disc) < 0.5, rng.uniform(0, 0.15, n_disc), 0.0)
    discs = transit_discs(dgp, values[:, 0], values[:, 1], rng, opacity, noise_std)
    blanks, _ = sample_images(dgp, np.zeros((n_blank, 2), dtype=int), rng, disc=0.0)
    x = np.concatenate([discs, blanks, noise_images(n_noise, dgp.resolution, rng)])
    y = np.zeros((n, 3), dtype=np.float32)
    y[:n_disc, :2], y[:n_disc, 2] = values, opacity
    return torch.from_numpy(x), torch.from_numpy(y)


def classifier_loss(model: ConceptClassifier, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Binary cross-entropy with soft targets: disc head on every image, colour and size heads
    weighted by the disc target (nothing to read on a blank or noise image)."""
    bce = F.binary_cross_entropy_with_logits(model(x), y, reduction="none")
    disc = y[:, 2]
    return bce[:, 2].mean() + (bce[:, :2].sum(1) * disc).sum() / disc.sum().clamp(min=1)


def train_classifier(
    dgp: Circles, steps: int, seed: np.random.SeedSequence | int, batch: int = 128, lr: float = 2e-3
) -> ConceptClassifier:
    """Train on fresh transit images every step (the DGP is known, so data is unlimited, App. G.3).

    Initialised from its own seed inside `torch.random.fork_rng`: the global torch RNG is left as it was.
    """
    ss = np.random.SeedSequence(seed) if isinstance(seed, int) else seed
    init_seed, data_seed = ss.spawn(2)
    rng = np.random.default_rng(data_seed)
    with torch.random.fork_rng():
        torch.manual_seed(int(init_seed.generate_state(1)[0]))
        model = ConceptClassifier()
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)
    for _ in range(steps):
        x, y = transit_batch(dgp, batch, rng)
        loss = classifier_loss(model, x, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    return model.eval()


# ----------------------------------------------------------------------------------------------
# Calibration: the read-out against known concept values
# ----------------------------------------------------------------------------------------------


def calibration(
    model: ConceptClassifier, dgp: Circles, seed: int = 999, n: int = 64, levels: int = 11
) -> dict[str, np.ndarray]:
    """Mean read-outs on images of known concept values (fresh images, fixed seed).

    colour_curve (levels,): mean P(blue) on full discs a fraction `grid` of the way to blue (size at
    a class value); size_curve (levels,): mean P(small) against the fraction of the way to small;
    class_readout (4, 3): mean (P(blue), P(small), P(disc)) on real images of the four classes;
    class_accuracy (4,): fraction of real images with all three outputs on the right side of 1/2;
    noise_readout (n, 3) and blank_readout (n, 3): per image, on pure noise and blank backgrounds.
    """
    rng = np.random.default_rng(seed)
    grid = np.linspace(0, 1, levels)
    read = lambda x: model.concepts(torch.from_numpy(x)).numpy()
    colour_curve = np.array(
        [read(transit_discs(dgp, np.full(n, a), rng.integers(0, 2, n).astype(float), rng))[:, 0].mean() for a in grid]
    )
    size_curve = np.array(
        [read(transit_discs(dgp, rng.integers(0, 2, n).astype(float), np.full(n, b), rng))[:, 1].mean() for b in grid]
    )
    class_readout, class_accuracy = [], []
    for c in CLASSES:
        x, _ = sample_images(dgp, np.tile(c, (n, 1)), rng)
        p = read(x)
        class_readout.append(p.mean(0))
        class_accuracy.append(np.mean((p[:, 2] > 0.5) & np.all((p[:, :2] > 0.5) == np.array(c, dtype=bool), axis=1)))
    blanks, _ = sample_images(dgp, np.zeros((n, 2), dtype=int), rng, disc=0.0)
    return {
        "grid": grid.astype(np.float32),
        "colour_curve": colour_curve.astype(np.float32),
        "size_curve": size_curve.astype(np.float32),
        "class_readout": np.array(class_readout, dtype=np.float32),
        "class_accuracy": np.array(class_accuracy, dtype=np.float32),
        "noise_readout": read(noise_images(n, dgp.resolution, rng)),
        "blank_readout": read(blanks),
    }
