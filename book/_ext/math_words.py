"""Sphinx extension: an inline formula and the characters that touch it are one word, as in TeX.

Chromium breaks a line on either side of an inline formula whatever stands next to it (MathJax draws it as an
SVG image, and a browser may break around an image), so "order homomorphism ($u \\le v$ implies ...)" ended a line
with "(" and a formula could begin the next one with its comma. Here the characters that touch a formula without a
space, an opening bracket before it and punctuation or a suffix after it ("$N$-relation", "$f(0) = 0$,"), are put
with it in one `<span class="book-word">`, which book.css keeps on one line. Spaces, and so every other line break,
are left as they were.
"""

from __future__ import annotations

import re

from docutils import nodes
from sphinx.application import Sphinx

_LEADING = re.compile(r"^\S+")
_TRAILING = re.compile(r"\S+$")


def _touching(sibling: nodes.Node | None, pattern: re.Pattern) -> str:
    """The characters of a text node beside a formula up to the nearest space ("" for anything else)."""
    if not isinstance(sibling, nodes.Text):
        return ""
    found = pattern.search(sibling.astext())
    return found.group() if found else ""


def _position(parent: nodes.Element, child: nodes.Node) -> int:
    """The index of `child` among `parent`'s children, by identity: docutils' own `index`, `remove` and `replace`
    compare by value, and a text node equals every other text node of the same characters (the "." after a
    formula is the "." after a pasted value earlier in the paragraph)."""
    return next(i for i, sibling in enumerate(parent.children) if sibling is child)


def _shorten(parent: nodes.Element, text: nodes.Text, rest: str) -> None:
    """Replace `text` by what is left of it once its characters touching a formula went into the formula's word."""
    at = _position(parent, text)
    if rest:
        parent[at] = nodes.Text(rest)
    else:
        del parent[at]


def join_math_words(doctree: nodes.Node) -> int:
    """Put every inline formula of `doctree` and the characters touching it into one `book-word` inline node;
    returns how many formulas were joined to a neighbour."""
    joined = 0
    for formula in list(doctree.findall(nodes.math)):
        parent = formula.parent
        before, after = formula.previous_sibling(), formula.next_node(descend=False, siblings=True)
        prefix, suffix = _touching(before, _TRAILING), _touching(after, _LEADING)
        if not (prefix or suffix):
            continue
        word = nodes.inline(classes=["book-word"])
        parent[_position(parent, formula)] = word
        if prefix:
            _shorten(parent, before, before.astext()[: -len(prefix)])
            word += nodes.Text(prefix)
        word += formula
        if suffix:
            _shorten(parent, after, after.astext()[len(suffix) :])
            word += nodes.Text(suffix)
        joined += 1
    return joined


def _on_doctree_resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    join_math_words(doctree)


def setup(app: Sphinx) -> dict:
    app.connect("doctree-resolved", _on_doctree_resolved)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
