"""The notebook handle's checked output: machine-independent lines only (CONTRIBUTING, checked cells)."""

import pytest

from lib.book.chapters import chapter_ids, load
from lib.book.chapters.declaration import meets
from lib.book.run.notebook import ChapterRun, evidence_notices, headline_text


@pytest.fixture
def chapter_run(tmp_path, monkeypatch):
    monkeypatch.setenv("LIB_OUTPUT_DIR", str(tmp_path))
    monkeypatch.setattr(ChapterRun, "_glue", staticmethod(lambda name, value: None))
    chapter = load("one_layer")
    return ChapterRun(chapter, chapter.validate({}), tmp_path)


def test_checks_print_the_condition_not_the_float(chapter_run, capsys):
    chapter_run.metric("error", 1.2345e-5)
    chapter_run.metric("ratio", 0.5)
    chapter_run.metric("exact", 3)
    chapter_run.headline("exact", checks={"error": "<= 1e-4", "ratio": "> 1"})
    assert capsys.readouterr().out.splitlines() == ["exact = 3", "error <= 1e-4", "ratio = 0.5, fails > 1"]


def test_estimates_print_as_text_not_a_dict():
    estimate = {"value": 0.2713, "low": 0.2112, "high": 0.3349, "n": 200, "method": "wilson"}
    assert headline_text(estimate, 2) == "0.27 [0.21, 0.33], n = 200"
    assert headline_text([0.50213, 2.0], 3) == "[0.502, 2]"


@pytest.mark.parametrize(
    ("value", "condition", "expected"),
    [
        (0.5, "< 1", True),
        ([0.1, 2.0], "< 1", False),
        ({"value": 3, "low": 1, "high": 4, "n": 5, "method": "t"}, "> 2", True),
        (None, "< 1", False),
        (True, "== true", True),
    ],
)
def test_meets(value, condition, expected):
    assert meets(value, condition) is expected


def test_evidence_notices_name_the_pending_sets():
    metrics = {
        "_run": {
            "evidence": [
                {"set": "a/full", "pending": None},
                {"set": "b/part", "pending": "3 of 10 shards of b/part are not computed yet"},
            ]
        }
    }
    assert evidence_notices(metrics) == [
        "notice: b/part: 3 of 10 shards of b/part are not computed yet; the chapter reads it as incomplete"
    ]
    assert evidence_notices({}) == []


def test_a_smoke_variant_loaded_to_compare_with_is_recorded_without_a_notice(tmp_path, monkeypatch):
    """The smoke shards a live check compares with: recorded by commit like any set, but not read as the set,
    so neither pending nor a commit warning in the page."""
    import warnings

    monkeypatch.setenv("LIB_OUTPUT_DIR", str(tmp_path))
    monkeypatch.setattr(ChapterRun, "_glue", staticmethod(lambda name, value: None))
    chapter = load("geneft_dynamics")
    run = ChapterRun(chapter, chapter.validate({}), tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compared = run.evidence("phase_grid", "smoke", reference=True)
    assert compared.data.variant == "smoke" and len(compared.data) > 0
    asked = run.evidence("phase_grid", "smoke")
    entries = run.record["evidence"]
    assert [e["pending"] for e in entries] == [None, asked.pending] and asked.pending
    assert evidence_notices({"_run": run.record}) == [
        f"notice: geneft_dynamics/phase_grid: {asked.pending}; the chapter reads it as incomplete"
    ]


def test_draft_figures_are_drawn_not_glued(chapter_run, monkeypatch):
    """Under LIB_DRAFT_FIGURES=1 (nbval) a figure is drawn (a bad label still fails) but never rendered or glued."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    glued = []
    monkeypatch.setattr(ChapterRun, "_glue", staticmethod(lambda name, value: glued.append(name)))
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    chapter_run.figure("fig_rendered", fig)
    monkeypatch.setenv("LIB_DRAFT_FIGURES", "1")
    fig, ax = plt.subplots()
    chapter_run.figure("fig_draft", fig)
    assert glued == ["fig_rendered"] and not plt.get_fignums()
    fig, ax = plt.subplots()
    ax.set_xlabel(r"$\frac{1}{$")  # unparsable mathtext: found at drawing time
    with pytest.raises(ValueError):
        chapter_run.figure("fig_bad", fig)
    plt.close("all")


def test_prose_is_glued_as_markdown_for_the_md_role_and_text_as_text(chapter_run, monkeypatch):
    """{glue:md}`name:myst` typesets the mathematics of `prose`; {glue:text} pastes `text` as it is."""
    glued = {}
    monkeypatch.setattr(ChapterRun, "_glue", staticmethod(lambda name, value: glued.update({name: value})))
    chapter_run.prose("setup", "$\\eta_\\mathrm{enc} = 10^{-3}$")
    chapter_run.text("words", "mod 3")
    assert glued["setup"]._repr_markdown_() == "$\\eta_\\mathrm{enc} = 10^{-3}$"
    assert glued["words"] == "mod 3"


def test_metrics_are_written_at_most_every_few_seconds_and_at_the_claims_table(chapter_run, monkeypatch):
    """Each write syncs the file to disk: a burst of metrics is one write, the claims table writes what is left."""
    import json

    import lib.book.run.notebook as notebook

    written = lambda: json.loads(chapter_run.path.read_text())  # noqa: E731
    chapter_run.metric("first", 1)
    chapter_run.metric("second", 2)
    assert "first" not in written() and chapter_run._pending
    monkeypatch.setattr(notebook, "METRICS_WRITE_SECONDS", 0.0)
    chapter_run.metric("third", 3)
    assert {"first", "second", "third"} <= set(written()) and not chapter_run._pending
    monkeypatch.setattr(notebook, "METRICS_WRITE_SECONDS", 3600.0)
    chapter_run.metric("fourth", 4)
    chapter_run.flush()
    assert written()["fourth"] == 4
    chapter_run.metric("fifth", 5)
    chapter_run.claims_table()
    assert written()["fifth"] == 5


def test_the_claims_table_marks_the_run_finished_last(chapter_run, tmp_path):
    """The completion mark (`finished` in the run's record) is written by the chapter's last cell, the claims table,
    after everything else: a metrics file without it is a run that never got there, which `lib claims` refuses."""
    import json

    from lib.book.verdicts.claims import FINISHED_KEY, MetricsError, claims_report

    chapter_run.metric("a", 0.5)
    chapter_run.flush()
    assert FINISHED_KEY not in json.loads(chapter_run.path.read_text())["_run"]
    with pytest.raises(MetricsError, match="did not finish"):
        claims_report([chapter_run.chapter], tmp_path)
    chapter_run.claims_table()
    assert json.loads(chapter_run.path.read_text())["_run"][FINISHED_KEY].endswith(" UTC")
    claims_report([chapter_run.chapter], tmp_path)


@pytest.mark.parametrize("chapter_id", chapter_ids())
def test_every_chapter_ends_with_its_claims_table(chapter_id):
    """So that the completion mark `claims_table` writes means that the chapter's last cell ran."""
    import jupytext

    cells = [c for c in jupytext.read(load(chapter_id).notebook).cells if c.cell_type == "code"]
    assert cells[-1].source.strip() == "run.claims_table()"
