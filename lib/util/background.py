"""A computation started in its own process while the caller goes on (a chapter's independent check).

`in_background(function, *args, **kwargs)` starts `function(*args, **kwargs)` in a fresh process at once and
returns a handle whose `result()` waits for it. `function` may also be named, "module:qualname", and is then
imported only in that process: a caller that never imports the function's module (torch, say) never pays for it.

The process is spawned, not forked (a kernel's threads and open files stay out of it), and computes under the
caller's runtime (`lib.util.runtime.apply`: the same threads of torch and BLAS, read from the same environment),
so its numbers are the ones the caller would have computed. It sends its value (or its error) through a pipe
and ends at once, without the interpreter's teardown (a second with torch loaded); it is a daemon, so it also
ends with the caller. On a machine with a spare core the two overlap; on one core they share it, as before.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from lib.util import runtime
from lib.util.names import resolve


def _compute(send: Connection, function: Callable | str, args: tuple, kwargs: dict[str, Any]) -> None:
    """The process's whole life: compute under the caller's runtime, send (True, value) or (False, error), end."""
    try:
        runtime.apply()
        value = (resolve(function) if isinstance(function, str) else function)(*args, **kwargs)
        outcome: tuple[bool, Any] = (True, value)
    except BaseException as error:  # any error is the caller's to see
        outcome = (False, error)
    try:
        try:
            send.send(outcome)
        except OSError:  # the caller is gone (interrupted): nobody to tell
            pass
        except Exception as error:  # an unpicklable value or error: its description instead
            send.send((False, RuntimeError(f"the background computation's outcome could not be sent: {error!r}")))
        send.close()
    except OSError:
        pass
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


class Background:
    """`function(*args, **kwargs)` computing in its own process; `result()` returns it or raises its error."""

    def __init__(self, function: Callable | str, args: tuple, kwargs: dict[str, Any]):
        context = multiprocessing.get_context("spawn")
        self._receive, send = context.Pipe(duplex=False)
        self._process = context.Process(target=_compute, args=(send, function, args, kwargs), daemon=True)
        self._process.start()
        send.close()  # the child holds the sending end: if it dies, receiving ends instead of waiting forever

    def result(self) -> Any:
        """Wait for the computation and return its value (its exception is raised here)."""
        try:
            ok, value = self._receive.recv()
        except EOFError:
            self._process.join()
            raise RuntimeError(
                f"the background computation ended without a result (exit code {self._process.exitcode})"
            ) from None
        finally:
            self._receive.close()
        self._process.join()
        if not ok:
            raise value
        return value


def in_background(function: Callable | str, /, *args: Any, **kwargs: Any) -> Background:
    """Start `function(*args, **kwargs)` in a spawned process now; `function` (or its name, "module:qualname")
    and its arguments must pickle (a module-level function of `lib`, plain data)."""
    return Background(function, args, kwargs)
