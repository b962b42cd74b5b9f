"""Where shards live, how one is written (atomically), and how one is checked against its declaration.

A shard folder holds `arrays.npz` (numeric arrays only, read with allow_pickle=False) and
`provenance.json` (configuration and its hash, shard key, the function, code commit and fingerprint
with the digest of every object the function reaches, versions, device, the processor, threads,
wall seconds, date, host, and the sha256 of arrays.npz). Both appear at once: they are written
into a hidden temporary folder beside the shard and renamed into place.

The code fingerprint is that of what the shard computes (`lib.util.fingerprint.reached_code`), not of
where its function lives: moving code between modules keeps stored shards usable. When the code a
shard reaches does change, `python -m lib evidence recertify` can certify the stored shards for the
new code by recomputing the set's smoke variant (`lib.book.evidence.certify`); each certification is
kept in the provenance's `certifications` list.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import shutil
import stat
import subprocess
import tempfile
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from lib.book.evidence.declare import EvidenceSet, config_hash, differing_keys
from lib.util.fingerprint import Reached, reached_code
from lib.util.paths import EVIDENCE, ROOT

ARRAYS = "arrays.npz"
PROVENANCE = "provenance.json"
TMP_PREFIX = ".tmp-"

# ----------------------------------------------------------------------------------------------
# Paths and the command that regenerates a set
# ----------------------------------------------------------------------------------------------


def set_dir(evidence_set: EvidenceSet, variant: str = "full", root: Path | None = None) -> Path:
    """The folder of the set's shards for `variant` under `root` (default data/evidence)."""
    base = Path(root or EVIDENCE) / evidence_set.chapter / evidence_set.name
    return base / "smoke" if variant == "smoke" else base


def shard_dir(evidence_set: EvidenceSet, sid: str, variant: str = "full", root: Path | None = None) -> Path:
    """The folder of shard `sid` of the set for `variant` under `root` (default data/evidence)."""
    return set_dir(evidence_set, variant, root) / sid


def regenerate_command(evidence_set: EvidenceSet, variant: str = "full") -> str:
    """The one command that recomputes the set's missing or stale shards (README, Evidence)."""
    smoke = " VARIANT=smoke" if variant == "smoke" else ""
    profile = " PROFILE=gpu" if evidence_set.gpu and variant == "full" else ""
    return f"make evidence SETS={evidence_set.key}{smoke}{profile}"


# ----------------------------------------------------------------------------------------------
# What produced a shard: code, commit, versions
# ----------------------------------------------------------------------------------------------


@cache
def code_record(function: str, gpu: bool = False) -> Reached:
    """What `function` ("module:name") reaches and its fingerprint (see lib.util.fingerprint). A set declared
    `gpu` is computed on another machine with its own package versions, so only its code counts here."""
    return reached_code(function, with_versions=not gpu)


def set_code(evidence_set: EvidenceSet) -> Reached:
    """The current code record of the set's function."""
    return code_record(evidence_set.function, evidence_set.gpu)


def git_commit(modules: tuple[str, ...] = ()) -> tuple[str, bool]:
    """(HEAD commit or 'unknown', whether the files of `modules` differ from HEAD or are untracked)."""
    from lib.util.deps import module_path

    def git(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", "-C", str(ROOT), *args], check=False, capture_output=True, text=True, timeout=30)

    try:
        head = git("rev-parse", "HEAD")
        if head.returncode:
            return "unknown", False
        files = [str(module_path(m)) for m in modules if module_path(m)]
        dirty = bool(files) and bool(git("status", "--porcelain", "--", *files).stdout.strip())
        return head.stdout.strip(), dirty
    except (OSError, subprocess.SubprocessError):
        return "unknown", False


@lru_cache(maxsize=1)
def _head() -> str:
    return git_commit()[0]


def describe_code_change(recorded: dict[str, Any], evidence_set: EvidenceSet) -> str:
    """Which reached objects or package versions differ between a shard's provenance and the code now (a set
    computed on a GPU keeps its own machine's versions: only its code is compared)."""
    return code_change(recorded, set_code(evidence_set), versions=not evidence_set.gpu)


def code_change(recorded: Mapping[str, Any], reached: Reached, versions: bool = True) -> str:
    """Which reached objects (and, with `versions`, compute packages' versions) differ between a provenance
    record (its "code_objects", "versions") and `reached`, the code now: the words of a stale shard's or
    stored result's message."""
    now, then = reached.objects, recorded.get("code_objects")
    if not isinstance(then, dict):
        return "its provenance records no reached code (an older fingerprint scheme)"
    where = lambda names: ", ".join(f"{n} ({reached.locations[n]})" if n in reached.locations else n for n in names)  # noqa: E731
    parts = []
    if changed := [k for k in sorted(set(now) & set(then)) if now[k] != then[k]]:
        parts.append(f"code of {where(changed)} changed")
    if added := sorted(set(now) - set(then)):
        parts.append(f"now also reaches {where(added)}")
    if removed := sorted(set(then) - set(now)):
        parts.append(f"no longer reaches {', '.join(removed)}")
    old = recorded.get("versions") if isinstance(recorded.get("versions"), dict) else {}
    if versions and (
        moved := [
            f"{k} {old.get(k)} -> {reached.versions.get(k)}"
            for k in sorted(set(reached.versions) | set(old))
            if reached.versions.get(k) != old.get(k)
        ]
    ):
        parts.append(f"versions {', '.join(moved)}")
    return "; ".join(parts) or "the code fingerprint differs"


# ----------------------------------------------------------------------------------------------
# Writing a shard
# ----------------------------------------------------------------------------------------------


def file_sha256(path: Path) -> str:
    """sha256 (hex) of the bytes of the file at `path`."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def write_shard(
    directory: Path, arrays: dict[str, np.ndarray], provenance: dict[str, Any], compressed: bool = False
) -> None:
    """Write arrays.npz and provenance.json into a temporary folder beside `directory`, then rename it in.

    An empty `directory` (Snakemake creates output folders before the job) or an older shard there is replaced.
    `compressed`: the npz's members deflated (`np.savez_compressed`; read the same way).
    """
    directory = Path(directory)
    directory.parent.mkdir(parents=True, exist_ok=True)
    for stale in directory.parent.glob(f"{TMP_PREFIX}{directory.name}-*"):  # left by a killed run
        shutil.rmtree(stale, ignore_errors=True)
    tmp = Path(tempfile.mkdtemp(dir=directory.parent, prefix=f"{TMP_PREFIX}{directory.name}-"))
    try:
        for name, value in arrays.items():
            if np.asarray(value).dtype == object:
                raise TypeError(f"array {name!r} has dtype object: shards hold numeric arrays only")
        (np.savez_compressed if compressed else np.savez)(tmp / ARRAYS, **arrays)
        provenance = {**provenance, "arrays_sha256": file_sha256(tmp / ARRAYS)}
        (tmp / PROVENANCE).write_text(json.dumps(provenance, indent=2, sort_keys=True, allow_nan=False) + "\n")
        for path in (tmp / ARRAYS, tmp / PROVENANCE, tmp):
            os.chmod(path, 0o755 if path.is_dir() else 0o644)
            if path.is_file():
                with open(path, "rb") as handle:
                    os.fsync(handle.fileno())
        if directory.exists():
            old = Path(tempfile.mkdtemp(dir=directory.parent, prefix=f"{TMP_PREFIX}{directory.name}-old-"))
            os.replace(directory, old / "shard")
            os.replace(tmp, directory)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, directory)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ----------------------------------------------------------------------------------------------
# Reading and checking a shard
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShardState:
    """What a shard folder holds compared with its declaration.

    status: ok | missing | incomplete | corrupt | config | shard | code. `problem` says why, in words;
    `other_commit` is the recorded commit when it differs from HEAD (ok shards only warn about it);
    `certified` says how an ok shard was certified for the current code when it was not computed by it.
    """

    sid: str
    status: str
    problem: str = ""
    provenance: dict | None = None
    arrays: dict | None = None
    other_commit: str = ""
    certified: str = ""


def npz_headers(path: Path) -> dict[str, list]:
    """name -> [dtype, shape] of every array of an npz, from the .npy headers in the zip (nothing else is read
    or decompressed); ValueError when a member is not an .npy array or holds fewer bytes than its header says."""
    return {name: [str(dtype), list(shape)] for name, (dtype, shape, _, _) in npz_layout(path).items()}


def npz_layout(path: Path) -> dict[str, tuple[np.dtype, tuple[int, ...], bool, int]]:
    """name -> (dtype, shape, Fortran order, where the data start in its member) of every array of an npz, read
    from the .npy headers as `npz_headers` reads them (and refused as it refuses them)."""
    from numpy.lib import format as npy

    found = {}
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            if not info.filename.endswith(".npy"):
                raise ValueError(f"member {info.filename[:60]!r} is not an .npy array")
            with archive.open(info) as member:
                version = npy.read_magic(member)
                read_header = npy.read_array_header_1_0 if version == (1, 0) else npy.read_array_header_2_0
                shape, fortran_order, dtype = read_header(member, max_header_size=10_000)
                if dtype.hasobject:
                    raise ValueError(f"array {info.filename[:-4]!r} holds Python objects")
                if info.file_size < member.tell() + dtype.itemsize * math.prod(shape):
                    raise ValueError(f"array {info.filename[:-4]!r} holds fewer bytes than its header's shape")
                found[info.filename[:-4]] = (dtype, shape, fortran_order, member.tell())
    return found


def read_arrays(path: Path, layout: dict[str, tuple[np.dtype, tuple[int, ...], bool, int]]) -> dict[str, np.ndarray]:
    """Every array of an npz whose `npz_layout` is `layout`, fully read (so a truncated or corrupted file fails
    here: each member's CRC is checked), no pickles: what `np.load` gives, without parsing each header again."""
    arrays = {}
    with zipfile.ZipFile(path) as archive:
        for name, (dtype, shape, fortran_order, offset) in layout.items():
            data = np.frombuffer(bytearray(archive.read(f"{name}.npy")), dtype, math.prod(shape), offset)
            arrays[name] = data.reshape(shape[::-1]).transpose() if fortran_order else data.reshape(shape)
    return arrays


def regular_file_problem(path: Path) -> str | None:
    """Why `path` cannot be read as a shard's file (a folder, a FIFO that would block the reader, a device), or None."""
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        return f"{_rel(path)} cannot be read ({error.strerror})"
    return None if stat.S_ISREG(mode) else f"{_rel(path)} is not a regular file (a folder, FIFO or device)"


_COMMIT = re.compile(r"^([0-9a-f]{40}|unknown)$")


def provenance_problem(provenance: dict) -> str | None:
    """What is wrong with the recorded fields of a provenance.json, in words; None when they are sound.

    Checks the fields the loader does not compare with the declaration: commit, date, host,
    versions, threads, wall seconds, the certifications (if any), and that the recorded
    configuration matches its own hash.
    """
    checks = {
        "commit": lambda v: isinstance(v, str) and bool(_COMMIT.match(v)),
        "date": lambda v: isinstance(v, str) and _iso_date(v),
        "host": lambda v: isinstance(v, str) and bool(v.strip()),
        "versions": lambda v: (
            isinstance(v, dict) and {"python", "numpy"} <= set(v) and all(isinstance(x, str) for x in v.values())
        ),
        "threads": lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 1,
        "wall_seconds": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v < math.inf,
        "config": lambda v: isinstance(v, dict),
    }
    for field, valid in checks.items():
        if field not in provenance:
            return f"its provenance.json has no {field!r}"
        if not valid(provenance[field]):
            return f"its provenance.json records an invalid {field!r} ({str(provenance[field])[:60]!r})"
    if config_hash(provenance["config"]) != provenance.get("config_hash"):
        return "its provenance.json's 'config' does not match its own 'config_hash' (edited)"
    return certifications_problem(provenance.get("certifications", []), provenance.get("code_fingerprint"))


CERTIFICATION_FIELDS = ("old_fingerprint", "new_fingerprint", "method", "date", "processor", "commit")


def certifications_problem(history: Any, fingerprint: Any) -> str | None:
    """Whether a provenance's `certifications` list is sound: entries of CERTIFICATION_FIELDS (strings,
    a valid date and commit), each certifying the fingerprint the previous one certified, the last one
    the fingerprint the shard records."""
    if not isinstance(history, list):
        return "its provenance.json records an invalid 'certifications' (not a list)"
    for i, entry in enumerate(history):
        if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in CERTIFICATION_FIELDS):
            return f"its provenance.json's certification {i + 1} lacks one of {', '.join(CERTIFICATION_FIELDS)}"
        if not (_iso_date(entry["date"]) and _COMMIT.match(entry["commit"])):
            return f"its provenance.json's certification {i + 1} records an invalid date or commit"
        if i and history[i - 1]["new_fingerprint"] != entry["old_fingerprint"]:
            return f"its provenance.json's certification {i + 1} does not continue the one before"
    if history and history[-1]["new_fingerprint"] != fingerprint:
        return "its provenance.json's last certification is not for the fingerprint it records (edited)"
    return None


def certified_by(provenance: dict) -> str:
    """How a shard came to be certified for its recorded fingerprint ("" when computed by that code)."""
    history = provenance.get("certifications") or []
    return f"certified {history[-1]['date'][:10]} by {history[-1]['method']}" if history else ""


CLOCK_SKEW = timedelta(days=1)  # a shard dated later than this ahead of now was not computed yet


def _iso_date(text: str) -> bool:
    """An ISO date and time (UTC when it names no zone) that is not in the future."""
    try:
        date = datetime.fromisoformat(text)
    except ValueError:
        return False
    return (date if date.tzinfo else date.replace(tzinfo=UTC)) <= datetime.now(UTC) + CLOCK_SKEW


ARRAYS_DIFFER = "its arrays differ from the names, dtypes and shapes its provenance.json recorded"


def _recorded_arrays(provenance: dict) -> dict[str, list] | None:
    """name -> [dtype, shape] as the provenance recorded them, or None when that record is malformed."""
    recorded = provenance.get("arrays")
    try:
        return {k: [v[0], list(v[1])] for k, v in recorded.items()}
    except (AttributeError, TypeError, IndexError, KeyError):
        return None


def arrays_problem(provenance: dict, arrays: dict[str, np.ndarray]) -> str | None:
    """Whether the arrays read match the names, dtypes and shapes the provenance recorded."""
    found = {name: [str(a.dtype), list(a.shape)] for name, a in arrays.items()}
    return ARRAYS_DIFFER if _recorded_arrays(provenance) != found else None


def check_shard(
    evidence_set: EvidenceSet,
    sid: str,
    variant: str = "full",
    root: Path | None = None,
    read: bool = True,
    code: bool = True,
) -> ShardState:
    """The state of one shard (the npz is always checked against its recorded sha256); with `read`, its arrays
    are loaded; without `code`, a shard of other code is not stale (to compare it with a recomputed one)."""
    directory = shard_dir(evidence_set, sid, variant, root)
    npz, prov = directory / ARRAYS, directory / PROVENANCE
    if not npz.exists() and not prov.exists():
        return ShardState(sid, "missing", f"{_rel(directory)} does not exist")
    if not (npz.exists() and prov.exists()):
        absent = ARRAYS if not npz.exists() else PROVENANCE
        return ShardState(sid, "incomplete", f"{_rel(directory)} has no {absent}")
    if problem := regular_file_problem(prov) or regular_file_problem(npz):
        return ShardState(sid, "corrupt", problem)
    try:
        provenance = json.loads(prov.read_text())
        if not isinstance(provenance, dict):
            raise TypeError("not a JSON object")
    except RecursionError:
        return ShardState(sid, "corrupt", f"{_rel(prov)} is JSON nested too deeply, not a provenance record")
    except (OSError, ValueError, TypeError) as error:
        return ShardState(sid, "corrupt", f"{_rel(prov)} is not readable JSON ({error})")
    problem = provenance_problem(provenance)
    if problem:
        return ShardState(sid, "corrupt", problem, provenance)
    arrays = None
    if provenance.get("arrays_sha256") != file_sha256(npz):
        return ShardState(
            sid,
            "corrupt",
            f"{_rel(npz)} differs from the file its provenance.json "
            "recorded (sha256): truncated, edited or from another run",
            provenance,
        )
    if read:
        arrays, problem = _checked_arrays(npz, provenance)
        if problem:
            return ShardState(sid, "corrupt", problem, provenance)
    config = evidence_set.variant_config(variant)
    if provenance.get("config_hash") != config_hash(config):
        keys = differing_keys(config, provenance.get("config", {}))
        return ShardState(
            sid,
            "config",
            f"it was computed with another configuration (keys that differ from the "
            f"declaration: {', '.join(keys) or 'none at top level; the hash differs'})",
            provenance,
        )
    if provenance.get("shard") != evidence_set.shard_by_id(sid, variant):
        return ShardState(
            sid,
            "shard",
            f"its provenance.json records shard {provenance.get('shard')}, "
            f"not {evidence_set.shard_by_id(sid, variant)}",
            provenance,
        )
    if code and provenance.get("code_fingerprint") != set_code(evidence_set).fingerprint:
        return ShardState(
            sid,
            "code",
            f"the code that computes it changed since ({describe_code_change(provenance, evidence_set)})",
            provenance,
            arrays,
        )
    head = _head()
    commit = provenance.get("commit", "unknown")
    other = commit if head != "unknown" and commit != head else ""
    return ShardState(sid, "ok", "", provenance, arrays, other, certified_by(provenance))


def _checked_arrays(npz: Path, provenance: dict) -> tuple[dict[str, np.ndarray] | None, str | None]:
    """The arrays of a shard's npz, checked against the names, dtypes and shapes its provenance recorded
    (the headers before anything is decompressed), or None and why they cannot be used."""
    try:
        layout = npz_layout(npz)
        if {name: [str(d), list(shape)] for name, (d, shape, _, _) in layout.items()} != _recorded_arrays(provenance):
            return None, ARRAYS_DIFFER
        arrays = read_arrays(npz, layout)
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile) as error:
        return None, f"{_rel(npz)} cannot be read ({type(error).__name__}: {error})"
    return arrays, arrays_problem(provenance, arrays)


def with_arrays(
    state: ShardState, evidence_set: EvidenceSet, variant: str = "full", root: Path | None = None
) -> ShardState:
    """A shard found ok by `check_shard(..., read=False)` with its arrays read, as `check_shard` reads them: the
    same state with `arrays`, or corrupt when they cannot be used (its other checks are not repeated)."""
    arrays, problem = _checked_arrays(shard_dir(evidence_set, state.sid, variant, root) / ARRAYS, state.provenance)
    if problem:
        return ShardState(state.sid, "corrupt", problem, state.provenance)
    return replace(state, arrays=arrays)


def _rel(path: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


# The telling vector extensions, as the kernel's /proc/cpuinfo flags name them, and as their makers write them.
SHOWN_EXTENSIONS = {
    "avx2": "AVX2",
    "avx512f": "AVX-512",
    "avx512_bf16": "AVX-512 BF16",
    "amx_tile": "AMX",
    "asimd": "Advanced SIMD",
    "sve": "SVE",
}


def core_seconds(provenance: dict) -> float:
    """The core-seconds a shard took: its CPU seconds over all its runs where recorded (`ShardClock`), else its
    wall seconds times its threads (shards stored before CPU time was recorded; a resumed one counted its
    last run only)."""
    if isinstance(cpu := provenance.get("cpu_seconds"), (int, float)):
        return float(cpu)
    return float(provenance.get("wall_seconds", 0.0)) * int(provenance.get("threads", 1))


def processor_text(provenance: dict) -> str:
    """The processor a shard records, in words: model, the telling vector extensions, torch's kernels."""
    cpu = provenance.get("processor")
    if isinstance(cpu, dict):
        shown = [name for flag, name in SHOWN_EXTENSIONS.items() if flag in cpu.get("vector_extensions", [])]
        return f"{cpu.get('model')} ({', '.join(shown) or 'no AVX2'}; torch {cpu.get('torch_kernels')})"
    if isinstance(provenance.get("cpu"), str):
        return f"{provenance['cpu']} (vector extensions not recorded)"
    return "not recorded"
