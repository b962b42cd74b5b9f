"""Which declared shards are present, usable, stale or missing (`python -m lib evidence status`)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from lib.book.evidence import registry
from lib.book.evidence.run import begun_cpu_seconds
from lib.book.evidence.store import PROVENANCE, check_shard, processor_text, regenerate_command, shard_dir

STALE = ("config", "shard", "code", "corrupt", "incomplete")


def status(
    sets: str | None = None, variant: str = "full", root: str | Path | None = None, read: bool = True
) -> list[dict]:
    """One row per set: counts per shard state, how its certified shards were certified, the processors
    its shards were computed on, the estimated minutes (of the whole set, and of the shards not ok), the shards not
    ok whose interrupted runs saved state in this checkout's cache ("begun": the CPU seconds spent on each, which
    `make evidence` resumes first) and the regenerating command.

    Every npz is read (a pickled or mis-shaped array is "corrupt", not "ok"); `read=False` checks
    only the hashes and the recorded fields."""
    rows = []
    for evidence_set in registry.select(sets, gpu=True):
        states = [check_shard(evidence_set, sid, variant, root, read=read) for sid in evidence_set.shard_ids(variant)]
        counts = dict(Counter(s.status for s in states))
        saved = {s.sid: begun_cpu_seconds(evidence_set, s.sid, variant) for s in states if s.status != "ok"}
        rows.append(
            {
                "set": evidence_set.key,
                "variant": variant,
                "shards": len(states),
                "counts": counts,
                "other_commit": sum(bool(s.other_commit) for s in states),
                "certified": dict(Counter(s.certified for s in states if s.status == "ok" and s.certified)),
                "processors": sorted({processor_text(s.provenance) for s in states if s.provenance}),
                "minutes": evidence_set.estimated_minutes(variant),
                "minutes_to_go": evidence_set.estimated_minutes(variant)
                * (1 - counts.get("ok", 0) / max(len(states), 1)),
                "threads": evidence_set.threads,
                "gpu": evidence_set.gpu,
                "command": regenerate_command(evidence_set, variant),
                "problems": [f"{s.sid} ({s.status}): {s.problem}" for s in states if s.status != "ok"],
                "begun": {sid: seconds for sid, seconds in saved.items() if seconds is not None},
            }
        )
    return rows


def stale_targets(
    sets: str | None = None, variant: str = "full", root: str | Path | None = None, gpu: bool = False
) -> list[Path]:
    """provenance.json paths of shards that exist but do not match their declaration (to force-rerun).

    With `sets` "all", the sets declared for a GPU only under `gpu` (as the workflow selects them).
    """
    targets = []
    for evidence_set in registry.select(sets, gpu=gpu):
        for sid in evidence_set.shard_ids(variant):
            if check_shard(evidence_set, sid, variant, root, read=False).status in STALE:
                targets.append(shard_dir(evidence_set, sid, variant, root) / PROVENANCE)
    return targets
