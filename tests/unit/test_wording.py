"""The sentence formatter (lib.util.wording): names of the code as words, conditions with values, robustness."""

import pytest

from lib.util.wording import condition_text, markdown_table, plural, reader_list, reader_name, robustness_sentence


def test_names_of_the_code_read_as_words():
    assert reader_name("greater_than") == "greater than" and reader_name("mod3") == "mod 3"
    assert reader_name("squared_difference:1") == "squared difference, 1 hidden layer"
    assert reader_name("concat:0") == "concatenation, 0 hidden layers"
    assert reader_name("a sentence, not a name") == "a sentence, not a name"
    assert reader_list(["mod3", "greater_than", "bipartite"]) == "mod 3, greater than and bipartite"
    assert reader_list([]) == "none" and reader_list(["mod5"]) == "mod 5"


def test_plurals():
    assert plural(1, "claim") == "1 claim" and plural(0, "claim") == "0 claims"
    assert plural(2, "child", "children") == "2 children"


def test_a_condition_reads_its_value_never_a_parameter_name():
    assert condition_text("< topo_visible_tol", 0.05, "topo_visible_tol") == "< 0.05"
    assert condition_text("== true", True) == "true"
    assert condition_text("== 'squared_difference'", "squared_difference") == "squared difference"
    assert condition_text(">= 0.8", 0.8) == "≥ 0.8"
    assert condition_text("< 1e-3", 0.001) == "< 0.001"  # a literal through the number formatter


def test_robustness_names_each_choice_once():
    one = robustness_sentence("holds", [("read-out", "segmentation", [("classifier", "inconclusive")])])
    assert one == "depends on the read-out: holds with segmentation (declared), inconclusive with classifier"
    two = robustness_sentence("holds", [("level", "0.75", [("0.6", "holds")]), ("floor", "0", [("1", "holds")])])
    assert (
        two
        == "robust; for the level, holds with 0.75 (declared), holds with 0.6; for the floor, holds with 0 (declared), holds with 1"
    )
    assert robustness_sentence("holds", [("x", "a", [("b", "not computed")])]).startswith("alternatives not computed")
    robust = robustness_sentence("holds", [("bar", "< 0.1", [("< 0.05", "holds")])])
    assert robust == "robust to the bar: holds with < 0.1 (declared), holds with < 0.05"  # names what was varied


def test_the_mathematics_of_claim_texts_survives_a_table_cell():
    """A claim's statement, paper value and note are shown in table cells, HTML-escaped: their formulas use
    \\vert, \\Vert, \\lt, \\gt and \\prime, never a character that a cell or HTML escaping would change."""
    import re

    from lib.book.chapters import chapter_ids, load

    unsafe = [
        (claim.id, formula)
        for chapter in map(load, chapter_ids())
        for claim in chapter.claims
        for text in (claim.statement, claim.paper_value, claim.note)
        for formula in re.findall(r"\$[^$]*\$", text)
        if re.search(r"[|'<>&#]", formula)
    ]
    assert not unsafe, unsafe


def test_a_markdown_table_has_its_header_rule_and_rows_and_refuses_a_split_cell():
    assert markdown_table(("a", "$b$"), [("1", "2"), ("3", "4")]) == "| a | $b$ |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n"
    assert markdown_table(("a", "b"), []) == ""
    with pytest.raises(ValueError, match="2 cells"):
        markdown_table(("a", "b"), [("1",)])
    with pytest.raises(ValueError, match="without"):
        markdown_table(("a", "b"), [("1", "x | y")])
