"""Concept-space read-out (App. G.3): a classifier maps an image to (P(blue), P(small)) and P(disc).

The paper trains a U-Net-backbone classifier on the four classes. A classifier trained only on
discs has no answer for a blank generated image (a feasibility trial found one calling blanks
"small"), so this one has a third head, disc present or not, trained on background-only images
as well; colour and size are learned from disc images only.
"""
from __future__ import annotations

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

from lib.diffusion.data import CLASSES, Circles, sample_images

# ----------------------------------------------------------------------------------------------
# Network
# ----------------------------------------------------------------------------------------------


class ConceptClassifier(nn.Module):
    """Conv stack, global max pool, MLP head with three logits: blue, small, disc present."""

    def __init__(self, width: int = 32):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, width, 3, padding=1), nn.GELU(),
            nn.Conv2d(width, width, 3, padding=1), nn.GELU(),
            nn.Conv2d(width, width, 3, padding=1, stride=2), nn.GELU(),
            nn.Conv2d(width, width, 3, padding=1), nn.GELU(),
        )
        self.head = nn.Sequential(nn.Linear(width, width), nn.GELU(), nn.Linear(width, 3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(2 * x - 1).amax(dim=(2, 3)))

    @torch.no_grad()
    def concepts(self, x: torch.Tensor) -> torch.Tensor:
        """(n, 3): P(blue), P(small), P(disc) for images in [0, 1]."""
        return torch.sigmoid(self(x))


# ----------------------------------------------------------------------------------------------
# Training data and training
# ----------------------------------------------------------------------------------------------


def labelled_batch(dgp: Circles, n: int, rng: np.random.Generator, blank_fraction: float = 0.2
                   ) -> tuple[torch.Tensor, torch.Tensor]:
    """n images of all four classes (a fraction of them blank) with targets (blue, small, disc)."""
    n_blank = int(round(blank_fraction * n))
    labels = np.array(CLASSES)[rng.integers(0, 4, n)]
    x, _ = sample_images(dgp, labels, rng)
    if n_blank:
        x[:n_blank], _ = sample_images(dgp, labels[:n_blank], rng, disc=False)
    disc = np.ones(n, dtype=np.float32)
    disc[:n_blank] = 0
    y = np.concatenate([labels.astype(np.float32), disc[:, None]], axis=1)
    return torch.from_numpy(x), torch.from_numpy(y)


def classifier_loss(model: ConceptClassifier, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Binary cross-entropy: disc head on every image, colour and size heads on disc images only."""
    bce = F.binary_cross_entropy_with_logits(model(x), y, reduction="none")
    disc = y[:, 2]
    return bce[:, 2].mean() + (bce[:, :2].sum(1) * disc).sum() / disc.sum().clamp(min=1)


def train_classifier(dgp: Circles, steps: int, batch: int = 128, lr: float = 2e-3, seed: int = 0,
                     device: str = "cpu") -> ConceptClassifier:
    """Train on fresh images every step (the DGP is known, so data is unlimited, App. G.3)."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed + 12345)
    model = ConceptClassifier().to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    for _ in range(steps):
        x, y = labelled_batch(dgp, batch, rng)
        loss = classifier_loss(model, x.to(device), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
    return model.eval()


def accuracy(model: ConceptClassifier, dgp: Circles, n: int = 2048, seed: int = 999) -> float:
    """Held-out accuracy: every one of the three heads right, on fresh images (a fifth of them blank)."""
    x, y = labelled_batch(dgp, n, np.random.default_rng(seed))
    p = model.concepts(x.to(next(model.parameters()).device)).cpu()
    pred = (p > 0.5).float()
    right = (pred[:, 2] == y[:, 2]) & ((y[:, 2] == 0) | (pred[:, :2] == y[:, :2]).all(1))
    return right.float().mean().item()
