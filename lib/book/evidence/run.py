"""Compute one shard: import the set's function, run it on the threads (and GPU) given, store arrays and provenance.

The shard function gets a checkpoint folder under `lib.util.paths.cache_dir("evidence", ...)`, keyed by
the configuration hash and the code fingerprint, so an interrupted long shard resumes and a shard
of changed code never resumes from stale state; it is removed once the shard is stored. The time a shard took
is summed over every run that worked on it (`ShardClock`): a shard resumed after an interruption records the
wall and CPU seconds of all its runs, not of its last one.
"""

from __future__ import annotations

import datetime
import json
import platform
import re
import shutil
import socket
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from lib.book.evidence.declare import EvidenceSet, config_hash
from lib.book.evidence.store import git_commit, set_code, shard_dir, write_shard
from lib.util.fingerprint import package_versions
from lib.util.io import atomic_write_json
from lib.util.names import resolve
from lib.util.paths import cache_dir

CLOCK_FILE = "shard_clock.json"  # in the checkpoint folder: the seconds of the runs before this one
CLOCK_EVERY_SECONDS = 60.0  # how often a running shard records its seconds so far (what a kill loses at most)


class ShardClock:
    """Wall and CPU seconds a shard has taken over all its runs, kept beside its checkpoint.

    On entry it reads the seconds of earlier runs from `CLOCK_FILE` in the checkpoint folder (none for a fresh
    shard, or an unreadable file); while the shard computes, a daemon thread rewrites the file every
    `CLOCK_EVERY_SECONDS` with the totals so far, so that a run killed at any point loses at most that much.
    CPU seconds are this process's (`time.process_time`: all its threads), which a paused or crowded process
    does not inflate; wall seconds count pauses too.
    """

    def __init__(self, checkpoint: Path, every: float = CLOCK_EVERY_SECONDS):
        self.path, self.every = Path(checkpoint) / CLOCK_FILE, every
        self.before = {"wall_seconds": 0.0, "cpu_seconds": 0.0, "runs": 0}
        try:
            found = json.loads(self.path.read_text())
            self.before = {key: type(value)(found[key]) for key, value in self.before.items()}
        except (OSError, ValueError, KeyError, TypeError):
            pass
        self._stop = threading.Event()

    def totals(self) -> dict[str, float]:
        """The seconds of the earlier runs plus this one's so far, and the number of runs (this one included)."""
        return {
            "wall_seconds": self.before["wall_seconds"] + time.perf_counter() - self._wall,
            "cpu_seconds": self.before["cpu_seconds"] + time.process_time() - self._cpu,
            "runs": self.before["runs"] + 1,
        }

    def _record(self) -> None:
        while not self._stop.wait(self.every):
            if self.path.parent.is_dir():
                atomic_write_json(self.path, self.totals())

    def __enter__(self) -> ShardClock:
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        self._thread = threading.Thread(target=self._record, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        if exc[0] is not None and self.path.parent.is_dir():  # interrupted or failed: the next run adds to this
            atomic_write_json(self.path, self.totals())


def choose_device(evidence_set: EvidenceSet, gpu: bool) -> str:
    """'cuda' if the set benefits from a GPU, one was requested and one is present; else 'cpu'."""
    if not (gpu and evidence_set.gpu):
        return "cpu"
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


VECTOR_EXTENSION = re.compile(r"^(sse|ssse|avx|amx|fma|f16c|asimd|sve|neon)")


def processor() -> dict[str, Any]:
    """The processor a shard ran on: {"model", "vector_extensions", "torch_kernels"}.

    Torch's floating-point results differ between instruction sets (AVX2, AVX-512, AMX) and with the
    thread count, and training amplifies the difference: provenance records the CPU model (the "model
    name" of /proc/cpuinfo, else what `platform` says), its vector extensions (the SIMD flags of
    /proc/cpuinfo: sse*, avx*, amx*, fma, asimd, sve, ...) and the kernel family torch chose
    (`torch.backends.cpu.get_cpu_capability()`), so that two shards that disagree in the last digits
    can be told apart from a change of code.
    """
    import torch

    fields: dict[str, str] = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    flags = (fields.get("flags") or fields.get("Features") or "").split()
    return {
        "model": fields.get("model name") or platform.processor() or platform.machine(),
        "vector_extensions": sorted(f for f in set(flags) if VECTOR_EXTENSION.match(f)),
        "torch_kernels": torch.backends.cpu.get_cpu_capability(),
    }


def checkpoint_dir(evidence_set: EvidenceSet, sid: str, variant: str = "full", create: bool = False) -> Path:
    """The checkpoint folder of shard `sid`, keyed by the configuration hash and the code fingerprint: a shard
    of changed configuration or code never resumes from another's state."""
    key = f"{config_hash(evidence_set.variant_config(variant))[:12]}-{set_code(evidence_set).fingerprint}"
    return cache_dir("evidence", evidence_set.chapter, evidence_set.name, variant, sid, key, create=create)


def begun_cpu_seconds(evidence_set: EvidenceSet, sid: str, variant: str = "full") -> float | None:
    """The CPU seconds the interrupted runs of shard `sid` have spent (`ShardClock`), or None when its checkpoint
    folder holds no saved state (none, or only the clock of a run killed before its first save): a fresh shard."""
    folder = checkpoint_dir(evidence_set, sid, variant)
    if not folder.is_dir() or all(path.name == CLOCK_FILE for path in folder.iterdir()):
        return None
    return ShardClock(folder).before["cpu_seconds"]


def resume_priority(evidence_set: EvidenceSet, sid: str, variant: str = "full") -> float:
    """How far an interrupted run of shard `sid` got: 0 for a fresh shard, else 1 + the CPU seconds its runs have
    spent (`begun_cpu_seconds`), so that the shard furthest along resumes first."""
    seconds = begun_cpu_seconds(evidence_set, sid, variant)
    return 0.0 if seconds is None else 1.0 + seconds


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
    code = set_code(evidence_set)
    chash = config_hash(declared)
    checkpoint = checkpoint_dir(evidence_set, sid, variant, create=True)
    commit, dirty = git_commit(tuple(sorted({where.partition(":")[0] for where in code.locations.values()})))
    cpu = processor()

    with ShardClock(checkpoint) as clock:
        arrays = resolve(evidence_set.function)(config, shard, checkpoint)
        spent = clock.totals()

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
        "code_fingerprint": code.fingerprint,
        "code_objects": code.objects,
        "commit": commit,
        "dirty": dirty,
        "versions": package_versions(),
        "device": device if device == "cpu" else f"cuda ({torch.cuda.get_device_name()})",
        "machine": platform.machine(),
        "processor": cpu,
        "cpu": f"{cpu['model']}; torch {cpu['torch_kernels']}",
        "threads": threads,
        "wall_seconds": round(spent["wall_seconds"], 3),  # over all the runs that worked on it (ShardClock)
        "cpu_seconds": round(spent["cpu_seconds"], 3),
        "runs": spent["runs"],
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "host": socket.gethostname(),
        "arrays": {name: [str(a.dtype), list(a.shape)] for name, a in arrays.items()},
    }
    directory = shard_dir(evidence_set, sid, variant, root)
    write_shard(directory, arrays, provenance)
    shutil.rmtree(checkpoint, ignore_errors=True)
    return directory
