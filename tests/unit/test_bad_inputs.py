"""Bad inputs of issue 26 §3, one class each: refused before any compute, naming what is wrong.

Property tests (Hypothesis) per class: costs that count every list and the real scaling, values
spelled twice, output folders, text that is not what it looks like, files that are not regular
files. No kernel starts here: the whole module runs in a few seconds.
"""

import math
import os
import stat
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lib.book.chapters.declaration
import lib.book.run.outputs
from lib.book.chapters import chapter_ids, load
from lib.book.chapters.declaration import Chapter, Cost, ParameterError, Parameters, check_cost, param, same_key
from lib.book.chapters.geneft_dynamics import monte_carlo_point_seconds
from lib.book.commands.main import ForeignValue, parse_overrides, parse_value
from lib.book.run.outputs import publish, usable_output_dir
from lib.book.run.papermill_route import look_alike_numbers
from lib.book.verdicts.claims import MetricsError, read_metrics
from lib.util.paths import ROOT, SOURCE_FOLDERS

FAST = settings(max_examples=40, deadline=None)

# ----------------------------------------------------------------------------------------------
# 1. Costs count every list parameter and the real scaling; refusals name the drivers
# ----------------------------------------------------------------------------------------------

DYNAMICS = load("geneft_dynamics")


def _increasing(values):
    return sorted(set(values))


@FAST
@given(
    samples=st.integers(100, 1_000_000),
    sigma=st.lists(st.floats(1e-3, 1e3), min_size=1, max_size=8).map(_increasing),
    ratios=st.lists(st.floats(1e-6, 1e6), min_size=1, max_size=8).map(_increasing),
    clusters=st.lists(st.integers(1, 10_000), min_size=1, max_size=6).map(_increasing),
)
def test_the_monte_carlo_estimate_counts_every_point_at_the_measured_rate(samples, sigma, ratios, clusters):
    """Lead's measurement (loaded 2-core machine): >= 1.2e-4 s per sample and point at 2000 samples, growing as
    samples^1.15; points = (len(sigma_ratios) + len(n_cluster)) x len(theory_lr_ratios)."""
    params = DYNAMICS.validate(
        {"mc_samples": samples, "sigma_ratios": sigma, "theory_lr_ratios": ratios, "n_cluster": clusters}
    )
    points = (len(sigma) + len(clusters)) * len(ratios)
    measured = 1.2e-4 * samples * max(1.0, samples / 2000) ** 0.15
    assert params.cost().seconds >= points * measured * 0.99


def test_the_point_rate_matches_the_measurements_within_a_factor_two():
    for samples, seconds in ((2000, 0.24), (20000, 2.6), (200000, 36.0)):
        assert seconds / 2 <= monte_carlo_point_seconds(samples, 1.0, 1e5) <= seconds * 2.5
    assert monte_carlo_point_seconds(20000, 1e4, 1e5) >= 1.5 * monte_carlo_point_seconds(20000, 1.0, 1e5)


@pytest.mark.parametrize("chapter_id", chapter_ids())
def test_every_list_that_sets_work_counts_in_the_cost(chapter_id):
    """Lengthening any list of a chapter (each value and a neighbour) never lowers the estimate, and
    lengthening a sweep (a list of distinct values) raises it."""
    chapter = load(chapter_id)
    base = chapter.params(**chapter.smoke)
    for info in chapter.describe():
        if not info.is_list or info.base not in (int, float):
            continue
        values = getattr(base, info.name)
        longer = values + ([v * 1.0001 for v in values] if info.base is float else [v + 1 for v in values])
        try:
            params = chapter.validate({**chapter.smoke, info.name: sorted(set(longer))})
        except ParameterError:
            continue  # a joint rule (lengths tied to another list, a bound) the longer list breaks
        assert params.cost().seconds >= base.cost().seconds, info.name
        if info.bounds["distinct"]:  # a sweep: each value is work
            assert params.cost().seconds > base.cost().seconds, info.name


@dataclass(frozen=True)
class Heavy(Parameters):
    n: int = param(1, "work", min=1, max=2**40)
    sizes: list[int] = param([1], "sizes", min=1, min_len=1, distinct=True)
    label: str = param("a", "does nothing")

    def cost(self) -> Cost:
        return Cost(seconds=60.0 * self.n * len(self.sizes), gigabytes=1e-3 * self.n)


HEAVY = Chapter(id="heavy", title="heavy", params=Heavy)


@FAST
@given(n=st.integers(1, 2**40), extra=st.integers(0, 5), label=st.text(alphabet="bcd", min_size=1, max_size=3))
def test_refusals_name_their_drivers_and_never_offer_the_flag_for_the_impossible(n, extra, label):
    params = HEAVY.validate({"n": n, "sizes": list(range(1, extra + 2)), "label": label})
    cost, memory = params.cost(), lib.book.chapters.declaration.physical_memory_gb()
    impossible = cost.seconds > lib.book.chapters.declaration.IMPOSSIBLE_SECONDS or cost.gigabytes > 100 * memory
    expensive = (
        cost.seconds > lib.book.chapters.declaration.MAX_SECONDS
        or cost.gigabytes > lib.book.chapters.declaration.MEMORY_FRACTION * memory
    )
    if not expensive:
        check_cost(HEAVY, params)
        return
    with pytest.raises(ParameterError) as refused:
        check_cost(HEAVY, params)
    message = str(refused.value)
    assert "n=" in message and "label" not in message  # the driver named, the bystander not
    assert ("impossible" in message) == impossible and ("--allow-expensive" in message) == (not impossible)
    if impossible:
        with pytest.raises(ParameterError, match="impossible"):
            check_cost(HEAVY, params, allow_expensive=True)
    else:
        check_cost(HEAVY, params, allow_expensive=True)


# ----------------------------------------------------------------------------------------------
# 2. A value spelled twice in a list that must be distinct
# ----------------------------------------------------------------------------------------------

DISTINCT = [(c, info) for c in chapter_ids() for info in load(c).describe() if info.bounds["distinct"]]


def _respelled(value, draw):
    """The same value written another way where a number allows it: 1.0 as 1, 0.1 as 1.000000e-01."""
    if isinstance(value, float) and value.is_integer() and draw(st.booleans()):
        return int(value)
    return float(f"{value:e}") if isinstance(value, float) else value


@pytest.mark.parametrize("chapter_id, info", DISTINCT, ids=[f"{c}.{i.name}" for c, i in DISTINCT])
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_a_repeated_value_is_refused_naming_the_parameter(chapter_id, info, data):
    chapter = load(chapter_id)
    values = list(chapter.defaults()[info.name])
    i = data.draw(st.integers(0, len(values) - 1))
    j = data.draw(st.integers(0, len(values)))
    values.insert(j, _respelled(values[i], data.draw))
    with pytest.raises(ParameterError, match=info.name) as refused:
        chapter.validate({info.name: values})
    assert "repeats" in str(refused.value) or "increasing" in str(refused.value)


@FAST
@given(st.integers(-(2**53), 2**53), st.text(alphabet="abcXYZ09:_", min_size=1, max_size=8), st.text(" \t", max_size=2))
def test_spellings_of_one_value_share_a_key(number, name, space):
    assert same_key(number) == same_key(float(number))
    assert same_key(f"{space}{name.upper()}{space}") == same_key(name)


def test_architectures_written_two_ways_are_one():
    with pytest.raises(ParameterError, match="architectures.*'concat:1' and 'concat:01'"):
        load("geneft_statics").validate({"architectures": ["concat:1", "concat:01"]})
    with pytest.raises(ParameterError, match="did you mean 'mod3'"):
        load("geneft_statics").validate({"relations": ["mod3", " Mod3"]})


# ----------------------------------------------------------------------------------------------
# 3. Output folders
# ----------------------------------------------------------------------------------------------

NAMES = st.text(alphabet="abcdefgh_-", min_size=1, max_size=12)


@FAST
@given(folder=st.sampled_from([f for f in SOURCE_FOLDERS if f != "book"] + ["book/x"]), sub=NAMES)
def test_folders_of_the_source_tree_are_refused_and_never_created(folder, sub):
    target = ROOT / folder / "no_such_folder_of_a_test" / sub
    with pytest.raises(ParameterError, match=f"source folder {folder.split('/')[0]}/"):
        usable_output_dir(str(target), "one_layer")
    assert not (ROOT / folder / "no_such_folder_of_a_test").exists()


def test_every_folder_the_repository_tracks_is_a_source_folder():
    """A folder added to the repository is one no run writes into (`.ci` was missing)."""
    import subprocess

    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout (a release archive): no tracked folders to read")

    tracked = subprocess.run(
        ["git", "-C", str(ROOT), "ls-tree", "-d", "--name-only", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.split()
    assert tracked and set(tracked) <= set(SOURCE_FOLDERS)


def test_the_repository_root_is_refused():
    with pytest.raises(ParameterError, match="repository's root"):
        usable_output_dir(str(ROOT), "one_layer")


def test_book_chapters_is_where_the_book_runs():
    assert lib.book.run.outputs.source_folder(ROOT / "book" / "chapters") is None
    assert lib.book.run.outputs.source_folder(ROOT / "runs" / "x") is None


@FAST
@given(st.text(alphabet=" \t\n", max_size=4))
def test_an_empty_path_is_refused(blank):
    with pytest.raises(ParameterError, match="empty"):
        usable_output_dir(blank, "one_layer")


@FAST
@given(extra=st.integers(1, 200))
def test_names_too_long_for_the_file_system_are_refused_before_anything_is_made(tmp_path_factory, extra):
    base = tmp_path_factory.mktemp("long")
    limit = os.pathconf(base, "PC_NAME_MAX")
    with pytest.raises(ParameterError, match="longer than"):
        usable_output_dir(str(base / ("x" * (limit + extra)) / "inner"), "one_layer")
    assert list(base.iterdir()) == []


@pytest.mark.parametrize("name", ["one_layer.ipynb", "one_layer.metrics.json", "one_layer.html"])
def test_a_folder_or_fifo_where_a_file_goes_is_refused(tmp_path, name):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / name).mkdir()
    with pytest.raises(ParameterError, match=f"{name} there is a folder"):
        usable_output_dir(tmp_path / "d", "one_layer")  # the page too: a run without --html removes it
    (tmp_path / "f").mkdir()
    os.mkfifo(tmp_path / "f" / name)
    with pytest.raises(ParameterError, match="not a regular file"):
        usable_output_dir(tmp_path / "f", "one_layer")


@FAST
@given(existing=st.lists(st.booleans(), min_size=2, max_size=4), failing=st.integers(0, 3))
def test_publishing_is_all_or_nothing(tmp_path_factory, existing, failing):
    folder = tmp_path_factory.mktemp("publish")
    staging, out = folder / "staging", folder / "out"
    staging.mkdir(), out.mkdir()
    moves = []
    for k, there in enumerate(existing):
        (staging / f"f{k}").write_text(f"new {k}")
        if there:
            (out / f"f{k}").write_text(f"old {k}")
        moves.append((staging / f"f{k}", out / f"f{k}"))
    before = {p.name: p.read_text() for p in out.iterdir()}
    replace, calls = os.replace, []

    def flaky(source, target):
        calls.append(target)
        if len(calls) == failing + 1 and failing < len(moves):
            raise OSError(28, "No space left on device")
        return replace(source, target)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lib.book.run.outputs.os, "replace", flaky)
        if failing < len(moves):
            with pytest.raises(OSError):
                publish(moves)
            assert {p.name: p.read_text() for p in out.iterdir()} == before
        else:
            publish(moves)
            published = {p.name: p.read_text() for p in out.iterdir()}
            assert published == {f"f{k}": f"new {k}" for k in range(len(moves))}


# ----------------------------------------------------------------------------------------------
# 4. Text that is not what it looks like
# ----------------------------------------------------------------------------------------------

FULL_WIDTH = str.maketrans("0123456789-", "０１２３４５６７８９－")
ARABIC_INDIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")
SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


@FAST
@given(number=st.integers(0, 10**6), table=st.sampled_from([FULL_WIDTH, ARABIC_INDIC, SUPERSCRIPT]))
def test_look_alike_digits_are_never_read_as_a_number(number, table):
    text = str(number).translate(table)
    with pytest.raises(ParameterError, match=r"parameter 'seed'.*not an ASCII|only looks like"):
        load("one_layer").validate({"seed": parse_value("seed", text)})  # never int(text), as papermill reads it


def test_a_yaml_exponent_without_a_dot_is_text_and_the_message_says_how_to_write_it():
    """papermill's YAML 1.1 reads `-y '{lr: 1e-3}'` as the text '1e-3' (`parse_overrides`, as papermill does)."""
    with pytest.raises(ParameterError, match=r"parameter 'lr' must be .*'1e-3'.*write 1\.0e-3"):
        load("one_layer").validate(parse_overrides([], ["{lr: 1e-3}"]))
    assert load("one_layer").validate(parse_overrides([], ["{lr: 1.0e-3}"])).lr == 1e-3


@FAST
@given(
    mantissa=st.sampled_from(["1", "25", "1.", "1.5", ".5", "-3", "+2.0"]),
    marker=st.sampled_from(["e", "E"]),
    sign=st.sampled_from(["", "+", "-"]),
    exponent=st.integers(0, 300),
)
def test_the_written_form_the_message_suggests_is_read_as_the_same_float(mantissa, marker, sign, exponent):
    """Every exponent form that papermill's YAML 1.1 reads as text ("1e300", and "1.0e300": the exponent needs its
    sign too) gets a suggestion that it reads as that number."""
    text = f"{mantissa}{marker}{sign}{exponent}"
    read = parse_overrides([], [f"{{x: {text}}}"])["x"]
    hint = lib.book.chapters.declaration.yaml_number_hint(text)
    if isinstance(read, float):
        return
    assert isinstance(read, str) and "; write " in hint
    assert parse_overrides([], [f"{{x: {hint.rsplit(' ', 1)[1]}}}"])["x"] == float(text)
    as_integer = lib.book.chapters.declaration.yaml_number_hint(text, integer=True)  # for an integer parameter
    if as_integer:
        written = parse_overrides([], [f"{{x: {as_integer.rsplit(' ', 1)[1]}}}"])["x"]
        assert type(written) is int and written == float(text)
    else:
        assert not float(text).is_integer() or abs(float(text)) > 2**53


@FAST
@given(number=st.integers(0, 10**6), table=st.sampled_from([FULL_WIDTH, ARABIC_INDIC]), plain=st.integers(0, 99))
def test_the_papermill_route_refuses_the_numbers_papermill_reads_from_look_alike_digits(number, table, plain):
    """papermill's -p reads '１２' with int(): the chapter's first cell reads its command line and refuses."""
    argv = ["python", "/v/bin/papermill", "in.ipynb", "out.ipynb", "-p", "d", str(plain)]
    assert look_alike_numbers(argv) is None
    problem = look_alike_numbers([*argv, "-p", "seed", str(number).translate(table)])
    assert problem.startswith("parameter 'seed': papermill read ") and f"as the number {number}" in problem


@FAST
@given(number=st.floats(0.001, 1e3), minus=st.sampled_from(["\u2212", "\u2013", "\uff0d", "\ufe63"]))
def test_minus_signs_that_are_not_hyphen_minus_are_named(number, minus):
    with pytest.raises(ParameterError, match="MINUS|DASH|HYPHEN") as refused:
        load("one_layer").validate({"lr": parse_value("lr", f"{minus}{number}")})
    assert "'lr'" in str(refused.value)


FOREIGN_YAML = st.sampled_from(
    ["!!set {1, 2}", "!!binary aGk=", "!!omap [{a: 1}]", "!custom 3",
     "!!python/tuple [1, 2]", "[1, !!set {2}]"]
)  # fmt: skip


@FAST
@given(name=st.sampled_from(sorted(load("two_layer").defaults())), text=FOREIGN_YAML)
def test_yaml_kinds_no_parameter_takes_are_named_with_the_parameter(name, text):
    with pytest.raises(ParameterError, match=f"parameter '{name}': the YAML gives"):
        parse_overrides([], [f"{name}: {text}"])
    assert not isinstance(parse_value(name, text), (set, ForeignValue))  # -p keeps the text, as papermill does


# ----------------------------------------------------------------------------------------------
# 5. Files that are not regular files
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["fifo", "folder", "device", "socket"])
def test_metrics_that_are_not_regular_files_are_refused_at_once(tmp_path, kind):
    import socket

    path = tmp_path / "one_layer.metrics.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "device":
        path.symlink_to("/dev/zero")
    else:
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
    with pytest.raises(MetricsError, match="not a regular file|cannot be read"):
        read_metrics(tmp_path, "one_layer")
    assert not stat.S_ISREG(os.stat(path).st_mode)


def test_metrics_reads_are_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(lib.book.verdicts.claims, "MAX_METRICS_BYTES", 100)
    (tmp_path / "one_layer.metrics.json").write_text("{" + " " * 200 + "}")
    with pytest.raises(MetricsError, match="larger than"):
        read_metrics(tmp_path, "one_layer")
    (tmp_path / "one_layer.metrics.json").write_text("[" * 100 + "]" * 100)
    monkeypatch.setattr(lib.book.verdicts.claims, "MAX_METRICS_BYTES", 10**6)
    (tmp_path / "one_layer.metrics.json").write_text("[" * 200_000)
    with pytest.raises(MetricsError):
        read_metrics(tmp_path, "one_layer")


def test_finite_costs_everywhere():
    for chapter_id in chapter_ids():
        chapter = load(chapter_id)
        for values in (chapter.defaults(), chapter.smoke):
            cost = chapter.validate(values).cost()
            assert math.isfinite(cost.seconds) and math.isfinite(cost.gigabytes)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--threads", "２"], "--threads must be a whole number from 1 to 1024, got '２': '２' (FULLWIDTH DIGIT TWO)"),
        (["-p", "seed", "١٢"], "parameter 'seed': papermill read '١٢' as the number 12: '١' (ARABIC-INDIC DIGIT ONE)"),
        (["-y", "fig2a_mu1: [1.0, 1, 2]"], "parameter 'fig2a_mu1' repeats a value: entries 0 and 1 are 1.0 and 1"),
        (["-y", "seed: 2024-01-01"], "parameter 'seed' must be int, got '2024-01-01' (str)"),
        (["-p", "init_draws", "10000000000"], "impossible on this machine, whatever the flags; driven by init_draws="),
    ],
)
def test_the_command_line_refuses_each_class_in_one_line_before_anything_is_written(tmp_path, capsys, args, message):
    from lib.book.commands.main import main

    out = tmp_path / "out"
    assert main(["run", "one_layer", *args, "--output-dir", str(out), "--allow-expensive"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1, err
    assert not out.exists()
