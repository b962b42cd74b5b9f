"""The book's one sentence formatter, beside its number formatter (`lib.util.numbers`): how a result reads.

Every verdict a page shows is worded here (issue 35, "the book reads like a published reproduction"):

- a claim's result is a sentence: "S-8 holds: 0.20 [0.10, 0.30], n = 1000 (needs > 0.01)", its condition
  with the value of the parameter it names ("< 0.05", never the parameter's name);
- a verdict that depends on a free choice of the analyst reads "depends on the read-out: holds with
  segmentation (declared), inconclusive with classifier";
- names of the code (a relation, a decoder) read as words: "greater_than" is "greater than", "mod3"
  "mod 3", "squared_difference:1" "squared difference, 1 hidden layer";
- counts take their plural ("1 claim", "2 claims"), never "claim(s)".

Mathematics in reader text is MyST (`$\\mu_k$`), typeset by the page; this module writes no code names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from lib.util.numbers import format_number

# Names of the code that a page may show, as a reader reads them: relations, decoders, evidence sets.
READER_NAMES = {
    "mod3": "mod 3",
    "mod5": "mod 5",
    "greater_than": "greater than",
    "bipartite": "bipartite",
    "random_graph": "random graph",
    "concat": "concatenation",
    "difference": "difference",
    "squared_difference": "squared difference",
}


def plural(n: int, one: str, many: str | None = None) -> str:
    """ "1 claim", "2 claims" ("1 child", "3 children" with `many`)."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


_CODE_NAME = re.compile(r"([a-z][a-z0-9_]*)(?::(\d+))?")


def reader_name(name: str) -> str:
    """A name of the code as words: a relation or decoder from `READER_NAMES`, a decoder with its depth
    ("squared_difference:1" -> "squared difference, 1 hidden layer"), any other snake_case name with spaces;
    any other text (a sentence, a number) as it is."""
    match = _CODE_NAME.fullmatch(name)
    if match is None:
        return name
    mode, depth = match.groups()
    words = READER_NAMES.get(mode, mode.replace("_", " "))
    return f"{words}, {plural(int(depth), 'hidden layer')}" if depth is not None else words


def sentence_start(text: str) -> str:
    """`text` with its first letter a capital: a clause ("all 3 primary claims: ...") read as a sentence."""
    return text[:1].upper() + text[1:]


def as_sentence(clause: str) -> str:
    """A clause as a sentence of its own: its first letter a capital (`sentence_start`), a full stop at its end
    unless it has one."""
    clause = sentence_start(clause.strip())
    return clause if clause.endswith((".", "?", "!")) else clause + "."


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A Markdown table of text already worded and formatted (MyST: a cell may hold `$...$`); "" without rows.
    A "|" inside a cell would split it, so it is refused."""
    lines = [list(header), *(list(row) for row in rows)]
    if len(lines) == 1:
        return ""
    for cells in lines:
        if len(cells) != len(header) or any("|" in str(cell) for cell in cells):
            raise ValueError(f"a table row needs {len(header)} cells without '|', got {cells!r}")
    body = ["| " + " | ".join(str(cell) for cell in cells) + " |" for cells in lines]
    return "\n".join([body[0], "|" + "---|" * len(header), *body[1:]]) + "\n"


def reader_list(names: Iterable[str]) -> str:
    """Names of the code as an English list: "mod 3, greater than and bipartite" (no brackets, no quotes)."""
    words = [reader_name(str(n)) for n in names]
    if len(words) <= 1:
        return words[0] if words else "none"
    return ", ".join(words[:-1]) + " and " + words[-1]


_OPERATOR = re.compile(r"^\s*(==|!=|<=|>=|<|>)\s*(.*)$")
_READER_OPERATOR = {"==": "=", "!=": "≠", "<=": "≤", ">=": "≥"}
_NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


def condition_text(condition: str, threshold: object = None, parameter: str | None = None) -> str:
    """What a claim's value must be, for a reader: "> 0.05"; "true" or a named outcome for a condition
    "== true" or "== 'concat'"; with the value of the parameter a condition names ("< 0.05", never
    "< topo_visible_tol")."""
    match = _OPERATOR.match(condition)
    op, literal = match.groups() if match else ("", condition)
    if op == "==" and isinstance(threshold, (bool, str)):  # an outcome the paper reports
        return format_number(threshold) if isinstance(threshold, bool) else reader_name(threshold)
    if parameter is not None:
        literal = format_number(threshold)
    elif _NUMBER.match(literal):
        literal = format_number(float(literal) if any(c in literal for c in ".eE") else int(literal))
    return f"{_READER_OPERATOR.get(op, op)} {literal}".strip()


def dependence(choices: Sequence[str]) -> str:
    """ "depends on the read-out and the floor": the free choices under which a verdict changes."""
    return "depends on " + " and ".join(f"the {name}" for name in choices)


def robustness_sentence(verdict: str, choices: Sequence[tuple[str, str, Sequence[tuple[str, str]]]]) -> str:
    """The verdict under every value of the analyst's free choices, each choice once: "depends on the read-out:
    holds with segmentation (declared), inconclusive with classifier"; "robust to the read-out: holds with ...".

    `choices` holds (name, declared value, ((alternative value, its verdict), ...)) per choice, in order.
    """
    changed = [name for name, _, found in choices if any(v not in (verdict, "not computed") for _, v in found)]
    computed = any(v != "not computed" for _, _, found in choices for _, v in found)
    if changed:
        head = dependence(changed)
    else:
        head = "robust" if computed else "alternatives not computed"

    def under(fixed: str, found: Sequence[tuple[str, str]]) -> str:
        return f"{verdict} with {fixed} (declared)" + "".join(f", {v} with {label}" for label, v in found)

    if len(choices) == 1:
        name = choices[0][0]
        return f"{head}{f' to the {name}' if head == 'robust' else ''}: {under(*choices[0][1:])}"
    return f"{head}; " + "; ".join(f"for the {name}, {under(fixed, found)}" for name, fixed, found in choices)
