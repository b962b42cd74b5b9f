"""The command line explains itself: `lib run --help`, `lib list ID`, `lib claims`, `lib page`, `lib params`."""

import pytest

from lib.book.chapters import chapter_ids


def test_run_help_lists_every_option_and_the_chapters(lib_command):
    done = lib_command("run", "--help")
    assert done.returncode == 0
    for option in ("-p NAME VALUE", "-y YAML", "--output-dir", "--html", "--threads", "--allow-expensive"):
        assert option in done.stdout, option
    flat = " ".join(done.stdout.split())
    assert all(chapter_id in flat for chapter_id in chapter_ids())


def test_list_one_chapter_shows_parameters_and_the_claims_they_reach(lib_command):
    done = lib_command("list", "diffusion")
    assert done.returncode == 0 and done.stdout.startswith("diffusion:") and "one_layer:" not in done.stdout
    assert "claims read from stored evidence (ignore -p): " in done.stdout and "S-6/generalises-long-0_2" in done.stdout
    assert "claims computed live" in done.stdout
    done = lib_command("list", "sim_observations")
    assert "threshold of:" in done.stdout  # a condition that names a parameter
    assert lib_command("list", "nosuch").returncode == 2


def test_page_and_params_exit_codes(tmp_path, lib_command):
    done = lib_command("page", str(tmp_path / "missing.ipynb"))
    assert done.returncode == 2 and "no such notebook" in done.stderr
    assert lib_command("params", "--check").returncode == 0


def test_main_help_documents_the_exit_codes(lib_command):
    done = lib_command("--help")
    assert "Exit codes: 0 success" in done.stdout and "(`claims`)" in done.stdout


def test_a_failing_cell_is_one_line_naming_its_error(monkeypatch, tmp_path, capsys):
    """A chapter that stops (a corrupt shard, say) reports the cell's error in one line, exit 1."""
    from papermill.exceptions import PapermillExecutionError

    from lib.book.commands import main as cli
    from lib.book.run import runner

    def stop(*args, **kwargs):
        raise PapermillExecutionError(19, 19, "ev = load(...)", "EvidenceError", "shard x (corrupt)", [])

    monkeypatch.setattr(runner, "run_chapter", stop)
    assert cli.main(["run", "one_layer", "--output-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "stopped in cell 19: EvidenceError: shard x (corrupt)" in err


def test_the_readmes_run_examples_pass_every_check_before_any_compute(tmp_path):
    """Each `python -m lib run ...` command of the README, parsed as `lib run` parses it, passes the checks made
    before a kernel starts (names, values, joint rules, cost, output folder)."""
    import re
    import shlex

    from lib.book.commands.main import _parser, parse_overrides, split_parameters
    from lib.book.run.runner import validate_run
    from lib.util.paths import ROOT

    commands = [
        shlex.split(line, comments=True)[3:]
        for line in (ROOT / "README.md").read_text().splitlines()
        if re.match(r"(\.venv/bin/)?python -m lib run ", line)
    ]
    assert len(commands) >= 2
    for argv in commands:
        rest, pairs = split_parameters(argv)
        args = _parser().parse_args(rest)
        validate_run(args.chapter, parse_overrides(pairs, args.yaml), tmp_path, args.allow_expensive)


@pytest.mark.parametrize("command", [["list"], ["evidence", "list"]])
def test_a_pipe_closed_early_ends_the_command_quietly(command):
    """`lib list | head`, `lib evidence list | head`: no traceback when the reader stops reading; the shell's exit
    status for SIGPIPE."""
    import os
    import subprocess
    import sys

    from lib.util.paths import ROOT

    read_end, write_end = os.pipe()
    os.close(read_end)
    done = subprocess.run([sys.executable, "-m", "lib", *command], stdout=write_end, stderr=subprocess.PIPE, cwd=ROOT)
    os.close(write_end)
    assert done.returncode == 141 and done.stderr == b""
