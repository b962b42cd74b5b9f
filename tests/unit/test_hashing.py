"""The digests stored in provenance records (lib.util.hashing) are pinned: a change of serialisation would make
every stored record stale, so the exact bytes hashed are fixed here."""

import json
import math

import pytest

from lib.book.evidence.declare import config_hash
from lib.util.hashing import canonical_json, json_sha256
from lib.util.paths import ROOT

VALUE = {"b": [1, 2.5, "x"], "a": {"z": None, "y": True}}


def test_the_two_serialisations_and_their_digests_are_pinned():
    assert canonical_json(VALUE) == '{"a":{"y":true,"z":null},"b":[1,2.5,"x"]}'
    assert json_sha256(VALUE) == "e36f9aaa907c2cb2dbd1d400d8513ff9727255ca0e049dc6224919173315ee62"
    # code fingerprints: json.dumps's own separators
    assert json_sha256(VALUE, spaced=True) == "70d03823b2821be7a8b7c19b7f96b219122f8f9b14d544956b99ef354152eff5"


@pytest.mark.parametrize("spaced", [False, True])
def test_values_that_are_not_json_are_refused(spaced):
    with pytest.raises(ValueError):
        json_sha256({"x": math.nan}, spaced=spaced)


def test_a_stored_shard_s_config_hash_is_recomputed_from_its_config():
    stored = next((ROOT / "data" / "evidence" / "geneft_statics" / "decoder_modes").glob("*/provenance.json"))
    record = json.loads(stored.read_text())
    assert config_hash(record["config"]) == record["config_hash"]
