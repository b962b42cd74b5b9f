"""Declaration of the chapter `geneft_statics`: GenEFT Section III and Appendices A, D, E."""
from lib.chapter import Chapter, Claim, Param, ParameterError

RELATIONS = ("mod3", "mod5", "greater_than", "bipartite", "random_graph")
BOUNDED = ("mod3", "mod5", "greater_than", "bipartite")      # relations with a Monte Carlo bound (App. D)
MODES = ("concat", "difference", "squared_difference")


# ----------------------------------------------------------------------------------------------
# Cross-parameter rules
# ----------------------------------------------------------------------------------------------


def parse_architecture(text: str) -> tuple[str, int]:
    """'mode:depth' -> (mode, depth), e.g. 'squared_difference:0' (Section III modes 1-3, n_h hidden layers)."""
    mode, _, depth = text.partition(":")
    if mode not in MODES or not depth.isdigit():
        raise ParameterError(f"architecture {text!r} must be 'mode:depth' with mode in {list(MODES)} and depth >= 0")
    return mode, int(depth)


def _check(p: dict) -> None:
    for arch in p["architectures"]:
        parse_architecture(arch)
    missing = [r for r in p["net_relations"] if r not in p["mc_relations"]]
    if missing:
        raise ParameterError(f"net_relations {missing} need their Monte Carlo bound: add them to mc_relations")
    if len(set(p["architectures"])) != len(p["architectures"]):
        raise ParameterError(f"architectures has duplicates: {p['architectures']}")
    if sorted(p["fractions"]) != p["fractions"] or len(set(p["fractions"])) != len(p["fractions"]):
        raise ParameterError(f"fractions must be strictly increasing, got {p['fractions']}")
    if len(set(p["goldilocks_depths"])) < 3:
        raise ParameterError("goldilocks_depths needs at least 3 different depths to show a zone")


# ----------------------------------------------------------------------------------------------
# Declaration
# ----------------------------------------------------------------------------------------------

CHAPTER = Chapter(
    id="geneft_statics",
    title="GenEFT statics: description length, critical data fraction and the inductive gap",
    params=(
        # relations (Section II, Table 1)
        Param("n", "int", "number of elements (paper: 30); the data set is all n^2 ordered pairs", min=6, max=60),
        Param("relations", "str list", "relations whose description length b is computed (Table 2)",
              choices=RELATIONS, min_len=1),
        Param("random_graph_seed", "int", "seed of the Erdos-Renyi G(n, 1/2) relation", min=0),
        # Fig. 2: Monte Carlo bound (App. D)
        Param("mc_relations", "str list", "relations of the Monte Carlo bound, Fig. 2", choices=BOUNDED, min_len=1),
        Param("fractions", "float list", "training fractions of Fig. 2 and Fig. 3", gt=0, max=1, min_len=2),
        Param("mc_samplings", "int", "training sets sampled per fraction, equivalence / bipartite (paper: 20)", min=1),
        Param("mc_samplings_order", "int", "training sets sampled per fraction, total order (paper: 3)", min=1),
        Param("mc_orderings", "int", "orderings sampled per training set, total order (paper: 1000)", min=10),
        Param("mc_sweeps", "int", "rounds (in units of n) of the odd-even transposition chain after the start",
              min=0),
        Param("seed", "int", "seed of the Monte Carlo (training sets seed + s, orderings)", min=0),
        # Fig. 3: networks against the bound
        Param("net_relations", "str list", "relations learned by the networks of Fig. 3 (paper: mod3, greater_than)",
              choices=BOUNDED, min_len=1),
        Param("architectures", "str list", "decoders of Fig. 3 as 'mode:depth' (modes concat, difference, "
              "squared_difference; depth = hidden layers)", min_len=1),
        Param("width", "int", "hidden width of the Fig. 3 decoders (Table 3: 50)", min=1),
        Param("embed_dim", "int", "embedding dimension (Table 3: 2)", min=1),
        Param("seeds", "int list", "seeds of the network runs (split and initialisation)", min=0, min_len=1),
        Param("steps", "int", "full-batch AdamW steps per network", min=1),
        Param("patience", "int", "stop a network once it fits its training pairs and its accuracy has been "
              "flat for this many evaluations (every 100 steps); null trains every network to `steps`",
              min=1, nullable=True),
        Param("lr", "float", "learning rate of encoder and decoder (Table 3: 1e-3)", gt=0),
        Param("init_scale", "float", "scale of the initialisation", gt=0),
        # Fig. 7: Goldilocks zone of decoder depth (App. E)
        Param("goldilocks_relation", "str", "relation of Fig. 7 (paper: mod3)", choices=BOUNDED),
        Param("goldilocks_mode", "str", "decoder input mode of Fig. 7 (paper: default, concat)", choices=MODES),
        Param("goldilocks_depths", "int list", "decoder depths of Fig. 7", min=0, min_len=3),
        Param("goldilocks_width", "int", "decoder width of Fig. 7 (paper: 10)", min=1),
        Param("goldilocks_fraction", "float", "training fraction of Fig. 7 (paper: 0.3)", gt=0, max=1),
        Param("goldilocks_runs", "int", "runs (split and initialisation seeds 0..runs-1) per depth of Fig. 7", min=1),
    ),
    claims=(
        Claim("G-T1", statement="b = log2(n!/|Aut(G)|) reproduces the closed forms (total order log2 n!, "
              "K_{a,c}: log2 C(n,a), equivalence classes)", paper_value="exact",
              metric="b_closed_form_max_abs_error", condition="< 1e-6"),
        Claim("G-T2", statement="Table 2's approximate description lengths (n log2 k, n, log2 n!) match the exact "
              "b up to a constant factor", paper_value="'up to a constant factor'",
              metric="table2_max_ratio", condition="< 1.5"),
        Claim("G-1..5", statement="eqs. (1)-(4) follow from the balls-in-buckets model (sympy)",
              paper_value="eqs. (1)-(4)", metric="eqs_1_to_4_sympy_ok", condition="== true"),
        Claim("G-2", statement="Monte Carlo upper bound and analytic eq. (5) roughly agree (Fig. 2)",
              paper_value="rough agreement", metric="mc_vs_analytic_max_gap", condition="< 0.1"),
        Claim("G-2", statement="p_* = 1/k for equivalence classes (k = 3)", paper_value="1/3",
              metric="p_star_mod3_rel_error", condition="< 0.15"),
        Claim("G-2", statement="p_* = 1/2 for the complete bipartite graph", paper_value="1/2",
              metric="p_star_bipartite_rel_error", condition="< 0.15"),
        Claim("G-2", statement="p_* is about 1/3 for the greater-than relation", paper_value="~1/3",
              metric="p_star_greater_than_rel_error", condition="< 0.15"),
        Claim("G-3", statement="the smallest inductive gap on mod 3 is for mode 3 (squared difference)",
              paper_value="squared_difference", metric="best_mode_mod3", condition="== squared_difference"),
        Claim("G-3", statement="the smallest inductive gap on greater-than is for mode 2 (difference)",
              paper_value="difference", metric="best_mode_greater_than", condition="== difference"),
        Claim("G-3", statement="the architecture with the smallest gap has 0 hidden layers (both relations)",
              paper_value="0", metric="best_depth_max", condition="== 0"),
        Claim("G-3", statement="networks stay below the Monte Carlo bound (gap >= 0 for every architecture)",
              paper_value="below the bound", metric="min_inductive_gap", condition=">= 0"),
        Claim("G-7", statement="test accuracy peaks at an intermediate decoder depth (Goldilocks zone)",
              paper_value="interior peak", metric="goldilocks_interior", condition="== true"),
        Claim("G-7", statement="too shallow a decoder gives confusion (train accuracy not above 0.9)",
              paper_value="confusion", metric="goldilocks_shallow_train_acc", condition="< 0.9"),
        Claim("G-7", statement="too deep a decoder memorizes (train above 0.9, test well below the peak)",
              paper_value="memorization", metric="goldilocks_deep_memorizes", condition="== true"),
    ),
    smoke={
        "mc_samplings": 4, "mc_samplings_order": 1, "mc_orderings": 200, "fractions": [0.05, 0.15, 0.3, 0.6],
        "architectures": ["concat:1", "difference:0", "squared_difference:0"], "seeds": [0], "steps": 300,
        "goldilocks_depths": [0, 1, 3], "goldilocks_runs": 2,
    },
    check=_check,
)
