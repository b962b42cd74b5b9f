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


def cache_dir(*parts: str, create: bool = True) -> Path:
    """A folder for recomputable results of the caller (`.cache/PARTS` unless LIB_CACHE_DIR is set), created
    unless `create` is false (to look whether it holds anything)."""
    path = Path(os.environ.get(CACHE_DIR_ENV, ROOT / ".cache")).joinpath(*parts)
    if create:
        path.mkdir(parents=True, exist_ok=True)
    return path
