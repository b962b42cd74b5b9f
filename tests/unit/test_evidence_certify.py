"""Re-certification of stored shards after a code change, the provenance's history, and what status shows."""

import dataclasses
import json
import shutil

import numpy as np
import pytest

from lib.book.commands.evidence import main
from lib.book.evidence import certify, registry, status, store
from lib.book.evidence import run as run_module
from lib.book.evidence.certify import recertify, sample_ids
from lib.book.evidence.run import run_shard
from lib.book.evidence.store import PROVENANCE, shard_dir
from lib.util import fingerprint
from lib.util.paths import EVIDENCE
from tests.unit.test_evidence import TINY

OLD = "0" * 16


@pytest.fixture
def stale(tmp_path, monkeypatch):
    """TINY (full and smoke) computed under tmp_path, then recorded as made by other code (fingerprint OLD)."""
    monkeypatch.setattr(registry, "all_sets", lambda: [TINY])
    for variant in ("full", "smoke"):
        for sid in TINY.shard_ids(variant):
            run_shard(TINY, sid, variant, root=tmp_path)
            edit(tmp_path, sid, variant, code_fingerprint=OLD)
    return tmp_path


def edit(root, sid, variant="full", **changes):
    path = shard_dir(TINY, sid, variant, root) / PROVENANCE
    provenance = json.loads(path.read_text())
    provenance.update(changes)
    path.write_text(json.dumps(provenance))
    return provenance


def provenance(root, sid, variant="full"):
    return json.loads((shard_dir(TINY, sid, variant, root) / PROVENANCE).read_text())


def test_stale_shards_are_certified_by_a_smoke_recompute(stale):
    assert status("two_layer/tiny_test_set", root=stale)[0]["counts"] == {"code": 2}
    assert main(["recertify", "two_layer/tiny_test_set", "--root", str(stale)]) == 0
    row = status("two_layer/tiny_test_set", root=stale)[0]
    assert row["counts"] == {"ok": 2}
    (how,) = row["certified"]
    assert how.startswith("certified 20") and how.endswith("by smoke recompute")
    history = provenance(stale, "d-2__block-1")["certifications"]
    current = store.set_code(TINY).fingerprint
    assert [(h["old_fingerprint"], h["new_fingerprint"], h["method"]) for h in history] == [
        (OLD, current, "smoke recompute")
    ]
    assert {"date", "processor", "commit", "function"} <= set(history[0])
    assert provenance(stale, "d-2__block-0", "smoke")["certifications"] == history
    assert recertify(TINY, root=stale) == ([], [])  # nothing left to certify


def test_a_differing_recompute_changes_nothing_and_names_the_arrays(stale, monkeypatch, capsys):
    real = run_module.resolve

    def perturbed(function):
        def shard(config, shard, checkpoint=None):
            arrays = real(function)(config, shard, checkpoint)
            return {**arrays, "bump": np.asarray(arrays["bump"]) + 1}

        return shard

    monkeypatch.setattr(run_module, "resolve", perturbed)
    before = provenance(stale, "d-2__block-0")
    assert main(["recertify", "two_layer/tiny_test_set", "--root", str(stale)]) == 1
    assert "array 'bump' differs from the stored one (bitwise)" in capsys.readouterr().out
    assert provenance(stale, "d-2__block-0") == before
    assert status("two_layer/tiny_test_set", root=stale)[0]["counts"] == {"code": 2}


def test_a_declared_sample_of_full_shards_is_recomputed_too(stale):
    assert sample_ids(TINY, 1) == ["d-2__block-0"] and sample_ids(TINY, 5) == TINY.shard_ids()
    certified, problems = recertify(TINY, sample=1, root=stale)
    assert problems == [] and len(certified) == 3
    assert provenance(stale, "d-2__block-1")["certifications"][-1]["method"] == (
        "smoke recompute and 1 full shards recomputed (d-2__block-0)"
    )


def test_full_shards_of_other_code_than_the_smoke_shards_stay_stale(stale):
    edit(stale, "d-2__block-1", code_fingerprint="1" * 16)
    certified, problems = recertify(TINY, root=stale)
    assert len(certified) == 2 and "d-2__block-1: made by other code" in problems[0]
    assert status("two_layer/tiny_test_set", root=stale)[0]["counts"] == {"ok": 1, "code": 1}


def test_an_edited_history_is_corrupt(stale):
    recertify(TINY, root=stale)
    history = provenance(stale, "d-2__block-0")["certifications"]
    edit(stale, "d-2__block-0", certifications=[{**history[0], "new_fingerprint": "f" * 16}])
    edit(stale, "d-2__block-1", certifications=[{**history[0], "commit": "HEAD"}])
    problems = status("two_layer/tiny_test_set", root=stale)[0]["problems"]
    assert "last certification is not for the fingerprint it records" in problems[0]
    assert "invalid date or commit" in problems[1]


def test_status_names_the_processors(stale):
    recertify(TINY, root=stale)
    cpu = provenance(stale, "d-2__block-0")["processor"]
    assert set(cpu) == {"model", "vector_extensions", "torch_kernels"}
    edit(stale, "d-2__block-1", processor=None, cpu=None)
    processors = status("two_layer/tiny_test_set", root=stale)[0]["processors"]
    assert "not recorded" in processors and any(p.startswith(cpu["model"]) for p in processors)


def test_sets_computed_elsewhere_check_only_the_code(tmp_path, monkeypatch):
    """A gpu=True set is computed on another machine: local package versions do not make it stale."""
    gpu_set = dataclasses.replace(TINY, name="tiny_gpu_set", gpu=True)
    monkeypatch.setattr(registry, "all_sets", lambda: [TINY, gpu_set])
    for evidence_set in (TINY, gpu_set):
        run_shard(evidence_set, "d-2__block-0", root=tmp_path)
    store.code_record.cache_clear()
    monkeypatch.setattr(fingerprint, "package_versions", lambda: {"python": "3.99", "numpy": "9"})
    try:
        rows = {r["set"]: r for r in status(root=tmp_path)}
    finally:
        store.code_record.cache_clear()
    assert rows["two_layer/tiny_gpu_set"]["counts"] == {"ok": 1, "missing": 1}
    assert rows["two_layer/tiny_test_set"]["counts"] == {"code": 1, "missing": 1}
    assert "-> 3.99" in rows["two_layer/tiny_test_set"]["problems"][0]


def test_against_a_commit_whose_code_is_not_the_stored_one_is_refused(stale):
    certified, problems = recertify(TINY, root=stale, against="HEAD")
    assert certified == [] and "is not the code of the stored shards" in problems[0]


@pytest.mark.slow(12)
def test_against_a_commit_compares_the_previous_code_with_the_current_one_here(tmp_path, monkeypatch):
    """Stored shards of the code at HEAD, the current code edited (its fingerprint changed, not what it
    computes): the smoke variant computed by HEAD's code and by the current code agree, so they are certified.
    (A set of one smoke shard: HEAD's code computes each in a process of its own, seconds of imports.)"""
    evidence_set = registry.get("sim_observations", "swing_same_width")
    shutil.copytree(
        EVIDENCE / evidence_set.chapter / evidence_set.name, tmp_path / evidence_set.chapter / evidence_set.name
    )
    edited = dataclasses.replace(store.set_code(evidence_set), fingerprint="1" * 16)
    for module in (store, run_module, certify):
        monkeypatch.setattr(module, "set_code", lambda s: edited)
    certified, problems = recertify(evidence_set, root=tmp_path, against="HEAD")
    assert problems == [] and len(certified) == len(evidence_set.shards) + len(evidence_set.shard_ids("smoke"))
    entry = json.loads((shard_dir(evidence_set, evidence_set.shard_ids()[0], root=tmp_path) / PROVENANCE).read_text())
    assert entry["code_fingerprint"] == "1" * 16
    assert entry["certifications"][-1]["method"].startswith("smoke recompute by the previous code (commit ")


def test_the_recorded_function_follows_the_last_certification():
    from lib.book.evidence.certify import recorded_function

    computed = {"function": "lib.old:f"}
    assert recorded_function(computed, "lib.new:f") == "lib.old:f"
    moved = {**computed, "certifications": [{"function": "lib.new:f", "method": "scheme change"}]}
    assert recorded_function(moved, "lib.other:f") == "lib.new:f"
    assert recorded_function({}, "lib.new:f") == "lib.new:f"
