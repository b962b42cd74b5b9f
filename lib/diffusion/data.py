"""The circles data-generating process of Park et al. (2024), used in App. G of the Swing-by paper.

An image is a disc of a given colour and radius at a random position on a random light
background, blurred, with pixel noise (Park et al. 2024): colour and size are the two concepts,
each with two values, and (blue, small) is held out of training.
Units: every length (radius, blur, centre) is in units of the half-side of the image (the pixel
grid is linspace(-1, 1) in both axes), so the picture is the same at every resolution and only
its sampling changes. Park et al.'s one-pixel blur at 32 x 32 is 2/31 of these units.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# ----------------------------------------------------------------------------------------------
# Concepts: class means and the conditioning vector
# ----------------------------------------------------------------------------------------------

# class = (colour, size) bits: colour 0 red / 1 blue, size 0 big / 1 small (Swing-by App. G.1)
CLASSES = ((0, 0), (0, 1), (1, 0), (1, 1))
UNSEEN = (1, 1)  # (blue, small)
TRAIN_CLASSES = tuple(c for c in CLASSES if c != UNSEEN)


@dataclass(frozen=True)
class Circles:
    """Parameters of the data-generating process (App. G.1; Park et al. 2024, Sec. 4).

    colour_signal s_c: red mean (0.5 + s_c/2, 0.5 - s_c/2, 0.5 - s_c/2), blue mean
    (0.5 - s_c/2, 0.5 - s_c/2, 0.5 + s_c/2), each channel jittered within +-s_c/8.
    size: radius mean size_mean +- size_signal/2 (big / small), jittered within
    +-3 size_signal/8, floored at 0.1.
    """

    colour_signal: float
    size_mean: float = 0.45
    size_signal: float = 0.4
    resolution: int = 16
    pixel_noise: float = 1e-3  # variance of the pixel noise N(0, 0.001) (Park et al.'s code)
    blur: float = 2 / 31  # std of the Gaussian blur, half-side units (one pixel at 32 x 32)

    def colour_mean(self, colour: int) -> np.ndarray:
        s = self.colour_signal
        red, blue = np.array([0.5 + s / 2, 0.5 - s / 2, 0.5 - s / 2]), np.array([0.5 - s / 2, 0.5 - s / 2, 0.5 + s / 2])
        return blue if colour else red

    def size_value(self, size: int) -> float:
        return self.size_mean + (-1 if size else 1) * self.size_signal / 2

    def prompt(self, colour: int, size: int, size_offset: float = 0.0) -> np.ndarray:
        """Conditioning vector (size, r, g, b) at the exact class means (App. G.2), size nudged by an offset."""
        return np.concatenate([[self.size_value(size) + size_offset], self.colour_mean(colour)]).astype(np.float32)


# ----------------------------------------------------------------------------------------------
# Rendering and sampling
# ----------------------------------------------------------------------------------------------


def render(
    cond: np.ndarray,
    centre: np.ndarray,
    background: np.ndarray,
    resolution: int,
    noise_var: float,
    rng: np.random.Generator,
    disc: bool | np.ndarray = True,
    blur: float = 2 / 31,
) -> np.ndarray:
    """Images (n, 3, R, R) in [0, 1] for conditioning rows (size, r, g, b): a blurred disc.

    The blur of a sharp disc edge by a Gaussian of std `blur` (half-side units) is applied
    analytically through a logistic edge of the same std (scale blur * sqrt(3) / pi).
    `disc` is the disc's opacity (per image or one value): 0 renders the background alone (a
    blank image), values in between a faded disc.
    """
    grid = np.linspace(-1, 1, resolution)
    yy, xx = np.meshgrid(grid, grid, indexing="ij")
    dist = np.hypot(xx[None] - centre[:, 0, None, None], yy[None] - centre[:, 1, None, None])
    scale = blur * np.sqrt(3) / np.pi
    with np.errstate(over="ignore"):
        inside = 1 / (1 + np.exp((dist - cond[:, 0, None, None]) / scale))
    inside = inside * np.broadcast_to(np.asarray(disc, dtype=np.float64), (len(cond),))[:, None, None]
    img = inside[:, None] * cond[:, 1:, None, None] + (1 - inside[:, None]) * background[:, :, None, None]
    img = img + rng.normal(0, np.sqrt(noise_var), img.shape)
    return np.clip(img, 0, 1).astype(np.float32)


def sample_conditions(dgp: Circles, classes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Sampled (jittered) conditioning vectors (n, 4) for class rows (colour, size)."""
    s_c, s_s = dgp.colour_signal, dgp.size_signal
    colour = np.stack([dgp.colour_mean(c) for c in classes[:, 0]]) + rng.uniform(-s_c / 8, s_c / 8, (len(classes), 3))
    size = np.array([dgp.size_value(s) for s in classes[:, 1]]) + rng.uniform(-3 * s_s / 8, 3 * s_s / 8, len(classes))
    return np.concatenate([np.maximum(size, 0.1)[:, None], colour], axis=1).astype(np.float32)


def sample_images(
    dgp: Circles, classes: np.ndarray, rng: np.random.Generator, disc: bool | np.ndarray = True
) -> tuple[np.ndarray, np.ndarray]:
    """(images, conditions) for class rows: random centre in U(-0.5, 0.5)^2, background in U(0.8, 1)^3."""
    cond = sample_conditions(dgp, classes, rng)
    centre = rng.uniform(-0.5, 0.5, (len(classes), 2))
    background = rng.uniform(0.8, 1.0, (len(classes), 3))
    return render(cond, centre, background, dgp.resolution, dgp.pixel_noise, rng, disc, dgp.blur), cond


def concept_signals(dgp: Circles, n: int = 512, seed: int = 0) -> dict[str, float]:
    """Concept signal: RMS-per-image distance between class-mean images when one concept flips.

    Park et al. (2024), "Emergence of hidden capabilities", define the concept signal as the sensitivity of
    the data to a change of the concept's value (no equation number; the Swing-by paper uses it in Sec. 5 and
    App. G.1, Fig. 19: the class-mean pixel values of the colours and sizes set it); here it is
    ||E[x | red, big] - E[x | other value]|| / sqrt(pixels),
    with the expectations estimated from n images per class (common random numbers).
    """
    means = {}
    for c in ((0, 0), (1, 0), (0, 1)):
        rng = np.random.default_rng(seed)
        x, _ = sample_images(dgp, np.tile(c, (n, 1)), rng)
        means[c] = x.mean(0)
    rms = lambda a, b: float(np.sqrt(np.mean((a - b) ** 2)))
    return {"colour": rms(means[(0, 0)], means[(1, 0)]), "size": rms(means[(0, 0)], means[(0, 1)])}
