"""nbval of every chapter at its smoke parameters against the committed reference notebooks.

Each `ID.ipynb` here is the chapter executed by `python -m lib refs ID` (or `make refs`);
nbval re-executes it and compares the cells marked `# NBVAL_CHECK_OUTPUT`.
"""
import os
import tempfile

import pytest

collect_ignore_glob = ["*.failed.ipynb", ".staging-*"]

os.environ.setdefault("LIB_OUTPUT_DIR", tempfile.mkdtemp(prefix="nbval-metrics-"))
os.environ.setdefault("LIB_DRAFT_FIGURES", "1")  # figures drawn, not rendered to images: nbval compares none
os.environ["LIB_STORED_RESULTS"] = "live"  # no stored result is read: the checked outputs exercise the live code


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
