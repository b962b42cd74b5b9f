"""The evidence tier: declarations, atomic shards with provenance, and every refusal of the loader."""

import dataclasses
import json
import shutil
import time
import warnings

import numpy as np
import pytest

from lib.book.evidence import (
    EvidenceCommitWarning,
    EvidenceError,
    EvidenceSet,
    compare,
    config_hash,
    load,
    load_or_smoke,
    registry,
    shard_id,
)
from lib.book.evidence.run import CLOCK_FILE, ShardClock, checkpoint_dir, run_shard
from lib.book.evidence.status import stale_targets, status
from lib.book.evidence.store import ARRAYS, PROVENANCE, core_seconds, shard_dir, write_shard

TINY = EvidenceSet(
    chapter="two_layer",
    name="tiny_test_set",
    function="lib.theory.two_layer_evidence:swing_block",
    config={
        "mu": [1.0, 2.0],
        "sigma": [0.05, 0.05],
        "init": "gaussian",
        "init_scale": 0.05,
        "covariance_power": 1,
        "horizon": 20.0,
        "n_times": 50,
        "descent_tol": 0.01,
        "seeds_per_block": 8,
        "seed": 1,
    },
    shards=[{"d": 2, "block": 0}, {"d": 2, "block": 1}],
    smoke={"config": {"seeds_per_block": 4}},
)


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    """TINY as the only declared set, both shards computed under tmp_path."""
    monkeypatch.setattr(registry, "all_sets", lambda: [TINY])
    for sid in TINY.shard_ids():
        run_shard(TINY, sid, root=tmp_path)
    return tmp_path


def _edit_provenance(root, sid, **changes):
    path = shard_dir(TINY, sid, root=root) / PROVENANCE
    provenance = json.loads(path.read_text())
    provenance.update(changes)
    path.write_text(json.dumps(provenance))


# ---- declarations ---------------------------------------------------------------------------


def test_shard_ids_and_hashes():
    assert shard_id({"d": 4, "block": 2}) == "d-4__block-2"
    assert shard_id({"contrast": 0.3, "seed": 4}) == "contrast-0.3__seed-4"
    assert config_hash({"a": 1, "b": [1.0]}) == config_hash({"b": [1.0], "a": 1})
    assert config_hash({"a": 1, "device": "cuda"}) == config_hash({"a": 1})
    with pytest.raises(ValueError, match="plain names"):
        shard_id({"d": "a/b"})
    with pytest.raises(ValueError, match="smoke takes"):
        dataclasses.replace(TINY, smoke={"seeds": 3})
    assert TINY.variant_config("smoke")["seeds_per_block"] == 4 and TINY.shard_ids("smoke") == ["d-2__block-0"]


def test_every_declared_set_names_a_shard_function():
    import inspect

    from lib.book.evidence.run import resolve

    for evidence_set in registry.all_sets():
        params = list(inspect.signature(resolve(evidence_set.function)).parameters)
        assert params[:3] == ["config", "shard", "checkpoint"], evidence_set.key


# ---- writing ------------------------------------------------------------------------------------


def test_shard_has_provenance(tiny):
    provenance = json.loads((shard_dir(TINY, "d-2__block-0", root=tiny) / PROVENANCE).read_text())
    for key in (
        "config_hash",
        "commit",
        "dirty",
        "versions",
        "device",
        "cpu",
        "threads",
        "wall_seconds",
        "cpu_seconds",
        "runs",
        "date",
        "host",
        "code_fingerprint",
        "code_objects",
        "function",
        "processor",
        "arrays_sha256",
    ):
        assert key in provenance
    assert provenance["config_hash"] == config_hash(TINY.config) and provenance["shard"] == {"d": 2, "block": 0}
    assert {"swing_block", "integrate"} <= set(provenance["code_objects"])
    assert set(provenance["processor"]) == {"model", "vector_extensions", "torch_kernels"}
    assert provenance["runs"] == 1 and 0 <= provenance["cpu_seconds"] and 0 <= provenance["wall_seconds"]


def test_a_resumed_shard_counts_the_seconds_of_every_run(tmp_path):
    with pytest.raises(KeyboardInterrupt), ShardClock(tmp_path, every=0.01):  # the first run is interrupted
        time.sleep(0.05)
        raise KeyboardInterrupt
    first = json.loads((tmp_path / CLOCK_FILE).read_text())
    assert first["runs"] == 1 and first["wall_seconds"] >= 0.05
    with ShardClock(tmp_path) as clock:  # the second one goes on from there
        spent = clock.totals()
    assert spent["runs"] == 2 and spent["wall_seconds"] >= first["wall_seconds"] + 0.0
    assert spent["cpu_seconds"] >= first["cpu_seconds"]


def test_a_running_shard_records_its_seconds_while_it_runs(tmp_path):
    with ShardClock(tmp_path, every=0.01):
        deadline = time.monotonic() + 5
        while not (tmp_path / CLOCK_FILE).exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert json.loads((tmp_path / CLOCK_FILE).read_text())["runs"] == 1  # a kill now loses little


def test_core_seconds_are_the_cpu_seconds_where_recorded_else_wall_times_threads():
    assert core_seconds({"cpu_seconds": 90.0, "wall_seconds": 200.0, "threads": 2}) == 90.0
    assert core_seconds({"wall_seconds": 200.0, "threads": 2}) == 400.0
    assert core_seconds({}) == 0.0


@pytest.mark.parametrize("content", ["", "{", "[]", '{"wall_seconds": "x"}'])
def test_an_unreadable_clock_starts_from_zero(tmp_path, content):
    (tmp_path / CLOCK_FILE).write_text(content)
    with ShardClock(tmp_path) as clock:
        assert clock.totals()["runs"] == 1


def test_write_refuses_pickles_and_leaves_nothing(tmp_path):
    target = tmp_path / "set" / "s-1"
    with pytest.raises(TypeError, match="numeric"):
        write_shard(target, {"x": np.array([{"a": 1}], dtype=object)}, {})
    assert list((tmp_path / "set").iterdir()) == []


def test_write_replaces_an_older_shard(tmp_path):
    target = tmp_path / "s-1"
    write_shard(target, {"x": np.zeros(2)}, {"run": 1})
    write_shard(target, {"x": np.ones(2)}, {"run": 2})
    assert json.loads((target / PROVENANCE).read_text())["run"] == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s-1"]


# ---- loading and its refusals -----------------------------------------------------------------


def test_load_reads_every_shard(tiny):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvidenceCommitWarning)
        data = load("two_layer", "tiny_test_set", root=tiny)
    assert len(data) == 2 and data.concat("descents").shape == (16,)
    assert data.where(block=1)[0]["bump"].dtype == np.float32
    assert data.summary()["shards"] == 2


def test_a_sets_core_hours_are_its_shards_core_seconds(tiny):
    _edit_provenance(tiny, "d-2__block-0", cpu_seconds=1800.0)
    _edit_provenance(tiny, "d-2__block-1", cpu_seconds=None, wall_seconds=900.0, threads=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvidenceCommitWarning)
        assert load("two_layer", "tiny_test_set", root=tiny).core_hours() == pytest.approx(1.0)


def test_missing_shard_is_refused(tiny):
    for path in shard_dir(TINY, "d-2__block-1", root=tiny).iterdir():
        path.unlink()
    with pytest.raises(EvidenceError, match=r"d-2__block-1 \(missing\).*make evidence SETS=two_layer/tiny_test_set"):
        load("two_layer", "tiny_test_set", root=tiny)


def test_truncated_npz_is_refused(tiny):
    path = shard_dir(TINY, "d-2__block-0", root=tiny) / ARRAYS
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(EvidenceError, match=r"d-2__block-0 \(corrupt\).*truncated"):
        load("two_layer", "tiny_test_set", root=tiny)


def test_unreadable_provenance_is_refused(tiny):
    (shard_dir(TINY, "d-2__block-0", root=tiny) / PROVENANCE).write_text('{"config_hash": ')
    with pytest.raises(EvidenceError, match=r"\(corrupt\).*not readable JSON"):
        load("two_layer", "tiny_test_set", root=tiny)


def test_changed_declaration_is_refused_naming_the_keys(tiny, monkeypatch):
    edited = dataclasses.replace(TINY, config={**TINY.config, "horizon": 30.0, "n_times": 60})
    monkeypatch.setattr(registry, "all_sets", lambda: [edited])
    with pytest.raises(EvidenceError, match=r"\(config\).*keys that differ from the declaration: horizon, n_times"):
        load("two_layer", "tiny_test_set", root=tiny)
    assert len(stale_targets(root=tiny)) == 2


def test_changed_code_is_refused_naming_the_function(tiny):
    path = shard_dir(TINY, "d-2__block-0", root=tiny) / PROVENANCE
    provenance = json.loads(path.read_text())
    provenance["code_objects"]["integrate"] = "0" * 16
    _edit_provenance(tiny, "d-2__block-0", code_fingerprint="0" * 16, code_objects=provenance["code_objects"])
    with pytest.raises(EvidenceError, match=r"\(code\).*code of integrate \(lib.theory.two_layer:integrate\) changed"):
        load("two_layer", "tiny_test_set", root=tiny)
    assert status(root=tiny)[0]["counts"] == {"ok": 1, "code": 1}


def test_other_commit_warns_once(tiny):
    for sid in TINY.shard_ids():
        _edit_provenance(tiny, sid, commit="f" * 40)
    with pytest.warns(EvidenceCommitWarning, match="2 of 2 shards were computed at commit ffffffffffff"):
        load("two_layer", "tiny_test_set", root=tiny)
    with warnings.catch_warnings():
        warnings.simplefilter("error", EvidenceCommitWarning)
        load("two_layer", "tiny_test_set", root=tiny)


def test_compare_is_bitwise(tiny, tmp_path_factory):
    again = tmp_path_factory.mktemp("again")
    run_shard(TINY, "d-2__block-0", root=again)
    assert compare("two_layer", "tiny_test_set", "full", again, tiny, ["d-2__block-0"]) == []
    assert "not usable" not in " ".join(compare("two_layer", "tiny_test_set", "full", again, tiny))
    assert "missing" in compare("two_layer", "tiny_test_set", "full", again, tiny)[0]


# ---- load_or_smoke: only a set still being computed falls back to its smoke variant ----


@pytest.fixture
def tiny_with_smoke(tiny):
    for sid in TINY.shard_ids("smoke"):
        run_shard(TINY, sid, variant="smoke", root=tiny)
    return tiny


def test_complete_set_is_loaded_in_full(tiny_with_smoke):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvidenceCommitWarning)
        available = load_or_smoke("two_layer", "tiny_test_set", root=tiny_with_smoke)
    assert available.complete and available.data.variant == "full"


def test_missing_shards_fall_back_to_smoke_with_a_reason(tiny_with_smoke):
    shutil.rmtree(shard_dir(TINY, "d-2__block-1", root=tiny_with_smoke))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvidenceCommitWarning)
        available = load_or_smoke("two_layer", "tiny_test_set", root=tiny_with_smoke)
    assert available.data.variant == "smoke" and "1 of 2 shards" in available.pending


def test_corrupt_shard_stops_instead_of_falling_back(tiny_with_smoke):
    path = shard_dir(TINY, "d-2__block-0", root=tiny_with_smoke) / ARRAYS
    path.write_bytes(path.read_bytes()[:100])
    shutil.rmtree(shard_dir(TINY, "d-2__block-1", root=tiny_with_smoke))  # missing too: still refused
    with pytest.raises(EvidenceError, match=r"d-2__block-0 \(corrupt\)"):
        load_or_smoke("two_layer", "tiny_test_set", root=tiny_with_smoke)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("commit", "not-a-commit", "invalid 'commit'"),
        ("date", "yesterday", "invalid 'date'"),
        ("host", "", "invalid 'host'"),
        ("versions", {"python": "3.11"}, "invalid 'versions'"),
        ("threads", 0, "invalid 'threads'"),
        ("config", {"edited": True}, "does not match its own 'config_hash'"),
    ],
)
def test_edited_provenance_fields_are_corrupt(tiny, field, value, message):
    _edit_provenance(tiny, "d-2__block-0", **{field: value})
    rows = status("two_layer/tiny_test_set", root=tiny)
    assert rows[0]["counts"] == {"corrupt": 1, "ok": 1} and message in rows[0]["problems"][0]


def test_status_estimates_what_is_left_to_compute(tiny):
    assert status("two_layer/tiny_test_set", root=tiny)[0]["minutes_to_go"] == 0
    for path in shard_dir(TINY, "d-2__block-1", root=tiny).iterdir():
        path.unlink()
    row = status("two_layer/tiny_test_set", root=tiny)[0]
    assert row["minutes_to_go"] == pytest.approx(TINY.minutes) and row["minutes"] == pytest.approx(2 * TINY.minutes)


def test_status_lists_the_begun_shards_that_make_evidence_resumes_first(tiny, monkeypatch, lib_command):
    """A shard not stored whose interrupted run saved state is "begun", with the CPU seconds spent on it; a stored
    shard, or one whose run left only its clock, is not."""
    monkeypatch.setenv("LIB_CACHE_DIR", str(tiny / "cache"))
    for path in shard_dir(TINY, "d-2__block-1", root=tiny).iterdir():
        path.unlink()
    for sid, files in (("d-2__block-1", ("state.pt", CLOCK_FILE)), ("d-2__block-0", ("state.pt",))):
        folder = checkpoint_dir(TINY, sid, create=True)
        for name in files:
            (folder / name).write_text(json.dumps({"wall_seconds": 200.0, "cpu_seconds": 180.0, "runs": 1}))
    assert status("two_layer/tiny_test_set", root=tiny)[0]["begun"] == {"d-2__block-1": 180.0}
    out = lib_command("evidence", "status", "two_layer/tiny_test_set", "--root", str(tiny)).stdout
    assert "    begun, resumed first: d-2__block-1 (3 CPU-min)\n" in out
    (checkpoint_dir(TINY, "d-2__block-1") / "state.pt").unlink()  # killed before its first save: fresh
    assert status("two_layer/tiny_test_set", root=tiny)[0]["begun"] == {}


def test_status_reads_the_arrays(tiny):
    """An npz whose recorded sha256 was updated along with it, but whose arrays differ, is corrupt."""
    directory = shard_dir(TINY, "d-2__block-0", root=tiny)
    np.savez(directory / ARRAYS, descents=np.zeros(3, dtype=np.int64))
    from lib.book.evidence.store import file_sha256

    _edit_provenance(tiny, "d-2__block-0", arrays_sha256=file_sha256(directory / ARRAYS))
    row = status("two_layer/tiny_test_set", root=tiny)[0]
    assert row["counts"].get("corrupt") == 1 and "dtypes and shapes" in row["problems"][0]
