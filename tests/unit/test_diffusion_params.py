"""The chapter's declaration (lib/specs/diffusion.py) rejects invalid parameters before any compute."""
import pytest

from lib.chapter import ParameterError
from lib.specs.diffusion import CHAPTER


def test_defaults_are_valid():
    CHAPTER.validate({})
    CHAPTER.validate(dict(CHAPTER.smoke))


@pytest.mark.parametrize("override, message", [
    ({"colour_signals": [-0.2]}, "colour_signals"),
    ({"colour_signals": [0.3, 0.3]}, "distinct"),
    ({"eval_every": 5000, "steps": 100}, "eval_every"),
    ({"image_size": 18}, "divisible"),
    ({"attention_heads": 5}, "attention_heads"),
    ({"size_signal": 1.0}, "size_signal"),
    ({"nudges": [-0.3]}, "nudged"),
    ({"gamma_min": 11.0}, "gamma_min"),
    ({"device": "tpu"}, "device"),
    ({"samples": 0}, "samples"),
])
def test_invalid_values_fail_clearly(override, message):
    with pytest.raises(ParameterError, match=message):
        CHAPTER.validate(override)
