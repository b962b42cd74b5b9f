"""lib/book/chapters/one_layer.py: the declaration accepts its defaults and rejects invalid values before any compute."""

import pytest

from lib.book.chapters.declaration import ParameterError
from lib.book.chapters.one_layer import CHAPTER


def test_defaults_and_smoke_validate():
    CHAPTER.validate({})
    CHAPTER.validate(CHAPTER.smoke)


def test_held_out_settings_validate():
    CHAPTER.validate({"d": 3, "mu": [1.0, 1.5, 2.2], "sigma": [0.05] * 3})
    CHAPTER.validate(
        {
            "mu": [1.0, 1.5, 2.2, 2.7],
            "sigma": [0.05, 0.05, 0.05, 0.5],
            "sigma_is_variance": True,
            "origin_cluster": True,
            "loss_scaling": "mse",
        }
    )


@pytest.mark.parametrize(
    "override, message",
    [
        ({"sigma": [-0.1, 0.05]}, "must be >= 0"),
        ({"mu": [1.0, 2.0, 3.0]}, "one entry per cluster"),
        ({"mu": [1.0]}, "at least 2"),
        ({"d": 1}, "must not exceed d"),
        ({"lr": 1.0}, "diverges"),
        ({"fig2a_mu1": [7.0]}, "diverges"),  # lr * a_1 = 0.1 * (49 / 2) > 2
        ({"map_mu1_min": 3.0}, "below map_mu1_max"),
        ({"batch_size": 20000}, "exceeds the training set"),
        ({"loss_scaling": "sum"}, "one of"),
        ({"relation": "mod3"}, "unknown parameter"),
        ({"init_scale": 1e300}, "must be <= 1000"),
        ({"init_scales_sweep": [0.1, 1e4]}, "<= 1000"),
    ],
)
def test_invalid_values_fail_with_a_clear_message(override, message):
    with pytest.raises(ParameterError, match=message):
        CHAPTER.validate(override)
