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
        (["claims", ""], "the folder or metrics file is empty"),
        (["deps", "one_layer", "a b"], "is not a make target"),
        (["deps", "one_layer", "x\ny:z"], "is not a make target"),
        (["evidence", "status", "one_layer"], "chapter one_layer declares no evidence set"),
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
    for output, says in (("lib/bench.json", "source folder lib/"), ("/dev/null/x.json", "not a folder")):
        assert says in refused(["bench", "--output", output, "--no-phases", "--no-memory", "one_layer"], capsys)
    assert "is not a make target" in refused(["deps", "one_layer", ""], capsys)


@pytest.mark.parametrize("command", ["readme", "release", "pages"])
def test_an_incomplete_build_never_overwrites_the_books_results(command, tmp_path, capsys):
    """readme, release and pages write from every chapter's metrics or not at all: an empty or missing folder of
    runs is refused, and README.md, the releases and the pages' folder are left as they were."""
    before = {p: p.read_bytes() for p in [ROOT / "README.md", *sorted((ROOT / "book" / "releases").glob("*.json"))]}
    out = tmp_path / "pages"
    for runs, says in ((tmp_path / "missing", "no such folder of built chapters"), (tmp_path, "holds no metrics of")):
        assert says in refused([command, str(runs), *([str(out)] if command == "pages" else [])], capsys)
    assert not os.path.lexists(out)
    assert {p: p.read_bytes() for p in before} == before


def test_pages_are_not_written_into_the_sources(tmp_path, capsys):
    assert "lies in the source folder lib/" in refused(["pages", str(tmp_path), str(ROOT / "lib")], capsys)
    assert "exists and is not a folder" in refused(["pages", str(tmp_path), str(ROOT / "README.md")], capsys)


def _executed_notebook(tmp_path, name: str = "run.ipynb", unfinished: bool = False) -> str:
    """A copy of an executed chapter notebook (the nbval reference of one_layer); `unfinished`: its last code cell
    never ran, as after papermill's --prepare-only or a run stopped on the way."""
    import nbformat

    notebook = nbformat.read(ROOT / "tests" / "notebooks" / "one_layer.ipynb", as_version=4)
    if unfinished:
        code = [cell for cell in notebook.cells if cell.cell_type == "code" and cell.source.strip()]
        code[-1].execution_count, code[-1].outputs = None, []
    nbformat.write(notebook, tmp_path / name)
    return str(tmp_path / name)


def test_a_page_never_overwrites_a_runs_files_nor_shows_an_unfinished_run(tmp_path, capsys):
    notebook = _executed_notebook(tmp_path)
    for target in (notebook, str(tmp_path / "run.metrics.json")):
        assert "not a page; name an .html file" in refused(["page", notebook, "-o", target], capsys)
    unfinished = _executed_notebook(tmp_path, "prepared.ipynb", unfinished=True)
    assert "a cell never ran" in refused(["page", unfinished, "-o", str(tmp_path / "p.html")], capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["prepared.ipynb", "run.ipynb"]


@pytest.mark.parametrize("where", ["data/evidence", ".", "lib/x", ".."])
def test_a_cache_in_the_sources_or_holding_them_is_refused(where, monkeypatch, capsys):
    """make clean-cache removes the cache folder: it must never be the repository or any part of its sources."""
    monkeypatch.setenv("LIB_CACHE_DIR", str((ROOT / where).resolve()))
    assert "LIB_CACHE_DIR=" in refused(["chapters"], capsys)


def test_only_a_folder_the_book_made_is_tagged_and_removed_as_a_cache(tmp_path, monkeypatch):
    """A fresh LIB_CACHE_DIR gets its CACHEDIR.TAG and `make clean-cache` removes it; a folder of other files is
    never tagged, and make clean-cache refuses it (exit 2), its files kept."""
    import subprocess

    from lib.util.paths import CACHE_TAG, cache_dir

    for name, files in (("fresh", False), ("other", True)):
        folder = tmp_path / name
        if files:
            folder.mkdir()
            (folder / "keep.txt").write_text("not a cache")
        monkeypatch.setenv("LIB_CACHE_DIR", str(folder))
        cache_dir("kind")
        assert (folder / CACHE_TAG).exists() == (not files)
        done = subprocess.run(["make", "-s", "clean-cache"], cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == (2 if files else 0), done.stderr
        assert folder.exists() == files and (not files or (folder / "keep.txt").exists())


def test_clean_cache_removes_the_default_cache_with_no_variable_set(tmp_path):
    """Without LIB_CACHE_DIR, `make clean-cache` removes `.cache` (the recipes run under `set -u`: an unset variable
    must not stop them). Run on a copy of the Makefile in a folder of its own, so the repository's cache stays."""
    import shutil
    import subprocess

    shutil.copy(ROOT / "Makefile", tmp_path)
    shutil.copy(ROOT / "_toc.yml", tmp_path)
    (tmp_path / ".cache" / "models").mkdir(parents=True)
    environment = {k: v for k, v in os.environ.items() if k != "LIB_CACHE_DIR"}
    done = subprocess.run(["make", "-s", "clean-cache"], cwd=tmp_path, env=environment, capture_output=True, text=True)
    assert done.returncode == 0 and not (tmp_path / ".cache").exists(), done.stderr


def test_pages_are_written_all_or_none(tmp_path, monkeypatch):
    """A page that cannot be made (a release snapshot edited into nonsense, say) leaves the folder as it was."""
    from lib.book.chapters.declaration import ParameterError
    from lib.book.pages import generated

    def broken(*args):
        raise ParameterError("book/releases/0.6.0.json: not a release snapshot")

    monkeypatch.setattr(generated, "changelog_page", broken)
    with pytest.raises(ParameterError, match="not a release snapshot"):
        generated.write_pages(tmp_path / "runs", tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_broken_release_snapshot_or_readme_is_one_line(tmp_path, monkeypatch):
    from lib.book.chapters.declaration import ParameterError
    from lib.book.pages import generated
    from lib.book.pages.changelog import previous_release

    (tmp_path / "0.6.0.json").write_text("{bad")
    with pytest.raises(ParameterError, match="0.6.0.json: not a release snapshot"):
        previous_release(tmp_path, "0.7.0")
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n{generated.README_START}\nold\n")  # the end marker edited away
    monkeypatch.setattr(generated, "readme_results", lambda runs_dir: "| new |\n")
    with pytest.raises(ParameterError, match="README.md: README.md needs one pair of markers"):
        generated.write_readme(tmp_path, readme)
    assert readme.read_text() == f"# x\n{generated.README_START}\nold\n"
