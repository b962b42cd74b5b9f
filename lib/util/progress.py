"""Progress bars for a person at a terminal, silence everywhere else (papermill kernels, the rendered book)."""

from __future__ import annotations

import sys
from typing import Iterable, TypeVar

from tqdm import tqdm

T = TypeVar("T")


def progress(iterable: Iterable[T] | None = None, **kwargs) -> tqdm:
    """`tqdm` that is shown only when stderr is a terminal; in a notebook kernel it is disabled."""
    kwargs.setdefault("disable", not sys.stderr.isatty())
    kwargs.setdefault("leave", False)
    kwargs.setdefault("dynamic_ncols", True)
    return tqdm(iterable, **kwargs)
