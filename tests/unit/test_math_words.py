"""An inline formula and the characters touching it are one word in the HTML (book/_ext/math_words.py)."""

import importlib.util

from docutils import nodes
from docutils.core import publish_doctree

from lib.util.paths import ROOT

spec = importlib.util.spec_from_file_location("math_words", ROOT / "book" / "_ext" / "math_words.py")
math_words = importlib.util.module_from_spec(spec)
spec.loader.exec_module(math_words)


def _words(rst: str) -> tuple[list[str], str, int]:
    """The `book-word` spans of the paragraph `rst` once joined, the paragraph's whole text, and the count."""
    tree = publish_doctree(rst)
    before = tree.astext()
    joined = math_words.join_math_words(tree)
    assert tree.astext() == before  # only grouped: not a character added, lost or moved
    words = [w.astext() for w in tree.findall(nodes.inline) if "book-word" in w["classes"]]
    return words, tree.astext(), joined


def test_brackets_and_punctuation_touching_a_formula_join_it():
    words, _, joined = _words(r"order homomorphism (:math:`u \le v` implies :math:`l(u) \le l(v)`), done.")
    assert words == [r"(u \le v", r"l(u) \le l(v)),"] and joined == 2


def test_a_suffix_joins_up_to_the_next_space_and_a_spaced_formula_is_left_alone():
    words, _, joined = _words(r"an :math:`N`-relation at :math:`\mu` and f(:math:`x`)")
    assert words == ["N-relation", "f(x)"] and joined == 2


def test_a_formula_alone_in_its_text_keeps_its_place():
    tree = publish_doctree(r":math:`x`")
    assert math_words.join_math_words(tree) == 0
    assert [type(n).__name__ for n in tree.findall(include_self=False)][:2] == ["paragraph", "math"]


def test_punctuation_is_taken_from_beside_its_formula_not_from_an_equal_text_elsewhere():
    # docutils compares children by value: the "." after the emphasis equals the "." after the formula
    paragraph = nodes.paragraph()
    for child in (nodes.Text("a "), nodes.emphasis(text="pasted"), nodes.Text("."), nodes.Text(" factor "),
                  nodes.math(text="x"), nodes.Text(".")):  # fmt: skip
        paragraph += child
    assert math_words.join_math_words(paragraph) == 1
    assert paragraph.astext() == "a pasted. factor x."
    assert [w.astext() for w in paragraph.findall(nodes.inline) if "book-word" in w["classes"]] == ["x."]
