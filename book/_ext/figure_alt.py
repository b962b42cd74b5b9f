"""Sphinx extension: a figure's image says what it shows to a reader who cannot see it.

myst-nb gives the image of a glued figure its file's path as alternative text ("../../_images/<64 hex>.png"),
which a screen reader reads out in place of the figure. The text of the figure's caption up to its first full stop
is its alternative text instead, its formulas as text ("$\\mu_1$" -> "μ_1").
"""

from __future__ import annotations

import re

from docutils import nodes
from sphinx.application import Sphinx

_GREEK = dict(
    zip(
        "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi pi rho sigma tau upsilon phi chi psi "
        "omega Gamma Delta Theta Lambda Xi Pi Sigma Phi Psi Omega".split(),
        "αβγδεζηθικλμνξπρστυφχψωΓΔΘΛΞΠΣΦΨΩ",
    )
)
_SYMBOLS = {
    "le": "≤",
    "leq": "≤",
    "ge": "≥",
    "geq": "≥",
    "times": "×",
    "to": "→",
    "infty": "∞",
    "approx": "≈",
    "neq": "≠",
    "cdot": "·",
    "pm": "±",
    "ell": "ℓ",
    "top": "ᵀ",
}
_COMMAND = re.compile(r"\\([A-Za-z]+)")
_ACCENT = re.compile(r"\\(?:hat|tilde|bar|dot|mathrm|mathbf|mathcal|mathbb|operatorname|text|textrm)\{([^{}]*)\}")
_FRACTION = re.compile(r"\\[td]?frac\{([^{}]*)\}\{([^{}]*)\}")
# the end of a sentence: a full stop, colon or semicolon before a capital, not after an abbreviation ("eq. (9)")
_SENTENCE_END = re.compile(
    "".join(rf"(?<!\b{a})" for a in ("eq", "eqs", "Eq", "Fig", "Figs", "Sec", "App", "e.g", "i.e", "vs", "al"))
    + r"[.:;](?=\s+[A-Z])"
)


def tex_as_text(tex: str) -> str:
    """A formula as plain text to be read out: Greek letters and common symbols as characters, fractions as a/b,
    other commands and braces dropped ("\\sigma_a/\\sigma_c" -> "σ_a/σ_c", "\\frac{1}{2}" -> "1/2")."""
    text = _FRACTION.sub(r"\1/\2", _ACCENT.sub(r"\1", tex))
    text = _COMMAND.sub(lambda m: _GREEK.get(m.group(1)) or _SYMBOLS.get(m.group(1), ""), text)
    return re.sub(r"\s+", " ", text.replace("{", "").replace("}", "").replace("\\", "")).strip()


def caption_text(caption: nodes.Element) -> str:
    """The caption's first sentence, its formulas as text (`tex_as_text`)."""
    parts = [tex_as_text(node.astext()) if isinstance(node, nodes.math) else node.astext() for node in _leaves(caption)]
    text = re.sub(r"\s+", " ", "".join(parts)).strip()
    first = _SENTENCE_END.search(text)
    return (text[: first.start()] if first else text).rstrip(".:;")[:300] + "."


def _leaves(node: nodes.Node) -> list[nodes.Node]:
    """The text and formula nodes under `node`, in reading order (a formula is one leaf)."""
    if isinstance(node, (nodes.Text, nodes.math)):
        return [node]
    return [leaf for child in node.children for leaf in _leaves(child)]


def describe_figures(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Give every image of a captioned figure whose alternative text is its own path the caption's first sentence."""
    for figure in doctree.findall(nodes.figure):
        caption = next(iter(figure.findall(nodes.caption)), None)
        if caption is None:
            continue
        for image in figure.findall(nodes.image):
            alt = image.get("alt", "")
            if not alt or alt == image.get("uri") or alt.endswith((".png", ".svg", ".jpg")):
                image["alt"] = caption_text(caption)


def setup(app: Sphinx) -> dict:
    app.connect("doctree-resolved", describe_figures)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
