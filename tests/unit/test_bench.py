"""lib/book/commands/bench.py: the timed phases of `make bench`."""

import pytest

from lib.book.commands.bench import _timed, cpu_list_size, cpu_ticks, fresh_clone_environment, matmul_gflops


def test_a_failed_build_phase_says_why(tmp_path):
    """`make bench` times a fresh clone's build; a phase that fails names its command and shows its output."""
    assert _timed(["true"], tmp_path).wall >= 0
    with pytest.raises(RuntimeError, match=r"(?s)sh -c echo broken; exit 3 failed .* exit code 3:\nbroken"):
        _timed(["sh", "-c", "echo broken; exit 3"], tmp_path)


def test_a_fresh_clone_is_built_with_its_own_code_and_settings():
    env = fresh_clone_environment({"PATH": "/bin", "PYTHONPATH": "/work/main", "LIB_THREADS": "2", "MAKEFLAGS": "-j"})
    assert env == {"PATH": "/bin"}


def test_a_phase_counts_the_cpu_seconds_of_its_processes_and_the_host_its_stolen_time(tmp_path):
    """`make bench` reports each phase's CPU seconds and the machine's busy core-seconds beside its wall time, and
    the hypervisor's share of the machine meanwhile, so that timings from hosts of different speed or load can be
    told apart."""
    busy = _timed(
        ["python3", "-c", "import time; t = time.process_time()\nwhile time.process_time() - t < 0.3: pass"], tmp_path
    )
    assert busy.cpu >= 0.25 and busy.wall >= busy.cpu * 0.5
    assert busy.busy >= 0.2  # the machine's busy core-seconds count it too (and whatever else ran meanwhile)
    assert cpu_ticks("cpu  10 1 5 80 2 0 1 3 0 0\ncpu0 10 1 5 80 2 0 1 3 0 0\n") == (102, 3, 17)
    assert cpu_ticks("intr 1 2\n") is None
    assert [cpu_list_size(t) for t in ("0\n", "0-1", "0,4", "0-3,8-11")] == [1, 2, 2, 8]


def test_the_hosts_speed_is_a_matmul_on_the_threads_asked_for_and_leaves_the_threads_as_they_were():
    """The build phases carry the host's own speed before and after them (a host's speed drifts)."""
    import torch

    threads = torch.get_num_threads()
    rate = matmul_gflops(size=64, repeats=2, threads=1)
    assert 0 < rate < float("inf") and torch.get_num_threads() == threads
