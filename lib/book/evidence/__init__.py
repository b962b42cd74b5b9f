"""The evidence tier: paper-scale results computed once by the Snakemake workflow (`workflow/`), stored under
`data/evidence/CHAPTER/SET/SHARD_ID/` with provenance, and read by the chapters through `load`.

Declare a set in `lib/book/chapters/CHAPTER.py` (`EVIDENCE = (EvidenceSet(...),)`), compute it with
`make evidence`, read it with `lib.book.evidence.load(chapter, name)`; after a change of the code a set
reaches, `python -m lib evidence recertify CHAPTER/SET` certifies it by a smoke recompute. See
/README.md, section Evidence.
"""

from lib.book.evidence.declare import EvidenceSet, config_hash, shard_id
from lib.book.evidence.load import (
    EvidenceCommitWarning,
    EvidenceData,
    EvidenceError,
    Shard,
    compare,
    load,
    load_or_smoke,
)
from lib.book.evidence.status import status

__all__ = [
    "EvidenceCommitWarning",
    "EvidenceData",
    "EvidenceError",
    "EvidenceSet",
    "Shard",
    "compare",
    "config_hash",
    "load",
    "load_or_smoke",
    "shard_id",
    "status",
]
