# ---
# jupyter:
#   jupytext:
#     text_representation: {extension: .py, format_name: percent}
#   kernelspec: {display_name: Python 3, language: python, name: python3}
# ---

# %% [markdown]
# # GenEFT dynamics: interacting repons and the critical learning-rate ratio
#
# Section IV of GenEFT {cite:p}`baek2024geneft` models the embeddings of an encoder-decoder
# network as particles, *repons*, that a locally linear decoder pulls together. Whether two
# same-class repons collide (the network generalizes) or the decoder's pull dies first (it
# memorizes) is a race between the encoder and the decoder learning rates. The theory predicts
# a collision probability that depends only on their ratio, the *arctan law*, and hence a
# phase boundary of constant $\eta_\mathrm{dec}/\eta_\mathrm{enc}$. This chapter derives the
# repon equations symbolically, draws their phase portrait (Fig. 4), checks the arctan law and
# its $N$-repon form by Monte Carlo, and trains grids of networks for the learning-rate phase
# diagrams of Figs. 5, 6 and 8, with the phase criteria of {cite:p}`liu2022grokking` (Table 4).

# %% tags=["parameters"]
# Defaults and meaning: lib/specs/geneft_dynamics.py (GeneftDynamicsParameters). Change them with
# `python -m lib run geneft_dynamics -p NAME VALUE`; the runner fills this cell.

# %% tags=["remove-cell"]
import numpy as np
import torch
import matplotlib.pyplot as plt

from lib.book import start_chapter
from lib.paths import cache_dir
from lib.geneft import phases, repons, symbolic
from lib.geneft.relations import relation_matrix, split_masks
from lib.geneft.train import train_models

run = start_chapter("geneft_dynamics", globals())
P = run.params
torch.set_num_threads(P.torch_threads)
NET = dict(mode=P.mode, depth=P.depth, width=P.width, embed_dim=P.embed_dim, steps=P.steps, eval_every=10)


def train_grid(name: str, relation: str, lr_enc, lr_dec, wd=0.0, init_scale=P.init_scale, seeds=(P.seed,)):
    """Train one model per (setting, seed) on one split of `relation`; phases, shape (settings, seeds)."""
    lr_enc, lr_dec, wd, scale = np.broadcast_arrays(*(np.asarray(v, float) for v in (lr_enc, lr_dec, wd, init_scale)))
    k, s = lr_enc.size, len(seeds)
    masks = np.repeat(split_masks(P.n, [P.train_fraction], [P.seed]), k * s, 0)
    rep = lambda v: np.repeat(v.ravel(), s)  # noqa: E731
    ckpt = cache_dir("geneft_dynamics") / f"{name}.pt" if P.checkpoint else None
    groups = {}
    for sc in np.unique(scale):  # the init scale is per call of the trainer
        pick = np.repeat(scale.ravel() == sc, s)
        groups[sc] = train_models(relation_matrix(relation, P.n), masks[pick], **NET, lr_enc=rep(lr_enc)[pick],
                                  lr_dec=rep(lr_dec)[pick], weight_decay_dec=rep(wd)[pick], init_scale=float(sc),
                                  seeds=np.tile(seeds, k)[pick], checkpoint=None if ckpt is None else
                                  ckpt.with_name(f"{name}_scale{sc:g}.pt"))
    phase = np.empty(k * s, int)
    for sc, res in groups.items():
        phase[np.repeat(scale.ravel() == sc, s)] = phases.classify(res.step_train_90, res.step_test_90, P.grok_threshold)
    return phase.reshape(lr_enc.shape + (s,))

# %% [markdown]
# ## Two repons and a linear decoder
#
# When two embeddings $\mathbf{x}_1, \mathbf{x}_2$ of the same class are close, the decoder is
# locally linear, $D(\mathbf{x}) \approx \mathbf{A}\mathbf{x} + \mathbf{b}$, and the pair's loss is
# $\ell = \tfrac12(|\mathbf{A}\mathbf{x}_1 + \mathbf{b} - \mathbf{y}|^2 + |\mathbf{A}\mathbf{x}_2 + \mathbf{b} - \mathbf{y}|^2)$
# (eq. 6). Gradient flow with decoder rate $\eta_A$ and encoder rate $\eta_x$ gives, for the
# half separation $\mathbf{r} = (\mathbf{x}_1 - \mathbf{x}_2)/2$ (Appendix C),
#
# $$
# \frac{d\mathbf{A}}{dt} = -2\eta_A \mathbf{A}\mathbf{r}\mathbf{r}^T, \qquad
# \frac{d\mathbf{r}}{dt} = -\eta_x \mathbf{A}^T\mathbf{A}\mathbf{r}.
# $$ (eq-pair-flow)
#
# The ansatz $\mathbf{A}(t) = a(t)\mathbf{A}_0 + b(t)\mathbf{A}_0\mathbf{r}_0\mathbf{r}_0^T$,
# $\mathbf{r}(t) = c(t)\mathbf{r}_0$ (eq. 9) reduces it to two numbers, $a_2 = a + b$ and $c$:
#
# $$
# \frac{da_2}{dt} = -2\eta_A c^2 a_2, \qquad \frac{dc}{dt} = -\eta_x a_2^2 c, \qquad
# C \equiv \frac{a_2^2}{2\eta_A} - \frac{c^2}{\eta_x} = \text{const}.
# $$ (eq-reduced)
#
# ```{prf:theorem} Theorem 2 of GenEFT
# :label: thm-repon-pair
# Two same-class repons under {eq}`eq-reduced` end at zero distance if $C > 0$
# ($c \to 0$, $a_2 \to \pm\sqrt{2\eta_A C}$: collision, generalization) and at a positive
# distance if $C < 0$ ($a_2 \to 0$, $c \to \pm\sqrt{-\eta_x C}$: memorization).
# ```
#
# Sympy carries out each step: the gradients of eq. (6), the solution $\mathbf{b}(t)$, the two
# lines of {eq}`eq-pair-flow`, the reduction of the ansatz (which needs $|\mathbf{r}_0| = 1$ and
# $\mathbf{r}_0$ an eigenvector of $\mathbf{A}_0^T\mathbf{A}_0$ with eigenvalue 1, a condition the paper
# leaves implicit), $dC/dt = 0$, and the integrals behind eqs. (12) and (13) below.

# %%
checks = symbolic.all_checks()
run.metric("conserved_quantity_exact", checks["eq11_conserved"])
run.metric("symbolic_checks_pass", all(checks.values()))
checks

# %% [markdown]
# Every step holds exactly (all checks pass: {glue:text}`symbolic_checks_pass`). One caveat the derivation
# hides: the centre of mass $\mathbf{x}_1 + \mathbf{x}_2$ is set to zero "without loss of generality",
# but while $\mathbf{b}$ relaxes towards $\mathbf{y}$ the flow moves it, and then $d\mathbf{A}/dt$ has the extra
# term $-\eta_A[\mathbf{A}\,2\mathbf{m}\mathbf{m}^T + 2(\mathbf{b}-\mathbf{y})\mathbf{m}^T]$ (with $\mathbf{m}$ the centre of mass); the
# $\mathbf{r}$ equation is exact for any $\mathbf{b}$.
#
# ## The phase portrait (Fig. 4)
#
# The conserved quantity makes every trajectory a piece of a hyperbola; the lines $C = 0$,
# $c/a_2 = \pm\sqrt{\eta_x/(2\eta_A)}$, separate the starts that end in a collision from those
# that do not. {numref}`fig-portrait` integrates {eq}`eq-reduced` from a grid of starts and
# colours each by its integrated outcome.

# %%
eta_A, eta_x = 1.0, P.portrait_eta_ratio
grid = np.linspace(-1.5, 1.5, P.portrait_grid)
A2, C0 = [g.ravel() for g in np.meshgrid(grid, grid)]
start = (A2 != 0) & (C0 != 0) & (np.abs(repons.conserved(A2, C0, eta_A, eta_x)) > 1e-9)
hit = repons.collided(A2[start], C0[start], eta_A, eta_x, P.ode_time, P.collision_tol)
predicted = repons.conserved(A2[start], C0[start], eta_A, eta_x) > 0
run.metric("portrait_agreement", float(np.mean(hit == predicted)))

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(5.2, 4.6))
a, c = np.meshgrid(np.linspace(-1.6, 1.6, 60), np.linspace(-1.6, 1.6, 60))
ax.streamplot(a, c, *repons.reduced_flow(a, c, eta_A, eta_x), color="0.6", density=1.1, linewidth=0.7)
ax.scatter(A2[start], C0[start], c=np.where(hit, "tab:green", "tab:red"), s=10, zorder=3)
k = repons.separatrix_slope(eta_A, eta_x)
for sgn in (1, -1):
    ax.plot([-1.6, 1.6], [-1.6 * sgn * k, 1.6 * sgn * k], "k--", lw=1)
ax.set(xlim=(-1.6, 1.6), ylim=(-1.6, 1.6), xlabel="$a_2$ (decoder)", ylabel="$c$ (half separation)")
run.figure("fig_portrait", fig)

# %% [markdown]
# ```{glue:figure} fig_portrait
# :name: fig-portrait
# Phase portrait of eq. (10) at $\eta_x/\eta_A$ = {glue:text}`portrait_eta_ratio_text`: flow lines
# (grey), the separating lines $c/a_2 = \pm\sqrt{\eta_x/(2\eta_A)}$ (dashed) and the grid of
# starts, green where the integrated repons collide ($|c(T)| < $ tol $|c(0)|$), red where they
# do not. Integration and the sign of $C$ agree at a fraction
# {glue:text}`portrait_agreement` of the starts.
# ```

# %% tags=["remove-cell"]
run.text("portrait_eta_ratio_text", f"{P.portrait_eta_ratio:g}")

# %% [markdown]
# ## Theorem 3: the arctan law
#
# ```{prf:theorem} Theorem 3 of GenEFT
# :label: thm-arctan
# If $a_2(0) \sim \mathcal N(0, \sigma_a^2)$ and $c(0) \sim \mathcal N(0, \sigma_c^2)$, the probability
# that the repons collide is
#
# $$
# p_r = \frac{2}{\pi}\arctan\!\left(\frac{\sigma_a}{\sigma_c}\sqrt{\frac{\eta_x}{2\eta_A}}\right),
# $$ (eq-arctan)
#
# and for one repon facing $N$ repons clustered at one point
# $p_r = \frac{2}{\pi}\arctan\big(\frac{\sigma_a}{\sigma_c}\sqrt{\eta_x(1 + 1/N)/(4\eta_A)}\big)$ (eq. 13).
# ```
#
# The Monte Carlo below draws {glue:text}`mc_samples_text` Gaussian starts per point and
# integrates {eq}`eq-reduced` to $T$ = {glue:text}`ode_time_text`; for eq. (13) it integrates the
# gradient flow of the $(N+1)$-repon loss itself (one embedding dimension, $b = y = 0$, the
# cluster and the centre of mass being invariant under it). The paper states eq. (13) without
# derivation; sympy confirms it with $c$ read as half the distance between the lone repon and
# the cluster (the decoder's effective rate becomes $\eta_A N/(N+1)$).

# %%
ratios, sig = np.array(P.theory_lr_ratios), np.array(P.sigma_ratios)
mc = np.array([[repons.monte_carlo_reduced(s, 1.0, 1.0, r, samples=P.mc_samples, seed=P.seed,
                                           t_max=P.ode_time, tol=P.collision_tol) for r in ratios] for s in sig])
law = repons.arctan_law(sig[:, None], ratios[None, :])
run.metric("arctan_vs_mc_max_abs_error", float(np.abs(mc - law).max()))

# %%
ns = np.array(P.n_cluster)
sim = np.array([[repons.monte_carlo_cluster(1.0, 1.0, 1.0, r, int(m), samples=P.mc_samples, seed=P.seed,
                                            t_max=P.ode_time, tol=P.collision_tol) for r in ratios] for m in ns])
law_n = repons.arctan_law(1.0, ratios[None, :], ns[:, None])
run.metric("n_repon_vs_sim_max_abs_error", float(np.abs(sim - law_n).max()))

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True)
fine = np.logspace(np.log10(ratios.min()) - 0.3, np.log10(ratios.max()) + 0.3, 200)
for s, row in zip(sig, mc):
    line, = axes[0].plot(fine, repons.arctan_law(s, fine), lw=1)
    axes[0].plot(ratios, row, "o", color=line.get_color(), label=rf"$\sigma_a/\sigma_c$ = {s:g}")
for m, row in zip(ns, sim):
    line, = axes[1].plot(fine, repons.arctan_law(1.0, fine, m), lw=1)
    axes[1].plot(ratios, row, "s", color=line.get_color(), label=f"N = {m}")
for ax, title in zip(axes, ["eq. (12) vs Monte Carlo of eq. (10)", r"eq. (13) vs $(N{+}1)$-repon flow"]):
    ax.set(xscale="log", xlabel=r"$\eta_x / \eta_A$", title=title)
    ax.legend(fontsize=8)
axes[0].set_ylabel("collision probability")
run.figure("fig_arctan", fig)

# %% [markdown]
# ```{glue:figure} fig_arctan
# :name: fig-arctan
# Left: the arctan law (lines) against the fraction of Monte Carlo starts of eq. (10) that
# collide (dots), for three initial-scale ratios. Right: eq. (13) (lines, $\sigma_a = \sigma_c$)
# against the simulated one-against-$N$ flow (squares). Largest deviations
# {glue:text}`arctan_vs_mc_max_abs_error` and {glue:text}`n_repon_vs_sim_max_abs_error`; starts
# close to the separatrix collide only after a time that diverges at $C = 0$, so a finite $T$
# slightly undercounts collisions.
# ```
#
# ## Learning-rate phase diagrams of real networks (Fig. 5)
#
# The networks are those of Section II with Table 3's defaults (embedding dimension
# {glue:text}`embed_dim_text`, decoder {glue:text}`arch_text`, tanh, sigmoid and cross-entropy,
# training fraction {glue:text}`train_fraction_text`, $n$ = {glue:text}`n_text`), trained full batch
# with AdamW, a separate rate for the embeddings ($\eta_\mathrm{enc}$) and for the decoder
# ($\eta_\mathrm{dec}$). Every grid is one batched computation; a model leaves the batch as soon as
# both accuracies have passed 0.9, since its phase is then decided. Table 4 names the phases:
# generalization (train and test accuracy above 0.9, the test less than
# {glue:text}`grok_threshold_text` steps after the train), grokking (later), memorization (test
# never), confusion (train never), within {glue:text}`steps_text` steps; the paper runs $10^5$.

# %% tags=["remove-cell"]
for key, val in {"embed_dim_text": P.embed_dim, "arch_text": f"{P.depth} x {P.width} ({P.mode})",
                 "train_fraction_text": P.train_fraction, "n_text": P.n, "grok_threshold_text": P.grok_threshold,
                 "steps_text": P.steps, "mc_samples_text": P.mc_samples, "ode_time_text": f"{P.ode_time:g}"}.items():
    run.text(key, str(val))

# %%
lr_enc, lr_dec = 10.0 ** np.array(P.log10_lr_enc), 10.0 ** np.array(P.log10_lr_dec)
E, D = np.meshgrid(lr_enc, lr_dec, indexing="ij")
seeds = P.seed + np.arange(P.seeds_per_cell)
grids = {rel: train_grid(f"fig5_{rel}", rel, E, D, seeds=seeds) for rel in P.relations}
cell = {rel: np.apply_along_axis(lambda v: np.bincount(v, minlength=4).argmax(), -1, g) for rel, g in grids.items()}

# %%
for rel in P.relations:
    slope = phases.boundary_slope(cell[rel], lr_enc, lr_dec)
    run.metric(f"boundary_slope_{rel}", slope)
    run.metric(f"boundary_slope_error_{rel}", abs(slope - 1))
crit = np.concatenate([phases.critical_ratio(cell[rel], lr_enc, lr_dec) for rel in P.relations])
run.metric("critical_lr_ratio", float(np.exp(np.log(crit).mean())) if crit.size else float("nan"))
run.metric("critical_lr_ratio_log10_error", abs(np.log10(run.metrics["critical_lr_ratio"] or np.nan) - 1))
counts = phases.phase_counts(np.concatenate([g.ravel() for g in grids.values()]))
run.metric("phase_counts", [counts[p] for p in phases.PHASES])
for p in phases.PHASES:
    run.metric(f"phase_count_{p}", counts[p])
run.metric("phases_seen", sum(counts[p] > 0 for p in ("generalization", "grokking", "memorization")))

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, len(P.relations), figsize=(3.6 * len(P.relations), 3.4), squeeze=False)
for ax, rel in zip(axes[0], P.relations):
    phases.draw_phase_diagram(ax, cell[rel].T, lr_enc, lr_dec)
    enc_b, dec_b = phases.boundary_points(cell[rel], lr_enc, lr_dec)
    ax.plot(enc_b, dec_b, "k.-", lw=1)
    ax.plot(lr_enc, 10 * lr_enc, "w--", lw=1)
    ax.set(title=rel, xlabel=r"$\eta_\mathrm{enc}$", ylabel=r"$\eta_\mathrm{dec}$")
run.figure("fig_phase_lr", fig)

# %% [markdown]
# ```{glue:figure} fig_phase_lr
# :name: fig-phase-lr
# Phases over the encoder and decoder learning rates (Fig. 5), one split and
# {glue:text}`seeds_text` seed(s) per cell (the most common phase). Black: the fitted
# generalization/memorization boundary; white dashed: $\eta_\mathrm{dec} = 10\,\eta_\mathrm{enc}$.
# ```
#
# Eq. (12) depends on $\eta_x/\eta_A$ only, so a fixed collision probability is a line of
# constant $\eta_\mathrm{dec}/\eta_\mathrm{enc}$: slope $+1$ on these increasing log axes. The paper
# calls the boundary "slope $-1$"; its axes must run one of the rates downwards (the book draws
# both increasing; see the reproduction notes). The fitted slopes of
# $\log\eta^*_\mathrm{dec}$ against $\log\eta_\mathrm{enc}$ are {glue:text}`slopes_text`, and the
# critical ratio $\eta^*_\mathrm{dec}/\eta_\mathrm{enc}$ (geometric mean over boundary points and
# relations) is {glue:text}`critical_lr_ratio:.3g`, against the paper's "about 10". Over all
# grids the phases count {glue:text}`counts_text`.

# %% tags=["remove-cell"]
run.text("seeds_text", str(P.seeds_per_cell))
run.text("slopes_text", ", ".join(f"{run.metrics[f'boundary_slope_{r}'] or float('nan'):.2f} ({r})" for r in P.relations))
run.text("counts_text", ", ".join(f"{v} {k}" for k, v in counts.items()))

# %% [markdown]
# ## Probability of generalization against the rate ratio (Fig. 6)
#
# Fig. 6 trains many seeds at each ratio $\eta_\mathrm{dec}/\eta_\mathrm{enc}$ (here with
# $\eta_\mathrm{enc}$ = {glue:text}`fig6_lr_enc_text`) for several initialisation scales, and
# compares the fraction that generalizes (generalization or grokking) with eq. (12) at
# $\sigma_a/\sigma_c$ = {glue:text}`bound_sigma_text`, reading $\eta_x = \eta_\mathrm{enc}$ and
# $\eta_A = \eta_\mathrm{dec}$. A point counts as under the bound when it exceeds it by less than
# two binomial standard errors.

# %%
ratio6 = 10.0 ** np.array(P.fig6_log10_ratios)
R6, S6 = np.meshgrid(ratio6, P.fig6_init_scales, indexing="ij")
g6 = train_grid("fig6", P.fig6_relation, P.fig6_lr_enc, P.fig6_lr_enc * R6, init_scale=S6,
                seeds=P.seed + np.arange(P.fig6_seeds))
p_gen = phases.generalizes(g6).mean(-1)
bound = repons.arctan_law(P.bound_sigma_ratio, 1 / R6)
se = np.sqrt(np.clip(bound * (1 - bound), 1 / P.fig6_seeds, None) / P.fig6_seeds)
run.metric("fig6_p_generalization", p_gen.ravel())
run.metric("fig6_fraction_under_bound", float(np.mean(p_gen <= bound + 2 * se)))

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(5.4, 3.6))
fine = np.logspace(np.log10(ratio6.min()) - 0.2, np.log10(ratio6.max()) + 0.2, 200)
ax.plot(fine, repons.arctan_law(P.bound_sigma_ratio, 1 / fine), "k-", label="eq. (12)")
for j, s in enumerate(P.fig6_init_scales):
    ax.plot(ratio6, p_gen[:, j], "o-", lw=1, label=f"init scale {s:g}")
ax.set(xscale="log", xlabel=r"$\eta_\mathrm{dec} / \eta_\mathrm{enc}$", ylabel="P(generalization)", ylim=(-0.05, 1.05))
ax.legend(fontsize=8)
run.figure("fig_prob", fig)

# %% [markdown]
# ```{glue:figure} fig_prob
# :name: fig-prob
# Fraction of {glue:text}`fig6_seeds_text` seeds that generalize ({glue:text}`fig6_relation_text`)
# against the learning-rate ratio, per initialisation scale, with the arctan bound (black).
# A fraction {glue:text}`fig6_fraction_under_bound` of the points lies under it.
# ```
#
# At the book's budget the networks do *not* respect the bound: near
# $\eta_\mathrm{dec} \approx \eta_\mathrm{enc}$ essentially every seed generalizes, where eq. (12)
# allows at most about 0.39 at $\sigma_a = \sigma_c$. The bound concerns two repons of a locally
# linear decoder from Gaussian starts; a network's embeddings are many repons and its decoder
# is not linear, so the theory fixes the ratio at which generalization fails, not the level.

# %% tags=["remove-cell"]
for key, val in {"fig6_lr_enc_text": f"{P.fig6_lr_enc:g}", "bound_sigma_text": f"{P.bound_sigma_ratio:g}",
                 "fig6_seeds_text": str(P.fig6_seeds), "fig6_relation_text": P.fig6_relation}.items():
    run.text(key, val)

# %% [markdown]
# ## Weight decay does not move the boundary (Fig. 8)
#
# Eq. (12) has no weight decay in it. Appendix F scans the decoder's weight decay against its
# learning rate at a fixed encoder rate and finds the boundary unmoved. Here
# $\eta_\mathrm{enc}$ = {glue:text}`fig8_lr_enc_text` (the paper: $10^{-5}$ over $10^5$ steps; at the
# book's step budget so small a rate leaves every run confused). The shift is the largest
# distance, in decades of $\eta_\mathrm{dec}$, between the boundary at some weight decay and the
# boundary without it.

# %%
lr_dec8, wd8 = 10.0 ** np.array(P.fig8_log10_lr_dec), np.array(P.fig8_weight_decays)
W8, D8 = np.meshgrid(wd8, lr_dec8, indexing="ij")
g8 = train_grid("fig8", P.fig8_relation, P.fig8_lr_enc, D8, wd=W8)[..., 0]
wd_b, dec_b = phases.boundary_points(g8, wd8, lr_dec8)
shift = np.abs(np.log10(dec_b) - np.log10(dec_b[0])).max() if wd_b.size and wd_b[0] == wd8[0] else float("nan")
run.metric("wd_boundary_shift", float(shift))
run.metric("wd_boundary_rows", int(wd_b.size))

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(4.6, 3.6))
wd_axis = np.where(wd8 > 0, wd8, wd8[wd8 > 0].min() / 10 if (wd8 > 0).any() else 1e-3)
phases.draw_phase_diagram(ax, g8.T, wd_axis, lr_dec8)
ax.set(xlabel="decoder weight decay (leftmost column: 0)", ylabel=r"$\eta_\mathrm{dec}$", title=P.fig8_relation)
run.figure("fig_wd", fig)

# %% [markdown]
# ```{glue:figure} fig_wd
# :name: fig-wd
# Phases over decoder weight decay and decoder learning rate at fixed $\eta_\mathrm{enc}$ (Fig. 8).
# The boundary moves by {glue:text}`wd_boundary_shift` decades across the weight decays
# ({glue:text}`wd_boundary_rows` rows have a boundary).
# ```
#
# The paper finds no shift; at the book's short runs and coarse grid the boundary moves by the
# number above, so this claim is recorded as not reproduced at the default budget.

# %% tags=["remove-cell"]
run.text("fig8_lr_enc_text", f"{P.fig8_lr_enc:g}")

# %% [markdown]
# ## Summary

# %%
# NBVAL_CHECK_OUTPUT
run.headline("conserved_quantity_exact", "portrait_agreement", "arctan_vs_mc_max_abs_error",
             "n_repon_vs_sim_max_abs_error", "phase_counts", "fig6_fraction_under_bound", digits=2)

# %%
run.claims_table()
