"""The book's one number formatter (lib/util/numbers.py): digits justified by the interval, at most 4 in prose."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lib.book.run.notebook import glued_metric
from lib.util.numbers import (
    format_estimate,
    format_interval,
    format_number,
    interval_text,
    number_from_text,
    significant,
    tex_number,
    tex_p_value,
    tex_power_of_ten,
)
from lib.util.stats import Estimate


@pytest.mark.parametrize(
    ("value", "low", "high", "text"),
    [
        (0.09073493257164955, 0.05951, 0.1423, "0.091 [0.060, 0.14]"),  # issue 22's turn-back
        (1.3e-4, 8.222e-05, 0.0001816, "1.3 × 10⁻⁴ [8.2 × 10⁻⁵, 1.8 × 10⁻⁴]"),  # was "0.000 [8.222e-05, 0.0001816]"
        (0.0, 1.08e-19, 0.0019, "0 [0, 0.0019]"),  # a Wilson end at rounding error of 0 is 0
        (21.506530220433667, 20.73, 22.23, "21.5 [20.7, 22.2]"),
        (0.948, 0.9373820458455553, 0.958, "0.95 [0.94, 0.96]"),
        (-0.02, -0.03, 0.25, "-0.020 [-0.030, 0.25]"),  # a sign below the interval's digits stays visible
        (2.5, 2.4999, 2.5001, "2.500 [2.500, 2.500]"),  # never more than 4 digits
    ],
)
def test_an_interval_shows_the_digits_it_justifies(value, low, high, text):
    assert format_interval(value, low, high) == text


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (1.2126873109228488e-29, "1.213\u00a0×\u00a010⁻²⁹"),
        (0.02261831859807073, "0.02262"),
        (0.2, "0.2"),
        (70543.0, "7.054 × 10⁴"),
        (9999.7, "10⁴"),
        (0.0009999, "9.999 × 10⁻⁴"),
        (3, "3"),
        (True, "true"),
    ],
)
def test_a_point_value_has_at_most_four_significant_digits(x, text):
    assert format_number(x) == text


def _digits(text: str) -> int:
    if "\u00a0" not in text and text != text.translate(str.maketrans("", "", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")):
        return 1  # "10⁻¹⁰": a power of ten alone
    mantissa = text.split("\u00a0")[0].lstrip("−-").replace(".", "").lstrip("0")
    return len(mantissa)


finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False).filter(lambda x: x == 0 or abs(x) > 1e-12)


@given(st.lists(finite, min_size=3, max_size=3))
def test_the_printed_value_never_looks_outside_its_interval(numbers):
    low, value, high = sorted(numbers)
    texts = format_estimate(value, low, high)
    shown_value, shown_low, shown_high = (number_from_text(t) for t in texts)
    assert shown_low <= shown_value <= shown_high
    assert all(_digits(t) <= 4 for t in texts)


@given(finite)
def test_significant_round_trips_within_its_digits(x):
    text = significant(x, 4)
    assert _digits(text) <= 4
    assert math.isclose(number_from_text(text), x, rel_tol=5e-4, abs_tol=1e-300)


def test_metrics_are_glued_as_formatted_text():
    estimate = {"value": 0.09073493257164955, "low": 0.05951, "high": 0.1423, "n": 60, "method": "bootstrap"}
    assert glued_metric("turn_back", estimate) == {
        "turn_back": "0.091",
        "turn_back_ci": "[0.060, 0.14]",
        "turn_back_n": 60,
    }
    assert glued_metric("err", 1.2126873109228488e-29) == {
        "err": "1.213\u00a0×\u00a010⁻²⁹",
        "err_percent": "1.213\u00a0×\u00a010⁻²⁷%",
    }
    assert glued_metric("count", 3) == {"count": 3}
    assert glued_metric("monotone", True) == {"monotone": "true"}
    p = {"value": 4.6360510271835614e-11, "low": 4.636e-11, "high": 4.636e-11, "n": 546, "method": "p-value, Q"}
    assert glued_metric("q", p) == {"q": "4.6\u00a0×\u00a010⁻¹¹", "q_ci": "", "q_n": 546}
    assert glued_metric("missing", None) == {"missing": "not computed"}


def test_estimates_display_through_the_formatter():
    estimate = Estimate(0.948, 0.9373820458455553, 0.958, 200, "wilson 95%")
    assert str(estimate) == "0.95 [0.94, 0.96] (n = 200, wilson 95%)"
    assert interval_text(estimate) == interval_text(estimate.as_dict()) == "0.95 [0.94, 0.96]"
    assert interval_text(None) == interval_text({"value": float("nan"), "low": 0, "high": 1}) == "n/a"


def test_headline_lines_are_rounded_and_formatted_never_a_dict():
    from lib.book.run.notebook import headline_text

    estimate = {"value": 0.2345, "low": 0.2198, "high": 0.2512, "n": 2000, "method": "wilson 95%"}
    assert headline_text(estimate, 3) == "0.234 [0.22, 0.251], n = 2000"
    assert headline_text(True, 3) == "true"
    assert headline_text([0.50213, 2.0], 3) == "[0.502, 2]"
    assert headline_text(0.0803123, 3) == "0.0803"
    narrow = {"value": 0.9995, "low": 0.9982, "high": 0.9999, "n": 4000, "method": "wilson 95%"}
    assert headline_text(narrow, 2) == "1, n = 4000"  # never "1 [1, 1]"


def test_a_mapping_is_shown_as_a_formatted_table():
    from lib.book.run.notebook import mapping_table

    table = mapping_table({"eq11_conserved": True, "error": 1.2126873109228488e-29}, "identity", "holds")
    assert table.data.splitlines() == [
        "| identity | holds |",
        "|---|---|",
        "| `eq11_conserved` | true |",
        "| `error` | 1.213\u00a0×\u00a010⁻²⁹ |",
    ]


def test_lists_and_parameters_are_glued_as_formatted_text():
    assert glued_metric("by_d", [0.09118281056631164, 0.12123135384598152]) == {"by_d": "0.09118, 0.1212"}
    assert glued_metric("steps", 100000.0) == {"steps": "10⁵", "steps_percent": "10⁷%"}
    assert glued_metric("agreement", 0.9973)["agreement_percent"] == "99.73%"  # never myst-nb's ":.1%" on text


def test_a_mapping_shows_its_readers_labels_when_given():
    from lib.book.run.notebook import mapping_table

    table = mapping_table({"eq11_conserved": True}, "step", "holds", labels={"eq11_conserved": "$C$ is conserved"})
    assert table.data.splitlines()[2] == "| $C$ is conserved | true |"


@pytest.mark.parametrize(
    ("x", "tex"),
    [
        (0.001, "10^{-3}"),  # a rate of the paper's grids, as the paper writes it
        (100000, "10^{5}"),  # a step count
        (1e-05, "10^{-5}"),
        (1.3e-4, "1.3 \\times 10^{-4}"),
        (-2.5e7, "-2.5 \\times 10^{7}"),
        (-1e5, "-10^{5}"),
        (0.25, "0.25"),  # within the formatter's fixed range: as format_number writes it
        (10.0, "10"),
        (3, "3"),
        (True, "true"),
    ],
)
def test_tex_numbers_are_the_formatters_numbers_in_tex(x, tex):
    assert tex_number(x) == tex


def test_a_p_value_in_tex_takes_two_digits():
    assert tex_p_value(1.841e-8) == "1.8 \\times 10^{-8}" and tex_p_value(0.02262) == "0.023"
    assert tex_p_value(0.9978) == "1.0" and tex_p_value(1.025e-4) == "1.0 \\times 10^{-4}"


def test_powers_of_ten_of_a_grid_read_as_the_paper_writes_them():
    assert [tex_power_of_ten(e) for e in (0, 0.5, 1, 1.5, -3)] == ["1", "10^{0.5}", "10", "10^{1.5}", "10^{-3}"]


def test_a_negative_number_has_one_sign_in_both_notations():
    assert format_interval(-0.0022, -0.0040, -0.00044) == "-0.0022 [-0.0040, -4.4\u00a0×\u00a010⁻⁴]"
    assert significant(-1e5, 2, strip=True) == "-10⁵"
    assert number_from_text("−4.4\u00a0×\u00a010⁻⁴") == number_from_text("-4.4\u00a0×\u00a010⁻⁴") == -4.4e-4
    assert number_from_text("−10⁵") == number_from_text("-10⁵") == -1e5


def test_a_vector_reads_as_the_papers_write_one():
    from lib.util.numbers import format_vector

    assert format_vector([1.0, 2.0]) == "(1, 2)" and format_vector((0.05, 1.25)) == "(0.05, 1.25)"
