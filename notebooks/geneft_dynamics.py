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
# repon equations symbolically, draws their phase portrait (the paper's Fig. 4), checks the arctan law and
# its $N$-repon form by Monte Carlo, and reads the learning-rate phase diagrams of the paper's Figs. 5, 6 and 8
# (grids of trained networks, with the phase criteria of {cite:p}`liu2022grokking`, the paper's Table 4) from
# the book's evidence tier, checking a small live grid against it.

# %% [markdown]
# ```{glue:md} chapter_summary
# :format: myst
# ```

# %% tags=["remove-cell"]
from lib.book.run.notebook import guard_parameters, start_chapter

guard_parameters("geneft_dynamics")  # papermill pastes -p names as code: refuse all but NAME = value of declared parameters

# %% tags=["parameters", "hide-input"]
# Generated from lib/book/chapters/geneft_dynamics.py by `python -m lib params` (do not edit here). Rerun with
# `python -m lib run geneft_dynamics -p NAME VALUE` or `papermill IN.ipynb OUT.ipynb -p NAME VALUE`.
portrait_eta_ratio = 1.0  # type: float  eta_x / eta_A of the Fig. 4 phase portrait (eta_A ≡ 1)
portrait_grid = 21  # type: int  starts per axis of the Fig. 4 grid of initial (a_2, c)
ode_time = 100000.0  # type: float  integration time of the paper's eq. (10) and of the N-repon flow (units of 1/eta_A)
collision_tol = 0.01  # type: float  repons count as collided when |c(T)| < tol |c(0)|
mc_samples = 10000  # type: int  Monte Carlo starts per point of Theorem 3's checks
theory_lr_ratios = [0.01, 0.1, 1.0, 10.0, 100.0]  # type: list[float]  eta_x / eta_A values for the arctan-law check
sigma_ratios = [0.5, 1.0, 2.0]  # type: list[float]  sigma_a / sigma_c values for the arctan-law check
n_cluster = [1, 2, 4, 16]  # type: list[int]  cluster sizes N for the paper's eq. (13)
seed = 0  # type: int  seed of every random draw (splits, inits, Monte Carlo)
n = 30  # type: int  number of elements of each relation (paper: 30)
train_fraction = 0.75  # type: float  fraction of the n^2 pairs used for training (Table 3: 0.75)
mode = 'concat'  # type: str  how the two embeddings enter the decoder
depth = 3  # type: int  hidden layers of the decoder (Table 3: 3)
width = 50  # type: int  width of the decoder's hidden layers (Table 3: 50)
embed_dim = 2  # type: int  embedding dimension (Table 3: 2)
init_scale = 1.0  # type: float  initialisation scale of every parameter of the live grid
steps = 10000  # type: int  full-batch AdamW steps per live model (the evidence: 1e4; the paper: 1e5)
grok_threshold_fraction = 0.01  # type: float  Table 4's grokking threshold as a fraction of the run (paper: 1e3 of 1e5 steps)
checkpoint = True  # type: bool  save the live grid to the cache and resume it when interrupted
live_relation = 'mod3'  # type: str  relation of the live grid, checked against the evidence
live_log10_lr_enc = [-2.0]  # type: list[float]  encoder learning rates of the live grid, log10 (cells of the evidence grid)
live_log10_lr_dec = [-3.0, -2.0, -1.5]  # type: list[float]  decoder learning rates of the live grid, log10
seeds_per_cell = 3  # type: int  initialisations per live cell (seeds seed, seed+1, ...; the evidence: 3)
collapse_threshold = 0.1  # type: float  repons count as collapsed when within / between class distance < this
matrix_draws = 1000  # type: int  Gaussian draws per decoder shape for the matrix-decoder collision study
sigma_models = 30  # type: int  models whose initialisation gives sigma_a / sigma_c (Fig. 6's band)

# %% tags=["remove-cell"]
run = start_chapter("geneft_dynamics", globals())  # names, values, joint rules and cost, as `lib run`: stops here if bad
P = run.params

# %% tags=["remove-cell"]
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Markdown, display

from lib.book.run.notebook import mapping_table
from lib.book.evidence import registry
from lib.book.evidence import status as evidence_status
from lib.book.evidence.stored import unhashed
from lib.util.fingerprint import code_fingerprint
from lib.geneft import grid as phase_grid
from lib.geneft import phases, repons, symbolic, wd_boundary
from lib.geneft.phases import RELATION_TITLES
from lib.geneft.relations import class_labels
from lib.util.numbers import format_number, interval_text, significant, tex_number, tex_p_value, tex_power_of_ten
from lib.util.wording import markdown_table, plural, reader_list, reader_name
from lib.util.paths import cache_dir
from lib.util.comparisons import p_value_of
from lib.util.plotting import panel_grid
from lib.util.stats import cost_to_decide, decide, exact, fraction, p_value, undecided

CACHE = cache_dir("geneft_dynamics", code_fingerprint("lib.geneft.grid")[:16]) if P.checkpoint else None

# %% [markdown]
# ## Two repons and a linear decoder
#
# When two embeddings $\mathbf{x}_1, \mathbf{x}_2$ of the same class are close, the decoder is
# locally linear, $D(\mathbf{x}) \approx \mathbf{A}\mathbf{x} + \mathbf{b}$, and the pair's loss is
# $\ell = \tfrac12(|\mathbf{A}\mathbf{x}_1 + \mathbf{b} - \mathbf{y}|^2 + |\mathbf{A}\mathbf{x}_2 + \mathbf{b} - \mathbf{y}|^2)$
# (the paper's eq. 6). Gradient flow with decoder rate $\eta_A$ and encoder rate $\eta_x$ gives the paper's eq. (8)
# for the half separation $\mathbf{r} = (\mathbf{x}_1 - \mathbf{x}_2)/2$ (its Appendix C; the equations of this
# book are numbered in one sequence, apart from the paper's),
#
# $$
# \frac{d\mathbf{A}}{dt} = -2\eta_A \mathbf{A}\mathbf{r}\mathbf{r}^T, \qquad
# \frac{d\mathbf{r}}{dt} = -\eta_x \mathbf{A}^T\mathbf{A}\mathbf{r}.
# $$ (eq-pair-flow)
#
# The ansatz $\mathbf{A}(t) = a(t)\mathbf{A}_0 + b(t)\mathbf{A}_0\mathbf{r}_0\mathbf{r}_0^T$,
# $\mathbf{r}(t) = c(t)\mathbf{r}_0$ (the paper's eq. 9) reduces it to two numbers, $a_2 = a + b$ and $c$, and
# their conserved quantity $C$ (the paper's eqs. 10 and 11):
#
# $$
# \frac{da_2}{dt} = -2\eta_A c^2 a_2, \qquad \frac{dc}{dt} = -\eta_x a_2^2 c, \qquad
# C \equiv \frac{a_2^2}{2\eta_A} - \frac{c^2}{\eta_x} = \text{const}.
# $$ (eq-reduced)
#
# ```{prf:theorem} Theorem 2 of GenEFT
# :label: thm-repon-pair
# Two same-class repons under the paper's eq. (10) end at zero distance if $C > 0$
# ($c \to 0$, $a_2 \to \pm\sqrt{2\eta_A C}$: collision, generalization) and at a positive
# distance if $C < 0$ ($a_2 \to 0$, $c \to \pm\sqrt{-\eta_x C}$: memorization).
# ```
#
# Sympy carries out each step: the gradients of the paper's eq. (6), the solution $\mathbf{b}(t)$, the two
# lines of the paper's eq. (8), the reduction of the ansatz (which needs $|\mathbf{r}_0| = 1$ and
# $\mathbf{r}_0$ an eigenvector of $\mathbf{A}_0^T\mathbf{A}_0$ with eigenvalue 1, a condition the paper
# leaves implicit, and without which it fails), $dC/dt = 0$, and the integrals behind the paper's eqs. (12) and (13)
# below. Three of the checks correct the paper's typos (see the {ref}`errata`): the paper's eq. (14)
# $d\mathbf{b}/dt$ needs $2(\mathbf{b} - \mathbf{y})$ for the stated $\mathbf{b}(t)$; the paper's eq. (12) integrand
# needs $\sigma_c$ for $\sigma_x$ and the region $|c/a| < k$ (the signed region $c/a < k$ has mass
# $\tfrac12 + \arctan(\cdot)/\pi$).

# %%
checks = symbolic.all_checks()
run.metric("conserved_quantity_exact", checks["eq11_conserved"])
run.metric("symbolic_checks_pass", all(checks.values()))
mapping_table(checks, "the paper's step (sympy)", "holds", labels=symbolic.CHECK_STATEMENTS)

# %% [markdown]
# Every step holds exactly (all checks pass: {glue:text}`symbolic_checks_pass`). One caveat the derivation
# hides: the centre of mass $\mathbf{x}_1 + \mathbf{x}_2$ is set to zero "without loss of generality",
# but while $\mathbf{b}$ relaxes towards $\mathbf{y}$ the flow moves it, and then $d\mathbf{A}/dt$ has the extra
# term $-\eta_A[\mathbf{A}\,2\mathbf{m}\mathbf{m}^T + 2(\mathbf{b}-\mathbf{y})\mathbf{m}^T]$ (with $\mathbf{m}$ the centre of mass); the
# $\mathbf{r}$ equation is exact for any $\mathbf{b}$.
#
# ## The phase portrait (the paper's Fig. 4)
#
# The conserved quantity makes every trajectory a piece of a hyperbola; the lines $C = 0$,
# $c/a_2 = \pm\sqrt{\eta_x/(2\eta_A)}$, separate the starts that end in a collision from those
# that do not. {numref}`fig-portrait` integrates the paper's eq. (10) from a grid of starts and
# colours each by its integrated outcome.

# %%
eta_A, eta_x = 1.0, P.portrait_eta_ratio
grid = np.linspace(-1.5, 1.5, P.portrait_grid)
A2, C0 = [g.ravel() for g in np.meshgrid(grid, grid)]
start = (A2 != 0) & (C0 != 0) & (np.abs(repons.conserved(A2, C0, eta_A, eta_x)) > 1e-9)
hit = repons.collided(A2[start], C0[start], eta_A, eta_x, P.ode_time, P.collision_tol)
predicted = repons.conserved(A2[start], C0[start], eta_A, eta_x) > 0
run.metric("portrait_agreement", float(np.mean(hit == predicted)))

# %% tags=["remove-input"]
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
# Phase portrait of the paper's eq. (10) at $\eta_x/\eta_A$ = {glue:text}`portrait_eta_ratio_text`: flow lines
# (grey), the separating lines $c/a_2 = \pm\sqrt{\eta_x/(2\eta_A)}$ (dashed) and the grid of
# starts, green where the integrated repons collide ($|c(T)| < $ tol $|c(0)|$), red where they
# do not. Integration and the sign of $C$ agree at a fraction
# {glue:text}`portrait_agreement` of the starts.
#
# Code: {py:func}`lib.geneft.repons.reduced_flow`, {py:func}`lib.geneft.repons.collided`,
# {py:func}`lib.geneft.repons.separatrix_slope` · evidence: none, computed live by the chapter.
# ```

# %% tags=["remove-cell"]
run.text("portrait_eta_ratio_text", f"{P.portrait_eta_ratio:g}")

# %% [markdown]
# ## Theorem 3: the arctan law
#
# ```{prf:theorem} Theorem 3 of GenEFT
# :label: thm-arctan
# If $a_2(0) \sim \mathcal N(0, \sigma_a^2)$ and $c(0) \sim \mathcal N(0, \sigma_c^2)$, the probability
# that the repons collide is (the paper's eq. 12)
#
# $$
# p_r = \frac{2}{\pi}\arctan\!\left(\frac{\sigma_a}{\sigma_c}\sqrt{\frac{\eta_x}{2\eta_A}}\right),
# $$ (eq-arctan)
#
# and for one repon facing $N$ repons clustered at one point (the paper's eq. 13)
#
# $$
# p_r = \frac{2}{\pi}\arctan\!\left(\frac{\sigma_a}{\sigma_c}\sqrt{\frac{\eta_x(1 + 1/N)}{4\eta_A}}\right).
# $$
# ```
#
# The Monte Carlo below draws {glue:text}`param_mc_samples` Gaussian starts per point and
# integrates the paper's eq. (10) to $T$ = {glue:text}`param_ode_time`; for the paper's eq. (13) it integrates the
# gradient flow of the $(N+1)$-repon loss itself (one embedding dimension, $b = y = 0$, the
# cluster and the centre of mass being invariant under it). The paper states eq. (13) without
# derivation; sympy confirms it with $c$ read as half the distance between the lone repon and
# the cluster (the decoder's effective rate becomes $2\eta_A N/(N+1)$, which is $\eta_A$ for the pair, $N = 1$).

# %%
ratios, sig = np.array(P.theory_lr_ratios), np.array(P.sigma_ratios)
mc = run.stored("arctan_reduced_mc", repons.monte_carlo_reduced_grid, P.sigma_ratios, P.theory_lr_ratios,
                samples=P.mc_samples, seed=P.seed, t_max=P.ode_time, tol=P.collision_tol)
law = repons.arctan_law(sig[:, None], ratios[None, :])
run.metric("arctan_vs_mc_max_abs_error", float(np.abs(mc - law).max()))

# %%
ns = np.array(P.n_cluster)
sim = run.stored("arctan_cluster_mc", repons.monte_carlo_cluster_grid, P.n_cluster, P.theory_lr_ratios,
                 samples=P.mc_samples, seed=P.seed, t_max=P.ode_time, tol=P.collision_tol)
law_n = repons.arctan_law(1.0, ratios[None, :], ns[:, None])
run.metric("n_repon_vs_sim_max_abs_error", float(np.abs(sim - law_n).max()))

# %% tags=["remove-input"]
fig, axes = plt.subplots(1, 2, figsize=(7.5, 3.5), sharey=True, layout="constrained")
fine = np.logspace(np.log10(ratios.min()) - 0.3, np.log10(ratios.max()) + 0.3, 200)
for s, row in zip(sig, mc):
    line, = axes[0].plot(fine, repons.arctan_law(s, fine), lw=1)
    axes[0].plot(ratios, row, "o", color=line.get_color(), label=rf"$\sigma_a/\sigma_c$ = {s:g}")
for m, row in zip(ns, sim):
    line, = axes[1].plot(fine, repons.arctan_law(1.0, fine, m), lw=1)
    axes[1].plot(ratios, row, "s", color=line.get_color(), label=f"N = {m}")
for ax, title in zip(axes, ["eq. (12) vs Monte Carlo of eq. (10)", r"eq. (13) vs $(N{+}1)$-repon flow"]):
    ax.set(xscale="log", xlabel=r"$\eta_x / \eta_A$")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
axes[0].set_ylabel("collision probability")
run.figure("fig_arctan", fig)

# %% [markdown]
# ```{glue:figure} fig_arctan
# :name: fig-arctan
# Left: the arctan law (lines) against the fraction of Monte Carlo starts of the paper's eq. (10) that
# collide (dots), for three initial-scale ratios. Right: the paper's eq. (13) (lines, $\sigma_a = \sigma_c$)
# against the simulated one-against-$N$ flow (squares). Largest deviations
# {glue:text}`arctan_vs_mc_max_abs_error` and {glue:text}`n_repon_vs_sim_max_abs_error` (the curve $N = 1$ on
# the right is the curve $\sigma_a/\sigma_c = 1$ on the left: the same flow from the same starts, so the two
# can share their largest deviation); starts close to the separatrix collide only after a time that diverges at
# $C = 0$, so a finite $T$ slightly undercounts collisions.
#
# Code: {py:func}`lib.geneft.repons.arctan_law`, {py:func}`lib.geneft.repons.monte_carlo_reduced`,
# {py:func}`lib.geneft.repons.monte_carlo_cluster`, {py:func}`lib.geneft.repons.monte_carlo_reduced_grid`,
# {py:func}`lib.geneft.repons.monte_carlo_cluster_grid` · evidence: none, computed live by the chapter.
# ```
#
# ## Beyond the scalar pair: a matrix decoder
#
# The paper's eq. (8) holds for any decoder matrix $\mathbf{A}$ ($m$ outputs, $d$ embedding dimensions), and it
# conserves the whole matrix $M = \mathbf{A}^T\mathbf{A}/(2\eta_A) - \mathbf{r}\mathbf{r}^T/\eta_x$ (checked
# with sympy above); the paper's eq. (11) is its restriction to the ansatz. A collision leaves
# $M = \mathbf{A}^T\mathbf{A}/(2\eta_A)$, positive semi-definite; a pair that stops apart stops where
# $\mathbf{A}\mathbf{r} = 0$, and there $\mathbf{r}^T M \mathbf{r} = -|\mathbf{r}|^4/\eta_x < 0$. So the
# repons should collide exactly when $M \succeq 0$. Below, the paper's eq. (8) is integrated from
# {glue:text}`param_matrix_draws` Gaussian draws per shape ($\sigma_a = \sigma_c = 1$, $\eta_A = \eta_x = 1$)
# and the outcome set against the sign of $M$.

# %% tags=["remove-input"]
study = {(m, d): run.stored(f"collision_study_{m}x{d}", repons.collision_study, m, d, draws=P.matrix_draws,
                            seed=P.seed + i, t_max=P.ode_time, tol=P.collision_tol)
         for i, (m, d) in enumerate([(1, 1), (1, 2), (2, 2), (3, 2)])}
agree = np.concatenate([s.collided == s.m_psd for s in study.values()])
run.metric("collision_iff_m_psd_agreement", fraction(agree))
run.metric("collision_probability_scalar_1d", study[1, 1].collision)
run.metric("collision_probability_scalar_2d", study[1, 2].collision)
run.metric("m_psd_fraction_scalar_2d", study[1, 2].m_psd_fraction)
run.metric("collision_probability_matrix_2x2", study[2, 2].collision)
run.metric("arctan_law_unit", study[1, 1].arctan)
run.metric("collision_scalar_2d_vs_law", phases.distance_from(study[1, 2].collision, study[1, 2].arctan))
run.metric("collision_matrix_2x2_vs_law", phases.distance_from(study[2, 2].collision, study[2, 2].arctan))

# %% tags=["remove-input"]
fig, ax = plt.subplots(figsize=(5.4, 3.4))
labels = [f"{m} × {d}" for m, d in study]
for i, s in enumerate(study.values()):
    ax.errorbar(i, s.collision.value, yerr=np.clip([[s.collision.value - s.collision.low], [s.collision.high - s.collision.value]], 0, None),
                fmt="o", color="tab:blue", label="integrated eq. (8)" if i == 0 else None)
    ax.plot(i, s.m_psd_fraction.value, "x", color="k", label="M positive semi-definite" if i == 0 else None)
ax.axhline(study[1, 1].arctan, color="tab:red", ls="--", lw=1, label="arctan law (12)")
ax.set(xticks=range(len(labels)), xticklabels=labels, xlabel=r"decoder shape $m \times d$", ylabel="P(collision)")
ax.legend(fontsize=8)
run.figure("fig_matrix", fig)

# %% [markdown]
# ```{glue:figure} fig_matrix
# :name: fig-matrix
# Collision probability of two repons under the paper's eq. (8) by decoder shape ($m$ outputs, $d$ embedding
# dimensions), integrated (dots, Wilson 95%) and from the sign of $M$ (crosses), against the paper's eq. (12)
# (dashed). Integration and criterion agree in a fraction
# {glue:text}`collision_iff_m_psd_agreement` {glue:text}`collision_iff_m_psd_agreement_ci` of all draws.
#
# Code: {py:func}`lib.geneft.repons.collision_study` · evidence: none, computed live by the chapter.
# ```
#
# The arctan law is the case $m = d = 1$ ({glue:text}`collision_probability_scalar_1d`
# {glue:text}`collision_probability_scalar_1d_ci` against {glue:text}`arctan_law_unit`, a little under it: a
# finite $T$ undercounts collisions, as above). In the
# paper's own setting, a scalar output and 2-d embeddings, $M$ has rank 2 with one negative
# direction unless $\mathbf{r} \parallel \mathbf{a}$, $|\mathbf{a}\times\mathbf{r}|$ is conserved, and
# exact collisions have probability 0: only {glue:text}`collision_probability_scalar_2d`
# {glue:text}`collision_probability_scalar_2d_ci` of the draws end within the collision tolerance. The decoder
# never sees the separation orthogonal to $\mathbf{a}$. A $2 \times 2$ decoder collides with probability
# {glue:text}`collision_probability_matrix_2x2` {glue:text}`collision_probability_matrix_2x2_ci`, not
# the law's value. A network's repon sees one output per partner element, an $n \times d$ decoder
# with $n \ge d$: it is the matrix criterion, not the scalar law, that applies to it.
#
# ## Learning-rate phase diagrams of real networks (the paper's Fig. 5)
#
# The networks are those of Section II with the paper's Table 3 defaults (embedding dimension 2, decoder of
# depth 3 and width 50 (concatenated inputs), tanh, sigmoid and cross-entropy, training fraction 0.75,
# $n$ = 30), trained full batch with AdamW, a separate rate for the embeddings ($\eta_\mathrm{enc}$) and
# for the decoder ($\eta_\mathrm{dec}$), one split and several initialisations per cell. The paper's Table 4 names
# the phases from the first steps at which train and test accuracy exceed 0.9: generalization (test
# within the threshold of train), grokking (later), memorization (test never), confusion (train
# never); the threshold is 1% of the run, as the paper's $10^3$ of $10^5$ steps. A run leaves the
# batch once its phase is decided.
#
# **Where the numbers come from.** The paper's Figs. 5, 6 and 8 and their claims are read from the book's
# *evidence tier* (stored with the book, computed once by `make evidence`, never in this
# build): {glue:md}`evidence_sizes_text:myst`. A small *live grid* is trained by the chapter's own code (a stored
# result, computed again whenever that code changes) and checked against the stored runs at the same cells, seeds
# and parameters (below). {glue:text}`evidence_state_text`
#
# No single cell decides the boundary: a logistic model of the probability of generalization
# (generalization or grokking) among the runs that fit their training pairs, $\mathrm{logit}\,P = b_0 + b_1\log_{10}\eta_\mathrm{enc} + b_2\log_{10}\eta_\mathrm{dec}$,
# is fitted to every cell of the grid with its seeds pooled (nothing is dropped),
# and the line $P = 1/2$ is the boundary: slope $-b_1/b_2$ and intercept $\log_{10}(\eta^*_\mathrm{dec}/\eta_\mathrm{enc})$
# at the grid's central encoder rate, with delta-method intervals. A grid that a line separates perfectly
# has no maximum-likelihood fit; the fit then says so and uses Firth's penalised likelihood, its interval
# widened to every separating line. Runs in confusion (train accuracy never above 0.9: a decoder rate too
# small for the run, or so large that AdamW never settles) are on neither side of the
# generalization/memorization boundary: they are left out of the fit and counted below.

# %% tags=["remove-input"]
EV, COMPLETE, MISSING = {}, {}, {}
for name in ("phase_grid", "phase_grid_1e5", "weight_decay", "weight_decay_1e5", "weight_decay_1e5_relations",
             "ratio_seeds"):
    available = run.evidence(name)  # still computing: its smoke variant; a corrupt shard stops here
    EV[name], COMPLETE[name], MISSING[name] = available.data, available.complete, available.pending
run.metric("evidence_complete", [name for name, ok in COMPLETE.items() if ok])
# the sets declared before their evidence: nothing is read from one until every shard is stored
NEW_SETS = ("phase_grid_1e5_fast", "phase_grid_rerun", "phase_grid_rerun_intel", "ratio_seeds_1e5_normal",
            "ratio_seeds_gd_1e5_normal", "weight_decay_1e5_coupled", "ratio_seeds_1e5_normal_fresh",
            "ratio_seeds_gd_1e5_normal_fresh")
STATES = {row["set"].split("/")[1]: row for row in evidence_status("geneft_dynamics", read=False)}
REGISTERED = {name: f"registered before its evidence: not judged until its {STATES[name]['shards']} shards are stored"
              for name in NEW_SETS if STATES[name]["counts"].get("missing", 0) + STATES[name]["counts"].get("incomplete", 0)}
run.prose("evidence_sizes_text", "; ".join(  # every set of the chapter, each figure naming its own below
    f"{reader_name(s.name)}: {STATES[s.name]['counts'].get('ok', 0)} of {len(s.shards)} shards stored, "
    f"${tex_number(s.config['steps'])}$ steps, {s.config['seeds']} seeds per cell"
    for s in registry.all_sets() if s.chapter == "geneft_dynamics"))
# phase_grid_1e5 only replaces rows of Fig. 5: while it computes, those rows are read at 1e4 steps (said below)
pending = {name: f"evidence set {reader_name(name)} incomplete: smoke variant shown"
           for name, ok in COMPLETE.items() if not ok and name != "phase_grid_1e5"}
run.text("evidence_state_text", " ".join(
    f"The full set {reader_name(name)} is not complete in this checkout, so its figure shows the small smoke variant "
    f"and its claims are inconclusive by design (their intervals widened to the metric's range)."
    for name in pending) or "Every evidence set that a figure shows is complete.")

# %% tags=["remove-input"]
ev5 = EV["phase_grid"]
cfg5 = ev5.config
lr_enc, lr_dec = 10.0 ** np.array(cfg5["log10_lr_enc"]), 10.0 ** np.array(cfg5["log10_lr_dec"])
relations = sorted({sh.key["relation"] for sh in ev5}, key=["mod3", "greater_than", "bipartite"].index)
grids, row_ids = {}, {}
for rel in relations:
    grids[rel], row_ids[rel] = phase_grid.row_grid(ev5.where(relation=rel), cfg5, P.grok_threshold_fraction)
grids_1e4 = dict(grids)  # every row at the set's steps, before the 1e5-step rows replace theirs
rows = {rel: lr_enc[ids] for rel, ids in row_ids.items()}
# Fig. 5's rows at the paper's 1e5 steps replace their 1e4-step runs once complete: the slow-encoder rows
# (phase_grid_1e5), then the rest (phase_grid_1e5_fast, registered: read only when every shard is stored)
long_sets = [EV["phase_grid_1e5"]] if COMPLETE["phase_grid"] and COMPLETE["phase_grid_1e5"] else []
if long_sets and "phase_grid_1e5_fast" not in REGISTERED:
    long_sets.append(run.evidence("phase_grid_1e5_fast").data)
ev5_long = long_sets[0] if long_sets else None
if ev5_long is not None:
    for ev_rows in long_sets:
        for rel in relations:
            long5, long_ids = phase_grid.row_grid(ev_rows.where(relation=rel), ev_rows.config, P.grok_threshold_fraction)
            grids[rel] = phase_grid.with_rows(grids[rel], [row_ids[rel].tolist().index(r) for r in long_ids], long5)
    long_row_ids = sorted({sh.key["row"] for e in long_sets for sh in e})
    long_rows = reader_list(format_number(cfg5["log10_lr_enc"][r]) for r in long_row_ids)
    steps_long = f"{ev5_long.config['steps']:,}"
    if len(long_row_ids) == len(lr_enc):  # the whole grid at the paper's step count
        grid_text, rows_text = "7 × 9 cells × 3 seeds, every encoder row", "Every encoder row is"
    else:
        grid_text = f"{cfg5['steps']:,} steps; the encoder rows $\\log_{{10}}\\eta_\\mathrm{{enc}}$ = {long_rows}"
        rows_text = f"The encoder rows at log₁₀ rates {long_rows} are"
    run.metric("fig5_evidence", f"the grid of the paper's Fig. 5 ({grid_text} at the paper's {steps_long} steps)")
    run.text("fig5_long_text", f"{rows_text} read from the evidence sets of the same grid at the paper's {steps_long} "
             "steps, the same cells and seeds, each run classified at its own run length.")
else:
    run.metric("fig5_evidence", f"the grid of the paper's Fig. 5 (7 × 9 cells × 3 seeds, {cfg5['steps']:,} steps); the "
               "slow-encoder rows at the paper's 100,000 steps are still computing"
               + (f" ({MISSING['phase_grid_1e5']})" if MISSING["phase_grid_1e5"] else ""))
    run.text("fig5_long_text", "The same grid's slow-encoder rows at the paper's 100,000 steps are not complete in "
             "this checkout; every row is read at the steps above.")
# each run is classified at its own length: the threshold is the same fraction of every run
steps_used = {e.config["steps"] for e in long_sets}
if ev5_long is None or len(long_row_ids) < len(lr_enc):
    steps_used.add(cfg5["steps"])
run.text("grok_threshold_steps", reader_list(f"{P.grok_threshold_fraction * s:,.0f} steps of {s:,}" for s in sorted(steps_used)))
x_ref = float(np.mean(np.log10(lr_enc)))
run.metric("critical_ratio_reference_log10_lr_enc", x_ref)
fits, per_row, cells5 = {}, {}, {}
for rel, g in grids.items():
    E, D = np.meshgrid(np.log10(rows[rel]), np.log10(lr_dec), indexing="ij")
    counts_cells = phase_grid.cell_counts(g, exclude_confusion=True)
    cells5[rel] = (E, D, *counts_cells)  # also read at Fig. 8's encoder rate below
    fits[rel] = phases.fit_boundary(E, D, *counts_cells, x_ref=x_ref)
    slope_error = decide(phases.distance_from(fits[rel].slope, 1.0), 0.0, 10.0, pending.get("phase_grid"))
    equivalence = phases.distance_from(phases.fit_boundary(E, D, *counts_cells, x_ref=x_ref, confidence=0.90).slope, 1.0)
    run.metric(f"boundary_slope_{rel}", fits[rel].slope)
    run.metric(f"boundary_slope_error_{rel}", slope_error)
    run.metric(f"boundary_slope_equivalence_{rel}", decide(equivalence, 0.0, 10.0, pending.get("phase_grid")))
    per_row[rel] = decide(phases.row_boundary_slope(np.log10(rows[rel]), np.log10(lr_dec), *counts_cells),
                          -10.0, 10.0, pending.get("phase_grid"))
    run.metric(f"boundary_slope_per_row_{rel}", per_row[rel])
    # the paper's statement itself, slope 1, tested; the ±0.5 equivalence margin above is the book's robustness reading
    run.metric(f"boundary_slope_test_{rel}", decide(p_value_of(fits[rel].slope, 1.0), 0.0, 1.0,
                                                   pending.get("phase_grid")))
    # while the slope is not 1 the critical ratio depends on eta_enc: one per row, not one pooled number
    x_rows, y_rows = phases.row_boundaries(np.log10(rows[rel]), np.log10(lr_dec), *counts_cells)
    run.metric(f"critical_ratio_log10_per_row_{rel}", [float(y - x) for x, y in zip(x_rows, y_rows)])
    run.metric(f"critical_ratio_rows_log10_lr_enc_{rel}", [float(x) for x in x_rows])
    run.metric(f"boundary_intercept_{rel}", fits[rel].intercept)
    run.metric(f"critical_ratio_log10_per_relation_{rel}", decide(fits[rel].intercept, -10.0, 10.0, pending.get("phase_grid")))
    run.metric(f"boundary_separated_{rel}", fits[rel].separated)
    run.metric(f"boundary_outcome_{rel}", fits[rel].outcome)
shared = phases.compare_intercepts(fits)
spread = decide(phases.intercept_spread(fits), 0.0, 10.0, pending.get("phase_grid"))
ratio_error = decide(shared["pooled"] and phases.distance_from(shared["pooled"], 1.0), 0.0, 10.0,
                            pending.get("phase_grid"))
ratio_error_random = decide(shared["pooled_random"] and phases.distance_from(shared["pooled_random"], 1.0), 0.0, 10.0,
                            pending.get("phase_grid"))
run.metric("boundary_intercept_homogeneity_p", shared["p_value"])
run.metric("boundary_intercept_pooled", shared["pooled"])
run.metric("boundary_intercept_spread", spread)
run.metric("critical_lr_ratio_log10_error", ratio_error)
run.metric("critical_ratio_log10_random", decide(shared["pooled_random"], -10.0, 10.0, pending.get("phase_grid")))
run.metric("critical_ratio_log10_random_hksj", decide(shared["pooled_random_hksj"], -10.0, 10.0, pending.get("phase_grid")))
run.metric("critical_ratio_tau2_random", shared["tau2"])
run.metric("critical_lr_ratio_log10_error_random", ratio_error_random)
counts = phases.phase_counts(np.concatenate([g.phase.ravel() for g in grids.values()]))
for p in phases.PHASES:
    run.metric(f"phase_count_{p}", counts[p])
run.metric("phase_counts", [counts[p] for p in phases.PHASES])
seen = exact(sum(counts[p] > 0 for p in ("generalization", "grokking", "memorization")))
run.metric("phases_seen", decide(seen, 0, 3, pending.get("phase_grid")))
run.metric("borderline_runs", int(sum(g.borderline.sum() for g in grids.values())))
run.text("borderline_runs_text", plural(run.metrics["borderline_runs"], "memorizing or confused run"))

# %% tags=["remove-input"]
fig, axes = panel_grid(len(relations), (3.7, 3.3), max_columns=2, layout="constrained")
xs = np.linspace(np.log10(lr_enc[0]), np.log10(lr_enc[-1]), 50)
for ax, rel in zip(axes, relations):
    phases.draw_phase_diagram(ax, phase_grid.majority_phase(grids[rel]).T, rows[rel], lr_dec)
    f = fits[rel]
    if f.outcome == "boundary" and abs(f.slope.value) < 10:  # a line the axes can show
        ax.plot(10 ** xs, 10 ** (xs + f.intercept.value + (f.slope.value - 1) * (xs - x_ref)), "k-", lw=1.2)
    ax.plot(lr_enc, 10 * lr_enc, "w--", lw=1)
    ax.set(title=RELATION_TITLES[rel], xlabel=r"$\eta_\mathrm{enc}$", ylabel=r"$\eta_\mathrm{dec}$", ylim=(lr_dec[0] / 2, lr_dec[-1] * 2))
phases.add_phase_legend(fig)
run.figure("fig_phase_lr", fig)

# %% [markdown]
# ```{glue:figure} fig_phase_lr
# :name: fig-phase-lr
# Phases over the encoder and decoder learning rates (the paper's Fig. 5, from the
# {ref}`stored grid <evidence-geneft-dynamics-phase-grid>`), the most common
# of the seeds of each cell. Black: the fitted boundary $P(\text{generalize}) = 1/2$; white dashed:
# $\eta_\mathrm{dec} = 10\,\eta_\mathrm{enc}$.
#
# Code: {py:func}`lib.geneft.grid.grid_from_runs`, {py:func}`lib.geneft.phases.fit_boundary`,
# {py:func}`lib.geneft.phases.draw_phase_diagram` · evidence:
# {ref}`geneft_dynamics/phase_grid <evidence-geneft-dynamics-phase-grid>`,
# {ref}`geneft_dynamics/phase_grid_1e5 <evidence-geneft-dynamics-phase-grid-1e5>`,
# {ref}`geneft_dynamics/phase_grid_1e5_fast <evidence-geneft-dynamics-phase-grid-1e5-fast>`.
# ```
#
# The paper's eq. (12) depends on $\eta_x/\eta_A$ only, so a fixed collision probability is a line of constant
# $\eta_\mathrm{dec}/\eta_\mathrm{enc}$: slope $+1$ on these increasing axes (the paper's "slope $-1$"
# comes from an axis drawn downwards; see the {ref}`errata`). {glue:text}`fig5_long_text` Fitted slopes: {glue:text}`slopes_text`.
# Intercepts, $\log_{10}$ of the critical ratio at $\eta_\mathrm{enc} = 10^{x}$, $x$ = {glue:text}`x_ref_text`:
# {glue:text}`intercepts_text`; their largest difference is {glue:text}`boundary_intercept_spread`
# {glue:text}`boundary_intercept_spread_ci` decades (Cochran's Q test that they are one: $p$ =
# {glue:text}`boundary_intercept_homogeneity_p`). Over the three grids the phases count
# {glue:text}`counts_text` (confusion left out of the fits; the paper's Table 4 threshold: {glue:text}`grok_threshold_steps`);
# {glue:text}`borderline_runs_text` ended within two test pairs of 0.9 (kept as
# the paper's Table 4 labels them; the fit pools them with their cell's seeds).
#
# The claims that decide the row test the paper's slope of 1 on the logistic boundary's slope: a Wald test at
# level 5%, the claim holding when the test does not reject. Beside them, the book's reading is an equivalence test
# with a margin fixed before the fit, $|\text{slope} - 1| < 0.5$ (at the ends of the paper's three decades of
# $\eta_\mathrm{enc}$ such a slope moves the boundary by 0.75 decade, one and a half grid steps): it holds when the
# 90% interval of the slope lies inside the margin (two one-sided tests at level 5%) and does not hold when it lies
# outside; the 95% interval is shown as a robustness reading. Beside the logistic fit, the $1/2$ crossing of each row, read
# without a logistic shape (fractions made monotone along $\eta_\mathrm{dec}$, crossing interpolated)
# and fitted by least squares over the rows, gives slopes
# {glue:text}`per_row_text`.
#
# The relations need not share one critical ratio (Cochran's Q above tests it), so "a ratio of about 10"
# is read as the mean over relations with random effects (DerSimonian-Laird; between-relation variance
# $\tau^2$ = {glue:text}`critical_ratio_tau2_random` decade$^2$): $\log_{10}$ ratio
# {glue:text}`critical_ratio_log10_random` {glue:text}`critical_ratio_log10_random_ci` at
# $\eta_\mathrm{enc} = 10^{x}$ (Hartung-Knapp interval with 2 degrees of freedom:
# {glue:text}`critical_ratio_log10_random_hksj_ci`). One common ratio (fixed effects), the reading Q
# tests, would give {glue:text}`boundary_intercept_pooled` {glue:text}`boundary_intercept_pooled_ci`.
# Where the slopes are not 1, each ratio depends on the encoder rate it is read at.
#
# - {glue:text}`verdict_g_5_slope_mod3`
# - {glue:text}`verdict_g_5_slope_greater_than`
# - {glue:text}`verdict_g_5_slope_bipartite`
# - {glue:text}`verdict_g_5_shared_intercept`
# - {glue:text}`verdict_g_5_ratio_10`
# - {glue:text}`verdict_g_a4`

# %% tags=["remove-cell"]
run.text("slopes_text", ", ".join(f"{interval_text(fits[r].slope)} ({RELATION_TITLES[r]}{', separable' if fits[r].separated else ''})"
                                  if fits[r].outcome == "boundary" else f"none ({RELATION_TITLES[r]}: {fits[r].outcome})"
                                  for r in relations))
run.text("intercepts_text", ", ".join(f"{interval_text(fits[r].intercept)} ({RELATION_TITLES[r]})" if fits[r].outcome == "boundary"
                                      else f"none ({RELATION_TITLES[r]})" for r in relations))
run.text("x_ref_text", significant(x_ref, 3))
run.text("per_row_text", ", ".join(f"{interval_text(per_row[r])} ({RELATION_TITLES[r]}, {per_row[r].n} rows)" for r in relations))
run.text("counts_text", ", ".join(f"{v} {k}" for k, v in counts.items()))

# %% [markdown]
# ### The live grid against the evidence
#
# The chapter trains {glue:text}`live_seeds_text` of {glue:text}`param_live_relation`
# at $\log_{10}\eta_\mathrm{enc}$ in {glue:text}`param_live_log10_lr_enc` and $\log_{10}\eta_\mathrm{dec}$ in
# {glue:text}`param_live_log10_lr_dec` for {glue:md}`live_steps_text:myst` steps and compares the phase the paper's
# Table 4 gives each run with that of the stored run of the same cell and seed: {glue:text}`live_text`

# %% tags=["remove-input"]
live_net = dict(n=P.n, train_fraction=P.train_fraction, split_seed=P.seed, mode=P.mode, depth=P.depth, width=P.width,
                embed_dim=P.embed_dim, init_scale=P.init_scale, steps=P.steps)
live_seeds = P.seed + np.arange(P.seeds_per_cell)
run.text("live_seeds_text", plural(P.seeds_per_cell, "initialisation"))
run.prose("live_steps_text", f"${tex_number(P.steps)}$")
live = run.stored("live_phase_grid", phase_grid.train_phase_grid_log10, P.live_relation, P.live_log10_lr_enc,
                  P.live_log10_lr_dec, seeds=live_seeds, threshold_fraction=P.grok_threshold_fraction,
                  checkpoint=unhashed(CACHE and CACHE / "live"), **live_net)
run.metric("live_phase_counts", [phases.phase_counts(live.phase.ravel())[p] for p in phases.PHASES])
reference = [EV["phase_grid"]] + ([run.evidence("phase_grid", "smoke", reference=True).data] if COMPLETE["phase_grid"] else [])
stored, ref = None, None
for ev in reference:
    if not phase_grid.evidence_mismatch(ev.config, live_net):
        stored = phase_grid.lookup_runs(ev.config, ev.where(relation=P.live_relation), P.live_log10_lr_enc,
                                        P.live_log10_lr_dec, live_seeds)
        if stored is not None:
            ref = ev
            break
if stored is not None:
    ref_grid = phase_grid.grid_from_runs(stored["step_train_90"], stored["step_test_90"], stored["test_acc"],
                                         stored["embed"], n_test=live.n_test, steps=P.steps,
                                         threshold_fraction=P.grok_threshold_fraction)
    agreement = float(np.mean(ref_grid.phase == live.phase))
    identical = bool(np.array_equal(ref_grid.step_train_90, live.step_train_90)
                     and np.array_equal(ref_grid.step_test_90, live.step_test_90))
    run.metric("live_evidence_phase_agreement", agreement)
    run.metric("live_evidence_crossings_identical", identical)
    run.text("live_text", f"against the {ref.variant} evidence, the phases agree in a fraction {significant(agreement, 3, strip=True)} of "
             f"{live.phase.size} runs, and the first-crossing steps are {'' if identical else 'not '}identical.")
else:
    run.metric("live_evidence_phase_agreement", decide(None, 0.0, 1.0, "no stored run to compare with"))
    run.text("live_text", "no stored run has these parameters, cells and seeds ("
             + "; ".join(f"{ev.variant}: differs in {', '.join(phase_grid.evidence_mismatch(ev.config, live_net)) or 'cells or seeds'}"
                         for ev in reference) + "), so there is nothing to compare with.")

# %% [markdown]
# {glue:text}`verdict_g_5_live_vs_evidence`
#
# ### The stored runs on another processor
#
# Floating-point results differ between processors (their vector units round sums in another order), and a run
# near one of Table 4's lines can land on its other side. A sample of the stored $10^4$-step runs of Fig. 5's grid
# (which the figure now reads at the paper's $10^5$ steps), fixed before it was
# computed (the {ref}`rerun sample <evidence-geneft-dynamics-phase-grid-rerun>`: the rows $\eta_\mathrm{enc} = 10^{-3.5}$ and $10^{-3}$ of every
# relation, where the phases are mixed), was computed again with the same code, configuration and seeds on
# another machine: {glue:text}`rerun_text`
#
# {glue:text}`verdict_g_5_rerun_agreement`

# %% tags=["remove-input"]
# the reproducibility sample on each processor family, once its shards are all stored
rerun_sets = {name: run.evidence(name).data for name in ("phase_grid_rerun", "phase_grid_rerun_intel")
              if name not in REGISTERED}
if "phase_grid_rerun" not in rerun_sets or not COMPLETE["phase_grid"]:
    reason = REGISTERED.get("phase_grid_rerun", MISSING["phase_grid"])
    run.metric("rerun_phase_agreement", undecided(None, 0.0, 1.0, reason))
    run.text("rerun_text", f"the comparison is not made in this checkout ({reason}).")
else:
    rerun = rerun_sets["phase_grid_rerun"]
    cfg_r = rerun.config
    cmp_r = phase_grid.compare_rerun(EV["phase_grid"], rerun, steps=cfg_r["steps"],
                                     n_test=phase_grid.test_pairs(cfg_r["n"], cfg_r["train_fraction"], cfg_r["split_seed"]),
                                     threshold_fraction=P.grok_threshold_fraction)
    run.metric("rerun_phase_agreement", fraction(cmp_r.agree))
    run.metric("rerun_phase_changes", [[a, b, k] for (a, b), k in cmp_r.changes().items()])
    run.text("rerun_text", cmp_r.agreement_text()
             + ". The stored runs were computed on "
             + (" and ".join(p for p in EV["phase_grid"].summary()["processors"] if p != "not recorded")
                or "a processor they do not record (shards name theirs since November 2026)")
             + f", the rerun on {' and '.join(rerun.summary()['processors'])}.")

# %% [markdown]
# Processors of two families round differently (AVX2 on the AMD, AVX-512 and AMX on the Intel, each with
# torch's kernels for it). The same sample, registered before it was computed a third time, on an Intel Xeon, and
# compared run by run with the rerun on the AMD:
# {glue:md}`rerun_families_text:myst`
#
# {glue:text}`verdict_g_5_rerun_agreement_across_families`

# %% tags=["remove-input"]
processors = {name: set(data.summary()["processors"]) for name, data in rerun_sets.items()}
if len(rerun_sets) < 2 or processors["phase_grid_rerun"] & processors["phase_grid_rerun_intel"]:
    reason = (REGISTERED.get("phase_grid_rerun_intel") or REGISTERED.get("phase_grid_rerun")
              or "the two reruns name the same processor")
    run.metric("rerun_phase_agreement_across_families", undecided(None, 0.0, 1.0, reason))
    run.prose("rerun_families_text", f"the comparison is not made in this checkout ({reason}).")
else:
    cfg_x = rerun_sets["phase_grid_rerun_intel"].config
    cmp_x = phase_grid.compare_rerun(rerun_sets["phase_grid_rerun"], rerun_sets["phase_grid_rerun_intel"],
                                     steps=cfg_x["steps"], threshold_fraction=P.grok_threshold_fraction,
                                     n_test=phase_grid.test_pairs(cfg_x["n"], cfg_x["train_fraction"], cfg_x["split_seed"]))
    run.metric("rerun_phase_agreement_across_families", fraction(cmp_x.agree))
    run.metric("rerun_phase_changes_across_families", [[a, b, k] for (a, b), k in cmp_x.changes().items()])
    rates = [f"{plural(k, 'run')} at $\\eta_\\mathrm{{dec}} = {tex_power_of_ten(cfg_x['log10_lr_dec'][i])}$"
             for i, k in cmp_x.changed_settings().items()]
    run.prose("rerun_families_text", cmp_x.agreement_text()
              + (f"; by decoder rate, {reader_list(rates)}, of a grid up to "
                 f"${tex_power_of_ten(max(cfg_x['log10_lr_dec']))}$" if rates else "")
              + f". The rerun ran on {' and '.join(sorted(processors['phase_grid_rerun']))}, this one on "
              + f"{' and '.join(sorted(processors['phase_grid_rerun_intel']))}.")

# %% [markdown]
# ### Did the repons collapse?
#
# Theorem 2 ties generalization to the collision of same-class repons. The stored final embeddings of
# the paper's Fig. 5 networks of the class relations say whether that happened: the ratio of the mean
# within-class to the mean between-class distance is 0 for a full collapse and about 1 without class
# structure. The claim is decided without a cut-off: the AUC with which that ratio separates the runs
# that generalized from the others (1: every generalizing run more collapsed than every other run,
# 1/2: no relation), with a bootstrap interval; the fixed cut-off {glue:text}`param_collapse_threshold`
# is a robustness reading. A generalizing run stops when its phase is decided, so its embeddings are
# those at its early stop, while a memorizing run is read at the end of the run: the comparison
# handicaps the generalizing runs, which had less time to collapse.

# %% tags=["remove-input"]
class_rels = [r for r in relations if class_labels(r, cfg5["n"]) is not None]
# the 1e4-step grid's runs, read at their early stop: the runs the claims read trained to the end (phase_grid_to_end)
collapse = {r: repons.collapse_vs_phase(grids_1e4[r].embed.reshape(-1, cfg5["n"], cfg5["embed_dim"]),
                                        class_labels(r, cfg5["n"]), grids_1e4[r].generalized.ravel(),
                                        threshold=P.collapse_threshold)
            for r in class_rels}
for r, c in collapse.items():
    run.metric(f"repon_collapse_agreement_{r}", decide(c["agreement"], 0.0, 1.0, pending.get("phase_grid")))
    for key in ("collapsed_if_generalized", "collapsed_if_not"):
        run.metric(f"repon_{key}_{r}", c[key])
    run.metric(f"repon_collapse_auc_{r}", decide(c.get("auc_estimate"), 0.0, 1.0, pending.get("phase_grid")))

# %% tags=["remove-input"]
fig, ax = plt.subplots(figsize=(5.0, 3.2))
for i, r in enumerate(class_rels):
    gen = grids_1e4[r].generalized.ravel()
    jitter = np.random.default_rng(0).uniform(-0.15, 0.15, gen.size)
    ax.scatter(i + jitter, collapse[r]["ratio"], c=np.where(gen, "tab:green", "tab:purple"), s=12)
ax.axhline(P.collapse_threshold, color="k", ls=":", lw=1)
ax.set(yscale="log", xticks=range(len(class_rels)), xticklabels=[reader_name(r) for r in class_rels],
       ylabel="within / between distance")
run.figure("fig_collapse", fig)

# %% [markdown]
# ```{glue:figure} fig_collapse
# :name: fig-collapse
# Within-class over between-class embedding distance of each run of the $10^4$-step grid of the paper's Fig. 5
# (evidence), read where the run stopped (the robustness reading: a generalizing run stops early), green where the
# run generalized, purple where it did not; dotted: the collapse threshold {glue:text}`param_collapse_threshold`. The
# claims read the same runs trained to the end of their $10^4$ steps (the
# {ref}`runs trained to the end <evidence-geneft-dynamics-phase-grid-to-end>`, below).
#
# Code: {py:func}`lib.geneft.repons.collapse_vs_phase` · evidence:
# {ref}`geneft_dynamics/phase_grid <evidence-geneft-dynamics-phase-grid>`.
# ```
#
# {glue:text}`collapse_text` (read at the early stop: the robustness reading of the claims below).

# %% tags=["remove-cell"]
run.text("collapse_text", repons.collapse_text(collapse, RELATION_TITLES, "collapsed", auc_interval=False))

# %% [markdown]
# **Read at one step for every run.** The claim reads the repons of every run at the same step: the
# {ref}`runs trained to the end <evidence-geneft-dynamics-phase-grid-to-end>` are the paper's Fig. 5 networks of the
# class relations trained again, same split, seeds, cells
# and {glue:md}`collapse_end_steps:myst` steps, without the early stop, so that generalizing runs are read at the
# end of the run like the others ({glue:text}`collapse_end_setup_text`). Their phases are classified from their
# own first crossings, as above; they are the runs of the $10^4$-step grid continued, and the runs given the same phase as
# there number {glue:text}`collapse_end_agreement_text`.

# %% tags=["remove-input"]
end_available = run.evidence("phase_grid_to_end")
end_ev, cfg_end = end_available.data, end_available.data.config
pending_end = None if end_available.complete else "evidence set phase_grid_to_end incomplete: smoke variant shown"
end_rels = sorted({sh.key["relation"] for sh in end_ev}, key=["mod3", "greater_than", "bipartite"].index)
grids_end = {r: phase_grid.row_grid(end_ev.where(relation=r), cfg_end, P.grok_threshold_fraction)[0] for r in end_rels}
collapse_end = {r: repons.collapse_vs_phase(g.embed.reshape(-1, cfg_end["n"], cfg_end["embed_dim"]),
                                            class_labels(r, cfg_end["n"]), g.generalized.ravel(),
                                            threshold=P.collapse_threshold) for r, g in grids_end.items()}
for r, c in collapse_end.items():
    run.metric(f"repon_collapse_auc_end_{r}", decide(c.get("auc_estimate"), 0.0, 1.0, pending_end))
    run.metric(f"repon_collapse_agreement_end_{r}", decide(c["agreement"], 0.0, 1.0, pending_end))
    for key in ("collapsed_if_generalized", "collapsed_if_not"):
        run.metric(f"repon_{key}_end_{r}", c[key])
    run.metric(f"repon_generalized_runs_end_{r}", int(grids_end[r].generalized.sum()))
    run.metric(f"repon_runs_end_{r}", int(grids_end[r].generalized.size))
same_runs = cfg_end == cfg5 and all(r in grids_1e4 for r in end_rels)  # the phase_grid runs, continued
agree_end = {r: g.phase == grids_1e4[r].phase for r, g in grids_end.items()} if same_runs else {}
run.text("collapse_end_agreement_text", "; ".join(f"{RELATION_TITLES[r]}: {int(a.sum())} of {a.size} runs"
                                                  for r, a in agree_end.items())
         or "not compared: the stored sets differ in their configuration")
run.prose("collapse_end_steps", f"${tex_number(cfg_end['steps'])}$")
run.text("collapse_end_setup_text", f"{', '.join(RELATION_TITLES[r] for r in end_rels)}, {len(end_ev)} shards, "
         f"{end_ev.variant} variant")
run.text("collapse_end_text", repons.collapse_text(collapse_end, RELATION_TITLES, "under the cut-off", auc_interval=True))

# %% [markdown]
# {glue:text}`collapse_end_text`.
#
# - {glue:text}`verdict_g_th2_collapse_mod3`
# - {glue:text}`verdict_g_th2_collapse_bipartite`

# %% [markdown]
# ## Probability of generalization against the rate ratio (the paper's Fig. 6)
#
# The paper's Fig. 6 trains many seeds at each ratio $\eta_\mathrm{dec}/\eta_\mathrm{enc}$ for several initialisation
# scales and draws the paper's eq. (12) under them, with $\eta_x = \eta_\mathrm{enc}$, $\eta_A = \eta_\mathrm{dec}$
# (the {ref}`seed-ratio runs <evidence-geneft-dynamics-ratio-seeds>`: {glue:md}`fig6_setup_text:myst`). The bound needs $\sigma_a/\sigma_c$, which the
# paper does not give; the networks fix it. At initialisation, the decoder's Jacobian with respect
# to a repon (against one partner) plays $\mathbf{A}$ and half the distance of two repons plays
# $\mathbf{r}$; along a random direction $a_2$ and $c$ then have variances $E|J|^2/d$ and $E|\mathbf{r}|^2/d$,
# so $\sigma_a/\sigma_c = \sqrt{E|J|^2/E|\mathbf{r}|^2}$ (over
# {glue:text}`param_sigma_models` models, bootstrap interval, computed live). Each init scale is compared
# with the band of the paper's eq. (12) that its interval gives; a point lies above the bound when its whole Wilson
# interval does.

# %% tags=["remove-input"]
ev6, cfg6 = EV["ratio_seeds"], EV["ratio_seeds"].config
scales6 = sorted({float(sh.key["init_scale"]) for sh in ev6})
g6, ratio6 = {}, {}
for s in scales6:
    g6[s], ratio6[s] = phase_grid.ratio_points(ev6.where(init_scale=s), cfg6, P.grok_threshold_fraction)
sigma = {s: run.stored(f"sigma_ratio_init_{s!r}", repons.init_sigma_ratio, P.seed + np.arange(P.sigma_models), cfg6["n"],
                      mode=cfg6["mode"], depth=cfg6["depth"], width=cfg6["width"], embed_dim=cfg6["embed_dim"],
                      init_scale=s, seed=P.seed)
         for s in scales6}
cmp6 = {s: repons.compare_with_arctan(*phase_grid.cell_counts(g6[s]), ratio6[s], sigma[s]) for s in scales6}
under = repons.fraction_not_above(cmp6)
run.metric("fig6_fraction_under_bound", decide(under, 0.0, 1.0, pending.get("ratio_seeds")))
for s in scales6:
    run.metric(f"sigma_ratio_init_{s:g}", sigma[s])
    run.metric(f"fig6_generalized_init_{s:g}", [p.as_dict() for p in cmp6[s]["points"]])
needed6 = {s: float(repons.sigma_ratio_for_bound(*phase_grid.cell_counts(g6[s]), ratio6[s])) for s in scales6}
for s in scales6:
    run.metric(f"sigma_ratio_for_bound_init_{s:g}", needed6[s])
run.prose("fig6_setup_text", f"{RELATION_TITLES[cfg6['relation']]}, $\\eta_\\mathrm{{enc}} = {tex_number(cfg6['lr_enc'])}$, "
          f"{cfg6['seeds']} seeds per point, ${tex_number(cfg6['steps'])}$ steps, {ev6.variant} variant")
shape6 = {s: repons.arctan_shape_test(*phase_grid.cell_counts(g6[s]), ratio6[s]) for s in scales6}
for s in scales6:
    runs6 = int(phase_grid.cell_counts(g6[s])[1].sum())
    p6 = p_value(shape6[s]["p_value"], runs6, f"likelihood-ratio goodness of fit, chi2({shape6[s]['df']})")
    run.metric(f"fig6_arctan_shape_p_init_{s:g}", decide(p6, 0.0, 1.0, pending.get("ratio_seeds")))
    run.metric(f"fig6_arctan_best_sigma_init_{s:g}", shape6[s]["sigma"])
by_sigma = sorted(scales6, key=lambda s: sigma[s].value)
run.metric("fig6_sigma_monotone_difference", decide(
    repons.generalization_difference_by_sigma({s: phase_grid.cell_counts(g6[s]) for s in scales6}, sigma),
    -1.0, 1.0, pending.get("ratio_seeds") or (len(scales6) < 2 and "one init scale")))
run.metric("fig6_sigma_ratio_largest_over_smallest", sigma[by_sigma[-1]].value / sigma[by_sigma[0]].value)

# %% tags=["remove-input"]
fig, ax = plt.subplots(figsize=(5.6, 3.8))
repons.draw_generalization_against_ratio(ax, {s: ratio6[s] for s in scales6}, cmp6, sigma)
run.figure("fig_prob", fig)

# %% [markdown]
# ```{glue:figure} fig_prob
# :name: fig-prob
# Fraction of seeds that generalize (the {ref}`seed-ratio runs <evidence-geneft-dynamics-ratio-seeds>`, Wilson 95%)
# against the learning-rate
# ratio, per initialisation scale, with the band of the paper's eq. (12) at the $\sigma_a/\sigma_c$ measured at that
# scale (shaded). A fraction {glue:text}`fig6_fraction_under_bound` {glue:text}`fig6_fraction_under_bound_ci`
# of the points is not above its band.
#
# Code: {py:func}`lib.geneft.repons.compare_with_arctan`, {py:func}`lib.geneft.repons.init_sigma_ratio` ·
# evidence: {ref}`geneft_dynamics/ratio_seeds <evidence-geneft-dynamics-ratio-seeds>`.
# ```
#
# The measured ratios are {glue:text}`sigma_text`: at initialisation the decoder responds weakly
# to a repon's position compared with the spread of the repons, which sets the level of the paper's eq. (12).
# The networks are trained with AdamW, whose per-parameter normalisation makes the effective rates
# differ from $\eta_\mathrm{enc}$ and $\eta_\mathrm{dec}$, so the paper's eq. (12) gradient-flow reading is a
# hypothesis that the claim tests: {glue:text}`verdict_g_6`. Read backwards, the paper's eq. (12) lies on or above
# every point only when $\sigma_a/\sigma_c$ is at least {glue:text}`sigma_needed_text`
# (at the Wilson lower ends): that is how far the initialisation
# reading above is from one under which the paper's figure would hold.
#
# Two readings need no $\sigma_a/\sigma_c$ at all. First, the shape: fitted with $\sigma_a/\sigma_c$ free
# (maximum likelihood over the binomial counts), the paper's eq. (12) is tested against one free probability per
# ratio (likelihood ratio, 3 degrees of freedom): {glue:md}`shape_text:myst`. Second, the direction: the paper's eq. (12)
# grows with $\sigma_a/\sigma_c$, and the init scale whose measured ratio is larger (by a factor
# {glue:text}`fig6_sigma_ratio_largest_over_smallest`) should generalize at least as often; pooled
# over the ratios, the difference of the fractions that generalize (larger minus smaller
# $\sigma_a/\sigma_c$) is {glue:text}`fig6_sigma_monotone_difference`
# {glue:text}`fig6_sigma_monotone_difference_ci` (Newcombe 95%).
#
# - {glue:text}`verdict_g_6_arctan_shape`
# - {glue:text}`verdict_g_6_sigma_monotone`

# %% tags=["remove-cell"]
run.text("sigma_text", ", ".join(f"{interval_text(sigma[s])} at scale {s:g}" for s in scales6))
run.text("sigma_needed_text", ", ".join(f"{format_number(needed6[s])} at scale {s:g}" for s in scales6))
run.prose("shape_text", ", ".join(f"$p = {tex_p_value(shape6[s]['p_value'])}$ at scale {s:g} (best fitting "
                                  f"$\\sigma_a/\\sigma_c = {tex_number(shape6[s]['sigma'])}$)" for s in scales6))

# %% [markdown]
# ### Under the dynamics the paper's eq. (12) is derived for: plain gradient descent
#
# The paper's eq. (12) integrates the gradient flow of the repons, with $\eta_x$ and $\eta_A$ the rates of plain
# gradient descent. The {ref}`gradient-descent runs <evidence-geneft-dynamics-ratio-seeds-gd>` train the same
# networks, split and seeds as the {ref}`AdamW runs <evidence-geneft-dynamics-ratio-seeds>` by full-batch gradient descent ($\theta \leftarrow \theta - \eta\,\nabla L$, $\eta_\mathrm{enc}$ on the
# embeddings, $\eta_\mathrm{dec}$ on the decoder): {glue:md}`fig6_gd_setup_text:myst`.
# The rates were fixed by a pilot that read training losses only, before any outcome: every pilot run (two
# seeds outside the set, every init scale, ratios 1 and $10^{1.5}$) with a decoder rate up to 1 kept its loss at
# or under its initial value and ended lower, every one with a larger decoder rate rose above it, whatever the
# encoder rate; so the decoder rate, which sets the stable step, is fixed at 1 and the encoder rate is
# $\eta_\mathrm{dec}$ divided by the ratio (as the {ref}`set's entry <evidence-geneft-dynamics-ratio-seeds-gd>` describes). The
# $\sigma_a/\sigma_c$ of each init scale is measured as above (it depends on the initialisation only), now
# at three scales, so that the direction of the paper's eq. (12) is tested across a factor {glue:text}`fig6_gd_sigma_span` in
# $\sigma_a/\sigma_c$.

# %% tags=["remove-input"]
gd_available = run.evidence("ratio_seeds_gd")
ev6g, cfg6g = gd_available.data, gd_available.data.config
pending_gd = None if gd_available.complete else "evidence set ratio_seeds_gd incomplete: smoke variant shown"
scales6g = sorted({float(sh.key["init_scale"]) for sh in ev6g})
g6g, ratio6g = {}, {}
for s in scales6g:
    g6g[s], ratio6g[s] = phase_grid.ratio_points(ev6g.where(init_scale=s), cfg6g, P.grok_threshold_fraction)
sigma_gd = {s: run.stored(f"sigma_ratio_gd_init_{s!r}", repons.init_sigma_ratio, P.seed + np.arange(P.sigma_models),
                         cfg6g["n"], mode=cfg6g["mode"], depth=cfg6g["depth"], width=cfg6g["width"],
                         embed_dim=cfg6g["embed_dim"], init_scale=s, seed=P.seed)
            for s in scales6g}
cmp6g = {s: repons.compare_with_arctan(*phase_grid.cell_counts(g6g[s]), ratio6g[s], sigma_gd[s]) for s in scales6g}
shape6g = {s: repons.arctan_shape_test(*phase_grid.cell_counts(g6g[s]), ratio6g[s]) for s in scales6g}
by_sigma_gd = sorted(scales6g, key=lambda s: sigma_gd[s].value)

# %% tags=["remove-input"]
run.metric("fig6_gd_fraction_under_bound", decide(repons.fraction_not_above(cmp6g), 0.0, 1.0, pending_gd))
for s in scales6g:
    run.metric(f"sigma_ratio_gd_init_{s:g}", sigma_gd[s])
    run.metric(f"fig6_gd_generalized_init_{s:g}", [p.as_dict() for p in cmp6g[s]["points"]])
    run.metric(f"fig6_gd_generalized_pooled_init_{s:g}", fraction(int(phase_grid.cell_counts(g6g[s])[0].sum()),
                                                                  int(phase_grid.cell_counts(g6g[s])[1].sum())))
    run.metric(f"fig6_gd_confusion_init_{s:g}", fraction(g6g[s].phase == phases.PHASES.index("confusion")))
    runs6g = int(phase_grid.cell_counts(g6g[s])[1].sum())
    run.metric(f"fig6_gd_arctan_shape_p_init_{s:g}", decide(
        p_value(shape6g[s]["p_value"], runs6g, f"likelihood-ratio goodness of fit, chi2({shape6g[s]['df']})"),
        0.0, 1.0, pending_gd))
    run.metric(f"fig6_gd_arctan_best_sigma_init_{s:g}", shape6g[s]["sigma"])
    # the shape test with each ratio left out in turn: a rejection that rests on one point shows as a dependence
    for left_out, test in repons.arctan_shape_without_each(*phase_grid.cell_counts(g6g[s]), ratio6g[s]).items():
        run.metric(f"fig6_gd_arctan_shape_p_init_{s:g}_without_{left_out:g}".replace(".", "_"), decide(
            p_value(test["p_value"], runs6g, f"likelihood-ratio goodness of fit, chi2({test['df']})"),
            0.0, 1.0, pending_gd))
run.metric("fig6_gd_sigma_monotone_difference", decide(
    repons.generalization_difference_by_sigma({s: phase_grid.cell_counts(g6g[s]) for s in scales6g}, sigma_gd),
    -1.0, 1.0, pending_gd or (len(scales6g) < 2 and "one init scale")))
run.text("fig6_gd_sigma_span", format_number(sigma_gd[by_sigma_gd[-1]].value / sigma_gd[by_sigma_gd[0]].value))
run.prose("fig6_gd_setup_text", f"{RELATION_TITLES[cfg6g['relation']]}, $\\eta_\\mathrm{{dec}} = {tex_number(cfg6g['lr_dec'])}$ and "
          "$\\eta_\\mathrm{enc} = \\eta_\\mathrm{dec}/\\text{ratio}$, ratios "
          f"{reader_list(f'${tex_power_of_ten(r)}$' for r in cfg6g['log10_ratios'])}, init scales "
          f"{reader_list(f'{s:g}' for s in scales6g)}, {cfg6g['seeds']} seeds per point, ${tex_number(cfg6g['steps'])}$ "
          f"steps, {ev6g.variant} variant")
fig, ax = plt.subplots(figsize=(5.6, 3.8))
repons.draw_generalization_against_ratio(ax, {s: ratio6g[s] for s in scales6g}, cmp6g, sigma_gd)
run.figure("fig_prob_gd", fig)

# %% [markdown]
# ```{glue:figure} fig_prob_gd
# :name: fig-prob-gd
# As the figure above, for the networks trained by plain gradient descent.
#
# Code: {py:func}`lib.geneft.train.train_models_gd`, {py:func}`lib.geneft.repons.compare_with_arctan`,
# {py:func}`lib.geneft.repons.init_sigma_ratio` · evidence:
# {ref}`geneft_dynamics/ratio_seeds_gd <evidence-geneft-dynamics-ratio-seeds-gd>`.
# ```

# %% tags=["remove-input"]
Markdown(markdown_table(
    ("init scale", "$\\sigma_a/\\sigma_c$", "generalizes, pooled over the ratios", "arctan shape: $p$"),
    ((f"{s:g}", interval_text(sigma_gd[s]), interval_text(fraction(*(int(c.sum()) for c in phase_grid.cell_counts(g6g[s])))),
      f"${tex_p_value(shape6g[s]['p_value'])}$") for s in scales6g)))

# %% [markdown]
# The table above gives each init scale of the gradient-descent runs. A fraction {glue:text}`fig6_gd_fraction_under_bound`
# {glue:text}`fig6_gd_fraction_under_bound_ci` of the points is not above the band of the paper's eq. (12)
# ({glue:text}`verdict_g_6_gd`). Pooled over the ratios, the fraction that generalizes at the init scale with the
# largest $\sigma_a/\sigma_c$ minus that at the smallest is {glue:text}`fig6_gd_sigma_monotone_difference`
# {glue:text}`fig6_gd_sigma_monotone_difference_ci` (Newcombe 95%; negative: it generalizes less often;
# {glue:text}`verdict_g_6_gd_sigma_monotone`).
# The arctan shape at init scale 1: {glue:text}`verdict_g_6_gd_arctan_shape`.

# %% [markdown]
# ### Fig. 6 at the paper's stated setting
#
# The AdamW runs above stop at $10^4$ steps and draw the decoder from PyTorch's default, a uniform law of
# half-width $1/\sqrt{\text{fan-in}}$ times the init scale. Table 4 counts $10^5$ steps, and Fig. 6's caption draws
# "the initializations ... from a standard normal distribution scaled by the initialization factor"; it exempts no
# parameter, so the decoder's biases are drawn so too. The
# {ref}`runs at the stated setting <evidence-geneft-dynamics-ratio-seeds-1e5-normal>` train the networks, split,
# encoder rate, ratios and seeds of the {ref}`AdamW runs above <evidence-geneft-dynamics-ratio-seeds>` that way, at init scales 0.5 and 1 (the paper's
# text does not list its scales). Its first claim (G-6/paper-init-1e5, below) was declared before any of its runs
# existed, and the chapter reads nothing from the set until every shard is stored. What the initialisation alone fixes is measured as above:
# under the caption's initialisation $\sigma_a/\sigma_c$ is {glue:text}`fig6_normal_sigma_text` (init scale 2 is
# trained only by the gradient-descent runs below).
# {glue:text}`fig6_normal_text`.
#
# The paper's statement is that every point lies under the law. Read so, each point's fraction is compared with the
# top of its band at the Bonferroni level over the points, as the networks of the paper's Fig. 3 are compared with
# their bound: the largest excess is {glue:text}`fig6_excess_over_bound_1e5_normal`
# {glue:text}`fig6_excess_over_bound_1e5_normal_ci`: {glue:text}`fig6_decision_text_1e5_normal`. The table's last
# column reads each point alone, at 95%. The book's first reading, which counts the points above the band at 95%,
# is shown after it. A confirmation on fresh seeds, registered before its runs, follows the gradient-descent runs
# below ({ref}`A registered confirmation on fresh seeds <fig6-fresh-confirmation>`).
#
# - {glue:text}`verdict_g_6_paper_init_1e5_all_points`
# - {glue:text}`verdict_g_6_paper_init_1e5`

# %% tags=["remove-input"]
set6n, set6gn = (registry.get("geneft_dynamics", name) for name in ("ratio_seeds_1e5_normal", "ratio_seeds_gd_1e5_normal"))
cfg6n, cfg6gn = set6n.config, set6gn.config
scales6n, scales6gn = (sorted({float(sh["init_scale"]) for sh in s.shards}) for s in (set6n, set6gn))
# sigma_a / sigma_c depends on the network and its initialisation only, the same for both sets at a scale
sigma6n = {s: run.stored(f"sigma_ratio_1e5_normal_init_{s!r}", repons.init_sigma_ratio,
                         P.seed + np.arange(P.sigma_models), cfg6n["n"], mode=cfg6n["mode"], depth=cfg6n["depth"],
                         width=cfg6n["width"], embed_dim=cfg6n["embed_dim"], init_scale=s,
                         decoder_init=cfg6n["decoder_init"], seed=P.seed)
           for s in sorted({*scales6n, *scales6gn})}
for s in sigma6n:
    run.metric(f"sigma_ratio_1e5_normal_init_{s:g}", sigma6n[s])
run.text("fig6_normal_sigma_text", ", ".join(f"{interval_text(sigma6n[s])} at init scale {s:g}" for s in sigma6n))
g6n, ratio6n, cmp6n = {}, {}, {}  # Fig. 6's points at the stated setting: none while the set is incomplete
if "ratio_seeds_1e5_normal" in REGISTERED:
    for name, low, high in (("fig6_fraction_under_bound_1e5_normal", 0.0, 1.0), ("fig6_excess_over_bound_1e5_normal", -1.0, 1.0)):
        run.metric(name, undecided(None, low, high, REGISTERED["ratio_seeds_1e5_normal"]))
    run.metric("fig6_decision_text_1e5_normal", "not judged while the set is incomplete")
    run.text("fig6_normal_text", f"The set is not complete in this checkout ({REGISTERED['ratio_seeds_1e5_normal']})")
else:
    ev6n = run.evidence("ratio_seeds_1e5_normal").data
    for s in scales6n:
        g6n[s], ratio6n[s] = phase_grid.ratio_points(ev6n.where(init_scale=s), cfg6n, P.grok_threshold_fraction)
    cmp6n = {s: repons.compare_with_arctan(*phase_grid.cell_counts(g6n[s]), ratio6n[s], sigma6n[s]) for s in scales6n}
    under6n = repons.fraction_not_above(cmp6n)
    run.metric("fig6_fraction_under_bound_1e5_normal", under6n)
    # the paper's statement, every point under eq. (12): the largest excess over the band, Bonferroni over the points
    run.metric("fig6_excess_over_bound_1e5_normal", repons.excess_over_arctan(cmp6n))
    run.metric("fig6_decision_text_1e5_normal", repons.arctan_decision_text(cmp6n, cfg6n["seeds"]))
    # what deciding would take at G-6/paper-init-1e5's bar: the points, and the core-hours of those still missing
    to_decide6n, hours6n = cost_to_decide(under6n, 0.5, ev6n.core_hours())
    run.metric("fig6_points_to_decide_1e5_normal", to_decide6n)
    run.metric("fig6_core_hours_to_decide_1e5_normal", hours6n)
    for s in scales6n:
        run.metric(f"fig6_generalized_1e5_normal_init_{s:g}", [p.as_dict() for p in cmp6n[s]["points"]])
    run.text("fig6_normal_text", f"With all {len(ev6n)} shards stored, the table below gives each point")

# %% tags=["remove-input"]
if cmp6n:  # no table while the set is incomplete
    display(Markdown(repons.generalization_table(ratio6n, cmp6n)))

# %% tags=["remove-input"]
fig, ax = plt.subplots(figsize=(5.6, 3.8))
repons.draw_generalization_against_ratio(ax, ratio6n, cmp6n, sigma6n)  # no points while the set is incomplete
run.figure("fig_prob_1e5_normal", fig)

# %% [markdown]
# ```{glue:figure} fig_prob_1e5_normal
# :name: fig-prob-1e5-normal
# The paper's Fig. 6 at its stated setting ($10^5$ steps, every parameter drawn from a standard normal times the
# init factor; trained with AdamW, as the paper names no optimiser), drawn as {numref}`fig-prob`: the fraction of seeds that generalize (Wilson 95%) against the
# learning-rate ratio, per init scale, with the band of the paper's eq. (12) at the $\sigma_a/\sigma_c$ measured
# under this initialisation (shaded). These points, and those of the confirmation on fresh seeds below, decide the catalogue row (G-6/paper-init-1e5-all-points, G-6/paper-init-1e5-fresh).
#
# Code: {py:func}`lib.geneft.repons.draw_generalization_against_ratio`,
# {py:func}`lib.geneft.repons.compare_with_arctan`, {py:func}`lib.geneft.repons.init_sigma_ratio` · evidence:
# {ref}`geneft_dynamics/ratio_seeds_1e5_normal <evidence-geneft-dynamics-ratio-seeds-1e5-normal>`.
# ```

# %% [markdown]
# The same setting under plain gradient descent, the dynamics the paper's eq. (12) is derived for: the
# {ref}`gradient-descent runs at the stated setting <evidence-geneft-dynamics-ratio-seeds-gd-1e5-normal>` train the
# networks, split, ratios, init scales (0.5, 1 and 2) and seeds of the
# {ref}`gradient-descent runs above <evidence-geneft-dynamics-ratio-seeds-gd>` for $10^5$ steps from the caption's
# initialisation. Their decoder rate, $\eta_\mathrm{dec} = 1$, was fixed as before by a short pilot that read
# training losses only: it is the largest half-decade rate at which no run's loss rose above its initial value at
# any of the three scales. The two claims below were declared before any of these runs existed, and nothing is
# read from the set until every shard is stored. {glue:text}`fig6_gd_normal_text`.
#
# - {glue:text}`verdict_g_6_gd_paper_init_1e5`
# - {glue:text}`verdict_g_6_gd_sigma_monotone_1e5`

# %% tags=["remove-input"]
g6gn, ratio6gn, cmp6gn = {}, {}, {}  # as above, under gradient descent
if "ratio_seeds_gd_1e5_normal" in REGISTERED:
    for name, low, high in (("fig6_gd_fraction_under_bound_1e5_normal", 0.0, 1.0),
                            ("fig6_gd_excess_over_bound_1e5_normal", -1.0, 1.0),
                            ("fig6_gd_sigma_monotone_difference_1e5_normal", -1.0, 1.0)):
        run.metric(name, undecided(None, low, high, REGISTERED["ratio_seeds_gd_1e5_normal"]))
    run.text("fig6_gd_normal_text", f"The set is not complete in this checkout ({REGISTERED['ratio_seeds_gd_1e5_normal']})")
else:
    ev6gn = run.evidence("ratio_seeds_gd_1e5_normal").data
    for s in scales6gn:
        g6gn[s], ratio6gn[s] = phase_grid.ratio_points(ev6gn.where(init_scale=s), cfg6gn, P.grok_threshold_fraction)
    cmp6gn = {s: repons.compare_with_arctan(*phase_grid.cell_counts(g6gn[s]), ratio6gn[s], sigma6n[s])
              for s in scales6gn}
    under6gn = repons.fraction_not_above(cmp6gn)
    run.metric("fig6_gd_fraction_under_bound_1e5_normal", under6gn)
    run.metric("fig6_gd_excess_over_bound_1e5_normal", repons.excess_over_arctan(cmp6gn))
    to_decide6gn, hours6gn = cost_to_decide(under6gn, 0.5, ev6gn.core_hours())  # G-6/gd-paper-init-1e5's bar
    run.metric("fig6_gd_points_to_decide_1e5_normal", to_decide6gn)
    run.metric("fig6_gd_core_hours_to_decide_1e5_normal", hours6gn)
    run.metric("fig6_gd_sigma_monotone_difference_1e5_normal", decide(repons.generalization_difference_by_sigma(
        {s: phase_grid.cell_counts(g6gn[s]) for s in scales6gn}, sigma6n), -1.0, 1.0))
    for s in scales6gn:
        run.metric(f"fig6_gd_generalized_1e5_normal_init_{s:g}", [p.as_dict() for p in cmp6gn[s]["points"]])
        run.metric(f"fig6_gd_confusion_1e5_normal_init_{s:g}",
                   fraction(g6gn[s].phase == phases.PHASES.index("confusion")))
        run.metric(f"fig6_gd_generalized_pooled_1e5_normal_init_{s:g}",
                   fraction(*(int(counts.sum()) for counts in phase_grid.cell_counts(g6gn[s]))))
    run.text("fig6_gd_normal_text", f"With all {len(ev6gn)} shards stored, the table below gives each point")

# %% tags=["remove-input"]
if cmp6gn:  # no table while the set is incomplete
    display(Markdown(repons.generalization_table(ratio6gn, cmp6gn)))

# %% tags=["remove-input"]
fig, ax = plt.subplots(figsize=(5.6, 3.8))
repons.draw_generalization_against_ratio(ax, ratio6gn, cmp6gn, sigma6n)  # no points while the set is incomplete
run.figure("fig_prob_gd_1e5_normal", fig)

# %% [markdown]
# ```{glue:figure} fig_prob_gd_1e5_normal
# :name: fig-prob-gd-1e5-normal
# As {numref}`fig-prob-1e5-normal`, for the networks trained by plain gradient descent ($10^5$ steps,
# $\eta_\mathrm{dec} = 1$, $\eta_\mathrm{enc} = \eta_\mathrm{dec}/\text{ratio}$, the caption's initialisation).
#
# Code: {py:func}`lib.geneft.train.train_models_gd`, {py:func}`lib.geneft.repons.compare_with_arctan`,
# {py:func}`lib.geneft.repons.init_sigma_ratio` · evidence:
# {ref}`geneft_dynamics/ratio_seeds_gd_1e5_normal <evidence-geneft-dynamics-ratio-seeds-gd-1e5-normal>`.
# ```

# %% [markdown]
# (fig6-fresh-confirmation)=
# ### A registered confirmation on fresh seeds
#
# The first seeds (30 per point under AdamW, 20 under gradient descent) leave the paper's statement undecided: at init
# scale 0.5 some points lie above their band under either optimiser, but not clearly enough at the Bonferroni level
# over all the points; that scale, read alone after it was picked for this, would no longer test anything. The
# {ref}`AdamW confirmation <evidence-geneft-dynamics-ratio-seeds-1e5-normal-fresh>` and the
# {ref}`gradient-descent confirmation <evidence-geneft-dynamics-ratio-seeds-gd-1e5-normal-fresh>` train the four
# points of that init scale again, everything as above, on 90 seeds per point that no earlier run used. Their test
# (the largest excess over the band, Bonferroni over the four points), its sample and its threshold were committed
# before any of their runs existed, and nothing is read from them until every shard of both is stored.
# {glue:text}`fig6_fresh_text`; as above, their last column reads each point alone at 95%, where the claim reads the
# four together at the Bonferroni level.
#
# - {glue:text}`verdict_g_6_paper_init_1e5_fresh`

# %% tags=["remove-input"]
fresh6 = {tag: registry.get("geneft_dynamics", f"ratio_seeds{tag}_1e5_normal_fresh") for tag in ("", "_gd")}
scale6f = fresh6[""].shards[0]["init_scale"]  # the one init scale of both confirmations
seeds6f = fresh6[""].config["seeds"]
for tag, first in (("", cmp6n), ("_gd", cmp6gn)):  # the design's power, at the first sets' fractions
    if scale6f in first:
        least6f, independent6f = repons.power_to_find_excess({scale6f: first[scale6f]}, seeds6f)
        run.metric(f"fig6{tag}_fresh_power_least", least6f)
        run.metric(f"fig6{tag}_fresh_power", independent6f)
    else:
        for suffix in ("_least", ""):
            run.skip(f"fig6{tag}_fresh_power{suffix}", "the first set is not complete in this checkout")
cmp6f, ratio6f = {"": {}, "_gd": {}}, {"": {}, "_gd": {}}  # the fresh points per optimiser: none while incomplete
pending6f = [f"the {label} confirmation: {REGISTERED[fresh6[tag].name]}"
             for tag, label in (("", "AdamW"), ("_gd", "gradient-descent")) if fresh6[tag].name in REGISTERED]
if pending6f:
    for tag in cmp6f:
        run.metric(f"fig6{tag}_excess_over_bound_1e5_fresh", undecided(None, -1.0, 1.0, "; ".join(pending6f)))
    run.metric("fig6_fresh_decision_text", "not judged while its sets are incomplete")
    run.text("fig6_fresh_text", f"The sets are not complete in this checkout ({'; '.join(pending6f)})")
else:
    for tag, name in (("", "ratio_seeds_1e5_normal_fresh"), ("_gd", "ratio_seeds_gd_1e5_normal_fresh")):
        points6f, ratio6f[tag][scale6f] = phase_grid.ratio_points(
            run.evidence(name).data.where(init_scale=scale6f), fresh6[tag].config, P.grok_threshold_fraction)
        cmp6f[tag] = {scale6f: repons.compare_with_arctan(*phase_grid.cell_counts(points6f), ratio6f[tag][scale6f],
                                                          sigma6n[scale6f])}
        run.metric(f"fig6{tag}_excess_over_bound_1e5_fresh", repons.excess_over_arctan(cmp6f[tag]))
        run.metric(f"fig6{tag}_generalized_1e5_fresh", [p.as_dict() for p in cmp6f[tag][scale6f]["points"]])
    run.metric("fig6_fresh_decision_text", repons.arctan_decision_text(cmp6f[""], seeds6f))
    run.text("fig6_fresh_text", "With every shard of both stored, the tables below give each point")

# %% tags=["remove-input"]
for tag, label in (("", "Trained with AdamW:"), ("_gd", "Trained by plain gradient descent:")):  # none while incomplete
    if cmp6f[tag]:
        display(Markdown(f"{label}\n\n{repons.generalization_table(ratio6f[tag], cmp6f[tag])}"))

# %% [markdown]
# ## Weight decay and the boundary (the paper's Fig. 8)
#
# The paper's eq. (12) has no weight decay in it. The paper's Appendix F scans the decoder's weight decay against its
# learning rate at $\eta_\mathrm{enc} = 10^{-5}$ over $10^5$ steps and finds "the memorization-generalization
# boundary is independent of the weight decay". The {ref}`mod 3 scan <evidence-geneft-dynamics-weight-decay-1e5>`
# runs that setting:
# {glue:md}`fig8_setup_text_mod3_1e5:myst`. Each row (one weight decay) has its boundary where the fraction of runs
# that generalize (generalization or grokking; runs in confusion are on neither side and left out) first
# falls below 1/2 as $\eta_\mathrm{dec}$ rises from the grid's smallest ratio: the paper's eq. (12) critical ratio
# at this $\eta_\mathrm{enc}$. Weight decay 0, the paper's default, is a row like the others. The claim is
# that the rows' boundaries differ by less than the grid's step of half a decade; the interval resamples
# the initialisations (each one is trained in every cell). Two other readings are shown as robustness
# rows: the rows made monotone first (the per-row estimator of the paper's Fig. 5), and the slope of a logistic
# boundary in $(\log_{10} wd, \log_{10}\eta_\mathrm{dec})$, decades of $\eta^*_\mathrm{dec}$ per decade of
# weight decay, which cannot use the cells at $wd = 0$. The paper's Fig. 8b and 8c scan greater-than and
# complete bipartite the same way (the
# {ref}`scans of the two relations <evidence-geneft-dynamics-weight-decay-1e5-relations>`: the same grid and seeds).
# The same scan of mod 3 at a tenth of the steps and ten times the encoder rate (the
# {ref}`shorter scan <evidence-geneft-dynamics-weight-decay>`:
# {glue:md}`fig8_setup_text_mod3_1e4:myst`), the book's budget before the paper's setting was computed, is
# shown last.

# %% tags=["remove-input"]
GRIDS8 = {}
for tag, name, relation in (("mod3_1e5", "weight_decay_1e5", "mod3"),
                            ("greater_than_1e5", "weight_decay_1e5_relations", "greater_than"),
                            ("bipartite_1e5", "weight_decay_1e5_relations", "bipartite"),
                            ("mod3_1e4", "weight_decay", "mod3")):
    ev8, cfg8 = EV[name], EV[name].config
    shards8 = ev8.where(relation=relation) if name == "weight_decay_1e5_relations" else list(ev8)
    g8, rows8 = phase_grid.row_grid(shards8, cfg8, P.grok_threshold_fraction)
    log_dec8, wd8 = np.array(cfg8["log10_lr_dec"]), np.asarray(cfg8["weight_decays"], float)[rows8]
    fitted8 = g8.phase != phases.CONFUSION
    crossing8, where8 = wd_boundary.row_crossings(log_dec8, g8.generalized, fitted8)
    for w, c, where in zip(wd8, crossing8, where8):
        run.metric(f"wd_boundary_log10_lr_dec_{tag}_{w:g}", float(c) if where == wd_boundary.INSIDE else where)
    for reading, suffix in (("first", ""), ("isotonic", "_isotonic")):
        run.metric(f"wd_boundary_spread{suffix}_{tag}", decide(
            wd_boundary.boundary_spread(log_dec8, g8.generalized, fitted8, reading=reading), 0.0, 10.0, pending.get(name)))
    # the weight-decay range is a free choice (the paper does not state Fig. 8's): its rows up to wd = 0.1
    small8 = wd8 <= 0.1
    run.metric(f"wd_boundary_spread_upto_0_1_{tag}", decide(
        wd_boundary.boundary_spread(log_dec8, g8.generalized[small8], fitted8[small8]), 0.0, 10.0, pending.get(name)))
    # so is the decay's form: AdamW's decoupled decay is trained, and for mod 3 at 1e5 steps also a coupled L2
    # penalty (its own set, read below)
    if tag != "mod3_1e5":
        run.skip(f"wd_boundary_spread_coupled_l2_{tag}", "no evidence set trains the decoder with a coupled L2 penalty")
    W8, D8 = np.meshgrid(wd8, 10.0 ** log_dec8, indexing="ij")
    k8, t8 = phase_grid.cell_counts(g8)
    pos = W8 > 0
    fit8 = phases.fit_boundary(np.log10(W8[pos]), np.log10(D8[pos]), *(c[pos] for c in phase_grid.cell_counts(g8, True)))
    run.metric(f"wd_coefficient_{tag}", fit8.slope)
    run.metric(f"wd_coefficient_abs_{tag}", decide(phases.distance_from(fit8.slope, 0.0), 0.0, 10.0, pending.get(name)))
    run.metric(f"wd_separated_{tag}", fit8.separated)
    run.metric(f"wd_outcome_{tag}", fit8.outcome)
    run.metric(f"wd_generalization_spread_{tag}",
               decide(phases.rate_spread(k8[wd8 > 0], t8[wd8 > 0]), 0.0, 1.0, pending.get(name)))
    for w, kk, tt in zip(wd8, k8, t8):
        run.metric(f"wd_generalized_{tag}_{w:g}", fraction(int(kk.sum()), int(tt.sum())))
    run.prose(f"fig8_setup_text_{tag}", f"{RELATION_TITLES[relation]}, $\\eta_\\mathrm{{enc}} = {tex_number(cfg8['lr_enc'])}$ over "
              f"${tex_number(cfg8['steps'])}$ steps, {len(wd8)} weight decays × {len(log_dec8)} decoder rates × "
              f"{cfg8['seeds']} seeds ({ev8.variant} variant)")
    run.text(f"wd_boundaries_text_{tag}", wd_boundary.crossings_text(wd8, crossing8, where8))
    run.text(f"wd_fractions_text_{tag}", ", ".join(
        f"{interval_text(fraction(int(kk.sum()), int(tt.sum())))} at wd = {w:g}" for w, kk, tt in zip(wd8, k8, t8)))
    slope8 = "decades of $\\eta^*_\\mathrm{dec}$ per decade of $wd$"
    if fit8.outcome != "boundary":
        run.prose(f"wd_outcome_text_{tag}", f"no logistic boundary: {fit8.outcome}")
    elif np.isfinite([fit8.slope.low, fit8.slope.high]).all():
        run.prose(f"wd_outcome_text_{tag}", f"logistic slope {interval_text(fit8.slope)} {slope8}")
    else:
        run.prose(f"wd_outcome_text_{tag}", f"logistic slope {significant(fit8.slope.value, 2)} {slope8}, which the grid "
                  "does not bound")
    if relation in cells5 and name not in pending:  # Fig. 5's boundary for the same relation, at this panel's eta_enc
        fig5_at8 = phases.boundary_at(*cells5[relation], float(np.log10(cfg8["lr_enc"])))
        run.metric(f"fig5_boundary_log10_lr_dec_{tag}", fig5_at8)
        run.text(f"fig5_at_text_{tag}", interval_text(fig5_at8))
    else:
        run.text(f"fig5_at_text_{tag}", f"not read while {name} is incomplete" if name in pending
                 else "not read (the relation is not in the Fig. 5 evidence shown)")
    title8 = f"{RELATION_TITLES[relation]}, {cfg8['steps']:,} steps" + (" (smoke set)" if name in pending else "")
    GRIDS8[tag] = (g8, wd8, log_dec8, crossing8, where8, fit8, cfg8, title8)

# %% tags=["remove-input"]
fig, axes = plt.subplots(2, 2, figsize=(7.5, 7.2), layout="constrained")
for ax, (g8, wd8, log_dec8, crossing8, where8, fit8, cfg8, title8) in zip(axes.ravel(), GRIDS8.values()):
    wd_axis = np.where(wd8 > 0, wd8, wd8[wd8 > 0].min() / 10 if (wd8 > 0).any() else 1e-3)
    phases.draw_phase_diagram(ax, phase_grid.majority_phase(g8).T, wd_axis, 10.0 ** log_dec8)
    inside = np.array([w == wd_boundary.INSIDE for w in where8])
    ax.plot(wd_axis[inside], 10.0 ** crossing8[inside], "ko-", ms=4, lw=1.2)
    if fit8.outcome == "boundary":
        xw = np.log10(wd_axis[wd8 > 0])
        b0, b1, b2 = fit8.coefficients
        ax.plot(10 ** xw, 10 ** (-(b0 + b1 * xw) / b2), "k--", lw=1)
    ax.set_xticks(wd_axis, [f"{w:g}" for w in wd8])  # the first column is wd = 0, drawn a decade left of the next
    ax.set_xticks([], minor=True)
    ax.set(xlabel="decoder weight decay", ylabel=r"$\eta_\mathrm{dec}$", ylim=10.0 ** (log_dec8[[0, -1]] + [-0.3, 0.3]),
           title=f"{title8}\n" + rf"$\eta_\mathrm{{enc}} = {tex_number(cfg8['lr_enc'])}$")
phases.add_phase_legend(fig)
run.figure("fig_wd", fig)

# %% [markdown]
# ```{glue:figure} fig_wd
# :name: fig-wd
# Phases over decoder weight decay and decoder learning rate at fixed $\eta_\mathrm{enc}$ (the paper's Fig. 8).
# The paper's setting on mod 3, greater-than and complete bipartite (the
# {ref}`mod 3 scan <evidence-geneft-dynamics-weight-decay-1e5>` and the
# {ref}`scans of the two relations <evidence-geneft-dynamics-weight-decay-1e5-relations>`), and, bottom right, mod 3
# at a tenth of the steps (the {ref}`shorter scan <evidence-geneft-dynamics-weight-decay>`). Black dots: each row's
# boundary, where the fraction of runs that generalize first falls below one half, interpolated between the two
# cells around it; dashed: the logistic boundary fitted to the positive weight decays.
#
# Code: {py:func}`lib.geneft.wd_boundary.row_crossings`, {py:func}`lib.geneft.wd_boundary.boundary_spread`,
# {py:func}`lib.geneft.phases.fit_boundary`, {py:func}`lib.geneft.phases.draw_phase_diagram` · evidence:
# {ref}`geneft_dynamics/weight_decay_1e5 <evidence-geneft-dynamics-weight-decay-1e5>`,
# {ref}`geneft_dynamics/weight_decay_1e5_relations <evidence-geneft-dynamics-weight-decay-1e5-relations>`,
# {ref}`geneft_dynamics/weight_decay <evidence-geneft-dynamics-weight-decay>`.
# ```
#
# On mod 3 at the paper's setting the rows' boundaries are at $\log_{10}\eta_\mathrm{dec}$ =
# {glue:text}`wd_boundaries_text_mod3_1e5`: they differ by {glue:text}`wd_boundary_spread_mod3_1e5`
# {glue:text}`wd_boundary_spread_mod3_1e5_ci` decades ({glue:md}`wd_outcome_text_mod3_1e5:myst`). Pooled over the
# decoder rates, the fraction of runs that generalize is {glue:text}`wd_fractions_text_mod3_1e5`; between the
# positive weight decays it differs by up to {glue:text}`wd_generalization_spread_mod3_1e5`
# {glue:text}`wd_generalization_spread_mod3_1e5_ci`.
#
# - {glue:text}`verdict_g_8`
# - {glue:text}`verdict_g_8_slope`
# - {glue:text}`verdict_g_8_wd_independent`
#
# On greater-than the boundaries are at {glue:text}`wd_boundaries_text_greater_than_1e5`, on complete
# bipartite at {glue:text}`wd_boundaries_text_bipartite_1e5`.
#
# The wd = 0 rows can be set beside the paper's Fig. 5, which trains the same network without weight decay: its logistic
# boundary, read at $\eta_\mathrm{enc} = 10^{-5}$ (its first row), lies at
# $\log_{10}\eta_\mathrm{dec}$ = {glue:text}`fig5_at_text_mod3_1e5` (mod 3),
# {glue:text}`fig5_at_text_greater_than_1e5` (greater-than) and {glue:text}`fig5_at_text_bipartite_1e5`
# (complete bipartite). The two are not independent: the cells the grids share
# ($\eta_\mathrm{dec} = 10^{-5}$ to $10^{-2}$ at $wd = 0$) are the same runs, with the same split and seeds. What
# the comparison checks is that the paper's Fig. 5 line, fitted to all its encoder rates, passes where this row's runs
# put the boundary.
#
# - {glue:text}`verdict_g_8_greater_than`
# - {glue:text}`verdict_g_8_bipartite`
#
# On mod 3 at a tenth of the steps (bottom right) the boundaries are at {glue:text}`wd_boundaries_text_mod3_1e4`
# ({glue:md}`wd_outcome_text_mod3_1e4:myst`), and the fractions that generalize are
# {glue:text}`wd_fractions_text_mod3_1e4`:
#
# - {glue:text}`verdict_g_8_wd_independent_1e4`
#
# At this tenth of the steps the logistic boundary's slope in $(\log wd, \log \eta_\mathrm{dec})$ is not a claim
# (unlike G-8/slope at the paper's steps): the runs that fit their training pairs are separated by a line, and the
# separating lines have every slope, so no outcome of these data could decide it.

# %% [markdown]
# ### The decay form
#
# The paper does not say how its weight decay acts. The runs above use AdamW's decoupled decay, which shrinks
# every decoder parameter by the factor $1 - \eta_\mathrm{dec}\,wd$ at each step, apart from the gradient. The
# other common form adds $wd\,\lVert\theta\rVert^2/2$ to the loss, so that the decay passes through Adam's
# normalisation with the gradient. The
# {ref}`scan with the coupled decay <evidence-geneft-dynamics-weight-decay-1e5-coupled>` trains the mod 3 grid and
# seeds of the {ref}`scan above <evidence-geneft-dynamics-weight-decay-1e5>` that way (its $wd = 0$ row is the same training), and the same statistic reads it: the rows'
# boundaries should differ by less than half a decade if "independent of the weight decay" does not depend on the
# form. Its claim was declared before any of its runs existed. {glue:md}`wd_coupled_text:myst`.
#
# - {glue:text}`verdict_g_8_coupled_l2`

# %% tags=["remove-input"]
if "weight_decay_1e5_coupled" in REGISTERED:
    spread8c = undecided(None, 0.0, 10.0, REGISTERED["weight_decay_1e5_coupled"])
    run.metric("wd_boundary_spread_mod3_1e5_coupled", spread8c)
    run.prose("wd_coupled_text", f"The set is not complete in this checkout ({REGISTERED['weight_decay_1e5_coupled']})")
else:
    ev8c = run.evidence("weight_decay_1e5_coupled").data
    cfg8c = ev8c.config
    g8c, rows8c = phase_grid.row_grid(list(ev8c), cfg8c, P.grok_threshold_fraction)
    wd8c = np.asarray(cfg8c["weight_decays"], float)[rows8c]
    log_dec8c, fitted8c = np.array(cfg8c["log10_lr_dec"]), g8c.phase != phases.CONFUSION
    spread8c = decide(wd_boundary.boundary_spread(log_dec8c, g8c.generalized, fitted8c), 0.0, 10.0)  # as G-8's
    run.metric("wd_boundary_spread_mod3_1e5_coupled", spread8c)
    crossing8c, where8c = wd_boundary.row_crossings(log_dec8c, g8c.generalized, fitted8c)
    run.prose("wd_coupled_text", "With all its shards stored, the rows' boundaries are at $\\log_{10}\\eta_\\mathrm{dec}$ = "
              f"{wd_boundary.crossings_text(wd8c, crossing8c, where8c)}; their spread, in decades, is {interval_text(spread8c)}")
    for w, c, where, row in zip(wd8c, crossing8c, where8c, g8c.phase):
        run.metric(f"wd_boundary_log10_lr_dec_mod3_1e5_coupled_{w:g}", float(c) if where == wd_boundary.INSIDE else where)
        run.metric(f"wd_confusion_mod3_1e5_coupled_{w:g}", fraction(row == phases.CONFUSION))
run.metric("wd_boundary_spread_coupled_l2_mod3_1e5", spread8c)  # G-8's free choice of the decay form

# %% [markdown]
# ## Summary

# %%
# NBVAL_CHECK_OUTPUT
run.headline("conserved_quantity_exact", "portrait_agreement", "arctan_vs_mc_max_abs_error",
             "n_repon_vs_sim_max_abs_error", "collision_iff_m_psd_agreement", digits=2)

# %% tags=["remove-input"]
run.claims_table()
