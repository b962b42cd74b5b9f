"""An evidence set, declared once next to its chapter: what computes it, with which configuration, in which shards.

A set is a configuration (JSON-able, hashed) and a list of shards (small dicts, e.g. {"d": 4, "block": 2});
one shard is one job of the workflow and one folder `data/evidence/CHAPTER/SET/SHARD_ID/`. The smoke
variant of a set is the same computation at a size a test can afford: config overrides and/or fewer
shards, stored beside the full set under `.../SET/smoke/SHARD_ID/`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from lib.util.hashing import canonical_json, json_sha256

VARIANTS = ("full", "smoke")
UNHASHED_KEYS = ("device",)  # where a shard ran is provenance, not configuration
_ID_VALUE = re.compile(r"^[A-Za-z0-9_.+-]+$")

# ----------------------------------------------------------------------------------------------
# Configuration hashes, shard ids
# ----------------------------------------------------------------------------------------------


def config_hash(config: Mapping[str, Any]) -> str:
    """sha256 of the canonical JSON of `config` without the keys that say where it ran (`device`)."""
    hashed = {k: v for k, v in config.items() if k not in UNHASHED_KEYS}
    return json_sha256(hashed)


def shard_id(shard: Mapping[str, Any]) -> str:
    """Folder name of a shard: `key-value` pairs in declared order, joined by `__` (`d-4__block-2`).

    No `=` or `,`: Snakemake passes wildcards to cluster jobs as `rule:name=value,...`."""
    parts = []
    for key, value in shard.items():
        text = json.dumps(value) if isinstance(value, bool) else str(value)
        if not (_ID_VALUE.match(str(key)) and _ID_VALUE.match(text)):
            raise ValueError(f"shard {dict(shard)}: keys and values must be plain names or numbers, got {key}={text}")
        parts.append(f"{key}-{text}")
    return "__".join(parts)


def differing_keys(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    """Top-level keys whose values differ (or exist on one side only), sorted."""
    return sorted(
        k for k in set(a) | set(b) if k not in UNHASHED_KEYS and canonical_json(a.get(k)) != canonical_json(b.get(k))
    )


# ----------------------------------------------------------------------------------------------
# The declaration
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EvidenceSet:
    """One evidence set of a chapter.

    function: "lib.pkg.module:func" with the shard interface
        func(config: dict, shard: dict, checkpoint: pathlib.Path | None = None) -> dict[str, np.ndarray]
    config: the set's configuration (JSON-able); its hash is checked on every load.
    shards: the shard keys, one job each (a folder `key-value__key-value` each).
    smoke: {"config": overrides, "shards": [...]} for the test-size variant (either key optional;
        no "shards" means the first full shard).
    threads, gpu, minutes, mem_mb: resources of ONE full shard (minutes on one CPU core, an estimate).
        A set declared gpu is computed on another machine with its own package versions: locally its
        shards are checked by their code only (see lib.util.fingerprint), the versions stay in provenance.
    rtol, atol: tolerance when a regenerated shard is compared with the stored one (0: bitwise).
    """

    chapter: str
    name: str
    function: str
    config: Mapping[str, Any]
    shards: Sequence[Mapping[str, Any]]
    smoke: Mapping[str, Any] = field(default_factory=dict)
    threads: int = 1
    gpu: bool = False
    minutes: float = 1.0
    mem_mb: int = 2000
    rtol: float = 0.0
    atol: float = 0.0
    description: str = ""

    def __post_init__(self):
        if not re.match(r"^[a-z0-9_]+$", self.name):
            raise ValueError(f"evidence set name {self.name!r}: lowercase letters, digits and _ only")
        if ":" not in self.function:
            raise ValueError(f"evidence set {self.key}: function must be 'module:name', got {self.function!r}")
        if unknown := set(self.smoke) - {"config", "shards"}:
            raise ValueError(f"evidence set {self.key}: smoke takes 'config' and 'shards', got {sorted(unknown)}")
        for variant in VARIANTS:
            ids = [shard_id(s) for s in self.variant_shards(variant)]
            if not ids or len(set(ids)) != len(ids):
                raise ValueError(f"evidence set {self.key} ({variant}): shards must be non-empty and distinct")
        canonical_json(self.variant_config("smoke"))  # JSON-able, no NaN
        if self.threads < 1 or not math.isfinite(self.minutes) or self.minutes <= 0:
            raise ValueError(f"evidence set {self.key}: threads >= 1 and minutes > 0 required")

    @property
    def key(self) -> str:
        """`chapter/name`, how the workflow and the CLI name the set."""
        return f"{self.chapter}/{self.name}"

    def variant_config(self, variant: str = "full") -> dict[str, Any]:
        """The configuration of the full set, or with the smoke overrides applied."""
        _check_variant(variant)
        return {**self.config, **(self.smoke.get("config", {}) if variant == "smoke" else {})}

    def variant_shards(self, variant: str = "full") -> list[dict[str, Any]]:
        _check_variant(variant)
        if variant == "smoke":
            return [dict(s) for s in self.smoke.get("shards", self.shards[:1])]
        return [dict(s) for s in self.shards]

    def shard_ids(self, variant: str = "full") -> list[str]:
        return [shard_id(s) for s in self.variant_shards(variant)]

    @cached_property
    def _shards_by_id(self) -> dict[str, dict[str, Mapping[str, Any]]]:
        """{variant: {shard id: shard}}, built once (a set is looked up shard by shard on every load)."""
        return {variant: {shard_id(s): s for s in self.variant_shards(variant)} for variant in VARIANTS}

    def shard_by_id(self, sid: str, variant: str = "full") -> dict[str, Any]:
        _check_variant(variant)
        if sid in self._shards_by_id[variant]:
            return dict(self._shards_by_id[variant][sid])
        raise KeyError(
            f"evidence set {self.key} ({variant}) has no shard {sid!r}; shards: "
            f"{', '.join(self.shard_ids(variant)[:8])}{' ...' if len(self.shards) > 8 else ''}"
        )

    def estimated_minutes(self, variant: str = "full") -> float:
        """Single-core minutes of the whole variant (smoke: a tenth of a minute per shard, a guess)."""
        return self.minutes * len(self.shards) if variant == "full" else 0.1 * len(self.variant_shards("smoke"))


def _check_variant(variant: str) -> None:
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
