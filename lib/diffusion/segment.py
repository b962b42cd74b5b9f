"""Calibration-free read-out: the physical concept values of a generated image by segmentation.

The background of every training image is light (each channel in [0.8, 1]) and every disc is
dark (each channel at most 0.5 + s_c/2 + s_c/8, mean over channels at most 0.5 + s_c/8), so a
pixel whose channel mean lies below the midpoint `threshold` belongs to the disc. From the
segmented pixels:

- radius: sqrt(area / pi), area = segmented pixels x pixel area, in half-side units (the units
  of the data's radii); discs cut by the image border read smaller (only big ones can be cut);
- colour: mean (blue - red) channel difference over the disc's interior (the segment eroded by
  one pixel, so that blurred edge pixels mixed with the background do not dilute it);
- present: a radius the data can have (between its floor 0.1 and MAX_RADIUS, above the largest
  0.45 + 0.2 + 0.15 = 0.8) and compact (the segmented pixels lie in the equivalent circle around
  their centroid, one pixel of slack): noise images, segmented all over, fail this.

Concept coordinates map these to the paper's concept space with the data's own class values (no
trained model): colour (b - r) / (2 s_c) + 1/2 (red 0, blue 1), size (r_big - r) / (r_big - r_small)
(big 0, small 1).
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from lib.diffusion.data import Circles

THRESHOLD = 0.7  # channel mean: discs below ~0.6, backgrounds above 0.8
MIN_RADIUS = 0.1  # the data's floor on the radius
MAX_RADIUS = 0.95  # above the data's largest radius (0.8 at the default sizes)
MIN_COMPACTNESS = 0.8


def segment(x: np.ndarray, threshold: float = THRESHOLD) -> dict[str, np.ndarray]:
    """Per image of x (n, 3, R, R) in [0, 1]: present (bool), radius, colour (b - r), centre (n, 2).

    radius and centre in half-side units; colour NaN where nothing is segmented.
    """
    res = x.shape[-1]
    pixel = 2 / (res - 1)
    mask = x.mean(1) < threshold
    count = mask.sum((1, 2))
    radius = np.sqrt(count * pixel**2 / np.pi)
    grid = np.linspace(-1, 1, res)
    with np.errstate(invalid="ignore", divide="ignore"):
        cy = (mask * grid[None, :, None]).sum((1, 2)) / count
        cx = (mask * grid[None, None, :]).sum((1, 2)) / count
        dist = np.hypot(grid[None, None, :] - cx[:, None, None], grid[None, :, None] - cy[:, None, None])
        compact = (mask & (dist <= radius[:, None, None] + pixel)).sum((1, 2)) / count
        interior = ndimage.binary_erosion(mask, structure=np.ones((1, 3, 3), dtype=bool))
        core = np.where(interior.sum((1, 2), keepdims=True) > 0, interior, mask)
        diff = x[:, 2] - x[:, 0]
        colour = (diff * core).sum((1, 2)) / core.sum((1, 2))
    present = (radius >= MIN_RADIUS) & (radius <= MAX_RADIUS) & (np.nan_to_num(compact) >= MIN_COMPACTNESS)
    return {
        "present": present,
        "radius": radius.astype(np.float32),
        "colour": colour.astype(np.float32),
        "centre": np.stack([cx, cy], 1).astype(np.float32),
    }


def concept_coordinates(colour: np.ndarray, radius: np.ndarray, dgp: Circles) -> np.ndarray:
    """(..., 2) concept coordinates (colour: red 0 -> blue 1, size: big 0 -> small 1) of physical values."""
    c = colour / (2 * dgp.colour_signal) + 0.5
    s = (dgp.size_value(0) - radius) / (dgp.size_value(0) - dgp.size_value(1))
    return np.stack([c, s], -1).astype(np.float32)
