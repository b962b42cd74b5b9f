"""The book's one number formatter: every number a page shows goes through `format_number` or `format_estimate`.

Rules (issue 22, "clean pages"):

- an estimate shows its value and interval ends to the decimal place of the leading digit of the
  interval's half-width: the digits its interval justifies, never fewer than 2 nor more than 4
  significant digits per number;
- the printed value never falls outside its printed interval (a digit is added until it does not);
- a point value shows at most 4 significant digits, trailing zeros dropped;
- numbers outside [1e-3, 1e4) are written in scientific notation as a reader writes it, with
  Unicode superscripts so that it reads the same in Markdown, in plain text pasted by glue and in a
  terminal: "1.3 × 10⁻⁴", "10⁵" (no-break spaces around the ×, so that it never breaks across lines);
- a negative number has the same sign "-" in both notations, so that an interval reads one way.
"""

from __future__ import annotations

import math
from typing import Any

MAX_DIGITS = 4
MIN_DIGITS = 2
P_VALUE_DIGITS = 2  # a p-value's two digits say all it can
FIXED_RANGE = (1e-3, 1e4)
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
_FROM_SUPERSCRIPT = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")
TIMES = "\u00a0×\u00a0"  # no-break spaces: a number never wraps at its ×


def _exponent(x: float) -> int:
    return math.floor(math.log10(abs(x)))


def significant(x: float, digits: int, *, strip: bool = False) -> str:
    """`x` to `digits` significant digits: fixed notation in [1e-3, 1e4), scientific outside ("1.3 × 10⁻⁴").

    `strip` drops trailing zeros (a point value); an interval keeps them, so that its three
    numbers show the same decimal place.
    """
    return reader_notation(_plain(x, digits, strip=strip))


def _plain(x: float, digits: int, *, strip: bool = False) -> str:
    """`significant` in Python's notation ("1.3e-04"), which `float` reads back."""
    if not math.isfinite(x):
        return str(x)
    if x == 0:
        return "0"
    digits = max(1, digits)
    rounded = float(f"{x:.{digits - 1}e}")  # the exponent after rounding (9.996 -> 10.00)
    e = _exponent(rounded)
    if FIXED_RANGE[0] <= abs(rounded) < FIXED_RANGE[1]:
        decimals = max(0, digits - 1 - e)
        text = f"{rounded:.{decimals}f}"
        if strip and "." in text:
            text = text.rstrip("0").rstrip(".")
        return text
    mantissa, exponent = f"{rounded:.{digits - 1}e}".split("e")
    if strip and "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}e{exponent}"


def reader_notation(text: str) -> str:
    """Python's scientific notation as a reader writes it: "1.3e-04" -> "1.3 × 10⁻⁴", "1e+05" -> "10⁵",
    "-1e+05" -> "-10⁵" (the sign as fixed notation writes it: "-0.0022 [-0.0040, -4.4 × 10⁻⁴]"); any other text
    as it is."""
    mantissa, e, exponent = text.partition("e")
    if not e or not exponent.lstrip("+-").isdigit():
        return text
    power = "10" + str(int(exponent)).translate(_SUPERSCRIPT)
    if mantissa.lstrip("-") == "1":
        return ("-" if mantissa.startswith("-") else "") + power
    return f"{mantissa}{TIMES}{power}"


def number_from_text(text: str) -> float:
    """The number a reader sees in `significant`'s text: "1.3 × 10⁻⁴" -> 1.3e-4, "-10⁵" -> -1e5, "0.25" -> 0.25
    (a sign written as the minus "−" is read too)."""
    mantissa, times, power = text.partition(TIMES)
    if not times and text.lstrip("−-").startswith("10") and text != text.translate(_FROM_SUPERSCRIPT):
        mantissa, power = ("-1" if text.startswith(("−", "-")) else "1"), text.lstrip("−-")
    mantissa = mantissa.replace("−", "-")
    return float(f"{mantissa}e{power[2:].translate(_FROM_SUPERSCRIPT)}") if power else float(mantissa)


def format_number(x: Any) -> str:
    """A point value: an int as is, a float to at most 4 significant digits, a bool as true/false."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        return significant(x, MAX_DIGITS, strip=True)
    return str(x)


def format_vector(values: Any) -> str:
    """A vector as the papers write one, each entry through `format_number`: [1.0, 2.0] -> "(1, 2)"."""
    return "(" + ", ".join(format_number(float(v)) for v in values) + ")"


def tex_number(x: Any) -> str:
    """`format_number` in TeX, for Markdown with typeset mathematics (`ChapterRun.prose`): a power of ten
    outside [0.1, 10] as the power ("10^{-3}", "10^{5}"), scientific notation with a times sign
    ("1.3 \\times 10^{-4}"), anything else as `format_number` writes it."""
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        return format_number(x)
    decade = round(math.log10(x)) if x > 0 else 0
    if abs(decade) >= 2 and math.isclose(x, 10.0**decade, rel_tol=1e-9):
        return f"10^{{{decade}}}"
    if isinstance(x, int):
        return str(x)
    return _tex(_plain(x, MAX_DIGITS, strip=True))


def format_p_value(p: float) -> str:
    """A p-value: `P_VALUE_DIGITS` significant digits, trailing zeros kept ("1.0", "0.020", "1.0 × 10⁻⁴")."""
    return significant(p, P_VALUE_DIGITS)


def tex_p_value(p: float) -> str:
    """`format_p_value` in TeX ("1.0 \\times 10^{-4}")."""
    return _tex(_plain(p, P_VALUE_DIGITS))


def _tex(plain: str) -> str:
    """A number in Python's notation ("1.3e-04") in TeX ("1.3 \\times 10^{-4}"; "1e-04" as "10^{-4}")."""
    mantissa, _, exponent = plain.partition("e")
    if not exponent:
        return mantissa
    power = f"10^{{{int(exponent)}}}"
    return {"1": power, "-1": "-" + power}.get(mantissa, mantissa + r" \times " + power)


def tex_power_of_ten(exponent: float) -> str:
    """10**`exponent` in TeX as the paper writes its grids: "1", "10", "10^{0.5}", "10^{-3}"."""
    return {0.0: "1", 1.0: "10"}.get(float(exponent), f"10^{{{float(exponent):g}}}")


def format_percent(x: float) -> str:
    """A fraction as a percentage through `format_number`: 0.0008988 -> "0.08988%", 0.9973 -> "99.73%"."""
    return f"{format_number(100 * float(x))}%"


def snapped(end: Any, value: Any) -> Any:
    """An interval end within rounding error (1e-12 relative) of the estimate is the estimate:
    a Wilson interval for 0 successes has a lower end of about 1e-19, not 0, from floating point."""
    if isinstance(end, float) and isinstance(value, (int, float)) and abs(end - value) <= 1e-12 * max(1.0, abs(value)):
        return value
    return end


def _at_place(x: float, place: int, extra: int) -> str:
    """`x` with its last digit at 10**place (plus `extra` digits), within 2 to 4 significant digits.

    A number smaller than the place keeps 2 digits rather than print as 0, so that a sign or a
    lower end just above 0 stays visible (a condition "> 0" is decided by it)."""
    if x == 0:
        return "0"
    digits = _exponent(x) - place + 1
    return _plain(x, min(MAX_DIGITS, max(MIN_DIGITS, digits + extra)))


def format_estimate(value: float, low: float, high: float) -> tuple[str, str, str]:
    """(value, low, high) as text, to the digits the interval justifies (see the module's rules)."""
    low, high = snapped(low, value), snapped(high, value)
    numbers = (value, low, high)
    if not all(isinstance(x, (int, float)) and math.isfinite(x) for x in numbers):
        return tuple(format_number(x) for x in numbers)
    half_width = (high - low) / 2
    if half_width <= 0:
        return tuple(format_number(x) for x in numbers)
    place = _exponent(half_width)
    for extra in range(MAX_DIGITS):
        texts = tuple(_at_place(float(x), place, extra) for x in numbers)
        shown = [float(t) for t in texts]
        if shown[1] <= shown[0] <= shown[2]:
            break
    return tuple(reader_notation(t) for t in texts)


def format_interval(value: float, low: float, high: float) -> str:
    """ "value [low, high]" to the digits the interval justifies."""
    v, lo, hi = format_estimate(value, low, high)
    return f"{v} [{lo}, {hi}]"


def interval_text(estimate: Any) -> str:
    """ "value [low, high]" of an estimate given as a mapping or an object with value/low/high; "n/a" when
    it is missing or not finite."""
    if estimate is None:
        return "n/a"
    get = estimate.get if isinstance(estimate, dict) else lambda k: getattr(estimate, k, None)
    numbers = [get(k) for k in ("value", "low", "high")]
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in numbers):
        return "n/a"
    return format_interval(*numbers)
