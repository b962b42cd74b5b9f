"""Which evidence sets exist: each chapter declares its own in `lib/specs/ID.py` as `EVIDENCE = (EvidenceSet(...), ...)`."""

from __future__ import annotations

import importlib
from collections.abc import Iterable

from lib.evidence.declare import EvidenceSet


def all_sets() -> list[EvidenceSet]:
    """Every declared set, chapters in `_toc.yml` order."""
    from lib.specs import chapter_ids

    found: list[EvidenceSet] = []
    for chapter in chapter_ids():
        for evidence_set in getattr(importlib.import_module(f"lib.specs.{chapter}"), "EVIDENCE", ()):
            if not isinstance(evidence_set, EvidenceSet) or evidence_set.chapter != chapter:
                raise ValueError(
                    f"lib/specs/{chapter}.py: EVIDENCE must hold EvidenceSet(chapter={chapter!r}, ...), "
                    f"got {evidence_set!r:.120}"
                )
            found.append(evidence_set)
    keys = [s.key for s in found]
    if len(set(keys)) != len(keys):
        raise ValueError(f"evidence set declared twice: {sorted({k for k in keys if keys.count(k) > 1})}")
    return found


def get(chapter: str, name: str) -> EvidenceSet:
    """The declaration of `chapter/name`; a clear error naming the declared sets otherwise."""
    for evidence_set in all_sets():
        if (evidence_set.chapter, evidence_set.name) == (chapter, name):
            return evidence_set
    raise KeyError(f"no evidence set {chapter}/{name}; declared: {', '.join(s.key for s in all_sets()) or 'none'}")


def select(keys: str | Iterable[str] | None, gpu: bool = False) -> list[EvidenceSet]:
    """Sets named `chapter/name` or `chapter` (all its sets), comma-separated or a list.

    None or 'all': every set, except those declared for a GPU unless `gpu` (a GPU profile), so that
    `make evidence` never schedules GPU-sized work on a CPU; named sets are taken as named.
    """
    sets = all_sets()
    if keys is None or keys == "all" or keys == "":
        return [s for s in sets if gpu or not s.gpu]
    wanted = [k.strip() for k in (keys.split(",") if isinstance(keys, str) else keys) if k.strip()]
    chosen = [s for s in sets if s.key in wanted or s.chapter in wanted]
    unknown = [k for k in wanted if not any(k in (s.key, s.chapter) for s in sets)]
    if unknown:
        raise KeyError(f"unknown evidence set(s) {unknown}; declared: {', '.join(s.key for s in sets) or 'none'}")
    return chosen
