"""Every command refuses a bad input in one line with exit 2, before it computes or writes anything: options read
only as written, numbers of any size, YAML merge keys read as papermill reads them, unknown chapters, and folders
that would overwrite the book's results with an incomplete build."""

from __future__ import annotations

import os

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from lib.book.commands import main as cli
from lib.book.commands.main import parse_overrides
from lib.util.paths import ROOT

HUGE = "1" * 5000  # more digits than Python converts from text (4300)


def refused(argv: list[str], capsys) -> str:
    """The one line `python -m lib ARGV` answers with exit 2."""
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "\n" not in err and "Traceback" not in err
    return err


@pytest.mark.parametrize(
    "argv, says",
    [
        (["run", "one_layer", "--param", "d", "0"], "unrecognized arguments: --param"),  # not read as --parameter
        (["run", "one_layer", "--thr", "2"], "unrecognized arguments: --thr"),
        (["run", "one_layer", "--stored-results", "Live"], "invalid choice: 'Live'"),
        (["claims", "--chap", "one_layer"], "unrecognized arguments: --chap"),
        (["nosuch"], "invalid choice: 'nosuch'"),
    ],
)
def test_options_are_read_only_as_written_and_refused_in_one_line(argv, says, capsys):
    assert says in refused(argv, capsys)


@pytest.mark.parametrize(
    "argv, says",
    [
        (["run", "one_layer", "-y", f"{{d: {HUGE}}}"], "out of range"),
        (["run", "one_layer", "-y", f"{{fig2b_sigma1: [{HUGE}]}}"], "out of range"),
        (["run", "one_layer", "--threads", HUGE], "--threads must be a whole number"),
        (["run", "one_layer", "--output-dir", ""], "--output-dir is empty"),
        (["run", "one_layer", "-y", "{d: 1e3}"], "write the integer in digits, 1000"),
        (["run", "one_layer", "-y", "{fig2b_sigma1: [0.0, -0.0]}"], "entries 0 and 1 are 0.0 and -0.0"),
        (["run", "one_layer", "-y", "{? [d, n] : 8}"], "got ['d', 'n']"),
        (["run", "one_layer", "-y", "{<<: {d: 8}, d: 9}"], "'d' is given twice"),
        (["run", "two_layer", "-p", "sweep_mu1", "[1.0, 3.0]"], "-y '{sweep_mu1: [1.0, 3.0]}'"),
    ],
)
def test_values_are_refused_in_one_line_whatever_their_size_or_spelling(argv, says, capsys):
    assert says in refused(argv, capsys)


def test_a_thread_count_of_any_length_in_the_environment_is_refused_or_ignored(monkeypatch, capsys):
    """LIB_THREADS is the book's and refused when unusable; OMP_NUM_THREADS is OpenMP's, read only when plain."""
    monkeypatch.setenv("OMP_NUM_THREADS", HUGE)
    assert cli.main(["chapters"]) == 0
    monkeypatch.setenv("LIB_THREADS", HUGE)
    assert "LIB_THREADS=" in refused(["chapters"], capsys)


@settings(max_examples=30, deadline=None)
@given(
    base=st.dictionaries(st.sampled_from(["d", "n", "lr", "seed"]), st.integers(0, 99), max_size=3),
    more=st.dictionaries(st.sampled_from(["steps", "tau"]), st.integers(0, 99), max_size=2),
)
def test_merge_keys_are_read_as_papermill_reads_them(base, more):
    """`<<` merges a mapping in (PyYAML's safe loader, papermill's -y); the names must stay distinct."""
    from papermill.iorw import NoDatesSafeLoader

    merged, given = (yaml.safe_dump(m, default_flow_style=True).strip() for m in (base, more))
    text = f"{{<<: {merged}, {given[1:]}"  # {<<: {d: 1}, steps: 2}
    assert parse_overrides([], [text]) == yaml.load(text, Loader=NoDatesSafeLoader)  # noqa: S506 (a safe loader)


@pytest.mark.parametrize(
    "argv",
    [
        ["deps", "nosuch", "x"],
        ["bench", "nosuch"],
        ["refs", "one_layer", "nosuch"],
        ["list", ""],
        ["params", "nosuch"],
        ["claims", "book/chapters", "--chapter", "nosuch"],
    ],
)
def test_unknown_chapters_are_refused_before_any_work(argv, capsys, monkeypatch):
    from lib.book.run import runner

    monkeypatch.setattr(runner, "refresh_reference", lambda chapter_id: pytest.fail("computed before refusing"))
    assert "unknown chapter" in refused(argv, capsys)


def test_the_bench_output_and_the_deps_target_are_checked_first(capsys):
    assert "name a file" in refused(["bench", "--output", "lib", "--no-phases", "--no-memory", "one_layer"], capsys)
    assert "target is empty" in refused(["deps", "one_layer", ""], capsys)


@pytest.mark.parametrize("command", ["readme", "release", "pages"])
def test_an_incomplete_build_never_overwrites_the_books_results(command, tmp_path, capsys):
    """readme, release and pages write from every chapter's metrics or not at all: an empty or missing folder of
    runs is refused, and README.md, the releases and the pages' folder are left as they were."""
    before = {p: p.read_bytes() for p in [ROOT / "README.md", *sorted((ROOT / "book" / "releases").glob("*.json"))]}
    out = tmp_path / "pages"
    for runs in (tmp_path / "missing", tmp_path):
        argv = [command, str(runs), *([str(out)] if command == "pages" else [])]
        message = refused(argv, capsys)
        assert "no such folder of built chapters" in message or "holds no metrics of" in message
    assert not os.path.lexists(out)
    assert {p: p.read_bytes() for p in before} == before


def test_pages_are_not_written_into_the_sources(tmp_path, capsys):
    assert "lies in the source folder lib/" in refused(["pages", str(tmp_path), str(ROOT / "lib")], capsys)
    assert "exists and is not a folder" in refused(["pages", str(tmp_path), str(ROOT / "README.md")], capsys)
