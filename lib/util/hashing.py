"""sha256 digests of JSON values, in the serialisations that stored provenance records were hashed in."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical_json(obj: Any) -> str:
    """JSON with sorted keys and no whitespace; NaN and infinities refused (they are not JSON)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


def json_sha256(obj: Any, *, spaced: bool = False) -> str:
    """sha256 (hex) of the JSON of `obj` with sorted keys: `canonical_json`, or with `spaced` `json.dumps`'s own
    separators (", " and ": "), the form code fingerprints are stored in (changing it would make every stored
    fingerprint stale). NaN and infinities are refused in both forms."""
    text = json.dumps(obj, sort_keys=True, allow_nan=False) if spaced else canonical_json(obj)
    return hashlib.sha256(text.encode()).hexdigest()
