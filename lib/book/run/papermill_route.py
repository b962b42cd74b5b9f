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
- `command_line_problem` reads that command line as papermill read it (its click parser; `-y`, `-f` and `-b`
  with its YAML loader, merge keys `<<` merged) and refuses what papermill would run silently and `lib run`
  refuses: a name that is not exactly a declared parameter ('d ', full-width 'ｄ', which Python reads as d), a
  name given twice (across -p, -r, -y, -f, -b, a merge included), YAML aliases, a YAML document that is not a
  mapping (papermill reads a falsy one such as [] or 0 as no parameters), numbers in look-alike digits.
"""

from __future__ import annotations

import ast
import functools
import os
import re
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lib.book.chapters.declaration import PAPERMILL_PATH_PARAMETERS, Chapter, ParameterError, look_alike_hint, short

if TYPE_CHECKING:
    import click

PARAMETERS_MARKER = '# %% tags=["parameters", "hide-input"]'
_PARAMETERS_CELL = re.compile(r'^# %%.*\btags=\[[^\]]*"parameters"')
INJECTED_HEADER = "# Parameters"  # the comment papermill's Python translator puts first in the cell it injects


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


def _spelling(name: str) -> str:
    """How `name` differs from the plain name it looks like: spaces around it, or its first non-ASCII character
    (`name_problem` asks only for a name that stripping or NFKC changes: an ASCII name without spaces it does not)."""
    if name.strip() != name:
        return "spaces around it"
    odd = next(c for c in name if not c.isascii())
    return f"{odd!r} ({unicodedata.name(odd, f'U+{ord(odd):04X}')})"


def name_problem(name: Any, chapter: Chapter) -> str | None:
    """Why `name`, as papermill received it, is not a parameter of `chapter`, or None when it is one exactly.

    papermill pastes a name into the notebook verbatim, and Python reads an identifier after NFKC normalisation
    ('ｄ' is d) and without the spaces around it ('d ' is d): such a name would set the declared parameter it
    looks like, behind `lib run`'s back (which refuses it as unknown). The message names that parameter."""
    declared = chapter.defaults()
    if isinstance(name, str) and name in declared:
        return None
    if isinstance(name, str):
        plain = unicodedata.normalize("NFKC", name).strip()
        if plain in declared:
            return (
                f"unknown parameter {short(name)} for chapter {chapter.id!r}: it looks like the parameter {plain} "
                f"but is written with {_spelling(name)}; give the name exactly: {plain}"
            )
    try:
        chapter.check_names([name])
    except ParameterError as err:
        return str(err)
    return f"unknown parameter {short(name)} for chapter {chapter.id!r}"


def injected_cell_problem(source: str, chapter: Chapter) -> str | None:
    """Why papermill's injected cell must not run (one line naming the offending text), or None when it may.

    It may hold only `NAME = literal` lines, one statement a line, each NAME written exactly as a declared
    parameter (`name_problem`: not 'd ' nor 'ｄ', which Python would read as d) and given once."""
    verbatim = "papermill pastes parameter names into the notebook verbatim, and a name must be a Python identifier"
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as err:
        line = source.splitlines()[err.lineno - 1] if getattr(err, "lineno", None) else source
        return f"the injected parameters do not parse ({short(line.strip())}): {verbatim}"
    lines = source.splitlines()
    names: list[str] = []
    used_lines: set[int] = set()
    for node in tree.body:
        line = lines[node.lineno - 1]
        assign = isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
        if not (assign and _is_literal(node.value)) or node.col_offset != 0 or node.lineno in used_lines:
            return f"the injected parameters hold {short(line.strip())}, not NAME = value: {verbatim}"
        used_lines.add(node.lineno)
        name = node.targets[0].id
        pasted = line.split(" = ", 1)[0]  # papermill writes f"{name} = {value}"
        if pasted != name:
            return name_problem(pasted, chapter) or (
                f"the injected parameters hold {short(line.strip())}, not NAME = value: {verbatim}"
            )
        if name in names:
            return (
                f"parameter {short(name)} is given twice in the injected parameters; papermill would run with the "
                "last value: give it once"
            )
        names.append(name)
    try:
        chapter.check_names(name for name in names if name not in PAPERMILL_PATH_PARAMETERS)
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


# the one message of both routes for YAML aliases
ALIASES_REFUSED = "YAML aliases (*name) are not accepted in parameters"


class RefusesAliases:
    """A YAML loader mixin that refuses aliases (*name: no alias bombs), for both routes alike: `lib run`'s reader
    of -y (lib.book.commands.main) and this module's reading of papermill's -y, -f and -b."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        import yaml

        if self.check_event(yaml.AliasEvent):
            raise ParameterError(ALIASES_REFUSED)
        return super().compose_node(parent, index)


@functools.cache
def _route_loader() -> type:
    """papermill's YAML loader (`NoDatesSafeLoader`, which its `-y`, `-f` and `-b` read with), refusing aliases."""
    from papermill.iorw import NoDatesSafeLoader

    return type("RouteLoader", (RefusesAliases, NoDatesSafeLoader), {})


def _yaml_names(text: str | bytes, option: str = "-y") -> list[Any]:
    """The top-level names of a YAML document as papermill's `option` reads it (`NoDatesSafeLoader`, merge keys
    `<<` merged as PyYAML merges them), every occurrence in order (papermill keeps the last of a repeated name
    silently); [] for an empty document (nothing, a comment, null: no parameters on both routes) and for one
    papermill cannot read (it stops before the kernel starts). ParameterError for YAML aliases and for a document
    that is not a mapping ('[]', '0', 'false', which papermill reads as no parameters, as `lib run` refuses them)."""
    import yaml

    loader = _route_loader()(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return []
        if isinstance(node, yaml.MappingNode) and node.tag == "tag:yaml.org,2002:map":
            loader.flatten_mapping(node)
            return [loader.construct_object(key, deep=True) for key, _ in node.value]
        value = loader.construct_document(node)
    except ParameterError:
        raise
    except (yaml.YAMLError, RecursionError, ValueError, TypeError):
        return []
    finally:
        loader.dispose()
    if value is None:
        return []
    raise ParameterError(f"{option} expects a YAML mapping of name: value, got {short(value)}")


def _given(context: click.Context, cwd: Path | None) -> list[tuple[Any, str]]:
    """Every parameter name papermill received, with the option that gave it, in the order papermill applies them
    (-b, -f, -y, -p, -r); ParameterError for a YAML document it must not read (`_yaml_names`). A relative `-f`
    file is read from `cwd` (a file that cannot be read again is skipped: papermill read it before the kernel)."""
    import base64
    import binascii

    given: list[tuple[Any, str]] = []
    for text in context.params.get("parameters_base64") or ():
        try:
            decoded = base64.b64decode(text)
        except (binascii.Error, ValueError):
            continue
        given += [(name, "-b") for name in _yaml_names(decoded, "-b")]
    for name in context.params.get("parameters_file") or ():
        path = Path(name).expanduser()
        if not path.is_absolute():
            if cwd is None:
                continue
            path = cwd / path
        try:
            text = path.read_text(encoding="utf-8")  # as papermill's local handler reads it
        except (OSError, UnicodeDecodeError):
            continue
        given += [(key, "-f") for key in _yaml_names(text, "-f")]
    for text in context.params.get("parameters_yaml") or ():
        given += [(name, "-y") for name in _yaml_names(text, "-y")]
    given += [(name, "-p") for name, _ in context.params.get("parameters") or ()]
    given += [(name, "-r") for name, _ in context.params.get("parameters_raw") or ()]
    return given


def _repeat(given: list[tuple[Any, str]]) -> str | None:
    """Why (name, option) pairs as `_given` lists them give a name twice (naming both options), or None."""
    seen: dict[str, str] = {}
    for name, option in given:
        key = short(name) if not isinstance(name, str) else name
        if key in seen:
            return (
                f"parameter {short(name)} is given twice on papermill's command line ({seen[key]} and {option}); "
                "papermill would run with the last value: give it once"
            )
        seen[key] = option
    return None


def _start_folder(context: click.Context, cwd: Path | None, shell_pwd: Path | None) -> Path | None:
    """The folder papermill read its relative paths from: `cwd`, or the shell's under papermill's `--cwd`."""
    return shell_pwd if context.params.get("cwd") else cwd


def repeated_names(argv: list[str], cwd: Path | None = None, shell_pwd: Path | None = None) -> str | None:
    """Why a papermill command line must not run because it gives a parameter twice (`-p` twice, `-p` and
    `-y`, twice in one `-y` or one `-f` file, through a YAML merge key, `-f`, `-r`, `-b`), or because a YAML
    document it reads is not a mapping or holds aliases (`_yaml_names`); None otherwise. papermill runs with the
    last value silently, and `lib run` refuses it. A relative `-f` file is read from `cwd`, papermill's working
    folder (`shell_pwd` under its `--cwd`)."""
    context = _papermill_context(argv)
    if context is None:
        return None
    try:
        return _repeat(_given(context, _start_folder(context, cwd, shell_pwd)))
    except ParameterError as err:
        return str(err)


def command_line_problem(
    argv: list[str], chapter: Chapter, cwd: Path | None = None, shell_pwd: Path | None = None
) -> str | None:
    """Why the papermill command line `argv` must not run `chapter`, or None (also for a command line that is not
    papermill's: `lib run` checks its own). As `lib run` refuses them: a YAML document that is not a mapping or
    holds aliases, a name that is not exactly a declared parameter (`name_problem`), a name given twice
    (`repeated_names`), a `-p` number in look-alike digits (`look_alike_numbers`)."""
    context = _papermill_context(argv)
    if context is None:
        return None
    try:
        given = _given(context, _start_folder(context, cwd, shell_pwd))
    except ParameterError as err:
        return str(err)
    unknown = next((problem for name, _ in given if (problem := name_problem(name, chapter)) is not None), None)
    return unknown or repeated_names(argv, cwd, shell_pwd) or look_alike_numbers(argv)


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


def papermill_shell_pwd() -> Path | None:
    """The folder the shell started this kernel's parent process in (its PWD), or None."""
    try:
        return _started_in(os.getppid())
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

    The kernel's parent process is read (Linux /proc): the `papermill` command line names it. Where the parent is
    not papermill's command (its Python API), `injected` is PAPERMILL_OUTPUT_PATH (a parameter the reader gives); on the
    command line it only stands in where the line names no local notebook, since a `-p PAPERMILL_OUTPUT_PATH`
    would set it too. An output on stdout or a URL gives None (set LIB_OUTPUT_DIR for those).
    """
    cwd, argv = papermill_cwd(), papermill_command()
    try:
        shell_pwd = _started_in(os.getppid())
    except OSError:
        cwd = None
    if cwd is None or argv is None:
        return local_path(injected, Path.cwd()) if injected is not None else None
    if _papermill_arguments(argv) is not None:
        found = output_path_from_command(argv, cwd, shell_pwd)
        if found is not None or injected is None:
            return found
        if "--cwd" in argv:
            cwd = shell_pwd or cwd
    return local_path(injected, cwd) if injected is not None else None


def metrics_file(notebook: Path) -> Path:
    """The metrics file of a papermill run that writes `notebook`: beside it, named after it (`out/e.ipynb` ->
    `out/e.metrics.json`), so that two runs into one folder keep their own."""
    return notebook.with_name(f"{notebook.stem}.metrics.json")
