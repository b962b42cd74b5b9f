"""What every unit test shares: torch on one thread (the matmuls are tiny, and on the shared 2-core machine a
second thread only adds contention: measured 30x slower under load), `lib_command` (the command line in this
process) and the order of the modules (those with a test marked slow first)."""

import subprocess

import pytest
import torch

import lib.book.chapters  # noqa: F401  registers every chapter's evidence sets, as `python -m lib` does


@pytest.fixture(autouse=True, scope="session")
def one_torch_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture
def lib_command(capsys):
    """`python -m lib ARGS` run in this process: `lib.book.commands.main.main`, which `lib/__main__.py` calls, as a
    CompletedProcess (exit code, stdout, stderr). A `python -m lib` process imports for seconds; the process
    route itself is checked once (test_runner.py)."""
    from lib.book.commands.main import main

    def run(*args: str) -> subprocess.CompletedProcess:
        try:
            code = main(list(args))
        except SystemExit as err:  # argparse's own exits (--help, a usage error)
            code = err.code
        out = capsys.readouterr()
        return subprocess.CompletedProcess(list(args), code, out.out, out.err)

    return run


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules that hold a test marked `slow(SECONDS)` first, the slowest first, each kept whole (its module
    fixtures are made once). Under `-n 2 --dist worksteal` (make test) the first worker starts with them, the second
    with the rest, and whichever runs out takes half of what the other has left, from its end: short tests. A run
    of seconds left for the end would hold one worker while the other waits (the workers ended 40 s apart)."""
    seconds: dict = {}
    for item in items:
        if (mark := item.get_closest_marker("slow")) is not None:
            seconds[item.module] = max(seconds.get(item.module, 0), *mark.args)
    items.sort(key=lambda item: -seconds.get(getattr(item, "module", None), 0))  # stable (an nbval cell: no module)
