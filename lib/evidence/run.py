"""Compute one shard: import the set's function, run it on the threads (and GPU) given, store arrays and provenance.

The shard function gets a checkpoint folder under `lib.paths.cache_dir("evidence", ...)`, keyed by
the configuration hash and the code fingerprint, so an interrupted long shard resumes and a shard
of changed code never resumes from stale state; it is removed once the shard is stored.
"""

from __future__ import annotations

import datetime
import importlib
import platform
import shutil
import socket
import time
from pathlib import Path

import numpy as np

from lib.evidence.declare import EvidenceSet, config_hash
from lib.evidence.store import code_record, git_commit, shard_dir, write_shard
from lib.fingerprint import package_versions
from lib.paths import cache_dir


def resolve(function: str):
    """The callable named 'module:name'."""
    module, _, name = function.partition(":")
    return getattr(importlib.import_module(module), name)


def choose_device(evidence_set: EvidenceSet, gpu: bool) -> str:
    """'cuda' if the set benefits from a GPU, one was requested and one is present; else 'cpu'."""
    if not (gpu and evidence_set.gpu):
        return "cpu"
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def cpu_description() -> str:
    """The processor and the kernels torch chose on it ("Intel(R) Xeon(R) Processor; torch AVX512").

    Torch's floating-point results differ between instruction sets (AVX2, AVX-512) and with the
    thread count, and training amplifies the difference: provenance records both, so that two shards
    that disagree in the last digits can be told apart from a change of code.
    """
    import torch

    try:
        model = next(
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        )
    except (OSError, StopIteration):
        model = platform.processor() or platform.machine()
    return f"{model}; torch {torch.backends.cpu.get_cpu_capability()}"


def run_shard(
    evidence_set: EvidenceSet,
    sid: str,
    variant: str = "full",
    root: Path | None = None,
    threads: int = 1,
    gpu: bool = False,
) -> Path:
    """Compute shard `sid` of the set and store it under `root` (default data/evidence); returns its folder."""
    import torch

    torch.set_num_threads(threads)
    shard = evidence_set.shard_by_id(sid, variant)
    declared = evidence_set.variant_config(variant)
    device = choose_device(evidence_set, gpu)
    config = {**declared, "device": device} if evidence_set.gpu else declared
    fingerprint, modules = code_record(evidence_set.module)
    chash = config_hash(declared)
    checkpoint = cache_dir(
        "evidence", evidence_set.chapter, evidence_set.name, variant, sid, f"{chash[:12]}-{fingerprint}"
    )
    commit, dirty = git_commit(tuple(modules))

    start = time.perf_counter()
    arrays = resolve(evidence_set.function)(config, shard, checkpoint)
    wall = time.perf_counter() - start

    arrays = {name: np.asarray(value) for name, value in arrays.items()}
    provenance = {
        "chapter": evidence_set.chapter,
        "set": evidence_set.name,
        "variant": variant,
        "shard": shard,
        "shard_id": sid,
        "function": evidence_set.function,
        "config": declared,
        "config_hash": chash,
        "code_fingerprint": fingerprint,
        "code_modules": modules,
        "commit": commit,
        "dirty": dirty,
        "versions": package_versions(),
        "device": device if device == "cpu" else f"cuda ({torch.cuda.get_device_name()})",
        "machine": platform.processor() or platform.machine(),
        "cpu": cpu_description(),
        "threads": threads,
        "wall_seconds": round(wall, 3),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "host": socket.gethostname(),
        "arrays": {name: [str(a.dtype), list(a.shape)] for name, a in arrays.items()},
    }
    directory = shard_dir(evidence_set, sid, variant, root)
    write_shard(directory, arrays, provenance)
    shutil.rmtree(checkpoint, ignore_errors=True)
    return directory
