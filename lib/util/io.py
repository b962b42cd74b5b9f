"""Atomic file writes: an interrupted run never leaves a half-written file that a later step trusts; whether a
folder can be written (`check_writable`); whether the process that owns a file still runs (`process_alive`: a
staging folder, a socket); and results memoised on disk by the content they are computed from."""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

from lib.util.paths import cache_dir


def process_alive(pid: int) -> bool:
    """Whether process `pid` runs: it exists (or belongs to another user) and is not a zombie, ended and not yet
    reaped by its parent."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    with suppress(OSError, IndexError):
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    return True


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write `text` to `path` through a temporary file in the same folder and an atomic rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def check_writable(folder: str | os.PathLike) -> None:
    """Raise OSError unless a file can be created in `folder`, by creating a nameless one (O_TMPFILE where the file
    system has it): `os.access` says yes to root everywhere, even in /proc or on a read-only mount."""
    with tempfile.TemporaryFile(dir=folder):
        pass


def atomic_write_json(path: str | os.PathLike, obj: Any) -> None:
    """Write `obj` as indented JSON, atomically."""
    atomic_write_text(path, json.dumps(obj, indent=2, sort_keys=True) + "\n")


def atomic_save(path: str | os.PathLike, save_fn: Callable[[str], object]) -> None:
    """Atomically write a file produced by `save_fn(tmp_path)` (for `torch.save`, `np.savez`, ...)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        save_fn(tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def memo_by_content(kind: str, content: bytes, compute: Callable[[], Any]) -> Any:
    """`compute()`, a JSON value computed from `content` alone, kept in the cache folder `kind/` under the
    SHA-256 of `content` and of the Python version (a syntax tree depends on it): the processes of a build
    parse each source file once between them, and changed content is a new key. An entry that does not
    read as JSON is recomputed and rewritten."""
    key = hashlib.sha256(content + f"\0python {sys.version_info[0]}.{sys.version_info[1]}".encode()).hexdigest()
    path = cache_dir(kind) / f"{key}.json"
    try:
        return json.loads(path.read_text())["value"]
    except (OSError, ValueError, KeyError, TypeError):
        value = compute()
        atomic_write_text(path, json.dumps({"value": value}))
        return value
