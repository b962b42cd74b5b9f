"""lib/book/chapters/sim_observations.py: learning rates beyond the sharpness limit, degenerate tolerances and runs
too short to train are refused before any compute."""

import pytest

from lib.book.chapters.declaration import ParameterError
from lib.book.chapters.sim_observations import CHAPTER


def test_defaults_and_smoke_validate():
    CHAPTER.validate({})
    CHAPTER.validate(CHAPTER.smoke)


@pytest.mark.parametrize(
    "override, message",
    [
        ({"lr": 10.0}, r"lr = 10 diverges .* i\.e\. lr < "),
        ({"lowdim_lr": 100.0}, r"lowdim_lr = 100 diverges"),
        ({"mu1_values": [1e300]}, "no learning rate meets: the moments overflow"),
        ({"stop_tol": 0.5}, "must be < 0.5"),
        ({"rise_tol": 0.6}, "must be <= 0.5"),
        ({"epochs": 0.001}, "must be >= 0.1"),
        ({"epochs": 0.1, "batch": 1000, "n": 1000}, "SGD steps: the runs need at least 10"),
    ],
)
def test_invalid_values_fail_with_a_clear_message(override, message):
    with pytest.raises(ParameterError, match=message):
        CHAPTER.validate(override)
