"""A computation started in its own process while the caller goes on (a chapter's independent check).

`in_background(function, *args, **kwargs)` starts `function(*args, **kwargs)` in a fresh process at once and
returns a handle whose `result()` waits for it. `function` may also be named, "module:qualname", and is then
imported only in that process: a caller that never imports the function's module (torch, say) never pays for it. The process is spawned, not forked (a kernel's threads and
open files stay out of it), and computes under the caller's runtime (`lib.util.runtime.apply`: the same
threads of torch and BLAS, read from the same environment), so its numbers are the ones the caller would
have computed. On a machine with a spare core the two overlap; on one core they share it, as before.
"""

from __future__ import annotations

import importlib
import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from lib.util import runtime


def call_by_name(name: str, args: tuple, kwargs: dict[str, Any]) -> Any:
    """Import `name` ("module:qualname") and call it."""
    module, _, qualname = name.partition(":")
    function: Any = importlib.import_module(module)
    for attribute in qualname.split("."):
        function = getattr(function, attribute)
    return function(*args, **kwargs)


class Background:
    """`function(*args, **kwargs)` computing in its own process; `result()` returns it or raises its error."""

    def __init__(self, function: Callable | str, args: tuple, kwargs: dict[str, Any]):
        self._pool = ProcessPoolExecutor(
            max_workers=1, mp_context=multiprocessing.get_context("spawn"), initializer=runtime.apply
        )
        if isinstance(function, str):
            self._future = self._pool.submit(call_by_name, function, args, kwargs)
        else:
            self._future = self._pool.submit(function, *args, **kwargs)

    def result(self) -> Any:
        """Wait for the computation and return its value (its exception is raised here); the process ends."""
        try:
            return self._future.result()
        finally:
            self._pool.shutdown()


def in_background(function: Callable | str, /, *args: Any, **kwargs: Any) -> Background:
    """Start `function(*args, **kwargs)` in a spawned process now; `function` (or its name, "module:qualname")
    and its arguments must pickle (a module-level function of `lib`, plain data)."""
    return Background(function, args, kwargs)
