"""The chapter's declaration (lib/book/chapters/diffusion.py): parameters, claims per contrast, evidence sets."""

import pytest

from lib.book.chapters.declaration import ParameterError
from lib.book.chapters.diffusion import CHAPTER, EVIDENCE
from lib.diffusion.configs import CPU, PAPER


def test_defaults_and_smoke_are_valid():
    CHAPTER.validate({})
    CHAPTER.validate(dict(CHAPTER.smoke))


@pytest.mark.parametrize(
    "override, message",
    [
        ({"transit_low": 0.9, "transit_high": 0.5}, "transit_low"),
        ({"evidence_variant": "huge"}, "evidence_variant"),
        ({"learned_level": 1.5}, "learned_level"),
    ],
)
def test_invalid_values_fail_clearly(override, message):
    with pytest.raises(ParameterError, match=message):
        CHAPTER.validate(override)


def test_every_contrast_has_its_claims_and_no_undecidable_one():
    claims = {c.id: c for c in CHAPTER.claims}
    for c in CPU["contrasts"]:
        key = f"{c:g}".replace(".", "_")
        assert {f"S-6c/decay-{key}", f"S-6a/bend-{key}"} <= set(claims)
        assert not {f"S-6/generalises-{key}", f"S-6b/rise-{key}"} & set(claims)  # removed: no outcome decides them
        assert claims[f"S-6c/decay-{key}"].basis == "consistency"
    assert not {"S-6a/size-first-low", "S-6a/colour-first-high"} & set(claims)
    assert not any(i.startswith("S-6c/exp-vs-power") for i in claims)


def test_paper_set_is_the_papers_configuration():
    """App. G.2-G.3: 32 x 32, widths [64, 128, 256], two residual blocks, batch 128, 20k steps,
    100 sampling steps, classifier 10k steps, 5 seeds, contrasts 0.2 to 0.7; on a GPU."""
    paper = next(e for e in EVIDENCE if e.name == "paper")
    assert paper.gpu and paper.config is PAPER
    assert (
        PAPER["resolution"],
        PAPER["channels"],
        PAPER["blocks"],
        PAPER["batch_size"],
        PAPER["steps"],
        PAPER["sampler_steps"],
        PAPER["classifier_steps"],
        len(PAPER["seeds"]),
    ) == (32, [64, 128, 256], 2, 128, 20000, 100, 10000, 5)
    assert min(PAPER["contrasts"]) == 0.2 and max(PAPER["contrasts"]) == 0.7


def test_cpu_set_fits_three_hours_on_two_cores():
    """Unit costs measured on this machine (benchmarks/diffusion.py, one core): 5.2 ms per training
    image at 24 x 24, 1.6 ms per image and sampling step, 0.14 s per classifier step."""
    from lib.diffusion.configs import shard_cpu_seconds, shards

    per_shard = shard_cpu_seconds(CPU, 5.15, 1.63, 0.136)
    assert len(shards(CPU)) * per_shard / 2 <= 3 * 3600
