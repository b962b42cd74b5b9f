"""lib/book/verdicts/claims.py: verdicts as declared, exit codes, unusable metrics files, the Markdown table."""

import json
from dataclasses import dataclass

import pytest

from lib.book.chapters.declaration import Chapter, Claim, FreeChoice, Parameters, param
from lib.book.verdicts.claims import (
    FINISHED_KEY,
    RUN_KEY,
    MetricsError,
    claims_markdown,
    claims_report,
    details_text,
    fill_note,
    note_metrics,
    read_metrics,
    sentence,
    slug,
    unfinished_metrics,
    verdicts,
)


@dataclass(frozen=True)
class NoParameters(Parameters):
    pass


@dataclass(frozen=True)
class Tolerance(Parameters):
    tol: float = param(0.05, "tolerance", gt=0)


def _chapter(expected="holds"):
    return Chapter(
        id="toy",
        title="t",
        params=NoParameters,
        claims=(
            Claim("S-C", "identity", "exact", "err", "< 0.1"),
            Claim(
                "S-8",
                "triple descent",
                "seen",
                "frac",
                "> 0.01",
                basis="seeds",
                expected=expected,
                note="" if expected == "holds" else "no seed of 1000 shows it",
            ),
        ),
    )


TOY_RUN = {
    "chapter": "toy",
    "parameters": {},
    "code_fingerprint": "current-code",
    "finished": "2026-01-01 00:00:00 UTC",
}


@pytest.fixture(autouse=True)
def _toy_fingerprint(monkeypatch):
    """The toy chapter has no notebook: its code fingerprint is a fixed string."""
    monkeypatch.setattr("lib.book.verdicts.claims.chapter_fingerprint", lambda chapter_id: "current-code")


def _write(tmp_path, metrics, run=TOY_RUN):
    (tmp_path / "toy.metrics.json").write_text(json.dumps({**metrics, RUN_KEY: run} if run else metrics))


@pytest.mark.parametrize(
    ("run", "message"),
    [
        (None, "has no _run record"),
        ({**TOY_RUN, "chapter": "other"}, "records chapter 'other', not 'toy'"),
        ({**TOY_RUN, "parameters": {"nosuch": 1}}, "does not declare: 'nosuch'"),
        ({**TOY_RUN, "parameters": [1, 2]}, "no mapping of parameters \\(got \\[1, 2\\]\\)"),
        ({k: v for k, v in TOY_RUN.items() if k != "parameters"}, "no mapping of parameters \\(got None\\)"),
        ({**TOY_RUN, "code_fingerprint": "old-code"}, "computed by other code"),
    ],
)
def test_foreign_metrics_are_refused_naming_the_file(tmp_path, run, message):
    _write(tmp_path, {"err": 0.01, "frac": _est(0.02, 0.015, 0.03)}, run=run)
    with pytest.raises(MetricsError, match=f"^{tmp_path}/toy.metrics.json: .*{message}"):
        claims_report([_chapter()], tmp_path)


def test_book_is_built_from_default_runs_only(tmp_path, monkeypatch):
    from lib.book.pages import generated as pages

    chapter = Chapter("toy", "t", Tolerance, claims=(Claim("S-7", "s", "p", "m", "< tol", basis="seeds"),))
    _write(tmp_path, {"m": _est(0.01, 0.0, 0.02)}, run={**TOY_RUN, "parameters": {"tol": 0.05}})
    assert pages.book_metrics(tmp_path, [chapter])["toy"]["m"]["value"] == 0.01
    _write(tmp_path, {"m": _est(0.01, 0.0, 0.02)}, run={**TOY_RUN, "parameters": {"tol": 0.5}})
    with pytest.raises(MetricsError, match=r"other than the defaults \(\{'tol': 0.5\}\).*make book"):
        pages.book_metrics(tmp_path, [chapter])


def _est(v, lo, hi):
    return {"value": v, "low": lo, "high": hi, "n": 1000, "method": "wilson"}


def test_exit_code_follows_the_declaration(tmp_path):
    _write(tmp_path, {"err": 0.01, "frac": _est(0.0, 0.0, 0.004)})
    text, code = claims_report([_chapter()], tmp_path)
    assert code == 1 and "changed" in text
    row = next(line for line in text.splitlines() if line.startswith("S-8"))
    assert row.split()[1:4] == ["paper", "does", "not"] and row.split()[-2:] == ["holds", "changed"]
    _, code = claims_report([_chapter("does not hold")], tmp_path)
    assert code == 0
    _write(tmp_path, {"err": 0.01, "frac": _est(0.01, 0.0, 0.02)})
    _, code = claims_report([_chapter("does not hold")], tmp_path)
    assert code == 1  # inconclusive is not "does not hold"
    _, code = claims_report([_chapter("inconclusive")], tmp_path)
    assert code == 0


@pytest.mark.parametrize(
    "content, message",
    [
        (b'{"err": 0.0', "not valid JSON"),
        (b"\xff\xfe", "not UTF-8"),
        (b"[1, 2]", "expected a JSON object"),
    ],
)
def test_unusable_metrics_files_are_named(tmp_path, content, message):
    (tmp_path / "toy.metrics.json").write_bytes(content)
    with pytest.raises(MetricsError, match=message) as err:
        read_metrics(tmp_path, "toy")
    assert "toy.metrics.json" in str(err.value)


def test_missing_metrics_of_a_requested_chapter(tmp_path):
    with pytest.raises(MetricsError, match="no such file"):
        claims_report([_chapter()], tmp_path)


def test_markdown_sentence_and_slug():
    metrics = {"toy": {"err": 0.01, "frac": _est(0.2, 0.1, 0.3)}}
    table = claims_markdown([_chapter()], metrics)
    assert (
        "0.20 [0.10, 0.30], n = 1000" in table
        and "seeds, n = 1000" in table
        and '<strong class="book-status">holds</strong>' in table
    )
    v = verdicts([_chapter()], metrics)[1]
    assert sentence(v) == "S-8 holds: 0.20 [0.10, 0.30], n = 1000 (needs > 0.01)"
    assert slug("S-T4.1/rates") == "s_t4_1_rates"


def test_a_condition_naming_a_parameter_shows_and_uses_the_runs_value():
    chapter = Chapter("toy", "t", Tolerance, claims=(Claim("S-7", "s", "p", "m", "< tol", basis="seeds"),))
    run = {"m": _est(0.1, 0.08, 0.12), RUN_KEY: {"parameters": {"tol": 0.2}}}
    v = verdicts([chapter], {"toy": run})[0]
    assert v.verdict == "holds" and v.condition == "< tol = 0.2"
    assert "needs < 0.2" in sentence(v) and "tol" not in sentence(v)  # the value the run used, not the name
    assert verdicts([chapter], {"toy": {**run, RUN_KEY: {"parameters": {"tol": 0.05}}}})[0].verdict == "does not hold"


def test_notes_quote_metrics_through_placeholders():
    note = "rises in {frac} of seeds; {err} off; {absent}"
    assert note_metrics(note) == ["frac", "err", "absent"]
    filled = fill_note(note, {"frac": _est(0.2, 0.1, 0.3), "err": 0.25})
    assert filled == "rises in 0.20 [0.10, 0.30], n = 1000 of seeds; 0.25 off; not computed"
    claim = Claim("S-8", "s", "p", "frac", "> 0.5", basis="seeds", expected="does not hold", note="only {frac}")
    chapter = Chapter("toy", "t", NoParameters, claims=(claim,))
    table = claims_markdown([chapter], {"toy": {"frac": _est(0.2, 0.1, 0.3)}})
    # the note is a clause; in the folded details (the chapter's table, the scorecard) it is a sentence of its own
    assert details_text(verdicts([chapter], {"toy": {"frac": _est(0.2, 0.1, 0.3)}})[0]) == (
        "why",
        "S. The paper: p. Further statement of the paper, decided over seeds, n = 1000. Only 0.20 [0.10, 0.30], "
        "n = 1000; no point of the interval meets the condition.",
    )
    assert "n = 1000. Only 0.20 [0.10, 0.30], n = 1000" in table
    assert "Declared test, on the run's metrics: <code>frac &gt; 0.5</code>." in table


def test_details_read_as_sentences_without_a_placeholder_for_a_value_the_paper_does_not_give():
    """A statement in lower case starts a sentence; a paper value "-" (none) is left out; a consistency check
    says so once, not as both its basis and its category."""
    check = Claim("S-9", "the live run equals the stored one", "-", "diff", "<= 0.0001", basis="consistency")
    v = verdicts([Chapter("toy", "t", NoParameters, claims=(check,))], {"toy": {"diff": 0.0}})[0]
    assert details_text(v) == ("paper", "The live run equals the stored one. A consistency check.")
    table = claims_markdown([Chapter("toy", "t", NoParameters, claims=(check,))], {"toy": {"diff": 0.0}})
    assert '<span class="book-needs">≤ 10⁻⁴</span>' in table and "| condition |" not in table


def test_a_p_value_reads_as_one_with_two_digits():
    from lib.book.verdicts.claims import format_value
    from lib.util.comparisons import p_value_of
    from lib.util.stats import Estimate, p_value

    assert format_value(p_value(7.030994421234675e-09, 179, "Wald").as_dict()) == "p = 7.0\u00a0×\u00a010⁻⁹, n = 179"
    assert format_value(p_value_of(Estimate(1.5, 1.4, 1.7, 179, "t"), 1.0).as_dict()).startswith("p = ")
    assert format_value(p_value(0.2, 1, "exact test").as_dict()) == "p = 0.20"


def test_interval_ends_within_rounding_of_the_estimate_print_as_it():
    from lib.book.verdicts.claims import format_value

    wilson_zero = {"value": 0.0, "low": 2.1e-19, "high": 0.06, "n": 60, "method": "wilson 95%"}
    assert format_value(wilson_zero) == "0 [0, 0.060], n = 60"
    small = {"value": 1e-5, "low": 5e-6, "high": 2e-5, "n": 3, "method": "t"}
    assert format_value(small) == "1.0 × 10⁻⁵ [5.0 × 10⁻⁶, 2.0 × 10⁻⁵], n = 3"


def _floor_chapter():
    floor = FreeChoice("minor_floor", "10 init scales", {"0.05": "align_floor_0_05", "0": "align_floor_0"})
    claim = Claim("S-5", "aligned", "p", "align", "> 0.9", basis="seeds", free_choices=(floor,))
    return Chapter("toy", "t", NoParameters, claims=(claim,))


def test_a_verdict_that_flips_with_a_free_choice_is_not_reported_plainly(tmp_path):
    metrics = {"align": _est(0.99, 0.98, 1.0), "align_floor_0": _est(1.0, 0.99, 1.0)}
    flipped = {**metrics, "align_floor_0_05": _est(0.78, 0.74, 0.82)}
    v = verdicts([_floor_chapter()], {"toy": flipped})[0]
    assert v.verdict == "holds" and v.as_declared
    assert [a.verdict for a in v.alternatives] == ["does not hold", "holds"]
    assert v.robustness == "depends on the minor_floor" and v.summary == "holds, depends on the minor_floor"
    assert v.robustness_detail == (
        "depends on the minor_floor: holds with 10 init scales (declared), does not hold with 0.05, holds with 0"
    )
    table = claims_markdown([_floor_chapter()], {"toy": flipped})
    assert "**holds" not in table and "holds, depends on the minor_floor" in table
    assert "does not hold with 0.05" in sentence(v)
    _write(tmp_path, flipped)
    text, code = claims_report([_floor_chapter()], tmp_path)
    assert code == 0 and "0 robust, 1 depending on a free choice" in text


def test_a_verdict_every_alternative_agrees_with_is_robust():
    agreeing = {"align": _est(0.99, 0.98, 1.0), "align_floor_0": _est(1.0, 0.99, 1.0)}
    agreeing["align_floor_0_05"] = _est(0.95, 0.93, 0.97)
    v = verdicts([_floor_chapter()], {"toy": agreeing})[0]
    assert v.robustness == "robust" and not v.dependent_choices
    assert '<strong class="book-status">holds, robust</strong>' in claims_markdown(
        [_floor_chapter()], {"toy": agreeing}
    )
    only_primary = verdicts([_floor_chapter()], {"toy": {"align": _est(0.99, 0.98, 1.0)}})[0]
    assert only_primary.robustness == "alternatives not computed"
    plain = verdicts([_chapter()], {"toy": {"err": 0.01, "frac": _est(0.2, 0.1, 0.3)}})[1]
    assert plain.robustness == "" and plain.summary == "holds"


def test_free_choices_are_declared_cleanly():
    with pytest.raises(ValueError, match="repeats the claim's own metric"):
        Claim("S-5", "s", "p", "m", "> 0", free_choices=(FreeChoice("x", "1", {"2": "m"}),))
    with pytest.raises(ValueError, match="at least one"):
        FreeChoice("x", "1", {})
    claim = Claim("S-5", "s", "p", "m", "> 0", free_choices=[FreeChoice("x", "1", {"2": "m2"})])
    assert hash(claim) and claim.alternative_metrics == ["m2"]


def test_a_skipped_metric_is_not_computed_with_its_reason():
    from lib.book.verdicts.claims import format_value

    skipped = {"not_computed": "2-linear not in order_models"}
    claim = Claim("S-11", "s", "p", "m", "== true")
    assert claim.evaluate(skipped) == ("not computed", "2-linear not in order_models")
    assert format_value(skipped) == "not computed (2-linear not in order_models)"


def test_a_claim_beyond_the_paper_says_so_and_an_unknown_scope_is_refused():
    chapter = Chapter(
        id="toy",
        title="t",
        params=NoParameters,
        claims=(Claim("S-D", "a consequence", "not stated", "err", "< 0.1", scope="derivation"),),
    )
    table = claims_markdown([chapter], {"toy": {"err": 0.01}})
    assert "Derivation beyond the paper, decided on one run." in table
    assert "beyond the paper" not in claims_markdown([_chapter()], {"toy": {"err": 0.01}})
    with pytest.raises(ValueError, match="scope"):
        Claim("S-X", "s", "p", "m", "< 1", scope="novel")


def test_a_point_prints_without_brackets_and_a_widened_interval_says_it_does_not_judge():
    from lib.book.verdicts.claims import format_value
    from lib.util.stats import Estimate, undecided

    p = {"value": 1.841e-08, "low": 1.841e-08, "high": 1.841e-08, "n": 120, "method": "exact"}
    assert format_value(p) == "1.841 × 10⁻⁸, n = 120"
    assert format_value({"value": 3, "low": 3, "high": 3, "n": 1, "method": "exact"}) == "3"
    widened = undecided(Estimate(0.19, 0.1, 0.3, 5, "t"), 0.0, 1.0, "the control failed (0.31 [0.2, 0.4])")
    assert format_value(widened.as_dict()) == "not judged: the control failed (0.31 [0.2, 0.4])"


def test_a_book_bar_is_also_judged_at_half_and_twice_its_distance_from_the_papers_edge():
    from lib.book.chapters.declaration import BookBar

    assert BookBar(edge=0).alternatives(0.1) == (0.05, 0.2)
    assert BookBar(edge=1).alternatives(2.0) == (1.5, 3.0)  # a ratio that must exceed parity
    assert BookBar(edge=1, end=0).alternatives(0.9) == pytest.approx((0.95, 0.8))
    assert BookBar(edge=1, end=0).alternatives(0.5) == (0.75,)  # > 0 is no bar on a fraction: left out
    assert BookBar(edge=0, end=1).alternatives(0.6) == (0.3,)
    claim = Claim("G-2", "rough agreement", "p", "gap", "< 0.1", role="primary", book_bar=BookBar(edge=0))
    v = verdicts([Chapter("toy", "t", NoParameters, claims=(claim,))], {"toy": {"gap": 0.065}})[0]
    assert v.verdict == "holds" and [(a.label, a.verdict) for a in v.alternatives] == [
        ("< 0.05", "does not hold"),
        ("< 0.2", "holds"),
    ]
    assert v.robustness_detail == (
        "depends on the bar (the paper sets none): holds with < 0.1 (declared), does not hold with < 0.05, holds with < 0.2"
    )


def test_a_book_bar_follows_the_parameter_its_condition_names_and_needs_a_primary_order_condition():
    from lib.book.chapters.declaration import BookBar

    claim = Claim("S-7", "s", "p", "v", "< tol", role="primary", book_bar=BookBar(edge=0))
    chapter = Chapter("toy", "t", Tolerance, claims=(claim,))
    found = {"v": 0.03, RUN_KEY: {"parameters": {"tol": 0.04}}}
    assert [a.label for a in verdicts([chapter], {"toy": found})[0].alternatives] == ["< 0.02", "< 0.08"]
    with pytest.raises(ValueError, match="primary"):
        Claim("S-7", "s", "p", "v", "< 0.1", book_bar=BookBar(edge=0))
    with pytest.raises(ValueError, match="order condition"):
        Claim("S-7", "s", "p", "v", "== 1", role="primary", book_bar=BookBar(edge=0))
    with pytest.raises(ValueError, match="strictly between"):  # a bar at its edge, or beyond the measure's end
        Claim("S-7", "s", "p", "v", "> 1", role="primary", book_bar=BookBar(edge=1, end=0))
    with pytest.raises(ValueError, match="strictly between"):
        Claim("S-7", "s", "p", "v", "> 0.5", role="primary", book_bar=BookBar(edge=1, end=0.5))
    with pytest.raises(ValueError, match="cannot be its edge"):
        BookBar(edge=0, end=0)


@pytest.mark.parametrize("finished", [None, "", 1])
def test_the_metrics_of_a_run_that_did_not_finish_are_refused(tmp_path, finished):
    """A run killed (or failed) mid-way leaves metrics whose claims would read "not computed ... changed": without
    the completion mark its chapter's last cell writes, `lib claims` refuses the file, naming it (exit 2)."""
    run = {k: v for k, v in TOY_RUN.items() if k != FINISHED_KEY}
    if finished is not None:
        run[FINISHED_KEY] = finished
    _write(tmp_path, {"err": 0.01}, run=run)
    with pytest.raises(MetricsError, match="toy.metrics.json: the run that wrote it did not finish") as err:
        claims_report([_chapter()], tmp_path)
    assert "\n" not in str(err.value)
    assert unfinished_metrics({RUN_KEY: run}) is not None and unfinished_metrics({RUN_KEY: TOY_RUN}) is None
    _write(tmp_path, {"err": 0.01}, run=TOY_RUN)
    assert claims_report([_chapter()], tmp_path)[1] in (0, 1)


# ----------------------------------------------------------------------------------------------
# Metrics of another run than the notebook beside them; values of the wrong type
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TolAndSteps(Parameters):
    tol: float = param(0.05, "tolerance", gt=0)
    steps: int = param(10, "steps", min=1)
    fast: bool = param(False, "fast")


def _typed_chapter():
    return Chapter(
        id="toy",
        title="t",
        params=TolAndSteps,
        claims=(
            Claim(
                "S-C", "identity", "exact", "err", "< tol", free_choices=(FreeChoice("a floor", "0", {"1": "err_1"}),)
            ),
            Claim("S-S", "symbolic", "exact", "sym", "== true", basis="exact"),
            Claim("S-K", "kind", "p", "kind", "== 'concat'"),
            Claim("S-8", "triple descent", "seen", "frac", "> 0.01", basis="seeds"),
        ),
    )


TYPED_RUN = {**TOY_RUN, "parameters": {"tol": 0.05, "steps": 10, "fast": False}}
TYPED_METRICS = {"err": 0.01, "err_1": 0.02, "sym": True, "kind": "concat", "frac": _est(0.02, 0.015, 0.03)}


def _one_line_refusal(tmp_path, *pieces):
    with pytest.raises(MetricsError) as err:
        claims_report([_typed_chapter()], tmp_path)
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"{tmp_path}/toy.metrics.json: "), message
    assert all(piece in message for piece in pieces), message
    return message


def _source_notebook(path):
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.metadata["language_info"] = {"name": "python"}
    parameters = nbformat.v4.new_code_cell("tol = 0.05\nsteps = 10\nfast = False")
    parameters.metadata["tags"] = ["parameters"]
    notebook.cells = [parameters, nbformat.v4.new_code_cell("print(tol)")]
    nbformat.write(notebook, path)


def _executed(notebook_path, parameters, **papermill_record):
    """A notebook as papermill writes a complete run: every code cell counted, an end time, no exception."""
    import nbformat

    _source_notebook(notebook_path)
    notebook = nbformat.read(notebook_path, as_version=4)
    for count, cell in enumerate(notebook.cells, 1):
        cell.execution_count = count
    notebook.metadata["papermill"] = {
        "parameters": parameters,
        "start_time": "2026-01-01T00:00:00",
        "end_time": "2026-01-01T00:00:09",
        "exception": None,
        **papermill_record,
    }
    nbformat.write(notebook, notebook_path)


def test_metrics_beside_a_notebook_papermill_never_executed_are_refused(tmp_path):
    """papermill --prepare-only and a kernel that does not start both rewrite the output notebook and leave the
    metrics of the earlier run beside it: `lib claims` refuses them, naming both files (papermill's own records)."""
    import papermill
    from jupyter_client.kernelspec import NoSuchKernel

    _write(tmp_path, TYPED_METRICS, run=TYPED_RUN)
    assert claims_report([_typed_chapter()], tmp_path)[1] == 0  # no notebook beside: nothing to judge by
    _source_notebook(tmp_path / "source.ipynb")
    papermill.execute_notebook(
        str(tmp_path / "source.ipynb"), str(tmp_path / "toy.ipynb"), parameters={"tol": 0.05}, prepare_only=True
    )
    _one_line_refusal(tmp_path, f"{tmp_path}/toy.ipynb", "did not complete (no end time")
    with pytest.raises(NoSuchKernel):
        papermill.execute_notebook(
            str(tmp_path / "source.ipynb"), str(tmp_path / "toy.ipynb"), kernel_name="nosuchkernel", progress_bar=False
        )
    record = json.loads((tmp_path / "toy.ipynb").read_text())["metadata"]["papermill"]
    assert record["end_time"] and not record["exception"]  # papermill records no failure: the cells never ran
    _one_line_refusal(tmp_path, f"{tmp_path}/toy.ipynb", "a cell never ran")


@pytest.mark.parametrize(
    ("injected", "recorded", "refused"),
    [
        ({}, {}, False),
        ({"tol": 0.05}, {}, False),
        ({"tol": 1}, {"tol": 1.0}, False),  # an int is the float the chapter declares
        ({"tol": 1.0}, {"tol": 1}, False),
        ({"steps": 3, "fast": True}, {"steps": 3, "fast": True}, False),
        ({"PAPERMILL_INPUT_PATH": "in.ipynb", "PAPERMILL_OUTPUT_PATH": "toy.ipynb"}, {}, False),  # --inject-paths
        ({"tol": 0.5}, {}, True),  # the tester's d = 8 beside d = 64
        ({"steps": 3}, {"steps": 3.0}, True),  # never equal where an int is declared (and refused as a record)
        ({"fast": 1}, {"fast": True}, True),  # 1 is not true
        ({"nosuch": 1}, {}, True),
    ],
)
def test_metrics_beside_a_notebook_run_with_other_parameters_are_refused(tmp_path, injected, recorded, refused):
    run = {**TYPED_RUN, "parameters": {**TYPED_RUN["parameters"], **recorded}}
    _write(tmp_path, TYPED_METRICS, run=run)
    _executed(tmp_path / "toy.ipynb", injected)
    if not refused:
        assert claims_report([_typed_chapter()], tmp_path)[1] == 0
        return
    with pytest.raises(MetricsError) as err:
        claims_report([_typed_chapter()], tmp_path)
    assert "\n" not in str(err.value) and str(err.value).startswith(f"{tmp_path}/toy.metrics.json: ")


def test_metrics_beside_a_failed_or_unpapermilled_notebook(tmp_path):
    import nbformat

    _write(tmp_path, TYPED_METRICS, run=TYPED_RUN)
    _executed(tmp_path / "toy.ipynb", {}, exception=True)
    _one_line_refusal(tmp_path, "stopped with an exception")
    _executed(tmp_path / "toy.ipynb", {}, end_time=None)
    _one_line_refusal(tmp_path, "did not complete")
    _source_notebook(tmp_path / "toy.ipynb")  # not run by papermill (nbclient, by hand): not judged by this rule
    assert "papermill" not in nbformat.read(tmp_path / "toy.ipynb", as_version=4).metadata
    assert claims_report([_typed_chapter()], tmp_path)[1] == 0
    # the papermill route's OUT.metrics.json beside OUT.ipynb
    (tmp_path / "toy.metrics.json").rename(tmp_path / "e.metrics.json")
    _executed(tmp_path / "e.ipynb", {"tol": 0.5})
    with pytest.raises(MetricsError, match=f"^{tmp_path}/e.metrics.json: .*{tmp_path}/e.ipynb: papermill ran it with"):
        claims_report([_typed_chapter()], tmp_path / "e.metrics.json")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"{", "not a notebook (not valid JSON"),
        (b"\xff", "not a notebook (not UTF-8"),
        (b"[]", "not a notebook (no metadata and cells)"),
        (b'{"metadata": {"papermill": []}, "cells": []}', "malformed papermill record"),
        (b'{"metadata": {"papermill": {"parameters": 3}}, "cells": []}', "malformed papermill record"),
        (None, "not a regular file"),
    ],
)
def test_a_notebook_beside_the_metrics_that_is_none_is_refused_in_one_line(tmp_path, content, message):
    _write(tmp_path, TYPED_METRICS, run=TYPED_RUN)
    if content is None:
        (tmp_path / "toy.ipynb").mkdir()
    else:
        (tmp_path / "toy.ipynb").write_bytes(content)
    _one_line_refusal(tmp_path, f"the notebook beside it, {tmp_path}/toy.ipynb,", message)


def test_published_notebooks_and_nbval_references_are_read_as_their_runs():
    """`lib run`'s published ID.ipynb (book/chapters, where built) pass beside their metrics; the nbval references
    in tests/notebooks carry papermill's parameters but no run (no end time): no metrics lie beside them."""
    from lib.book.chapters import chapter_ids, load
    from lib.book.verdicts.claims import foreign_notebook, read_metrics_file
    from lib.util.paths import ROOT

    for chapter_id in chapter_ids():
        metrics_file = ROOT / "book" / "chapters" / f"{chapter_id}.metrics.json"
        if metrics_file.exists() and metrics_file.with_name(f"{chapter_id}.ipynb").exists():
            chapter = load(chapter_id)
            assert foreign_notebook(chapter, read_metrics_file(metrics_file), metrics_file) is None
        assert not (ROOT / "tests" / "notebooks" / f"{chapter_id}.metrics.json").exists()


@pytest.mark.parametrize(
    ("metrics", "pieces"),
    [
        ({"err": False}, ("metric 'err' holds the boolean false", "claim S-C (< tol) needs a number")),
        ({"err": "0.01"}, ("the string '0.01'", "needs a number")),
        ({"err": [0.01]}, ("a list", "needs a number")),
        ({"err_1": True}, ("metric 'err_1' holds the boolean true", "claim S-C")),  # a free choice's metric
        ({"sym": 1}, ("metric 'sym' holds the number 1", "claim S-S (== true) needs a boolean")),
        ({"sym": "true"}, ("the string 'true'", "needs a boolean")),
        ({"sym": _est(1.0, 1.0, 1.0)}, ("an object", "needs a boolean")),
        ({"kind": 1}, ("the number 1", "needs a string")),
        ({"frac": True}, ("metric 'frac' holds the boolean true", "claim S-8")),
    ],
)
def test_a_metric_of_the_wrong_type_is_refused_in_one_line(tmp_path, metrics, pieces):
    _write(tmp_path, {**TYPED_METRICS, **metrics}, run=TYPED_RUN)
    _one_line_refusal(tmp_path, *pieces)


@pytest.mark.parametrize(
    "value",
    [
        None,
        {"not_computed": "these parameters skip it"},
        0,  # an int where a number is meant
        _est(0.01, 0.01, 0.01),  # exact: a zero-width interval
        _est(0.01, None, None),  # ends the run could not compute (written as null)
        {**_est(0.5, 0.0, 1.0), "method": "undecided: smoke evidence; wilson"},
        _est(0.01, 0.01 + 1e-15, 0.02),  # a low end above the value by rounding alone
    ],
)
def test_values_a_run_records_are_read(tmp_path, value):
    _write(tmp_path, {**TYPED_METRICS, "err": value}, run=TYPED_RUN)
    assert claims_report([_typed_chapter()], tmp_path)[1] in (0, 1)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"err": 1e999}', "1e999 overflows to infinity"),
        ('{"err": -1e999}', "-1e999 overflows to infinity"),
        ('{"err": {"value": 1e400, "low": 0, "high": 1e999, "n": 9, "method": "m"}}', "overflows to infinity"),
        ('{"err": Infinity}', "Infinity is not a number"),
        ('{"err": 1' + "0" * 400 + "}", "beyond any number a run records"),
        ('{"err": 1' + "0" * 5000 + "}", "beyond any number a run records"),  # Python's int limit: no traceback
    ],
)
def test_an_overflowing_number_is_malformed(tmp_path, text, message):
    (tmp_path / "toy.metrics.json").write_text(text)
    with pytest.raises(MetricsError) as err:
        read_metrics(tmp_path, "toy")
    assert "\n" not in str(err.value) and str(err.value).startswith(f"{tmp_path}/toy.metrics.json: malformed")
    assert message in str(err.value), str(err.value)
