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

# %% [markdown]
# ```{glue:md} chapter_summary
# :format: myst
# ```

# %% tags=["remove-cell"]
from lib.book.run.notebook import guard_parameters, start_chapter

guard_parameters("sim_observations")  # papermill pastes -p names as code: refuse all but NAME = value of declared parameters

# %% tags=["parameters", "hide-input"]
# Generated from lib/book/chapters/sim_observations.py by `python -m lib params` (do not edit here). Rerun with
# `python -m lib run sim_observations -p NAME VALUE` or `papermill IN.ipynb OUT.ipynb -p NAME VALUE`.
d = 64  # type: int  input dimension of the high-dimensional runs (paper: 64)
width = 64  # type: int  hidden width of the MLPs (paper: 64)
n = 5000  # type: int  training points per cluster (paper: 5000)
batch = 128  # type: int  SGD minibatch size (paper: 128)
lr = 0.1  # type: float  SGD learning rate (paper: 0.1)
epochs = 25.0  # type: float  training epochs of every run but App. B (paper: 40)
loss = 'mse'  # type: str  loss scale: 'mse' ≡ PyTorch MSELoss as in the authors' code, 'half_sum' ≡ the paper's eq. (2.1)
rotate = True  # type: bool  random rotation of the input space (App. F.1, authors' code)
bias = True  # type: bool  linear layers with bias (authors' code: nn.Linear default)
origin_cluster = True  # type: bool  add a training cluster at the origin (authors' code)
sigma_is_variance = True  # type: bool  read sigma as a variance (authors' code) instead of a standard deviation (paper text)
seed = 0  # type: int  first seed; run i uses seed + i for data, init and shuffling
seeds = 3  # type: int  seeds of the figures of the deep and tiny runs (the claims rest on the evidence sets)
stop_tol = 0.01  # type: float|None  stop a batched run once every output is within stop_tol * ||x_hat|| of its target (below 1/2: a looser tolerance stops runs whose output for x_hat is still nearer the origin than x_hat)
mu = [1.0, 2.0]  # type: list[float]  cluster means (mu_1, mu_2) of Fig. 2b, 2c, 3, 15, 16
sigma = [0.05, 0.05]  # type: list[float]  cluster spreads (sigma_1, sigma_2) of Fig. 2a, 2c, 3, 13-16
mu1_values = [1.0, 2.0, 3.0]  # type: list[float]  Fig. 2a: values of mu_1 (mu_2 ≡ mu[1])
sigma1_values = [0.05, 0.1, 0.5, 1.0, 2.0]  # type: list[float]  Fig. 2b: values of sigma_1 (sigma_2 ≡ sigma[1])
order_models = ['1-linear', '2-linear', '2-relu']  # type: list[str]  models of the order sweeps, 'depth-activation' (Fig. 2a/b: 1-linear, Fig. 11: 2-linear, Fig. 12: 2-relu)
order_seeds = 1  # type: int  seeds per configuration of the order sweeps
depth = 4  # type: int  layers of the Fig. 2c models (paper: 4)
activation = 'linear'  # type: str  activation of the Fig. 2c models (paper: linear)
lowdim_d = 2  # type: int  input dimension of the low-dimensional run (paper: 2)
lowdim_width = 4  # type: int  hidden width of the low-dimensional run (authors' code: 4)
lowdim_lr = 0.01  # type: float  learning rate of the low-dimensional and Fig. 13 runs (authors' code: 0.01)
truncate_fraction = 0.5  # type: float  truncation radius as a fraction of min(mu) (paper: 1/2)
rise_tol = 0.01  # type: float  a loss rise counts if it exceeds this fraction of the initial OOD loss
tiny_mu_large = [2.0, 4.0]  # type: list[float]  Fig. 13/14 'large mu' setting (the small one is mu)
tiny_d = 3  # type: int  input dimension of Fig. 13 (paper: 3)
tiny_width = 3  # type: int  hidden width of Fig. 13 (paper: 3)
tiny_depth = 3  # type: int  layers of Fig. 13 (paper: 3)
topo_mu = [1.0, 2.0, 3.0, 4.0]  # type: list[float]  App. B cluster means (paper: 1, 2, 3, 4)
topo_sigma = [0.5, 0.5, 0.5, 0.5]  # type: list[float]  App. B cluster spreads (paper: 1/2 each)
topo_depth = 2  # type: int  App. B layers (paper: 2)
topo_activation = 'relu'  # type: str  App. B activation (paper: ReLU)
topo_epochs = 5.0  # type: float  App. B training epochs
topo_snapshots = [1.0, 3.0, 5.0]  # type: list[float]  epochs drawn in Fig. 7 (paper: 1, 3, 5)
topo_visible_tol = 0.05  # type: float  a violation l(u) - l(v) of the paper's eq. (B.2) is visible in its Fig. 7 (colour scale 0..1) above this

# %% tags=["remove-cell"]
run = start_chapter("sim_observations", globals())  # names, values, joint rules and cost, as `lib run`: stops here if bad
P = run.params

# %% tags=["remove-cell"]
from functools import partial

import matplotlib.pyplot as plt
import numpy as np

from lib.sim import metrics as M
from lib.sim.data import sim_dataset
from lib.sim.models import MLPShape, end_to_end_rms
from lib.sim.observations import concept_test_point, mlp_shape, sim_datasets, swing_cell, train_concept_runs
from lib.sim.order import more_diverse_first, stronger_signal_first
from lib.sim.plots import plot_curves, plot_estimates, plot_hypercube, plot_task, plot_trajectories
from lib.sim.sweeps import distance_over_swing, median_ratio, swing_estimates, topological_estimates, truncation_effect
from lib.sim.train import train_datasets
from lib.util.comparisons import count, location_ratio, proportion_difference
from lib.util.numbers import format_vector
from lib.util.stats import bootstrap_median, paired_difference

SEEDS = [P.seed + i for i in range(P.seeds)]
SGD = dict(batch=P.batch, loss=P.loss, stop_tol=P.stop_tol)
# one SIM data set per (mu, sigma) pair and seed, with the chapter's conventions
DATA = dict(n=P.n, sigma_is_variance=P.sigma_is_variance, origin_cluster=P.origin_cluster, rotate=P.rotate)
datasets = partial(sim_datasets, **DATA)


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

# %% tags=["remove-input"]
fig, axes = plt.subplots(2, 1, figsize=(5.6, 8.8), layout="constrained")
plot_task(axes[0], base, P.origin_cluster, points=1500)
plot_task(axes[1], wide, P.origin_cluster)
axes[0].set_title(rf"$\mu$ = {format_vector(P.mu)}, $\sigma$ = {format_vector(P.sigma)}")
axes[1].set_title(rf"$\sigma_1$ = {max(P.sigma1_values)} (the widest of the paper's Fig. 2b)")
axes[0].legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.17), ncols=2)  # below the axes, off the density
run.figure("fig_sim_task", fig)

# %% [markdown]
# ```{glue:figure} fig_sim_task
# :name: fig-sim-task
# The SIM task with $s=2$ in the concept plane: training density (log scale), cluster means
# (circles) and the OOD test point (star). Top: the setting of the paper's Fig. 2c, with training points
# drawn (the paper's Fig. 15). Bottom: the widest cluster of the paper's Fig. 2b.
#
# Code: {py:func}`lib.sim.observations.sim_datasets`, {py:func}`lib.sim.plots.plot_task` · evidence: none,
# computed live by the chapter.
# ```
#
# At the test point the training density is a fraction {glue:text}`density_ratio_at_test` of
# its value at the strongest cluster's mean, and a fraction {glue:text}`train_fraction_near_test`
# of the training points lies within $\min_p \mu_p / 2$ of $\hat x$. For the widest cluster of
# the paper's Fig. 2b the ratio is {glue:text}`density_ratio_at_test_wide`: that setting is in-distribution,
# as the authors conceded in the review.
#
# ## Generalization order and terminal slow-down (the paper's Figs. 2a, 2b, 11, 12)
#
# The protocol of the paper's App. F.1: $d$ = {glue:text}`param_d`, hidden width {glue:text}`param_width`, SGD with
# batch {glue:text}`param_batch` and learning rate {glue:text}`param_lr` for {glue:text}`param_epochs` epochs
# (the paper trains 40), PyTorch's default initialization. The paper's Fig. 2a varies $\mu_1$ at fixed small
# $\sigma$; the paper's Fig. 2b varies $\sigma_1$ at $\mu = (1, 2)$. All configurations of one model shape
# train as **one** batched computation (stacked weights, one data stream per model). A concept
# is "learned first" if it is ahead, as a fraction of its way from the initial output to $\mu_k$,
# when the mean of the two fractions reaches 1/2.

# %% tags=["remove-cell"]
configs = [([m1, P.mu[1]], P.sigma) for m1 in P.mu1_values] + [(P.mu, [s1, P.sigma[1]]) for s1 in P.sigma1_values]
ORDER_SEEDS = [P.seed + i for i in range(P.order_seeds)]


# %%
order, data = {}, datasets(*zip(*configs), P.d, ORDER_SEEDS)
for model in P.order_models:
    runs = run.stored(f"order_{model.replace('-', '_')}", train_concept_runs, mlp_shape(model, P.d, P.width, P.bias),
                      *zip(*configs), ORDER_SEEDS, ORDER_SEEDS * len(configs), data=DATA, lr=P.lr, epochs=P.epochs, **SGD)
    order[model] = (runs.plane, runs.distance, data)

# %% tags=["remove-cell"]
fig2a = len(P.mu1_values)
widest = fig2a + int(np.argmax(P.sigma1_values))  # the Fig. 2b setting with the largest sigma_1
for model, (y, _, data) in order.items():
    first = np.array([M.learned_first(y[:, i], ds.mu) for i, ds in enumerate(data)]).reshape(len(configs), -1)
    key = "" if model == "1-linear" else "_" + model.replace("-", "_")
    run.metric("stronger_signal_first" + key, stronger_signal_first(first[:fig2a], [m for m, _ in configs[:fig2a]]))
    run.metric("more_diverse_first" + key, more_diverse_first(first[widest], data[widest * len(ORDER_SEEDS)].std))
    run.metric("concept_learned_first" + key, (first + 1).ravel().tolist())
    run.text("concept_learned_first_text" + key, ", ".join(str(k) for k in (first + 1).ravel()))  # every run, uncut
for model in sorted({"1-linear", "2-linear", "2-relu"} - set(order)):  # the models S-2a/b, S-11, S-12 read
    key = "" if model == "1-linear" else "_" + model.replace("-", "_")
    for name in ("stronger_signal_first", "more_diverse_first", "concept_learned_first"):
        run.skip(name + key, f"{model} not in order_models")
    run.text("concept_learned_first_text" + key, "not computed")

# %% tags=["remove-input"]
for model, (y, _, data) in order.items():
    fig, axes = plt.subplots(2, 1, figsize=(6.4, 8.4), layout="constrained")
    n2a = len(P.mu1_values) * len(ORDER_SEEDS)
    plot_trajectories(axes[0], [y[:, i] for i in range(n2a)], [rf"$\mu$ = {format_vector(ds.mu)}" for ds in data[:n2a]],
                      [concept_test_point(ds) for ds in data[:n2a]])
    plot_trajectories(axes[1], [y[:, i] for i in range(n2a, len(data))],
                      [rf"$\sigma_1$ = {s1}" for s1 in P.sigma1_values for _ in ORDER_SEEDS], [concept_test_point(ds) for ds in data[n2a:]])
    model_name = f"{model.split('-')[0]}-layer {model.split('-')[1].replace('relu', 'ReLU')}"
    axes[0].set_title(rf"{model_name}: $\mu_1$ varied")
    axes[1].set_title(rf"{model_name}: $\sigma_1$ varied")
    run.figure("fig_order_" + model.replace("-", "_"), fig)

# %% [markdown]
# ```{glue:figure} fig_order_1_linear
# :name: fig-order-1-linear
# The paper's Fig. 2a/2b: output trajectories of one-layer linear models in the concept plane, markers at
# equal time intervals, stars at the test points. Top: $\mu_1$ varied, $\sigma$ small.
# Bottom: $\mu = (1,2)$, $\sigma_1$ varied. Conventions of the authors' code (this chapter's
# defaults): $\sigma$ read as a variance, PyTorch's `MSELoss` (a step of $2\eta/d$ on the paper's eq. 2.1),
# a training cluster at the origin. The chapter {ref}`chapter-one-layer` draws the same panels
# with the paper's conventions ($\sigma$ a standard deviation, the paper's eq. 2.1, no origin cluster) beside
# these, and states what changes: the signal strengths $a_k$, hence the speeds, but not which
# concept leads.
#
# Code: {py:func}`lib.sim.observations.train_concept_runs`, {py:func}`lib.sim.train.train_datasets`, {py:func}`lib.sim.metrics.learned_first`,
# {py:func}`lib.sim.plots.plot_trajectories` · evidence: none, computed live by the chapter.
# ```
#
# ```{glue:figure} fig_order_2_linear
# :name: fig-order-2-linear
# The paper's Fig. 11: the same with two-layer linear models.
#
# Code: {py:func}`lib.sim.observations.train_concept_runs`, {py:func}`lib.sim.train.train_datasets`, {py:func}`lib.sim.plots.plot_trajectories` · evidence: none,
# computed live by the chapter.
# ```
#
# ```{glue:figure} fig_order_2_relu
# :name: fig-order-2-relu
# The paper's Fig. 12: the same with two-layer ReLU models.
#
# Code: {py:func}`lib.sim.observations.train_concept_runs`, {py:func}`lib.sim.train.train_datasets`, {py:func}`lib.sim.plots.plot_trajectories` · evidence: none,
# computed live by the chapter.
# ```
#
# In {numref}`fig-order-1-linear`, the concept learned first (1 or 2, one entry per run, the paper's Fig. 2a
# runs then the paper's Fig. 2b runs) is {glue:text}`concept_learned_first_text`: the stronger signal leads
# (stronger signal first: {glue:text}`stronger_signal_first`), and at the largest $\sigma_1$
# the weaker but more diverse concept 1 leads (more diverse first: {glue:text}`more_diverse_first`).
# With two layers ({numref}`fig-order-2-linear`, {numref}`fig-order-2-relu`) the verdicts are
# {glue:text}`stronger_signal_first_2_linear` / {glue:text}`more_diverse_first_2_linear` (linear)
# and {glue:text}`stronger_signal_first_2_relu` / {glue:text}`more_diverse_first_2_relu` (ReLU).
#
# **Terminal slow-down (Section 3.2).** We count the SGD steps the output needs to close the
# first tenth of its initial distance to $\hat x$, and the steps from 20 % to 10 % of it: the
# same distance, at the end.

# %% tags=["remove-input"]
if "1-linear" in order:
    distance = order["1-linear"][1]  # ||f(x_hat) - x_hat|| per step and run
    ratios = [M.slowdown_ratio(distance[:, i]) for i in range(distance.shape[1])]
    run.metric("terminal_slowdown_ratios", ratios)
    run.metric("terminal_slowdown_ratio", float(np.nanmedian(ratios)) if np.isfinite(ratios).any() else float("nan"))
else:
    for name in ("terminal_slowdown_ratios", "terminal_slowdown_ratio"):
        run.skip(name, "1-linear not in order_models")
run.metric("exponential_slowdown_ratio", float(np.log(2) / np.log(10 / 9)))

# %% [markdown]
# The median ratio over the one-layer runs is {glue:text}`terminal_slowdown_ratio`: closing the distance
# from a fifth to a tenth of its start takes that many times longer than closing its first tenth. Part of this is
# no more than
# exponential convergence: a pure exponential relaxation $e^{-\lambda t}$ already gives
# $\ln 2/\ln(10/9)$ = {glue:text}`exponential_slowdown_ratio`. Theorem 4.1 (next chapter)
# makes the one-layer dynamics a sum of such exponentials with rates set by $a_p$, so the
# slow-down is the slowest rate taking over.
#
# ## Deep models, low and high dimension: the Swing-by (the paper's Figs. 2c, 3)
#
# A {glue:text}`param_depth`-layer {glue:text}`param_activation` model, $\mu$ = ({glue:text}`param_mu`),
# $\sigma$ = ({glue:text}`param_sigma`), in $d$ = {glue:text}`param_d` and in $d$ = {glue:text}`param_lowdim_d`
# (hidden width {glue:text}`param_lowdim_width` and learning rate {glue:text}`param_lowdim_lr` there,
# as in the authors' code). The figure shows this run's {glue:text}`param_seeds` seeds; the claims
# rest on the {ref}`stored runs <evidence-sim-observations-swing>` ({glue:text}`lowdim_turn_back_n` seeds per
# dimension, same protocol) and, for the initialization scale, on the
# {ref}`initialization-scale runs <evidence-sim-observations-init-scale>` (see below).
#
# The paper's output moves toward $\hat x$, turns toward the strongest training cluster
# $\mu_2 \mathbf 1_2$, then returns. What identifies the swing is the **turn-back**: how far a
# concept coordinate retreats from the largest value it has reached so far, in units of its target
# $\mu_k$ (counted only above its initial value, so that an offset of the initialization that decays
# is not a turn-back). The *bulge*, the largest distance of the output from the straight segment
# between its start and $\hat x$ (relative to $\|\hat x\|$), is kept as a secondary number: the
# ordinary bend of sequential learning makes it large even for a one-layer model, which cannot
# swing (next chapter). A run's OOD loss $\tfrac12\|f(\hat x)-\hat x\|^2$ "rises" if it climbs
# above its running minimum by more than {glue:text}`param_rise_tol` of its initial value.

# %% tags=["remove-input"]
high = datasets([P.mu], [P.sigma], P.d, SEEDS)
runs_h = run.stored("deep_high_dim", train_concept_runs, MLPShape(P.d, P.width, P.depth, P.activation, P.bias),
                    [P.mu], [P.sigma], SEEDS, SEEDS, data=DATA, lr=P.lr, epochs=P.epochs, **SGD)
low = datasets([P.mu], [P.sigma], P.lowdim_d, SEEDS)
runs_l = run.stored("deep_low_dim", train_concept_runs, MLPShape(P.lowdim_d, P.lowdim_width, P.depth, P.activation, P.bias),
                    [P.mu], [P.sigma], SEEDS, SEEDS, data=DATA, lr=P.lowdim_lr, epochs=P.epochs, **SGD)
run.metric("highdim_turn_backs", [float(M.turn_back(runs_h.plane[:, i], P.mu).max()) for i in range(P.seeds)])
run.metric("lowdim_turn_backs", [float(M.turn_back(runs_l.plane[:, i], P.mu).max()) for i in range(P.seeds)])
same = [i for i, c in enumerate(configs) if c == (P.mu, P.sigma)]
if "1-linear" in order and same:
    y_one = order["1-linear"][0][:, same[0] * P.order_seeds]
    run.metric("onelayer_detour", float(M.detour(y_one, P.mu)["in_plane"].max()))
    run.metric("onelayer_turn_back", float(M.turn_back(y_one, P.mu).max()))
else:
    for name in ("onelayer_detour", "onelayer_turn_back"):
        run.skip(name, "no 1-linear run at mu, sigma (order_models, mu1_values)")

# %% tags=["remove-input"]
fig, axes = plt.subplots(2, 1, figsize=(6.4, 8.0), layout="constrained")
plot_trajectories(axes[0], [runs_h.plane[:, i] for i in range(P.seeds)] + [runs_l.plane[:, i] for i in range(P.seeds)],
                  [f"high dim, seed {k}" for k in SEEDS] + [f"low dim, seed {k}" for k in SEEDS],
                  [concept_test_point(ds) for ds in high + low])
plot_curves(axes[1], [runs_h.ood_loss[:, i] for i in range(P.seeds)] + [runs_l.ood_loss[:, i] for i in range(P.seeds)],
            [f"high dim, seed {k}" for k in SEEDS] + [f"low dim, seed {k}" for k in SEEDS],
            runs_h.steps_per_epoch, "OOD loss")
run.figure("fig_deep", fig)

# %% [markdown]
# ```{glue:figure} fig_deep
# :name: fig-deep
# The paper's Figs. 2c and 3: output trajectories (top) and OOD loss (bottom) of the deep
# models in high and low dimension, this run's seeds (every seed the run has, none selected).
# The epoch axis of the low-dimensional runs is that of the high-dimensional data set (same
# number of points, same steps per epoch).
#
# Code: {py:func}`lib.sim.observations.train_concept_runs`, {py:func}`lib.sim.train.train_datasets`, {py:func}`lib.sim.metrics.ood_loss`,
# {py:func}`lib.sim.plots.plot_trajectories`, {py:func}`lib.sim.plots.plot_curves` · evidence: none, computed
# live by the chapter.
# ```
#
# In this run the largest turn-back per seed is {glue:text}`highdim_turn_backs` in high and
# {glue:text}`lowdim_turn_backs` in low dimension; the one-layer linear model of
# {numref}`fig-order-1-linear` in the same setting bulges by {glue:text}`onelayer_detour` and
# turns back by {glue:text}`onelayer_turn_back`.
#
# **Over seeds (evidence).** The evidence set trains {glue:text}`lowdim_turn_back_n` seeds per dimension with the same
# protocol (intervals: bootstrap of the median, Wilson for fractions; the ratio's interval
# resamples both dimensions).

# %% tags=["remove-input"]
ev = run.evidence("swing").data
pooled = partial(swing_cell, ev)  # per-seed arrays of one cell of the swing set, blocks concatenated


cells = {"lowdim": pooled("low"), "highdim": pooled("high")}
for name, c in cells.items():
    for key, est in swing_estimates(c["turn_back"], c["loss_rise"], c["bulge"], P.rise_tol, seed=P.seed).items():
        run.metric(f"{name}_{key}", est)
turn = {name: c["turn_back"].max(axis=1) for name, c in cells.items()}
run.metric("reversal_ratio_low_high", median_ratio(turn["lowdim"], turn["highdim"], seed=P.seed))
weak = int(np.argmin(ev.config["protocols"]["low"]["mu"]))  # the weaker concept: the one that swings (Sec. 3.3)
run.metric("reversal_ratio_low_high_weak", median_ratio(cells["lowdim"]["turn_back"][:, weak],
                                                        cells["highdim"]["turn_back"][:, weak], seed=P.seed))
# the control: d = 2 trained with the d = 64 protocol's width and learning rate, only the dimension differs
same = swing_cell(run.evidence("swing_same_width").data, "low_as_high")
for key, est in swing_estimates(same["turn_back"], same["loss_rise"], same["bulge"], P.rise_tol, seed=P.seed).items():
    run.metric(f"lowdim_same_width_{key}", est)
run.metric("reversal_ratio_same_width_weak", median_ratio(same["turn_back"][:, weak],
                                                          cells["highdim"]["turn_back"][:, weak], seed=P.seed))
run.metric("reversal_ratio_same_width", median_ratio(same["turn_back"].max(axis=1), turn["highdim"], seed=P.seed))
# the turn-back's statistic is a free choice of the analyst (the paper reads Fig. 2c by eye): mean and 90th percentile
for statistic, tag in (("mean", "mean"), ("90th percentile", "q90")):
    for name, low in (("low_high", cells["lowdim"]), ("same_width", same)):
        run.metric(f"reversal_ratio_{name}_weak_{tag}", location_ratio(
            low["turn_back"][:, weak], cells["highdim"]["turn_back"][:, weak], statistic, seed=P.seed))
# the paper's own measure (Fig. 3, Sec. 3.3): the OOD loss rises at d = 2 and not at d = 64
rises = {name: c["loss_rise"] > P.rise_tol for name, c in {**cells, "same_width": same}.items()}
for name, low in (("low_high", "lowdim"), ("same_width_high", "same_width")):
    run.metric(f"rise_fraction_difference_{name}", proportion_difference(
        int(rises[low].sum()), rises[low].size, int(rises["highdim"].sum()), rises["highdim"].size))
run.metric("bulge_ratio_low_high", median_ratio(cells["lowdim"]["bulge"], cells["highdim"]["bulge"], seed=P.seed))
run.metric("turn_back_concept1_highdim", bootstrap_median(cells["highdim"]["turn_back"][:, 0], seed=P.seed))

# %% [markdown]
# The median turn-back is {glue:text}`lowdim_turn_back` {glue:text}`lowdim_turn_back_ci` of $\mu_k$
# at $d = 2$ and {glue:text}`highdim_turn_back` {glue:text}`highdim_turn_back_ci` at $d = 64$
# ($n$ = {glue:text}`lowdim_turn_back_n` each), the larger of the two coordinates' turn-backs per
# seed. The claim is read on the weaker concept's coordinate, the one the paper's picture swings (the
# maximum also counts the stronger coordinate's retreat from an overshoot): its ratio, $d = 2$ over
# $d = 64$, is {glue:text}`reversal_ratio_low_high_weak` {glue:text}`reversal_ratio_low_high_weak_ci`,
# and {glue:text}`reversal_ratio_low_high` {glue:text}`reversal_ratio_low_high_ci` with the maximum
# (claim S-2c/turn-back: {glue:text}`verdict_s_2c_turn_back`). In high dimension the weaker
# concept's coordinate itself turns back by a median {glue:text}`turn_back_concept1_highdim`
# {glue:text}`turn_back_concept1_highdim_ci` of $\mu_1$. The OOD loss rises in a fraction
# {glue:text}`lowdim_rise_fraction` {glue:text}`lowdim_rise_fraction_ci` of the low-dimensional seeds
# (median rise {glue:text}`lowdim_loss_rise` {glue:text}`lowdim_loss_rise_ci` of the initial loss)
# and in {glue:text}`highdim_rise_fraction` {glue:text}`highdim_rise_fraction_ci` of the
# high-dimensional ones: a difference of {glue:text}`rise_fraction_difference_low_high`
# {glue:text}`rise_fraction_difference_low_high_ci`, the paper's own measure of the swing (Fig. 3:
# non-monotonic at $d = 2$, monotonic at $d = 64$; S-3/rise-low-vs-high: {glue:text}`verdict_s_3_rise_low_vs_high`).
# The book's bars on the two fractions ("most seeds", "almost none") are readings the paper does not set
# (S-3/low-dim: {glue:text}`verdict_s_3_low_dim`; S-3/high-dim: {glue:text}`verdict_s_3_high_dim`). The
# turn-back's statistic is a free choice too, since the paper reads Fig. 2c by eye and the $d = 2$ sample
# is bimodal: the ratio of means is {glue:text}`reversal_ratio_low_high_weak_mean`
# {glue:text}`reversal_ratio_low_high_weak_mean_ci`, of 90th percentiles
# {glue:text}`reversal_ratio_low_high_weak_q90` {glue:text}`reversal_ratio_low_high_weak_q90_ci`.
# The bulge, the paper's picture of the detour, has medians {glue:text}`lowdim_bulge` and
# {glue:text}`highdim_bulge`, a ratio {glue:text}`bulge_ratio_low_high` {glue:text}`bulge_ratio_low_high_ci`.
#
# The two cells differ in more than the dimension: the authors' $d = 2$ model has hidden width 4 and
# learning rate 0.01, the $d = 64$ one width 64 and learning rate 0.1. The
# {ref}`same-width runs <evidence-sim-observations-swing-same-width>` train {glue:text}`lowdim_same_width_turn_back_n` seeds at $d = 2$
# with the $d = 64$ protocol's width and learning rate: the weaker coordinate's turn-back ratio is then
# {glue:text}`reversal_ratio_same_width_weak` {glue:text}`reversal_ratio_same_width_weak_ci`
# ({glue:text}`verdict_s_2c_turn_back_same_width`), and the loss rises in
# {glue:text}`lowdim_same_width_rise_fraction` {glue:text}`lowdim_same_width_rise_fraction_ci` of the seeds
# ({glue:text}`verdict_s_3_low_dim_same_width`), {glue:text}`rise_fraction_difference_same_width_high`
# {glue:text}`rise_fraction_difference_same_width_high_ci` more than at $d = 64$
# (S-3/rise-same-width: {glue:text}`verdict_s_3_rise_same_width`).
#
# ### Initialization scale (the reviewers' question)
#
# The theory of Section 4 assumes a small initialization. The
# {ref}`initialization-scale runs <evidence-sim-observations-init-scale>` repeat both
# dimensions with PyTorch's default initialization multiplied by {glue:text}`init_scales_text`
# (same draws, scaled: the seeds are paired across scales), and trains for up to
# {glue:text}`init_scale_epochs` epochs with early stopping instead of 25: a smaller initialization
# leaves the saddle later, and a run cut off before it has learned would show only the start of its
# swing. The $x$ axis of
# {numref}`fig-init-scale` is the RMS entry of the initial end-to-end matrix $W_4 W_3 W_2 W_1$,
# the quantity that the two-layer chapter's init scale $\tau$ sets there (for $W = UU^\top$ with $d' \ge d$,
# $\tau^2\sqrt{d'(d'+d+1)/d}$: diagonal entries of mean $d'\tau^2$, the paper's App. E.2, and off-diagonal
# entries of spread $\tau^2\sqrt{d'}$): the two-layer theory's sweep over $\tau$ and this one can be read on one axis.

# %% tags=["remove-input"]
ev_init = run.evidence("init_scale").data
scales = sorted({shard.key["init_scale"] for shard in ev_init})
run.text("init_scales_text", ", ".join(f"{x:g}" for x in scales))
run.text("init_scale_epochs", f"{ev_init.config['protocols']['low']['epochs']:g}")
by_scale = {}
for name, protocol, width, dim in (("lowdim", "low", P.lowdim_width, P.lowdim_d), ("highdim", "high", P.width, P.d)):
    shape = MLPShape(dim, width, P.depth, P.activation, P.bias)
    rms = [end_to_end_rms(shape, SEEDS, x) for x in scales]
    cells_by_scale = {x: swing_cell(ev_init, protocol, x) for x in scales}
    ests = [swing_estimates(*(cells_by_scale[x][k] for k in ("turn_back", "loss_rise", "bulge")), P.rise_tol,
                            seed=P.seed) for x in scales]
    by_scale[name] = (rms, ests)
    run.metric(f"{name}_turn_back_by_init_scale", [e["turn_back"].as_dict() for e in ests])
    run.metric(f"{name}_rise_fraction_by_init_scale", [e["rise_fraction"].as_dict() for e in ests])
    for x, e in zip(scales, ests):
        run.metric(f"{name}_turn_back_init_{x:g}".replace(".", "_"), e["turn_back"])
        run.metric(f"{name}_rise_fraction_init_{x:g}".replace(".", "_"), e["rise_fraction"])
    small, default = (cells_by_scale[x]["turn_back"].max(axis=1) for x in (scales[0], 1.0))
    run.metric(f"{name}_turn_back_small_minus_default", paired_difference(small, default).estimate)
    final = cells_by_scale[scales[0]]["final_distance"]
    run.metric(f"{name}_final_distance_init_smallest", bootstrap_median(final, seed=P.seed))
    run.metric(f"{name}_final_distance_init_smallest_max", float(final.max()))
run.metric("init_scale_smallest", scales[0])
run.text("init_scale_seeds_text", str(len(cells_by_scale[scales[0]]["loss_rise"])))
reached = ev_init.config["protocols"]["low"]["stop_tol"]  # the set's runs stop within this of the test point
unlearned = [str(dim) for name, dim in (("lowdim", P.lowdim_d), ("highdim", P.d))
             if run.metrics[f"{name}_final_distance_init_smallest_max"] > reached]
run.prose("init_scale_unlearned_text", f"At $d$ = {' and '.join(unlearned)} some runs at the smallest "
         "scale had not reached the test point when their epochs ran out: their swing there may be cut short, and the "
         "verdicts below rest partly on them." if unlearned else "Every run reached the test point.")

# %% tags=["remove-input"]
fig, axes = plt.subplots(1, 2, figsize=(7.5, 3.6), layout="constrained")
for name, linestyle in (("lowdim", "-"), ("highdim", "--")):
    rms, ests = by_scale[name]
    label = f"d = {P.lowdim_d if name == 'lowdim' else P.d}"
    plot_estimates(axes[0], rms, [e["turn_back"] for e in ests], label, linestyle=linestyle)
    plot_estimates(axes[1], rms, [e["rise_fraction"] for e in ests], label, linestyle=linestyle)
for ax, ylabel in zip(axes, (r"median turn-back (units of $\mu_k$)", "fraction of seeds whose OOD loss rises")):
    ax.set(xscale="log", xlabel="RMS entry of the initial end-to-end matrix", ylabel=ylabel)
    ax.legend(fontsize=8)
run.figure("fig_init_scale", fig)

# %% [markdown]
# ```{glue:figure} fig_init_scale
# :name: fig-init-scale
# Swing-by against the initialization scale (evidence, {glue:text}`init_scale_seeds_text` seeds per point, 95 % intervals).
# Left: median turn-back; right: fraction of seeds whose OOD loss rises.
#
# Code: {py:func}`lib.sim.sweeps.swing_estimates`, {py:func}`lib.sim.models.end_to_end_rms`,
# {py:func}`lib.sim.plots.plot_estimates` · evidence:
# {ref}`sim_observations/init_scale <evidence-sim-observations-init-scale>`.
# ```
#
# Going from the default initialization to {glue:text}`init_scale_smallest` times it changes the
# turn-back by {glue:text}`lowdim_turn_back_small_minus_default` {glue:text}`lowdim_turn_back_small_minus_default_ci`
# at $d = 2$ and {glue:text}`highdim_turn_back_small_minus_default` {glue:text}`highdim_turn_back_small_minus_default_ci`
# at $d = 64$ (paired over seeds); the slowest runs at the smallest scale end within
# {glue:text}`lowdim_final_distance_init_smallest_max` and
# {glue:text}`highdim_final_distance_init_smallest_max` $\|\hat x\|$ of the test point.
# {glue:md}`init_scale_unlearned_text:myst` Whether
# the regime the theory assumes swings more (claim S-2c/small-init): {glue:text}`verdict_s_2c_small_init`.
#
# ### Training points and truncation (the paper's Figs. 15, 16)
#
# The paper's App. F.3 resamples every training point within $\min_p\mu_p/2$ of $\hat x$. At this chapter's
# setting that is a fraction {glue:text}`truncated_fraction` of the points: the mean and second
# moment of the data, which are all that a linear network of any depth sees of them, move by
# {glue:text}`radius_mean_shift` and {glue:text}`radius_second_moment_shift` (relative). The
# paper's check therefore cannot fail for the linear models of the paper's Fig. 16; it is a consistency check.
# The stronger version the authors describe in their rebuttal (their new Fig. 16) removes the training density in
# the orthant of $\hat x$ (every point whose concept coordinates are all positive: the half of each concept's
# cluster that faces $\hat x$, and a quarter of the cluster at the origin), which moves the mean by
# {glue:text}`orthant_mean_shift` $\|\hat x\|$. Both truncations train
# as twins of the full runs (same seeds, initialization and minibatch order), {glue:text}`truncation_seeds_text` seeds each.

# %% tags=["remove-input"]
cut_data = {t: datasets([P.mu], [P.sigma], P.d, SEEDS[:1], truncate_radius=radius if t == "radius" else None,
                        truncate_orthant=t == "orthant")[0] for t in ("radius", "orthant")}
run.metric("truncated_fraction", M.fraction_near_test(high[0], radius))
for t, ds in cut_data.items():
    for key, value in M.moment_shift(high[0], ds).items():
        run.metric(f"{t}_{key}", value)
for t in ("radius", "orthant"):
    full, cut = pooled("high", 1.0, t), pooled("high", 1.0, t, prefix="cut_")
    deviation = ev.concat("max_deviation", protocol="high", init_scale=1.0, truncation=t)
    for key, est in truncation_effect(full["turn_back"], cut["turn_back"], full["loss_rise"], cut["loss_rise"],
                                      deviation, seed=P.seed).items():
        run.metric(f"{t}_{key}", est)
    run.metric(f"{t}_turn_back", bootstrap_median(cut["turn_back"].max(axis=1), seed=P.seed))
    # the problem's own scale: the twins' distance against the swing of the full runs it would explain
    run.metric(f"{t}_full_turn_back", bootstrap_median(full["turn_back"].max(axis=1), seed=P.seed))
    run.metric(f"{t}_deviation_over_swing", distance_over_swing(deviation, full["turn_back"],
                                                                ev.config["protocols"]["high"]["mu"], seed=P.seed))
run.text("truncation_seeds_text", str(len(full["turn_back"])))
twin = ev.where(protocol="high", init_scale=1.0, truncation="orthant")[0]

# %% tags=["remove-input"]
fig, axes = plt.subplots(2, 1, figsize=(5.6, 8.8), layout="constrained")
plot_task(axes[0], high[0], P.origin_cluster, points=1500)
axes[0].plot(runs_h.plane[:, 0, 0], runs_h.plane[:, 0, 1], color="tab:orange", label="output trajectory")
axes[0].legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.17), ncols=2)  # below the axes, off the density
plot_trajectories(axes[1], [twin["outputs"][:, 0], twin["cut_outputs"][:, 0]],
                  ["full", "orthant removed"], [np.asarray(P.mu)] * 2)
run.figure("fig_truncation", fig)

# %% [markdown]
# ```{glue:figure} fig_truncation
# :name: fig-truncation
# Top, the paper's Fig. 15: the high-dimensional trajectory of the first seed over its training points
# (concept plane). Bottom: the first seed of the evidence set trained on the full data and, as its
# twin, on the data without the orthant of $\hat x$.
#
# Code: {py:func}`lib.sim.observations.train_concept_runs`, {py:func}`lib.sim.train.train_datasets`, {py:func}`lib.sim.plots.plot_task`,
# {py:func}`lib.sim.plots.plot_trajectories` · evidence: top computed live by the chapter; bottom
# {ref}`sim_observations/swing <evidence-sim-observations-swing>`.
# ```
#
# With the paper's radius the twins' outputs differ by at most a median
# {glue:text}`radius_max_deviation` {glue:text}`radius_max_deviation_ci` $\|\hat x\|$ (S-16/radius,
# a consistency check: {glue:text}`verdict_s_16_radius`). Without the orthant, by
# {glue:text}`orthant_max_deviation` {glue:text}`orthant_max_deviation_ci` (S-16/orthant:
# {glue:text}`verdict_s_16_orthant`); the turn-back changes by {glue:text}`orthant_turn_back_change`
# {glue:text}`orthant_turn_back_change_ci` (paired) and the loss rise by
# {glue:text}`orthant_loss_rise_change` {glue:text}`orthant_loss_rise_change_ci`.
#
# ## Three layers, three hidden units, $d = 3$ (the paper's Figs. 13, 14)
#
# No rotation, learning rate {glue:text}`param_lowdim_lr`, $\mu$ = ({glue:text}`param_mu`) and
# $\mu$ = ({glue:text}`param_tiny_mu_large`); the figure shows this run's seeds, the claims pool the 30
# evidence seeds of each setting.

# %% tags=["remove-input"]
tiny = datasets([P.mu, P.tiny_mu_large], [P.sigma] * 2, P.tiny_d, SEEDS, rotate=False)
runs_t = run.stored("tiny", train_concept_runs, MLPShape(P.tiny_d, P.tiny_width, P.tiny_depth, "linear", P.bias),
                    [P.mu, P.tiny_mu_large], [P.sigma] * 2, SEEDS, SEEDS * 2, data={**DATA, "rotate": False},
                    lr=P.lowdim_lr, epochs=P.epochs, **SGD)
for set_name, trained in (("swing_tiny_converged", ""), ("swing", "_25_epochs")):  # until learned; 25 epochs
    ev_tiny = run.evidence(set_name).data
    tiny_cells = [swing_cell(ev_tiny, p) for p in ("tiny", "tiny_large")]
    tiny_pool = {k: np.concatenate([c[k] for c in tiny_cells]) for k in tiny_cells[0]}
    for key, est in swing_estimates(tiny_pool["turn_back"], tiny_pool["loss_rise"], tiny_pool["bulge"], P.rise_tol,
                                    seed=P.seed).items():
        run.metric(f"tiny{trained}_{key}", est)
    run.metric(f"tiny{trained}_final_distance_max", float(tiny_pool["final_distance"].max()))
    run.metric(f"tiny{trained}_largest_rise", float(tiny_pool["loss_rise"].max()))
    run.metric(f"tiny{trained}_rise_count", count(tiny_pool["loss_rise"] > P.rise_tol))

# %% tags=["remove-input"]
fig, axes = plt.subplots(2, 1, figsize=(6.4, 8.0), layout="constrained")
labels = [rf"$\mu$ = {format_vector(ds.mu)}, seed {k}" for ds, k in zip(tiny, SEEDS * 2)]
plot_trajectories(axes[0], [runs_t.plane[:, i] for i in range(len(tiny))], labels, [concept_test_point(ds) for ds in tiny])
plot_curves(axes[1], [runs_t.ood_loss[:, i] for i in range(len(tiny))], labels, runs_t.steps_per_epoch, "OOD loss")
run.figure("fig_tiny", fig)

# %% [markdown]
# ```{glue:figure} fig_tiny
# :name: fig-tiny
# The paper's Fig. 13 (top) and the paper's Fig. 14 (bottom): three-layer linear models with three hidden units in $d=3$.
#
# Code: {py:func}`lib.sim.observations.train_concept_runs`, {py:func}`lib.sim.train.train_datasets`, {py:func}`lib.sim.metrics.ood_loss`,
# {py:func}`lib.sim.plots.plot_trajectories`, {py:func}`lib.sim.plots.plot_curves` · evidence: none, computed
# live by the chapter.
# ```
#
# The {ref}`converged runs <evidence-sim-observations-swing-tiny-converged>` train these seeds until every run has
# learned
# (largest final distance {glue:text}`tiny_final_distance_max` $\|\hat x\|$; at the chapter's 25 epochs
# it was {glue:text}`tiny_25_epochs_final_distance_max`). Single seeds do swing: the largest rise is
# {glue:text}`tiny_largest_rise` of the initial loss ({glue:text}`verdict_s_13_s_14_exists`).
# Over the {glue:text}`tiny_rise_fraction_n` evidence seeds of both settings the OOD loss rises
# (by more than {glue:text}`param_rise_tol`) in a fraction {glue:text}`tiny_rise_fraction`
# {glue:text}`tiny_rise_fraction_ci`, with median rise {glue:text}`tiny_loss_rise`
# {glue:text}`tiny_loss_rise_ci` of the initial loss and median turn-back
# {glue:text}`tiny_turn_back` {glue:text}`tiny_turn_back_ci` (S-13, S-14:
# {glue:text}`verdict_s_13_s_14_fraction`, {glue:text}`verdict_s_13_s_14_median`).
#
# ## Topologically constrained order (the paper's App. B, Fig. 7)
#
# With $s$ concepts, the $2^s$ test points $\hat x^{(v)} = \sum_p v_p \mu_p \mathbf 1_p$,
# $v \in \{0,1\}^s$, are partially ordered by $u \le v$ componentwise. The paper observes that
# the loss is an order homomorphism,
#
# $$ u \le v \implies \ell\big(\hat x^{(u)}\big) \le \ell\big(\hat x^{(v)}\big), $$ (eq-b2)
#
# for a {glue:text}`param_topo_depth`-layer {glue:text}`param_topo_activation` MLP with
# $\mu$ = ({glue:text}`param_topo_mu`), $\sigma$ = ({glue:text}`param_topo_sigma`). The paper's Fig. 7 draws the losses at
# three epochs on a colour scale from 0 to 1: a violation smaller than {glue:text}`param_topo_visible_tol`
# (a twentieth of the scale) is one the figure cannot show. The
# {ref}`hypercube runs <evidence-sim-observations-topological>` train 30 seeds under each reading of $\sigma$: as a
# variance (the authors' code) and as a standard deviation (the paper); they record, per seed, the largest
# $\ell(u) - \ell(v)$ over comparable pairs at the figure's epochs. This run draws the first seed.

# %% tags=["remove-input"]
topo = [sim_dataset(P.topo_mu, P.topo_sigma, P.d, P.n, sigma_is_variance=P.sigma_is_variance,
                    origin_cluster=P.origin_cluster, rotate=P.rotate, seed=k) for k in SEEDS[:1]]
traj_c, y_c = train_datasets(MLPShape(P.d, P.width, P.topo_depth, P.topo_activation, P.bias), topo, SEEDS[:1],
                                  combos=True, lr=P.lr, epochs=P.topo_epochs, **SGD)
losses = M.ood_loss(y_c[:, 0], topo[0].to_concept(topo[0].combo_points))
for set_name, trained in (("topological", ""), ("topological_no_origin_cluster", "_no_origin_cluster")):
    ev_topo = run.evidence(set_name).data  # trained with and without the origin as a training cluster
    for reading, flag in (("variance", 1), ("std", 0)):
        for key in ("", "_no_origin"):  # measured over all 16 points, or over all but the origin
            est = topological_estimates(ev_topo.concat("snapshot_violation" + key, sigma_is_variance=flag),
                                        ev_topo.concat("order_violations" + key, sigma_is_variance=flag),
                                        P.topo_visible_tol, seed=P.seed)
            for name, value in est.items():
                run.metric(f"topo_{reading}{trained}{key}_{name}", value)

# %% tags=["remove-input"]
snap = [min(int(round(e * traj_c.steps_per_epoch)), len(losses) - 1) for e in P.topo_snapshots]
fig, axes = plt.subplots(len(snap), 1, figsize=(7.2, 2.9 * len(snap)), layout="constrained")
for ax, t, e in zip(np.atleast_1d(axes), snap, P.topo_snapshots):
    nodes = plot_hypercube(ax, losses[t], topo[0].combos)
    ax.set_title(f"epoch {e:g}")
fig.colorbar(nodes, ax=axes, label="loss (clipped at 1)", shrink=0.5)
run.figure("fig_hypercube", fig)

# %% [markdown]
# ```{glue:figure} fig_hypercube
# :name: fig-hypercube
# The paper's Fig. 7: loss at the $2^s$ combination points (first seed), nodes laid out left to right by
# number of concepts combined, edges between points one concept apart; colour clipped at 1.
#
# Code: {py:func}`lib.sim.train.train_datasets`, {py:func}`lib.sim.metrics.ood_loss`,
# {py:func}`lib.sim.plots.plot_hypercube` · evidence: none, computed live by the chapter.
# ```
#
# The claims are read with $\sigma$ a standard deviation (the paper's eq. (2.1); its Fig. 13 caption calls it a
# variance, the second reading below) and no training cluster at the origin (optional in the paper's Sec. 2.1, left
# out of its App. F.4 plots; the {ref}`runs without that cluster <evidence-sim-observations-topological-no-origin-cluster>`,
# 30 seeds per reading), a choice the paper leaves open; the
# authors' code, which makes the origin a training cluster, is each claim's robustness row. Over all 16
# points, the median seed's largest violation at the figure's epochs is
# {glue:text}`topo_std_no_origin_cluster_snapshot_violation`
# {glue:text}`topo_std_no_origin_cluster_snapshot_violation_ci` ($\sigma$ a standard deviation, S-7/std:
# {glue:text}`verdict_s_7_std`) and {glue:text}`topo_variance_no_origin_cluster_snapshot_violation`
# {glue:text}`topo_variance_no_origin_cluster_snapshot_violation_ci` with $\sigma$ read as a variance
# ({glue:text}`verdict_s_7_variance`). Every such violation involves the origin $0\cdots0$, and it needs
# the networks' bias terms: without them $f(0) = 0$, the origin's loss is 0 at every step and cannot
# exceed another point's. With the authors' origin cluster the violation there is smaller,
# {glue:text}`topo_std_snapshot_violation` {glue:text}`topo_std_snapshot_violation_ci` and
# {glue:text}`topo_variance_snapshot_violation` {glue:text}`topo_variance_snapshot_violation_ci`, but
# still visible. Leaving the origin out of the measurement, the medians on the paper's data are
# {glue:text}`topo_std_no_origin_cluster_no_origin_snapshot_violation`
# {glue:text}`topo_std_no_origin_cluster_no_origin_snapshot_violation_ci` and
# {glue:text}`topo_variance_no_origin_cluster_no_origin_snapshot_violation`
# {glue:text}`topo_variance_no_origin_cluster_no_origin_snapshot_violation_ci`
# (S-7/no-origin: {glue:text}`verdict_s_7_no_origin_std`, {glue:text}`verdict_s_7_no_origin_variance`),
# yet a violation visible in the figure still occurs in a fraction
# {glue:text}`topo_std_no_origin_cluster_no_origin_visible_fraction`
# {glue:text}`topo_std_no_origin_cluster_no_origin_visible_fraction_ci` and
# {glue:text}`topo_variance_no_origin_cluster_no_origin_visible_fraction`
# {glue:text}`topo_variance_no_origin_cluster_no_origin_visible_fraction_ci` of the seeds; the learning
# order ("learned only after all of its predecessors") is broken among these points in
# {glue:text}`topo_std_no_origin_cluster_no_origin_order_fraction`
# {glue:text}`topo_std_no_origin_cluster_no_origin_order_fraction_ci` and
# {glue:text}`topo_variance_no_origin_cluster_no_origin_order_fraction`
# {glue:text}`topo_variance_no_origin_cluster_no_origin_order_fraction_ci` of them. With the authors' origin
# cluster, a visible violation among these points occurs in {glue:text}`topo_std_no_origin_visible_fraction`
# {glue:text}`topo_std_no_origin_visible_fraction_ci` and {glue:text}`topo_variance_no_origin_visible_fraction`
# {glue:text}`topo_variance_no_origin_visible_fraction_ci` of the seeds.
#
# ## Claims

# %%
# NBVAL_CHECK_OUTPUT
run.headline("stronger_signal_first", "more_diverse_first", "truncated_fraction", digits=2,
             checks={"terminal_slowdown_ratio": "> 1"})

# %% tags=["remove-input"]
run.claims_table()
