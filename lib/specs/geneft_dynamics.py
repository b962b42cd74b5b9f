"""Declaration of the chapter `geneft_dynamics`: GenEFT Section IV, Appendices B, C, F."""
from __future__ import annotations

from dataclasses import dataclass

RELATIONS = ("mod3", "mod5", "greater_than", "bipartite")
from lib.chapter import Chapter, Claim, Parameters, ParameterError, param


@dataclass(frozen=True)
class GeneftDynamicsParameters(Parameters):
    """Parameters of the chapter `geneft_dynamics` (defaults: the book's run)."""

    portrait_eta_ratio: float = param(1.0, 'eta_x / eta_A of the Fig. 4 phase portrait (eta_A = 1)', gt=0)
    portrait_grid: int = param(21, 'starts per axis of the Fig. 4 grid of initial (a_2, c)', min=3, max=101)
    ode_time: float = param(100000.0, 'integration time of eq. (10) and of the N-repon flow (units of 1/eta_A)', gt=0)
    collision_tol: float = param(0.01, 'repons count as collided when |c(T)| < tol |c(0)|', gt=0, max=0.5)
    mc_samples: int = param(20000, "Monte Carlo starts per point of Theorem 3's checks", min=100)
    theory_lr_ratios: list[float] = param([0.01, 0.1, 1.0, 10.0, 100.0], 'eta_x / eta_A values for the arctan-law check', gt=0, min_len=1)
    sigma_ratios: list[float] = param([0.5, 1.0, 2.0], 'sigma_a / sigma_c values for the arctan-law check', gt=0, min_len=1)
    n_cluster: list[int] = param([1, 2, 4, 16], 'cluster sizes N for eq. (13)', min=1, min_len=1)
    seed: int = param(0, 'seed of every random draw (splits, inits, Monte Carlo)', min=0)
    n: int = param(30, 'number of elements of each relation (paper: 30)', min=6)
    train_fraction: float = param(0.75, 'fraction of the n^2 pairs used for training (Table 3: 0.75)', gt=0, max=1)
    mode: str = param('concat', 'how the two embeddings enter the decoder', choices=('concat', 'difference', 'squared_difference'))
    depth: int = param(3, 'hidden layers of the decoder (Table 3: 3)', min=0)
    width: int = param(50, "width of the decoder's hidden layers (Table 3: 50)", min=1)
    embed_dim: int = param(2, 'embedding dimension (Table 3: 2)', min=1)
    init_scale: float = param(1.0, 'initialisation scale of every parameter (Fig. 5, Fig. 8)', gt=0)
    steps: int = param(800, 'full-batch AdamW steps per model (paper: 1e5)', min=10)
    grok_threshold: int = param(160, 'steps between train and test accuracy > 0.9 beyond which a run groks (Table 4: 1e3 for 1e5 steps)', min=1)
    torch_threads: int = param(2, 'torch CPU threads', min=1, max=64)
    checkpoint: bool = param(True, 'save grids to the cache and resume them when interrupted')
    relations: list[str] = param(['mod3', 'greater_than', 'bipartite'], 'relations of the Fig. 5 phase diagrams', choices=('mod3', 'mod5', 'greater_than', 'bipartite'), min_len=1)
    log10_lr_enc: list[float] = param([-3.0, -2.5, -2.0], 'encoder learning rates, log10, increasing (Fig. 5)', max=0, min_len=2)
    log10_lr_dec: list[float] = param([-3.0, -2.5, -2.0, -1.5, -1.0], 'decoder learning rates, log10, increasing (Fig. 5)', max=0, min_len=2)
    seeds_per_cell: int = param(1, 'seeds per grid cell (the cell shows the most common phase)', min=1)
    fig6_relation: str = param('mod3', 'relation of Fig. 6', choices=('mod3', 'mod5', 'greater_than', 'bipartite'))
    fig6_lr_enc: float = param(0.003, 'encoder learning rate of Fig. 6', gt=0, max=1)
    fig6_log10_ratios: list[float] = param([0.0, 0.5, 1.0, 1.5], 'log10 of eta_dec / eta_enc in Fig. 6, increasing', min_len=2)
    fig6_init_scales: list[float] = param([0.5, 1.0], 'initialisation scales compared in Fig. 6', gt=0, min_len=1)
    fig6_seeds: int = param(4, 'seeds per point of Fig. 6', min=1)
    bound_sigma_ratio: float = param(1.0, 'sigma_a / sigma_c of the arctan bound drawn in Fig. 6', gt=0)
    fig8_relation: str = param('mod3', 'relation of Fig. 8', choices=('mod3', 'mod5', 'greater_than', 'bipartite'))
    fig8_lr_enc: float = param(0.003, 'encoder learning rate of Fig. 8 (paper: 1e-5 at 1e5 steps)', gt=0, max=1)
    fig8_log10_lr_dec: list[float] = param([-2.5, -2.0, -1.5, -1.0], 'decoder learning rates of Fig. 8, log10, increasing', max=0, min_len=2)
    fig8_weight_decays: list[float] = param([0.0, 0.3, 3.0], 'decoder weight decays of Fig. 8, increasing', min=0, min_len=2)

    def check(self) -> None:
        for name in ("log10_lr_enc", "log10_lr_dec", "fig6_log10_ratios", "fig8_log10_lr_dec", "fig8_weight_decays"):
            v = getattr(self, name)
            if any(b <= a for a, b in zip(v, v[1:])):
                raise ParameterError(f"parameter {name!r} must be strictly increasing, got {v}")
        if self.grok_threshold >= self.steps:
            raise ParameterError(f"grok_threshold ({self.grok_threshold}) must be smaller than steps ({self.steps})")
        if round(self.train_fraction * self.n ** 2) in (0, self.n ** 2):
            raise ParameterError("train_fraction leaves no training or no test pair at this n")
        if self.fig6_relation not in RELATIONS or self.fig8_relation not in RELATIONS:
            raise ParameterError(f"fig6_relation / fig8_relation must be one of {list(RELATIONS)}")


CHAPTER = Chapter(
    id='geneft_dynamics',
    title='GenEFT dynamics: interacting repons, the arctan law and learning-rate phase diagrams',
    params=GeneftDynamicsParameters,
    claims=(
        Claim('G-Th2/conserved_quantity_exact', statement='Eq. (11) C = a_2^2/(2 eta_A) - c^2/eta_x is conserved by the reduced flow (10), derived from eq. (8) of Appendix C',
              paper_value='exact', metric='conserved_quantity_exact', condition='== true',
              basis='exact'),
        Claim('G-Th2/portrait_agreement', statement='Fig. 4: starts with |c/a_2| < sqrt(eta_x/(2 eta_A)) collide, the others do not',
              paper_value='exact', metric='portrait_agreement', condition='== 1.0',
              basis='single run'),
        Claim('G-Th3/arctan_vs_mc_max_abs_error', statement='Eq. (12): P(collision) = (2/pi) arctan((sigma_a/sigma_c) sqrt(eta_x/(2 eta_A)))',
              paper_value='exact', metric='arctan_vs_mc_max_abs_error', condition='< 0.02',
              basis='single run'),
        Claim('G-Th3/n_repon_vs_sim_max_abs_error', statement='Eq. (13): one repon and N clustered ones collide with probability (2/pi) arctan((sigma_a/sigma_c) sqrt(eta_x (1 + 1/N) / (4 eta_A)))',
              paper_value='exact', metric='n_repon_vs_sim_max_abs_error', condition='< 0.02',
              basis='single run'),
        Claim('G-5/boundary_slope_error_mod3', statement='Fig. 5 (mod 3): the generalization/memorization boundary is a line of constant eta_dec/eta_enc, |slope| 1 in log-log',
              paper_value='slope -1 (axis orientation, see notes)', metric='boundary_slope_error_mod3', condition='< 0.35',
              basis='single run'),
        Claim('G-5/boundary_slope_error_greater_than', statement='Fig. 5 (greater-than): the same slope-1 boundary',
              paper_value='slope -1', metric='boundary_slope_error_greater_than', condition='< 0.35',
              basis='single run', expected="does not hold",
              note='800 steps, 3 x 5 grid: only two columns have a boundary, fitted slope 2.0'),
        Claim('G-5/boundary_slope_error_bipartite', statement='Fig. 5 (complete bipartite): the same slope-1 boundary',
              paper_value='slope -1', metric='boundary_slope_error_bipartite', condition='< 0.35',
              basis='single run', expected="does not hold",
              note='800 steps, 3 x 5 grid: fewer than two columns show a generalization-memorization transition'),
        Claim('G-5/critical_lr_ratio_log10_error', statement='Generalization needs eta_dec/eta_enc below about 10 (log10 of the critical ratio within 0.5 of 1)',
              paper_value='about 10', metric='critical_lr_ratio_log10_error', condition='< 0.5',
              basis='single run'),
        Claim('G-6', statement='Fig. 6: the probability of generalization lies under the arctan bound (12) at every learning-rate ratio and init scale (within two binomial standard errors)',
              paper_value='all points under the bound', metric='fig6_fraction_under_bound', condition='== 1.0',
              basis='single run', expected="does not hold",
              note='every seed generalizes at ratios 1 and 3, far above the bound (0.39, 0.27 at sigma_a/sigma_c = 1): 3 of 8 points under it'),
        Claim('G-8', statement='Fig. 8: the generalization/memorization boundary in eta_dec does not move with the decoder weight decay (shift in decades)',
              paper_value='independent', metric='wd_boundary_shift', condition='<= 0.5',
              basis='single run', expected="does not hold",
              note='800 steps, eta_enc = 3e-3: the boundary moves by one decade between wd 0 and wd 0.3 / 3'),
        Claim('G-A4', statement="Table 4's criteria find generalization, grokking and memorization in the Fig. 5 grids",
              paper_value='3 phases (plus confusion)', metric='phases_seen', condition='>= 3',
              basis='single run'),
    ),
    smoke={'steps': 150, 'grok_threshold': 40, 'mc_samples': 400, 'ode_time': 1000.0, 'portrait_grid': 7, 'relations': ['mod3'], 'log10_lr_enc': [-2.0, -1.5], 'log10_lr_dec': [-2.0, -1.0], 'n': 12, 'width': 16, 'fig6_log10_ratios': [0.0, 1.0], 'fig6_init_scales': [1.0], 'fig6_seeds': 2, 'fig8_log10_lr_dec': [-2.0, -1.0], 'fig8_weight_decays': [0.0, 1.0], 'checkpoint': False, 'theory_lr_ratios': [0.1, 10.0], 'sigma_ratios': [1.0], 'n_cluster': [1, 4]},
)
