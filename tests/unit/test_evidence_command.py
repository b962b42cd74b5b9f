"""`python -m lib evidence ...` refuses a bad input with exit code 2 and one line naming it, before any work:
unknown chapters, sets and shards, invalid values, unusable folders, malformed command lines."""

import importlib
import subprocess
import sys

import pytest

from lib.book.commands.evidence import main

SHARD = ["shard", "two_layer", "swing_by_d", "d-2__block-0", "--smoke"]
SET = "two_layer/swing_by_d"
HUGE = "9" * 5000  # more digits than Python converts to an int by default

BAD = [
    # unknown chapter, set or shard, empty names
    (["list", "nosuch"], "'nosuch'; chapters: "),
    (["status", "nosuch"], "'nosuch'; chapters: "),
    (["stale", "nosuch"], "'nosuch'; chapters: "),
    (["stale", "two_layer,nosuch/x"], "'nosuch/x'"),
    (["status", ""], "names no chapter or set"),
    (["stale", " , "], "names no chapter or set"),
    (["shard", "nosuch", "x", "0"], "chapter 'nosuch'"),
    (["shard", "two_layer", "nosuch", "0"], "no evidence set 'nosuch'; its sets: swing_by_d"),
    (["shard", "two_layer", "swing_by_d", "nosuch", "--smoke"], "no shard 'nosuch'; shards: d-2__block-0"),
    (["shard", "two_layer", "swing_by_d", ""], "no shard ''; shards: d-2__block-0"),
    (["shard", "", "", ""], "chapter ''"),
    (["compare", "two_layer", "nosuch", "--root", "{dir}"], "no evidence set 'nosuch'"),
    (["recertify", "two_layer"], "CHAPTER/SET, got 'two_layer'"),
    (["recertify", ""], "CHAPTER/SET, got ''"),
    (["recertify", "two_layer/"], "no evidence set ''"),
    (["recertify", "nosuch/x"], "chapter 'nosuch'"),
    # invalid values
    ([*SHARD, "--threads", "0"], "--threads must be a whole number from 1 to"),
    ([*SHARD, "--threads", "1025"], "--threads must be"),
    ([*SHARD, "--threads", ""], "--threads must be"),
    ([*SHARD, "--threads", "two"], "--threads must be"),
    ([*SHARD, "--threads", "-1"], "--threads must be"),
    ([*SHARD, "--threads", "²"], "SUPERSCRIPT TWO"),
    ([*SHARD, "--threads", HUGE], "--threads must be"),
    (["recertify", SET, "--threads", "0", "--against", "nosuchcommit"], "--threads must be"),
    (["recertify", SET, "--against", "nosuchcommit"], "--against 'nosuchcommit': not a commit"),
    (["recertify", SET, "--against", ""], "--against '': not a commit"),
    (["recertify", SET, "--against=--all"], "not a commit"),
    (["recertify", SET, "--sample", "-1"], "--sample must be a whole number from 0 to 24"),
    (["recertify", SET, "--sample", "25"], "--sample must be"),
    (["recertify", SET, "--sample", HUGE], "--sample must be"),
    (["recertify", SET, "--sample", "1.5"], "--sample must be"),
    # unusable folders
    (["list", "--root", "{file}"], "not a folder"),
    (["status", "--root", "{file}"], "not a folder"),
    (["stale", "--root", "{file}"], "not a folder"),
    (["status", "--root", "{missing}"], "no such folder"),
    (["stale", "--root", "{missing}"], "no such folder"),
    (["status", "--root", ""], "--root is empty"),
    (["status", "--root", "{dir}/" + "a" * 5000], "File name too long"),
    ([*SHARD, "--root", "{file}"], "not a folder"),
    ([*SHARD, "--root", "{file}/sub"], "a part of it is not a folder"),
    ([*SHARD, "--root", ""], "--root is empty"),
    (["compare", "two_layer", "swing_by_d", "--root", "{file}"], "not a folder"),
    (["compare", "two_layer", "swing_by_d", "--root", "{missing}"], "no such folder"),
    (["compare", "two_layer", "swing_by_d", "--root", "{dir}", "--reference", "{file}"], "--reference"),
    (["compare", "two_layer", "swing_by_d", "--root", "{dir}", "--reference", "{missing}"], "no such folder"),
    (["recertify", SET, "--root", "{file}"], "not a folder"),
    (["recertify", SET, "--root", "{missing}"], "no such folder"),
    # malformed command lines: argparse's refusals, abbreviations refused
    ([], "required: command"),
    (["nosuch"], "invalid choice: 'nosuch'"),
    (["no\nsuch"], "invalid choice: 'no\\nsuch'"),
    (["shard"], "required: chapter, set, shard_id"),
    (["compare", "two_layer", "swing_by_d"], "required: --root"),
    ([*SHARD, "--thr", "2"], "unrecognized arguments: --thr 2"),
    (["recertify", SET, "--samp", "1"], "unrecognized arguments: --samp"),
    (["status", "--smo"], "unrecognized arguments: --smo"),
    (["list", "a", "b"], "unrecognized arguments: b"),
]


@pytest.fixture
def no_work(monkeypatch):
    """Computing, comparing or certifying anything fails the test: a bad input is refused before."""

    def refuse(*args, **kwargs):
        raise AssertionError("work started on a bad input")

    for module, name in (("run", "run_shard"), ("certify", "recertify"), ("load", "compare")):
        monkeypatch.setattr(importlib.import_module(f"lib.book.evidence.{module}"), name, refuse)


def filled(argv, tmp_path):
    (tmp_path / "file").write_text("")
    places = {"{file}": tmp_path / "file", "{dir}": tmp_path, "{missing}": tmp_path / "missing"}
    for token, path in places.items():
        argv = [arg.replace(token, str(path)) for arg in argv]
    return argv


@pytest.mark.parametrize(("argv", "named"), BAD, ids=[" ".join(a)[:60] for a, _ in BAD])
def test_a_bad_input_is_refused_with_one_line_and_exit_code_2(argv, named, tmp_path, capsys, no_work):
    assert main(filled(argv, tmp_path)) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("error: ") and err.count("\n") == 1, err
    assert named in err and "Traceback" not in err and len(err) < 600, err


@pytest.mark.parametrize("argv", [["list", "nosuch"], [*SHARD, "--threads", "0"], ["status", "--smo"]])
def test_python_m_lib_evidence_refuses_them_too(argv, lib_command, no_work):
    done = lib_command("evidence", *argv)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and done.stderr.startswith("error: "), done


def test_the_refusal_of_a_process_is_one_line_without_a_traceback():
    from lib.util.paths import ROOT

    argv = [sys.executable, "-m", "lib", "evidence", "shard", "two_layer", "swing_by_d", "nosuch", "--smoke"]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2 and done.stdout == "", done
    assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1, done.stderr


def test_good_inputs_reach_the_work(tmp_path, monkeypatch, capsys):
    """The checks refuse nothing valid: a shard into a folder still to be made, threads with spaces around, a commit,
    a sample, as the workflow and the README write them."""
    from lib.book.evidence import certify
    from lib.book.evidence import run as run_module

    calls = []
    monkeypatch.setattr(run_module, "run_shard", lambda *args: calls.append(args) or tmp_path / "shard")
    monkeypatch.setattr(certify, "recertify", lambda *args: calls.append(args) or ([], []))
    new = tmp_path / "new" / "evidence"
    assert main([*SHARD, "--root", str(new), "--threads", " 2 ", "--gpu"]) == 0
    evidence_set, sid, variant, root, threads, gpu = calls.pop()
    assert (evidence_set.key, sid, variant, root, threads, gpu) == (SET, "d-2__block-0", "smoke", new, 2, True)
    assert (
        main(["recertify", SET, "--sample", "24", "--threads", "3", "--against", "HEAD", "--root", str(tmp_path)]) == 0
    )
    assert calls.pop()[1:] == (24, tmp_path, 3, "HEAD")
    assert main(["recertify", SET]) == 0 and calls.pop()[1:] == (0, None, 1, None)
    assert main(["list", "two_layer,sim_observations/swing"]) == 0
    assert SET in capsys.readouterr().out


def test_the_parser_takes_no_abbreviation_and_refuses_in_one_line():
    from lib.book.chapters.declaration import ParameterError
    from lib.book.commands.arguments import OneLineParser, whole_number

    parser = OneLineParser(prog="p")
    parser.add_argument("--threads")
    with pytest.raises(ParameterError, match=r"^p: unrecognized arguments: --thr 2 \(`p -h` lists the arguments\)$"):
        parser.parse_args(["--thr", "2"])
    with pytest.raises(ParameterError) as refused:
        parser.parse_args(["x\ny" * 1000])
    assert "\n" not in str(refused.value) and len(str(refused.value)) < 400
    assert whole_number("--n", " 07 ", 0, 10) == 7 and whole_number("--n", "007", 0, 10) == 7
    for text in ("11", "-1", "0011", HUGE, "0" * 5000 + "7", "٣", "+7", "7.0"):
        with pytest.raises(ParameterError, match="--n must be a whole number from 0 to 10"):
            whole_number("--n", text, 0, 10)
