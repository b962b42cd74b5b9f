"""Sphinx extension: read the docstrings of `lib` as the plain text they are written in, not as RST.

The appendix "Code behind the results" (book/generated/code.md) documents the functions behind the
results with autodoc. Their docstrings are prose with formulas written plainly, so `|x - y|` (an
absolute value) or `cut_` (a name) would be RST substitutions and references, unresolved under
`-W -n`. This escapes those two constructs before the docstring is parsed; backquoted names stay
inline literals.
"""

from __future__ import annotations

import re

from sphinx.application import Sphinx

_TRAILING_UNDERSCORE = re.compile(r"(?<=\w)_(?!\w)")
_LITERAL = re.compile(r"(`[^`]*`)")


def _escape(text: str) -> str:
    return _TRAILING_UNDERSCORE.sub(r"\\_", text.replace("|", r"\|"))


def plain_text(lines: list[str]) -> list[str]:
    """Docstring lines with `|` and a word's trailing `_` escaped (RST substitutions and references),
    except inside backquotes, where RST reads them literally."""
    return ["".join(p if i % 2 else _escape(p) for i, p in enumerate(_LITERAL.split(line))) for line in lines]


def escape_docstring(app: Sphinx, what: str, name: str, obj, options, lines: list[str]) -> None:
    if name.startswith("lib."):
        lines[:] = plain_text(lines)


def setup(app: Sphinx) -> dict:
    app.connect("autodoc-process-docstring", escape_docstring)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
