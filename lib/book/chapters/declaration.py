"""What a chapter declares once: its parameters, its claims and its smoke settings (`lib/book/chapters/ID.py`).

Parameters are one frozen dataclass per chapter, the way nanoGPT keeps its config:

    @dataclass(frozen=True)
    class OneLayer(Parameters):
        d: int = param(64, "input dimension", min=1, max=4096)
        mu: list[float] = param([1.0, 2.0], "cluster means mu_p", gt=0, min_len=2)

        def check(self) -> None:              # cross-parameter rules
            if len(self.sigma) != len(self.mu):
                raise ParameterError("sigma needs one entry per mu")

        def cost(self) -> Cost:               # refused before any compute when beyond reason
            return Cost(seconds=..., gigabytes=...)

Type, default, range and one line of meaning sit on the field; constructing the dataclass
validates it. The papermill `parameters` cell, `python -m lib list`, the runner's validation,
the intro's parameter tables and the notebook's `run.params` all come from this one class.

Claims state a condition on a metric and the verdict the chapter expects; see `Claim`.
"""

from __future__ import annotations

import ast
import functools
import math
import os
import re
import reprlib
import types
import typing
import unicodedata
from dataclasses import MISSING, Field, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, ClassVar, Mapping

import numpy as np

from lib.util.paths import NOTEBOOKS
from lib.util.runtime import ALLOW_EXPENSIVE_ENV

# ----------------------------------------------------------------------------------------------
# Parameters
# ----------------------------------------------------------------------------------------------


class ParameterError(ValueError):
    """A parameter is unknown or has an invalid value. Raised before any computation (exit code 2)."""

    def _render_traceback_(self) -> list[str]:
        """What IPython shows when a notebook cell raises it: the one line that names the parameter."""
        return [f"{type(self).__name__}: {self}"]


_SHORT = reprlib.Repr()
_SHORT.maxstring, _SHORT.maxother, _SHORT.maxlist, _SHORT.maxdict, _SHORT.maxlevel = 60, 60, 6, 4, 2


def short(value: Any) -> str:
    """A repr that never explodes in size (messages quote values given by a user)."""
    return _SHORT.repr(value)


_SCALARS = {int: "int", float: "float", bool: "bool", str: "str"}
# the parameters papermill's --inject-paths adds to every notebook: papermill's own, never a chapter's
PAPERMILL_PATH_PARAMETERS = frozenset({"PAPERMILL_INPUT_PATH", "PAPERMILL_OUTPUT_PATH"})
MAX_INT = 2**53  # the largest integer every float computation of a check or a cost estimate keeps exact
MAX_MESSAGE = 400


def param(
    default: Any,
    help: str,
    *,
    min: float | None = None,
    max: float | None = None,
    gt: float | None = None,
    lt: float | None = None,
    choices: tuple | None = None,
    min_len: int | None = None,
    max_len: int | None = None,
    distinct: bool = False,
) -> Any:
    """A parameter field: its default, one line of meaning, and its range.

    `min`/`max` are inclusive, `gt`/`lt` strict; on a list they bound every element, and
    `min_len`/`max_len` bound its length; `distinct` refuses a list that repeats a value, however
    it is spelled (1 and 1.0, 0.1 and 1e-1, "Mod3" and " mod3": see `same_key`). A `T | None`
    annotation makes it nullable.
    """
    meta = {
        "help": help,
        "min": min,
        "max": max,
        "gt": gt,
        "lt": lt,
        "choices": choices,
        "min_len": min_len,
        "max_len": max_len,
        "distinct": distinct,
    }
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata=meta)
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class Cost:
    """A rough estimate of a run's time on this kind of machine (2 cores) and its peak memory."""

    seconds: float = 0.0
    gigabytes: float = 0.0


@dataclass(frozen=True)
class ParamInfo:
    """One field of a parameters class, described for messages, `lib list` and the intro's tables."""

    name: str
    type: str
    base: type
    is_list: bool
    nullable: bool
    default: Any
    help: str
    bounds: Mapping[str, Any]

    @property
    def python_type(self) -> str:
        """The type as Python writes it, without spaces (papermill reads `# type: T` up to a space)."""
        name = f"list[{self.base.__name__}]" if self.is_list else self.base.__name__
        return name + ("|None" if self.nullable else "")

    def describe_range(self) -> str:
        b, parts = self.bounds, []
        if b["choices"] is not None:
            parts.append("one of " + ", ".join(map(str, b["choices"])))
        for key, sign in (("gt", ">"), ("min", ">="), ("lt", "<"), ("max", "<=")):
            if b[key] is not None:
                parts.append(f"{sign} {b[key]:g}")
        if b["min_len"] is not None or b["max_len"] is not None:
            parts.append(f"length {b['min_len'] or 0}..{b['max_len'] if b['max_len'] is not None else '∞'}")
        if b["distinct"]:
            parts.append("distinct")
        if self.nullable:
            parts.append("or null")
        return "; ".join(parts)

    def validate(self, value: Any) -> Any:
        """The value (ints widened to float where a float is declared) or a ParameterError."""
        if value is None:
            if self.nullable:
                return None
            raise ParameterError(f"parameter {self.name!r} must not be null")
        if self.is_list:
            if not isinstance(value, (list, tuple)):
                hint = (
                    f" (a list is given as YAML, with -y: -y '{{{self.name}: {value.strip()}}}')"
                    if isinstance(value, str) and value.strip().startswith("[")
                    else ""
                )
                raise ParameterError(f"parameter {self.name!r} must be a list ({self.type}), got {short(value)}{hint}")
            n, b = len(value), self.bounds
            if b["min_len"] is not None and n < b["min_len"]:
                raise ParameterError(f"parameter {self.name!r} needs at least {b['min_len']} entries, got {n}")
            if b["max_len"] is not None and n > b["max_len"]:
                raise ParameterError(f"parameter {self.name!r} takes at most {b['max_len']} entries, got {n}")
            checked = [self._scalar(v, f"{self.name}[{i}]") for i, v in enumerate(value)]
            if b["distinct"]:
                refuse_repeats(self.name, checked, value)
            return checked
        return self._scalar(value, self.name)

    def _scalar(self, value: Any, label: str) -> Any:
        base, b = self.base, self.bounds
        kind = _SCALARS[base]
        if isinstance(value, bool) and base is not bool:
            raise ParameterError(f"parameter {label!r} must be {kind}, got the boolean {value!r}")
        allowed = (int, float) if base is float else (base,)
        if not isinstance(value, allowed):
            hint = (
                look_alike_hint(value) or yaml_number_hint(value, integer=base is int)
                if isinstance(value, str) and base in (int, float)
                else ""
            )
            raise ParameterError(
                f"parameter {label!r} must be {kind}, got {short(value)} ({type(value).__name__}){hint}"
            )
        if base is int and abs(value) > MAX_INT:
            raise ParameterError(f"parameter {label!r}: integers beyond 2^53 are not accepted, got {short(value)}")
        if base is float:
            value = float(value)
            if not math.isfinite(value):
                raise ParameterError(f"parameter {label!r} must be finite, got {value!r}")
        if base is str and ("\x00" in value or len(value) > 200):
            raise ParameterError(f"parameter {label!r}: not a usable string ({short(value)})")
        if b["choices"] is not None and value not in b["choices"]:
            near = [c for c in b["choices"] if isinstance(value, str) and same_key(c) == same_key(value)]
            hint = f" (did you mean {near[0]!r}? names are exact)" if near else ""
            raise ParameterError(f"parameter {label!r} must be one of {list(b['choices'])}, got {short(value)}{hint}")
        for key, ok, sign in (
            ("gt", lambda v, t: v > t, ">"),
            ("min", lambda v, t: v >= t, ">="),
            ("lt", lambda v, t: v < t, "<"),
            ("max", lambda v, t: v <= t, "<="),
        ):
            if b[key] is not None and not ok(value, b[key]):
                raise ParameterError(f"parameter {label!r} must be {sign} {b[key]:g}, got {short(value)}")
        return value


def same_key(value: Any) -> Any:
    """What two spellings of one value share: a number's value (1 and 1.0, 0.1 and 1e-1), a string
    without surrounding space, case or compatibility forms ("Mod3", " mod3 ", "ｍｏｄ3" are one name)."""
    if isinstance(value, str):
        return unicodedata.normalize("NFKC", value).strip().casefold()
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value) if abs(value) <= MAX_INT else value
    return value


def refuse_repeats(name: str, values: typing.Sequence[Any], given: typing.Sequence[Any] | None = None) -> None:
    """ParameterError naming `name` when two entries of `values` are one value spelled twice (`same_key`);
    `given` are the entries as the reader wrote them, quoted in the message."""
    given = values if given is None else given
    first: dict[Any, int] = {}
    for i, value in enumerate(values):
        j = first.setdefault(same_key(value), i)
        if j != i:
            spelled = (
                f"{short(given[j])} and {short(given[i])}"
                if short(given[j]) != short(given[i])  # as written: 0.0 and -0.0 are equal, not the same text
                else f"{short(given[i])} twice"
            )
            raise ParameterError(
                f"parameter {name!r} repeats a value: entries {j} and {i} are {spelled}; each value may appear once"
            )


# Characters that look like the ASCII ones a number is written with (compatibility forms such as
# full-width or superscript digits are found by NFKC normalisation).
_MINUS_LOOKALIKES = dict.fromkeys(map(ord, "\u2212\u2010\u2011\u2012\u2013\u2014\u2015\ufe63\uff0d"), "-")


def look_alike_hint(text: str) -> str:
    """Why a number written with non-ASCII characters ('²', '１２', '−1') is not read as one, or ""."""
    odd = next((c for c in text if not c.isascii()), None)
    if odd is None:
        return ""
    name = unicodedata.name(odd, f"U+{ord(odd):04X}")
    ascii_text = unicodedata.normalize("NFKC", text).translate(_MINUS_LOOKALIKES).strip()
    try:
        float(ascii_text)
    except ValueError:
        return ""  # not a number in any spelling: the type is the message
    if not ascii_text.isascii():
        return f": {odd!r} ({name}) is not an ASCII digit"
    return f": {odd!r} ({name}) only looks like part of a number; write {ascii_text}"


_YAML_EXPONENT_FORM = re.compile(r"([-+]?(?:\d+\.?\d*|\.\d+))[eE]([-+]?)(\d+)")


def yaml_number_hint(text: str, integer: bool = False) -> str:
    """Why a number in exponent form ("1e-3", "1.0e300") came as text, or "": papermill's YAML 1.1 (`-y`, `-f`)
    reads a float in exponent form only with a dot in its mantissa and a sign in its exponent ("1.0e-3",
    "1.0e+300"); the hint writes the number so, or, for an `integer` parameter, in digits ("1e3": 1000)."""
    found = _YAML_EXPONENT_FORM.fullmatch(text.strip())
    if found is None:
        return ""
    mantissa, sign, digits = found.groups()
    if integer:
        value = float(found.group(0))
        whole = math.isfinite(value) and value.is_integer() and abs(value) <= MAX_INT
        return f": YAML reads {text.strip()} as text; write the integer in digits, {int(value)}" if whole else ""
    written = f"{mantissa if '.' in mantissa else mantissa + '.0'}e{sign or '+'}{digits}"
    return f": YAML 1.1 (papermill's -y) reads {text.strip()} as text; write {written}"


def _range_error(err: Exception) -> str:
    """What went out of range in a check or a cost, in words: Python's OverflowError says "(34, 'Numerical result
    out of range')", numpy's FloatingPointError "overflow encountered in square"."""
    if isinstance(err, OverflowError):
        return "a result too large for a float"
    if isinstance(err, ZeroDivisionError):
        return "a division by zero"
    return str(err)[:MAX_MESSAGE]


@functools.cache
def _described(cls: type) -> tuple[ParamInfo, ...]:
    """A parameters class's fields described once per class: `typing.get_type_hints` compiles every string
    annotation (`from __future__ import annotations`) on each call, and every validation describes the class."""
    hints = typing.get_type_hints(cls)
    return tuple(_describe_field(f, hints[f.name]) for f in fields(cls))


def _describe_field(f: Field, hint: Any) -> ParamInfo:
    nullable = False
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        nullable, hint = True, args[0]
    is_list = typing.get_origin(hint) is list
    base = typing.get_args(hint)[0] if is_list else hint
    if base not in _SCALARS:
        raise TypeError(f"parameter {f.name}: unsupported type {hint!r}")
    default = f.default_factory() if f.default is MISSING else f.default
    type_name = _SCALARS[base] + (" list" if is_list else "") + (" or null" if nullable else "")
    return ParamInfo(f.name, type_name, base, is_list, nullable, default, f.metadata["help"], f.metadata)


@dataclass(frozen=True)
class Parameters:
    """Base of every chapter's parameters: validation on construction, `check` for cross rules.

    Subclasses are frozen dataclasses whose fields are made with `param(...)`. Constructing one
    validates every field (type, range), then calls `check()`. Override `check` for rules that
    involve several parameters and `cost` for the run's estimated time and memory.
    """

    def __post_init__(self) -> None:
        for info in self.describe():
            object.__setattr__(self, info.name, info.validate(getattr(self, info.name)))
        self.check()

    def check(self) -> None:
        """Rules between parameters; raise ParameterError naming the parameters. None by default."""

    def cost(self) -> Cost:
        """Estimated time (seconds on 2 cores) and peak memory of a run; unknown (zero) by default."""
        return Cost()

    @classmethod
    def describe(cls) -> list[ParamInfo]:
        """Every field, described (`ParamInfo`); a list default is a new list on each call."""
        return [replace(i, default=list(i.default)) if isinstance(i.default, list) else i for i in _described(cls)]

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        return {info.name: info.default for info in cls.describe()}

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


# ----------------------------------------------------------------------------------------------
# Claims
# ----------------------------------------------------------------------------------------------

HOLDS, FAILS, INCONCLUSIVE, NOT_COMPUTED = "holds", "does not hold", "inconclusive", "not computed"
VERDICTS = (HOLDS, FAILS, INCONCLUSIVE)

# What a verdict rests on, for the scorecard's "evidence" column.
BASES = {
    "exact": "an exact identity (symbolic or closed form)",
    "consistency": "holds by construction of the computation: a consistency check, not a reproduction",
    "single run": "one run at the chapter's parameters",
    "seeds": "a sample over seeds or draws, with its interval",
    "evidence": "the evidence tier (data/evidence/), with its interval",
}
_INTERVAL_BASES = ("seeds", "evidence")

# What a claim is relative to the paper, for the scorecard: a reproduction unless declared otherwise.
SCOPES = {
    "reproduction": "a statement of the paper, reproduced",
    "extension": "beyond the paper: the paper's statement carried to a setting it does not treat",
    "derivation": "beyond the paper: a consequence the book derives, not a reproduction of a paper's result",
    "finding": "beyond the paper: a measured result the paper does not state",
}

# What a claim is, for the reproducibility summary (lib/book/verdicts/summary.py): a claim of the paper, an error
# the book finds in the paper, or a check of the book's own method.
KINDS = {
    "claim": "a statement of the paper that the book reproduces",
    "erratum": "a statement of the paper that the book finds wrong (book/errata): not holding is an error in the paper",
    "method": "a check of the book's own measurement (a read-out, a probe), not a statement of the paper",
}

# What a claim is for its catalogue row (issue 32). Only the row's *primary* claims decide its status: the
# paper's own statement, read on the paper's own measure (its figure's quantity, its text's criterion) at the
# paper's setting, fixed in advance. Every other claim says what it is and is shown under "also tested".
ROLES = {
    "primary": "the paper's own statement, on the paper's own measure, at the paper's setting: decides its row",
    "paper": "a further statement of the paper, tested but not deciding its row",
    "reading": "a book reading: a statistic, bar or threshold the paper does not set (a median, a margin, a floor)",
}

# The kind of every claim as a reader sees it (`Claim.category`), in the order "also tested" lists them.
CATEGORIES = {
    "primary": "the paper's claim",
    "erratum": "error in the paper",
    "paper": "further statement of the paper",
    "reading": "book reading",
    "extension": "extension beyond the paper",
    "derivation": "derivation beyond the paper",
    "finding": "finding beyond the paper",
    "check": "consistency or method check",
}

_CONDITION = re.compile(r"^\s*(<=|>=|==|!=|<|>)\s*(.+?)\s*$")
_PARAMETER = re.compile(r"^[A-Za-z_]\w*$")
_OPS = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}
ESTIMATE_KEYS = frozenset({"value", "low", "high", "n", "method"})


NOT_COMPUTED_KEY = "not_computed"  # a metric recorded as {"not_computed": reason}: the run's parameters skip it


def is_estimate(value: Any) -> bool:
    """True when `value` is a recorded estimate: a dict holding at least `ESTIMATE_KEYS`."""
    return isinstance(value, dict) and ESTIMATE_KEYS <= set(value)


def is_not_computed(value: Any) -> bool:
    """A metric the run skipped on purpose, recorded with its reason (`ChapterRun.skip`)."""
    return isinstance(value, dict) and set(value) == {NOT_COMPUTED_KEY}


@dataclass(frozen=True)
class FreeChoice:
    """A choice of the analyst that a claim's verdict must not hinge on (a floor, a level, a read-out, a pooling).

    `fixed` is the value the claim's own metric uses, fixed in advance from the problem (and why);
    `alternatives` are the other values worth showing, each with the metric the chapter records
    under it: `{"0.05": "stage_alignment_fraction_floor_0_05", "0": "stage_alignment_fraction_floor_0"}`.
    The verdict is robust when every alternative gives the same one (`lib.book.verdicts.claims.Verdict.robustness`).
    """

    name: str
    fixed: str
    alternatives: Mapping[str, str]

    def __post_init__(self) -> None:
        pairs = tuple(dict(self.alternatives).items())  # a tuple of pairs keeps the claim hashable
        if not pairs or not all(isinstance(k, str) and isinstance(v, str) and v for k, v in pairs):
            raise ValueError(f"free choice {self.name}: alternatives map value labels to metric names, at least one")
        object.__setattr__(self, "alternatives", pairs)


# A bar that decides a primary claim although the paper sets no number is the book's free choice: the verdict is
# shown under two more bars too, fixed by one rule for every such claim (declared 2026-12-07, when the verdicts at the
# declared bars were known: the rule, not the claim, picks the alternatives).
BAR_RULE = (
    "Where the paper states no number, the bar of a primary claim (how small is practically zero, how large a "
    "detour, how close rough agreement) is the book's choice: its verdict is also shown at half and at twice the "
    "bar's distance from the edge the paper's words name (0 for practically zero, for the error of an exact "
    "statement and for exists; 1 for every; 1 for a ratio that must exceed parity), and a primary whose verdict "
    "changes under one of them is not reported plainly. A bar that would reach the end of its measure's range (0 or 1 "
    "for a fraction) is left out."
)


@dataclass(frozen=True)
class BookBar:
    """The bar of a primary claim's condition when the paper sets no number (`BAR_RULE`).

    `edge` is the value at which the paper's words are met exactly, which the declared bar approaches with a margin:
    0 for "practically zero", for the error of an exact statement and for "exists"; 1 for "every"; 1 for a ratio that
    must exceed parity. `end` is the end of the measure's range on the far side of the bar from the edge (0 or 1 for a
    fraction), None when the measure has none: an alternative bar at or beyond it, which the measure could not fall on
    both sides of, is left out.
    """

    edge: float
    end: float | None = None

    def __post_init__(self) -> None:
        if self.end is not None and self.end == self.edge:
            raise ValueError(f"a book bar's range end {self.end} cannot be its edge")

    def alternatives(self, bar: float) -> tuple[float, ...]:
        """The bars at half and at twice `bar`'s distance from the edge, each strictly inside the measure's range."""
        side = math.copysign(1.0, bar - self.edge)
        if bar == self.edge or (self.end is not None and side * (self.end - bar) <= 0):
            raise ValueError(f"a book bar {bar} must lie strictly between its edge {self.edge} and its end {self.end}")
        found = (self.edge + (bar - self.edge) / 2, self.edge + 2 * (bar - self.edge))
        return tuple(b for b in found if self.end is None or side * (self.end - b) > 0)


@dataclass(frozen=True)
class Claim:
    """A statement of a paper that a chapter checks with one of its metrics.

    `id` is the catalogue id (book/catalogue.md) plus a suffix that makes it unique,
    e.g. "S-T4.1/rates". `condition` is an operator and a literal ("< 0.01", ">= 0.5",
    "== true", "== 'concat'") or the name of one of the chapter's parameters
    ("< topo_visible_tol"), read from the parameters the metrics were computed with, so that a
    tolerance is declared once. `basis` says what the verdict rests on (see BASES); a claim over seeds or
    evidence needs its metric to be an estimate with an interval. `expected` is the verdict
    the chapter declares; `lib claims` fails when the computed verdict differs. A claim
    expected not to hold, or to be inconclusive, carries its reason in `note`, with numbers
    and, where it applies, the effect size the design could detect. `free_choices` declares
    the analyst's choices behind `metric` (see FreeChoice): the same condition is evaluated on
    each alternative's metric, and the scorecard says whether the verdict is robust to them.
    `book_bar` (see BookBar) marks a primary claim's bar as the book's where the paper sets no number: the
    condition is evaluated at the bars of `BAR_RULE` too, and shown as a free choice.
    `scope` (see SCOPES) says whether the claim reproduces the paper or goes beyond it, so that
    a derivation or a finding of the book is not read as a failed reproduction. `kind` says what
    the claim is (see KINDS): a claim of the paper (the default), an `erratum` (a statement of the
    paper the book finds wrong, listed in the errata) or a `method` check of the book's own measurement.
    `role` (see ROLES) says what the claim is for its catalogue row: `primary` claims decide the row's
    status (lib/book/verdicts/summary.py); a further statement of the paper (`paper`, the default) and a book `reading`
    are tested and shown under "also tested", never moving the row. A primary is a reproduction of the
    paper that can fail: not beyond the paper, not a consistency or method check.
    """

    id: str
    statement: str
    paper_value: str
    metric: str
    condition: str
    basis: str = "single run"
    expected: str = HOLDS
    note: str = ""
    free_choices: tuple[FreeChoice, ...] = ()
    book_bar: BookBar | None = None
    scope: str = "reproduction"
    kind: str = "claim"
    role: str = "paper"

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"claim {self.id}: role must be one of {list(ROLES)}, got {self.role!r}")
        if self.role == "primary" and (
            self.scope != "reproduction" or self.kind == "method" or self.basis == "consistency"
        ):
            raise ValueError(
                f"claim {self.id}: a primary claim is the paper's statement and can fail: not an "
                f"{self.scope}, a method check or a consistency check"
            )
        if self.scope not in SCOPES:
            raise ValueError(f"claim {self.id}: scope must be one of {list(SCOPES)}, got {self.scope!r}")
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.id}: kind must be one of {list(KINDS)}, got {self.kind!r}")
        if not _CONDITION.match(self.condition):
            raise ValueError(f"claim {self.id}: cannot parse condition {self.condition!r}")
        if self.basis not in BASES:
            raise ValueError(f"claim {self.id}: basis must be one of {list(BASES)}, got {self.basis!r}")
        if self.expected not in VERDICTS:
            raise ValueError(f"claim {self.id}: expected must be one of {list(VERDICTS)}, got {self.expected!r}")
        if self.expected != HOLDS and not self.note.strip():
            raise ValueError(f"claim {self.id}: a claim expected to be {self.expected!r} needs its reason in note")
        if self.basis == "exact" and self.expected == INCONCLUSIVE:
            raise ValueError(f"claim {self.id}: an exact claim is two-valued, it cannot be inconclusive")
        object.__setattr__(self, "free_choices", tuple(self.free_choices))
        if not all(isinstance(c, FreeChoice) for c in self.free_choices):
            raise ValueError(f"claim {self.id}: free_choices must be FreeChoice declarations")
        if self.metric in self.alternative_metrics:
            raise ValueError(f"claim {self.id}: an alternative of a free choice repeats the claim's own metric")
        if self.book_bar is not None:
            if not isinstance(self.book_bar, BookBar) or self.role != "primary":
                raise ValueError(f"claim {self.id}: book_bar is a BookBar, declared on a primary claim")
            if self.operator not in ("<", "<=", ">", ">="):
                raise ValueError(f"claim {self.id}: a book bar needs an order condition, got {self.condition!r}")
            if self.parameter is None:
                self.bar_alternatives()  # a literal bar outside its edge and end is refused here, not at a build

    @property
    def category(self) -> str:
        """What the claim is for a reader (see CATEGORIES): the paper's primary claim, an error in the paper,
        a further statement of the paper, a book reading, a claim beyond the paper, or a check."""
        if self.kind == "erratum":
            return "erratum"
        if self.role == "primary":
            return "primary"
        if self.basis == "consistency" or self.kind == "method":
            return "check"
        if self.scope != "reproduction":
            return self.scope
        return self.role

    @property
    def alternative_metrics(self) -> list[str]:
        """The metrics recorded under the alternatives of every free choice."""
        return [metric for choice in self.free_choices for _, metric in choice.alternatives]

    @property
    def operator(self) -> str:
        """The condition's comparison: "<", ">=", "==", ..."""
        return _CONDITION.match(self.condition).group(1)

    @property
    def parameter(self) -> str | None:
        """The parameter the condition compares with, None when it compares with a literal."""
        text = _CONDITION.match(self.condition).group(2)
        return text if _PARAMETER.match(text) and text.lower() not in ("true", "false") else None

    def bar_alternatives(self, parameters: Mapping[str, Any] | None = None) -> tuple[float, ...]:
        """The alternative bars of a book bar (`BookBar.alternatives` at the declared bar); () without one."""
        bar = self.threshold(parameters)
        if self.book_bar is None or isinstance(bar, bool) or not isinstance(bar, (int, float)):
            return ()
        return self.book_bar.alternatives(float(bar))

    def threshold(self, parameters: Mapping[str, Any] | None = None) -> Any:
        """The right-hand side of the condition: its literal, or the parameter's value (None if absent)."""
        if self.parameter is None:
            return _parse_literal(_CONDITION.match(self.condition).group(2))
        return (parameters or {}).get(self.parameter)

    def evaluate(
        self, value: Any, parameters: Mapping[str, Any] | None = None, bar: float | None = None
    ) -> tuple[str, str]:
        """(verdict, why) for a metric value: a number, a bool, a string or an estimate dict.

        An estimate holds when its whole interval [low, high] meets the condition, does not
        hold when none of it does, and is inconclusive when it straddles. A point value is
        two-valued. Missing, non-finite and non-scalar values are "not computed". `parameters`
        are the run's, for a condition that names a parameter; `bar` replaces the condition's
        right-hand side (an alternative of a book bar, `BookBar`).
        """
        op, target = self.operator, self.threshold(parameters) if bar is None else bar
        if value is None:
            return NOT_COMPUTED, "metric not recorded (or not finite)"
        if is_not_computed(value):
            return NOT_COMPUTED, value[NOT_COMPUTED_KEY]
        if target is None:
            return NOT_COMPUTED, f"parameter {self.parameter} not recorded with the metrics"
        if is_estimate(value):
            bounds = [value.get("low"), value.get("high"), value.get("value")]
            if not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in bounds):
                return NOT_COMPUTED, "estimate with a non-finite or missing bound"
            low, high = bounds[0], bounds[1]
            try:
                ends = (_OPS[op](low, target), _OPS[op](high, target))
            except TypeError:
                return NOT_COMPUTED, f"cannot compare an estimate with {target!r}"
            if op in ("==", "!="):
                ends = (ends[0] and ends[1],) * 2 if op == "==" else ends
            if all(ends):
                return HOLDS, "the whole interval meets the condition"
            if not any(ends):
                return FAILS, "no point of the interval meets the condition"
            return INCONCLUSIVE, "the interval straddles the condition"
        if self.basis in _INTERVAL_BASES:
            return NOT_COMPUTED, f"a claim over {self.basis} needs an estimate with an interval"
        if isinstance(value, (list, dict)):
            return NOT_COMPUTED, "not a scalar"
        if isinstance(value, float) and not math.isfinite(value):
            return NOT_COMPUTED, "not finite"
        try:
            return (HOLDS, "") if _OPS[op](value, target) else (FAILS, "")
        except TypeError:
            return NOT_COMPUTED, f"cannot compare {short(value)} with {target!r}"


def meets(value: Any, condition: str) -> bool:
    """Whether a point value (an estimate's point, or every entry of a list) meets a literal condition ("< 0.01")."""
    match = _CONDITION.match(condition)
    if match is None:
        raise ValueError(f"condition {condition!r}: expected an operator and a literal")
    op, target = match.group(1), _parse_literal(match.group(2))
    if is_estimate(value):
        value = value["value"]
    values = value if isinstance(value, list) else [value]
    return all(v is not None and _OPS[op](v, target) for v in values)


def _parse_literal(text: str) -> Any:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text.strip("'\"")


# ----------------------------------------------------------------------------------------------
# Chapters
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Chapter:
    """A chapter's declaration: its parameters class, claims and smoke overrides."""

    id: str
    title: str
    params: type[Parameters]
    claims: tuple[Claim, ...] = ()
    smoke: dict[str, Any] = field(default_factory=dict)

    RESERVED: ClassVar[frozenset[str]] = frozenset({"run", "P"})

    def __post_init__(self) -> None:
        ids = [c.id for c in self.claims]
        duplicated = sorted({i for i in ids if ids.count(i) > 1})
        if duplicated:
            raise ValueError(f"chapter {self.id}: claim ids must be unique, repeated: {duplicated}")
        clash = self.RESERVED & set(self.params.defaults())
        if clash:
            raise ValueError(f"chapter {self.id}: parameter names {sorted(clash)} are reserved")
        unknown = {c.id: c.parameter for c in self.claims if c.parameter and c.parameter not in self.params.defaults()}
        if unknown:
            raise ValueError(f"chapter {self.id}: conditions name parameters it does not declare: {unknown}")
        self.validate(self.smoke)

    @property
    def notebook(self) -> Path:
        return NOTEBOOKS / f"{self.id}.py"

    def describe(self) -> list[ParamInfo]:
        return self.params.describe()

    def defaults(self) -> dict[str, Any]:
        return self.params.defaults()

    def check_names(self, names: typing.Iterable[Any]) -> None:
        """ParameterError naming every name the chapter does not declare."""
        known = self.defaults()
        unknown = [k for k in names if k not in known]
        if unknown:
            listed = ", ".join(short(k) for k in unknown[:5]) + (" ..." if len(unknown) > 5 else "")
            raise ParameterError(f"unknown parameter(s) for chapter {self.id!r}: {listed}. Known: {', '.join(known)}")

    def validate(self, overrides: Mapping[str, Any]) -> Parameters:
        """The chapter's parameters: defaults with `overrides`, validated; ParameterError otherwise."""
        self.check_names(overrides)
        try:
            with np.errstate(
                over="raise"
            ):  # an overflow is an error, never a warning on stderr (the cost must be finite)
                params = self.params(**overrides)
                cost = params.cost()
        except ParameterError as err:
            message = str(err)
            raise ParameterError(
                message if len(message) <= MAX_MESSAGE else message[: MAX_MESSAGE - 4] + " ..."
            ) from None
        except (
            ArithmeticError,
            ValueError,
        ) as err:  # an overflow, underflow or division by zero in a check or the cost
            given = ", ".join(short(k) for k in overrides) or "the defaults"
            raise ParameterError(
                f"chapter {self.id}: {given}: values out of numerical range ({_range_error(err)})"
            ) from None
        if not (math.isfinite(cost.seconds) and math.isfinite(cost.gigabytes)):
            given = ", ".join(short(k) for k in overrides) or "the defaults"
            raise ParameterError(f"chapter {self.id}: {given}: the cost estimate is not finite")
        return params

    def parameters_source(self, values: Mapping[str, Any] | None = None) -> str:
        """The papermill `parameters` cell: one literal assignment per field, with its type and meaning.

        `NAME = DEFAULT  # type: T  MEANING` on one line each, the form papermill's `--help-notebook`
        reads (it skips a line with a second `=`, so `=` in a meaning is written `≡`, `<=` `≤`, ...).
        """
        values = {**self.defaults(), **(values or {})}
        lines = [PARAMETERS_HEADER.format(id=self.id)]
        for info in self.describe():
            lines.append(f"{info.name} = {values[info.name]!r}  # type: {info.python_type}  {_one_equals(info.help)}")
        return "\n".join(lines)


PARAMETERS_HEADER = (
    "# Generated from lib/book/chapters/{id}.py by `python -m lib params` (do not edit here). Rerun with\n"
    "# `python -m lib run {id} -p NAME VALUE` or `papermill IN.ipynb OUT.ipynb -p NAME VALUE`."
)
_NO_EQUALS = (("<=", "≤"), (">=", "≥"), ("!=", "≠"), ("==", "≡"), ("=", "≡"))


def _one_equals(text: str) -> str:
    """`text` without `=`, so that its line keeps papermill's single `=` of an assignment."""
    for old, new in _NO_EQUALS:
        text = text.replace(old, new)
    return text


# ----------------------------------------------------------------------------------------------
# Cost
# ----------------------------------------------------------------------------------------------

# Beyond these a run is refused unless the reader passes --allow-expensive (estimates for 2 cores).
MAX_SECONDS = 6 * 3600
MEMORY_FRACTION = 0.6
ALLOW_EXPENSIVE_HINT = f"to run anyway: --allow-expensive ({ALLOW_EXPENSIVE_ENV}=1 under papermill)"
# Beyond these a run is refused whatever the flags: it cannot finish on any machine the book runs on.
IMPOSSIBLE_SECONDS = 365 * 24 * 3600
IMPOSSIBLE_MEMORY_FACTOR = 100


def physical_memory_gb() -> float:
    """This machine's physical memory in GiB."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30


def _spelled(name: str, value: Any) -> str:
    if isinstance(value, list) and len(value) > 4:
        return f"{name} ({len(value)} values)"
    return f"{name}={short(value)}"


def cost_drivers(chapter: Chapter, params: Parameters, measure: typing.Callable[[Cost], float]) -> list[str]:
    """The changed parameters that drive a cost, largest first: each one set back to its default
    (the others kept) divides `measure(cost)` by the factor shown; those that leave it within 10%
    are left out. Every changed parameter when none alone matters (the cost is joint)."""
    defaults, values = chapter.defaults(), params.as_dict()
    changed = [k for k, v in values.items() if v != defaults[k]]
    total, factors = measure(params.cost()), []
    for name in changed:
        try:
            reduced = measure(chapter.params(**{**values, name: defaults[name]}).cost())
        except (ArithmeticError, ValueError):  # the default breaks a joint rule with another change (ParameterError)
            continue
        factor = total / reduced if reduced > 0 else math.inf
        if factor > 1.1:
            factors.append((factor, name))
    if not factors:
        return [_spelled(k, values[k]) for k in changed]
    return [f"{_spelled(k, values[k])} (cost x{f:.3g} against its default)" for f, k in sorted(factors, reverse=True)]


def check_cost(chapter: Chapter, params: Parameters, allow_expensive: bool = False) -> None:
    """Refuse parameters whose estimated time or memory is beyond reason for this machine.

    `lib run` checks before a kernel starts, `start_chapter` again in the notebook (the papermill
    route). The message names the parameters that drive the cost (`cost_drivers`). `--allow-expensive`,
    or LIB_ALLOW_EXPENSIVE=1 in the environment, skips the check, except for a request that cannot
    finish at all (beyond IMPOSSIBLE_SECONDS, or IMPOSSIBLE_MEMORY_FACTOR times this machine's memory):
    that is refused whatever the flags, and the message says so.
    """
    cost = params.cost()
    memory = physical_memory_gb()
    too_long, too_large = cost.seconds > IMPOSSIBLE_SECONDS, cost.gigabytes > IMPOSSIBLE_MEMORY_FACTOR * memory
    if allow_expensive and not (too_long or too_large):
        return
    if too_large or (cost.gigabytes > MEMORY_FRACTION * memory and not too_long):
        what, measure = f"about {cost.gigabytes:.3g} GB of memory", lambda c: c.gigabytes
        limit = f"{IMPOSSIBLE_MEMORY_FACTOR} x" if too_large else f"{MEMORY_FRACTION:.0%} of"
        what += f", beyond {limit} this machine's {memory:.0f} GB"
    elif too_long or cost.seconds > MAX_SECONDS:
        what, measure = f"about {_duration(cost.seconds)}", lambda c: c.seconds
        what += ", beyond a year" if too_long else f", beyond the limit of {MAX_SECONDS / 3600:g} hours"
    else:
        return
    drivers = cost_drivers(chapter, params, measure)
    these = ", ".join(drivers[:4]) + (" ..." if len(drivers) > 4 else "") if drivers else "the defaults"
    lower = "lower it" if len(drivers) == 1 else "lower them"
    if too_long or too_large:
        raise ParameterError(
            f"chapter {chapter.id}: {what}: impossible on this machine, whatever the flags; driven by {these}; {lower}"
        )
    raise ParameterError(f"chapter {chapter.id}: {what}; driven by {these}; {lower}, or {ALLOW_EXPENSIVE_HINT}")


def _duration(seconds: float) -> str:
    """A duration in the unit a reader thinks in: minutes, hours, days or years."""
    for unit, size in (("years", 365 * 86400), ("days", 86400), ("hours", 3600)):
        if seconds >= 2 * size:
            return f"{seconds / size:.3g} {unit}"
    return f"{seconds / 60:.3g} minutes"
