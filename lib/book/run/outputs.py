"""Where a run may write, checked before any compute, and publishing its files together.

`lib run --output-dir DIR` writes `DIR/ID.ipynb` and `DIR/ID.metrics.json` (and `DIR/ID.html`);
the papermill route writes the metrics beside papermill's output notebook. Both check the folder
with `usable_output_dir` before a kernel computes anything: not empty, not inside the source tree
(whose folders a run would pollute: `tests/`, `lib/`, `.git/`, ...; `book/chapters`, where `make
book` runs the chapters, is the exception), names the file system can hold, and no folder (or
other non-file) where a file goes. `publish` moves staged files into place all or nothing.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from lib.book.chapters.declaration import ParameterError, short
from lib.util.io import check_writable
from lib.util.paths import ROOT, source_folder_of

# Folders of the repository a run must not write into, and the one inside them it may.
RUNS_IN_SOURCE = (Path("book") / "chapters",)
STAGING_PREFIX = ".staging-{id}-"
STAGING_SUFFIX_LENGTH = 8  # tempfile.mkdtemp's random part


def chapter_files(chapter_id: str) -> list[str]:
    """The names a run of `chapter_id` writes or replaces in its output folder: the page too, which a run without
    `--html` removes (an earlier run's page would show other parameters beside it)."""
    return [f"{chapter_id}.ipynb", f"{chapter_id}.metrics.json", f"{chapter_id}.failed.ipynb", f"{chapter_id}.html"]


def _refuse(option: str, path: object, why: str) -> ParameterError:
    return ParameterError(f"{option} {short(str(path))}: {why}")


def source_folder(path: str | os.PathLike, allowed: tuple[Path, ...] = RUNS_IN_SOURCE) -> str | None:
    """The repository folder `path` lies in, when nothing may be written there ('.' for the root), else None; the
    folders `allowed` (relative to the repository; by default where the book's runs go) and below are writable."""
    resolved = Path(os.path.realpath(path))  # real paths: a symbolic link's loop is no traceback
    for folder in (Path(os.path.realpath(ROOT / f)) for f in allowed):
        if resolved == folder or folder in resolved.parents:
            return None
    return source_folder_of(resolved)


def lies_in(folder: str) -> str:
    """`source_folder`'s answer in words: "the repository's root" or "the source folder lib/"."""
    return "the repository's root" if folder == "." else f"the source folder {folder}/"


def in_source_tree(path: str | os.PathLike) -> bool:
    """Whether a run must not write into folder `path`: the repository's root or one of its SOURCE_FOLDERS
    (`book/chapters` excepted)."""
    return source_folder(Path(os.path.abspath(os.path.expanduser(os.fspath(path))))) is not None


def staging_pid_file(path: Path) -> Path:
    """The file in which `lib run` names the process that owns its staging folder `path`."""
    return path / "pid"


def is_staging_folder(path: str | os.PathLike) -> bool:
    """Whether `path` is a staging folder of `lib run` (`lib.book.run.runner`): named `.staging-ID-XXXXXXXX`, with
    the file naming its owner. A chapter's kernel writes its metrics there as `ID.metrics.json` (the runner checked
    the folder it publishes into, `book/chapters` and the nbval references included); any other LIB_OUTPUT_DIR is
    a reader's own folder, checked as such."""
    folder = Path(os.fspath(path))
    return folder.name.startswith(STAGING_PREFIX.split("{", 1)[0]) and staging_pid_file(folder).is_file()


def _name_max(path: Path) -> int:
    """The longest file name (bytes) the file system of `path`'s nearest existing ancestor holds."""
    for folder in [path, *path.parents]:
        try:
            return os.pathconf(folder, "PC_NAME_MAX")
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError:
            break
    return 255


def usable_output_dir(
    raw: str | os.PathLike,
    chapter_id: str,
    *,
    option: str = "--output-dir",
    source_ok: bool = False,
) -> Path:
    """The absolute output folder, created; ParameterError (one line naming `option`) when it cannot hold the run.

    Refused: an empty path, a NUL character, a name longer than the file system holds, a folder of the
    source tree (unless `source_ok`: the nbval references), an existing file, a folder that cannot be
    created or written, and any of the run's files (`chapter_files`) that exists as something other
    than a regular file (a folder where the notebook goes, a FIFO where the metrics go).
    """
    text = os.fspath(raw)
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if not text.strip():
        raise ParameterError(f"{option} is empty: name a folder (default: runs/)")
    if "\x00" in text:
        raise _refuse(option, text, "contains a NUL character")
    path = Path(os.path.abspath(os.path.expanduser(text)))
    limit = _name_max(path)
    staging = STAGING_PREFIX.format(id=chapter_id) + "x" * STAGING_SUFFIX_LENGTH
    for part in [*path.parts[1:], *chapter_files(chapter_id), staging]:
        if len(os.fsencode(part)) > limit:
            raise _refuse(option, text, f"the name {short(part)} is longer than this file system's {limit} bytes")
    where = source_folder(path)
    if where is not None and not source_ok:
        raise _refuse(
            option, text, f"lies in {lies_in(where)}; write runs outside the source tree (runs/ or book/chapters/)"
        )
    try:
        if path.exists() and not path.is_dir():
            raise _refuse(option, text, "exists and is not a folder")
        path.mkdir(parents=True, exist_ok=True)
        if not os.access(path, os.W_OK | os.X_OK):
            raise _refuse(option, text, "is not writable")
        try:
            check_writable(path)
        except OSError as err:
            raise _refuse(option, text, f"is not writable ({err.strerror or err})") from None
        for name in chapter_files(chapter_id):
            try:
                mode = (path / name).lstat().st_mode
            except FileNotFoundError:
                continue
            if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode) and (path / name).is_file()):
                kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
                raise _refuse(option, text, f"{name} there is {kind}; the run could not publish it")
    except OSError as err:
        raise _refuse(option, text, f"cannot be used ({err.strerror or err})") from None
    return path


def usable_output_file(raw: str | os.PathLike, chapter_id: str, *, option: str) -> Path:
    """The absolute path of one file a command writes (`lib page -o`); ParameterError (one line naming `option`)
    when its folder cannot hold a run's files (`usable_output_dir`: the source tree, unwritable, ...) or the
    path itself is a folder or other non-file."""
    text = os.fsdecode(os.fspath(raw))
    if not text.strip() or text.endswith(os.sep):
        raise ParameterError(f"{option} {short(text)}: name a file (such as runs/{chapter_id}.html)")
    path = Path(os.path.abspath(os.path.expanduser(text)))
    folder = usable_output_dir(path.parent, chapter_id, option=option)
    if len(os.fsencode(path.name)) > _name_max(folder):
        raise _refuse(option, text, "the name is longer than this file system holds")
    if os.path.lexists(path) and not path.is_file():
        raise _refuse(option, text, "exists and is not a regular file")
    return folder / path.name


def publish(moves: list[tuple[Path, Path]]) -> None:
    """Move each staged file onto its target, all or nothing: when one move fails, the targets already
    replaced get their previous files back (or are removed when there were none), and the error is raised.

    The previous files are kept as hard links beside the staged ones until every move has succeeded.
    """
    kept: list[tuple[Path, Path | None]] = []
    try:
        for source, target in moves:
            backup = source.with_name(source.name + ".previous")
            try:
                os.link(target, backup, follow_symlinks=False)
            except FileNotFoundError:
                backup = None
            kept.append((target, backup))
            os.replace(source, target)
    except BaseException:
        for target, backup in reversed(kept):
            try:
                if backup is None:
                    target.unlink(missing_ok=True)
                else:
                    os.replace(backup, target)
            except OSError:
                pass
        raise
    for _, backup in kept:
        if backup is not None:
            backup.unlink(missing_ok=True)
