"""Stored results (lib/book/evidence/stored.py, `run.stored`): every supported result comes back exactly, and
a stored result is read only for the same function, arguments and reached code, with intact files.

The functions stored here live in a small package `pkg` written into a temporary folder (as in
test_fingerprint.py), so that their code can be edited and their calls counted."""

from __future__ import annotations

import dataclasses
import importlib
import json
import re
import sys
import textwrap
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from lib.book.chapters import load
from lib.book.chapters.declaration import ParameterError
from lib.book.evidence import stored as store
from lib.book.run.notebook import ChapterRun, stored_notices
from lib.book.verdicts.claims import RUN_KEY
from lib.book.verdicts.summary import reader_notices
from lib.geneft.relations import relation_matrix
from lib.util import runtime
from lib.util.runtime import SettingError, stored_results_mode


@dataclasses.dataclass(frozen=True)
class Frozen:
    """A frozen dataclass with a field not set by __init__."""

    a: np.ndarray
    b: float
    c: int = dataclasses.field(default=0, init=False)


@dataclasses.dataclass
class Plain:
    x: object
    y: object = None


class Pair(NamedTuple):
    left: object
    right: object


# ----------------------------------------------------------------------------------------------
# Round trip of every supported type
# ----------------------------------------------------------------------------------------------

DTYPES = [
    "int8",
    "uint16",
    "int64",
    "float32",
    "float64",
    "<f8",
    ">f8",
    "complex128",
    "bool",
    "<U3",
    "S2",
    "datetime64[s]",
]
arrays = st.sampled_from(DTYPES).flatmap(
    lambda dtype: hnp.arrays(np.dtype(dtype), hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3))
)
numpy_scalars = arrays.filter(lambda a: a.ndim == 0).map(lambda a: a[()])
python_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=5)
keys = st.none() | st.booleans() | st.integers() | st.text(max_size=3) | st.tuples(st.integers(), st.text(max_size=2))
leaves = arrays | numpy_scalars | python_scalars
values = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(keys, inner, max_size=3)
        | st.builds(Plain, inner, inner)
        | st.builds(Pair, inner, inner)
        | st.builds(lambda a, b: Frozen(np.asarray(a), b), arrays, st.floats(allow_nan=False))
    ),
    max_leaves=8,
)


def same(a, b) -> bool:
    """Equal, with the same types all the way down (dtypes, byte orders and shapes of arrays; NaN equals NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.dtype.str == b.dtype.str and a.shape == b.shape and a.tobytes() == b.tobytes()
    if isinstance(a, np.generic):
        return a.dtype.str == b.dtype.str and a.tobytes() == b.tobytes()
    if isinstance(a, float):
        return a.hex() == b.hex() or (a != a and b != b)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(map(repr, a)) == list(map(repr, b)) and all(same(x, b[k]) for k, x in a.items())
    if dataclasses.is_dataclass(a):
        return all(same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    return a == b


def test_same_tells_types_apart():
    assert same({"a": [1, (2.0, np.float32(3))]}, {"a": [1, (2.0, np.float32(3))]})
    assert not same(1, 1.0) and not same(np.float64(1), 1.0) and not same([1], (1,))
    assert not same(np.zeros(2, "<f8"), np.zeros(2, ">f8"))


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(value=values)
def test_every_supported_result_comes_back_exactly(tmp_path_factory, value):
    root = tmp_path_factory.mktemp("stored")
    store.write_stored(
        "one_layer", "r", relation_matrix, ("mod3", 5), {}, value, wall_seconds=0.1, threads=1, root=root
    )
    found = store.check_stored("one_layer", "r", relation_matrix, ("mod3", 5), {}, root=root)
    assert found.status == "ok", found.problem
    assert same(found.value, value)


@pytest.mark.parametrize(
    "value, part",
    [
        ({1, 2}, "result: builtins.set"),
        ({"a": [1, object()]}, "result['a'][1]: builtins.object"),
        (np.array([1, None], dtype=object), "an array of Python objects"),
        (Plain(x=Path("p")), "result.x: pathlib"),
        (np.ma.masked_array([1.0]), "MaskedArray"),
    ],
)
def test_what_cannot_be_stored_is_refused_naming_the_part(tmp_path, value, part):
    with pytest.raises(store.StoredResultError, match=part.replace("[", r"\[").replace("]", r"\]").replace("(", r"\(")):
        store.write_stored(
            "one_layer", "r", relation_matrix, ("mod3", 5), {}, value, wall_seconds=0, threads=1, root=tmp_path
        )
    assert not (tmp_path / "one_layer" / store.STORED / "r").exists()


# ----------------------------------------------------------------------------------------------
# Arguments
# ----------------------------------------------------------------------------------------------


def h(*args, **kwargs) -> str:
    return store.argument_hash(relation_matrix, args, kwargs)


def test_argument_hash_is_by_parameter_and_tells_values_apart():
    assert h("mod3", 5) == h("mod3", n=5) == h(name="mod3", n=5)
    assert len({h("mod3", 5), h("mod3", 6), h("mod3", 5.0), h("mod3", np.int64(5)), h("mod5", 5)}) == 5
    a = np.arange(6.0).reshape(2, 3)
    assert h(a, 1) == h(a.copy(), 1) == h(np.asfortranarray(a), 1)
    assert len({h(a, 1), h(a.astype("f4"), 1), h(a.reshape(3, 2), 1), h(a + 1e-12, 1)}) == 4
    assert h([1, 2], 1) != h((1, 2), 1)
    assert h({"b": 1, "a": 2}, 1) == h({"a": 2, "b": 1}, 1)
    assert h(Plain(np.ones(2)), 1) == h(Plain(np.ones(2)), 1) != h(Plain(np.zeros(2)), 1)
    assert h("x", store.unhashed(Path("/a"))) == h("x", store.unhashed(Path("/b")))


def test_unhashable_arguments_are_refused_in_words():
    with pytest.raises(store.StoredResultError, match="unhashed"):
        h("mod3", Path("/tmp"))
    with pytest.raises(store.StoredResultError, match="argument n of type function"):
        h("mod3", lambda: 1)


def test_names_are_plain_folder_names():
    for bad in ("", ".hidden", "a/b", "a b", "x" * 101, "mode:1"):
        with pytest.raises(ValueError, match="stored result name"):
            store.check_name(bad)
    assert store.check_name("networks_mod3_concat_1") == "networks_mod3_concat_1"


# ----------------------------------------------------------------------------------------------
# The notebook handle: use, live, write
# ----------------------------------------------------------------------------------------------

COMPUTE = """
import numpy as np

from pkg import util

CALLS = []


def compute(n, scale=1.0, checkpoint=None):
    CALLS.append(n)
    return {"y": util.scaled(np.arange(n), scale), "n": n}
"""
UTIL = """
def scaled(x, k):
    return x * k * 2.0
"""


@pytest.fixture
def pkg(tmp_path, monkeypatch):
    """The package `pkg` (modules compute and util) importable from tmp_path/src."""
    base = tmp_path / "src" / "pkg"
    base.mkdir(parents=True)
    (base / "__init__.py").write_text("")
    (base / "compute.py").write_text(textwrap.dedent(COMPUTE))
    (base / "util.py").write_text(textwrap.dedent(UTIL))
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    for name in [m for m in sys.modules if m == "pkg" or m.startswith("pkg.")]:
        monkeypatch.delitem(sys.modules, name)
    importlib.invalidate_caches()
    module = importlib.import_module("pkg.compute")
    yield module
    for name in [m for m in sys.modules if m == "pkg" or m.startswith("pkg.")]:
        sys.modules.pop(name, None)


def chapter_run(tmp_path, monkeypatch, mode: str, **overrides) -> ChapterRun:
    monkeypatch.setenv("LIB_STORED_RESULTS", mode)
    monkeypatch.setattr(ChapterRun, "_glue", staticmethod(lambda name, value: None))
    chapter = load("one_layer")
    run = ChapterRun(chapter, chapter.validate(overrides), tmp_path / "runs")
    run.stored_root = tmp_path / "evidence"
    return run


def test_write_then_use_reads_without_calling(tmp_path, monkeypatch, pkg):
    first = chapter_run(tmp_path, monkeypatch, "write").stored("curve", pkg.compute, 4, scale=0.5)
    assert pkg.CALLS == [4]
    run = chapter_run(tmp_path, monkeypatch, "use")
    again = run.stored("curve", pkg.compute, 4, scale=0.5)
    assert pkg.CALLS == [4] and same(again, first)
    (entry,) = run.record["stored"]
    assert entry["state"] == "read" and entry["function"] == "pkg.compute:compute" and entry["processor"]
    assert run.record["notices"] == []
    provenance = json.loads((tmp_path / "evidence/one_layer/stored-results/curve/provenance.json").read_text())
    assert provenance["arguments"] == {"n": "4", "scale": "0.5"}
    assert {"commit", "processor", "threads", "versions", "wall_seconds", "date", "code_fingerprint"} <= set(provenance)


def test_a_rewrite_of_the_same_result_changes_no_file(tmp_path, monkeypatch, pkg):
    chapter_run(tmp_path, monkeypatch, "write").stored("curve", pkg.compute, 4)
    npz = tmp_path / "evidence/one_layer/stored-results/curve/arrays.npz"
    before = npz.stat().st_mtime_ns
    run = chapter_run(tmp_path, monkeypatch, "write")
    run.stored("curve", pkg.compute, 4)
    assert pkg.CALLS == [4, 4] and npz.stat().st_mtime_ns == before
    assert run.record["stored"][0]["state"] == "unchanged"


def test_live_never_reads(tmp_path, monkeypatch, pkg):
    chapter_run(tmp_path, monkeypatch, "write").stored("curve", pkg.compute, 4)
    monkeypatch.setattr(store, "check_stored", lambda *a, **k: pytest.fail("live read a stored result"))
    run = chapter_run(tmp_path, monkeypatch, "live")
    run.stored("curve", pkg.compute, 4)
    assert pkg.CALLS == [4, 4] and run.record["stored"][0]["state"] == "computed live" and not run.record["notices"]


def _not_used(run: ChapterRun, status: str) -> str:
    (entry,) = run.record["stored"]
    assert entry["state"] == "computed live" and entry["reason"].startswith(status), entry
    (notice,) = run.record["notices"]
    assert "one_layer/curve" in notice and "python -m lib run one_layer --stored-results write" in notice
    (reader,) = reader_notices(run.record["notices"])  # the names and the command set as code for a reader
    assert reader.startswith("the stored result `one_layer/curve` was computed live (") and reader.endswith(
        "`python -m lib run one_layer --stored-results write` refreshes it"
    )
    assert re.sub(r"`[^`]*`", "", reader).count("_") == 0, reader  # no code name outside code
    lines = stored_notices({RUN_KEY: run.record})
    assert lines == [f"notice: {notice}"]
    return notice


def test_other_arguments_compute_live_with_a_notice(tmp_path, monkeypatch, pkg):
    chapter_run(tmp_path, monkeypatch, "write").stored("curve", pkg.compute, 4)
    run = chapter_run(tmp_path, monkeypatch, "use")
    value = run.stored("curve", pkg.compute, 5)
    assert pkg.CALLS == [4, 5] and value["n"] == 5
    assert "other n (n=4)" in _not_used(run, "other arguments")


def test_other_arguments_at_other_parameters_are_expected(tmp_path, monkeypatch, pkg):
    chapter_run(tmp_path, monkeypatch, "write").stored("curve", pkg.compute, 4)
    run = chapter_run(tmp_path, monkeypatch, "use", d=8)
    run.stored("curve", pkg.compute, 5)
    assert pkg.CALLS == [4, 5] and run.record["notices"] == [] and stored_notices({RUN_KEY: run.record}) == []
    run.stored("other", pkg.compute, 4)  # an argument that does not depend on the parameters still reads
    assert pkg.CALLS == [4, 5, 4]  # (not stored under this name)


def test_a_changed_reached_function_computes_live_with_a_notice(tmp_path, monkeypatch, pkg):
    chapter_run(tmp_path, monkeypatch, "write").stored("curve", pkg.compute, 4)
    util = tmp_path / "src/pkg/util.py"
    util.write_text(util.read_text().replace("* 2.0", "* 3.0"))
    run = chapter_run(tmp_path, monkeypatch, "use")
    run.stored("curve", pkg.compute, 4)
    assert pkg.CALLS == [4, 4]
    assert "code of scaled (pkg.util:scaled) changed" in _not_used(run, "other code")


def test_comments_and_an_unreached_function_keep_it(tmp_path, monkeypatch, pkg):
    chapter_run(tmp_path, monkeypatch, "write").stored("curve", pkg.compute, 4)
    util = tmp_path / "src/pkg/util.py"
    util.write_text(util.read_text().replace("* 2.0", "* 2.0  # twice") + "\n\ndef unused():\n    return 1\n")
    run = chapter_run(tmp_path, monkeypatch, "use")
    run.stored("curve", pkg.compute, 4)
    assert pkg.CALLS == [4] and run.record["stored"][0]["state"] == "read"


@pytest.mark.parametrize(
    "damage, why",
    [
        (lambda d: (d / "arrays.npz").write_bytes((d / "arrays.npz").read_bytes()[:-20]), "sha256"),
        (lambda d: (d / "arrays.npz").unlink(), "has no arrays.npz"),
        (lambda d: (d / "provenance.json").write_text("{"), "not readable JSON"),
        (
            lambda d: (d / "provenance.json").write_text(
                (d / "provenance.json").read_text().replace('"value": 4', '"value": 5')
            ),
            "content differs",
        ),
    ],
)
def test_a_damaged_file_computes_live_with_a_notice(tmp_path, monkeypatch, pkg, damage, why):
    chapter_run(tmp_path, monkeypatch, "write").stored("curve", pkg.compute, 4)
    damage(tmp_path / "evidence/one_layer/stored-results/curve")
    run = chapter_run(tmp_path, monkeypatch, "use")
    assert run.stored("curve", pkg.compute, 4)["n"] == 4
    assert pkg.CALLS == [4, 4] and why in _not_used(run, "damaged")


def test_a_missing_result_at_the_defaults_is_a_notice(tmp_path, monkeypatch, pkg):
    run = chapter_run(tmp_path, monkeypatch, "use")
    run.stored("curve", pkg.compute, 4)
    _not_used(run, "missing")


def test_a_partial_is_its_function_with_its_arguments(tmp_path, monkeypatch, pkg):
    import functools

    chapter_run(tmp_path, monkeypatch, "write").stored("curve", functools.partial(pkg.compute, scale=2.0), 4)
    run = chapter_run(tmp_path, monkeypatch, "use")
    assert run.stored("curve", pkg.compute, n=4, scale=2.0)["n"] == 4
    assert pkg.CALLS == [4] and run.record["stored"][0]["state"] == "read"


def test_unhashed_arguments_are_passed_on(tmp_path, monkeypatch, pkg):
    run = chapter_run(tmp_path, monkeypatch, "write")
    run.stored("curve", pkg.compute, 4, checkpoint=store.unhashed(tmp_path / "a"))
    run = chapter_run(tmp_path, monkeypatch, "use")
    run.stored("curve", pkg.compute, 4, checkpoint=store.unhashed(tmp_path / "b"))
    assert pkg.CALLS == [4] and run.record["stored"][0]["state"] == "read"


def test_a_result_that_cannot_be_stored_fails_in_every_mode(tmp_path, monkeypatch, pkg):
    for mode in runtime.STORED_RESULTS_MODES:
        run = chapter_run(tmp_path, monkeypatch, mode)
        with pytest.raises(store.StoredResultError):
            run.stored("bad", set, [1])  # not a lib-style function with an importable name and code either
    run = chapter_run(tmp_path, monkeypatch, "live")
    with pytest.raises(ValueError, match="twice"):
        run.stored("curve", pkg.compute, 1)
        run.stored("curve", pkg.compute, 2)


def test_write_is_refused_at_other_parameters(tmp_path, monkeypatch, lib_command):
    from lib.book.run.notebook import check_stored_results_mode

    chapter = load("one_layer")
    with pytest.raises(ParameterError, match="default parameters only.*d"):
        check_stored_results_mode(chapter, chapter.validate({"d": 8}), "write")
    check_stored_results_mode(chapter, chapter.validate({"d": chapter.defaults()["d"]}), "write")
    result = lib_command("run", "one_layer", "--stored-results", "write", "-p", "d", "8", "--output-dir", str(tmp_path))
    assert result.returncode == 2 and "default parameters only" in result.stderr


def test_the_manifest_removes_what_a_complete_write_did_not_reach(tmp_path, monkeypatch, pkg):
    run = chapter_run(tmp_path, monkeypatch, "write")
    run.stored("kept", pkg.compute, 1)
    run.stored("old", pkg.compute, 2)
    assert store.write_manifest("one_layer", ["kept"], run.stored_root) == ["old"]
    assert store.manifest_names("one_layer", run.stored_root) == ["kept"]
    assert [r["name"] for r in store.stored_status("one_layer", run.stored_root)] == ["kept"]


def test_status_lists_states_and_the_refresh_command(tmp_path, monkeypatch, pkg, lib_command):
    run = chapter_run(tmp_path, monkeypatch, "write")
    for name in ("good", "broken", "changed"):
        run.stored(name, pkg.compute, 3)
    store.write_manifest("one_layer", ["good", "broken", "changed", "gone"], run.stored_root)
    folder = run.stored_root / "one_layer" / store.STORED
    (folder / "broken/arrays.npz").write_bytes(b"x")
    provenance = json.loads((folder / "changed/provenance.json").read_text())
    provenance["code_fingerprint"], provenance["code_objects"]["scaled"] = "0" * 16, "0" * 16
    (folder / "changed/provenance.json").write_text(json.dumps(provenance))
    states = {r["name"]: r["state"] for r in store.stored_status("one_layer", run.stored_root)}
    assert states == {"good": "ok", "broken": "damaged", "changed": "from other code", "gone": "missing"}
    result = lib_command("evidence", "status", "--root", str(run.stored_root))
    assert result.returncode == 1
    assert (
        "one_layer/stored-results" in result.stdout and "1 damaged, 1 from other code, 1 missing, 1 ok" in result.stdout
    )
    assert "python -m lib run one_layer --stored-results write" in result.stdout
    assert "code of scaled (pkg.util:scaled) changed" in result.stdout


# ----------------------------------------------------------------------------------------------
# The switch
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value, mode", [("", "use"), ("use", "use"), (" live ", "live"), ("write", "write")])
def test_the_switch_reads_its_modes(monkeypatch, value, mode):
    monkeypatch.setenv("LIB_STORED_RESULTS", value)
    assert stored_results_mode() == mode


@pytest.mark.parametrize("value", ["Use", "yes", "1", "read", "use,live"])
def test_a_bad_switch_exits_2_naming_it(monkeypatch, lib_command, tmp_path, value):
    monkeypatch.setenv("LIB_STORED_RESULTS", value)
    with pytest.raises(SettingError, match="LIB_STORED_RESULTS"):
        runtime.check_environment()
    for args in (("run", "one_layer", "--output-dir", str(tmp_path)), ("list",), ("evidence", "status")):
        result = lib_command(*args)
        assert result.returncode == 2 and "LIB_STORED_RESULTS" in result.stderr and "\n" == result.stderr[-1]
        assert result.stderr.count("\n") == 1


def test_the_option_travels_to_the_kernel(lib_command, tmp_path):
    assert runtime.Runtime(1, "live").environment()["LIB_STORED_RESULTS"] == "live"
    assert "LIB_STORED_RESULTS" not in runtime.Runtime(1).environment()  # the kernel inherits the environment's
    result = lib_command("run", "one_layer", "--stored-results", "sometimes", "--output-dir", str(tmp_path))
    assert result.returncode == 2 and "--stored-results" in result.stderr


def test_the_status_page_lists_what_a_run_read():
    from lib.book.pages.generated import stored_results_line

    record = {
        "stored": [
            {"name": "a", "state": "read", "commit": "abc", "processor": "AMD EPYC (avx2; torch AVX2)"},
            {"name": "b", "state": "computed live", "notice": "stored result x/b not used"},
            {"name": "c", "state": "computed live"},
        ]
    }
    line = stored_results_line(record)
    assert line.startswith("stored results: 1 read (commits ") and "AMD EPYC" in line
    assert "2 computed live (1 stored but not used: `b`)" in line
    assert stored_results_line({}) == ""
