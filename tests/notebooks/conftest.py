"""nbval of every chapter at its smoke parameters against the committed reference notebooks.

Each `ID.ipynb` here is the chapter executed by `python -m lib refs ID` (or `make refs`);
nbval re-executes it and compares the cells marked `# NBVAL_CHECK_OUTPUT`.
"""
import atexit
import os
import shutil
import tempfile
import uuid

import nbval.kernel
import pytest
from traitlets import default

from lib.book.run.runner import kernel_socket_folder
from lib.book.run.warm_kernels import WarmKernelManager

collect_ignore_glob = ["*.failed.ipynb", ".staging-*"]

# The chapters' metrics (ID.metrics.json): a folder of their own, or LIB_OUTPUT_DIR read from the folder pytest was
# started in (make: the repository's root, `_build/nbval-generic`), not from the kernel's (this folder, in the source
# tree, where a chapter refuses to write)
if os.environ.get("LIB_OUTPUT_DIR", "").strip():
    os.environ["LIB_OUTPUT_DIR"] = os.path.abspath(os.path.expanduser(os.environ["LIB_OUTPUT_DIR"].strip()))
else:
    os.environ["LIB_OUTPUT_DIR"] = tempfile.mkdtemp(prefix="nbval-metrics-")
os.environ.setdefault("LIB_DRAFT_FIGURES", "1")  # figures drawn, not rendered to images: nbval compares none
os.environ["LIB_STORED_RESULTS"] = "live"  # no stored result is read: the checked outputs exercise the live code

_SOCKETS = kernel_socket_folder()
atexit.register(shutil.rmtree, _SOCKETS, ignore_errors=True)


class LocalSocketKernelManager(WarmKernelManager):
    """nbval's kernels as `lib run`'s (lib/book/run/runner.py): forked from a warm template (`WarmKernelManager`),
    and on local (Unix) sockets (`_kernel_sockets`): no TCP port to lose to another process's connections between
    jupyter_client's choice and the kernel's bind."""

    @default("transport")
    def _default_transport(self) -> str:
        return "ipc"

    @default("ip")
    def _default_ip(self) -> str:
        return os.path.join(_SOCKETS, uuid.uuid4().hex[:8])


nbval.kernel.KernelManager = LocalSocketKernelManager  # nbval takes no kernel manager of its own


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed and str(item.fspath).endswith(".ipynb"):
        chapter = os.path.basename(str(item.fspath))[: -len(".ipynb")]
        report.sections.append((
            "stale reference?",
            f"The reference tests/notebooks/{chapter}.ipynb no longer matches the chapter. If the change is "
            f"intended, regenerate it with `make refs` (or `.venv/bin/python -m lib refs {chapter}`) and commit it.",
        ))
