"""Odd inputs of issue 36, one class each: read as typed, refused in one line, nothing left behind.

Property tests (Hypothesis) per class: papermill's own reading of -p and -y, tiny and underflowing
floats, names given twice on papermill's command line, recorded parameters and malformed metrics,
`lib page` inputs and outputs, the evidence reader's files, faults while staging and publishing, a
notebook without its metrics, a skipped metric in a checked line, where a run without a known output
folder writes. No kernel starts here (the Ctrl-C and SIGTERM runs are in test_runner.py).
"""

import base64
import errno
import json
import math
import os
import signal
import zipfile

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from papermill.cli import _resolve_type as papermill_value
from papermill.iorw import NoDatesSafeLoader
from unicode_text import UNICODE, text

import lib.book.run.runner
from lib.book.chapters import chapter_ids, load
from lib.book.chapters.declaration import ParameterError, check_cost, is_not_computed
from lib.book.commands.main import main, parse_overrides, parse_value
from lib.book.run.papermill_route import repeated_names
from lib.book.verdicts.claims import MetricsError, foreign_metrics, read_metrics

FAST = settings(max_examples=40, deadline=None)
WITH_CAPSYS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
PAPERMILL = ["python", "/v/bin/papermill", "in.ipynb", "out.ipynb"]

# ----------------------------------------------------------------------------------------------
# 1. Values read exactly as papermill reads them
# ----------------------------------------------------------------------------------------------

NUMBERS_AND_WORDS = st.one_of(
    text(max_size=20),
    st.integers().map(str),
    st.floats().map(repr),
    st.integers(0, 2**40).map(hex),
    st.sampled_from(["yes", "no", "on", "off", "true", "False", "None", "null", "1:30", "190:20:30", "1_000", ".5",
                     "1e3", "-1E-3", "0o17", "0b101", " 7 ", "nan", "-inf", "[1, 2]", "{a: 1}", "2024-01-01"]),
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(raw=NUMBERS_AND_WORDS)
def test_p_values_are_papermills_own_reading(raw):
    """Every -p VALUE is what papermill's `_resolve_type` makes of it, with its type, or a one-line refusal of
    a number written in non-ASCII digits (which papermill would read as another number than the one typed)."""
    try:
        value = parse_value("x", raw)
    except ParameterError as err:
        assert not raw.isascii() and "papermill read" in str(err) and "\n" not in str(err)
        return
    expected = papermill_value(raw)
    assert type(value) is type(expected)
    assert value == expected or (isinstance(value, float) and math.isnan(value) and math.isnan(expected))


YAML_SCALARS = st.sampled_from(
    ["1e-3", "1.0e-3", "0x1f", "0o17", "1:30", "yes", "no", "on", "off", "~", "null", "2024-01-01", "'text'", "-.inf",
     ".nan", "[1, 2]", "[yes, 0x10, 1e2]", "1_000"]
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(names=st.lists(st.from_regex(r"[a-z]{1,6}", fullmatch=True, alphabet=UNICODE), min_size=1, max_size=4, unique=True),
       data=st.data())  # fmt: skip
def test_y_mappings_are_papermills_own_reading(names, data):
    """A -y mapping is what papermill's `NoDatesSafeLoader` makes of it (YAML 1.1, no dates)."""
    text = "{" + ", ".join(f"{n}: {data.draw(YAML_SCALARS)}" for n in names) + "}"
    expected = yaml.load(text, Loader=NoDatesSafeLoader)  # noqa: S506 (a SafeLoader subclass)
    try:
        got = parse_overrides([], [text])
    except ParameterError as err:  # a name YAML 1.1 reads as a boolean or null (`no`, `on`, `y`)
        assert not all(isinstance(k, str) for k in expected) and "\n" not in str(err)
        return
    assert json.dumps(got, sort_keys=True) == json.dumps(expected, sort_keys=True)


def test_the_y_reader_resolves_scalars_with_papermills_table():
    from lib.book.commands.main import _StrictLoader

    assert _StrictLoader.yaml_implicit_resolvers == NoDatesSafeLoader.yaml_implicit_resolvers


# ----------------------------------------------------------------------------------------------
# 2. Tiny and underflowing floats: a meaningful lower bound, and an estimate that never raises
# ----------------------------------------------------------------------------------------------

TINY = st.sampled_from([5e-324, 1e-310, 1e-300, 1e-200, 1e-30, 1e-12, 2.2250738585072014e-308])
RATE_OR_TIME = ("lr", "time", "horizon", "epochs")


def _float_parameters(chapter_id):
    return [i for i in load(chapter_id).describe() if i.base is float and any(w in i.name for w in RATE_OR_TIME)]


@pytest.mark.parametrize("chapter_id", chapter_ids())
def test_every_time_horizon_and_rate_has_a_lower_bound_that_means_something(chapter_id):
    for info in _float_parameters(chapter_id):
        bound = info.bounds["min"] if info.bounds["min"] is not None else info.bounds["gt"]
        assert bound is not None and (bound > 0 or "log10" in info.name), (info.name, info.bounds)


@pytest.mark.parametrize("chapter_id", chapter_ids())
@FAST
@given(tiny=TINY, sign=st.sampled_from([1, -1]), data=st.data())
def test_tiny_values_are_a_run_or_a_one_line_refusal(chapter_id, tiny, sign, data):
    """Any float parameter (or one entry of a list of floats) set to a tiny or subnormal value: validation and
    the cost check either accept it or refuse it in one line; the estimate never raises anything else."""
    chapter = load(chapter_id)
    floats = [i for i in chapter.describe() if i.base is float]
    info = data.draw(st.sampled_from(floats))
    value = [sign * tiny] * max(1, info.bounds["min_len"] or 1) if info.is_list else sign * tiny
    try:
        params = chapter.validate({info.name: value})
        check_cost(chapter, params)
        assert math.isfinite(params.cost().seconds)
    except ParameterError as err:
        assert "\n" not in str(err)


# ----------------------------------------------------------------------------------------------
# 3. The papermill route refuses a name given twice, as `lib run` does
# ----------------------------------------------------------------------------------------------

NAME = st.from_regex(r"[a-z_]{1,8}", fullmatch=True, alphabet=UNICODE)


@FAST
@given(name=NAME, other=NAME, how=st.sampled_from(["-p -p", "-p -y", "-y -y", "-y", "-r -p", "-b -p"]))
def test_a_name_given_twice_on_papermills_command_line_is_refused(name, other, how):
    first, *second = how.split()
    given_once = [*PAPERMILL, "-p", name, "1"] + ([] if other == name else ["-p", other, "2"])
    assert repeated_names(given_once) is None

    def spelled(option, value):
        if option == "-y":
            return ["-y", f"{name}: {value}"]
        if option == "-b":
            return ["-b", base64.b64encode(f"{name}: {value}".encode()).decode()]
        return [option, name, str(value)]

    argv = [*PAPERMILL, *spelled(first, 1), *(spelled(second[0], 2) if second else [])]
    if not second:  # twice in one YAML mapping
        argv = [*PAPERMILL, "-y", f"{{{name}: 1, {name}: 2}}"]
    problem = repeated_names(argv)
    assert problem is not None and f"parameter {name!r} is given twice" in problem and "\n" not in problem


def test_a_name_given_twice_through_a_parameters_file_is_refused(tmp_path):
    """papermill's `-f FILE` (relative to papermill's working folder) counts like `-y`: a name in the file and on
    the command line, or twice in the file, is refused; a file given once with distinct names runs."""
    (tmp_path / "p.yaml").write_text("d: 8\nsteps: 50\n")
    (tmp_path / "twice.yaml").write_text("d: 8\nd: 9\n")
    assert repeated_names([*PAPERMILL, "-f", "p.yaml"], tmp_path) is None
    assert "(-f and -p)" in repeated_names([*PAPERMILL, "-f", "p.yaml", "-p", "d", "9"], tmp_path)
    assert "(-f and -f)" in repeated_names([*PAPERMILL, "-f", "twice.yaml"], tmp_path)
    assert repeated_names([*PAPERMILL, "-f", "missing.yaml", "-p", "d", "9"], tmp_path) is None


# ----------------------------------------------------------------------------------------------
# 4. `lib claims` validates what a metrics file records
# ----------------------------------------------------------------------------------------------


FINGERPRINT = "f" * 64  # the code fingerprint (hashing every module of a chapter) is not what is tested here


def _record(chapter_id, parameters):
    from lib.book.verdicts.claims import RUN_KEY

    return {RUN_KEY: {"chapter": chapter_id, "parameters": parameters, "code_fingerprint": FINGERPRINT}}


@pytest.fixture(scope="module")
def same_code():
    import lib.book.run.notebook
    import lib.book.verdicts.claims

    with pytest.MonkeyPatch.context() as patch:
        for module in (lib.book.verdicts.claims, lib.book.run.notebook):
            patch.setattr(module, "chapter_fingerprint", lambda chapter_id: FINGERPRINT)
        yield


@pytest.mark.parametrize("chapter_id", ["one_layer", "two_layer"])
@FAST
@given(data=st.data())
def test_recorded_parameters_are_validated_as_the_chapter_validates_them(same_code, chapter_id, data):
    chapter = load(chapter_id)
    defaults = json.loads(json.dumps(chapter.defaults()))
    assert foreign_metrics(chapter, _record(chapter_id, defaults)) is None
    name = data.draw(st.sampled_from(sorted(defaults)))
    damage = data.draw(st.sampled_from(["drop", "string", "negative", "huge"]))
    recorded = dict(defaults)
    if damage == "drop":
        del recorded[name]
    else:
        recorded[name] = {"string": "x\u00e9", "negative": -(10**9), "huge": 10**30}[damage]
    try:
        chapter.validate({k: v for k, v in recorded.items()})
        refused = damage == "drop"
    except ParameterError:
        refused = True
    if refused:
        problem = foreign_metrics(chapter, _record(chapter_id, recorded))
        assert problem is not None and (name in problem or "the chapter refuses" in problem)


@FAST
@given(
    text=st.sampled_from(
        [
            '{"a": 1, "a": 2}',
            '{"a": NaN}',
            '{"a": [Infinity]}',
            '{"e": {"value": 1, "low": 2, "high": 1, "n": 3, "method": "m"}}',
            '{"e": {"value": 1, "low": 0, "high": 2, "n": -1, "method": "m"}}',
            '{"e": {"value": "x", "low": 0, "high": 2, "n": 1, "method": "m"}}',
        ]  # fmt: skip
    )
)
def test_malformed_metrics_are_called_malformed(tmp_path_factory, text):
    folder = tmp_path_factory.mktemp("m")
    (folder / "one_layer.metrics.json").write_text(text)
    with pytest.raises(MetricsError, match="malformed") as refused:
        read_metrics(folder, "one_layer")
    assert "\n" not in str(refused.value)


# ----------------------------------------------------------------------------------------------
# 5. `lib page`: only a chapter notebook, only a usable output
# ----------------------------------------------------------------------------------------------

NOT_A_CHAPTER = st.sampled_from(
    [b"", b"not json", b"[]", b"{}", b'{"cells": 3}', b"\xff\xfe", b'{"nbformat": 4, "nbformat_minor": 5, '
     b'"metadata": {}, "cells": []}', b'{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": '
     b'[{"cell_type": "code", "source": "start_chapter(\\"nosuch\\", 1)", "metadata": {}, "outputs": [], '
     b'"execution_count": null}]}', b"[" * 100_000]
)  # fmt: skip


@pytest.mark.filterwarnings("ignore::nbformat.warnings.MissingIDFieldWarning")  # one of the inputs has no cell ids
@WITH_CAPSYS
@given(content=NOT_A_CHAPTER)
def test_page_refuses_what_is_not_a_chapter_notebook_in_one_line(tmp_path_factory, capsys, content):
    folder = tmp_path_factory.mktemp("p")
    (folder / "x.ipynb").write_bytes(content)
    capsys.readouterr()
    assert main(["page", str(folder / "x.ipynb")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "x.ipynb" in err, err
    assert sorted(p.name for p in folder.iterdir()) == ["x.ipynb"]


def _chapter_notebook(path):
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell('run = start_chapter("one_layer", globals())', execution_count=1)]
    nbformat.write(notebook, path)


@pytest.mark.parametrize("target", ["lib/x.html", "README.html", "tests/notebooks/x.html", "/proc/x.html", "{dir}"])
def test_page_output_has_the_checks_of_an_output_folder(tmp_path, capsys, target):
    from lib.util.paths import ROOT

    _chapter_notebook(tmp_path / "one_layer.ipynb")
    output = target.format(dir=tmp_path) if target.startswith("{") else target
    before = sorted(os.listdir(ROOT))
    assert main(["page", str(tmp_path / "one_layer.ipynb"), "-o", output]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: -o ") and err.count("\n") == 1, err
    assert sorted(os.listdir(ROOT)) == before and not (ROOT / "lib" / "x.html").exists()


# ----------------------------------------------------------------------------------------------
# 6. The evidence reader: files that are not what they say
# ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shard(tmp_path_factory):
    """A sound shard of a tiny declared set, written by the store (function: a stand-in; only reading matters)."""
    from lib.book.evidence.store import write_shard

    folder = tmp_path_factory.mktemp("shard") / "s"
    arrays = {"a": np.arange(6.0).reshape(2, 3), "b": np.arange(4, dtype=np.int32)}
    recorded = {name: [str(a.dtype), list(a.shape)] for name, a in arrays.items()}
    write_shard(folder, arrays, {"arrays": recorded})
    return folder, recorded


def test_npz_headers_are_read_without_decompressing_and_checked(shard, tmp_path):
    from lib.book.evidence.store import npz_headers

    folder, recorded = shard
    assert npz_headers(folder / "arrays.npz") == recorded
    big = tmp_path / "big.npz"
    np.savez_compressed(big, a=np.zeros((4000, 1000)))  # 32 MB when read, a few tens of KB on disk
    assert npz_headers(big) == {"a": ["float64", [4000, 1000]]}
    truncated = tmp_path / "lying.npz"
    with zipfile.ZipFile(truncated, "w") as archive:
        archive.writestr("a.npy", _npy_header((10**6,)))  # a header of 8 MB of floats, and nothing after it
    with pytest.raises(ValueError, match="fewer bytes"):
        npz_headers(truncated)


def test_read_arrays_gives_what_np_load_gives(tmp_path):
    """One header parse per array instead of two: the same names, values, dtypes, shapes and layout as np.load,
    writable, for Fortran-ordered, 0-d, empty, integer, boolean and compressed arrays."""
    from lib.book.evidence.store import npz_layout, read_arrays

    arrays = {
        "f": np.asfortranarray(np.arange(12.0).reshape(3, 4)),
        "scalar": np.float32(2.5),
        "empty": np.zeros((0, 3)),
        "ints": np.arange(5, dtype=np.int64)[::-1],
        "flags": np.array([True, False]),
    }
    for save in (np.savez, np.savez_compressed):
        path = tmp_path / f"{save.__name__}.npz"
        save(path, **arrays)
        read = read_arrays(path, npz_layout(path))
        with np.load(path, allow_pickle=False) as npz:
            assert list(read) == npz.files
            for name in npz.files:
                expected = npz[name]
                assert read[name].dtype == expected.dtype and read[name].shape == expected.shape
                assert read[name].flags.f_contiguous == expected.flags.f_contiguous and read[name].flags.writeable
                np.testing.assert_array_equal(read[name], expected)


def _npy_header(shape):
    import io

    from numpy.lib import format as npy

    buffer = io.BytesIO()
    npy.write_array_header_1_0(buffer, {"descr": "<f8", "fortran_order": False, "shape": shape})
    return buffer.getvalue()


@settings(max_examples=12, deadline=None)
@given(
    date=st.sampled_from(["2999-01-01T00:00:00+00:00", "9999-12-31", "2030-01-01T00:00:00"]),
    wall=st.sampled_from([math.inf, -1.0, math.nan, 1e400]),
)
def test_a_date_in_the_future_or_an_impossible_wall_time_is_refused(date, wall):
    from lib.book.evidence.declare import config_hash
    from lib.book.evidence.store import provenance_problem

    sound = {
        "commit": "unknown",
        "date": "2026-01-01T00:00:00+00:00",
        "host": "h",
        "versions": {"python": "3", "numpy": "2"},
        "threads": 1,
        "wall_seconds": 1.0,
        "config": {},
        "config_hash": config_hash({}),
    }
    assert provenance_problem(sound) is None
    assert "'date'" in provenance_problem({**sound, "date": date})
    assert "'wall_seconds'" in provenance_problem({**sound, "wall_seconds": wall})


def test_a_provenance_that_is_a_fifo_or_a_folder_is_corrupt_and_never_read(tmp_path, monkeypatch):
    import lib.book.evidence.store as store
    from lib.book.evidence import registry

    evidence_set = registry.get("sim_observations", "swing")
    sid = evidence_set.shard_ids("smoke")[0]
    folder = store.shard_dir(evidence_set, sid, "smoke", tmp_path)
    folder.mkdir(parents=True)
    os.mkfifo(folder / "provenance.json")
    (folder / "arrays.npz").mkdir()
    state = store.check_shard(evidence_set, sid, "smoke", tmp_path)  # would block on the FIFO if it were opened
    assert state.status == "corrupt" and "not a regular file" in state.problem
    os.unlink(folder / "provenance.json")
    (folder / "provenance.json").write_text("[" * 100_000 + "]" * 100_000)
    (folder / "arrays.npz").rmdir()
    (folder / "arrays.npz").write_bytes(b"")
    state = store.check_shard(evidence_set, sid, "smoke", tmp_path)
    assert state.status == "corrupt" and "provenance.json" in state.problem


@pytest.mark.parametrize("command", [["status"], ["stale"], ["list"]])
def test_the_evidence_command_line_checks_the_environment(tmp_path, monkeypatch, capsys, command):
    from lib.book.commands.evidence import main as evidence_main

    (tmp_path / "file").write_text("")
    monkeypatch.setenv("LIB_CACHE_DIR", str(tmp_path / "file"))
    assert evidence_main(command) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: LIB_CACHE_DIR") and err.count("\n") == 1


# ----------------------------------------------------------------------------------------------
# 7. Faults: a full disk and SIGTERM leave the output folder as it was, and no lock file
# ----------------------------------------------------------------------------------------------


@pytest.fixture
def toy(tmp_path, monkeypatch):
    import lib.book.chapters.declaration
    from lib.book.chapters.declaration import Chapter
    from tests.unit.test_runner import TOY, ToyParameters

    (tmp_path / "toy.py").write_text(TOY)
    monkeypatch.setattr(lib.book.chapters.declaration, "NOTEBOOKS", tmp_path)
    monkeypatch.setattr(lib.book.run.runner, "load", lambda _id: Chapter(id="toy", title="toy", params=ToyParameters))
    out = tmp_path / "out"
    out.mkdir()
    (out / "toy.ipynb").write_text("previous")
    (out / "toy.metrics.json").write_text("{}")
    return out


def _listing(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir()}


@pytest.mark.parametrize("where", ["execute", "publish"])
def test_a_full_disk_gives_one_line_and_leaves_the_output_folder_as_it_was(toy, monkeypatch, capsys, where):
    before = _listing(toy)

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(toy / "x"))

    monkeypatch.setattr(lib.book.run.runner, "_execute" if where == "execute" else "publish", full)
    if where == "publish":
        monkeypatch.setattr(lib.book.run.runner, "_execute", lambda chapter, o, staging, *a: _staged(staging))
    assert main(["run", "toy", "--output-dir", str(toy)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: chapter toy: No space left on device") and err.count("\n") == 1, err
    assert _listing(toy) == before


def _staged(staging):
    (staging / "toy.metrics.json").write_text("{}")
    (staging / "toy.ipynb").write_text("{}")
    return staging / "toy.ipynb"


def test_sigterm_is_handled_as_ctrl_c_with_its_own_exit_code(toy, monkeypatch, capsys):
    before = _listing(toy)

    def terminated(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(lib.book.run.runner, "_execute", terminated)
    assert main(["run", "toy", "--output-dir", str(toy)]) == 143
    assert capsys.readouterr().err == "terminated; nothing was published\n"
    assert _listing(toy) == before
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


# ----------------------------------------------------------------------------------------------
# 8. The book never shows a chapter without its metrics
# ----------------------------------------------------------------------------------------------


def test_a_notebook_without_its_metrics_stops_the_pages(tmp_path):
    from lib.book.pages.generated import book_metrics

    (tmp_path / "one_layer.ipynb").write_text("{}")
    with pytest.raises(MetricsError, match="one_layer.metrics.json: missing beside its executed notebook"):
        book_metrics(tmp_path, [load("one_layer")])


def test_make_rebuilds_a_chapter_whose_metrics_were_deleted():
    from lib.util.paths import ROOT

    text = (ROOT / "Makefile").read_text()
    assert "$(RUNS)/%.ipynb $(RUNS)/%.metrics.json: notebooks/%.py" in text
    assert "$(HTML_STAMP): $(EXECUTED) $(METRICS)" in text and "scorecard.md: $(EXECUTED) $(METRICS)" in text


# ----------------------------------------------------------------------------------------------
# 9. A metric these parameters skip never crashes a checked line
# ----------------------------------------------------------------------------------------------


@WITH_CAPSYS
@given(reason=text(min_size=1, max_size=40), condition=st.sampled_from(["> 1", "<= 1e-4", "== true"]))
def test_a_skipped_metric_is_printed_with_its_reason_in_a_checked_line(
    same_code, tmp_path_factory, capsys, reason, condition
):
    from lib.book.run.notebook import ChapterRun

    chapter = load("sim_observations")
    run = ChapterRun(chapter, chapter.validate({}), tmp_path_factory.mktemp("r"))
    capsys.readouterr()
    run.skip("terminal_slowdown_ratio", reason)
    assert is_not_computed(run.metrics["terminal_slowdown_ratio"])
    run.headline(checks={"terminal_slowdown_ratio": condition})
    assert capsys.readouterr().out.startswith("terminal_slowdown_ratio = ")


# ----------------------------------------------------------------------------------------------
# 10. A run whose output folder is not known writes a file of its own, and says where
# ----------------------------------------------------------------------------------------------


def test_without_a_known_output_the_metrics_go_to_a_file_of_their_own(monkeypatch):
    import lib.book.run.notebook

    monkeypatch.delenv("LIB_OUTPUT_DIR", raising=False)
    monkeypatch.setattr(lib.book.run.notebook, "papermill_output_path", lambda injected=None: None)
    names = {lib.book.run.notebook.unique_metrics_name("one_layer") for _ in range(3)}
    assert all(n.startswith("one_layer.") and n.endswith(".metrics.json") and str(os.getpid()) in n for n in names)


def test_the_readmes_example_paths_are_ignored_by_git():
    import subprocess

    from lib.util.paths import ROOT

    ignored = subprocess.run(
        ["git", "-C", str(ROOT), "check-ignore", "nb.ipynb", "out/one_layer.ipynb"], capture_output=True, text=True
    )
    assert ignored.stdout.split() == ["nb.ipynb", "out/one_layer.ipynb"]
