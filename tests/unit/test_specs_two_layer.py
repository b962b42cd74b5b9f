"""lib/book/chapters/two_layer.py: the cost estimate follows the flow's stiffness and the lemma checks' step count."""

import pytest

from lib.book.chapters.declaration import ParameterError
from lib.book.chapters.two_layer import CHAPTER, LEMMA_S3_SIGMA
from lib.sim.data import population_second_moment
from lib.theory.assumptions_d import choose_constants, steps_to_converge


def test_defaults_cost_about_a_minute():
    assert 30 < CHAPTER.validate({}).cost().seconds < 300


def test_stronger_signals_cost_more():
    base = CHAPTER.validate({}).cost().seconds
    assert CHAPTER.validate({"sweep_mu1": [0.5, 1.0, 20.0]}).cost().seconds > base + 10
    assert CHAPTER.validate({"lemma_mu": [1.0, 20.0]}).cost().seconds > 3 * base


def test_lemma_steps_are_those_of_the_notebook():
    """The cost counts the steps the notebook runs: steps_to_converge of the chosen constants."""
    a = population_second_moment([1.0, 2.0, 4.0], LEMMA_S3_SIGMA, 3)
    assert steps_to_converge(choose_constants(a, beta=2.0), a) > 1e5


@pytest.mark.parametrize(
    "override, message",
    [
        ({"sweep_mu1": [1e300]}, "numerical range.*overflow encountered"),
        ({"lemma_mu": [1e12, 1.0]}, "numerical range"),
        ({"lemma_sigma": [1e12, 0.1]}, "numerical range"),
    ],
)
def test_unreasonable_strengths_are_refused(override, message):
    with pytest.raises(ParameterError, match=message):
        CHAPTER.validate(override)


def test_the_fixed_width_sweep_needs_two_dimensions_up_to_its_width():
    CHAPTER.validate({"sweep_d": [2, 4], "sweep_fixed_width": 4})
    with pytest.raises(ParameterError, match="sweep_fixed_width = 2 admits fewer than two d"):
        CHAPTER.validate({"sweep_fixed_width": 2})
    wider = CHAPTER.validate({"sweep_fixed_width": 12}).cost().seconds
    assert wider > CHAPTER.validate({}).cost().seconds


def test_claims_with_free_choices_name_recorded_variants():
    """The robustness rows of S-5 and S-18 read metrics the notebook records under each alternative."""
    claims = {c.id: c for c in CHAPTER.claims}
    assert "stage_alignment_fraction_floor_0_05" in claims["S-5/stage-alignment-floor"].alternative_metrics
    assert claims["S-18/stages-turn"].alternative_metrics == [
        "cluster_off_course_different_stages_speed_0_01",
        "cluster_off_course_different_stages_speed_0_3",
    ]
    assert "S-5/two-descents" not in claims  # the same count as S-5/nonmonotone
