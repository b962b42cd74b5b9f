"""lib/runner.py and the CLI: validation before compute, staging, atomic publication."""
import json
import subprocess
import sys

import pytest

import lib.chapter
import lib.runner
from lib.chapter import Chapter, Claim, Param, ROOT

TOY = '''# ---
# jupyter:
#   kernelspec: {display_name: Python 3, language: python, name: python3}
# ---

# %% tags=["parameters"]
k = 2
fail = False

# %%
from lib.book import ChapterRun
from lib.chapter import Chapter
run = ChapterRun(Chapter(id="toy", title="toy", params=()), {"k": k})  # the kernel cannot see the test's registry
run.metric("k_squared", k ** 2)
assert not fail, "failing on purpose"
'''


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "lib", *args], cwd=ROOT, capture_output=True, text=True)


@pytest.mark.parametrize("args, message", [
    (["-p", "no_such_parameter", "1"], "unknown parameter"),
    (["-y", "{seed: -1.5}"], "parameter"),
])
def test_cli_refuses_bad_parameters_before_compute(tmp_path, args, message):
    done = _cli("run", "one_layer", *args, "--output-dir", str(tmp_path))
    assert done.returncode == 2 and message in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_cli_unknown_chapter():
    done = _cli("run", "no_such_chapter")
    assert done.returncode == 2 and "unknown chapter" in done.stderr


def test_cli_list_shows_every_chapter():
    done = _cli("list")
    assert done.returncode == 0
    for chapter_id in ("one_layer", "two_layer", "sim_observations", "diffusion", "geneft_statics", "geneft_dynamics"):
        assert f"{chapter_id}:" in done.stdout


@pytest.fixture
def toy_chapter(tmp_path, monkeypatch):
    (tmp_path / "toy.py").write_text(TOY)
    chapter = Chapter(id="toy", title="toy", params=(Param("k", "int", "", min=0), Param("fail", "bool", "")),
                      claims=(Claim("S-C", "", "", "k_squared", "== 9"),))
    monkeypatch.setattr(lib.chapter, "NOTEBOOKS", tmp_path)
    monkeypatch.setattr(lib.runner, "load", lambda _id: chapter)
    return chapter


def test_run_publishes_notebook_and_metrics(tmp_path, toy_chapter):
    out = tmp_path / "out"
    path = lib.runner.run_chapter("toy", {"k": 3}, out)
    assert path == out / "toy.ipynb"
    assert json.loads((out / "toy.metrics.json").read_text()) == {"k_squared": 9}
    assert sorted(p.name for p in out.iterdir()) == ["toy.ipynb", "toy.metrics.json"]


def test_failed_run_publishes_nothing_it_could_be_trusted_for(tmp_path, toy_chapter):
    out = tmp_path / "out"
    lib.runner.run_chapter("toy", {"k": 3}, out)
    before = (out / "toy.ipynb").read_bytes()
    with pytest.raises(Exception, match="failing on purpose"):
        lib.runner.run_chapter("toy", {"k": 4, "fail": True}, out)
    assert (out / "toy.ipynb").read_bytes() == before  # the last good run stays
    assert json.loads((out / "toy.metrics.json").read_text()) == {"k_squared": 9}
    assert (out / "toy.failed.ipynb").exists()
    assert not list(out.glob(".staging-*"))
