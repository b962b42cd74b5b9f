"""The experiment of Fig. 6 (Swing-by paper, Section 5): a sweep over colour signals and seeds,
and what is read off it: concept-space trajectories, MSE, success rates and the speed fit.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from lib.diffusion.data import TRAIN_CLASSES, Circles, concept_signals
from lib.diffusion.train import RunConfig, train_run
from lib.progress import progress

# ----------------------------------------------------------------------------------------------
# The sweep
# ----------------------------------------------------------------------------------------------


def train_sweep(base: RunConfig, colour_signals: list[float], seeds: list[int], cache: Path,
                device: str = "cpu") -> dict[float, list[dict]]:
    """Every (seed, colour signal) run, seed-major so that a cut-off sweep has whole seeds."""
    runs: dict[float, list[dict]] = {c: [] for c in colour_signals}
    with progress(total=len(seeds) * len(colour_signals) * base.steps, desc="diffusion") as bar:
        for seed in seeds:
            for c in colour_signals:
                runs[c].append(train_run(replace(base, colour_signal=c, seed=seed), cache, device, bar))
    return runs


# ----------------------------------------------------------------------------------------------
# Concept-space read-outs (App. G.3)
# ----------------------------------------------------------------------------------------------

TARGET = np.array([1.0, 1.0])  # (P(blue), P(small)) of the unseen class


def has_disc(concepts: np.ndarray) -> np.ndarray:
    """Samples the classifier sees a disc in (P(disc) > 1/2); the rest are blank images."""
    return concepts[..., 2] > 0.5


def blank_fraction(concepts: np.ndarray) -> np.ndarray:
    """Fraction of blank samples over the last axis of samples: (..., samples, 3) -> (...)."""
    return 1 - has_disc(concepts).mean(-1)


def success_rate(concepts: np.ndarray, target: tuple[int, int] = (1, 1)) -> np.ndarray:
    """Fraction of samples read as a disc of the target class: (..., samples, 3) -> (...)."""
    hit = has_disc(concepts) & ((concepts[..., 0] > 0.5) == target[0]) & ((concepts[..., 1] > 0.5) == target[1])
    return hit.mean(-1)


MIN_DISCS = 10  # fewer disc samples than this at a checkpoint: no concept-space point there


def trajectory(concepts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean concept coordinates (K, 2) over disc samples, and their standard errors (K, 2).

    `concepts` is (K, samples, 3) with seeds already pooled into samples; a checkpoint with fewer
    than MIN_DISCS disc samples (almost all blank) gives NaN.
    """
    disc = has_disc(concepts)[..., None]
    n = np.where(disc.sum(1) >= MIN_DISCS, disc.sum(1), np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (concepts[..., :2] * disc).sum(1) / n
        var = (((concepts[..., :2] - mean[:, None]) ** 2) * disc).sum(1) / np.maximum(n - 1, 1)
        return mean, np.sqrt(var / n)


def mse_curve(concepts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Concept-space MSE (K,) to the unseen class and its standard error, over disc samples.

    Per sample, the mean over the two concepts of (coordinate - target)^2 (Park et al.;
    REFERENCE_NOTES), averaged over samples and seeds; NaN as in `trajectory`.
    """
    disc = has_disc(concepts)
    err = ((concepts[..., :2] - TARGET) ** 2).mean(-1)
    n = np.where(disc.sum(1) >= MIN_DISCS, disc.sum(1), np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (err * disc).sum(1) / n
        var = (((err - mean[:, None]) ** 2) * disc).sum(1) / np.maximum(n - 1, 1)
        return mean, np.sqrt(var / n)


def pooled(concepts: np.ndarray) -> np.ndarray:
    """Pool seeds into samples: (seeds, K, samples, 3) -> (K, seeds * samples, 3)."""
    return np.concatenate(list(concepts), axis=1)


# ----------------------------------------------------------------------------------------------
# What the claims are checked with
# ----------------------------------------------------------------------------------------------


def rise_between_descents(curve: np.ndarray, se: np.ndarray, z: float = 2.0) -> bool:
    """A descent, then a rise, then a descent, each larger than z combined standard errors.

    True when there are checkpoints i < j < k < l with curve[i] - curve[j], curve[k] - curve[j]
    and curve[k] - curve[l] all above z sqrt(se_a^2 + se_b^2) of the two points compared.
    """
    ok = np.isfinite(curve)
    c, s = curve[ok], se[ok]
    beyond = lambda a, b: c[a] - c[b] > z * np.hypot(s[a], s[b])
    n = len(c)
    for j in range(1, n - 2):
        if not any(beyond(i, j) for i in range(j)):
            continue
        for k in range(j + 1, n - 1):
            if beyond(k, j) and any(beyond(k, l) for l in range(k + 1, n)):
                return True
    return False


def first_learned(traj: np.ndarray, level: float = 0.75) -> str:
    """Which concept's coordinate of the unseen prompt first reaches `level`: "colour", "size" or "neither".

    Not 1/2: an untrained model's noise images can already read near 1/2 on a concept. A tie
    (both at the same checkpoint) is resolved by the larger coordinate there.
    """
    for colour, size in traj:
        if colour >= level or size >= level:
            return "colour" if colour > size else "size"
    return "neither"


def bend_distance(traj: np.ndarray, stronger: str) -> float:
    """Largest excursion of the trajectory off the diagonal toward the stronger concept's corner.

    The straight path from (0, 0) to the target (1, 1) is the diagonal; the signed distance of a
    point toward (red, small) = (0, 1) is (size - colour)/sqrt(2), toward (blue, big) its negative.
    """
    sign = 1.0 if stronger == "size" else -1.0
    d = sign * (traj[:, 1] - traj[:, 0]) / np.sqrt(2)
    return float(np.nanmax(d)) if np.isfinite(d).any() else float("nan")


def speed(traj: np.ndarray, steps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """|dC/dt| by finite differences (App. G.3): midpoints (K-1,) and distance per step (K-1,)."""
    dist = np.linalg.norm(np.diff(traj, axis=0), axis=1)
    return (steps[1:] + steps[:-1]) / 2, dist / np.diff(steps)


def exponential_fit(t: np.ndarray, v: np.ndarray) -> dict[str, float]:
    """Least-squares fit of log v = log A - rate t from the fastest point on (Theorem 4.1's decay).

    Returns rate (per step), amplitude A and r2 of the log-linear fit (scipy.stats.linregress).
    """
    from scipy.stats import linregress

    ok = np.isfinite(v) & (v > 0)
    t, v = t[ok], v[ok]
    start = int(np.argmax(v)) if len(v) else 0
    t, v = t[start:], v[start:]
    if len(t) < 3:
        return {"rate": float("nan"), "amplitude": float("nan"), "r2": float("nan"), "start": float("nan")}
    fit = linregress(t, np.log(v))
    return {"rate": float(-fit.slope), "amplitude": float(np.exp(fit.intercept)), "r2": float(fit.rvalue**2),
            "start": float(t[0])}


# ----------------------------------------------------------------------------------------------
# A whole sweep, stacked, and everything read off it
# ----------------------------------------------------------------------------------------------


def stack_runs(runs: dict[float, list[dict]]) -> dict:
    """Runs of a sweep as arrays indexed [colour signal, seed, ...] (whole seeds only)."""
    signals = sorted(runs)
    n_seeds = min(len(v) for v in runs.values())
    pick = lambda key: np.stack([np.stack([r[key] for r in runs[c][:n_seeds]]) for c in signals])
    first = runs[signals[0]][0]
    return {"eval_steps": first["eval_steps"], "colour_signals": signals, "config": first["config"],
            "seeds": [r["config"]["seed"] for r in runs[signals[0]][:n_seeds]],
            "classifier_accuracy": [runs[c][0]["classifier_accuracy"] for c in signals],
            "run_seconds": [[r["seconds"] for r in runs[c][:n_seeds]] for c in signals],
            **{k: pick(k) for k in ("concepts", "loss", "gamma", "train_concepts", "prompts")}}


def first_step(steps: np.ndarray, rate: np.ndarray, level: float = 0.5) -> float:
    """First checkpoint at which `rate` reaches `level` (NaN if never)."""
    hit = np.nonzero(rate >= level)[0]
    return float(steps[hit[0]]) if len(hit) else float("nan")


def analyse(sweep: dict) -> list[dict]:
    """Per colour signal: trajectory, MSE, success, blanks, nudged success, order, bend, speed fit.

    Order, bend, MSE rise and speed are read from the checkpoints after initialisation: the
    untrained model's samples are noise images, which the classifier places anywhere.
    The stronger concept is the one with the larger concept signal of the data (data.concept_signals).
    """
    cfg = sweep["config"]
    signals_of = lambda c: concept_signals(Circles(c, cfg["size_mean"], cfg["size_signal"], cfg["resolution"]))
    steps, out = sweep["eval_steps"], []
    for i, c in enumerate(sweep["colour_signals"]):
        conc = sweep["concepts"][i]                                  # (seeds, K, prompts, samples, 3)
        exact = pooled(conc[:, :, 0])
        traj, traj_se = trajectory(exact)
        mse, mse_se = mse_curve(exact)
        sig = signals_of(c)
        stronger = max(sig, key=sig.get)
        trained, trained_se = traj[1:], traj_se[1:]                 # step 0 reads noise images
        excursion = (1 if stronger == "size" else -1) * (trained[:, 1] - trained[:, 0])
        k_bend = int(np.nanargmax(excursion)) if np.isfinite(excursion).any() else None
        t_mid, v = speed(trained, steps[1:])
        succ = success_rate(exact)
        nudged = np.stack([success_rate(pooled(conc[:, :, j])) for j in range(1, conc.shape[2])], axis=1) \
            if conc.shape[2] > 1 else np.zeros((len(steps), 0))
        gen = sweep["train_concepts"][i]                             # (seeds, 3 classes, samples, 3)
        out.append({
            "colour_signal": c, "signals": sig, "stronger": stronger, "traj": traj, "traj_se": traj_se,
            "mse": mse, "mse_se": mse_se, "success": succ, "blank": blank_fraction(exact), "nudged": nudged,
            "first_learned": first_learned(trained), "bend": bend_distance(trained, stronger),
            "first_by_seed": [first_learned(trajectory(seed_conc[:, 0])[0][1:]) for seed_conc in conc],
            "rises_by_seed": [rise_between_descents(*(a[1:] for a in mse_curve(seed_conc[:, 0]))) for seed_conc in conc],
            "bend_se": float(np.hypot(*trained_se[k_bend]) / np.sqrt(2)) if k_bend is not None else float("nan"),
            "rises": rise_between_descents(mse[1:], mse_se[1:]), "speed_t": t_mid, "speed": v,
            "fit": exponential_fit(t_mid, v), "emergence_step": first_step(steps, succ),
            "nudged_step": first_step(steps, nudged.max(1)) if nudged.shape[1] else float("nan"),
            "generated_train_accuracy": float(np.mean([success_rate(gen[:, j], TRAIN_CLASSES[j]).mean()
                                                       for j in range(len(TRAIN_CLASSES))])),
        })
    return out


def headline_metrics(res: list[dict], sweep: dict) -> dict:
    """The chapter's metrics: scalars at the lowest colour signal, lists over colour signals.

    `order_reversed` needs two colour signals (None with one).
    """
    low, high = res[0], res[-1]
    bends = [r["first_learned"] == r["stronger"] and r["bend"] > 2 * r["bend_se"] for r in res]
    worst = min(res, key=lambda r: r["success"][-1])
    return {
        "classifier_accuracy": float(min(sweep["classifier_accuracy"])),
        "generated_train_accuracy": float(min(r["generated_train_accuracy"] for r in res)),
        "ood_success_rate_final": float(low["success"][-1]),
        "ood_success_rate_final_by_signal": [float(r["success"][-1]) for r in res],
        "ood_blank_fraction_final": float(low["blank"][-1]),
        "ood_mse_curve": low["mse"],
        "ood_mse_rises": bool(low["rises"]),
        "ood_mse_rises_by_signal": [int(r["rises"]) for r in res],
        "ood_mse_rises_single_seed_fraction": float(np.mean(low["rises_by_seed"])),
        "bend_toward_stronger_concept": bool(all(bends)),
        "bend_distance_by_signal": [r["bend"] for r in res],
        "order_reversed": None if len(res) < 2 else bool(
            "neither" not in (low["first_learned"], high["first_learned"]) and low["first_learned"] != high["first_learned"]),
        "speed_decay_rate": low["fit"]["rate"], "speed_fit_r2": low["fit"]["r2"],
        "speed_fit_r2_by_signal": [r["fit"]["r2"] for r in res],
        "hidden_capability_success": float(worst["nudged"][-1].max()) if worst["nudged"].shape[1] else float("nan"),
        "ood_emergence_step_by_signal": [r["emergence_step"] for r in res],
        "hidden_capability_step_by_signal": [r["nudged_step"] for r in res],
        "train_steps": int(sweep["eval_steps"][-1]),
        "samples_per_checkpoint": int(sweep["concepts"].shape[1] * sweep["concepts"].shape[-2]),
    }


SCALE_ROWS = (
    ("S-6a: first concept learned is the stronger one, with a bend", "bend_toward_stronger_concept"),
    ("S-6a: order reverses between lowest and highest contrast", "order_reversed"),
    ("S-6b: MSE rises between two descents (lowest contrast)", "ood_mse_rises"),
    ("S-6c: R² of the exponential speed fit (lowest contrast)", "speed_fit_r2"),
    ("(blue, small) samples at the end (lowest contrast)", "ood_success_rate_final"),
    ("blank samples at the end (lowest contrast)", "ood_blank_fraction_final"),
)


def scale_table(columns: dict[str, dict]) -> str:
    """A Markdown table of the S-6 read-outs (rows) for several runs (columns of metrics)."""
    fmt = lambda v: "n/a" if v is None or (isinstance(v, float) and not np.isfinite(v)) else (
        str(v).lower() if isinstance(v, bool) else f"{v:.2f}")
    lines = ["| | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    lines += [f"| {label} | " + " | ".join(fmt(m.get(key)) for m in columns.values()) + " |" for label, key in SCALE_ROWS]
    return "\n".join(lines)
