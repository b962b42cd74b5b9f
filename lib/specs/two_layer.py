"""Declaration of the chapter `two_layer`: the symmetric two-layer theory (Swing-by paper, Sec. 4.2, App. D, E, F.4)."""
from lib.chapter import Chapter, Claim, Param, ParameterError
from lib.sim.data import setting_error


def _check(p: dict) -> None:
    if error := setting_error(p["mu"], p["sigma"], p["d"]):
        raise ParameterError(error)
    s = len(p["mu"])
    if p["width"] < p["d"]:
        raise ParameterError(f"width d' = {p['width']} must be >= d = {p['d']} (Sec. 4.2)")
    if min(p["sweep_d"]) < s:
        raise ParameterError(f"every d in sweep_d must be >= s = {s}, got {p['sweep_d']}")
    if min(p["sweep_width"]) < p["d"]:
        raise ParameterError(f"every width in sweep_width must be >= d = {p['d']}, got {p['sweep_width']}")
    if p["figure_seed"] is not None and p["figure_seed"] >= p["n_seeds"]:
        raise ParameterError(f"figure_seed must be < n_seeds = {p['n_seeds']}, got {p['figure_seed']}")
    if p["train_seeds"] > p["n_seeds"]:
        raise ParameterError(f"train_seeds = {p['train_seeds']} must not exceed n_seeds = {p['n_seeds']}")
    if len(p["lemma_sigma"]) != len(p["lemma_mu"]):
        raise ParameterError("lemma_sigma needs one entry per lemma_mu")
    a = sorted(sig**2 + m**2 / len(p["lemma_mu"]) for m, sig in zip(p["lemma_mu"], p["lemma_sigma"]))
    if any(hi <= 3 * lo for lo, hi in zip(a, a[1:])):
        raise ParameterError(f"lemma_mu, lemma_sigma give a = {[round(x, 4) for x in a]}: Assumption D.5 needs "
                             "a_i > 3 a_j for every stronger direction i and weaker j")
    if len(set(p["mu"])) != s:
        raise ParameterError("the mu_p must be distinct (the stages are ordered by signal strength)")


CHAPTER = Chapter(
    id="two_layer",
    title="The symmetric two-layer theory: swing-by, multiple descent, failure modes and the lemmas",
    params=(
        Param("d", "int", "input dimension d (rows of U)", min=1, max=64),
        Param("width", "int", "hidden width d' of U (d' >= d)", min=1, max=128),
        Param("mu", "float list", "cluster means mu_p of the main setting (s = len(mu))", gt=0, min_len=2, max_len=8),
        Param("sigma", "float list", "cluster standard deviations sigma_p (one per mu)", min=0, min_len=2, max_len=8),
        Param("init", "str", "init of U: gaussian N(0, scale^2), or uniform [0, scale) as in the authors' script",
              choices=("gaussian", "uniform")),
        Param("init_scale", "float", "init scale tau of the entries of U", gt=0, max=1),
        Param("covariance_power", "int", "flow with A (1, the paper) or A^2 (2, the authors' theory script)",
              choices=(1, 2)),
        Param("n_seeds", "int", "init seeds integrated at once for the main setting", min=10, max=20000),
        Param("horizon", "float", "paper time tau integrated for the main setting", gt=0),
        Param("n_times", "int", "points of the log-spaced time grid", min=50, max=5000),
        Param("descent_tol", "float", "a descent or rise counts if larger than this fraction of the initial OOD loss",
              gt=0, max=0.5),
        Param("figure_seed", "int", "seed drawn in the figures; null: the first seed whose OOD loss is non-monotone",
              min=0, nullable=True),
        Param("seed", "int", "base random seed (inits, data, SGD)", min=0),
        Param("train_lr", "float", "learning rate of the direct torch training of U (tau = 2 lr steps)", gt=0, max=0.1),
        Param("train_n", "int", "sampled points per cluster for the direct training", min=10),
        Param("train_seeds", "int", "init seeds trained with torch and compared with the flow", min=1, max=256),
        Param("sweep_d", "int list", "input dimensions d (= d') of the frequency sweep", min=1, max=64, min_len=1),
        Param("sweep_width", "int list", "hidden widths d' of the frequency sweep (d fixed)", min=1, max=128,
              min_len=1),
        Param("sweep_scale", "float list", "init scales of the frequency sweep", gt=0, max=1, min_len=1),
        Param("sweep_mu1", "float list", "values of mu_1 (others fixed) in the frequency sweep", gt=0, min_len=1),
        Param("sweep_seeds", "int", "init seeds per point of the frequency sweeps", min=10, max=20000),
        Param("multi_seeds", "int", "init seeds searched for triple and quadruple descent", min=10, max=50000),
        Param("multi_horizon", "float", "paper time integrated in the multiple-descent search", gt=0),
        Param("failure_seeds", "int", "init seeds of the failure-mode setting (Fig. 10)", min=10, max=20000),
        Param("failure_horizon", "float", "paper time integrated in the failure-mode setting", gt=0),
        Param("sgd_seeds", "int", "seeds trained by SGD in the failure-mode setting", min=1, max=1024),
        Param("sgd_lr", "float", "SGD learning rate in the failure-mode setting", gt=0, max=0.2),
        Param("sgd_batch", "int", "SGD batch size in the failure-mode setting", min=1),
        Param("lemma_seeds", "int", "initializations run through the discrete update (D.1) for the lemma checks",
              min=1, max=64),
        Param("lemma_mu", "float list", "cluster means (mu_1, mu_2) of the lemma checks (d = s = 2)", gt=0,
              min_len=2, max_len=2),
        Param("lemma_sigma", "float list", "cluster standard deviations of the lemma checks", min=0, min_len=2,
              max_len=2),
        Param("lemma_beta", "float", "beta of Assumption D.1 (spread of |w_ij(0)|)", gt=1, max=10),
        Param("mc_samples", "int", "Monte Carlo draws of U per width in the App. E.2 check", min=100),
    ),
    claims=(
        Claim("S-4.3", statement="(D.2) splits exactly into growth, suppression and noise terms (eq. 4.3)",
              paper_value="exact", metric="decomposition_exact", condition="== true"),
        Claim("S-4.3", statement="gradient flow on U moves W = U U^T by (D.2) up to a time rescaling",
              paper_value="dW/dt = (D.2)", metric="time_rescaling", condition="== 2"),
        Claim("S-5", statement="the theory flow agrees with training U U^T on sampled SIM data",
              paper_value="agreement", metric="flow_vs_training_max_dev", condition="< 0.05"),
        Claim("S-5", statement="the OOD loss of the symmetric two-layer model can be non-monotone (swing-by)",
              paper_value="Fig. 5", metric="descents", condition=">= 2"),
        Claim("S-5", statement="each descent aligns with a growth stage and each rise with a suppression stage",
              paper_value="exact correspondence", metric="stage_alignment", condition="== 1"),
        Claim("S-5", statement="low dimension swings more: the non-monotone fraction falls with d",
              paper_value="Sec. 3.3, 4.2.2", metric="nonmonotone_fraction_drop_with_d", condition="> 0"),
        Claim("S-5", statement="swings come from minor entries initialized positive (Sec. 4.2.2)",
              paper_value="positive minor entries give the illusion", metric="sign_explanation_gap", condition="> 0.1"),
        Claim("S-17", statement="the training loss decreases monotonically while the OOD loss does not",
              paper_value="Fig. 17", metric="train_loss_monotone", condition="== true"),
        Claim("S-18", statement="the outputs at the training-cluster means detour off their axes (a one-layer "
              "model's only decay)", paper_value="Fig. 18", metric="cluster_mean_detour_ratio", condition="> 2"),
        Claim("S-8", statement="triple descent with d=s=3, mu=(1,1.5,2.2), sigma=0.05 (tuned seed; all-positive init)",
              paper_value="exists", metric="triple_descent_fraction_uniform", condition="> 0"),
        Claim("S-9", statement="quadruple descent with d=s=4, mu=(1,1.5,2.2,2.7), sigma=(.05,.05,.05,.5) "
              "(tuned seed; all-positive init)", paper_value="exists", metric="quadruple_descent_fraction_uniform",
              condition="> 0"),
        Claim("S-9/gaussian", statement="quadruple descent in the same setting from a Gaussian init",
              paper_value="exists (seed tuned)", metric="quadruple_descent_fraction", condition="> 0",
              expected_to_hold=False,
              note="no Gaussian seed out of multi_seeds shows four descents; the all-positive uniform init does"),
        Claim("S-10", statement="failure mode: w_11 suppressed early, loss stalls above 0",
              paper_value="plateau at about mu_1^2/2", metric="failure_plateau_loss", condition="> 0.1"),
        Claim("S-10/permanence", statement="the failure is permanent: w_11 never grows",
              paper_value="never grows", metric="failure_permanent_fraction", condition="> 0.5",
              expected_to_hold=False,
              note="under the exact flow (and SGD) every plateau ends: w_11 escapes after a finite time"),
        Claim("S-D", statement="Lemmas D.1-D.8 hold at every step of (D.1) under Assumptions D.1-D.5",
              paper_value="0 violations", metric="lemma_violations", condition="== 0"),
        Claim("S-D/corollary", statement="Corollary D.1 as printed: |N_ij| <= 2 P gamma alpha d beta^2 omega^2",
              paper_value="0 violations", metric="corollary_d1_violations", condition="== 0",
              expected_to_hold=False,
              note="the printed bound misses a factor P; with P^2 it holds (corollary_d1_p2_violations)"),
        Claim("S-E.2", statement="Gaussian init: E w_ii = d' tau^2, E w_ij = 0 off the diagonal",
              paper_value="(E.1)", metric="e2_max_error", condition="< 0.05"),
    ),
    smoke={"n_seeds": 200, "n_times": 200, "train_seeds": 2, "train_n": 300, "train_lr": 0.02, "sweep_d": [2, 4], "sweep_width": [2, 8], "sweep_scale": [0.05],
           "sweep_mu1": [1.0], "sweep_seeds": 100, "multi_seeds": 200, "failure_seeds": 100, "sgd_seeds": 8,
           "lemma_seeds": 1, "mc_samples": 500},
    check=_check,
)
