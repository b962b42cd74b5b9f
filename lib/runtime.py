"""Runtime knobs, separate from the science parameters: threads and device.

One place for thread settings. The runner passes `--threads` and `--device` to the kernel through
the environment (`LIB_THREADS`, `LIB_DEVICE`); `apply()` sets torch's threads at the start of a
chapter. The Makefile's default is one BLAS thread per process (chapters run in parallel on a
shared 2-core machine, where threaded BLAS made small solves 15-30x slower).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

THREADS_ENV, DEVICE_ENV = "LIB_THREADS", "LIB_DEVICE"
BLAS_ENVS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
DEVICES = ("cpu", "cuda")


@dataclass(frozen=True)
class Runtime:
    """How a run computes (not what): threads of torch and BLAS, and the torch device."""

    threads: int = 1
    device: str = "cpu"

    def environment(self) -> dict[str, str]:
        """Variables that carry these settings into a kernel or a worker process."""
        return {THREADS_ENV: str(self.threads), DEVICE_ENV: self.device, **{k: str(self.threads) for k in BLAS_ENVS}}


def current() -> Runtime:
    """The runtime of this process, from the environment (defaults: 1 thread, cpu)."""
    return Runtime(
        int(os.environ.get(THREADS_ENV, os.environ.get("OMP_NUM_THREADS", "1"))), os.environ.get(DEVICE_ENV, "cpu")
    )


def apply(runtime: Runtime | None = None) -> Runtime:
    """Set torch's intra-op threads from the runtime (imports torch)."""
    import torch

    runtime = runtime or current()
    torch.set_num_threads(runtime.threads)
    return runtime
