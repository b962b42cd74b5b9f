# ---
# jupyter:
#   jupytext:
#     text_representation: {extension: .py, format_name: percent}
#   kernelspec: {display_name: Python 3, language: python, name: python3}
# ---

# %% [markdown]
# # Observations on the SIM task
#
# This chapter reproduces the experiments of Section 3 and Appendices B and F of
# {cite:p}`yang2025swingby`: multilayer perceptrons trained by SGD to learn the identity map on
# the *structured identity mapping* (SIM) task, and watched at an out-of-distribution test point
# that combines all training concepts. The paper's text calls the non-monotonic path of the
# output "Transient Memorization"; its published title calls it *Swing-by dynamics*, the name
# used here. The same phenomena were first seen in diffusion models
# {cite:p}`park2024emergence,okawa2023compositional`.
#
# Every training run below logs the model's output at the test point after **every** SGD step:
# much of the action happens inside the first epoch.

# %% tags=["parameters"]
# Defaults and meaning: lib/specs/sim_observations.py (SimObservationsParameters). Change them with
# `python -m lib run sim_observations -p NAME VALUE`; the runner fills this cell.

# %% tags=["remove-cell"]
from lib.book import start_chapter

run = start_chapter("sim_observations", globals())
P = run.params

# %% tags=["remove-cell"]
import matplotlib.pyplot as plt
import numpy as np
import torch

from lib.sim import metrics as M
from lib.sim.data import sim_dataset
from lib.sim.models import MLPShape
from lib.sim.plots import plot_curves, plot_hypercube, plot_task, plot_trajectories
from lib.sim.train import train_datasets

SEEDS = [P.seed + i for i in range(P.seeds)]
SGD = dict(batch=P.batch, loss=P.loss, stop_tol=P.stop_tol)


def datasets(mus, sigmas, dim, seeds, rotate=P.rotate, **kw):
    """One SIM data set per (mu, sigma) pair and seed, with the chapter's conventions."""
    return [sim_dataset(m, s, dim, P.n, sigma_is_variance=P.sigma_is_variance, origin_cluster=P.origin_cluster,
                        rotate=rotate, seed=k, **kw) for m, s in zip(mus, sigmas) for k in seeds]


def target(ds):
    """The test point x_hat in concept coordinates."""
    return ds.to_concept(ds.test_point)


# %% [markdown]
# ## The task
#
# Cluster $p \in [s]$ of the training set is $\mathcal N(\mu_p \mathbf 1_p, \operatorname{diag}(\boldsymbol\sigma)^2)$,
# $n$ points each, and the model $f$ is trained on the identity map with the squared error
#
# $$ \mathcal L(\theta) = \frac{1}{2sn}\sum_{p=1}^s\sum_{k=1}^n \big\| f(\theta; x_k^{(p)}) - x_k^{(p)} \big\|^2 . $$ (eq-sim-loss)
#
# The model is evaluated at $\hat x = \sum_p \mu_p \mathbf 1_p$, a point no training cluster
# covers. By default, following the authors' code, the data include a cluster at the origin, the
# input space is randomly rotated, $\sigma$ is read as a *variance*, and the loss is PyTorch's
# `MSELoss`, i.e. {eq}`eq-sim-loss` times $2/d$ (see the reproduction notes).
# A reviewer asked how much training density sits at $\hat x$: {numref}`fig-sim-task` draws it.

# %%
base = datasets([P.mu], [P.sigma], P.d, SEEDS[:1])[0]
wide = datasets([P.mu], [[max(P.sigma1_values), P.sigma[1]]], P.d, SEEDS[:1])[0]
run.metric("density_ratio_at_test", M.density_ratio_at_test(base, P.origin_cluster))
run.metric("density_ratio_at_test_wide", M.density_ratio_at_test(wide, P.origin_cluster))
radius = P.truncate_fraction * min(P.mu)
run.metric("train_fraction_near_test", M.fraction_near_test(base, radius))

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
plot_task(axes[0], base, P.origin_cluster, points=1500)
plot_task(axes[1], wide, P.origin_cluster)
axes[0].set_title(f"mu={P.mu}, sigma={P.sigma}")
axes[1].set_title(f"sigma_1={max(P.sigma1_values)} (Fig. 2b's widest)")
axes[0].legend(fontsize=7, loc="lower right")
run.figure("fig_sim_task", fig)

# %% [markdown]
# ```{glue:figure} fig_sim_task
# :name: fig-sim-task
# The SIM task with $s=2$ in the concept plane: training density (log scale), cluster means
# (circles) and the OOD test point (star). Left: the setting of Fig. 2c, with training points drawn
# (Fig. 15). Right: the widest cluster of Fig. 2b.
# ```
#
# At the test point the training density is a fraction {glue:text}`density_ratio_at_test:.2e` of
# its value at the strongest cluster's mean, and a fraction {glue:text}`train_fraction_near_test:.4f`
# of the training points lies within $\min_p \mu_p / 2$ of $\hat x$. For the widest cluster of
# Fig. 2b the ratio is {glue:text}`density_ratio_at_test_wide:.3f`: that setting is in-distribution,
# as the authors conceded in the review.
#
# ## Generalization order and terminal slow-down (Fig. 2a, 2b, 11, 12)
#
# The protocol of App. F.1: $d$ = {glue:text}`P_d`, hidden width {glue:text}`P_width`, SGD with
# batch {glue:text}`P_batch` and learning rate {glue:text}`P_lr` for {glue:text}`P_epochs` epochs
# (the paper trains 40), PyTorch's default initialization. Fig. 2a varies $\mu_1$ at fixed small
# $\sigma$; Fig. 2b varies $\sigma_1$ at $\mu = (1, 2)$. All configurations of one model shape
# train as **one** batched computation (stacked weights, one data stream per model). A concept
# is "learned first" if it is ahead, as a fraction of its way from the initial output to $\mu_k$,
# when the mean of the two fractions reaches 1/2.

# %% tags=["remove-cell"]
for name in ("d", "width", "batch", "lr", "epochs"):
    run.text(f"P_{name}", f"{getattr(P, name):g}")
configs = [([m1, P.mu[1]], P.sigma) for m1 in P.mu1_values] + [(P.mu, [s1, P.sigma[1]]) for s1 in P.sigma1_values]
ORDER_SEEDS = [P.seed + i for i in range(P.order_seeds)]


def shape_of(model: str, dim: int, width: int) -> MLPShape:
    layers, act = model.split("-")
    return MLPShape(dim, width, int(layers), act, P.bias)


# %%
order, data = {}, datasets(*zip(*configs), P.d, ORDER_SEEDS)
for model in P.order_models:
    traj, y = train_datasets(shape_of(model, P.d, P.width), data, ORDER_SEEDS * len(configs),
                             lr=P.lr, epochs=P.epochs, **SGD)
    order[model] = (traj, y[:, :, 0], data)

# %% tags=["remove-cell"]
def order_verdicts(y, data):
    """Concept learned first per run (configs x seeds); stronger-signal-first over Fig. 2a, more-diverse-first at the largest sigma_1."""
    first = np.array([M.learned_first(y[:, i], ds.mu) for i, ds in enumerate(data)]).reshape(len(configs), -1)
    fig2a = [(f, np.asarray(m)) for f, (m, _) in zip(first[: len(P.mu1_values)], configs) if m[0] != m[1]]
    strong = all(np.all(f == np.argmax(m)) for f, m in fig2a)
    widest = len(P.mu1_values) + int(np.argmax(P.sigma1_values))
    diverse = bool(np.all(first[widest] == np.argmax(data[widest * len(ORDER_SEEDS)].std)))
    return strong, diverse, (first + 1).ravel().tolist()


for model, (traj, y, data) in order.items():
    strong, diverse, first = order_verdicts(y, data)
    key = "" if model == "1-linear" else "_" + model.replace("-", "_")
    run.metric("stronger_signal_first" + key, strong)
    run.metric("more_diverse_first" + key, diverse)
    run.metric("concept_learned_first" + key, first)

# %% tags=["hide-input"]
for model, (traj, y, data) in order.items():
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), layout="constrained")
    n2a = len(P.mu1_values) * len(ORDER_SEEDS)
    plot_trajectories(axes[0], [y[:, i] for i in range(n2a)], [f"mu={ds.mu.tolist()}" for ds in data[:n2a]],
                      [target(ds) for ds in data[:n2a]])
    plot_trajectories(axes[1], [y[:, i] for i in range(n2a, len(data))],
                      [f"sigma_1={s1}" for s1 in P.sigma1_values for _ in ORDER_SEEDS], [target(ds) for ds in data[n2a:]])
    axes[0].set_title(f"{model}: mu_1 varied")
    axes[1].set_title(f"{model}: sigma_1 varied")
    run.figure("fig_order_" + model.replace("-", "_"), fig)

# %% [markdown]
# ```{glue:figure} fig_order_1_linear
# :name: fig-order-1-linear
# Fig. 2a/2b: output trajectories of one-layer linear models in the concept plane, markers at
# equal time intervals, stars at the test points. Left: $\mu_1$ varied, $\sigma$ small.
# Right: $\mu = (1,2)$, $\sigma_1$ varied.
# ```
#
# ```{glue:figure} fig_order_2_linear
# :name: fig-order-2-linear
# Fig. 11: the same with two-layer linear models.
# ```
#
# ```{glue:figure} fig_order_2_relu
# :name: fig-order-2-relu
# Fig. 12: the same with two-layer ReLU models.
# ```
#
# In {numref}`fig-order-1-linear`, the concept learned first (1 or 2, one entry per run, Fig. 2a
# runs then Fig. 2b runs) is {glue:text}`concept_learned_first`: the stronger signal leads
# (`stronger_signal_first` = {glue:text}`stronger_signal_first`), and at the largest $\sigma_1$
# the weaker but more diverse concept 1 leads (`more_diverse_first` = {glue:text}`more_diverse_first`).
# With two layers ({numref}`fig-order-2-linear`, {numref}`fig-order-2-relu`) the verdicts are
# {glue:text}`stronger_signal_first_2_linear` / {glue:text}`more_diverse_first_2_linear` (linear)
# and {glue:text}`stronger_signal_first_2_relu` / {glue:text}`more_diverse_first_2_relu` (ReLU).
#
# **Terminal slow-down (Section 3.2).** We count the SGD steps the output needs to close the
# first tenth of its initial distance to $\hat x$, and the steps from 20 % to 10 % of it: the
# same distance, at the end.

# %%
y1, data1 = order["1-linear"][1:] if "1-linear" in order else next(iter(order.values()))[1:]
ratios = [M.terminal_slowdown(y1[:, i], target(ds)) for i, ds in enumerate(data1)]
run.metric("terminal_slowdown_ratios", ratios)
run.metric("terminal_slowdown_ratio", float(np.nanmedian(ratios)) if np.isfinite(ratios).any() else float("nan"))
run.metric("exponential_slowdown_ratio", float(np.log(2) / np.log(10 / 9)))

# %% [markdown]
# The median ratio over the one-layer runs is {glue:text}`terminal_slowdown_ratio:.1f`: the
# last tenth takes that many times longer than the first. Part of this is no more than
# exponential convergence: a pure exponential relaxation $e^{-\lambda t}$ already gives
# $\ln 2/\ln(10/9)$ = {glue:text}`exponential_slowdown_ratio:.2f`. Theorem 4.1 (next chapter)
# makes the one-layer dynamics a sum of such exponentials with rates set by $a_p$, so the
# slow-down is the slowest rate taking over.
#
# ## Deep models, low and high dimension: the Swing-by detour (Fig. 2c, 3, 15, 16)
#
# A {glue:text}`P_depth`-layer {glue:text}`P_activation` model, $\mu$ = {glue:text}`P_mu`,
# $\sigma$ = {glue:text}`P_sigma`, in $d$ = {glue:text}`P_d` and in $d$ = {glue:text}`P_lowdim_d`
# (hidden width {glue:text}`P_lowdim_width` and learning rate {glue:text}`P_lowdim_lr` there,
# as in the authors' code), {glue:text}`P_seeds` seeds each. The high-dimensional runs train
# together with their twins on the truncated distribution of Fig. 16 (every training point
# within $\min_p\mu_p/2$ of $\hat x$ resampled; same seed, so same initialization and order).

# %% tags=["remove-cell"]
for name in ("depth", "activation", "mu", "sigma", "lowdim_d", "lowdim_width", "lowdim_lr", "seeds"):
    run.text(f"P_{name}", str(getattr(P, name)))

# %%
high = datasets([P.mu], [P.sigma], P.d, SEEDS)
trunc = datasets([P.mu], [P.sigma], P.d, SEEDS, truncate_radius=radius) if P.truncate else []
traj_h, y_h = train_datasets(MLPShape(P.d, P.width, P.depth, P.activation, P.bias), high + trunc,
                             SEEDS * (1 + P.truncate), lr=P.lr, epochs=P.epochs, **SGD)
low = datasets([P.mu], [P.sigma], P.lowdim_d, SEEDS)
traj_l, y_l = train_datasets(MLPShape(P.lowdim_d, P.lowdim_width, P.depth, P.activation, P.bias), low, SEEDS,
                             lr=P.lowdim_lr, epochs=P.epochs, **SGD)

# %% [markdown]
# The detour is the distance, within the concept plane, of the output from the straight segment
# between its initial position and $\hat x$ (relative to $\|\hat x\|$); we also record its
# component toward the strongest training cluster and, in high dimension, the output's size
# outside the concept plane. A run's OOD loss $\tfrac12\|f(\hat x)-\hat x\|^2$ "rises" if it climbs
# above its running minimum by more than {glue:text}`P_rise_tol` of its initial value.

# %% tags=["remove-cell"]
run.text("P_rise_tol", str(P.rise_tol))


def summarize(y, data, prefix):
    """Per-seed detour and loss rise of runs y (T, M, d) -> chapter metrics."""
    det = [M.detour(y[:, i], ds.mu) for i, ds in enumerate(data)]
    rise = [M.loss_rise(M.ood_loss(y[:, i], target(ds))) for i, ds in enumerate(data)]
    run.metric(f"{prefix}_detours", [float(t["in_plane"].max()) for t in det])
    run.metric(f"{prefix}_detour", float(np.median([t["in_plane"].max() for t in det])))
    run.metric(f"{prefix}_detour_max", float(np.max([t["in_plane"].max() for t in det])))
    run.metric(f"{prefix}_detour_toward", float(np.median([t["toward"][t["in_plane"].argmax()] for t in det])))
    run.metric(f"{prefix}_loss_rises", rise)
    run.metric(f"{prefix}_loss_rise_fraction", float(np.mean(np.array(rise) > P.rise_tol)))
    for name in ("detours", "loss_rises"):
        run.text(f"{prefix}_{name}_text", ", ".join(f"{v:.3f}" for v in run.metrics[f"{prefix}_{name}"]))
    return det


# %%
det_h = summarize(y_h[:, : P.seeds, 0], high, "highdim")
det_l = summarize(y_l[:, :, 0], low, "lowdim")
run.metric("highdim_out_of_plane_at_detour", float(np.median([t["out_of_plane"][t["in_plane"].argmax()] for t in det_h])))
run.metric("detour_ratio_low_high", run.metrics["lowdim_detour"] / run.metrics["highdim_detour"])
run.text("detour_verdict", "larger in low dimension, as in Fig. 2c" if run.metrics["detour_ratio_low_high"] > 1 else
         "not larger in low dimension: unlike the paper's Fig. 2c, the high-dimensional deep model swings toward "
         "the strongest cluster at least as far as the low-dimensional one")
low_only = run.metrics["lowdim_loss_rise_fraction"] > 0 and run.metrics["highdim_loss_rise_fraction"] == 0
run.text("rise_verdict", "the non-monotonic OOD loss of Fig. 3 appears in low dimension only, as the paper says" if low_only
         else "the split between low and high dimension that the paper reports is not seen here")
same = [i for i, c in enumerate(configs) if c == (P.mu, P.sigma)]
if "1-linear" in order and same:
    run.metric("onelayer_detour", float(M.detour(order["1-linear"][1][:, same[0] * P.order_seeds], P.mu)["in_plane"].max()))

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
plot_trajectories(axes[0], [y_h[:, i, 0] for i in range(P.seeds)] + [y_l[:, i, 0] for i in range(P.seeds)],
                  [f"high dim, seed {k}" for k in SEEDS] + [f"low dim, seed {k}" for k in SEEDS],
                  [target(ds) for ds in high + low])
plot_curves(axes[1], [M.ood_loss(y_h[:, i, 0], target(ds)) for i, ds in enumerate(high)]
            + [M.ood_loss(y_l[:, i, 0], target(ds)) for i, ds in enumerate(low)],
            [f"high dim, seed {k}" for k in SEEDS] + [f"low dim, seed {k}" for k in SEEDS],
            traj_h.steps_per_epoch, "OOD loss")
run.figure("fig_deep", fig)

# %% [markdown]
# ```{glue:figure} fig_deep
# :name: fig-deep
# Fig. 2c and Fig. 3: output trajectories (left) and OOD loss (right) of the deep
# models in high and low dimension. The epoch axis of the low-dimensional runs is that of the
# high-dimensional data set (same number of points, same steps per epoch).
# ```
#
# In {numref}`fig-deep` the median detour is {glue:text}`highdim_detour:.3f` in high dimension
# and {glue:text}`lowdim_detour:.3f` in low dimension (per seed: {glue:text}`highdim_detours_text`
# and {glue:text}`lowdim_detours_text`), a ratio of {glue:text}`detour_ratio_low_high:.2f`; the
# component toward the strongest cluster is {glue:text}`highdim_detour_toward:.3f` and
# {glue:text}`lowdim_detour_toward:.3f`; at the farthest point of its detour the high-dimensional
# output is still {glue:text}`highdim_out_of_plane_at_detour:.3f` $\|\hat x\|$ out of the concept
# plane (initialization noise in the $d - s$ non-informative directions, decaying). For
# comparison, the one-layer linear model of {numref}`fig-order-1-linear` in the same setting
# bulges by {glue:text}`onelayer_detour:.3f`. The detour is therefore {glue:text}`detour_verdict`. The low-dimensional detours spread much
# more across seeds: the largest is {glue:text}`lowdim_detour_max:.3f`, against
# {glue:text}`highdim_detour_max:.3f` in high dimension, so a median over a few seeds can fall
# on either side (see the reproduction notes).
#
# The OOD loss rises in a fraction {glue:text}`lowdim_loss_rise_fraction:.2f` of the
# low-dimensional seeds (relative rises {glue:text}`lowdim_loss_rises_text`) and in a fraction
# {glue:text}`highdim_loss_rise_fraction:.2f` of the high-dimensional ones
# ({glue:text}`highdim_loss_rises_text`): {glue:text}`rise_verdict`.
#
# ### Training points and truncation (Fig. 15, 16)

# %%
if P.truncate:
    dev = np.linalg.norm(y_h[:, P.seeds:, 0] - y_h[:, : P.seeds, 0], axis=-1) / np.linalg.norm(P.mu)
    run.metric("truncated_vs_full_max_dev", float(dev.max()))
    run.text("truncation_verdict", "the dynamics barely change, as the paper reports" if dev.max() < 0.1
             else "the dynamics change visibly, unlike the paper's report")
    run.metric("truncated_fraction", float(np.mean([M.fraction_near_test(ds, radius) for ds in high])))

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
plot_task(axes[0], high[0], P.origin_cluster, points=1500)
axes[0].plot(y_h[:, 0, 0, 0], y_h[:, 0, 0, 1], color="tab:orange", label="output trajectory")
axes[0].legend(fontsize=7, loc="lower right")
if P.truncate:
    plot_trajectories(axes[1], [y_h[:, 0, 0], y_h[:, P.seeds, 0]], ["full", "truncated"], [target(high[0])] * 2)
run.figure("fig_truncation", fig)

# %% [markdown]
# ```{glue:figure} fig_truncation
# :name: fig-truncation
# Left, Fig. 15: the high-dimensional trajectory of the first seed over its training points
# (concept plane). Right, Fig. 16: the same run trained on the truncated distribution.
# ```
#
# Truncation resamples a fraction {glue:text}`truncated_fraction:.4f` of the training points,
# and the output moves by at most {glue:text}`truncated_vs_full_max_dev:.3f` $\|\hat x\|$ at any
# step ({numref}`fig-truncation`): {glue:text}`truncation_verdict`.
#
# ## Three layers, three hidden units, $d = 3$ (Fig. 13, 14)
#
# No rotation, learning rate {glue:text}`P_lowdim_lr`, $\mu$ = {glue:text}`P_mu` and
# $\mu$ = {glue:text}`P_tiny_mu_large`.

# %%
run.text("P_tiny_mu_large", str(P.tiny_mu_large))
tiny = datasets([P.mu, P.tiny_mu_large], [P.sigma] * 2, P.tiny_d, SEEDS, rotate=False)
traj_t, y_t = train_datasets(MLPShape(P.tiny_d, P.tiny_width, P.tiny_depth, "linear", P.bias), tiny, SEEDS * 2,
                             lr=P.lowdim_lr, epochs=P.epochs, **SGD)
det_t = summarize(y_t[:, :, 0], tiny, "tiny")

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
labels = [f"mu={ds.mu.tolist()}, seed {k}" for ds, k in zip(tiny, SEEDS * 2)]
plot_trajectories(axes[0], [y_t[:, i, 0] for i in range(len(tiny))], labels, [target(ds) for ds in tiny])
plot_curves(axes[1], [M.ood_loss(y_t[:, i, 0], target(ds)) for i, ds in enumerate(tiny)], labels,
            traj_t.steps_per_epoch, "OOD loss")
run.figure("fig_tiny", fig)

# %% [markdown]
# ```{glue:figure} fig_tiny
# :name: fig-tiny
# Fig. 13 (left) and Fig. 14 (right): three-layer linear models with three hidden units in $d=3$.
# ```
#
# The OOD loss rises in a fraction {glue:text}`tiny_loss_rise_fraction:.2f` of these runs
# (relative rises {glue:text}`tiny_loss_rises_text`), with median detour {glue:text}`tiny_detour:.3f`.
#
# ## Topologically constrained order (App. B, Fig. 7)
#
# With $s$ concepts, the $2^s$ test points $\hat x^{(v)} = \sum_p v_p \mu_p \mathbf 1_p$,
# $v \in \{0,1\}^s$, are partially ordered by $u \le v$ componentwise. The paper observes that
# the loss is an order homomorphism,
#
# $$ u \le v \implies \ell\big(\hat x^{(u)}\big) \le \ell\big(\hat x^{(v)}\big), $$ (eq-b2)
#
# for a {glue:text}`P_topo_depth`-layer {glue:text}`P_topo_activation` MLP with
# $\mu$ = {glue:text}`P_topo_mu`, $\sigma$ = {glue:text}`P_topo_sigma`. We log all $2^s$ losses
# at every step of {glue:text}`P_topo_epochs` epochs and count, over steps and comparable pairs,
# the violations of {eq}`eq-b2`; and, in the paper's words "learned only after all of its
# predecessors", the pairs where $v$'s loss falls below {glue:text}`P_topo_learned` before $u$'s.

# %% tags=["remove-cell"]
for name in ("topo_depth", "topo_activation", "topo_mu", "topo_sigma", "topo_epochs", "topo_learned"):
    run.text(f"P_{name}", str(getattr(P, name)))

# %%
topo = [sim_dataset(P.topo_mu, P.topo_sigma, P.d, P.n, sigma_is_variance=P.sigma_is_variance,
                    origin_cluster=P.origin_cluster, rotate=P.rotate, seed=k) for k in SEEDS]
traj_c, y_c = train_datasets(MLPShape(P.d, P.width, P.topo_depth, P.topo_activation, P.bias), topo, SEEDS,
                             combos=True, lr=P.lr, epochs=P.topo_epochs, **SGD)
losses = [M.ood_loss(y_c[:, i], ds.to_concept(ds.combo_points)) for i, ds in enumerate(topo)]
violations = [M.order_violations(L, ds.combos, P.topo_tol) for L, ds in zip(losses, topo)]
run.metric("topological_violations", int(sum(v.sum() for v in violations)))
run.metric("topological_violation_step_fraction", float(np.mean([np.mean(v > 0) for v in violations])))
run.metric("learning_order_violations", sum(M.learning_order_violations(L, ds.combos, P.topo_learned)
                                            for L, ds in zip(losses, topo)))
# the same counts without the origin 0...0 (combos[0]), a training cluster when origin_cluster is set
run.metric("topological_violations_without_origin", int(sum(M.order_violations(L[:, 1:], ds.combos[1:], P.topo_tol).sum()
                                                            for L, ds in zip(losses, topo))))
run.metric("max_violation_without_origin", max(M.max_order_violation(L[:, 1:], ds.combos[1:]) for L, ds in zip(losses, topo)))
run.metric("learning_order_violations_without_origin", sum(M.learning_order_violations(L[:, 1:], ds.combos[1:], P.topo_learned)
                                                           for L, ds in zip(losses, topo)))

# %% tags=["hide-input"]
snap = [min(int(round(e * traj_c.steps_per_epoch)), len(losses[0]) - 1) for e in P.topo_snapshots]
run.metric("topological_violations_at_snapshots", [int(violations[0][t]) for t in snap])
fig, axes = plt.subplots(1, len(snap), figsize=(3.4 * len(snap), 3.2), layout="constrained")
for ax, t, e in zip(np.atleast_1d(axes), snap, P.topo_snapshots):
    nodes = plot_hypercube(ax, losses[0][t], topo[0].combos)
    ax.set_title(f"epoch {e:g}")
fig.colorbar(nodes, ax=axes, label="loss (clipped at 1)")
run.figure("fig_hypercube", fig)

# %% [markdown]
# ```{glue:figure} fig_hypercube
# :name: fig-hypercube
# Fig. 7: loss at the $2^s$ combination points (first seed), nodes laid out left to right by
# number of concepts combined, edges between points one concept apart; colour clipped at 1.
# ```
#
# Over all steps and seeds, {eq}`eq-b2` is violated {glue:text}`topological_violations` times
# (at a fraction {glue:text}`topological_violation_step_fraction:.3f` of the logged steps; at the
# snapshots of {numref}`fig-hypercube`: {glue:text}`topological_violations_at_snapshots`), and
# the learning order is violated by {glue:text}`learning_order_violations` pairs. Leaving out the
# origin $0\cdots0$, which is itself a training cluster here and is fitted after the strongest
# clusters, the counts are {glue:text}`topological_violations_without_origin` and
# {glue:text}`learning_order_violations_without_origin`, and the largest amount by which a loss
# exceeds that of a point above it is {glue:text}`max_violation_without_origin:.3f` (the paper's
# colour scale runs from 0 to 1).
#
# ## Claims

# %%
# NBVAL_CHECK_OUTPUT
run.headline("stronger_signal_first", "more_diverse_first", "terminal_slowdown_ratio", "lowdim_detour",
             "highdim_detour", "lowdim_loss_rise_fraction", "topological_violations", "truncated_vs_full_max_dev",
             digits=2)

# %%
run.claims_table()
