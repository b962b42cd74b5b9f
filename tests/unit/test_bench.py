"""lib/book/commands/bench.py: the timed phases of `make bench`."""

import pytest

from lib.book.commands.bench import _timed, fresh_clone_environment


def test_a_failed_build_phase_says_why(tmp_path):
    """`make bench` times a fresh clone's build; a phase that fails names its command and shows its output."""
    assert _timed(["true"], tmp_path) >= 0
    with pytest.raises(RuntimeError, match=r"(?s)sh -c echo broken; exit 3 failed .* exit code 3:\nbroken"):
        _timed(["sh", "-c", "echo broken; exit 3"], tmp_path)


def test_a_fresh_clone_is_built_with_its_own_code_and_settings():
    env = fresh_clone_environment({"PATH": "/bin", "PYTHONPATH": "/work/main", "LIB_THREADS": "2", "MAKEFLAGS": "-j"})
    assert env == {"PATH": "/bin"}
