"""Declaration of the chapter `geneft_statics`: GenEFT Section III and Appendices A, D, E."""

from __future__ import annotations

from dataclasses import dataclass, replace

from lib.book.chapters.declaration import (
    BookBar,
    Chapter,
    Claim,
    Cost,
    FreeChoice,
    ParameterError,
    Parameters,
    param,
    refuse_repeats,
    short,
)
from lib.book.evidence import EvidenceSet
from lib.geneft.evidence import (  # numpy only: no torch at import
    model_step_seconds,
    shard_minutes,
)
from lib.geneft.statics import TABLE3_DECODER, split_architecture

# seeds of G-3's registered confirmation (decoder_modes_fresh): none of them trained at this design
FRESH_SEEDS = {"seeds": 60, "seed_offset": 100}
RELATIONS = ("mod3", "mod5", "greater_than", "bipartite", "random_graph")
MODES = ("concat", "difference", "squared_difference")


def parse_architecture(text: str) -> tuple[str, int]:
    """'mode:depth' -> (mode, depth) of a parameter value (`statics.split_architecture`), a known mode."""
    try:
        mode, depth = split_architecture(text)
    except ValueError:
        mode, depth = None, 0
    if mode not in MODES:
        raise ParameterError(
            f"parameter 'architectures': {short(text)} must be 'mode:depth' with mode in {list(MODES)} and depth "
            "an ASCII whole number >= 0"
        )
    return mode, depth


@dataclass(frozen=True)
class GeneftStaticsParameters(Parameters):
    """Parameters of the chapter `geneft_statics` (defaults: the book's run)."""

    n: int = param(30, "number of elements (paper: 30); the data set is all n^2 ordered pairs", min=6, max=60)
    relations: list[str] = param(
        ["mod3", "mod5", "greater_than", "bipartite", "random_graph"],
        "relations whose description length b is computed (Table 2)",
        choices=("mod3", "mod5", "greater_than", "bipartite", "random_graph"),
        min_len=1,
        distinct=True,
    )
    random_graph_seed: int = param(0, "seed of the Erdos-Renyi G(n, 1/2) relation", min=0)
    mc_relations: list[str] = param(
        ["mod3", "mod5", "greater_than", "bipartite"],
        "relations of the Monte Carlo bound, Fig. 2",
        choices=("mod3", "mod5", "greater_than", "bipartite"),
        min_len=1,
        distinct=True,
    )
    fractions: list[float] = param(
        [0.02, 0.05, 0.08, 0.12, 0.16, 0.2, 0.3, 0.45, 0.6, 0.8],
        "training fractions of Fig. 2 and Fig. 3",
        gt=0,
        max=1,
        min_len=2,
        distinct=True,
    )
    mc_samplings: int = param(
        20, "training sets sampled per fraction, equivalence / bipartite (paper: 20)", min=2, max=2000
    )
    mc_samplings_order: int = param(
        20, "training sets sampled per fraction, total order (paper: 3; 20 for a bootstrap over them)", min=2, max=200
    )
    mc_orderings: int = param(
        1000, "orderings sampled per training set, total order (paper: 1000)", min=10, max=100_000
    )
    mc_sweeps: int = param(
        4, "rounds (in units of n) of the odd-even transposition chain after the start", min=0, max=1000
    )
    seed: int = param(0, "seed of the Monte Carlo (training sets seed + s, orderings)", min=0)
    net_relations: list[str] = param(
        ["mod3", "greater_than"],
        "relations learned by the networks of Fig. 3 (paper: mod3, greater_than)",
        choices=("mod3", "mod5", "greater_than", "bipartite"),
        min_len=1,
        distinct=True,
    )
    architectures: list[str] = param(
        ["concat:1", "difference:1", "difference:0", "squared_difference:1", "squared_difference:0"],
        "decoders of Fig. 3 as 'mode:depth' (modes concat, difference, squared_difference; depth = hidden layers)",
        min_len=1,
        distinct=True,
    )
    width: int = param(
        10, "hidden width of the Fig. 3 decoders (Table 3: 50; the evidence runs Table 3)", min=1, max=1000
    )
    embed_dim: int = param(2, "embedding dimension (Table 3: 2)", min=1, max=256)
    seeds: list[int] = param(
        [0, 1],
        "seeds of the live network runs (split and initialisation; the evidence has 5)",
        min=0,
        min_len=1,
        max_len=1000,
        distinct=True,
    )
    steps: int = param(1000, "full-batch AdamW steps per network", min=100, max=10_000_000)
    patience: int | None = param(
        3,
        "stop a network once it fits its training pairs and its accuracy has been flat for this many evaluations (every 100 steps); null trains every network to `steps`",
        min=1,
        max=100_000,
    )
    lr: float = param(
        0.01,
        "learning rate of encoder and decoder of the live networks (Table 3: 1e-3, used by the evidence)",
        min=1e-6,
        max=1.0,
    )
    init_scale: float = param(1.0, "scale of the initialisation", min=1e-6, max=100.0)
    goldilocks_relation: str = param(
        "mod3", "relation of Fig. 7 (paper: mod3)", choices=("mod3", "mod5", "greater_than", "bipartite")
    )
    goldilocks_mode: str = param(
        "concat",
        "decoder input mode of Fig. 7 (paper: default, concat)",
        choices=("concat", "difference", "squared_difference"),
    )
    goldilocks_depths: list[int] = param(
        [0, 1, 2, 4, 6], "decoder depths of Fig. 7", min=0, max=64, min_len=3, distinct=True
    )
    goldilocks_width: int = param(10, "decoder width of Fig. 7 (paper: 10)", min=1, max=1000)
    goldilocks_fraction: float = param(0.3, "training fraction of Fig. 7 (paper: 0.3)", gt=0, max=1)
    goldilocks_runs: int = param(
        4, "runs (split and initialisation seeds 0..runs-1) per depth of Fig. 7", min=1, max=1000
    )
    fit_seeds: int = param(
        2, "seeds per depth of the expressivity check: Fig. 7 decoders trained on all n^2 pairs", min=1, max=100
    )
    alpha: float = param(
        0.9, "accuracy level alpha of the paper's eq. (4) and of the 90% crossings (Section III: say 90%)", gt=0.5, lt=1
    )

    def check(self) -> None:
        refuse_repeats("architectures", [parse_architecture(a) for a in self.architectures], self.architectures)
        missing = [r for r in self.net_relations if r not in self.mc_relations]
        if missing:
            raise ParameterError(f"net_relations {missing} need their Monte Carlo bound: add them to mc_relations")
        if sorted(self.fractions) != self.fractions or len(set(self.fractions)) != len(self.fractions):
            raise ParameterError(f"fractions must be strictly increasing, got {short(self.fractions)}")
        if len(set(self.goldilocks_depths)) < 3:
            raise ParameterError("goldilocks_depths needs at least 3 different depths to show a zone")
        if self.patience is not None and self.patience * 100 > self.steps:
            raise ParameterError(
                f"patience {self.patience} x 100 steps exceeds steps = {self.steps}: no network "
                "could stop early; lower patience or set it to null"
            )
        if min(self.fractions) * self.n**2 < 1:
            raise ParameterError(f"the smallest fraction {min(self.fractions)} gives no training pair at n = {self.n}")
        if round(self.goldilocks_fraction * self.n**2) in (0, self.n**2):
            raise ParameterError(
                f"goldilocks_fraction {self.goldilocks_fraction} leaves no training or no test pair at n = {self.n}"
            )

    def cost(self) -> Cost:
        """Monte Carlo (orderings dominate) plus network model-steps at the trainer's measured rate. The total
        order's orderings were measured at 5e-5 s per (fraction, sampling, ordering, sweep + 1) at n = 30,
        growing as n^3.5 (x11.6 at n = 60), linear in the sweeps; counted at twice that."""
        f = len(self.fractions)
        mc = f * (
            self.mc_samplings * len(self.mc_relations) * (self.n / 30) ** 3 * 2e-3
            + self.mc_samplings_order * self.mc_orderings * (self.mc_sweeps + 1) * (self.n / 30) ** 3.5 * 1e-4
        )
        nets = 0.0
        for arch in self.architectures:
            mode, depth = parse_architecture(arch)
            nets += (
                len(self.net_relations)
                * f
                * len(self.seeds)
                * self.steps
                * model_step_seconds(self.n, mode, depth, self.width, self.embed_dim)
            )
        for depth in self.goldilocks_depths:
            per = model_step_seconds(self.n, self.goldilocks_mode, depth, self.goldilocks_width, self.embed_dim)
            nets += (self.goldilocks_runs + self.fit_seeds) * self.steps * per
        models = len(self.net_relations) * f * len(self.seeds) * len(self.architectures)
        return Cost(seconds=10 + mc + nets, gigabytes=0.5 + models * self.n**2 * max(self.width, 8) * 4e-9 * 12)


def _training_length(metric: str, figure: int) -> FreeChoice:
    """The training length of the runs behind a G-3 or G-7 claim, which the paper does not state for its Figs. 3
    and 7: the book's 1e4 steps, and the same runs at 1e5 (`metric` + "_1e5", sets decoder_modes_1e5 and
    goldilocks_depths_1e5)."""
    return FreeChoice(
        "training length",
        f"10⁴ AdamW steps (the book's; the paper states none for Fig. {figure})",
        {"10⁵ steps (the step count of the paper's Table 4)": f"{metric}_1e5"},
    )


def _best_depth(claim_id: str, sample: str, metric: str, role: str, note: str, expected: str = "inconclusive") -> Claim:
    """A claim of the paper's best depth on G-3's decoder-mode design, its seeds said by `sample`: on both relations
    the best decoder without hidden layers has a smaller gap than the best with one (the smaller of the relations'
    margins, `lib.geneft.statics.paper_decoder_margins`, above 0), at the book's training length with 1e5 steps as
    the alternative (`_training_length`)."""
    return Claim(
        claim_id,
        statement="the architecture with the smallest gap has 0 hidden layers: on both relations the best decoder "
        f"without hidden layers has a smaller gap than the best with one (smaller margin of the two above 0; {sample})",
        paper_value="0",
        metric=metric,
        condition="> 0",
        basis="evidence",
        free_choices=(_training_length(metric, 3),),
        role=role,
        expected=expected,
        note=note,
    )


CHAPTER = Chapter(
    id="geneft_statics",
    title="GenEFT statics: how much data a relation needs",
    params=GeneftStaticsParameters,
    claims=(
        Claim(
            "G-T1",
            statement="$b = \\log_2(n!/\\vert\\mathrm{Aut}(G)\\vert)$ reproduces the closed forms (total order "
            "$\\log_2 n!$, $K_{a,c}$: $\\log_2\\binom{n}{a}$ for $a \\ne c$ and one bit less for $a = c$, equivalence "
            "classes)",
            paper_value="exact",
            metric="b_closed_form_max_abs_error",
            condition="< 1e-6",
            basis="single run",
            role="primary",
        ),
        Claim(
            "G-T2",
            statement="The approximate description lengths of the paper's Table 2 ($n\\log_2 k$, $n$, $\\log_2 n!$) "
            "match the exact $b$ up to a constant factor",
            paper_value="'up to a constant factor'",
            metric="table2_max_ratio",
            condition="< 1.5",
            basis="single run",
            role="primary",
        ),
        Claim(
            "G-1..5",
            statement="the paper's eqs. (1)–(4) follow from the balls-in-buckets model (sympy)",
            paper_value="the paper's eqs. (1)–(4)",
            metric="eqs_1_to_4_sympy_ok",
            condition="== true",
            basis="consistency",
            note="sympy re-derives the equations from the model the paper states; the identity holds by construction of "
            "that model, it does not test the model against data",
        ),
        Claim(
            "G-2/mc-vs-analytic",
            statement="The Monte Carlo upper bound and the analytic bound of the paper's eq. (5) roughly agree (the "
            "paper's Fig. 2; largest gap over relations and fractions)",
            paper_value="rough agreement",
            metric="mc_vs_analytic_max_gap",
            condition="< 0.1",
            basis="single run",
            role="primary",
            book_bar=BookBar(edge=0, end=1),
        ),
        Claim(
            "G-2/p-star-mod3",
            statement="$p_* = 1/k$ for equivalence classes ($k = 3$): the guessing probability of the paper's eq. (5) "
            "in the small-data limit, read at the smallest training fraction (relative error)",
            paper_value="1/3",
            metric="p_star_mod3_rel_error",
            condition="< 0.15",
            basis="seeds",
            note="$p_*$ = {p_star_mod3} at the smallest fraction; robustness readings: pooled over the whole curve "
            "{p_star_whole_curve_mod3}, the paper's eq. (5) fitted to the curve {p_star_eq5_fit_mod3}: the open entries "
            "carry partial information as data accumulate and $p_*$ drifts from 1/3 towards 1/2, so only the "
            "small-data limit, which is the prior $1/k$, is the paper's $p_*$",
        ),
        Claim(
            "G-2/p-star-greater-than",
            statement="$p_*$ is about 1/3 for the greater-than relation: the guessing probability of the paper's "
            "eq. (5), read at the grid's smallest training fraction (relative error); unlike the classes' $1/k$ this is "
            "not a small-data limit: with no data every pair of an order is open at 1/2",
            paper_value="about 1/3",
            metric="p_star_greater_than_rel_error",
            condition="< 0.15",
            basis="seeds",
            note="$p_*$ = {p_star_greater_than} at the smallest fraction, over the training sets sampled (the paper "
            "samples 3); robustness readings: pooled over the whole curve {p_star_whole_curve_greater_than}, the "
            "paper's eq. (5) fitted to the curve {p_star_eq5_fit_greater_than}: $p_*$ first falls and then rises with "
            "the fraction (from 1/2 with no data), so "
            "'about 1/3' holds near the grid's smallest fraction only, and the verdict rests on where the grid starts",
        ),
        Claim(
            "G-2/p-star-bipartite",
            statement="$p_* = 1/2$ for the complete bipartite graph (relative error)",
            paper_value="1/2",
            metric="p_star_bipartite_rel_error",
            condition="< 0.15",
            basis="consistency",
            note="two classes of equal size: every open entry has $p = 1/2$ by symmetry, so this holds by construction",
        ),
        Claim(
            "G-1..5/p_c-inferable",
            statement="The $p_c$ of the paper's eq. (4) is where the inferable fraction reaches $\\alpha$ (mod 3; "
            "within a factor 2: $\\vert\\log_2(\\text{crossing}/p_c)\\vert \\lt 1$)",
            paper_value="$f(Np_c) = \\alpha$",
            metric="p_c_vs_inferred_log2_mod3",
            condition="< 1",
            basis="seeds",
            role="primary",
            book_bar=BookBar(edge=0),
        ),
        Claim(
            "G-1..5/p_c-bound",
            statement="The Monte Carlo bound reaches accuracy $\\alpha$ at the $p_c$ of the paper's eq. (4) (mod 3; "
            "within a factor 2)",
            paper_value="$p_c$: critical fraction at accuracy $\\alpha$",
            metric="p_c_vs_bound_log2_mod3",
            condition="< 1",
            basis="seeds",
            role="reading",
            note="a book reading since 2026-12-07 (before, a primary of its row; relabelled after an audit, verdict "
            "unchanged): the paper's eq. (4) sets $p_c$ by the inferable fraction, $f(Np_c) = \\alpha$ "
            "(G-1..5/p_c-inferable, the row's primary), before its eq. (5) adds the right guesses; that the bound, "
            "guesses included, reaches $\\alpha$ at $p_c$ is the book's reading of the paper's motivation, 'how much "
            "training data is needed to reach a testing accuracy $\\alpha$'. The factor 2 is the book's bar, and on "
            "greater-than the same reading does not hold (G-1..5/p_c-bound-greater-than)",
        ),
        Claim(
            "G-1..5/p_c-bound-greater-than",
            statement="The Monte Carlo bound reaches accuracy $\\alpha$ at the $p_c$ of the paper's eq. (4) "
            "(greater-than; within a factor 2)",
            paper_value="$p_c$: critical fraction at accuracy $\\alpha$",
            metric="p_c_vs_bound_log2_greater_than",
            condition="< 1",
            basis="seeds",
            role="reading",
            expected="does not hold",
            note="a book reading, as G-1..5/p_c-bound (relabelled with it on 2026-12-07, verdict unchanged): $p_c$ = {p_c_alpha90_greater_than} ($b = \\log_2 30!$), and the bound reaches 0.9 at "
            "{fraction_at_90_accuracy_greater_than_bound}: guessing the open pairs of an order is right far more often "
            "than 1/2, which the paper's eq. (4) ignores; its inferable fraction reaches 0.9 at "
            "{fraction_at_90_inferred_greater_than}, as the paper's eq. (4) says",
        ),
        Claim(
            "G-1..5/p_c-networks",
            statement="Networks (the paper's Table 3 decoder, 5 seeds) reach accuracy $\\alpha$ at the $p_c$ of the "
            "paper's eq. (4) (mod 3; within a factor 2)",
            paper_value="$p_c$: critical fraction at accuracy $\\alpha$",
            metric="p_c_vs_networks_log2_mod3",
            condition="< 1",
            basis="evidence",
            role="reading",  # the factor 2 is the book's bar, as for greater-than
            expected="does not hold",
            note="the paper's Table 3 networks reach 0.9 over all pairs at {fraction_at_90_accuracy_mod3_networks} "
            "seeds, against $p_c$ = {p_c_networks_mod3}: the paper's eq. (4) counts the bits of the relation, and the "
            "networks need $2^{\\vert\\log_2\\vert}$ (the claim's value) times as much data; the Monte Carlo bound reaches 0.9 at {fraction_at_90_accuracy_mod3_bound}, "
            "so the gap is the inductive gap of a decoder without the right bias",
        ),
        Claim(
            "G-1..5/p_c-networks-greater-than",
            statement="Networks (the paper's Table 3 decoder, 5 seeds) reach accuracy $\\alpha$ at the $p_c$ of the "
            "paper's eq. (4) (greater-than; within a factor 2)",
            paper_value="$p_c$: critical fraction at accuracy $\\alpha$",
            metric="p_c_vs_networks_log2_greater_than",
            condition="< 1",
            basis="evidence",
            role="reading",  # the factor 2 is the book's bar: the paper gives no tolerance
        ),
        Claim(
            "G-3/best-mode-mod3",
            statement="the smallest inductive gap on mod 3 is for mode 3 (squared difference): the best squared-difference "
            "decoder's gap is smaller than the best of the other modes' (margin in gap above 0; the width and learning "
            "rate of the paper's Table 3, evidence of the decoder modes)",
            paper_value="squared difference",
            metric="best_mode_margin_mod3",
            condition="> 0",
            basis="evidence",
            free_choices=(_training_length("best_mode_margin_mod3", 3),),
            role="primary",
        ),
        Claim(
            "G-3/best-mode-greater-than",
            statement="the smallest inductive gap on greater-than is for mode 2 (difference): the best difference "
            "decoder's gap is smaller than the best of the other modes' (margin in gap above 0; evidence of the decoder "
            "modes)",
            paper_value="difference",
            metric="best_mode_margin_greater_than",
            condition="> 0",
            basis="evidence",
            free_choices=(_training_length("best_mode_margin_greater_than", 3),),
            role="primary",
        ),
        _best_depth(
            "G-3/best-depth",
            "10 seeds per decoder and fraction, the decoder-mode runs and their five more seeds pooled",
            "best_depth_margin",
            role="paper",
            note="a primary of its row on 2026-12-07 (relabelled after an audit from a further statement: the "
            "paper's sentence names both the mode and the depth, \"the smallest for a network in mode 3 with 0 hidden "
            'layers"; the row moved from reproduced to undecided), and a further statement again from the same day, '
            "when G-3/best-depth-fresh was registered, before any of its runs existed: the confirmation runs this "
            "test on fresh seeds and decides the row's depth either way, where this claim, inconclusive on seeds "
            "that will not change, would have kept the row undecided had the confirmation held. Re-declared when the "
            "five more seeds (5 to 9) were all stored, as declared with them: on the first 5 "
            "seeds this claim did not hold (mod 3's margin wholly below 0, with one seed of squared difference without "
            "hidden layer stuck near 0.6 at every fraction); on 10 seeds the interval covers 0. On mod 3 the smallest "
            "gap is {best_decoder_evidence_mod3}, and the best decoder without hidden layers leads the best with "
            "one, in mean accuracy over the fractions, by {best_depth_margin_mod3} (negative: it trails); on "
            "greater-than by {best_depth_margin_greater_than}. The paper's mode choice holds on both relations (G-3/best-mode-*). "
            "What would decide it: at the margin seen, its interval (narrowing as one over the square root of the "
            "seeds) would clear 0 from about {best_depth_seeds_to_decide} seeds per decoder, some "
            "{best_depth_core_hours_to_decide} core-hours more at the cost per seed and step of the runs at 10⁵ steps "
            "(corrected on 2026-12-07: it was priced at the recorded times of seeds 5 to 9, up to 30 times what a "
            "recompute of two of their shards took that day on the same processor, with the same arrays bit for "
            "bit); fresh seeds, registered before they were run, are G-3/best-depth-fresh",
        ),
        _best_depth(
            "G-3/best-depth-fresh",
            f"the decoder-mode runs' design on {FRESH_SEEDS['seeds']} fresh seeds per decoder and fraction, that no "
            "earlier run of this design used",
            "best_depth_margin_fresh",
            role="primary",
            note="registered on 2026-12-07, before any of its runs existed, when G-3/best-depth was inconclusive on 10 "
            "seeds: the same test, decoders, relations, fractions and training (10⁴ AdamW steps) on seeds "
            f"{FRESH_SEEDS['seed_offset']} to {FRESH_SEEDS['seed_offset'] + FRESH_SEEDS['seeds'] - 1}. Its power, if "
            "fresh seeds are like the first ten (each relation's ten seeds reweighted by a Bayesian bootstrap, 200 "
            "draws; a seed unlike all ten is never drawn): it does not hold with probability "
            "{best_depth_fresh_power_fails} and holds with probability {best_depth_fresh_power_holds}, and is "
            "inconclusive otherwise. On mod 3 the margin hinges on how often a seed of the squared-difference decoder "
            "without hidden layers is stuck, as one of the first ten was. The training length's check is not made for "
            "this claim: its alternative, these seeds at 10⁵ steps, is not run (about {best_depth_fresh_1e5_core_hours} "
            "core-hours; on the first ten seeds mod 3's margin was {best_depth_margin_mod3_1e5} at 10⁵ steps against "
            "{best_depth_margin_mod3} at 10⁴). Judged once, when the last shard was stored (2026-12-07), which set the "
            "expected verdict: {best_depth_fresh_decision_text}",
        ),
        Claim(
            "G-3/under-bound-table3-mod3",
            statement="The paper's Table 3 decoder (concatenation, $3 \\times 50$, $d = 2$) is not above the Monte Carlo "
            "bound at any training fraction, mod 3 (largest excess $\\le 0$)",
            paper_value="below the bound",
            metric="excess_over_bound_table3_mod3",
            condition="<= 0",
            basis="evidence",
        ),
        Claim(
            "G-3/under-bound-table3-greater-than",
            statement="The paper's Table 3 decoder is not above the Monte Carlo bound at any training fraction, "
            "greater-than (largest excess $\\le 0$)",
            paper_value="below the bound",
            metric="excess_over_bound_table3_greater_than",
            condition="<= 0",
            basis="evidence",
        ),
        Claim(
            "G-3/under-bound-sweep",
            statement="no decoder of the width (10 to 100) and embedding-dimension (1 to 8) sweeps is above the bound "
            "at any fraction, both relations (largest excess $\\le 0$)",
            paper_value="below the bound",
            metric="excess_over_bound_sweep",
            condition="<= 0",
            basis="evidence",
        ),
        Claim(
            "G-7/goldilocks-interior",
            statement="test accuracy peaks at an intermediate decoder depth (Goldilocks zone): the best interior depth's "
            "mean test accuracy exceeds both ends' (margin above 0; evidence of the depth sweep, depths 0 to 10)",
            paper_value="interior peak",
            metric="goldilocks_interior_margin",
            condition="> 0",
            basis="evidence",
            free_choices=(_training_length("goldilocks_interior_margin", 7),),
            role="primary",
        ),
        Claim(
            "G-7/shallow-confusion",
            statement="too shallow a decoder gives confusion (train accuracy not above 0.9)",
            paper_value="confusion",
            metric="goldilocks_shallow_train_acc",
            condition="< 0.9",
            basis="consistency",
            note="out of reach by construction with the defaults (depth 0, concatenated inputs, mod 3): the logit "
            "$s(x) + t(y)$ calls positive a staircase of pairs, and the best staircase on three equal classes is right "
            "on 7/9 of the pairs (one diagonal block), below 0.9; this checks the training, not the Goldilocks argument",
        ),
        Claim(
            "G-7/deep-memorizes",
            statement="too deep a decoder memorizes: the deepest decoder's test accuracy lies more than 0.05 under the "
            "best depth's (evidence of the depth sweep)",
            paper_value="memorization",
            metric="goldilocks_deep_deficit",
            condition="> 0.05",
            basis="evidence",
            free_choices=(_training_length("goldilocks_deep_deficit", 7),),
        ),
        Claim(
            "G-7/deep-fits",
            statement="the deepest decoder of the Goldilocks sweep fits its training pairs (mean train accuracy above "
            "0.9; evidence of the depth sweep)",
            paper_value="high training accuracy",
            metric="goldilocks_deep_train_acc",
            condition="> 0.9",
            basis="evidence",
            free_choices=(_training_length("goldilocks_deep_train_acc", 7),),
            expected="inconclusive",
            note="evidence of the depth sweep (10 seeds): the deepest decoder (depth "
            "{goldilocks_deepest_depth_evidence}) reaches a mean train accuracy of {goldilocks_deep_train_acc} in "
            "$10^4$ steps at learning rate $10^{-3}$, and {goldilocks_deep_train_acc_1e5} in $10^5$ steps (the "
            "training length is the book's choice; the paper states none for its Fig. 7), so its low test accuracy "
            "(G-7/deep-memorizes) is part memorization, part a deep tanh decoder that does not fit every seed's "
            "training pairs; the depths a few layers shallower fit their training pairs and still lose test accuracy "
            "(figure)",
        ),
        Claim(
            "G-7/cannot-express",
            statement="the shallowest decoder of the paper's Fig. 7 cannot express the relation: trained on all $n^2$ "
            "pairs, no seed fits them",
            paper_value='"lacks the ability to correctly decode"',
            metric="full_fit_train_acc_shallowest",
            condition="< 1.0",
            basis="consistency",
            note="impossible by construction with the defaults (depth 0, concatenated inputs, mod 3): the decoder's "
            "logit is $s(x) + t(y)$, and two classes $a$, $b$ need $s(a) + t(a) \\gt 0$, $s(b) + t(b) \\gt 0$, "
            "$s(a) + t(b) \\lt 0$ and $s(b) + t(a) \\lt 0$, whose sums contradict each other",
        ),
        Claim(
            "G-7/deeper-express",
            statement="every deeper decoder of the paper's Fig. 7 can express the relation: trained on all $n^2$ "
            "pairs, some seed fits them",
            paper_value="capable of memorizing",
            metric="full_fit_train_acc_deeper_min",
            condition="== 1.0",
            basis="single run",
        ),
    ),
    smoke={
        "mc_samplings": 4,
        "mc_samplings_order": 2,
        "mc_orderings": 200,
        "fit_seeds": 1,
        "fractions": [0.05, 0.15, 0.3, 0.6],
        "architectures": ["concat:1", "difference:0", "squared_difference:0"],
        "seeds": [0],
        "steps": 100,
        "patience": 1,
        "goldilocks_depths": [0, 1, 3],
        "goldilocks_runs": 2,
    },
)

# ----------------------------------------------------------------------------------------------
# Evidence (lib.book.evidence; computed by `make evidence`, read with lib.book.evidence.load)
# ----------------------------------------------------------------------------------------------

SWEEP_FRACTIONS = [0.02, 0.05, 0.08, 0.12, 0.16, 0.2, 0.3, 0.45, 0.6, 0.8]
SWEEP_DECODERS = (
    [TABLE3_DECODER]
    + [{**TABLE3_DECODER, "width": w} for w in (10, 25, 100)]
    + [{**TABLE3_DECODER, "embed_dim": d} for d in (1, 4, 8)]
)

# G-3 and G-7 at Table 3's learning rate, trained to the end (no plateau stop): the chapter's live runs use
# width 10, lr 1e-2 and 2 seeds so that the build can afford them; these sets decide the claims.
FIG3_DECODERS = [
    {"mode": m, "depth": h, "width": 50, "embed_dim": 2}
    for m, h in (
        ("concat", 1),
        ("difference", 1),
        ("difference", 0),
        ("squared_difference", 1),
        ("squared_difference", 0),
    )
]
GOLDILOCKS_DEPTHS = list(range(11))
DECODER_MODES_CONFIG = {
    "n": 30,
    "fractions": SWEEP_FRACTIONS,
    "seeds": 5,
    "lr": 1e-3,
    "init_scale": 1.0,
    "steps": 10_000,
    "eval_every": 100,
    "patience": None,
    "checkpoint_every": 1000,
}

EVIDENCE = (
    EvidenceSet(
        chapter="geneft_statics",
        name="network_sweep",
        description="G-3: accuracy over all pairs against training fraction for Table 3's decoder (concat, 3 x 50, "
        "d = 2, lr 1e-3) and its width (10, 25, 100) and embedding-dimension (1, 4, 8) sweeps, mod 3 and "
        "greater-than, 5 seeds per fraction (split and init), up to 4000 AdamW steps, a network stops once "
        "it fits its training pairs and its accuracy is flat for 5 evaluations (every 100 steps)",
        function="lib.geneft.evidence:network_curve",
        config={
            "n": 30,
            "fractions": SWEEP_FRACTIONS,
            "seeds": 5,
            "lr": 1e-3,
            "init_scale": 1.0,
            "steps": 4000,
            "eval_every": 100,
            "patience": 5,
            "checkpoint_every": 500,
        },
        shards=[{"relation": r, **dec} for dec in SWEEP_DECODERS for r in ("mod3", "greater_than")],
        smoke={
            "config": {"n": 12, "fractions": [0.1, 0.5], "seeds": 2, "steps": 200},
            "shards": [{"relation": "mod3", **TABLE3_DECODER}],
        },
        threads=1,
        minutes=round(shard_minutes(50, 4000, n=30, **{**TABLE3_DECODER, "width": 100}), 1),
        mem_mb=1000,
    ),
    EvidenceSet(
        chapter="geneft_statics",
        name="decoder_modes",
        description="G-3 (Fig. 3): the five decoders of the chapter's Fig. 3 (concat:1, difference:1, difference:0, "
        "squared_difference:1, squared_difference:0 as mode:hidden layers) at Table 3's width 50, d = 2 and "
        "learning rate 1e-3, mod 3 and greater-than, 5 seeds per fraction (split and init), 1e4 AdamW steps "
        "without a plateau stop; accuracy over all pairs at the end of the run",
        function="lib.geneft.evidence:network_curve",
        config=DECODER_MODES_CONFIG,
        shards=[{"relation": r, **dec} for r in ("mod3", "greater_than") for dec in FIG3_DECODERS],
        smoke={
            "config": {"n": 12, "fractions": [0.1, 0.5], "seeds": 2, "steps": 200},
            "shards": [{"relation": r, **dec} for r in ("mod3", "greater_than") for dec in FIG3_DECODERS[1:3]],
        },
        threads=1,
        minutes=round(shard_minutes(50, 10_000, n=30, **FIG3_DECODERS[0]), 1),
        mem_mb=1000,
    ),
    EvidenceSet(
        chapter="geneft_statics",
        name="goldilocks_depths",
        description="G-7 (Fig. 7): mod 3 at training fraction 0.3, concat decoders of width 10 (d = 2) with 0 to 10 "
        "hidden layers, Table 3's learning rate 1e-3, 10 seeds per depth (split and init), 1e4 AdamW steps "
        "without a plateau stop; one shard per depth",
        function="lib.geneft.evidence:network_curve",
        config={**DECODER_MODES_CONFIG, "fractions": [0.3], "seeds": 10},
        shards=[
            {"relation": "mod3", "mode": "concat", "depth": h, "width": 10, "embed_dim": 2} for h in GOLDILOCKS_DEPTHS
        ],
        smoke={
            "config": {"n": 12, "seeds": 3, "steps": 200},
            "shards": [
                {"relation": "mod3", "mode": "concat", "depth": h, "width": 10, "embed_dim": 2} for h in (0, 1, 3)
            ],
        },
        threads=1,
        minutes=round(shard_minutes(10, 10_000, n=30, mode="concat", depth=10, width=10, embed_dim=2), 1),
        mem_mb=1000,
    ),
)

# G-3's best depth on 10 seeds: decoder_modes for five more seeds
_DECODER_MODES = next(s for s in EVIDENCE if s.name == "decoder_modes")
EVIDENCE = (
    *EVIDENCE,
    replace(
        _DECODER_MODES,
        name="decoder_modes_extra",
        description="G-3 (Fig. 3) on five more seeds (5 to 9) of decoder_modes, same decoders, relations, fractions "
        "and training: with it, 10 seeds per fraction, so that the best-depth comparison does not rest on 5 seeds "
        "of which one is stuck",
        config={**DECODER_MODES_CONFIG, "seed_offset": 5},
    ),
)

# G-3's depth reading on fresh seeds (G-3/best-depth-fresh): registered on 2026-12-07, when G-3/best-depth was
# inconclusive on seeds 0-9, before any of these runs existed
EVIDENCE = (
    *EVIDENCE,
    replace(
        _DECODER_MODES,
        name="decoder_modes_fresh",
        description=f"G-3 (Fig. 3), a registered confirmation of the decoder-mode runs: their decoders, relations, fractions and "
        f"training on {FRESH_SEEDS['seeds']} fresh seeds per fraction (split and init; seeds "
        f"{FRESH_SEEDS['seed_offset']}-{FRESH_SEEDS['seed_offset'] + FRESH_SEEDS['seeds'] - 1}, none of them trained "
        "before), one shard per relation and decoder",
        config={**DECODER_MODES_CONFIG, **FRESH_SEEDS},
        minutes=round(shard_minutes(10 * FRESH_SEEDS["seeds"], 10_000, n=30, **FIG3_DECODERS[0]), 1),
    ),
)

# G-3's and G-7's training length, which the paper does not state for Figs. 3 and 7: the same runs at 1e5 steps, the
# step count of the paper's Table 4 (its dynamics experiments), as the free choice's alternative
_GOLDILOCKS = next(s for s in EVIDENCE if s.name == "goldilocks_depths")
LONG_STEPS = 100_000
EVIDENCE = (
    *EVIDENCE,
    replace(
        _DECODER_MODES,
        name="decoder_modes_1e5",
        description=_DECODER_MODES.description.replace("5 seeds per fraction", "10 seeds per fraction").replace(
            "1e4 AdamW steps",
            "1e5 AdamW steps (the step count of the paper's Table 4; the paper states none for Fig. 3)",
        ),
        config={**DECODER_MODES_CONFIG, "seeds": 10, "steps": LONG_STEPS, "checkpoint_every": 10_000},
        minutes=round(shard_minutes(100, LONG_STEPS, n=30, **FIG3_DECODERS[0]), 1),
    ),
    replace(
        _GOLDILOCKS,
        name="goldilocks_depths_1e5",
        description=_GOLDILOCKS.description.replace(
            "1e4 AdamW steps",
            "1e5 AdamW steps (the step count of the paper's Table 4; the paper states none for Fig. 7)",
        ),
        config={**_GOLDILOCKS.config, "steps": LONG_STEPS, "checkpoint_every": 10_000},
        minutes=round(shard_minutes(10, LONG_STEPS, n=30, mode="concat", depth=10, width=10, embed_dim=2), 1),
    ),
)
