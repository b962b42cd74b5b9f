"""Seed sweeps of the SIM MLP experiments (Swing-by Sec. 3.3, App. B, F.3): per-seed numbers and estimates.

A `Protocol` is one SIM setting with its MLP and SGD recipe (App. F.1); `swing_runs` trains one
model per seed as one batched computation and reads off, per seed, the Swing-by turn-back
(`metrics.turn_back`), the rise of the OOD loss (`metrics.loss_rise`) and the bulge away from the
straight path (`metrics.detour`). `topological_runs` does the same for the 2^s combination points
of App. B (eq. B.2). The `*_estimates` functions turn per-seed numbers into `lib.util.stats.Estimate`s
(bootstrap medians, Wilson fractions). `swing_block` and `topological_block` are evidence shards.
"""

from __future__ import annotations

import pathlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace

import numpy as np

from lib.sim import metrics as M
from lib.sim.data import SIMData, sim_dataset
from lib.sim.models import MLPShape
from lib.sim.train import train_datasets
from lib.util.comparisons import location_ratio
from lib.util.stats import Estimate, bootstrap_interval, bootstrap_median, fraction

TRUNCATIONS = ("none", "radius", "orthant")


# ----------------------------------------------------------------------------------------------
# Protocol
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Protocol:
    """One SIM setting, its MLP and its SGD recipe. Defaults: Fig. 2c / 3 at d = 64, authors' conventions."""

    mu: tuple[float, ...] = (1.0, 2.0)
    sigma: tuple[float, ...] = (0.05, 0.05)
    d: int = 64
    width: int = 64
    depth: int = 4
    activation: str = "linear"
    bias: bool = True
    n: int = 5000
    lr: float = 0.1
    batch: int = 128
    epochs: float = 25.0
    loss: str = "mse"
    rotate: bool = True
    origin_cluster: bool = True
    sigma_is_variance: bool = True
    init_scale: float = 1.0
    truncation: str = "none"  # "none" | "radius" (App. F.3) | "orthant" (reviewers' stronger version)
    truncate_fraction: float = 0.5  # radius = truncate_fraction * min(mu)
    stop_tol: float | None = 0.01

    def __post_init__(self) -> None:
        if self.truncation not in TRUNCATIONS:
            raise ValueError(f"truncation must be one of {TRUNCATIONS}, got {self.truncation!r}")

    @classmethod
    def from_dict(cls, values: dict) -> Protocol:
        """From a JSON-able dict (lists for mu and sigma), as evidence configurations store it."""
        values = dict(values)
        for key in ("mu", "sigma"):
            if key in values:
                values[key] = tuple(float(v) for v in values[key])
        return cls(**values)

    def as_dict(self) -> dict:
        out = asdict(self)
        out["mu"], out["sigma"] = list(self.mu), list(self.sigma)
        return out

    @property
    def shape(self) -> MLPShape:
        return MLPShape(self.d, self.width, self.depth, self.activation, self.bias)

    def dataset(self, seed: int) -> SIMData:
        """Seed `seed`'s training set (the truncated twin of the full set shares its other points)."""
        radius = self.truncate_fraction * min(self.mu) if self.truncation == "radius" else None
        return sim_dataset(
            self.mu,
            self.sigma,
            self.d,
            self.n,
            sigma_is_variance=self.sigma_is_variance,
            origin_cluster=self.origin_cluster,
            rotate=self.rotate,
            truncate_radius=radius,
            truncate_orthant=self.truncation == "orthant",
            seed=seed,
        )

    def sgd(self) -> dict:
        return {
            "lr": self.lr,
            "batch": self.batch,
            "epochs": self.epochs,
            "loss": self.loss,
            "stop_tol": self.stop_tol,
            "init_scale": self.init_scale,
        }


def block_seeds(seed: int, block: int, size: int) -> list[int]:
    """Seeds of block `block`: seed + block * size + (0..size-1); blocks of a set never overlap."""
    return [seed + block * size + i for i in range(size)]


def _subsample(length: int, keep: int) -> np.ndarray:
    """At most `keep` indices spread evenly over 0..length-1, first and last included."""
    return np.unique(np.linspace(0, length - 1, min(keep, length)).round().astype(int))


# ----------------------------------------------------------------------------------------------
# Swing-by at the OOD test point (Fig. 2c, 3, 13, 14, 16)
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SwingRuns:
    """Per-seed numbers of M runs of one protocol, and subsampled curves for figures."""

    seeds: np.ndarray  # (M,)
    turn_back: np.ndarray  # (M, s) retreat of each concept coordinate from its running maximum, in mu_k
    loss_rise: np.ndarray  # (M,) largest rise of the OOD loss above its running minimum, / initial loss
    bulge: np.ndarray  # (M,) largest in-plane distance from the straight path, / ||x_hat||
    toward: np.ndarray  # (M,) component of the bulge toward the strongest cluster at its largest
    final_distance: np.ndarray  # (M,) ||f(x_hat) - x_hat|| / ||x_hat|| at the end of training (learned?)
    epoch: np.ndarray  # (K,) training time of the kept points, epochs
    outputs: np.ndarray  # (K, M, s) concept-plane outputs at the test point, kept points
    ood: np.ndarray  # (K, M) OOD loss at the kept points

    def arrays(self) -> dict[str, np.ndarray]:
        return {k: np.asarray(v, np.float32) if v.dtype.kind == "f" else v for k, v in asdict(self).items()}


def _measure(y: np.ndarray, epoch: np.ndarray, protocol: Protocol, seeds: list[int], keep: int) -> SwingRuns:
    """Per-seed numbers of concept-space outputs y (T, M, 1, d) at the test point."""
    s, mu = len(protocol.mu), np.asarray(protocol.mu)
    target = np.r_[mu, np.zeros(y.shape[-1] - s)]  # x_hat in concept coordinates
    turn, rise, bulge, toward, final, ood = [], [], [], [], [], []
    for i in range(len(seeds)):
        out = y[:, i, 0]
        det = M.detour(out, mu)
        loss = M.ood_loss(out, target)
        turn.append(M.turn_back(out, mu))
        rise.append(M.loss_rise(loss))
        bulge.append(det["in_plane"].max())
        toward.append(det["toward"][det["in_plane"].argmax()])
        final.append(np.linalg.norm(out[-1] - target) / np.linalg.norm(mu))
        ood.append(loss)
    idx = _subsample(len(y), keep)
    return SwingRuns(
        seeds=np.asarray(seeds),
        turn_back=np.array(turn),
        loss_rise=np.array(rise),
        bulge=np.array(bulge),
        toward=np.array(toward),
        final_distance=np.array(final),
        epoch=epoch[idx],
        outputs=y[idx, :, 0, :s],
        ood=np.stack(ood, 1)[idx],
    )


def swing_runs(protocol: Protocol, seeds: list[int], keep: int = 300) -> SwingRuns:
    """Train one model per seed (one batched run) and measure the Swing-by of each (Sec. 3.3)."""
    data = [protocol.dataset(k) for k in seeds]
    traj, y = train_datasets(protocol.shape, data, seeds, **protocol.sgd())
    return _measure(y, traj.epoch_of(np.arange(len(y))), protocol, seeds, keep)


def truncation_pairs(
    protocol: Protocol,
    seeds: list[int],
    truncation: str,
    keep: int = 300,
) -> tuple[SwingRuns, SwingRuns, np.ndarray]:
    """Each seed trained on its full and on its truncated training set in one batched run (same
    initialisation and minibatch order; only the resampled points differ, App. F.3, Fig. 16).

    Returns the full runs, the truncated runs and the largest distance between the twins' outputs
    at the test point over training, / ||x_hat|| (M,).
    """
    full, cut = replace(protocol, truncation="none"), replace(protocol, truncation=truncation)
    data = [full.dataset(k) for k in seeds] + [cut.dataset(k) for k in seeds]
    traj, y = train_datasets(protocol.shape, data, seeds * 2, **protocol.sgd())
    epoch, m = traj.epoch_of(np.arange(len(y))), len(seeds)
    deviation = np.linalg.norm(y[:, m:, 0] - y[:, :m, 0], axis=-1).max(axis=0) / np.linalg.norm(protocol.mu)
    return _measure(y[:, :m], epoch, full, seeds, keep), _measure(y[:, m:], epoch, cut, seeds, keep), deviation


def swing_estimates(
    turn_back: np.ndarray, loss_rise: np.ndarray, bulge: np.ndarray, rise_tol: float, seed: int = 0
) -> dict[str, Estimate]:
    """Estimates over seeds: median turn-back (largest over concepts), median loss rise, fraction of
    seeds whose loss rises by more than `rise_tol` of its initial value, median bulge."""
    turn = np.asarray(turn_back).reshape(len(loss_rise), -1).max(axis=1)
    return {
        "turn_back": bootstrap_median(turn, seed=seed),
        "loss_rise": bootstrap_median(loss_rise, seed=seed),
        "rise_fraction": fraction(np.asarray(loss_rise) > rise_tol),
        "bulge": bootstrap_median(bulge, seed=seed),
    }


def truncation_effect(
    full_turn: np.ndarray,
    cut_turn: np.ndarray,
    full_rise: np.ndarray,
    cut_rise: np.ndarray,
    deviation: np.ndarray,
    seed: int = 0,
) -> dict[str, Estimate]:
    """What a truncation does to the dynamics, over paired seeds (same init and minibatch order):
    mean change of the turn-back (largest over concepts) and of the loss rise, truncated minus full
    (paired t interval, `lib.util.stats.paired_difference`), and the median largest distance between the
    twins' outputs (/ ||x_hat||, bootstrap)."""
    from lib.util.stats import paired_difference

    turn = [np.asarray(t).reshape(len(full_rise), -1).max(axis=1) for t in (cut_turn, full_turn)]
    return {
        "turn_back_change": paired_difference(*turn).estimate,
        "loss_rise_change": paired_difference(cut_rise, full_rise).estimate,
        "max_deviation": bootstrap_median(deviation, seed=seed),
    }


def distance_over_swing(deviation: np.ndarray, turn_back: np.ndarray, mu: Sequence[float], seed: int = 0) -> Estimate:
    """The twins' largest distance against the swing it would explain, in one unit (the output's): the median of
    `deviation` (per seed, / ||mu||: `truncation_pairs`) times ||mu|| over the median of the full runs' largest
    turn-back (per seed and concept, / mu_k: `lib.sim.metrics.turn_back`) times mu_k, with the interval of
    `lib.util.comparisons.location_ratio`."""
    mu = np.asarray(mu, float)
    swing = (np.asarray(turn_back, float).reshape(len(deviation), -1) * mu).max(axis=1)
    return location_ratio(np.asarray(deviation, float) * np.linalg.norm(mu), swing, seed=seed)


def median_ratio(low: np.ndarray, high: np.ndarray, seed: int = 0, confidence: float = 0.95) -> Estimate:
    """median(low) / median(high) of two independent samples, with a scipy.stats.bootstrap interval
    (each sample resampled separately; percentile method, BCa needs a one-sample jackknife).

    `reversal_ratio_low_high` of S-2c: the median turn-back in low over high dimension."""
    low, high = np.asarray(low, float).ravel(), np.asarray(high, float).ravel()

    def ratio(a, b, axis=-1):
        return np.median(a, axis=axis) / np.median(b, axis=axis)

    with np.errstate(divide="ignore", invalid="ignore"):
        value = float(ratio(low, high))
    ci = bootstrap_interval((low, high), ratio, rng=np.random.default_rng(seed), confidence=confidence)
    method = f"bootstrap percentile ratio of medians {confidence:.0%} (n = {low.size}, {high.size})"
    return Estimate(value, *ci, int(min(low.size, high.size)), method)


def swing_block(config: dict, shard: dict, checkpoint: pathlib.Path | None = None) -> dict[str, np.ndarray]:
    """Evidence shard: one block of seeds of one protocol.

    config: {"protocols": {name: Protocol fields}, "seeds_per_block": int, "seed": int, "keep": int};
    shard: {"protocol": name, "init_scale": float, "truncation": "none" | "radius" | "orthant", "block": int}.
    Returns the `SwingRuns` arrays (float32); with a truncation, the full runs' arrays, the
    truncated twins' arrays prefixed "cut_" and "max_deviation" (`truncation_pairs`).
    """
    protocol = replace(
        Protocol.from_dict(config["protocols"][shard["protocol"]]), init_scale=float(shard["init_scale"])
    )
    seeds = block_seeds(int(config["seed"]), int(shard["block"]), int(config["seeds_per_block"]))
    keep = int(config.get("keep", 300))
    if shard["truncation"] == "none":
        return swing_runs(protocol, seeds, keep).arrays()
    full, cut, deviation = truncation_pairs(protocol, seeds, shard["truncation"], keep)
    return {
        **full.arrays(),
        **{f"cut_{k}": v for k, v in cut.arrays().items()},
        "max_deviation": deviation.astype(np.float32),
    }


# ----------------------------------------------------------------------------------------------
# Topological order on the hypercube of combination points (App. B, eq. B.2, Fig. 7)
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TopologicalRuns:
    """Per-seed order-homomorphism numbers of App. B at the figure's snapshot epochs and over all steps."""

    seeds: np.ndarray  # (M,)
    snapshot_violation: np.ndarray  # (M, K) largest l(u) - l(v) over comparable u <= v at each snapshot
    worst_violation: np.ndarray  # (M,) the same, largest over every logged step
    order_violations: np.ndarray  # (M,) pairs u <= v where v is learned before u (App. B's learning order)
    snapshot_violation_no_origin: np.ndarray  # (M, K) the same without the origin 0...0
    order_violations_no_origin: np.ndarray  # (M,)

    def arrays(self) -> dict[str, np.ndarray]:
        return {k: np.asarray(v, np.float32) if v.dtype.kind == "f" else v for k, v in asdict(self).items()}


def topological_runs(protocol: Protocol, seeds: list[int], snapshots: list[float], learned: float) -> TopologicalRuns:
    """Train one model per seed on the App. B setting and test eq. (B.2) on all 2^s combination points.

    `snapshots`: the epochs that Fig. 7 draws; `learned`: the loss below which a point counts as learned.
    """
    data = [protocol.dataset(k) for k in seeds]
    traj, y = train_datasets(protocol.shape, data, seeds, combos=True, **protocol.sgd())
    steps = [min(int(round(e * traj.steps_per_epoch)), len(y) - 1) for e in snapshots]
    snap, worst, order, snap_no, order_no = [], [], [], [], []
    for i, ds in enumerate(data):
        losses = M.ood_loss(y[:, i], ds.to_concept(ds.combo_points))
        per_step = M.max_order_violation(losses, ds.combos)
        per_step_no = M.max_order_violation(losses[:, 1:], ds.combos[1:])
        snap.append(per_step[steps])
        snap_no.append(per_step_no[steps])
        worst.append(per_step.max())
        order.append(M.learning_order_violations(losses, ds.combos, learned))
        order_no.append(M.learning_order_violations(losses[:, 1:], ds.combos[1:], learned))
    return TopologicalRuns(
        np.asarray(seeds), np.array(snap), np.array(worst), np.array(order), np.array(snap_no), np.array(order_no)
    )


def topological_estimates(
    snapshot_violation: np.ndarray, order_violations: np.ndarray, tol: float, seed: int = 0
) -> dict[str, Estimate]:
    """Over seeds: fraction with a violation of (B.2) larger than `tol` at some snapshot (one a figure
    with a colour scale 0..1 can show), the median largest violation at the snapshots, and the
    fraction of seeds with any learning-order violation."""
    worst = np.asarray(snapshot_violation).max(axis=1)
    return {
        "visible_fraction": fraction(worst > tol),
        "snapshot_violation": bootstrap_median(worst, seed=seed),
        "order_fraction": fraction(np.asarray(order_violations) > 0),
    }


def topological_block(config: dict, shard: dict, checkpoint: pathlib.Path | None = None) -> dict[str, np.ndarray]:
    """Evidence shard: one block of seeds of App. B under one reading of sigma.

    config: {"protocol": Protocol fields, "snapshots": [...], "learned": float, "seeds_per_block": int,
    "seed": int}; shard: {"sigma_is_variance": 0 or 1, "block": int}.
    """
    protocol = replace(Protocol.from_dict(config["protocol"]), sigma_is_variance=bool(shard["sigma_is_variance"]))
    seeds = block_seeds(int(config["seed"]), int(shard["block"]), int(config["seeds_per_block"]))
    return topological_runs(protocol, seeds, list(config["snapshots"]), float(config["learned"])).arrays()
