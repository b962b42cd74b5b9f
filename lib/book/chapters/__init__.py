"""Registry of chapter declarations: `lib/book/chapters/ID.py` defines `CHAPTER` for chapter ID, and its evidence
sets as `EVIDENCE = (EvidenceSet(...), ...)`, which this package registers with the evidence store on import.

Chapters are listed in `_toc.yml`; `chapter_ids()` reads them from there so that the
toc, the Makefile and the runner can never disagree about which chapters exist.
"""

from __future__ import annotations

import importlib
import re

from lib.book.chapters.declaration import Chapter, ParameterError
from lib.book.evidence import registry
from lib.book.evidence.declare import EvidenceSet
from lib.util.paths import ROOT

TOC = ROOT / "_toc.yml"
_CHAPTER_FILE = re.compile(r"^\s*-?\s*file:\s*book/chapters/([a-z0-9_]+)\s*$", re.M)


def chapter_ids() -> list[str]:
    """Chapter ids in the order of `_toc.yml` (entries `file: book/chapters/ID`)."""
    return _CHAPTER_FILE.findall(TOC.read_text())


def load(chapter_id: str) -> Chapter:
    """The declaration of one chapter; a clear error for an unknown id."""
    if chapter_id not in chapter_ids():
        raise ParameterError(f"unknown chapter {chapter_id!r}; chapters: {', '.join(chapter_ids())}")
    return importlib.import_module(f"lib.book.chapters.{chapter_id}").CHAPTER


def evidence_sets() -> list[EvidenceSet]:
    """Every chapter's declared evidence sets, chapters in `_toc.yml` order; a set declared in another
    chapter's file is refused."""
    found: list[EvidenceSet] = []
    for chapter in chapter_ids():
        for evidence_set in getattr(importlib.import_module(f"lib.book.chapters.{chapter}"), "EVIDENCE", ()):
            if not isinstance(evidence_set, EvidenceSet) or evidence_set.chapter != chapter:
                raise ValueError(
                    f"lib/book/chapters/{chapter}.py: EVIDENCE must hold EvidenceSet(chapter={chapter!r}, ...), "
                    f"got {evidence_set!r:.120}"
                )
            found.append(evidence_set)
    return found


registry.declare_source(evidence_sets)
