"""lib/book/chapters/declaration.py: parameters declared once as a dataclass, claims with three-valued verdicts."""

import typing
from dataclasses import dataclass, fields

import pytest

from lib.book.chapters import chapter_ids, load
from lib.book.chapters.declaration import (
    FAILS,
    HOLDS,
    INCONCLUSIVE,
    NOT_COMPUTED,
    Chapter,
    Claim,
    Cost,
    ParameterError,
    Parameters,
    _describe_field,
    param,
)


@dataclass(frozen=True)
class Toy(Parameters):
    d: int = param(4, "dimension", min=1, max=100)
    lr: float = param(0.1, "learning rate", gt=0)
    mu: list[float] = param([1.0, 2.0], "means", gt=0, min_len=2)
    relation: str = param("mod3", "relation", choices=("mod3", "greater_than"))
    seed: int | None = param(None, "seed or null")
    flag: bool = param(False, "a switch")

    def check(self) -> None:
        if self.d < len(self.mu):
            raise ParameterError("d must be >= len(mu)")

    def cost(self) -> Cost:
        return Cost(seconds=self.d * 10.0)


def test_fields_describe_themselves():
    info = {i.name: i for i in Toy.describe()}
    assert info["mu"].type == "float list" and info["mu"].default == [1.0, 2.0]
    assert info["seed"].nullable and info["seed"].type == "int or null"
    assert "> 0" in info["lr"].describe_range() and "<= 100" in info["d"].describe_range()
    assert Toy.defaults()["relation"] == "mod3"


@pytest.mark.parametrize("params", [Toy, *(load(c).params for c in chapter_ids())])
def test_fields_are_described_once_per_class(params):
    """`describe` describes a class's fields once (cached): the same as resolving the annotations and describing
    every field on each call, and each call still makes its own list defaults, which a caller may change."""
    hints = typing.get_type_hints(params)
    assert params.describe() == [_describe_field(f, hints[f.name]) for f in fields(params)]
    first, second = params.describe(), params.describe()
    lists = [(a.default, b.default) for a, b in zip(first, second) if isinstance(a.default, list)]
    assert all(a is not b for a, b in lists)
    for mine, _ in lists:
        mine.append("changed")  # stays in the caller's list
    assert params.describe() == [_describe_field(f, hints[f.name]) for f in fields(params)]


def test_construction_validates_and_widens():
    p = Toy(lr=1, mu=[3, 4])
    assert p.lr == 1.0 and isinstance(p.lr, float) and p.mu == [3.0, 4.0]
    assert Toy().mu is not Toy().mu  # list defaults are not shared


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"lr": 0.0}, "> 0"),
        ({"d": 2.5}, "must be int"),
        ({"d": True}, "boolean"),
        ({"mu": [0.1, -0.2]}, r"mu\[1\]"),
        ({"relation": "mod4"}, "one of"),
        ({"mu": [1.0]}, "at least 2"),
        ({"lr": float("inf")}, "finite"),
        ({"d": 1000}, "<= 100"),
        ({"d": 1}, "d must be >= len"),
        ({"flag": None}, "must not be null"),
        ({"relation": "x" * 10_000}, "not a usable string"),
    ],
)
def test_invalid_values(kwargs, message):
    with pytest.raises(ParameterError, match=message):
        Toy(**kwargs)


def test_messages_stay_short():
    with pytest.raises(ParameterError) as err:
        Toy(mu=[[[[list(range(10_000))]]]] * 1000)
    assert len(str(err.value)) < 300


def test_chapter_validate_unknown_and_parameters_cell():
    chapter = Chapter(id="toy", title="t", params=Toy)
    with pytest.raises(ParameterError, match="unknown parameter"):
        chapter.validate({"no_such": 1})
    assert chapter.validate({"d": 8}).d == 8
    source = chapter.parameters_source()
    assert "\nd = 4  # type: int  dimension\n" in source and "\nmu = [1.0, 2.0]  # type: list[float]  means\n" in source


def test_chapter_refuses_duplicate_claim_ids_and_invalid_smoke():
    claim = Claim("S-C", "s", "p", "m", "< 1")
    with pytest.raises(ValueError, match="unique"):
        Chapter(id="toy", title="t", params=Toy, claims=(claim, claim))
    with pytest.raises(ParameterError):
        Chapter(id="toy", title="t", params=Toy, smoke={"lr": -1.0})


def _estimate(value, low, high, n=10):
    return {"value": value, "low": low, "high": high, "n": n, "method": "test"}


def test_three_valued_verdicts_on_intervals():
    claim = Claim("S-5/x", "s", "p", "m", "> 0.5", basis="seeds")
    assert claim.evaluate(_estimate(0.8, 0.6, 0.9))[0] == HOLDS
    assert claim.evaluate(_estimate(0.3, 0.1, 0.4))[0] == FAILS
    assert claim.evaluate(_estimate(0.6, 0.4, 0.7))[0] == INCONCLUSIVE
    assert claim.evaluate(0.9)[0] == NOT_COMPUTED  # a claim over seeds needs an interval
    assert claim.evaluate(_estimate(0.9, 0.6, float("inf")))[0] == NOT_COMPUTED
    assert claim.evaluate(None)[0] == NOT_COMPUTED


def test_point_values_are_two_valued_and_non_finite_never_holds():
    assert Claim("x", "", "", "m", "< 0.1").evaluate(0.05)[0] == HOLDS
    assert Claim("x", "", "", "m", "< 0.1").evaluate(0.5)[0] == FAILS
    assert Claim("x", "", "", "m", "== true", basis="exact").evaluate(True)[0] == HOLDS
    assert Claim("x", "", "", "m", ">= 0").evaluate(float("inf"))[0] == NOT_COMPUTED
    assert Claim("x", "", "", "m", ">= 0").evaluate(float("nan"))[0] == NOT_COMPUTED
    assert Claim("x", "", "", "m", ">= 1").evaluate([1, 2])[0] == NOT_COMPUTED


def test_claim_declaration_rules():
    with pytest.raises(ValueError, match="condition"):
        Claim("x", "", "", "m", "about 3")
    with pytest.raises(ValueError, match="reason"):
        Claim("x", "", "", "m", "< 1", expected=FAILS)
    with pytest.raises(ValueError, match="basis"):
        Claim("x", "", "", "m", "< 1", basis="vibes")
    with pytest.raises(ValueError, match="two-valued"):
        Claim("x", "", "", "m", "== true", basis="exact", expected=INCONCLUSIVE, note="n")


@pytest.mark.parametrize("chapter_id", chapter_ids())
def test_declarations(chapter_id):
    """Each declaration: defaults and smoke valid, an unknown name refused, claims on declared bases."""
    chapter = load(chapter_id)
    assert isinstance(chapter, Chapter) and chapter.id == chapter_id and chapter.notebook.exists()
    chapter.validate({})
    chapter.validate(chapter.smoke)
    with pytest.raises(ParameterError, match="unknown parameter"):
        chapter.validate({"no_such_parameter": 1})


def test_a_condition_may_name_a_parameter_and_reads_the_runs_value():
    claim = Claim("x", "", "", "m", "< lr", basis="seeds")
    assert claim.parameter == "lr" and Claim("x", "", "", "m", "== true").parameter is None
    assert claim.evaluate(_estimate(0.05, 0.04, 0.06), {"lr": 0.1})[0] == HOLDS
    assert claim.evaluate(_estimate(0.05, 0.04, 0.06), {"lr": 0.01})[0] == FAILS
    assert claim.evaluate(_estimate(0.05, 0.04, 0.06))[0] == NOT_COMPUTED
    Chapter("toy", "Toy", Toy, claims=(claim,))
    with pytest.raises(ValueError, match="does not declare"):
        Chapter("toy", "Toy", Toy, claims=(Claim("x", "", "", "m", "< tol"),))
