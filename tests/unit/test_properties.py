"""Property-based tests of validation: any value of any type, for any parameter of any chapter, gives
either valid parameters (with a finite cost estimate) or a ParameterError with a short message."""

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from unicode_text import text

from lib.book.chapters import chapter_ids, load
from lib.book.chapters.declaration import ParameterError

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    text(max_size=300),
)
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=12), st.dictionaries(text(max_size=5), SCALARS, max_size=3))


def _outcome(chapter, overrides):
    try:
        params = chapter.validate(overrides)
    except ParameterError as err:
        message = str(err)
        assert 0 < len(message) < 600 and "\n" not in message, message
        return
    cost = params.cost()
    assert math.isfinite(cost.seconds) and math.isfinite(cost.gigabytes) and cost.seconds >= 0 <= cost.gigabytes


@pytest.mark.parametrize("chapter_id", chapter_ids())
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_single_value_is_a_run_or_a_clear_refusal(chapter_id, data):
    chapter = load(chapter_id)
    name = data.draw(st.sampled_from(sorted(chapter.defaults())))
    _outcome(chapter, {name: data.draw(VALUES)})


@pytest.mark.parametrize("chapter_id", chapter_ids())
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_numbers_near_and_beyond_the_declared_ranges(chapter_id, data):
    """Typed values of the right kind, drawn wide: the range checks and `check` never crash."""
    chapter = load(chapter_id)
    overrides = {}
    for info in data.draw(st.lists(st.sampled_from(chapter.describe()), max_size=4, unique_by=lambda i: i.name)):
        scalar = {
            int: st.integers(-(10**12), 10**12),
            float: st.floats(-1e308, 1e308),
            bool: st.booleans(),
            str: text(max_size=20),
        }[info.base]
        if info.bounds["choices"]:
            scalar = st.one_of(scalar, st.sampled_from(info.bounds["choices"]))
        overrides[info.name] = data.draw(st.lists(scalar, max_size=6) if info.is_list else scalar)
    _outcome(chapter, overrides)


@settings(max_examples=300, deadline=None)
@given(text=text(max_size=300))
def test_any_yaml_text_is_a_value_or_a_one_line_refusal(text):
    """-y and the YAML reading of -p: nothing but a value or a short ParameterError, whatever the text."""
    from lib.book.commands.main import parse_overrides, parse_yaml

    for parse in (parse_yaml, lambda t: parse_overrides([], [t])):
        try:
            parse(text)
        except ParameterError as err:
            assert 0 < len(str(err)) < 600 and "\n" not in str(err), str(err)


@pytest.mark.parametrize("chapter_id", chapter_ids())
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_any_command_line_value_is_a_run_or_a_clear_refusal(chapter_id, data):
    """`-p NAME VALUE` with VALUE any text (numbers, YAML lists, junk), read as papermill reads it."""
    from lib.book.commands.main import parse_value

    chapter = load(chapter_id)
    name = data.draw(st.sampled_from(sorted(chapter.defaults())))
    raw = data.draw(st.one_of(text(max_size=40), st.floats().map(repr), st.lists(st.floats(), max_size=4).map(str)))
    try:
        value = parse_value(name, raw)
    except ParameterError as err:  # a look-alike number: one line naming the parameter
        assert repr(name) in str(err) and "\n" not in str(err)
        return
    _outcome(chapter, {name: value})


@pytest.mark.parametrize("chapter_id", chapter_ids())
@pytest.mark.parametrize("extreme", [1e300, -1e300, 1e-300, 1e154, 2**62])
def test_extreme_numbers_in_every_numeric_parameter(chapter_id, extreme):
    """Every int or float parameter (every entry of a list) at an extreme: never an overflow or a nan
    slipping through the checks, only a run or a clear refusal."""
    chapter = load(chapter_id)
    for info in chapter.describe():
        if info.base not in (int, float) or info.base is bool:
            continue
        value = int(extreme) if info.base is int and abs(extreme) >= 1 else extreme
        default = info.default if info.default is not None else [value]
        _outcome(chapter, {info.name: [value] * max(len(default), 1) if info.is_list else value})
