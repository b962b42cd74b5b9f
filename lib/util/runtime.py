"""Runtime knobs, separate from the science parameters: threads, and the environment variables that set them.

One place for thread settings and for reading the book's environment variables. The runner passes
`--threads` to the kernel through the environment (`LIB_THREADS`); `apply()` sets torch's threads
at the start of a chapter (without importing torch: a chapter that never uses it does not pay its import). The Makefile's default is one BLAS thread per process (chapters run in
parallel on a shared 2-core machine, where threaded BLAS made small solves 15-30x slower).

Every variable the book reads (`LIB_THREADS`, `LIB_OUTPUT_DIR`, `LIB_CACHE_DIR`, `LIB_DRAFT_FIGURES`,
`LIB_STORED_RESULTS`, `LIB_WARM_KERNELS`) goes through `setting`: an empty or blank value counts as unset, and a
value that cannot be used raises `SettingError`, one line naming the variable. `LIB_DRAFT_FIGURES=1` (the nbval runs and their references,
which keep no figure) has a chapter lay out and draw its figures without rendering them to images.
`LIB_STORED_RESULTS` says what a chapter does with its stored results (`lib.book.evidence.stored`): `use` (the
default: read those that match, compute the rest), `live` (compute everything; the nbval runs) or `write`
(compute everything and rewrite the stored results, at the default parameters). `LIB_WARM_KERNELS=0` starts every
kernel afresh instead of forking it from a template that has imported the libraries (`lib.book.run.warm_kernels`;
"1" or unset: forked). Chapters compute on the CPU; GPU-sized work is evidence, run through the workflow's `gpu`
profiles (README, Evidence).
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import os
import sys
from dataclasses import dataclass
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

from lib.util.io import check_writable
from lib.util.paths import CACHE_DIR_ENV, ROOT, cache_dir, source_folder_of

THREADS_ENV = "LIB_THREADS"
BLAS_ENVS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
MAX_THREADS = 1024


class SettingError(ValueError):
    """An environment variable of the book holds a value it cannot use (exit code 2, one line)."""


def setting(name: str) -> str | None:
    """The value of environment variable `name`, stripped; None when unset, empty or blank."""
    value = os.environ.get(name, "").strip()
    return value or None


def whole_number_in(text: str, low: int, high: int) -> int | None:
    """The int from `low` to `high` that `text` writes (ASCII digits, spaces around and zeros in front allowed, at most
    32 characters), or None; never Python's error for an integer of more digits than it converts."""
    digits = text.strip()
    significant = digits.lstrip("0") or "0"  # zeros in front are allowed ("0002"), not counted as digits
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 32 or len(significant) > len(str(high)):
        return None
    return int(significant) if low <= int(significant) <= high else None


def thread_count(text: str) -> int | None:
    """The thread count `text` writes (`whole_number_in` 1 to MAX_THREADS), or None."""
    return whole_number_in(text, 1, MAX_THREADS)


def threads_setting(name: str, default: int) -> int:
    """A thread count from variable `name` (`thread_count`); `default` when unset."""
    value = setting(name)
    if value is None:
        return default
    if (count := thread_count(value)) is None:
        raise SettingError(f"{name}={value[:40]!r}: expected a whole number of threads from 1 to {MAX_THREADS}")
    return count


def folder_setting(name: str, default: Path) -> Path:
    """A folder from variable `name` (need not exist yet); `default` when unset; refused when it is a file."""
    value = setting(name)
    if value is None:
        return default
    if "\x00" in value:
        raise SettingError(f"{name}: contains a NUL character")
    path = Path(value).expanduser()
    if path.exists() and not path.is_dir():
        raise SettingError(f"{name}={value[:80]!r}: exists and is not a folder")
    return path


OUTPUT_DIR_ENV = "LIB_OUTPUT_DIR"
FOLDER_ENVS = (OUTPUT_DIR_ENV, CACHE_DIR_ENV)
DRAFT_FIGURES_ENV = "LIB_DRAFT_FIGURES"
ALLOW_EXPENSIVE_ENV = "LIB_ALLOW_EXPENSIVE"
STORED_RESULTS_ENV = "LIB_STORED_RESULTS"
STORED_RESULTS_MODES = ("use", "live", "write")
WARM_KERNELS_ENV = "LIB_WARM_KERNELS"


def switch(name: str, on: str, off: str, default: bool = False) -> bool:
    """A variable that is 1 (`on`) or 0 (`off`), `default` when unset; any other value is refused in one line."""
    value = setting(name)
    if value not in (None, "0", "1"):
        raise SettingError(f"{name}={value[:40]!r}: expected 1 ({on}) or 0 ({off})")
    return default if value is None else value == "1"


def draft_figures() -> bool:
    """Whether `LIB_DRAFT_FIGURES` asks for figures drawn but not rendered ("1"; "0" or unset: rendered)."""
    return switch(DRAFT_FIGURES_ENV, "draw figures without rendering them", "render them")


def stored_results_mode() -> str:
    """What a chapter does with its stored results: `LIB_STORED_RESULTS`, one of STORED_RESULTS_MODES ("use" when
    unset): "use" reads those that match their call and code, "live" reads none, "write" computes and rewrites them."""
    value = setting(STORED_RESULTS_ENV)
    if value is None:
        return "use"
    if value not in STORED_RESULTS_MODES:
        raise SettingError(
            f"{STORED_RESULTS_ENV}={value[:40]!r}: expected use (read stored results that match), live (compute "
            "everything) or write (compute and rewrite the stored results)"
        )
    return value


def allow_expensive() -> bool:
    """Whether `LIB_ALLOW_EXPENSIVE` lets a papermill run go beyond the cost that is refused by default ("1"; "0" or
    unset: refused), as `lib run --allow-expensive` does."""
    return switch(ALLOW_EXPENSIVE_ENV, "run beyond the cost refused by default", "refuse it")


def cache_folder_setting() -> None:
    """Refuse a LIB_CACHE_DIR that cannot be created or written, or that `make clean-cache` must never remove (the
    repository's root or sources, a folder holding the repository), with `SettingError`, before any compute (the
    cache is written only once a chapter computes); else create it, tagged as a cache (`lib.util.paths.cache_dir`)."""
    value = setting(CACHE_DIR_ENV)
    if value is None:
        return
    path = folder_setting(CACHE_DIR_ENV, Path("."))
    resolved, root = Path(os.path.realpath(path)), Path(os.path.realpath(ROOT))
    if resolved in root.parents or source_folder_of(resolved) is not None:
        where = "holds the repository" if resolved in root.parents else "lies in the repository's sources"
        raise SettingError(
            f"{CACHE_DIR_ENV}={value[:80]!r}: {where}; a cache, which make clean-cache removes, goes elsewhere"
        )
    try:
        cache_dir()
        check_writable(path)
    except OSError as err:
        raise SettingError(f"{CACHE_DIR_ENV}={value[:80]!r}: cannot be written ({err.strerror or err})") from None


def warm_kernels() -> bool:
    """Whether `LIB_WARM_KERNELS` lets kernels be forked from a warm template ("1" or unset; "0": started afresh)."""
    return switch(WARM_KERNELS_ENV, "fork kernels from a warm template", "start every kernel afresh", default=True)


def check_environment() -> None:
    """Validate every variable the book reads, before any compute; drop the blank ones (unset).

    Called by the command line and at the start of every chapter, so that `lib.util.paths` reads only a
    usable `LIB_CACHE_DIR` or none.
    """
    for name in (
        THREADS_ENV,
        DRAFT_FIGURES_ENV,
        STORED_RESULTS_ENV,
        WARM_KERNELS_ENV,
        ALLOW_EXPENSIVE_ENV,
        *FOLDER_ENVS,
    ):
        if name in os.environ and setting(name) is None:
            del os.environ[name]
    current()
    draft_figures()
    stored_results_mode()
    warm_kernels()
    allow_expensive()
    for name in FOLDER_ENVS:  # relative to the folder the command was started in, not to a kernel's (the repository)
        if setting(name) is not None:
            os.environ[name] = str(folder_setting(name, Path(".")).absolute())
    cache_folder_setting()


@dataclass(frozen=True)
class Runtime:
    """How a run computes (not what): threads of torch and BLAS, and what it does with stored results (None:
    what the environment says, `use` when unset)."""

    threads: int = 1
    stored_results: str | None = None

    def environment(self) -> dict[str, str]:
        """Variables that carry these settings into a kernel or a worker process."""
        stored = {STORED_RESULTS_ENV: self.stored_results} if self.stored_results else {}
        return {THREADS_ENV: str(self.threads), **{k: str(self.threads) for k in BLAS_ENVS}, **stored}


def current() -> Runtime:
    """The runtime of this process: `LIB_THREADS`, else a plain count in `OMP_NUM_THREADS`, else 1 thread.

    `OMP_NUM_THREADS` belongs to OpenMP, which also takes lists ("4,2"); only a plain count is read.
    """
    omp = setting("OMP_NUM_THREADS") or ""
    return Runtime(threads_setting(THREADS_ENV, thread_count(omp) or 1))


class TorchThreads(importlib.abc.MetaPathFinder):
    """An import finder that sets torch's intra-op threads as soon as torch is imported (`apply`).

    It finds nothing itself: when `import torch` asks, it removes itself from `sys.meta_path`, takes
    torch's spec from the other finders, and has that spec's loader call `torch.set_num_threads(threads)`
    once torch's own module has run.
    """

    def __init__(self, threads: int):
        self.threads = threads

    def find_spec(self, name: str, path: object = None, target: object = None) -> ModuleSpec | None:
        if name != "torch":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        run_module = spec.loader.exec_module

        def run_then_set_threads(module: ModuleType) -> None:
            run_module(module)
            module.set_num_threads(self.threads)

        spec.loader.exec_module = run_then_set_threads  # this spec's loader only: torch's import
        return spec


def apply(runtime: Runtime | None = None) -> Runtime:
    """Set torch's intra-op threads from the runtime, without importing torch.

    A chapter whose computations never use torch does not pay its import (seconds): a torch already
    imported gets `torch.set_num_threads` now, one imported later gets it when its import ends
    (`TorchThreads`). BLAS reads its variables when it loads (`Runtime.environment`, set by `lib run` for
    the kernel).
    """
    check_environment()
    runtime = runtime or current()
    sys.meta_path[:] = [finder for finder in sys.meta_path if not isinstance(finder, TorchThreads)]
    if (torch := sys.modules.get("torch")) is not None:
        torch.set_num_threads(runtime.threads)
    else:
        sys.meta_path.insert(0, TorchThreads(runtime.threads))
    return runtime
