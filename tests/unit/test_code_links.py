"""lib/book/pages/code_links.py: every scorecard row and every figure caption names the lib code and the evidence behind it."""

import ast
import re
import sys

import pytest

from lib.book.chapters import chapter_ids, load
from lib.book.pages.code_links import (
    Sources,
    _Notebook,
    figure_captions,
    is_named,
    lib_function,
    metric_sources,
    name_pattern,
)
from lib.util.paths import ROOT


def _declared_sets() -> set[str]:
    from lib.book.evidence.registry import all_sets

    return {s.key for s in all_sets()}


@pytest.mark.parametrize("chapter_id", chapter_ids())
def test_every_claim_is_linked_to_the_lib_function_that_computes_it(chapter_id):
    sets = _declared_sets()
    for claim in load(chapter_id).claims:
        found = metric_sources(chapter_id, claim.metric)
        assert found.functions, f"{claim.id}: no lib function found behind metric {claim.metric!r} (declare it)"
        assert all(lib_function(f) == f and is_named(f) for f in found.functions), (claim.id, found.functions)
        assert set(found.evidence) <= sets, (claim.id, found.evidence)
        if claim.basis == "evidence":
            assert found.evidence, f"{claim.id} rests on evidence, but no run.evidence(...) is found behind it"


def test_the_sources_of_an_expression_are_found_once_and_are_those_found_afresh():
    """`_Notebook.sources` keeps what it found for an expression and row: asked again, or for another metric of the
    same calls, the answer found with nothing kept (two_layer: loops whose rows bind names, metrics sharing calls)."""
    kept, fresh = _Notebook("two_layer"), _Notebook("two_layer")
    metrics = [claim.metric for claim in load("two_layer").claims]
    first = [metric_sources("two_layer", m, kept) for m in metrics]
    assert kept._found and [metric_sources("two_layer", m, kept) for m in metrics] == first

    def afresh(metric: str):
        fresh._found.clear()
        return metric_sources("two_layer", metric, fresh)

    assert [afresh(m) for m in metrics] == first


_EVIDENCE_REF = re.compile(r"\{ref\}`([\w/]+) <evidence-[\w-]+>`")


@pytest.mark.parametrize("chapter_id", chapter_ids())
def test_every_figure_caption_names_its_code_and_its_evidence(chapter_id):
    captions = figure_captions(chapter_id)
    assert captions, f"{chapter_id} has no glue:figure"
    sets = _declared_sets()
    for caption in captions:
        assert caption.functions, f"{caption.name}: the caption names no {{py:func}}"
        assert all(lib_function(f) == f for f in caption.functions), (caption.name, caption.functions)
        evidence = _EVIDENCE_REF.findall(caption.text)
        assert evidence or "computed live by the chapter" in caption.text, caption.name
        assert set(evidence) <= sets, (caption.name, evidence)


def test_every_glued_figure_has_a_caption_block():
    for chapter_id in chapter_ids():
        source = (ROOT / "notebooks" / f"{chapter_id}.py").read_text()
        glued = len(re.findall(r"run\.figure\(", source))
        assert len(figure_captions(chapter_id)) >= glued, chapter_id


def test_a_metric_name_pattern_reads_literals_f_strings_and_sums():
    def pattern(code):
        return name_pattern(ast.parse(code, mode="eval").body)

    assert pattern('"a_b"')[0].fullmatch("a_b") and pattern('"a_b"')[1] == 3
    regex, fixed = pattern('f"{name}_turn_back"')
    assert regex.fullmatch("lowdim_turn_back") and fixed == len("_turn_back")
    assert pattern('"first" + key')[0].fullmatch("first")  # key may be ""
    assert pattern('f"x_{v:g}".replace(".", "_")')[0].fullmatch("x_0_5")
    assert pattern("name")[1] == 0  # anything, least specific


def test_sources_follow_imports_loops_and_evidence_but_not_completeness():
    source = """
from lib.sim import metrics as M
from lib.sim.sweeps import median_ratio
EV, COMPLETE = {}, {}
for name in ("swing", "init_scale"):
    available = run.evidence(name)
    EV[name], COMPLETE[name] = available.data, available.complete
pending = {n: "incomplete" for n, ok in COMPLETE.items() if not ok}
ev = EV["swing"]
turn = M.turn_back(ev)
run.metric("ratio", median_ratio(turn, pending.get("swing")))
for key, value in {"a": turn}.items():
    run.metric(f"{key}_copy", value)
run.metric("ratio_weak", median_ratio(turn, turn))
"""
    notebook = _Notebook("sim_observations", source)
    ratio = metric_sources("sim_observations", "ratio", notebook)
    assert ratio == Sources(("lib.sim.sweeps.median_ratio", "lib.sim.metrics.turn_back"), ("sim_observations/swing",))
    assert metric_sources("sim_observations", "a_copy", notebook).functions == ("lib.sim.metrics.turn_back",)
    # the literal "ratio_weak" is more specific than the pattern "{key}_copy"... and than "ratio"
    assert metric_sources("sim_observations", "ratio_weak", notebook).functions[0] == "lib.sim.sweeps.median_ratio"


def test_a_metric_recorded_in_a_loop_over_a_literal_table_reads_its_own_row():
    source = """
from lib.sim import metrics as M
EV = {}
for name in ("swing", "init_scale"):
    EV[name] = run.evidence(name).data
for tag, name in (("a_b", "swing"), ("b", "init_scale")):
    turn = M.turn_back(EV[name])
    for reading, suffix in (("first", ""), ("late", "_late")):
        run.metric(f"spread{suffix}_{tag}", turn)
for tag, name in (("a_b", "init_scale"),):  # the same tag in a later loop: each metric reads its own loop
    run.metric(f"later_{tag}", M.turn_back(EV[name]))
"""
    notebook = _Notebook("sim_observations", source)
    assert notebook.loop_values()["tag"] == ("a_b", "b")  # two rows of two names: not unpacked row by row
    # "spread_late_b" could split as suffix "_late", tag "b" only: the tag's values fix the split
    assert metric_sources("sim_observations", "spread_late_b", notebook).evidence == ("sim_observations/init_scale",)
    assert metric_sources("sim_observations", "spread_a_b", notebook).evidence == ("sim_observations/swing",)
    assert metric_sources("sim_observations", "later_a_b", notebook).evidence == ("sim_observations/init_scale",)
    regex, _ = name_pattern(ast.parse('f"x{s}_{t}"', mode="eval").body, {"s": ("", "_i"), "t": ("a_b", "b")})
    assert regex.fullmatch("x_i_b").groupdict() == {"s": "_i", "t": "b"} and not regex.fullmatch("x_c")


def test_lib_function_follows_reexports_and_refuses_modules_and_non_lib_names():
    assert lib_function("lib.sim.metrics.turn_back") == "lib.sim.metrics.turn_back"
    assert lib_function("lib.sim.metrics") is None
    assert lib_function("numpy.mean") is None
    assert lib_function("lib.sim.metrics.no_such_function") is None
    assert not is_named("lib.book.run.notebook.start_chapter") and is_named("lib.util.stats.fraction")


def test_the_scorecard_links_every_claim_to_its_code(tmp_path):
    from lib.book.pages.generated import code_page, scorecard_page

    page = scorecard_page(tmp_path)  # no runs: every claim not computed, still one row each
    rows = [line for line in page.splitlines() if line.startswith("| <a href=")]
    claims = [c for chapter_id in chapter_ids() for c in load(chapter_id).claims]
    assert len(rows) == len(claims)
    assert all('class="book-code" href="code.html#lib.' in row for row in rows)
    assert all("evidence: " in row for row in rows)
    documented = set(re.findall(r"\.\. autofunction:: (\S+)", code_page()))
    linked = set(re.findall(r'href="code\.html#([\w.]+)"', page))
    assert linked <= documented


def test_docstrings_are_read_as_plain_text_by_the_book():
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    try:
        from plain_docstrings import plain_text
    finally:
        sys.path.pop(0)
    assert plain_text(['|x - y| of ("cut_") and `a|b_`']) == [r'\|x - y\| of ("cut\_") and `a|b_`']
