"""What the papermill route needs: the generated `parameters` cell, the guard on injected cells, the output folder.

papermill (https://papermill.readthedocs.io) reads a notebook's defaults from its cell tagged
`parameters` and writes the reader's values (`-p NAME VALUE`, `-r`, `-y`, `-f`) into a new cell after
it, tagged `injected-parameters`: a `# Parameters` comment, then one `NAME = VALUE` line each. Values
are written as Python literals; names are pasted verbatim, so `-p "x; import os" 1` would be code.

- The `parameters` cell of `notebooks/ID.py` is generated from the chapter's declaration
  (`Chapter.parameters_source`): `python -m lib params` writes it, a unit test fails when it drifts.
- `InjectedParametersGuard`, installed by each chapter's first cell (`lib.book.run.notebook.guard_parameters`),
  makes IPython check the injected cell before it runs: anything but `NAME = literal` lines naming
  declared parameters is replaced by a `ParameterError` naming the offending text. Values, joint
  rules and the cost are then checked by `lib.book.run.notebook.start_chapter`, as `python -m lib run` checks them.
- papermill tells its kernel nothing about where it writes, so `papermill_output_path` reads the
  command line of the `papermill` process that started the kernel, with papermill's own parser.
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from lib.book.chapters.declaration import Chapter, ParameterError, look_alike_hint, short

if TYPE_CHECKING:
    import click

PARAMETERS_MARKER = '# %% tags=["parameters", "hide-input"]'
_PARAMETERS_CELL = re.compile(r'^# %%.*\btags=\[[^\]]*"parameters"')
INJECTED_HEADER = "# Parameters"  # the comment papermill's Python translator puts first in the cell it injects
PATH_PARAMETERS = frozenset({"PAPERMILL_INPUT_PATH", "PAPERMILL_OUTPUT_PATH"})  # --inject-paths


# ----------------------------------------------------------------------------------------------
# The generated parameters cell of notebooks/ID.py (py:percent)
# ----------------------------------------------------------------------------------------------


def with_parameters_cell(text: str, chapter: Chapter) -> str:
    """The py:percent notebook `text` with its `parameters` cell replaced by the generated one."""
    lines = text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if _PARAMETERS_CELL.match(line)]
    if len(starts) != 1:
        raise ValueError(f"{chapter.notebook}: needs exactly one cell tagged 'parameters', found {len(starts)}")
    start = starts[0]
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("# %%")), len(lines))
    cell = f"{PARAMETERS_MARKER}\n{chapter.parameters_source()}\n" + ("\n" if end < len(lines) else "")
    return "".join(lines[:start]) + cell + "".join(lines[end:])


def write_parameters_cells(chapters: list[Chapter], check: bool = False) -> list[Path]:
    """The notebooks whose `parameters` cell differs from its declaration: rewritten, or only listed (`check`)."""
    from lib.util.io import atomic_write_text

    stale = []
    for chapter in chapters:
        text = chapter.notebook.read_text()
        generated = with_parameters_cell(text, chapter)
        if generated != text:
            stale.append(chapter.notebook)
            if not check:
                atomic_write_text(chapter.notebook, generated)
    return stale


# ----------------------------------------------------------------------------------------------
# The guard on the cell papermill injects
# ----------------------------------------------------------------------------------------------


def _is_literal(node: ast.expr) -> bool:
    """A value as papermill writes it: a Python literal, or float('nan'), float('inf'), float('-inf')."""
    try:
        ast.literal_eval(node)
        return True
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "float"
            and len(node.args) == 1
            and not node.keywords
            and isinstance(node.args[0], ast.Constant)
            and node.args[0].value in ("nan", "inf", "-inf")
        )


def injected_cell_problem(source: str, chapter: Chapter) -> str | None:
    """Why papermill's injected cell must not run (one line naming the offending text), or None when it may."""
    verbatim = "papermill pastes parameter names into the notebook verbatim, and a name must be a Python identifier"
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as err:
        line = source.splitlines()[err.lineno - 1] if getattr(err, "lineno", None) else source
        return f"the injected parameters do not parse ({short(line.strip())}): {verbatim}"
    names = []
    for node in tree.body:
        assign = isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
        if not (assign and _is_literal(node.value)):
            line = source.splitlines()[node.lineno - 1]
            return f"the injected parameters hold {short(line.strip())}, not NAME = value: {verbatim}"
        names.append(node.targets[0].id)
    try:
        chapter.check_names(name for name in names if name not in PATH_PARAMETERS)
    except ParameterError as err:
        return str(err)
    return None


class InjectedParametersGuard:
    """An IPython input transformer: a cell papermill injected is checked before it runs.

    A refused cell is replaced by one line that raises `ParameterError` with the reason, so the
    offending text never executes and papermill stops there with that message.
    """

    def __init__(self, chapter: Chapter):
        self.chapter = chapter

    def __call__(self, lines: list[str]) -> list[str]:
        if not lines or lines[0].rstrip() != INJECTED_HEADER:
            return lines
        problem = injected_cell_problem("".join(lines), self.chapter)
        if problem is None:
            return lines
        return [
            f"raise __import__('lib.book.chapters.declaration', fromlist=['ParameterError']).ParameterError({problem!r})\n"
        ]


# ----------------------------------------------------------------------------------------------
# Where papermill writes
# ----------------------------------------------------------------------------------------------


def _papermill_arguments(argv: list[str]) -> list[str] | None:
    """The arguments after `papermill` (its script, or `python -m papermill`) in a command line, or None."""
    for i, arg in enumerate(argv):
        if Path(arg).name == "papermill":
            return argv[i + 1 :]
        if arg == "-m" and i + 1 < len(argv) and argv[i + 1] == "papermill":
            return argv[i + 2 :]
    return None


def _papermill_context(argv: list[str]) -> click.Context | None:
    """papermill's own parse (its click command) of the arguments of a papermill command line, or None.
    (papermill is imported only for a papermill command line: it takes a second, and `lib run`'s kernels,
    whose parent is `python -m lib run`, never need it.)"""
    args = _papermill_arguments(argv)
    if args is None:
        return None
    import click
    from papermill.cli import papermill as command

    try:
        return command.make_context("papermill", args, resilient_parsing=True)
    except (click.ClickException, click.exceptions.Exit):
        return None


def output_path_from_command(argv: list[str], cwd: Path, shell_pwd: Path | None = None) -> Path | None:
    """The local output notebook of a `papermill IN OUT ...` command line, or None.

    `cwd` is the process's working folder now; with papermill's `--cwd` that is the folder it moved
    to, and a relative OUT is read from the folder it was started in (`shell_pwd`, its PWD).
    """
    context = _papermill_context(argv)
    if context is None:
        return None
    if context.params.get("cwd"):
        if shell_pwd is None:
            return None
        cwd = shell_pwd
    return local_path(context.params.get("output_path"), cwd)


def look_alike_number(name: str, raw: str) -> str | None:
    """Why the `-p NAME VALUE` text `raw` must not run, or None: papermill reads a VALUE with Python's int()
    and float(), which also take full-width ('１２') and other non-ASCII digits, so the run would compute with
    a number other than the text typed."""
    if raw.isascii():
        return None
    for kind in (int, float):
        try:
            value = kind(raw)
        except ValueError:
            continue
        hint = look_alike_hint(raw) or ": not ASCII"
        return f"parameter {short(name)}: papermill read {short(raw)} as the number {value!r}{hint}"
    return None


def look_alike_numbers(argv: list[str]) -> str | None:
    """Why a `-p NAME VALUE` of a papermill command line must not run (`look_alike_number`), or None."""
    context = _papermill_context(argv)
    if context is None:
        return None
    for name, raw in context.params.get("parameters") or ():
        if (problem := look_alike_number(name, raw)) is not None:
            return problem
    return None


def _yaml_names(text: str | bytes) -> list[str]:
    """The top-level names of a YAML mapping, every occurrence in order ([] when it is not one), as papermill's
    `-y` and `-b` read it (`NoDatesSafeLoader`), which keeps the last of a repeated name silently."""
    import yaml
    from papermill.iorw import NoDatesSafeLoader

    try:
        node = yaml.compose(text, Loader=NoDatesSafeLoader)
    except (yaml.YAMLError, RecursionError, ValueError):
        return []
    if not isinstance(node, yaml.MappingNode):
        return []
    return [key.value for key, _ in node.value if isinstance(key, yaml.ScalarNode)]


def repeated_names(argv: list[str], cwd: Path | None = None) -> str | None:
    """Why a papermill command line must not run because it gives a parameter twice (`-p` twice, `-p` and
    `-y`, twice in one `-y` or one `-f` file, `-f`, `-r`, `-b`), or None: papermill runs with the last value
    silently, and `lib run` refuses it. A relative `-f` file is read from `cwd`, papermill's working folder (one
    that cannot be read is papermill's to refuse)."""
    import base64
    import binascii

    context = _papermill_context(argv)
    if context is None:
        return None
    given: list[tuple[str, str]] = []
    for name in context.params.get("parameters_file") or ():
        path = Path(name) if cwd is None else cwd / name
        try:
            given += [(key, "-f") for key in _yaml_names(path.read_bytes())]
        except OSError:
            continue
    for text in context.params.get("parameters_base64") or ():
        try:
            given += [(name, "-b") for name in _yaml_names(base64.b64decode(text))]
        except (binascii.Error, ValueError):
            continue
    for text in context.params.get("parameters_yaml") or ():
        given += [(name, "-y") for name in _yaml_names(text)]
    given += [(name, "-p") for name, _ in context.params.get("parameters") or ()]
    given += [(name, "-r") for name, _ in context.params.get("parameters_raw") or ()]
    seen: dict[str, str] = {}
    for name, option in given:
        if name in seen:
            return (
                f"parameter {short(name)} is given twice on papermill's command line ({seen[name]} and {option}); "
                "papermill would run with the last value: give it once"
            )
        seen[name] = option
    return None


def papermill_command() -> list[str] | None:
    """The command line of this kernel's parent process (the `papermill` that started it), or None."""
    try:
        raw = Path(f"/proc/{os.getppid()}/cmdline").read_bytes()
    except OSError:
        return None
    return [os.fsdecode(a) for a in raw.split(b"\0")[:-1]]


def papermill_cwd() -> Path | None:
    """The working folder of this kernel's parent process (the `papermill` that started it), or None."""
    try:
        return Path(os.readlink(f"/proc/{os.getppid()}/cwd"))
    except OSError:
        return None


def local_path(output: object, cwd: Path) -> Path | None:
    """`output` as an absolute local path (relative to `cwd`); None for stdout, a URL or a template."""
    if not isinstance(output, str) or output in ("", "-") or "://" in output or "{" in output:
        return None
    return Path(os.path.abspath(cwd / Path(output).expanduser()))


def _started_in(pid: int) -> Path | None:
    """The PWD of process `pid` (the folder its shell started it in), if it has one."""
    environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    pwd = next((v[4:] for v in environ if v.startswith(b"PWD=")), None)
    return Path(os.fsdecode(pwd)) if pwd else None


def papermill_output_path(injected: object = None) -> Path | None:
    """The output notebook of the papermill run executing this kernel, or None when it cannot be known.

    `injected` is PAPERMILL_OUTPUT_PATH when the reader passed `--inject-output-path`; otherwise the
    kernel's parent process is read (Linux /proc): the `papermill` command line. Papermill's Python
    API, an output on stdout or a URL give None (set LIB_OUTPUT_DIR for those).
    """
    cwd, argv = papermill_cwd(), papermill_command()
    try:
        shell_pwd = _started_in(os.getppid())
    except OSError:
        cwd = None
    if cwd is None or argv is None:
        return local_path(injected, Path.cwd()) if injected is not None else None
    if injected is not None:
        if _papermill_arguments(argv) is not None and "--cwd" in argv:
            cwd = shell_pwd or cwd
        return local_path(injected, cwd)
    return output_path_from_command(argv, cwd, shell_pwd)
