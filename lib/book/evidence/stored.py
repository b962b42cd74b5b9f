"""Stored results: a chapter's default computations, computed once and read back by every build.

A chapter calls `run.stored(NAME, function, *args, **kwargs)` (`lib.book.run.notebook.ChapterRun.stored`)
where it would call `function(*args, **kwargs)`. The result is kept under
`data/evidence/CHAPTER/stored-results/NAME/` (`arrays.npz` and `provenance.json`, written together and
atomically, as evidence shards are: `lib.book.evidence.store.write_shard`; `stored-results` has a dash, so no
evidence set can take its name). A stored result is used only when everything that determines it matches:

- the function ("module:qualname"),
- the arguments, by a canonical hash (`argument_hash`: JSON-able values, lists and tuples, numpy arrays by
  dtype, shape and bytes, dataclass instances by class and fields; `unhashed(value)` marks an argument that
  does not change the result, such as a checkpoint folder),
- the code the function reaches and the compute packages' versions (`lib.util.fingerprint.reached_code`, the
  scheme of evidence shards: moving code keeps it, changing what it reaches does not),
- and its files are intact (the sha256 of `arrays.npz`, and of the result's content, as recorded).

A result is numpy arrays and scalars, Python int, float, bool, str and None, and dict, list, tuple,
dataclass and NamedTuple of these, nested (`encode_result`); it is read back exactly, dtypes included.
Anything else is refused when it is written, with the path to the part that cannot be stored.

`LIB_STORED_RESULTS` (`lib.util.runtime.stored_results_mode`) says what a run does with them: `use` (read
what matches, compute the rest), `live` (compute everything, read nothing) or `write` (compute everything
and write each result the run reaches, at the chapter's default parameters only).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import inspect
import json
import re
import shutil
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from lib.book.evidence.store import (
    ARRAYS,
    PROVENANCE,
    _rel,
    code_change,
    code_record,
    file_sha256,
    npz_layout,
    read_arrays,
    regular_file_problem,
    write_shard,
)
from lib.util.fingerprint import Reached, reached_code
from lib.util.hashing import canonical_json, json_sha256
from lib.util.names import resolve
from lib.util.paths import EVIDENCE

STORED = "stored-results"  # the folder of a chapter's stored results, beside its evidence sets
MANIFEST = "manifest.json"  # the names the last complete `write` run of the chapter reached
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,99}$")
STATES = ("ok", "missing", "other arguments", "other code", "damaged")


class StoredResultError(TypeError):
    """A result or an argument that cannot be stored or hashed (raised when it is written: fix the call)."""


def refresh_command(chapter: str) -> str:
    """The command that recomputes and rewrites a chapter's stored results (README, Evidence)."""
    return f"python -m lib run {chapter} --stored-results write"


def stored_root(chapter: str, root: Path | None = None) -> Path:
    """The folder of a chapter's stored results: data/evidence/CHAPTER/stored-results."""
    return Path(root or EVIDENCE) / chapter / STORED


def stored_dir(chapter: str, name: str, root: Path | None = None) -> Path:
    """The folder of one stored result; ValueError for a name that is not a plain folder name."""
    check_name(name)
    return stored_root(chapter, root) / name


def check_name(name: str) -> str:
    """`name` when it can name a stored result's folder (letters, digits, `_ . + -`, at most 100), else ValueError."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(
            f"stored result name {name!r}: letters, digits and _ . + - only (not first), at most 100 characters"
        )
    return name


# ----------------------------------------------------------------------------------------------
# Functions and classes by name
# ----------------------------------------------------------------------------------------------


def qualified_name(obj: Any) -> str:
    """ "module:qualname" of a module-level function or class, checked to import back to `obj`."""
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not module or not qualname or "<" in qualname:
        raise StoredResultError(f"{obj!r} is not a module-level function or class (it has no importable name)")
    name = f"{module}:{qualname}"
    try:
        found = resolve(name)
    except (ImportError, AttributeError):
        found = None
    if found is not obj:
        raise StoredResultError(f"{name} does not import back to {obj!r}")
    return name


def function_code(function: str) -> Reached:
    """What `function` ("module:name") reaches and its fingerprint, with the compute packages' versions, as for
    evidence shards (`code_record`); a function of another package than `lib` (a test's own) is read from the
    folder its package is imported from."""
    package = function.partition(".")[0]
    if package == "lib":
        return code_record(function)
    root = Path(importlib.import_module(package).__file__).resolve().parent.parent
    return reached_code(function, root=root, package=package)


# ----------------------------------------------------------------------------------------------
# Arguments: a canonical hash and a readable summary
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Unhashed:
    """An argument that does not change the result (a checkpoint folder, a progress flag): passed to the
    function as it is, left out of the argument hash."""

    value: Any


def unhashed(value: Any) -> Unhashed:
    """Mark an argument of `run.stored` as one that does not change the result: it is passed on, not hashed."""
    return Unhashed(value)


def _canonical(value: Any, path: str) -> Any:
    """A JSON value that identifies `value` exactly (types told apart: 1, 1.0, True, (1,) and [1] differ)."""
    if isinstance(value, Unhashed):
        return ["unhashed"]
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            raise StoredResultError(f"argument {path}: an array of Python objects cannot be hashed")
        digest = hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest()
        return ["array", value.dtype.str, list(value.shape), digest]
    if isinstance(value, np.generic):
        if value.dtype.hasobject:
            raise StoredResultError(f"argument {path}: a numpy object scalar cannot be hashed")
        return ["scalar", value.dtype.str, value.tobytes().hex()]
    if value is None or type(value) in (bool, int, str):
        return [type(value).__name__, value]
    if type(value) is float:
        return ["float", value.hex()]
    if type(value) is range:
        return ["range", value.start, value.stop, value.step]
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        return [
            "namedtuple",
            qualified_name(type(value)),
            [_canonical(v, f"{path}.{f}") for f, v in value._asdict().items()],
        ]
    if type(value) in (list, tuple):
        return [type(value).__name__, [_canonical(v, f"{path}[{i}]") for i, v in enumerate(value)]]
    if type(value) is dict:
        items = [[_canonical(k, f"{path} key"), _canonical(v, f"{path}[{k!r}]")] for k, v in value.items()]
        return ["dict", sorted(items, key=lambda item: json.dumps(item[0], sort_keys=True))]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: _canonical(getattr(value, f.name), f"{path}.{f.name}") for f in dataclasses.fields(value)}
        return ["dataclass", qualified_name(type(value)), fields]
    hint = " (a path of this machine: pass it as unhashed(...))" if isinstance(value, Path) else ""
    raise StoredResultError(
        f"argument {path} of type {type(value).__qualname__} cannot be hashed{hint}: stored results take "
        "numbers, strings, None, lists, tuples, dicts, numpy arrays and dataclasses as arguments"
    )


def bound_arguments(function: Callable, args: tuple, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments by parameter name, as `function` receives them (defaults not filled in); by position
    when the signature cannot be read."""
    try:
        return dict(inspect.signature(function).bind(*args, **kwargs).arguments)
    except (TypeError, ValueError):
        return {**{f"arg{i}": v for i, v in enumerate(args)}, **kwargs}


def argument_hashes(function: Callable, args: tuple, kwargs: Mapping[str, Any]) -> dict[str, str]:
    """name -> sha256 of the canonical form of each argument, by parameter name (so `f(1, b=2)` and `f(1, 2)`
    agree); StoredResultError for an argument that cannot be hashed."""
    return {
        name: json_sha256(_canonical(value, name)) for name, value in bound_arguments(function, args, kwargs).items()
    }


def argument_hash(function: Callable, args: tuple, kwargs: Mapping[str, Any]) -> str:
    """sha256 of all the arguments (`argument_hashes`), the identity of a call."""
    return json_sha256(argument_hashes(function, args, kwargs))


def _short(value: Any) -> str:
    """A few words for an argument: a number or string as written, a short list whole, else its kind and size."""
    if isinstance(value, Unhashed):
        return "(not hashed)"
    if isinstance(value, np.ndarray):
        return f"array {value.dtype} {tuple(value.shape)}"
    if isinstance(value, (np.generic, bool, int, float, str)) or value is None:
        text = repr(value.item() if isinstance(value, np.generic) else value)
        return text if len(text) <= 60 else text[:57] + "..."
    if type(value) in (list, tuple, range):
        items = list(value)
        if len(items) <= 8 and all(isinstance(v, (bool, int, float, str, np.generic)) for v in items):
            text = repr([v.item() if isinstance(v, np.generic) else v for v in items])
            if len(text) <= 80:
                return text if type(value) is list else f"({text[1:-1]}{',' if len(items) == 1 else ''})"
        return f"{type(value).__name__} of {len(items)}"
    if isinstance(value, dict):
        return f"dict of {len(value)}"
    return type(value).__name__


def argument_summary(function: Callable, args: tuple, kwargs: Mapping[str, Any]) -> dict[str, str]:
    """name -> a few words for each argument (for provenance.json and the status command; not hashed)."""
    return {name: _short(value) for name, value in bound_arguments(function, args, kwargs).items()}


def passed(args: tuple, kwargs: Mapping[str, Any]) -> tuple[tuple, dict[str, Any]]:
    """The arguments as the function receives them: `unhashed(...)` marks removed."""
    plain = lambda v: v.value if isinstance(v, Unhashed) else v  # noqa: E731
    return tuple(plain(v) for v in args), {k: plain(v) for k, v in kwargs.items()}


# ----------------------------------------------------------------------------------------------
# Results: a structure (JSON) and arrays (npz)
# ----------------------------------------------------------------------------------------------


def encode_result(value: Any) -> tuple[Any, dict[str, np.ndarray]]:
    """(structure, arrays): the result as JSON (numbers, strings, containers, classes) with every numpy array
    and numpy scalar named in it and held in `arrays` ("a0", "a1", ... in order met). StoredResultError names
    the first part that cannot be stored."""
    arrays: dict[str, np.ndarray] = {}

    def array(a: np.ndarray, path: str) -> str:
        if a.dtype.hasobject:
            raise StoredResultError(f"result{path}: an array of Python objects cannot be stored")
        key = f"a{len(arrays)}"
        arrays[key] = a
        return key

    def enc(v: Any, path: str) -> Any:
        if type(v) is np.ndarray:
            return {"kind": "array", "key": array(v, path)}
        if isinstance(v, np.generic):
            return {"kind": "scalar", "key": array(np.asarray(v), path)}
        if v is None:
            return {"kind": "none"}
        if type(v) in (bool, int, str):
            return {"kind": type(v).__name__, "value": v}
        if type(v) is float:
            return {"kind": "float", "value": v.hex()}
        if isinstance(v, tuple) and hasattr(type(v), "_fields") and hasattr(type(v), "_make"):
            fields = [[f, enc(x, f"{path}.{f}")] for f, x in zip(type(v)._fields, v)]
            return {"kind": "namedtuple", "class": qualified_name(type(v)), "fields": fields}
        if type(v) in (list, tuple):
            return {"kind": type(v).__name__, "items": [enc(x, f"{path}[{i}]") for i, x in enumerate(v)]}
        if type(v) is dict:
            return {
                "kind": "dict",
                "items": [[enc(k, f"{path} key {k!r}"), enc(x, f"{path}[{k!r}]")] for k, x in v.items()],
            }
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            fields = [[f.name, enc(getattr(v, f.name), f"{path}.{f.name}")] for f in dataclasses.fields(v)]
            return {"kind": "dataclass", "class": qualified_name(type(v)), "fields": fields}
        raise StoredResultError(
            f"result{path}: {type(v).__module__}.{type(v).__qualname__} cannot be stored; a stored result holds numpy "
            "arrays and scalars, int, float, bool, str, None, and dict, list, tuple, dataclass or NamedTuple of these "
            "(convert a tensor with .numpy())"
        )

    return enc(value, ""), arrays


def decode_result(structure: Any, arrays: Mapping[str, np.ndarray]) -> Any:
    """The value `encode_result` encoded as (structure, arrays), rebuilt exactly (classes by name, without
    running their __init__: a dataclass gets the fields it had)."""
    kind = structure["kind"]
    if kind == "array":
        return arrays[structure["key"]]
    if kind == "scalar":
        return arrays[structure["key"]][()]
    if kind == "none":
        return None
    if kind in ("bool", "int", "str"):
        value = structure["value"]
        if type(value) is not {"bool": bool, "int": int, "str": str}[kind]:
            raise ValueError(f"a stored {kind} holds {value!r}")
        return value
    if kind == "float":
        return float.fromhex(structure["value"])
    if kind in ("list", "tuple"):
        items = [decode_result(x, arrays) for x in structure["items"]]
        return items if kind == "list" else tuple(items)
    if kind == "dict":
        return {decode_result(k, arrays): decode_result(v, arrays) for k, v in structure["items"]}
    if kind == "namedtuple":
        return resolve(structure["class"])._make(decode_result(x, arrays) for _, x in structure["fields"])
    if kind == "dataclass":
        cls = resolve(structure["class"])
        obj = cls.__new__(cls)
        for name, x in structure["fields"]:
            object.__setattr__(obj, name, decode_result(x, arrays))
        return obj
    raise ValueError(f"unknown kind {kind!r} in a stored result's structure")


def result_digest(structure: Any, arrays: Mapping[str, np.ndarray]) -> str:
    """sha256 of a result's content: its structure and every array's dtype, shape and bytes (not the npz file's
    bytes, which hold the time of writing)."""
    digest = hashlib.sha256(canonical_json(structure).encode())
    for name in sorted(arrays):
        a = np.asarray(arrays[name])
        digest.update(f"\0{name}\0{a.dtype.str}\0{a.shape}\0".encode())
        digest.update(np.ascontiguousarray(a).tobytes())
    return digest.hexdigest()


# ----------------------------------------------------------------------------------------------
# Writing and reading
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StoredState:
    """What is stored for a name, against the call that asks for it.

    status: ok | missing | other arguments | other code | damaged; `problem` says why in words; `value` is the
    result (status ok with `read`); `provenance` the record read, when it could be."""

    name: str
    status: str
    problem: str = ""
    provenance: dict | None = None
    value: Any = None


def write_stored(
    chapter: str,
    name: str,
    function: Callable,
    args: tuple,
    kwargs: Mapping[str, Any],
    value: Any,
    *,
    wall_seconds: float,
    threads: int,
    root: Path | None = None,
) -> tuple[Path, bool]:
    """Store `value`, the result of `function(*args, **kwargs)`, as `name` of `chapter`; returns the folder and
    whether it was written. A stored result of the same call, code and content is kept as it is (its date and
    commit say when this content was first computed), so a rewrite of unchanged results changes no file."""
    import datetime
    import platform
    import socket

    from lib.book.evidence.run import processor
    from lib.book.evidence.store import git_commit
    from lib.util.fingerprint import package_versions

    function_name = qualified_name(function)
    structure, arrays = encode_result(value)
    digest = result_digest(structure, arrays)
    directory = stored_dir(chapter, name, root)
    hashes = argument_hashes(function, args, kwargs)
    code = function_code(function_name)
    current = check_stored(chapter, name, function, args, kwargs, root=root, read=False)
    if current.status == "ok" and current.provenance.get("result_sha256") == digest:
        return directory, False
    commit, dirty = git_commit(tuple(sorted({where.partition(":")[0] for where in code.locations.values()})))
    cpu = processor()
    provenance = {
        "kind": "stored result",
        "chapter": chapter,
        "name": name,
        "function": function_name,
        "arguments": argument_summary(function, args, kwargs),
        "arguments_sha256": json_sha256(hashes),
        "argument_hashes": hashes,
        "code_fingerprint": code.fingerprint,
        "code_objects": code.objects,
        "commit": commit,
        "dirty": dirty,
        "versions": package_versions(),
        "machine": platform.machine(),
        "processor": cpu,
        "threads": threads,
        "wall_seconds": round(wall_seconds, 3),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "host": socket.gethostname(),
        "structure": structure,
        "result_sha256": digest,
        "arrays": {key: [str(a.dtype), list(a.shape)] for key, a in arrays.items()},
    }
    write_shard(directory, arrays, provenance, compressed=True)  # flags and counts deflate to almost nothing
    return directory, True


def read_provenance(directory: Path) -> tuple[dict | None, str]:
    """A stored result's provenance.json and "" when both files are there and it reads as a record of one;
    else None and the state ("missing" or "damaged: why")."""
    npz, prov = directory / ARRAYS, directory / PROVENANCE
    if not npz.exists() and not prov.exists():
        return None, "missing"
    if not (npz.exists() and prov.exists()):
        return None, f"damaged: {_rel(directory)} has no {ARRAYS if not npz.exists() else PROVENANCE}"
    if problem := regular_file_problem(prov) or regular_file_problem(npz):
        return None, f"damaged: {problem}"
    try:
        provenance = json.loads(prov.read_text())
    except (OSError, ValueError, RecursionError) as error:
        return None, f"damaged: {_rel(prov)} is not readable JSON ({type(error).__name__})"
    fields = ("function", "arguments_sha256", "code_fingerprint", "structure", "result_sha256", "arrays_sha256")
    if not isinstance(provenance, dict) or not all(isinstance(provenance.get(k), (str, dict)) for k in fields):
        return None, f"damaged: {_rel(prov)} is not a stored result's record (it lacks one of {', '.join(fields)})"
    return provenance, ""


def read_value(directory: Path, provenance: Mapping[str, Any]) -> tuple[Any, str]:
    """The stored value and "", or None and why it cannot be used (a file that differs from its recorded
    sha256, arrays that differ from their record, a structure that does not rebuild)."""
    npz = directory / ARRAYS
    if provenance.get("arrays_sha256") != file_sha256(npz):
        return None, f"{_rel(npz)} differs from the file its provenance.json recorded (sha256): truncated or edited"
    try:
        layout = npz_layout(npz)
        recorded = {k: [v[0], list(v[1])] for k, v in provenance.get("arrays", {}).items()}
        if {k: [str(d), list(s)] for k, (d, s, _, _) in layout.items()} != recorded:
            return None, f"{_rel(npz)} holds other arrays than its provenance.json records"
        arrays = read_arrays(npz, layout)
        if result_digest(provenance["structure"], arrays) != provenance.get("result_sha256"):
            return None, f"{_rel(directory)}: its content differs from the sha256 its provenance.json recorded (edited)"
        return decode_result(provenance["structure"], arrays), ""
    except (
        OSError,
        ValueError,
        EOFError,
        KeyError,
        TypeError,
        IndexError,
        AttributeError,
        ImportError,
        zipfile.BadZipFile,
    ) as error:
        return None, f"{_rel(npz)} cannot be read back ({type(error).__name__}: {str(error)[:120]})"


def check_stored(
    chapter: str,
    name: str,
    function: Callable,
    args: tuple,
    kwargs: Mapping[str, Any],
    *,
    root: Path | None = None,
    read: bool = True,
) -> StoredState:
    """What is stored as `name` against the call `function(*args, **kwargs)`: ok (with the value, when `read`),
    missing, other arguments, other code (another function, changed code or package versions), or damaged.
    Cheapest checks first: a result of other arguments is not read at all."""
    directory = stored_dir(chapter, name, root)
    provenance, state = read_provenance(directory)
    if provenance is None:
        status, _, problem = state.partition(": ")
        return StoredState(name, status, problem or f"{_rel(directory)} does not exist")
    function_name = qualified_name(function)
    if provenance["function"] != function_name:
        return StoredState(
            name, "other code", f"it was computed by {provenance['function']}, not {function_name}", provenance
        )
    hashes = argument_hashes(function, args, kwargs)
    if provenance["arguments_sha256"] != json_sha256(hashes):
        recorded = provenance.get("argument_hashes") if isinstance(provenance.get("argument_hashes"), dict) else {}
        differ = sorted(k for k in set(hashes) | set(recorded) if hashes.get(k) != recorded.get(k))
        stored = ", ".join(f"{k}={v}" for k, v in (provenance.get("arguments") or {}).items() if k in differ)
        return StoredState(
            name, "other arguments", f"it was computed with other {', '.join(differ)} ({stored[:200]})", provenance
        )
    code = function_code(function_name)
    if provenance["code_fingerprint"] != code.fingerprint:
        return StoredState(
            name,
            "other code",
            f"the code it reaches changed since ({code_change(provenance, code)})",
            provenance,
        )
    if not read:
        if provenance.get("arrays_sha256") != file_sha256(directory / ARRAYS):
            return StoredState(
                name, "damaged", f"{_rel(directory / ARRAYS)} differs from its recorded sha256", provenance
            )
        return StoredState(name, "ok", "", provenance)
    value, problem = read_value(directory, provenance)
    if problem:
        return StoredState(name, "damaged", problem, provenance)
    return StoredState(name, "ok", "", provenance, value)


# ----------------------------------------------------------------------------------------------
# A chapter's stored results on disk (`python -m lib evidence status`) and the manifest of its last write
# ----------------------------------------------------------------------------------------------


def write_manifest(chapter: str, names: list[str], root: Path | None = None) -> list[str]:
    """Record the names a complete `write` run of the chapter reached, and remove the stored results it did
    not reach (left by a call since removed or renamed); returns the names removed."""
    from lib.util.io import atomic_write_json

    folder = stored_root(chapter, root)
    removed = (
        sorted(p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".") and p.name not in names)
        if folder.is_dir()
        else []
    )
    for old in removed:
        shutil.rmtree(folder / old)
    if names or folder.is_dir():
        atomic_write_json(folder / MANIFEST, {"chapter": chapter, "names": sorted(set(names))})
    return removed


def manifest_names(chapter: str, root: Path | None = None) -> list[str]:
    """The names the chapter's last complete `write` run reached ([] when none is recorded)."""
    try:
        names = json.loads((stored_root(chapter, root) / MANIFEST).read_text())["names"]
        return [n for n in names if isinstance(n, str) and _NAME.match(n)]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def stored_status(chapter: str, root: Path | None = None, read: bool = True) -> list[dict[str, Any]]:
    """One row per stored result of the chapter (those on disk and those its last `write` run reached):
    name, state (ok, from other code, damaged, missing), why, function, the arguments in words, commit,
    processor and wall seconds. The arguments are checked when the chapter runs (they come from its
    parameters): here, that the files are intact and the code the function reaches is unchanged."""
    from lib.book.evidence.store import processor_text

    folder = stored_root(chapter, root)
    names = sorted(
        set(manifest_names(chapter, root))
        | ({p.name for p in folder.iterdir() if p.is_dir() and _NAME.match(p.name)} if folder.is_dir() else set())
    )
    rows = []
    for name in names:
        directory = folder / name
        provenance, state = read_provenance(directory)
        row = {
            "name": name,
            "state": "ok",
            "problem": "",
            "function": "",
            "arguments": {},
            "commit": "",
            "processor": "",
            "wall_seconds": 0.0,
        }
        if provenance is None:
            status, _, problem = state.partition(": ")
            row.update(state="missing" if status == "missing" else "damaged", problem=problem)
            rows.append(row)
            continue
        row.update(
            function=provenance["function"],
            arguments=provenance.get("arguments") or {},
            commit=str(provenance.get("commit", ""))[:12],
            processor=processor_text(provenance),
            wall_seconds=float(provenance.get("wall_seconds") or 0.0),
        )
        try:
            code = function_code(provenance["function"])
        except (LookupError, SyntaxError, OSError) as error:
            row.update(state="from other code", problem=f"{provenance['function']} is not found ({error})")
            rows.append(row)
            continue
        if provenance["code_fingerprint"] != code.fingerprint:
            row.update(state="from other code", problem=code_change(provenance, code))
        elif read:
            _, problem = read_value(directory, provenance)
            if problem:
                row.update(state="damaged", problem=problem)
        elif provenance.get("arrays_sha256") != file_sha256(directory / ARRAYS):
            row.update(state="damaged", problem=f"{_rel(directory / ARRAYS)} differs from its recorded sha256")
        rows.append(row)
    return rows


def stored_chapters(root: Path | None = None) -> list[str]:
    """The chapters with a stored-results folder."""
    base = Path(root or EVIDENCE)
    return sorted(p.parent.name for p in base.glob(f"*/{STORED}") if p.is_dir()) if base.is_dir() else []
