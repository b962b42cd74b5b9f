"""lib/book/verdicts/summary.py: one status per catalogue row, derived from its claims (issue 22's landing page)."""

from dataclasses import dataclass

import pytest

from lib.book.chapters import chapter_ids, load
from lib.book.chapters.declaration import Chapter, Claim, Parameters
from lib.book.verdicts.claims import claim_id_html, details_text, row_key_html, verdicts
from lib.book.verdicts.summary import (
    CAVEATS,
    DEPENDS,
    ERRATUM,
    NEEDS_GPU,
    NOT_REPRODUCED,
    REPRODUCED,
    UNDECIDED,
    catalogue_rows,
    claim_counts,
    row_of,
    summarise,
)

CATALOGUE_IDS = (
    "S-1c S-2a S-2b S-2c S-7 S-11 S-13 S-15 S-C S-T4.1 S-4.3 S-5 S-D S-8 S-10 S-E.2 S-6 "
    "G-T1 G-1..5 G-2 G-3 G-Th2 G-Th3 G-5 G-6 G-7 G-8 G-A3"
).split()


@dataclass(frozen=True)
class NoParameters(Parameters):
    pass


def test_the_catalogue_has_the_28_rows_of_the_papers():
    assert [row.ids[0] for row in catalogue_rows()] == CATALOGUE_IDS


def test_every_declared_claim_names_a_catalogue_row_and_every_row_has_a_claim():
    rows = catalogue_rows()
    claims = [c for chapter in chapter_ids() for c in load(chapter).claims]
    assert [c.id for c in claims if row_of(c.id, rows) is None] == []
    covered = {row_of(c.id, rows).key for c in claims}
    assert covered == {row.key for row in rows}


def test_rows_take_claims_by_id_and_by_figure_without_panel_letter():
    rows = catalogue_rows()
    assert row_of("S-13, S-14/median", rows).key == "S-13, S-14"
    assert row_of("S-6a/bend-0_2", rows).key == "S-6"
    assert row_of("S-2a/slowdown", rows).key == "S-2a"  # S-2a is its own row, not S-2
    assert row_of("S-17/gd", rows).key == "S-5, S-17, S-18"


def _claim(cid, expected="holds", **kw):
    note = "" if expected == "holds" else "reason"
    return Claim(cid, "s", "p", cid.replace("/", "_").replace("-", "_"), "> 0.5", expected=expected, note=note, **kw)


def _status(claims, values, gpu_pending=frozenset()):
    chapter = Chapter("toy", "t", NoParameters, claims=tuple(claims))
    metrics = {"toy": {c.metric: v for c, v in zip(claims, values)}}
    found = verdicts([chapter], metrics)
    summaries = {s.row.key: s for s in summarise(found, set(gpu_pending))}
    return summaries["S-10"].status


def _est(low, high):
    return {"value": (low + high) / 2, "low": low, "high": high, "n": 10, "method": "t"}


P = {"role": "primary"}


@pytest.mark.parametrize(
    ("kinds", "values", "status"),
    [
        ([P], [1.0], REPRODUCED),
        ([P, {}], [1.0, 0.0], REPRODUCED),  # a further statement of the paper never moves the row
        ([P, {"role": "reading"}], [1.0, 0.0], REPRODUCED),  # nor does a book reading
        ([P, {"scope": "extension"}], [1.0, 0.0], REPRODUCED),  # nor a claim beyond the paper
        ([{}, P], [1.0, 0.0], NOT_REPRODUCED),  # the primary decides, not the declaration order
        ([P, P], [1.0, 0.0], NOT_REPRODUCED),  # every primary must hold
        ([{"basis": "seeds", **P}], [_est(0.2, 0.9)], UNDECIDED),
        ([P, {"kind": "erratum", **P}], [1.0, 0.0], ERRATUM),
        ([P, {"kind": "erratum", **P}], [0.0, 0.0], NOT_REPRODUCED),  # an erratum never hides a failure
        ([P, {"kind": "erratum"}], [1.0, 0.0], REPRODUCED),  # an erratum that is not primary is shown apart
        ([{"kind": "erratum", **P}], [0.0], ERRATUM),
        ([{}], [1.0], UNDECIDED),  # a row without a primary claim is not decided
    ],
)
def test_the_status_rule(kinds, values, status):
    claims = [_claim(f"S-10/c{i}", **kw) for i, kw in enumerate(kinds)]
    assert _status(claims, values) == status


def test_every_catalogue_row_names_a_primary_claim():
    rows = catalogue_rows()
    claims = [c for chapter in chapter_ids() for c in load(chapter).claims]
    with_primary = {row_of(c.id, rows).key for c in claims if c.role == "primary"}
    assert [row.key for row in rows if row.key not in with_primary] == []


def test_a_primary_claim_is_the_papers_and_can_fail():
    for kw in ({"scope": "extension"}, {"kind": "method"}, {"basis": "consistency"}):
        with pytest.raises(ValueError, match="primary"):
            _claim("S-10/x", role="primary", **kw)
    with pytest.raises(ValueError, match="role"):
        _claim("S-10/x", role="decisive")


def test_not_computed_needs_a_gpu_only_where_the_chapter_waits_for_one():
    claims = [_claim("S-10/c0", **P)]
    assert _status(claims, [None]) == UNDECIDED
    assert _status(claims, [None], gpu_pending={"toy"}) == NEEDS_GPU


def test_the_other_claims_are_counted_apart_by_what_they_are():
    from lib.book.verdicts.summary import also_tested_sentence

    claims = [
        _claim("S-10/a", **P),
        _claim("S-10/b", kind="erratum", expected="does not hold", **P),
        _claim("S-10/c", basis="consistency"),
        _claim("S-10/d", role="reading", expected="does not hold"),
        _claim("S-10/e", scope="finding"),
        _claim("S-10/f"),
    ]
    chapter = Chapter("toy", "t", NoParameters, claims=tuple(claims))
    metrics = {"S_10_a": 1.0, "S_10_b": 0.0, "S_10_c": 1.0, "S_10_d": 0.0, "S_10_e": 1.0, "S_10_f": 1.0}
    found = verdicts([chapter], {"toy": metrics})
    counts = claim_counts(found)
    assert (counts["holds"], counts["does not hold"], counts["errors in the paper"]) == (1, 0, 1)
    assert counts["also tested"] == 4
    assert also_tested_sentence(found) == (
        "also tested: 1 further statement of the paper (1 holds); 1 book reading (1 does not hold); "
        "1 finding beyond the paper (1 holds); 1 consistency or method check (1 holds)"
    )
    row = {s.row.key: s for s in summarise(found)}["S-10"]
    assert row.status == ERRATUM and row.decisive_text().startswith("S-10/b: 0 (needs > 0.5")
    assert "Book reading: S-10/d (does not hold)." in row.also_tested_parts()


def test_an_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="kind"):
        _claim("S-10/x", kind="finding")


def test_the_chapter_summary_box_says_what_did_not_reproduce_and_how_to_rerun():
    from lib.book.verdicts.summary import chapter_summary_markdown

    claims = [
        _claim("S-10/a", **P),
        _claim("S-10/b", expected="does not hold", **P),
        _claim("S-10/c", kind="erratum", **P),
    ]
    chapter = Chapter("toy", "t", NoParameters, claims=tuple(claims))
    found = verdicts([chapter], {"toy": {"S_10_a": 1.0, "S_10_b": 0.0, "S_10_c": 0.0}})
    box = chapter_summary_markdown(chapter, found, notices=["OptimizeWarning: Covariance could not be estimated"])
    assert box.startswith(":::{admonition}") and box.rstrip().endswith(":::")
    assert "S-10 (failure mode" in box and "): **not reproduced**" in box
    assert box.index("**Held:** <a") < box.index("**Did not hold:**")  # what held comes first
    assert (
        f'- <a href="#claim-s-10-b">{claim_id_html("S-10/b", break_at_slash=False)}</a>: 0 (needs > 0.5' in box
    )  # one line: the note is in the table
    assert f'<a href="#claim-s-10-c">{claim_id_html("S-10/c", break_at_slash=False)}</a>' in box  # the erratum, apart
    assert "- a library warned: Covariance could not be estimated (OptimizeWarning)" in box
    assert "python -m lib run toy" in box


def test_a_rows_reason_shared_by_all_its_primaries_reads_as_a_sentence():
    claims = [_claim(f"S-10/{k}", expected="does not hold", **P) for k in "abc"]
    chapter = Chapter("toy", "t", NoParameters, claims=tuple(claims))
    found = verdicts([chapter], {"toy": {"S_10_a": 0.0, "S_10_b": 0.0, "S_10_c": 0.0}})
    row = {s.row.key: s for s in summarise(found, set())}["S-10"]
    assert row.reasons() == ["All 3 primary claims: reason."]  # under the fold "why", a sentence of its own


def test_the_summary_box_lists_claims_that_share_a_reason_once():
    from lib.book.verdicts.summary import chapter_summary_markdown

    claims = [_claim(f"S-10/{k}", expected="does not hold", **P) for k in "abc"]
    chapter = Chapter("toy", "t", NoParameters, claims=tuple(claims))
    found = verdicts([chapter], {"toy": {"S_10_a": 0.0, "S_10_b": 0.0, "S_10_c": 0.0}})
    box = chapter_summary_markdown(chapter, found)
    assert box.count("(needs > 0.5") == 1  # one item for the three, not three items with the same reason
    assert (
        f'<a href="#claim-s-10-a">{claim_id_html("S-10/a", break_at_slash=False)}</a>, <a href="#claim-s-10-b">{claim_id_html("S-10/b", break_at_slash=False)}</a>, '
        in box
    )


def test_a_claim_id_keeps_its_row_on_one_line_and_wraps_its_rest_before_the_slash_in_a_table():
    assert claim_id_html("S-6a/bend-registered-0_2") == (
        '<span class="book-claim"><span class="book-row">S-6a</span><wbr>/bend-registered-0_2</span>'
    )
    assert claim_id_html("S-6a/bend", break_at_slash=False) == (
        '<span class="book-claim"><span class="book-row">S-6a</span>/bend</span>'
    )  # running text: the id goes to the next line whole rather than split at its "/"
    assert claim_id_html("S-1c") == '<span class="book-claim"><span class="book-row">S-1c</span></span>'
    assert row_key_html("S-2c, S-3") == '<span class="book-row">S-2c</span>, <span class="book-row">S-3</span>'
    assert row_key_html("S-<x>") == '<span class="book-row">S-&lt;x&gt;</span>'


def test_a_clause_that_notes_share_is_said_once_and_each_claims_own_clauses_follow():
    from lib.book.verdicts.summary import note_clauses, shared_clauses

    assert note_clauses("a (b; c); $x; y$ d; e") == ["a (b; c)", "$x; y$ d", "e"]  # not inside brackets or math
    registered = "registered before its evidence: not judged until 29 shards are stored (no interim looks)"
    noted = [
        ("S-6/a", f"{registered}; power 0.89 for a rate"),
        ("S-6/b", f"{registered}; power 0.8 for an offset"),
        ("S-6/c", f"{registered}; power 0.89 for a rate"),
    ]
    assert shared_clauses(noted, whole=3) == [
        f"all 3 primary claims: {registered}",
        "S-6/a, S-6/c: power 0.89 for a rate",
        "S-6/b: power 0.8 for an offset",
    ]
    assert shared_clauses(noted, whole=4)[0] == f"S-6/a, S-6/b, S-6/c: {registered}"  # not all of the row's
    alone = [("G-5/a", "one; two"), ("G-5/b", "three")]
    assert shared_clauses(alone) == ["G-5/a: one; two", "G-5/b: three"]  # nothing shared: as before


def test_evidence_notices_are_one_sentence_per_set():
    from lib.book.verdicts.summary import reader_notices

    notices = [
        "EvidenceCommitWarning: evidence d/cpu (full): 2 of 20 shards were computed at commit aaa, not at the current HEAD",
        "EvidenceCommitWarning: evidence d/cpu (full): 6 of 20 shards were computed at commit bbb, not at the current HEAD",
        "OptimizeWarning: Covariance of the parameters could not be estimated",
    ]
    assert reader_notices(notices) == [
        "8 of 20 shards of the evidence set cpu (full variant) were computed at 2 earlier commits, with the same code, "
        "and are used",
        "a library warned: Covariance of the parameters could not be estimated (OptimizeWarning)",
    ]


def test_a_chapter_run_keeps_warnings_as_notices_not_stderr(tmp_path, monkeypatch, capsys):
    import json
    import warnings

    from lib.book.run.notebook import OUTPUT_DIR_ENV, ChapterRun

    monkeypatch.setenv(OUTPUT_DIR_ENV, str(tmp_path))
    monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)  # restored after the test
    chapter = load("one_layer")
    run = ChapterRun(chapter, chapter.validate({}), tmp_path)
    capsys.readouterr()
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.warn("covariance could not be estimated", RuntimeWarning, stacklevel=1)
    assert "covariance" not in capsys.readouterr().err
    record = json.loads((tmp_path / "one_layer.metrics.json").read_text())["_run"]
    assert record["notices"] == ["RuntimeWarning: covariance could not be estimated"]
    assert {"started", "commit", "elapsed_seconds", "peak_memory_mb"} <= set(record)
    assert run.record is not None


def test_a_chapter_counts_the_science_code_and_evidence_it_runs():
    from lib.book.verdicts.summary import chapter_sources, chapter_summary_markdown

    code, evidence = chapter_sources("two_layer")
    assert "lib/theory/two_layer.py" in code and not any(c.startswith(("lib/book/", "lib/util/")) for c in code)
    assert "two_layer/a_or_a2" in evidence
    chapter = Chapter("toy", "t", NoParameters, claims=(_claim("S-10/a"),))
    found = verdicts([chapter], {"toy": {"S_10_a": 1.0}})
    box = chapter_summary_markdown(chapter, found, sources=(["lib/x.py"], ["toy/set"]))
    assert "Computed by 1 module of `lib` (listed under Code behind the results); 1 evidence set (" in box


def test_a_decisive_claim_that_depends_on_a_free_choice_is_never_plain():
    from lib.book.chapters.declaration import FreeChoice

    floor = FreeChoice("floor", "from the init", {"0.05": "S_10_c0_floor"})
    claim = _claim("S-10/c0", free_choices=(floor,), **P)
    chapter = Chapter("toy", "t", NoParameters, claims=(claim,))

    def status(primary, alternative):
        metrics = {"toy": {claim.metric: primary, "S_10_c0_floor": alternative}}
        found = verdicts([chapter], metrics)
        return {s.row.key: s for s in summarise(found, set())}["S-10"]

    assert status(1.0, 1.0).status == REPRODUCED  # robust
    flipped = status(1.0, 0.0)
    assert flipped.status == CAVEATS and "depends on the floor" in " ".join(flipped.reasons())
    # the choice, not the budget, leaves it open: more runs would not decide it
    assert status(0.0, 1.0).status == DEPENDS and "depends on the floor" in " ".join(status(0.0, 1.0).reasons())


def test_an_inconclusive_primary_stays_undecided_whatever_its_alternatives_say():
    from lib.book.chapters.declaration import FreeChoice

    floor = FreeChoice("floor", "from the init", {"0.05": "S_10_c0_floor"})
    claim = _claim("S-10/c0", basis="seeds", free_choices=(floor,), expected="inconclusive", **P)
    chapter = Chapter("toy", "t", NoParameters, claims=(claim,))
    metrics = {"toy": {claim.metric: _est(0.2, 0.9), "S_10_c0_floor": _est(0.6, 0.9)}}
    row = {s.row.key: s for s in summarise(verdicts([chapter], metrics), set())}["S-10"]
    assert row.status == UNDECIDED  # more runs could decide it: not "depends on a free choice"


def test_the_summary_box_lists_a_failure_that_a_free_choice_reverses_apart_and_counts_errata_with_the_primaries():
    from lib.book.chapters.declaration import FreeChoice
    from lib.book.verdicts.summary import chapter_summary_markdown

    floor = FreeChoice("floor", "from the init", {"0.05": "S_10_c0_floor"})
    claims = (
        _claim("S-10/c0", free_choices=(floor,), **P),
        _claim("S-10/c1", expected="does not hold", **P),
        _claim("S-10/c2", kind="erratum", **P),
    )
    chapter = Chapter("toy", "t", NoParameters, claims=claims)
    metrics = {"toy": {"S_10_c0": 0.0, "S_10_c0_floor": 1.0, "S_10_c1": 0.0, "S_10_c2": 0.0}}
    box = chapter_summary_markdown(chapter, verdicts([chapter], metrics))
    plain, reversed_ = box.index("**Did not hold:**"), box.index("**Did not hold under the choice fixed in advance")
    assert plain < box.index('href="#claim-s-10-c1"') < reversed_ < box.index('href="#claim-s-10-c0"')
    assert "decide them (3).** 0 hold, 2 do not hold, 0 are inconclusive; 1 is an error in the paper." in box


def test_a_claim_not_judged_is_neither_robust_nor_dependent():
    from lib.book.chapters.declaration import FreeChoice
    from lib.book.verdicts.claims import NOT_JUDGED

    readout = FreeChoice("read-out", "segmentation", {"classifier": "S_10_c0_cls"})
    claim = _claim("S-10/c0", basis="seeds", free_choices=(readout,), **P)
    chapter = Chapter("toy", "t", NoParameters, claims=(claim,))
    unjudged = {**_est(0.0, 1.0), "method": f"{NOT_JUDGED} incomplete"}
    (v,) = verdicts([chapter], {"toy": {"S_10_c0": unjudged, "S_10_c0_cls": unjudged}})
    assert v.verdict == "inconclusive" and v.robustness == "" and v.robustness_detail == ""
    _, details = details_text(v)  # nothing was decided: no n, no "interval straddles", no alternatives
    assert "not judged: incomplete." in details and "straddles" not in details and "n = " not in details


# Primaries whose condition compares with a number the paper does not state, and why that number is not a book bar
# (lib.book.chapters.declaration.BAR_RULE): every other such primary declares its bar as the book's.
NOT_A_BOOK_BAR = {
    "S-T4.1/flow": "round-off: the float tolerance of an identity",
    "G-T1": "round-off: the float tolerance of an identity",
    "G-5/": "the level of every test of the book (95%)",
    "G-8": "the resolution of the paper's half-decade grid",
    "G-A4": "the paper's count of phases",
    "G-T2": "the paper's words hold at any finite factor ('up to a constant factor'): the declared 1.5 asks more than "
    "the paper, and a looser bar cannot fail where it holds",
    "/exists": "a count of at least one: the paper's 'exists'",
}


def test_every_primary_bar_the_paper_does_not_set_is_declared_as_the_books():
    undeclared = [
        c.id
        for chapter in map(load, chapter_ids())
        for c in chapter.claims
        if c.role == "primary"
        and c.kind == "claim"
        and c.operator in ("<", "<=", ">", ">=")
        and c.threshold(chapter.defaults()) != 0
        and c.book_bar is None
        and not any(key in c.id for key in NOT_A_BOOK_BAR)
    ]
    assert undeclared == []
