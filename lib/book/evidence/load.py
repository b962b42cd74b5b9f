"""The one way a chapter reads evidence: `load(chapter, set_name)`, which refuses anything it cannot trust.

Refused (EvidenceError, one paragraph naming the shard and the command that regenerates it): a
missing or half-written shard, an unreadable or edited arrays.npz or provenance.json, a shard
computed with another configuration (the keys that differ are named), and a shard whose code has
changed since (the functions, classes or constants it reaches that changed, or the versions, are
named; `python -m lib evidence recertify` can certify it for the new code). A shard from another
commit with the same code is trusted with a warning, once per set and commit.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from lib.book.evidence import registry
from lib.book.evidence.declare import EvidenceSet
from lib.book.evidence.store import (
    ShardState,
    _rel,
    check_shard,
    core_seconds,
    processor_text,
    regenerate_command,
    set_dir,
    shard_dir,
    with_arrays,
)

MAX_LISTED = 3
_warned: set[tuple[str, str, str]] = set()


class EvidenceError(RuntimeError):
    """Stored evidence that cannot be trusted; the message says why and how to regenerate it."""


class EvidenceCommitWarning(UserWarning):
    """Evidence computed at another commit whose code, as far as the fingerprint sees, is the same."""


@dataclass(frozen=True)
class Shard:
    key: dict[str, Any]
    id: str
    arrays: dict[str, np.ndarray]
    provenance: dict[str, Any]

    def __getitem__(self, name: str) -> np.ndarray:
        return self.arrays[name]


@dataclass(frozen=True)
class EvidenceData:
    """A loaded set: its declaration's config and one Shard per declared shard, in declared order."""

    evidence_set: EvidenceSet
    variant: str
    config: dict[str, Any]
    shards: tuple[Shard, ...]

    def __iter__(self) -> Iterator[Shard]:
        return iter(self.shards)

    def __len__(self) -> int:
        return len(self.shards)

    def where(self, **key: Any) -> list[Shard]:
        """Shards whose key matches every given `key=value`."""
        return [s for s in self.shards if all(s.key.get(k) == v for k, v in key.items())]

    def stack(self, name: str, **key: Any) -> np.ndarray:
        """Array `name` of the matching shards stacked on a new first axis."""
        return np.stack([s.arrays[name] for s in self.where(**key)])

    def concat(self, name: str, axis: int = 0, **key: Any) -> np.ndarray:
        """Array `name` of the matching shards concatenated along `axis` (e.g. blocks of seeds)."""
        return np.concatenate([s.arrays[name] for s in self.where(**key)], axis=axis)

    def core_hours(self) -> float:
        """The core-hours its shards took to compute (`core_seconds` of each provenance, summed): what the set
        cost on the processors that computed it (`summary` names them)."""
        return sum(core_seconds(s.provenance) for s in self.shards) / 3600.0

    def summary(self) -> dict[str, Any]:
        """Where and when the set was computed: commits, devices, processors (in words), threads, total wall
        seconds, dates."""
        prov = [s.provenance for s in self.shards]
        return {
            "set": self.evidence_set.key,
            "variant": self.variant,
            "shards": len(prov),
            "config_hash": prov[0]["config_hash"] if prov else None,
            "commits": sorted({p.get("commit", "unknown") for p in prov}),
            "devices": sorted({p.get("device", "?") for p in prov}),
            "processors": sorted({processor_text(p) for p in prov}),
            "threads": sorted({p.get("threads", 0) for p in prov}),
            "wall_seconds": round(sum(p.get("wall_seconds", 0.0) for p in prov), 2),
            "dates": [min(p.get("date", "") for p in prov), max(p.get("date", "") for p in prov)] if prov else [],
        }


def load(chapter: str, set_name: str, variant: str = "full", root: str | Path | None = None) -> EvidenceData:
    """Every shard of `chapter/set_name`, checked against the declaration; EvidenceError if any is not usable."""
    evidence_set = registry.get(chapter, set_name)
    states = [check_shard(evidence_set, sid, variant, root) for sid in evidence_set.shard_ids(variant)]
    return _usable(evidence_set, variant, states, root)


def _usable(evidence_set: EvidenceSet, variant: str, states: list[ShardState], root: str | Path | None) -> EvidenceData:
    """The set's data from its checked shards (arrays read); EvidenceError if any is not usable."""
    bad = [s for s in states if s.status != "ok"]
    if bad:
        raise EvidenceError(refusal(evidence_set, variant, bad, len(states), root))
    for commit in sorted({s.other_commit for s in states if s.other_commit}):
        if (evidence_set.key, variant, commit) not in _warned:
            _warned.add((evidence_set.key, variant, commit))
            n = sum(s.other_commit == commit for s in states)
            warnings.warn(
                f"evidence {evidence_set.key} ({variant}): {n} of {len(states)} shards were computed at "
                f"commit {commit[:12]}, not at the current HEAD; their code fingerprint matches, so they "
                "are used",
                EvidenceCommitWarning,
                stacklevel=3,
            )
    return EvidenceData(
        evidence_set,
        variant,
        evidence_set.variant_config(variant),
        tuple(Shard(evidence_set.shard_by_id(s.sid, variant), s.sid, s.arrays, s.provenance) for s in states),
    )


# Only these may fall back to the smoke variant: a set still being computed. Anything else (a corrupt,
# edited or stale shard) is refused, so that a damaged checkout never turns into other verdicts.
STILL_COMPUTING = ("missing", "incomplete")


@dataclass(frozen=True)
class Available:
    """What `load_or_smoke` found: the data to show, and why it is the smoke variant (None when full)."""

    data: EvidenceData
    pending: str | None
    missing: int = 0  # shards still to compute (0 when the full set is loaded)

    @property
    def complete(self) -> bool:
        return self.pending is None


def load_or_smoke(chapter: str, set_name: str, variant: str = "full", root: str | Path | None = None) -> Available:
    """The full set when every shard is usable; its smoke variant when shards are only missing (still computing).

    A corrupt, edited, stale or mismatched shard raises EvidenceError, as `load` does: only a set
    that is incomplete may be shown through its test-size smoke variant, and `pending` then says,
    for the page and the console, how many shards are missing.
    """
    if variant == "smoke":
        return Available(load(chapter, set_name, "smoke", root), "the smoke variant was asked for")
    evidence_set = registry.get(chapter, set_name)
    states = [check_shard(evidence_set, sid, variant, root, read=False) for sid in evidence_set.shard_ids(variant)]
    bad = [s for s in states if s.status != "ok"]
    if not bad:  # every shard checked: only its arrays are left to read
        return Available(
            _usable(evidence_set, variant, [with_arrays(s, evidence_set, variant, root) for s in states], root), None
        )
    if any(s.status not in STILL_COMPUTING for s in bad):
        return Available(load(chapter, set_name, variant, root), None)
    pending = f"{len(bad)} of {len(states)} shards of {evidence_set.key} are not computed yet"
    return Available(load(chapter, set_name, "smoke", root), pending, len(bad))


def refusal(evidence_set: EvidenceSet, variant: str, bad: list[ShardState], total: int, root: str | Path | None) -> str:
    """One paragraph: which shards, why, and the command that regenerates them."""
    listed = "; ".join(f"shard {s.sid} ({s.status}): {s.problem}" for s in bad[:MAX_LISTED])
    more = f"; and {len(bad) - MAX_LISTED} more" if len(bad) > MAX_LISTED else ""
    target = _rel(shard_dir(evidence_set, bad[0].sid, variant, root) / "provenance.json")
    return (
        f"evidence {evidence_set.key} ({variant}, {_rel(set_dir(evidence_set, variant, root))}) cannot be used: "
        f"{len(bad)} of {total} shards are not usable. {listed}{more}. Nothing from this set is trusted. "
        f"Regenerate it with `{regenerate_command(evidence_set, variant)}` (one shard: "
        f"`.venv/bin/snakemake -f{' --config variant=smoke' if variant == 'smoke' else ''} {target}`"
        "); `python -m lib evidence status` lists every set."
    )


def compare(
    chapter: str,
    set_name: str,
    variant: str,
    root: str | Path,
    reference_root: str | Path | None = None,
    shard_ids: list[str] | None = None,
    stored_code: bool = True,
) -> list[str]:
    """Differences between the shards under `root` and the stored ones (data/evidence unless given),
    all shards of the variant or `shard_ids`, within the set's declared rtol/atol (0: bitwise).
    An empty list: they agree. A shard that is not usable on either side is a difference; without
    `stored_code`, a stored shard of other code is compared too (to re-certify it)."""
    evidence_set = registry.get(chapter, set_name)
    exact = evidence_set.rtol == 0 and evidence_set.atol == 0
    problems = []
    for sid in shard_ids or evidence_set.shard_ids(variant):
        new = check_shard(evidence_set, sid, variant, root)
        ref = check_shard(evidence_set, sid, variant, reference_root, code=stored_code)
        if bad := [
            f"{side}: {s.status}, {s.problem}" for side, s in (("new", new), ("stored", ref)) if s.status != "ok"
        ]:
            problems.append(f"shard {sid}: " + "; ".join(bad))
            continue
        if set(new.arrays) != set(ref.arrays):
            problems.append(f"shard {sid}: arrays {sorted(new.arrays)} vs stored {sorted(ref.arrays)}")
            continue
        for name in sorted(new.arrays):
            x, y = new.arrays[name], ref.arrays[name]
            same = (
                x.shape == y.shape
                and x.dtype == y.dtype
                and (
                    np.array_equal(x, y, equal_nan=x.dtype.kind in "fc")
                    if exact
                    else np.allclose(x, y, rtol=evidence_set.rtol, atol=evidence_set.atol, equal_nan=True)
                )
            )
            if not same:
                problems.append(
                    f"shard {sid}: array {name!r} differs from the stored one "
                    f"({'bitwise' if exact else f'rtol={evidence_set.rtol}, atol={evidence_set.atol}'})"
                )
    return problems
