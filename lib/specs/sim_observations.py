"""Declaration of the chapter `sim_observations`: Swing-by paper, Section 3 and Appendices B, F."""
from lib.chapter import Chapter, Claim, Param, ParameterError
from lib.sim.data import setting_error

MODELS = tuple(f"{depth}-{act}" for depth in (1, 2, 3, 4) for act in ("linear", "relu"))


# ----------------------------------------------------------------------------------------------
# Cross-parameter rules
# ----------------------------------------------------------------------------------------------


def _check(p: dict) -> None:
    if error := setting_error(p["topo_mu"], p["topo_sigma"], p["d"]):
        raise ParameterError(f"topo_mu, topo_sigma: {error}")
    if min(p["mu"]) <= 0 or min(p["tiny_mu_large"]) <= 0 or min(p["topo_mu"]) <= 0:
        raise ParameterError("every cluster mean mu_p must be > 0 (the test point must differ from each cluster)")
    if max(p["topo_snapshots"]) > p["topo_epochs"]:
        raise ParameterError(f"topo_snapshots {p['topo_snapshots']} go beyond topo_epochs = {p['topo_epochs']}")
    if p["truncate_fraction"] >= 1:
        raise ParameterError(f"truncate_fraction must be < 1 (a radius of min(mu) reaches a cluster centre), got {p['truncate_fraction']}")


# ----------------------------------------------------------------------------------------------
# Declaration
# ----------------------------------------------------------------------------------------------

CHAPTER = Chapter(
    id="sim_observations",
    title="Observations on the SIM task: order, slow-down, Swing-by detour, topological order",
    params=(
        # the paper's protocol (App. F.1)
        Param("d", "int", "input dimension of the high-dimensional runs (paper: 64)", min=2),
        Param("width", "int", "hidden width of the MLPs (paper: 64)", min=1),
        Param("n", "int", "training points per cluster (paper: 5000)", min=1),
        Param("batch", "int", "SGD minibatch size (paper: 128)", min=1),
        Param("lr", "float", "SGD learning rate (paper: 0.1)", gt=0),
        Param("epochs", "float", "training epochs of every run but App. B (paper: 40)", gt=0),
        Param("loss", "str", "loss scale: 'mse' = PyTorch MSELoss as in the authors' code, 'half_sum' = eq. (2.1)",
              choices=("mse", "half_sum")),
        Param("rotate", "bool", "random rotation of the input space (App. F.1, authors' code)"),
        Param("bias", "bool", "linear layers with bias (authors' code: nn.Linear default)"),
        Param("origin_cluster", "bool", "add a training cluster at the origin (authors' code)"),
        Param("sigma_is_variance", "bool", "read sigma as a variance (authors' code) instead of a standard deviation (paper text)"),
        Param("seed", "int", "first seed; run i uses seed + i for data, init and shuffling", min=0),
        Param("seeds", "int", "seeds of the deep, low-dimensional, truncated and App. B runs", min=1),
        Param("stop_tol", "float", "stop a batched run once every output is within stop_tol * ||x_hat|| of its target",
              gt=0, nullable=True),
        # Fig. 2a/2b, 11, 12: generalization order
        Param("mu", "float list", "cluster means (mu_1, mu_2) of Fig. 2b, 2c, 3, 15, 16", min=0, min_len=2, max_len=2),
        Param("sigma", "float list", "cluster spreads (sigma_1, sigma_2) of Fig. 2a, 2c, 3, 13-16", min=0, min_len=2, max_len=2),
        Param("mu1_values", "float list", "Fig. 2a: values of mu_1 (mu_2 = mu[1])", min=0, min_len=1),
        Param("sigma1_values", "float list", "Fig. 2b: values of sigma_1 (sigma_2 = sigma[1])", min=0, min_len=1),
        Param("order_models", "str list", "models of the order sweeps, 'depth-activation' (Fig. 2a/b: 1-linear, "
              "Fig. 11: 2-linear, Fig. 12: 2-relu)", choices=MODELS, min_len=1),
        Param("order_seeds", "int", "seeds per configuration of the order sweeps", min=1),
        # Fig. 2c, 3, 15, 16: deep models, low vs high dimension
        Param("depth", "int", "layers of the Fig. 2c models (paper: 4)", min=1, max=4),
        Param("activation", "str", "activation of the Fig. 2c models (paper: linear)", choices=("linear", "relu")),
        Param("lowdim_d", "int", "input dimension of the low-dimensional run (paper: 2)", min=2),
        Param("lowdim_width", "int", "hidden width of the low-dimensional run (authors' code: 4)", min=1),
        Param("lowdim_lr", "float", "learning rate of the low-dimensional and Fig. 13 runs (authors' code: 0.01)", gt=0),
        Param("truncate", "bool", "also train on the truncated training distribution (Fig. 16)"),
        Param("truncate_fraction", "float", "truncation radius as a fraction of min(mu) (paper: 1/2)", gt=0),
        Param("rise_tol", "float", "a loss rise counts if it exceeds this fraction of the initial OOD loss", min=0),
        # Fig. 13, 14: 3-layer, 3 hidden units, d = 3, no rotation
        Param("tiny_mu_large", "float list", "Fig. 13/14 'large mu' setting (the small one is mu)", min=0, min_len=2, max_len=2),
        Param("tiny_d", "int", "input dimension of Fig. 13 (paper: 3)", min=2),
        Param("tiny_width", "int", "hidden width of Fig. 13 (paper: 3)", min=1),
        Param("tiny_depth", "int", "layers of Fig. 13 (paper: 3)", min=1, max=4),
        # App. B, Fig. 7: topological order
        Param("topo_mu", "float list", "App. B cluster means (paper: 1, 2, 3, 4)", min=0, min_len=1, max_len=8),
        Param("topo_sigma", "float list", "App. B cluster spreads (paper: 1/2 each)", min=0, min_len=1, max_len=8),
        Param("topo_depth", "int", "App. B layers (paper: 2)", min=1, max=4),
        Param("topo_activation", "str", "App. B activation (paper: ReLU)", choices=("linear", "relu")),
        Param("topo_epochs", "float", "App. B training epochs", gt=0),
        Param("topo_snapshots", "float list", "epochs drawn in Fig. 7 (paper: 1, 3, 5)", min=0, min_len=1, max_len=6),
        Param("topo_tol", "float", "a pair u <= v violates eq. (B.2) if l(u) > l(v) + topo_tol", min=0),
        Param("topo_learned", "float", "a combination point counts as learned once its loss is below this", gt=0),
    ),
    claims=(
        Claim("S-1c", statement="the training density at the OOD test point is practically zero (authors' rebuttal)",
              paper_value="exponentially small", metric="density_ratio_at_test", condition="< 0.001"),
        Claim("S-2a", statement="1-layer linear: the concept with the stronger signal mu_i is learned first",
              paper_value="qualitative (Fig. 2a)", metric="stronger_signal_first", condition="== true"),
        Claim("S-2b", statement="1-layer linear: the more diverse concept (large sigma_1) is learned first",
              paper_value="qualitative (Fig. 2b)", metric="more_diverse_first", condition="== true"),
        Claim("S-2a/slowdown", statement="terminal slow-down: closing the last tenth of the distance takes longer than the first",
              paper_value="qualitative (denser markers)", metric="terminal_slowdown_ratio", condition="> 1"),
        Claim("S-2c", statement="the Swing-by detour toward the strongest cluster is stronger in low than in high dimension",
              paper_value="qualitative (Fig. 2c)", metric="detour_ratio_low_high", condition="> 1", expected_to_hold=False,
              note="at d = 64 the 4-layer output also swings toward the strongest cluster; the median detour is "
                   "not larger at d = 2 (it varies much more across seeds there), only the loss rise is (S-3)"),
        Claim("S-3", statement="low dimension: the OOD loss rises transiently (double-descent-like)",
              paper_value="non-monotonic (Fig. 3)", metric="lowdim_loss_rise_fraction", condition="> 0"),
        Claim("S-3/high-dim", statement="high dimension: the OOD loss slows down but does not rise",
              paper_value="monotonic (Sec. 3.3)", metric="highdim_loss_rise_fraction", condition="== 0"),
        Claim("S-7", statement="eq. (B.2): u <= v implies l(u) <= l(v), at every logged step",
              paper_value="0 violations", metric="topological_violations", condition="== 0", expected_to_hold=False,
              note="violated at most steps, mostly by the origin 0000 (a training cluster, learned after the "
                   "strongest clusters) and by nearly-learned points whose losses cross slightly"),
        Claim("S-7/order", statement="a combination point is learned only after all its predecessors",
              paper_value="0 violations", metric="learning_order_violations", condition="== 0", expected_to_hold=False,
              note="a few pairs, all with the origin 0000 learned after a training cluster "
                   "(learning_order_violations_without_origin is 0 at the defaults)"),
        Claim("S-11", statement="2-layer linear: stronger signal first (Fig. 11 right)",
              paper_value="trend preserved", metric="stronger_signal_first_2_linear", condition="== true"),
        Claim("S-11/sigma", statement="2-layer linear: more diverse first (Fig. 11 left)",
              paper_value="trend preserved", metric="more_diverse_first_2_linear", condition="== true"),
        Claim("S-12", statement="2-layer ReLU: stronger signal first (Fig. 12 right)",
              paper_value="trend preserved", metric="stronger_signal_first_2_relu", condition="== true"),
        Claim("S-12/sigma", statement="2-layer ReLU: more diverse first (Fig. 12 left)",
              paper_value="trend preserved", metric="more_diverse_first_2_relu", condition="== true"),
        Claim("S-13, S-14", statement="3-layer, 3 hidden units, d = 3: significant Transient Memorization (loss rise)",
              paper_value="non-monotonic (Fig. 14)", metric="tiny_loss_rise_fraction", condition="> 0"),
        Claim("S-15", statement="no training point is close to the test point",
              paper_value="none drawn near x_hat", metric="train_fraction_near_test", condition="< 0.05"),
        Claim("S-16", statement="truncating the training distribution barely changes the dynamics",
              paper_value="little impact (Fig. 16)", metric="truncated_vs_full_max_dev", condition="< 0.1"),
    ),
    # smoke: eq. (2.1)'s loss scale (32x the effective learning rate at d = 64) so that two short epochs show the dynamics
    smoke={"n": 1000, "epochs": 2, "loss": "half_sum", "seeds": 2, "topo_epochs": 2, "topo_snapshots": [0.5, 1, 2]},
    check=_check,
)
