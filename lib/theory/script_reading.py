"""A or A^2: the authors' theory script against the paper's flow (Swing-by paper, eq. D.2, Fig. 5).

The paper derives dW/dtau = W A + A W - 1/2 (A W^2 + W^2 A + 2 W A W) (D.2) with A = diag(a),
a_k = sigma_k^2 + mu_k^2 / s (C.13). The authors' theory script integrates the same right-hand side
with S = A^2 in place of A, by Euler steps of W (step 0.01, 2000 steps), from W(0) = U U^T with U
uniform on [0, 0.2), at mu = (1, 1.5), d = 3. Here both covariance powers run from the same inits,
by both integrators: "flow" (the paper: exact flow, integrated on U so W stays PSD, sampled on the
script's time grid) and "euler_w" (the script: Euler steps of W itself).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lib.theory import two_layer as tl

INTEGRATORS = ("flow", "euler_w")

# ----------------------------------------------------------------------------------------------
# The script's setting
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScriptSetting:
    """The authors' theory script: test point (1, 1.5, 0), sigma 0.05, U uniform on [0, 0.2), Euler 0.01 x 2000."""

    mu: tuple[float, ...] = (1.0, 1.5)
    sigma: tuple[float, ...] = (0.05, 0.05)
    d: int = 3
    width: int = 3
    init: str = "uniform"
    init_scale: float = 0.2
    step: float = 0.01
    n_steps: int = 2000
    descent_tol: float = 0.01  # a descent or rise counts above this fraction of the mean initial OOD loss

    @property
    def times(self) -> np.ndarray:
        return self.step * np.arange(self.n_steps + 1)


# ----------------------------------------------------------------------------------------------
# Integrators
# ----------------------------------------------------------------------------------------------


def euler_w(w0: np.ndarray, a: np.ndarray, step: float, n_steps: int, mu) -> tuple[np.ndarray, np.ndarray]:
    """Euler steps of W by (D.2), as the script does: (OOD loss (n_steps + 1, n), smallest eigenvalue of W
    over the run (n,)). A seed whose W overflows gets loss inf from then on and eigenvalue -inf."""
    w = w0.copy()
    loss = np.empty((n_steps + 1, len(w0)))
    loss[0] = tl.ood_loss(w, mu)
    low = np.linalg.eigvalsh(w)[:, 0]
    with np.errstate(all="ignore"):
        for k in range(1, n_steps + 1):
            w = w + step * tl.w_rhs(w, a)
            finite = np.isfinite(w).all((-2, -1))
            w[~finite] = np.inf
            loss[k] = np.where(finite, tl.ood_loss(np.where(finite[:, None, None], w, 0.0), mu), np.inf)
            eig = np.full(len(w), -np.inf)
            eig[finite] = np.linalg.eigvalsh(w[finite])[:, 0]
            low = np.minimum(low, eig)
    return loss, low


def script_run(
    setting: ScriptSetting, covariance_power: int, integrator: str, n: int, seed: int = 0
) -> dict[str, np.ndarray]:
    """n seeds (all in one batch) of the script's setting under one reading.

    Returns loss (n_steps + 1, n), descents (n,), bump (n,), min_eig (n,): the smallest eigenvalue
    of W over the run (negative: W left the PSD cone), diverged (n,): W overflowed.
    """
    if integrator not in INTEGRATORS:
        raise ValueError(f"unknown integrator {integrator!r}: use one of {INTEGRATORS}")
    a = tl.signal_strengths(setting.mu, setting.sigma, setting.d, covariance_power)
    u0 = tl.init_u(n, setting.d, setting.width, setting.init_scale, setting.init, seed)
    times = setting.times
    if integrator == "flow":
        w = tl.integrate(u0, a, times)
        loss, min_eig = tl.ood_loss(w, setting.mu), np.linalg.eigvalsh(w)[..., 0].min(0)
    else:
        loss, min_eig = euler_w(tl.gram(u0), a, setting.step, setting.n_steps, setting.mu)
    diverged = ~np.isfinite(loss).all(0)
    finite = np.where(np.isfinite(loss), loss, np.nanmax(np.where(np.isfinite(loss), loss, np.nan)) * 10)
    descents, bump = tl.descents_batch(finite, setting.descent_tol * loss[0].mean())
    return {"times": times, "loss": loss, "descents": descents, "bump": bump, "min_eig": min_eig, "diverged": diverged}


# ----------------------------------------------------------------------------------------------
# Both readings, same seeds
# ----------------------------------------------------------------------------------------------


def compare_readings(
    setting: ScriptSetting, n: int, seed: int = 0, integrators: tuple[str, ...] = INTEGRATORS
) -> dict[str, dict]:
    """For covariance_power 1 (A, the paper) and 2 (A^2, the script) and every integrator, from the same
    n inits: estimates (Wilson) of the non-monotone fraction, the fraction with two or more descents,
    the fraction whose W left the PSD cone; and the paired difference A^2 - A of the non-monotone
    indicator (same seeds: lib.util.stats.paired_difference). Keys "A/flow", "A2/flow", ..., "A2-A/flow"."""
    from lib.util.stats import fraction, paired_difference

    out = {}
    for integrator in integrators:
        runs = {p: script_run(setting, p, integrator, n, seed) for p in (1, 2)}
        for p, r in runs.items():
            swing = tl.swing_fractions(r["descents"], r["bump"])
            out[f"{'A' if p == 1 else 'A2'}/{integrator}"] = {
                **swing,
                "psd_lost": fraction(r["min_eig"] < 0),
                "diverged": fraction(r["diverged"]),
            }
        flags = [(runs[p]["bump"] > 0).astype(float) for p in (2, 1)]
        out[f"A2-A/{integrator}"] = {"nonmonotone": paired_difference(*flags).estimate}
    return out


# ----------------------------------------------------------------------------------------------
# Evidence shards: A against A^2 at >= 1000 seeds (script setting, Figs. 8, 9, 10)
# ----------------------------------------------------------------------------------------------


def readings_block(config: dict, shard: dict, checkpoint=None) -> dict[str, np.ndarray]:
    """One block of `config["seeds"]` init seeds of one experiment under one reading.

    shard: {"experiment": "script" | "triple" | "quadruple" | "failure", "power": 1 | 2,
            "init": "gaussian" | "uniform", "integrator": "flow" | "euler_w", "block": b}.
    config[experiment]: {"mu", "sigma", "d", "init_scale": {init: scale}, "horizon", "n_times"} (the
    script experiment takes its own grid from ScriptSetting); config: seeds, descent_tol, seed.
    Returns descents (int16) and bump (float32) per seed; the script adds min_eig and diverged, the
    failure experiment suppressed, plateau and escape (inf: not within the horizon).
    """
    exp, power, init, block = shard["experiment"], int(shard["power"]), shard["init"], int(shard["block"])
    spec, n, seed = config[exp], int(config["seeds"]), int(config["seed"]) + block
    scale = float(spec["init_scale"][init])
    if exp == "script":
        setting = ScriptSetting(
            mu=tuple(spec["mu"]),
            sigma=tuple(spec["sigma"]),
            d=spec["d"],
            width=spec["d"],
            init=init,
            init_scale=scale,
            descent_tol=config["descent_tol"],
        )
        r = script_run(setting, power, shard["integrator"], n, seed)
        return {
            "descents": r["descents"].astype(np.int16),
            "bump": r["bump"].astype(np.float32),
            "min_eig": r["min_eig"].astype(np.float32),
            "diverged": r["diverged"],
        }
    run = tl.ensemble(
        spec["mu"],
        spec["sigma"],
        spec["d"],
        spec["d"],
        scale,
        init,
        n,
        spec["horizon"],
        spec["n_times"],
        config["descent_tol"],
        power,
        seed,
    )
    out = {"descents": run["descents"].astype(np.int16), "bump": run["bump"].astype(np.float32)}
    if exp == "failure":
        fail = tl.failure_summary(run["w"], run["times"], spec["mu"])
        out |= {
            "suppressed": fail["suppressed"],
            "plateau": fail["plateau"],
            "escape": fail["escape"].astype(np.float32),
        }
    return out
