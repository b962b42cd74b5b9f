"""Where things live: the repository, the caches, the stored evidence. No other module hard-codes a path.

Caches hold recomputable results only (trained models, checkpoints); every cache key carries a
code fingerprint (`lib.util.fingerprint`), so an edit of the code recomputes instead of reusing.
`make clean-cache` (or deleting the folder) clears them. Evidence (`data/evidence/`) is committed
and never written by the book build.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
DATA = ROOT / "data"
EVIDENCE = DATA / "evidence"
CACHE_DIR_ENV = "LIB_CACHE_DIR"
# the repository's folders of sources and committed data: no run, cache or page writes into them (book/chapters,
# where the book's runs go, excepted by lib.book.run.outputs)
SOURCE_FOLDERS = (".git", ".ci", "lib", "tests", "notebooks", "data", "book", "workflow", "benchmarks", "config")
# the Cache Directory Tagging convention (https://bford.info/cachedir/): backup tools skip a folder holding it, and
# `make clean-cache` removes a LIB_CACHE_DIR only when it holds one
CACHE_TAG = "CACHEDIR.TAG"
CACHE_TAG_TEXT = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This folder holds recomputable caches of the book (lib.util.paths.cache_dir); make clean-cache removes it.\n"
)


def cache_dir(*parts: str, create: bool = True) -> Path:
    """A folder for recomputable results of the caller (`.cache/PARTS` unless LIB_CACHE_DIR is set), created
    unless `create` is false (to look whether it holds anything). A cache root made here (or found empty) is tagged
    (CACHE_TAG); a folder that already held files is not, so that `make clean-cache` never takes it for a cache."""
    root = Path(os.environ.get(CACHE_DIR_ENV, ROOT / ".cache"))
    path = root.joinpath(*parts)
    if create:
        fresh = not root.exists() or not any(root.iterdir())  # never tag a folder of other files as a cache
        path.mkdir(parents=True, exist_ok=True)
        if fresh and not (root / CACHE_TAG).exists():
            (root / CACHE_TAG).write_text(CACHE_TAG_TEXT)  # the same text from every writer: no torn tag matters
    return path


def source_folder_of(path: str | os.PathLike) -> str | None:
    """The part of the repository `path` lies in: "." for the root itself, a SOURCE_FOLDERS entry for a path inside
    one; None elsewhere (ignored folders such as .cache, runs, _build; outside the repository)."""
    try:
        relative = Path(os.path.realpath(path)).relative_to(os.path.realpath(ROOT))
    except ValueError:
        return None
    if relative == Path("."):
        return "."
    return relative.parts[0] if relative.parts[0] in SOURCE_FOLDERS else None
