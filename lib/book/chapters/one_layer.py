"""Chapter one_layer: the loss identity (App. C.1), Theorem 4.1 and the limits of a one-layer model."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lib.book.chapters.declaration import Chapter, Claim, Cost, ParameterError, Parameters, param
from lib.sim.data import cluster_stds, setting_error
from lib.theory.one_layer_settings import effective_lr, sharpness, vary_first

# Largest init scale: far outside the small-init regime of Theorem 4.1 (its rate claims already fail near
# 0.1, a reader's experiment worth allowing), far below where the float64 losses, of order
# init_scale^2 d, overflow and every error is decided by rounding (1e300 ran to numbers of 1e290).
MAX_INIT_SCALE = 1e3


@dataclass(frozen=True)
class OneLayerParameters(Parameters):
    """Parameters of the chapter `one_layer` (defaults: the book's run)."""

    d: int = param(64, "input dimension", min=1)
    mu: list[float] = param([1.0, 2.0], "cluster means mu_p, one per concept (s = len(mu) >= 2)", gt=0, min_len=2)
    sigma: list[float] = param(
        [0.05, 0.05], "cluster spreads sigma_p (standard deviations unless sigma_is_variance)", min=0, min_len=2
    )
    sigma_is_variance: bool = param(
        False, "read every sigma as a variance (the authors' code) instead of a standard deviation (paper)"
    )
    origin_cluster: bool = param(
        False, "add a training cluster at the origin (authors' code): a_p = sigma_p^2 + mu_p^2/(s+1)"
    )
    n: int = param(5000, "training points per cluster", min=1)
    lr: float = param(0.1, "SGD / GD learning rate (paper: 0.1)", min=1e-6)
    loss_scaling: str = param(
        "half_sum",
        "half_sum: 1/2||Wx-x||^2 (the paper's eq. (2.1)); mse: mean over coordinates (authors' code, lr x 2/d)",
        choices=("half_sum", "mse"),
    )
    batch_size: int = param(128, "SGD minibatch size (paper: 128)", min=1)
    steps: int = param(400, "training steps of every simulation (time t = effective lr x steps)", min=3)
    init_scale: float = param(
        0.01, "standard deviation of the entries of W(0), small-init regime", min=0, max=MAX_INIT_SCALE
    )
    init_scale_large: float = param(
        0.5, "standard deviation of W(0) for the large-init illustration", min=0, max=MAX_INIT_SCALE
    )
    seed: int = param(0, "seed of data, initialisation and minibatch order", min=0)
    rotate: bool = param(True, "rotate the inputs by a random orthogonal matrix (authors' code)")
    fig2a_mu1: list[float] = param(
        [1.0, 2.0, 3.0], "mu_1 values of Fig. 2a (other mu, sigma as in mu, sigma)", gt=0, min_len=1, distinct=True
    )
    fig2b_sigma1: list[float] = param(
        [0.05, 0.1, 0.5, 1.0, 2.0], "sigma_1 values of Fig. 2b (same units as sigma)", min=0, min_len=1, distinct=True
    )
    map_points: int = param(24, "grid points per axis of the order map over (mu_1, sigma_1)", min=2)
    map_mu1_min: float = param(0.5, "smallest mu_1 of the order map", gt=0)
    map_mu1_max: float = param(3.0, "largest mu_1 of the order map", gt=0)
    map_sigma1_max: float = param(2.0, "largest sigma_1 of the order map (same units as sigma)", min=0)
    init_scales_sweep: list[float] = param(
        [0.01, 0.03, 0.1, 0.3, 1.0],
        "init scales of the monotonicity sweep",
        min=0,
        max=MAX_INIT_SCALE,
        min_len=1,
        distinct=True,
    )
    init_draws: int = param(200, "random initialisations per init scale in the monotonicity sweep", min=1)

    def check(self) -> None:
        """Cross-parameter rules: shapes, grid order, and gradient-descent stability for every setting."""
        if error := setting_error(self.mu, self.sigma, self.d):
            raise ParameterError(error)
        s = len(self.mu)
        if self.map_mu1_min >= self.map_mu1_max:
            raise ParameterError(f"map_mu1_min ({self.map_mu1_min}) must be below map_mu1_max ({self.map_mu1_max})")
        if self.batch_size > s * self.n:
            raise ParameterError(f"batch_size {self.batch_size} exceeds the training set size s * n = {s * self.n}")

        def std(values: Sequence[float]) -> np.ndarray:
            return cluster_stds(values, self.sigma_is_variance)

        corner = [self.map_mu1_max, *self.mu[1:]]
        settings = vary_first(
            self.mu, std(self.sigma), 0.0, mu1=[self.mu[0], *self.fig2a_mu1], std1=std(self.fig2b_sigma1)
        ) + vary_first(corner, std(self.sigma), 0.0, mu1=corner[:1], std1=std([self.map_sigma1_max]))
        lr = effective_lr(self.lr, self.loss_scaling, self.d)
        top = max(sharpness(st.mu, st.std, self.origin_cluster) for st in settings)
        if not lr * top < 2:
            raise ParameterError(
                f"gradient descent diverges: effective lr * max a_k = {lr:g} * {top:.4g} = {lr * top:.3g} >= 2 "
                "for some setting of the chapter (main, fig2a_mu1, fig2b_sigma1 or the order map); lower lr"
            )

    def cost(self) -> Cost:
        """Batched SGD/GD over the settings (d x d matrices), the order map and the init sweep, 2 cores; memory of
        the runs and of the init sweep (measured: 8 MB for 100 draws at d = 64, 3.6e-4 s per draw and scale)."""
        settings = 2 + len(self.fig2a_mu1) + len(self.fig2b_sigma1)
        sgd = self.steps * settings * (self.batch_size * self.d**2 * 4 + self.d**3 * 2) / 2e9
        lr_refine = 15 * self.steps * self.d**2 / 1e9 + 30 * self.steps * 1e-5
        order = self.map_points**2 * (self.n * len(self.mu) * len(self.mu) ** 2 / 1e8 + 2e-3)
        sweep = len(self.init_scales_sweep) * self.init_draws * (self.d**3 / 1e9 + 2001 * len(self.mu) ** 2 / 1e8)
        memory = settings * (len(self.mu) * self.n * self.d * 8 + (self.steps + 1) * self.d * 8 * 4) / 1e9
        # the monotonicity sweep holds one init scale's draws of W(0) (d x d) and their loss curves (2001 times)
        memory += self.init_draws * (2 * self.d**2 + 2 * 2001) * 8 / 1e9
        return Cost(seconds=3 + sgd + lr_refine + order + sweep, gigabytes=0.3 + memory)


CHAPTER = Chapter(
    id="one_layer",
    title="One-layer theory: the loss identity, Theorem 4.1 and its limits",
    params=OneLayerParameters,
    claims=(
        Claim(
            "S-C/identity",
            statement="The MSE of a linear model equals $\\tfrac12\\Vert(W - I)A^{1/2}\\Vert_F^2$ (the paper's "
            "eqs. (C.1)–(C.6))",
            paper_value="identity",
            metric="loss_identity_symbolic",
            condition="== true",
            basis="exact",
            role="primary",
        ),
        Claim(
            "S-C/numeric",
            statement="The identity holds on the sampled training set (float64), for one random $W$",
            paper_value="identity",
            metric="loss_identity_max_rel_error",
            condition="< 1e-10",
            basis="consistency",
            note="relabelled a consistency check on 2026-12-07, after an audit (before, a primary of its row): both "
            "sides are computed on the same sample for the same $W$, so only floating-point rounding separates "
            "them; verdict unchanged",
        ),
        Claim(
            "S-C/A",
            statement="$\\mathbb E[xx^\\top] = \\mathrm{diag}(\\sigma^2 + \\mu^2/s)$ (the paper's eqs. (C.7)–(C.13))",
            paper_value="identity",
            metric="population_A_symbolic",
            condition="== true",
            basis="exact",
            role="primary",
            note="the row's primary since 2026-12-07 (relabelled after an audit from a further statement: the row's "
            "matrix $A = \\mathrm{diag}(\\sigma^2 + \\mu^2/s)$ is the paper's derivation (C.7)–(C.13)); verdict unchanged",
        ),
        Claim(
            "S-C/A-sample",
            statement="In the run's setting (by default $\\mu = (1, 2)$, $\\sigma = (0.05, 0.05)$), the sample second "
            "moment differs from $\\mathrm{diag}(\\sigma^2 + \\mu^2/s)$ by less than 1 % of $\\max_k a_k$ at the run's "
            "$n$",
            paper_value="$n \\to \\infty$",
            metric="a_hat_max_rel_error",
            condition="< 0.01",
            basis="single run",
            role="reading",
            note="relabelled a book reading on 2026-12-07, after an audit (before, a further statement of the paper): "
            "the paper takes $n \\to \\infty$, the 1 % bar is the book's; tested on the run's setting only, not on "
            "the other settings of the paper's Figs. 2a and 2b; verdict unchanged",
        ),
        Claim(
            "S-T4.1/symbolic",
            statement="The paper's eq. (4.2), with the noise term summed over all $d$ inputs as in its proof (C.21), "
            "solves the gradient flow of the paper's eq. (4.1) from any $W(0)$",
            paper_value="exact",
            metric="theorem_symbolic",
            condition="== true",
            basis="exact",
            role="primary",
            note="stated on (C.21) since 2026-12-07: eq. (4.2) as printed sums the noise term over the first $s$ "
            "inputs, which gives the same output for every test point in the span of the concept axes",
        ),
        Claim(
            "S-T4.1/flow",
            statement="Closed form equals the numerically integrated gradient flow",
            paper_value="exact",
            metric="closed_form_max_abs_error_flow",
            condition="< 1e-6",
            basis="single run",
            role="primary",
        ),
        Claim(
            "S-T4.1/discrete",
            statement="In the run's setting (by default $\\mu = (1, 2)$, $\\sigma = (0.05, 0.05)$), GD on the sample "
            "follows the discrete solution, $(1 - \\eta a_k)^m$ after $m$ steps of learning rate $\\eta$, at the test "
            "point",
            paper_value="(not in the paper: the finite-step solution)",
            metric="closed_form_max_abs_error_discrete",
            condition="< 0.01",
            basis="single run",
            scope="derivation",
            note="relabelled a derivation of the book on 2026-12-07, after an audit (before, a further statement of "
            "the paper): Theorem 4.1 is a flow, the finite-step solution is the book's; tested on the run's setting "
            "only, not on the other settings of the paper's Figs. 2a and 2b; verdict unchanged",
        ),
        Claim(
            "S-T4.1/gd",
            statement="GD approaches the gradient flow of the same sampled loss as $\\eta \\to 0$, with an error whose "
            "order in $\\eta$, fitted over $\\eta/1$ to $\\eta/8$ ($\\eta$ the learning rate), is above 0.9: "
            "first order, or more",
            paper_value="gradient flow: the limit $\\eta \\to 0$",
            metric="gd_error_order_in_lr",
            condition="> 0.9",
            basis="single run",
            scope="derivation",
            note="relabelled a derivation of the book on 2026-12-07, after an audit (before, a further statement of "
            "the paper): that gradient descent is a first-order scheme for its flow is numerical analysis, not a "
            "statement of the paper; the test is one-sided, so the statement says first order or more; verdict "
            "unchanged",
        ),
        Claim(
            "S-T4.1/rates",
            statement="The growth term of coordinate $k$ converges at rate $a_k$ under the gradient flow: rates fitted "
            "to GD over the first two decades of each residual at learning rates $\\eta/1, \\eta/2, \\eta/4, \\eta/8$, "
            "extrapolated to $\\eta \\to 0$",
            paper_value="rate $a_k$",
            metric="flow_limit_rate_rel_error",
            condition="< 0.05",
            basis="single run",
        ),
        Claim(
            "S-T4.1/rates-discrete",
            statement="At a finite step, the SGD output converges at the discrete rate $-\\ln(1 - \\eta a_k)/\\eta$ "
            "($\\eta$ the learning rate; rates fitted over the first two decades of each residual)",
            paper_value="(not in the paper: the finite-step rate)",
            metric="fitted_rate_max_rel_error_discrete",
            condition="< 0.05",
            basis="single run",
            scope="derivation",
            note="relabelled a derivation of the book on 2026-12-07, after an audit (before, a further statement of "
            "the paper): the finite-step rate is the book's, the paper states the flow's rate $a_k$; verdict unchanged",
        ),
        Claim(
            "S-T4.1/order",
            statement="The concept with the larger $a_k = \\sigma_k^2 + \\mu_k^2/s$ is learned first (over a grid of "
            "$(\\mu_1, \\sigma_1)$, not counting the cells within one grid step of the boundary $a_1 = \\max_{k \\gt 1} a_k$)",
            paper_value="flip at $a_1 = a_2$",
            metric="order_flip_matches_a",
            condition="== true",
            basis="single run",
        ),
        Claim(
            "S-T4.1/monotone",
            statement="From the run's small init the one-layer OOD loss is monotone under the gradient flow (no "
            "swing-by)",
            paper_value="monotone",
            metric="loss_monotone",
            condition="== true",
            basis="single run",
        ),
    ),
    smoke={"n": 500, "steps": 120, "map_points": 8, "init_draws": 40},
)
