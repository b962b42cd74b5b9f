"""What a chapter declares once: its parameters (type, range, meaning), its claims and its smoke settings.

The default values live in the chapter notebook's `parameters` cell (the cell papermill
overrides); everything else about a parameter lives here, in `lib/specs/ID.py`. The runner,
`python -m lib list`, the intro page and the notebook itself all read this one declaration.
"""
from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"

# ----------------------------------------------------------------------------------------------
# Parameters
# ----------------------------------------------------------------------------------------------


class ParameterError(ValueError):
    """A parameter is unknown or has an invalid value. Raised before any computation."""


_SCALAR_TYPES: dict[str, tuple[type, ...]] = {
    "int": (int,),
    "float": (int, float),
    "bool": (bool,),
    "str": (str,),
}


@dataclass(frozen=True)
class Param:
    """One papermill parameter.

    `type` is "int", "float", "bool", "str", or a list of one of them ("float list", ...).
    Bounds apply to the value, or to every element of a list; `gt` is a strict lower bound.
    """

    name: str
    type: str
    help: str
    min: float | None = None
    max: float | None = None
    gt: float | None = None
    choices: tuple | None = None
    nullable: bool = False
    min_len: int | None = None
    max_len: int | None = None

    def __post_init__(self) -> None:
        base = self.type.removesuffix(" list")
        if base not in _SCALAR_TYPES:
            raise TypeError(f"parameter {self.name}: unknown type {self.type!r}")

    @property
    def is_list(self) -> bool:
        return self.type.endswith(" list")

    def describe_range(self) -> str:
        """Human-readable constraint, for `lib list` and the intro page."""
        parts = []
        if self.choices is not None:
            parts.append("one of " + ", ".join(map(str, self.choices)))
        if self.gt is not None:
            parts.append(f"> {self.gt:g}")
        if self.min is not None:
            parts.append(f">= {self.min:g}")
        if self.max is not None:
            parts.append(f"<= {self.max:g}")
        if self.min_len is not None or self.max_len is not None:
            parts.append(f"length {self.min_len or 0}..{self.max_len if self.max_len is not None else '∞'}")
        if self.nullable:
            parts.append("or null")
        return "; ".join(parts)

    def validate(self, value: Any) -> Any:
        """Return the value (ints widened to float where a float is declared) or raise ParameterError."""
        if value is None:
            if self.nullable:
                return None
            raise ParameterError(f"parameter {self.name!r} must not be null")
        if self.is_list:
            if not isinstance(value, (list, tuple)):
                raise ParameterError(f"parameter {self.name!r} must be a list ({self.type}), got {value!r}")
            n = len(value)
            if self.min_len is not None and n < self.min_len:
                raise ParameterError(f"parameter {self.name!r} needs at least {self.min_len} entries, got {n}")
            if self.max_len is not None and n > self.max_len:
                raise ParameterError(f"parameter {self.name!r} takes at most {self.max_len} entries, got {n}")
            return [self._check_scalar(v, f"{self.name}[{i}]") for i, v in enumerate(value)]
        return self._check_scalar(value, self.name)

    def _check_scalar(self, value: Any, label: str) -> Any:
        base = self.type.removesuffix(" list")
        allowed = _SCALAR_TYPES[base]
        if isinstance(value, bool) and base != "bool":
            raise ParameterError(f"parameter {label!r} must be {base}, got the boolean {value!r}")
        if not isinstance(value, allowed):
            raise ParameterError(f"parameter {label!r} must be {base}, got {value!r} ({type(value).__name__})")
        if base == "float":
            value = float(value)
            if not math.isfinite(value):
                raise ParameterError(f"parameter {label!r} must be finite, got {value!r}")
        if self.choices is not None and value not in self.choices:
            raise ParameterError(f"parameter {label!r} must be one of {list(self.choices)}, got {value!r}")
        if self.gt is not None and not value > self.gt:
            raise ParameterError(f"parameter {label!r} must be > {self.gt}, got {value!r}")
        if self.min is not None and value < self.min:
            raise ParameterError(f"parameter {label!r} must be >= {self.min}, got {value!r}")
        if self.max is not None and value > self.max:
            raise ParameterError(f"parameter {label!r} must be <= {self.max}, got {value!r}")
        return value


# ----------------------------------------------------------------------------------------------
# Claims
# ----------------------------------------------------------------------------------------------

_CONDITION = re.compile(r"^\s*(<=|>=|==|!=|<|>)\s*(.+?)\s*$")


@dataclass(frozen=True)
class Claim:
    """A statement of a paper that a chapter checks with one of its metrics.

    `condition` is an operator and a literal, e.g. "< 0.01", ">= 0.5", "== true".
    `expected_to_hold=False` records honestly that the book does not reproduce the claim at
    its budget; the scorecard shows it, and `lib claims --known-failures-ok` accepts it
    (but fails if it unexpectedly holds, so the declaration stays true).
    """

    id: str
    statement: str
    paper_value: str
    metric: str
    condition: str
    expected_to_hold: bool = True
    note: str = ""

    def __post_init__(self) -> None:
        if not _CONDITION.match(self.condition):
            raise ValueError(f"claim {self.id}: cannot parse condition {self.condition!r}")

    def holds(self, value: Any) -> bool:
        """Whether `value` meets the condition; a missing or non-numeric value never holds."""
        op, literal = _CONDITION.match(self.condition).groups()
        target = _parse_literal(literal)
        if value is None or isinstance(value, (list, dict)):
            return False
        if isinstance(value, float) and math.isnan(value):
            return False
        try:
            return {
                "<": value < target, "<=": value <= target, ">": value > target,
                ">=": value >= target, "==": value == target, "!=": value != target,
            }[op]
        except TypeError:
            return False


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
    """A chapter's declaration: see the module docstring."""

    id: str
    title: str
    params: tuple[Param, ...]
    claims: tuple[Claim, ...] = ()
    smoke: dict[str, Any] = field(default_factory=dict)
    check: Callable[[dict[str, Any]], None] | None = None

    @property
    def notebook(self) -> Path:
        return NOTEBOOKS / f"{self.id}.py"

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise ParameterError(self.unknown_message([name]))

    def unknown_message(self, names: list[str]) -> str:
        known = ", ".join(p.name for p in self.params)
        return f"unknown parameter(s) for chapter {self.id!r}: {', '.join(names)}. Known: {known}"

    def defaults(self) -> dict[str, Any]:
        """The default values: the literal assignments of the notebook's `parameters` cell."""
        values = parameters_cell_values(self.notebook)
        declared = {p.name for p in self.params}
        if set(values) != declared:
            raise RuntimeError(
                f"chapter {self.id}: parameters cell {sorted(values)} and declaration "
                f"{sorted(declared)} in lib/specs/{self.id}.py differ"
            )
        return values

    def validate(self, values: dict[str, Any], *, partial: bool = False) -> dict[str, Any]:
        """Check names and values; with `partial`, `values` overrides the defaults.

        Returns the full, validated set. Raises ParameterError with a message naming the
        parameter and the allowed range.
        """
        unknown = [k for k in values if k not in {p.name for p in self.params}]
        if unknown:
            raise ParameterError(self.unknown_message(unknown))
        full = {**self.defaults(), **values} if partial else dict(values)
        missing = [p.name for p in self.params if p.name not in full]
        if missing:
            raise ParameterError(f"chapter {self.id!r}: missing parameter(s) {', '.join(missing)}")
        checked = {p.name: p.validate(full[p.name]) for p in self.params}
        if self.check is not None:
            self.check(checked)
        return checked


def parameters_cell_values(notebook: Path) -> dict[str, Any]:
    """Literal assignments of the cell tagged `parameters` in a py:percent notebook."""
    text = notebook.read_text()
    cells = re.split(r"^# %%", text, flags=re.M)
    for cell in cells:
        header, _, body = cell.partition("\n")
        if re.search(r"tags\s*=\s*\[[^\]]*[\"']parameters[\"']", header):
            values = {}
            for node in ast.parse(body).body:
                if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                    values[node.targets[0].id] = ast.literal_eval(node.value)
                elif not isinstance(node, ast.Expr):  # comments and docstrings are fine
                    raise RuntimeError(f"{notebook}: parameters cell may only hold literal assignments")
            return values
    raise RuntimeError(f"{notebook}: no cell tagged 'parameters'")
