"""lib/book/commands/bench.py: the timed phases of `make bench`."""

import pytest

from lib.book.commands.bench import _timed


def test_a_failed_build_phase_says_why(tmp_path):
    """`make bench` times a fresh clone's build; a phase that fails names its command and shows its output."""
    assert _timed(["true"], tmp_path) >= 0
    with pytest.raises(RuntimeError, match=r"(?s)sh -c echo broken; exit 3 failed .* exit code 3:\nbroken"):
        _timed(["sh", "-c", "echo broken; exit 3"], tmp_path)
