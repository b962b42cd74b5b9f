"""Checks of the stage picture of Sec. 4.2.1 that must not hinge on a free choice of the analyst.

The growth and suppression windows come from `lib.theory.two_layer.stages`; here are what the
book adds to test them honestly: the floor a minor entry must pass to get a window, derived from
the init scale (`init_entry_scale`, eq. E.1) rather than fixed by hand; placebo windows that
cannot explain the swings (`placebo_alignment_all`), which the alignment test must fail on; and
a reading of App. F.4's "non-regular at different stages" that can pass at d = s = 2
(`cluster_off_course`).
"""

from __future__ import annotations

import numpy as np

from lib.theory import two_layer as tl

STAGE_PLACEBOS = ("swapped", "shifted")
PLACEBO_SHIFT = 3.0  # the shifted placebo moves every window this factor later in (log-spaced) time


def init_entry_scale(kind: str, scale: float, width: int) -> float:
    """E w_ii(0) = d' E u^2 of W = U U^T at init (App. E.2, eq. E.1): d' tau^2 for the Gaussian init,
    d' tau^2 / 3 for the uniform one on [0, tau). The size an entry of W has before any learning."""
    second_moment = {"gaussian": 1.0, "uniform": 1.0 / 3.0}
    if kind not in second_moment:
        raise ValueError(f"unknown init kind {kind!r}: use 'gaussian' or 'uniform'")
    return width * scale**2 * second_moment[kind]


def placebo_windows(
    growth: np.ndarray, start: np.ndarray, end: np.ndarray, placebo: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Control windows, from windows as `two_layer.stage_windows_all` gives them: "swapped" exchanges the kinds
    (descents then need a suppression window, rises a growth window), "shifted" moves every window
    PLACEBO_SHIFT times later. An alignment that survives a placebo says the windows cover everything, not
    that the stages explain the swings."""
    if placebo == "swapped":
        return ~growth, start, end
    if placebo == "shifted":
        return growth, PLACEBO_SHIFT * start, PLACEBO_SHIFT * end
    raise ValueError(f"unknown placebo {placebo!r}: use one of {STAGE_PLACEBOS}")


def placebo_alignment_all(
    w: np.ndarray,
    loss: np.ndarray,
    a: np.ndarray,
    s: int,
    times: np.ndarray,
    tol: float,
    minor_floor: float,
    placebo: str,
) -> np.ndarray:
    """`two_layer.stage_alignment_all` against a placebo's windows: (n,), nan where no swing counts."""
    growth, start, end, present = tl.stage_windows_all(w, a, s, times, minor_floor)
    return tl.alignment_with_windows(loss, times, tol, *placebo_windows(growth, start, end, placebo), present)


def cluster_off_course(w: np.ndarray, mu, times: np.ndarray, speed_floor: float, half: float = 0.5) -> dict:
    """A reading of App. F.4's "non-regular at different stages" that can pass at d = s = 2.

    The output at mu_p e_p (`two_layer.cluster_mean_outputs`) is non-regular where its motion turns
    away from its target: the angle between its velocity df/dtau and the direction mu_p e_p - f. Where
    the output hardly moves the angle is noise, so only times whose speed is at least `speed_floor`
    times the cluster's peak speed count (a free choice). `stage` (n, s) is the number of concepts
    learned (w_qq >= `half`) when each cluster's angle peaks, `different_stages` (n,) whether the s
    clusters peak at s different stages, `angle` (n, s) the peak angles in radians.
    """
    s = len(mu)
    out = tl.cluster_mean_outputs(w, mu)  # (T, n, s, d)
    target = np.asarray(mu, float)[:, None] * np.eye(s, w.shape[-1])  # (s, d)
    velocity = np.diff(out, axis=0) / np.diff(times)[:, None, None, None]
    heading = target - out[:-1]
    speed = np.linalg.norm(velocity, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        cosine = (velocity * heading).sum(-1) / (speed * np.linalg.norm(heading, axis=-1))
    angle = np.where(speed >= speed_floor * speed.max(0), np.arccos(np.clip(np.nan_to_num(cosine), -1, 1)), -1.0)
    peak = angle.argmax(0)  # (n, s): the velocity step that starts at time index peak
    stage = tl.learned_concepts(w, s, half)[peak, np.arange(peak.shape[0])[:, None]]
    distinct = np.array([len(set(row)) for row in stage])
    return {"stage": stage, "different_stages": distinct == s, "angle": angle.max(0)}
