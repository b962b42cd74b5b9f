"""Declaration of the chapter `two_layer`: the symmetric two-layer theory (Swing-by paper, Sec. 4.2, App. D, E, F.4)."""
from __future__ import annotations

from dataclasses import dataclass

from lib.sim.data import setting_error
from lib.chapter import Chapter, Claim, Parameters, ParameterError, param


@dataclass(frozen=True)
class TwoLayerParameters(Parameters):
    """Parameters of the chapter `two_layer` (defaults: the book's run)."""

    d: int = param(2, 'input dimension d (rows of U)', min=1, max=64)
    width: int = param(2, "hidden width d' of U (d' >= d)", min=1, max=128)
    mu: list[float] = param([1.0, 2.0], 'cluster means mu_p of the main setting (s = len(mu))', gt=0, min_len=2, max_len=8)
    sigma: list[float] = param([0.05, 0.05], 'cluster standard deviations sigma_p (one per mu)', min=0, min_len=2, max_len=8)
    init: str = param('gaussian', "init of U: gaussian N(0, scale^2), or uniform [0, scale) as in the authors' script", choices=('gaussian', 'uniform'))
    init_scale: float = param(0.05, 'init scale tau of the entries of U', gt=0, max=1)
    covariance_power: int = param(1, "flow with A (1, the paper) or A^2 (2, the authors' theory script)", choices=(1, 2))
    n_seeds: int = param(2000, 'init seeds integrated at once for the main setting', min=10, max=20000)
    horizon: float = param(60.0, 'paper time tau integrated for the main setting', gt=0)
    n_times: int = param(400, 'points of the log-spaced time grid', min=50, max=5000)
    descent_tol: float = param(0.01, 'a descent or rise counts if larger than this fraction of the initial OOD loss', gt=0, max=0.5)
    figure_seed: int | None = param(None, 'seed drawn in the figures; null: the first seed whose OOD loss is non-monotone', min=0)
    seed: int = param(0, 'base random seed (inits, data, SGD)', min=0)
    train_lr: float = param(0.01, 'learning rate of the direct torch training of U (tau = 2 lr steps)', gt=0, max=0.1)
    train_n: int = param(1000, 'sampled points per cluster for the direct training', min=10)
    train_seeds: int = param(4, 'init seeds trained with torch and compared with the flow', min=1, max=256)
    sweep_d: list[int] = param([2, 3, 4, 6, 8, 12], "input dimensions d (= d') of the frequency sweep", min=1, max=64, min_len=1)
    sweep_width: list[int] = param([2, 4, 8, 16, 32], "hidden widths d' of the frequency sweep (d fixed)", min=1, max=128, min_len=1)
    sweep_scale: list[float] = param([0.01, 0.03, 0.1, 0.3], 'init scales of the frequency sweep', gt=0, max=1, min_len=1)
    sweep_mu1: list[float] = param([0.5, 1.0, 1.5], 'values of mu_1 (others fixed) in the frequency sweep', gt=0, min_len=1)
    sweep_seeds: int = param(400, 'init seeds per point of the frequency sweeps', min=10, max=20000)
    multi_seeds: int = param(4000, 'init seeds searched for triple and quadruple descent', min=10, max=50000)
    multi_horizon: float = param(200.0, 'paper time integrated in the multiple-descent search', gt=0)
    failure_seeds: int = param(500, 'init seeds of the failure-mode setting (Fig. 10)', min=10, max=20000)
    failure_horizon: float = param(400.0, 'paper time integrated in the failure-mode setting', gt=0)
    sgd_seeds: int = param(64, 'seeds trained by SGD in the failure-mode setting', min=1, max=1024)
    sgd_lr: float = param(0.05, 'SGD learning rate in the failure-mode setting', gt=0, max=0.2)
    sgd_batch: int = param(32, 'SGD batch size in the failure-mode setting', min=1)
    lemma_seeds: int = param(4, 'initializations run through the discrete update (D.1) for the lemma checks', min=1, max=64)
    lemma_mu: list[float] = param([1.0, 2.0], 'cluster means (mu_1, mu_2) of the lemma checks (d = s = 2)', gt=0, min_len=2, max_len=2)
    lemma_sigma: list[float] = param([0.05, 0.05], 'cluster standard deviations of the lemma checks', min=0, min_len=2, max_len=2)
    lemma_beta: float = param(2.0, 'beta of Assumption D.1 (spread of |w_ij(0)|)', gt=1, max=10)
    mc_samples: int = param(20000, 'Monte Carlo draws of U per width in the App. E.2 check', min=100)

    def check(self) -> None:
        if error := setting_error(self.mu, self.sigma, self.d):
            raise ParameterError(error)
        s = len(self.mu)
        if self.width < self.d:
            raise ParameterError(f"width d' = {self.width} must be >= d = {self.d} (Sec. 4.2)")
        if min(self.sweep_d) < s:
            raise ParameterError(f"every d in sweep_d must be >= s = {s}, got {self.sweep_d}")
        if min(self.sweep_width) < self.d:
            raise ParameterError(f"every width in sweep_width must be >= d = {self.d}, got {self.sweep_width}")
        if self.figure_seed is not None and self.figure_seed >= self.n_seeds:
            raise ParameterError(f"figure_seed must be < n_seeds = {self.n_seeds}, got {self.figure_seed}")
        if self.train_seeds > self.n_seeds:
            raise ParameterError(f"train_seeds = {self.train_seeds} must not exceed n_seeds = {self.n_seeds}")
        if len(self.lemma_sigma) != len(self.lemma_mu):
            raise ParameterError("lemma_sigma needs one entry per lemma_mu")
        a = sorted(sig**2 + m**2 / len(self.lemma_mu) for m, sig in zip(self.lemma_mu, self.lemma_sigma))
        if any(hi <= 3 * lo for lo, hi in zip(a, a[1:])):
            raise ParameterError(f"lemma_mu, lemma_sigma give a = {[round(x, 4) for x in a]}: Assumption D.5 needs "
                                 "a_i > 3 a_j for every stronger direction i and weaker j")
        if len(set(self.mu)) != s:
            raise ParameterError("the mu_p must be distinct (the stages are ordered by signal strength)")


CHAPTER = Chapter(
    id='two_layer',
    title='The symmetric two-layer theory: swing-by, multiple descent, failure modes and the lemmas',
    params=TwoLayerParameters,
    claims=(
        Claim('S-4.3/decomposition_exact', statement='(D.2) splits exactly into growth, suppression and noise terms (eq. 4.3)',
              paper_value='exact', metric='decomposition_exact', condition='== true',
              basis='exact'),
        Claim('S-4.3/time_rescaling', statement='gradient flow on U moves W = U U^T by (D.2) up to a time rescaling',
              paper_value='dW/dt = (D.2)', metric='time_rescaling', condition='== 2',
              basis='single run'),
        Claim('S-5/flow_vs_training_max_dev', statement='the theory flow agrees with training U U^T on sampled SIM data',
              paper_value='agreement', metric='flow_vs_training_max_dev', condition='< 0.05',
              basis='single run'),
        Claim('S-5/descents', statement='the OOD loss of the symmetric two-layer model can be non-monotone (swing-by)',
              paper_value='Fig. 5', metric='descents', condition='>= 2',
              basis='single run'),
        Claim('S-5/stage_alignment', statement='each descent aligns with a growth stage and each rise with a suppression stage',
              paper_value='exact correspondence', metric='stage_alignment', condition='== 1',
              basis='single run'),
        Claim('S-5/nonmonotone_fraction_drop_with_d', statement='low dimension swings more: the non-monotone fraction falls with d',
              paper_value='Sec. 3.3, 4.2.2', metric='nonmonotone_fraction_drop_with_d', condition='> 0',
              basis='single run'),
        Claim('S-5/sign_explanation_gap', statement='swings come from minor entries initialized positive (Sec. 4.2.2)',
              paper_value='positive minor entries give the illusion', metric='sign_explanation_gap', condition='> 0.1',
              basis='single run'),
        Claim('S-17', statement='the training loss decreases monotonically while the OOD loss does not',
              paper_value='Fig. 17', metric='train_loss_monotone', condition='== true',
              basis='single run'),
        Claim('S-18', statement="the outputs at the training-cluster means detour off their axes (a one-layer model's only decay)",
              paper_value='Fig. 18', metric='cluster_mean_detour_ratio', condition='> 2',
              basis='single run'),
        Claim('S-8', statement='triple descent with d=s=3, mu=(1,1.5,2.2), sigma=0.05 (tuned seed; all-positive init)',
              paper_value='exists', metric='triple_descent_fraction_uniform', condition='> 0',
              basis='single run'),
        Claim('S-9', statement='quadruple descent with d=s=4, mu=(1,1.5,2.2,2.7), sigma=(.05,.05,.05,.5) (tuned seed; all-positive init)',
              paper_value='exists', metric='quadruple_descent_fraction_uniform', condition='> 0',
              basis='single run'),
        Claim('S-9/gaussian', statement='quadruple descent in the same setting from a Gaussian init',
              paper_value='exists (seed tuned)', metric='quadruple_descent_fraction', condition='> 0',
              basis='single run', expected="does not hold",
              note='no Gaussian seed out of multi_seeds shows four descents; the all-positive uniform init does'),
        Claim('S-10', statement='failure mode: w_11 suppressed early, loss stalls above 0',
              paper_value='plateau at about mu_1^2/2', metric='failure_plateau_loss', condition='> 0.1',
              basis='single run'),
        Claim('S-10/permanence', statement='the failure is permanent: w_11 never grows',
              paper_value='never grows', metric='failure_permanent_fraction', condition='> 0.5',
              basis='single run', expected="does not hold",
              note='under the exact flow (and SGD) every plateau ends: w_11 escapes after a finite time'),
        Claim('S-D', statement='Lemmas D.1-D.8 hold at every step of (D.1) under Assumptions D.1-D.5',
              paper_value='0 violations', metric='lemma_violations', condition='== 0',
              basis='single run'),
        Claim('S-D/corollary', statement='Corollary D.1 as printed: |N_ij| <= 2 P gamma alpha d beta^2 omega^2',
              paper_value='0 violations', metric='corollary_d1_violations', condition='== 0',
              basis='single run', expected="does not hold",
              note='the printed bound misses a factor P; with P^2 it holds (corollary_d1_p2_violations)'),
        Claim('S-E.2', statement="Gaussian init: E w_ii = d' tau^2, E w_ij = 0 off the diagonal",
              paper_value='(E.1)', metric='e2_max_error', condition='< 0.05',
              basis='single run'),
    ),
    smoke={'n_seeds': 200, 'n_times': 200, 'train_seeds': 2, 'train_n': 300, 'train_lr': 0.02, 'sweep_d': [2, 4], 'sweep_width': [2, 8], 'sweep_scale': [0.05], 'sweep_mu1': [1.0], 'sweep_seeds': 100, 'multi_seeds': 200, 'failure_seeds': 100, 'sgd_seeds': 8, 'lemma_seeds': 1, 'mc_samples': 500},
)

# ----------------------------------------------------------------------------------------------
# Evidence (lib.evidence; computed by `make evidence`, read with lib.evidence.load)
# ----------------------------------------------------------------------------------------------
from lib.evidence import EvidenceSet  # noqa: E402

EVIDENCE = (
    EvidenceSet(
        chapter="two_layer", name="swing_by_d",
        description="non-monotone OOD loss against d (= d'): 4 blocks of 1000 Gaussian-init seeds per d, "
                    "main setting otherwise (the live sweep has sweep_seeds per d)",
        function="lib.theory.two_layer_evidence:swing_block",
        config={"mu": [1.0, 2.0], "sigma": [0.05, 0.05], "init": "gaussian", "init_scale": 0.05,
                "covariance_power": 1, "horizon": 60.0, "n_times": 200, "descent_tol": 0.01,
                "seeds_per_block": 1000, "seed": 1},
        shards=[{"d": d, "block": b} for d in (2, 3, 4, 6, 8, 12) for b in range(4)],
        smoke={"config": {"seeds_per_block": 50, "n_times": 100}, "shards": [{"d": 2, "block": 0}, {"d": 3, "block": 0}]},
        threads=1, minutes=0.1, mem_mb=1000,
    ),
)
