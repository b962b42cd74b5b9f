"""Which evidence sets exist. The evidence store does not know the chapters: whoever declares sets registers
where they come from with `declare_source` (the chapter declarations, `lib/book/chapters`, register theirs when
imported; the command lines and the workflow import them first)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from lib.book.evidence.declare import EvidenceSet

_SOURCES: list[Callable[[], Iterable[EvidenceSet]]] = []


def declare_source(source: Callable[[], Iterable[EvidenceSet]]) -> None:
    """Register `source`, a function returning declared sets (called anew on every lookup, so that a
    declaration edited and reloaded is seen); registering the same function twice keeps one."""
    if source not in _SOURCES:
        _SOURCES.append(source)


def all_sets() -> list[EvidenceSet]:
    """Every declared set of every registered source, in their order."""
    if not _SOURCES:
        raise LookupError(
            "no evidence sets are declared in this process: import the chapter declarations first (import lib.book.chapters)"
        )
    found = [evidence_set for source in _SOURCES for evidence_set in source()]
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
