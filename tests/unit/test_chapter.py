"""lib/chapter.py: parameter validation, claim conditions, defaults read from the notebook."""
import pytest

from lib.chapter import Chapter, Claim, Param, ParameterError, parameters_cell_values
from lib.specs import chapter_ids, load


def test_param_types_and_bounds():
    assert Param("lr", "float", "", gt=0).validate(1) == 1.0
    with pytest.raises(ParameterError, match="> 0"):
        Param("lr", "float", "", gt=0).validate(0.0)
    with pytest.raises(ParameterError, match="must be int"):
        Param("d", "int", "").validate(2.5)
    with pytest.raises(ParameterError, match="boolean"):
        Param("d", "int", "").validate(True)
    with pytest.raises(ParameterError, match="sigma\\[1\\]"):
        Param("sigma", "float list", "", min=0).validate([0.1, -0.2])
    with pytest.raises(ParameterError, match="one of"):
        Param("relation", "str", "", choices=("mod3",)).validate("mod4")
    with pytest.raises(ParameterError, match="at least 2"):
        Param("mu", "float list", "", min_len=2).validate([1.0])
    assert Param("h", "int", "", nullable=True).validate(None) is None
    with pytest.raises(ParameterError, match="null"):
        Param("h", "int", "").validate(None)


def test_claim_conditions():
    assert Claim("x", "", "", "m", "< 0.1").holds(0.05)
    assert not Claim("x", "", "", "m", "< 0.1").holds(0.5)
    assert Claim("x", "", "", "m", "== true").holds(True)
    assert not Claim("x", "", "", "m", "== true").holds(None)
    assert not Claim("x", "", "", "m", ">= 1").holds([1, 2])
    assert not Claim("x", "", "", "m", ">= 1").holds(float("nan"))
    with pytest.raises(ValueError):
        Claim("x", "", "", "m", "about 3")


def test_parameters_cell(tmp_path):
    nb = tmp_path / "c.py"
    nb.write_text('# %% [markdown]\n# hi\n\n# %% tags=["parameters"]\n"doc"\nd = 3  # dim\nmu = [1.0, 2.0]\n\n# %%\nx = 1\n')
    assert parameters_cell_values(nb) == {"d": 3, "mu": [1.0, 2.0]}
    nb.write_text('# %% tags=["parameters"]\nd = f(3)\n')
    with pytest.raises(ValueError):
        parameters_cell_values(nb)


@pytest.mark.parametrize("chapter_id", chapter_ids())
def test_declaration_matches_notebook(chapter_id):
    """Each chapter's notebook exists, its parameters cell and declaration name the same
    parameters, the defaults and the smoke settings are valid, and an unknown name is refused."""
    chapter = load(chapter_id)
    assert isinstance(chapter, Chapter) and chapter.id == chapter_id
    chapter.validate(chapter.defaults())
    chapter.validate(chapter.smoke, partial=True)
    with pytest.raises(ParameterError, match="unknown parameter"):
        chapter.validate({"no_such_parameter": 1}, partial=True)
    assert len({c.id + c.metric for c in chapter.claims}) == len(chapter.claims)
