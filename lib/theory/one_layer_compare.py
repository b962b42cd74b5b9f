"""Theorem 4.1 against simulated training on sampled SIM data (Swing-by paper, Sec. 4.1, Fig. 2).

`compare` samples one SIM data set per setting, trains the one-layer model on all of them at
once (full-batch GD and the paper's SGD protocol) and evaluates the closed forms with the same
initialisation, everything at the OOD test point and in concept coordinates (rotation undone).
`order_map` asks, over a grid of (mu_1, sigma_1), which concept the trained model learns first.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lib.sim.data import cluster_stds, population_second_moment, sim_dataset
from lib.theory.one_layer import (
    closed_form_output,
    discrete_output,
    discrete_rates,
    effective_lr,
    fit_rates,
    flow_output,
    gd_outputs,
    half_times,
    is_monotone,
    monotonicity_margin,
    ood_loss_flow,
    random_init,
    second_moment,
    sgd_outputs,
)
from lib.theory.one_layer_settings import Setting, vary_first  # noqa: F401 (re-exported)


def _seed(seed: int, *keys: int) -> int:
    """An independent integer seed per (seed, keys): data sets and inits never share a stream."""
    return int(np.random.SeedSequence([seed, *keys]).generate_state(1)[0])


# ----------------------------------------------------------------------------------------------
# Theory and simulation side by side
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Comparison:
    """Outputs at the test point in concept coordinates, (T, B, d) for B settings and T = steps + 1."""

    t: np.ndarray  # (T,) gradient-flow time lr * k
    a: np.ndarray  # (B, d) population A = diag(a) (eq. C.13)
    a_hat: np.ndarray  # (B, d, d) empirical second moment of the sample (eq. 4.1 before n -> inf)
    z: np.ndarray  # (B, d) test point x_hat = sum_p mu_p e_p
    w0: np.ndarray  # (B, d, d) initialisation
    theory: np.ndarray  # Theorem 4.1 (gradient flow, population A)
    discrete: np.ndarray  # exact GD solution with the population A: (1 - lr a_k)^m after m steps
    gd: np.ndarray  # full-batch GD on the sampled data
    sgd: np.ndarray  # the paper's SGD protocol on the sampled data


def compare(
    settings: list[Setting],
    *,
    d: int,
    n: int,
    lr: float,
    batch: int,
    steps: int,
    seed: int,
    rotate: bool,
    origin_cluster: bool,
) -> Comparison:
    """Sample, train (GD and SGD, all settings in one batched run) and evaluate the closed forms.

    `lr` is the step on W per unit gradient of (2.1); time is t = lr * step.
    """
    data = [
        sim_dataset(st.mu, st.std, d, n, origin_cluster=origin_cluster, rotate=rotate, seed=_seed(seed, i, 0))
        for i, st in enumerate(settings)
    ]
    w0 = np.stack([random_init((d, d), st.init_scale, _seed(seed, i, 1)) for i, st in enumerate(settings)])
    x = np.stack([ds.x for ds in data])
    probe = np.stack([ds.test_point for ds in data])
    q = np.stack([ds.rotation for ds in data])
    qt = np.swapaxes(q, 1, 2)
    w0c = qt @ w0 @ q  # W(0) in concept coordinates
    a = np.stack([population_second_moment(st.mu, st.std, d, origin_cluster) for st in settings])
    z = np.stack([np.r_[st.mu, np.zeros(d - len(st.mu))] for st in settings])  # = Q^T probe, exactly
    t = lr * np.arange(steps + 1)

    def to_concept(f: np.ndarray) -> np.ndarray:  # Q^T f, per setting
        return np.einsum("bji,tbj->tbi", q, f)

    return Comparison(
        t=t,
        a=a,
        a_hat=qt @ second_moment(x) @ q,
        z=z,
        w0=w0c,
        theory=closed_form_output(w0c, a, z, t),
        discrete=discrete_output(w0c, np.eye(d) * a[:, None, :], z, lr, steps),
        gd=to_concept(gd_outputs(x, w0, probe, lr, steps)),
        sgd=to_concept(sgd_outputs(x, w0, probe, lr, batch, steps, [_seed(seed, i, 2) for i in range(len(x))]).outputs),
    )


def lr_refinement(c: Comparison, index: int, factors=(1, 2, 4)) -> tuple[np.ndarray, np.ndarray]:
    """Max |GD - gradient flow| of the *sampled* loss at the test point, for lr / f, f in `factors`.

    Both use the sample's A_hat, so only the finite step separates them (no finite-n floor);
    GD is evaluated exactly through its discrete solution (the same numbers as iterating W, by
    linearity). Same time span for every lr. Returns (learning rates, errors).
    """
    lr, steps = c.t[1], len(c.t) - 1
    lrs, errors = lr / np.asarray(factors, float), []
    for f, step in zip(factors, lrs):
        gd = discrete_output(c.w0[index], c.a_hat[index], c.z[index], step, steps * f)
        flow = flow_output(c.w0[index], c.a_hat[index], c.z[index], step * np.arange(steps * f + 1))
        errors.append(np.abs(gd - flow).max())
    return lrs, np.array(errors)


@dataclass(frozen=True)
class RateRefinement:
    """Fitted convergence rates of full-batch GD on the sample as the step shrinks (Theorem 4.1 is a flow).

    Theorem 4.1's "coordinate k converges at rate a_k" is a statement about the gradient flow; GD with
    step lr converges at the discrete rate -ln(1 - lr a_k)/lr = a_k + lr a_k^2 / 2 + O(lr^2). Fitting
    GD at lr / f for several f and extrapolating linearly in lr to 0 gives the flow's rate, to be
    compared with a_k; the finite sample adds |a_hat_kk - a_k| (`a_hat`)."""

    lrs: np.ndarray  # (F,) learning rates lr / f
    rates: np.ndarray  # (F, s) rates fitted to GD at each learning rate
    flow_limit: np.ndarray  # (s,) linear extrapolation of the fitted rates to lr -> 0
    flow: np.ndarray  # (s,) rates fitted to the gradient flow of the sampled loss itself
    a: np.ndarray  # (s,) population a_k (eq. C.13)
    a_hat: np.ndarray  # (s,) diagonal of the sample's second moment (concept coordinates)
    discrete: np.ndarray  # (F, s) discrete rates -ln(1 - lr a_k)/lr at each learning rate

    @property
    def flow_limit_rel_error(self) -> float:
        """max_k |flow-limit rate / a_k - 1|: the claim "rate a_k" in the limit where Theorem 4.1 lives."""
        return float(np.max(np.abs(self.flow_limit / self.a - 1)))

    @property
    def sampling_rel_error(self) -> float:
        """max_k |a_hat_kk / a_k - 1|: how far the finite sample alone moves the rates."""
        return float(np.max(np.abs(self.a_hat / self.a - 1)))


def rate_refinement(c: Comparison, index: int, factors=(1, 2, 4, 8), decades: float = 2.0) -> RateRefinement:
    """Rates fitted (`fit_rates`) to exact GD on setting `index`'s sample at lr / f, f in `factors`,
    over the same time span, their extrapolation to lr -> 0, and the rates of the sampled flow."""
    lr, steps, s = c.t[1], len(c.t) - 1, int(np.count_nonzero(c.a[index]))
    w0, A, z = c.w0[index], c.a_hat[index], c.z[index]
    lrs, rates = lr / np.asarray(factors, float), []
    for f, step in zip(factors, lrs):
        gd = discrete_output(w0, A, z, step, steps * f)
        rates.append(fit_rates(step * np.arange(steps * f + 1), gd[:, :s], z[:s], decades))
    rates = np.array(rates)
    slope_intercept = np.polyfit(lrs, rates, 1)  # (2, s): rate ~ intercept + slope lr
    t = lr * np.arange(steps * max(factors) + 1) / max(factors)
    flow = fit_rates(t, flow_output(w0, A, z, t)[:, :s], z[:s], decades)
    return RateRefinement(
        lrs=lrs,
        rates=rates,
        flow_limit=slope_intercept[1],
        flow=flow,
        a=c.a[index, :s],
        a_hat=np.diagonal(A)[:s].copy(),
        discrete=np.stack([discrete_rates(c.a[index, :s], x) for x in lrs]),
    )


# ----------------------------------------------------------------------------------------------
# Fig. 2a / 2b under the paper's and the authors' conventions
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Convention:
    """How sigma, the loss and the data set are read: the paper's text or the authors' code."""

    name: str
    sigma_is_variance: bool  # the code passes sigma as a variance; the paper calls it a standard deviation
    loss_scaling: str  # "half_sum" (eq. 2.1) or "mse" (PyTorch MSELoss: lr x 2/d)
    origin_cluster: bool  # the code adds a training cluster at the origin


PAPER = Convention("paper", sigma_is_variance=False, loss_scaling="half_sum", origin_cluster=False)
AUTHORS = Convention("authors' code", sigma_is_variance=True, loss_scaling="mse", origin_cluster=True)


@dataclass(frozen=True)
class ConventionView:
    """Fig. 2a/2b settings under one convention: what Theorem 4.1 predicts for each."""

    convention: Convention
    settings: list[Setting]  # standard deviations actually used
    a: np.ndarray  # (B, s) a_k = std_k^2 + mu_k^2 / (s or s + 1)
    first: np.ndarray  # (B,) concept learned first, argmax_k a_k (0-based)
    eta: float  # step on W per unit gradient of (2.1)
    half_steps: np.ndarray  # (B, s) steps for coordinate k to cover half its way from W(0) = 0 (discrete map)


def fig2_conventions(
    mu, sigma, *, fig2a_mu1, fig2b_sigma1, d: int, lr: float, conventions=(PAPER, AUTHORS)
) -> list[ConventionView]:
    """The settings of Fig. 2a (mu_1 varied) and 2b (sigma_1 varied) under each convention.

    The same numbers `sigma`, `fig2b_sigma1` are read as standard deviations or as variances, the
    loss as eq. (2.1) or MSELoss, with or without the origin cluster; Theorem 4.1 then gives each
    setting's a_k, the first-learned concept and the steps to half-way, ln 2 / -ln(1 - eta a_k)."""
    views = []
    for conv in conventions:
        std = cluster_stds(sigma, conv.sigma_is_variance)
        settings = vary_first(mu, std, 0.0, mu1=fig2a_mu1, std1=cluster_stds(fig2b_sigma1, conv.sigma_is_variance))
        s = len(mu)
        a = np.stack([population_second_moment(st.mu, st.std, s, conv.origin_cluster) for st in settings])
        eta = effective_lr(lr, conv.loss_scaling, d)
        views.append(
            ConventionView(conv, settings, a, np.argmax(a, axis=1), eta, np.log(2) / discrete_rates(a, eta) / eta)
        )
    return views


# ----------------------------------------------------------------------------------------------
# The limitation: how often is the one-layer OOD loss non-monotone?
# ----------------------------------------------------------------------------------------------


def monotonicity_sweep(
    a: np.ndarray,
    z: np.ndarray,
    scales,
    draws: int,
    t: np.ndarray,
    seed: int,
) -> tuple[np.ndarray, np.ndarray]:
    """For each init scale: the fraction of random W(0) whose monotonicity certificate holds
    (`monotonicity_margin` > 0) and the fraction whose OOD loss under the flow rises somewhere on t.

    `a`, `z` in concept coordinates of any dimension d (the d of the draws).
    """
    d, certified, rising = len(a), [], []
    for i, scale in enumerate(scales):
        w0 = random_init((draws, d, d), scale, _seed(seed, 5, d, i))
        certified.append(np.mean(monotonicity_margin(w0, a) > 0))
        rising.append(np.mean(~is_monotone(ood_loss_flow(w0, a, z, t))))
    return np.array(certified), np.array(rising)


# ----------------------------------------------------------------------------------------------
# Which concept is learned first, over a grid of (mu_1, sigma_1)
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OrderMap:
    """First-learned concept (0-based, by `half_times`) on a grid: rows mu_1, columns sigma_1."""

    mu1: np.ndarray  # (P,)
    std1: np.ndarray  # (Q,)
    a: np.ndarray  # (P, Q, s) population a_k
    a_hat: np.ndarray  # (P, Q, s) diagonal of the empirical second moment of each cell's sample
    first_theory: np.ndarray  # (P, Q) argmax_k a_k (Theorem 4.1: larger a_k converges faster)
    first_sim: np.ndarray  # (P, Q) first coordinate to cover half its way under GD
    steps: int  # GD steps until every cell was decided

    @property
    def near_boundary(self) -> np.ndarray:
        """Cells within one grid step of the theoretical boundary: their 3 x 3 neighbourhood
        holds more than one argmax_k a_k. The map cannot place the flip more finely than that."""
        padded = np.pad(self.first_theory, 1, mode="edge")
        p, q = self.first_theory.shape
        shifts = [padded[i : i + p, j : j + q] for i in range(3) for j in range(3)]
        return np.any([sh != self.first_theory for sh in shifts], axis=0)

    @property
    def matches_theory(self) -> bool:
        """Whether the simulated order equals argmax_k a_k on every cell off the boundary."""
        return bool(np.all((self.first_sim == self.first_theory) | self.near_boundary))


def order_map(
    mu,
    std,
    mu1: np.ndarray,
    std1: np.ndarray,
    *,
    n: int,
    lr: float,
    init_scale: float,
    seed: int,
    origin_cluster: bool,
    max_steps: int = 1_000_000,
) -> OrderMap:
    """Full-batch GD on a sampled data set per cell; stop as soon as every cell's order is decided.

    Runs in the s concept coordinates: GD started from x_hat never leaves the span of the concept
    axes, and an isotropic Gaussian W(0) keeps its law under rotation, so d and the rotation do
    not change the result's distribution. By linearity the GD output at x_hat is
    x_hat - (I - W_0) u_k with u_{k+1} = (I - lr A_hat) u_k: one matrix-vector product per cell.
    """
    mu, std, s = np.asarray(mu, float), np.asarray(std, float), len(mu)
    cells = [(np.r_[m, mu[1:]], np.r_[sd, std[1:]]) for m in mu1 for sd in std1]
    a = np.stack([population_second_moment(m, sd, s, origin_cluster) for m, sd in cells])
    A = np.stack(
        [
            second_moment(sim_dataset(m, sd, s, n, origin_cluster=origin_cluster, seed=_seed(seed, i, 3)).x)
            for i, (m, sd) in enumerate(cells)
        ]
    )
    z = np.stack([m for m, _ in cells])
    c = np.eye(s) - random_init((len(cells), s, s), init_scale, _seed(seed, 4))
    u, traj = z.copy(), []
    for _ in range(max_steps):
        traj.append(z - np.einsum("cij,cj->ci", c, u))
        if np.all(((traj[-1] - traj[0]) / (z - traj[0]) >= 0.5).any(-1)):
            break
        u = u - lr * np.einsum("cij,cj->ci", A, u)
    else:
        raise RuntimeError(f"order map: some cell learned nothing within {max_steps} steps")
    traj = np.stack(traj)
    shape = (len(mu1), len(std1))
    return OrderMap(
        mu1=np.asarray(mu1),
        std1=np.asarray(std1),
        a=a.reshape(*shape, s),
        a_hat=np.diagonal(A, axis1=1, axis2=2).reshape(*shape, s),
        first_theory=np.argmax(a, -1).reshape(shape),
        first_sim=np.argmin(half_times(lr * np.arange(len(traj)), traj, z), axis=-1).reshape(shape),
        steps=len(traj) - 1,
    )


def plot_trajectories(ax, comparison, settings, labels, t: np.ndarray, every: int = 2) -> None:
    """Theorem 4.1 (lines, at times `t`) over the SGD outputs (markers at equal time steps) of the
    `settings` (indices into `comparison`), concepts 1 and 2; the target as a star."""
    from lib.util.plotting import arrow_markers

    c = comparison
    for b, label in zip(settings, labels):
        (line,) = ax.plot(*closed_form_output(c.w0[b], c.a[b], c.z[b], t)[:, :2].T, lw=1.5, label=label)
        arrow_markers(ax, c.sgd[:, b, :2], every, color=line.get_color(), ms=3, alpha=0.8)
        ax.plot(*c.z[b, :2], marker="*", ms=10, color=line.get_color())
        ax.plot([c.z[b, 0], 0], [0, c.z[b, 1]], "o", mfc="none", color=line.get_color())
    ax.set(xlabel="output, concept 1", ylabel="output, concept 2")
    ax.legend(loc="lower right", fontsize=8)
