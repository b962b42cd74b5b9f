"""Command line of the book (see the README): run, list, claims, page, plus the build's helpers.

    python -m lib run ID [-p NAME VALUE]... [-y YAML] [--output-dir DIR] [--html] [--threads N]
                         [--allow-expensive] [--stored-results use|live|write]
    python -m lib list [ID]                (parameters: type, default, range, meaning, claims they reach)
    python -m lib claims [DIR | FILE] [--chapter ID]... [--check]
    python -m lib page OUT.ipynb [-o OUT.html] (an executed chapter as a standalone offline page)
    python -m lib params [ID...] [--check] (write the papermill parameters cells of notebooks/ID.py)
    python -m lib deps ID TARGET          (make rule of the chapter's dependencies)
    python -m lib pages RUNS_DIR OUT_DIR  (summary, scorecard, parameter tables, notes and errata of the book)
    python -m lib readme [RUNS_DIR]       (rewrite README.md's results table from the built chapters)
    python -m lib chapters                (chapter ids, from _toc.yml)
    python -m lib refs [ID...]            (regenerate the nbval references at smoke parameters)
    python -m lib bench [--output FILE] [--no-phases]   (benchmarks, peak memory, a fresh clone's build phases)
    python -m lib evidence COMMAND ...    (the evidence store: list, status, stale, shard, compare, recertify;
                                           `python -m lib evidence -h`)

Exit codes: 0 success; 1 a run failed, a verdict differs from its declaration (`claims`) or
a parameters cell is stale (`params --check`); 2 a bad input (unknown chapter or parameter, invalid
value or YAML, unusable folder, notebook or metrics file), always with one line that names it, before any
computation; 130 interrupted (Ctrl-C) and 143 terminated (SIGTERM: `timeout`, `kill`, CI cancellation):
one line, nothing published, the staging folder and the kernel cleaned up. A full file system stops a
run with one line and exit 1, the output folder as it was.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import yaml

from lib.book.chapters.declaration import ParameterError, short
from lib.book.commands.arguments import OneLineParser, whole_number
from lib.book.run.papermill_route import RefusesAliases, look_alike_number
from lib.util.paths import ROOT
from lib.util.runtime import STORED_RESULTS_MODES

BOOK_RUNS = ROOT / "book" / "chapters"
INTERRUPTED = 130  # the shell's code for a command stopped by Ctrl-C (128 + SIGINT)
TERMINATED = 143  # and by SIGTERM (128 + SIGTERM): `timeout`, CI cancellation, `kill`
MAX_YAML_BYTES = 100_000

# ----------------------------------------------------------------------------------------------
# Parameter values: papermill's reading of -p, a strict YAML reading of -y
# ----------------------------------------------------------------------------------------------


class _StrictLoader(RefusesAliases, yaml.SafeLoader):
    """papermill's reading of `-y` (`papermill.iorw.NoDatesSafeLoader`: PyYAML's safe YAML 1.1 without
    dates, so that 2024-01-01 stays text, merge keys `<<` merged), refusing duplicate keys (a key merged in and
    given again included), non-string keys and aliases (no alias bombs). As there, 1e-3 without a dot and 1.0e3
    without an exponent sign are text (YAML 1.1), 0x10 and 1:30 are integers, yes/no booleans."""

    # papermill.iorw.NoDatesSafeLoader's table, built as papermill builds it (importing papermill here would slow
    # every command by seconds; a unit test checks that the two tables are the same)
    yaml_implicit_resolvers = {
        first: [r for r in resolvers if r[0] != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        if node.tag != "tag:yaml.org,2002:map":  # a !!set is a mapping too: named by refuse_foreign
            return super().construct_mapping(node, deep=deep)
        self.flatten_mapping(node)  # merge keys (<<), as PyYAML's safe loader and so papermill read them
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, str):
                raise ParameterError(f"parameter names must be strings, got {short(key)}")
            if key in seen:
                raise ParameterError(f"parameter {key!r} is given twice in the YAML")
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


class ForeignValue:
    """A YAML value of a kind no parameter takes (a tag such as !!python/tuple or !custom), kept to be named."""

    def __init__(self, tag: str):
        self.tag = tag.replace("tag:yaml.org,2002:", "!!")


_StrictLoader.add_constructor(None, lambda loader, node: ForeignValue(node.tag))


def parse_yaml(text: str) -> Any:
    """A YAML value under the strict loader; ParameterError (one line) for anything malformed."""
    if len(text.encode(errors="replace")) > MAX_YAML_BYTES:
        raise ParameterError(f"YAML parameters longer than {MAX_YAML_BYTES} bytes are not accepted")
    try:
        return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 (a SafeLoader subclass)
    except yaml.YAMLError as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise ParameterError(f"malformed YAML in parameters: {short(first)}") from None
    except RecursionError:
        raise ParameterError("YAML parameters nested too deeply") from None
    except ParameterError:
        raise
    except ValueError as err:  # Python's limit on the digits of an integer it reads from text
        raise ParameterError(f"a number in the YAML parameters is out of range: {short(str(err))}") from None


# What a YAML value may hold: the kinds of a parameter (numbers, strings, true/false, null, lists) and
# mappings (refused by the parameter they are given to, naming it).
PLAIN_KINDS = (str, int, float, bool, type(None), list, dict)
_FOREIGN_KINDS = {
    "set": "a set (!!set)",
    "date": "a date",
    "datetime": "a date and time",
    "bytes": "binary data (!!binary)",
    "tuple": "ordered pairs (!!omap or !!pairs)",
}


def foreign_kind(value: Any) -> str | None:
    """The kind no parameter takes that a YAML value holds (a set, a date, binary data, pairs, a tagged
    value), in words, or None."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, ForeignValue):
            return f"a value tagged {short(item.tag)}"
        elif not isinstance(item, PLAIN_KINDS):
            return f"{_FOREIGN_KINDS.get(type(item).__name__, type(item).__name__)} ({short(item)})"
    return None


def refuse_foreign(name: str, value: Any) -> None:
    """ParameterError naming parameter `name` when its YAML value holds a kind no parameter takes."""
    kind = foreign_kind(value)
    if kind is not None:
        raise ParameterError(
            f"parameter {short(name)}: the YAML gives {kind}, which no parameter takes; write a number, a string, "
            "true/false, null or a list (quote text that YAML would read otherwise, such as '2024-01-01')"
        )


def parse_value(name: str, raw: str) -> Any:
    """The `-p NAME VALUE` value as papermill reads it, with papermill's own function: True, False, None,
    else int(), else float(), else the text (a list is text here, as under papermill: lists go through -y).
    ParameterError for text that int() or float() take but is not ASCII ('１２', '١٢'), which papermill would
    compute with as a number other than the one that was typed (the papermill route refuses it too)."""
    from papermill.cli import _resolve_type as papermill_value

    problem = look_alike_number(name, raw)
    if problem is not None:
        raise ParameterError(problem)
    return papermill_value(raw)


def parse_overrides(pairs: list[tuple[str, str]], yaml_texts: list[str]) -> dict[str, Any]:
    """-y mappings first, then -p pairs; a name given twice is refused."""
    values: dict[str, Any] = {}
    for text in yaml_texts:
        loaded = parse_yaml(text)
        if loaded is None:  # an empty document: no parameters, as papermill reads it
            continue
        if not isinstance(loaded, dict):
            got = foreign_kind(loaded) or short(loaded)
            raise ParameterError(f"-y expects a YAML mapping of name: value, got {got}")
        for name, value in loaded.items():
            if name in values:
                raise ParameterError(f"parameter {name!r} is given twice")
            refuse_foreign(name, value)
        values.update(loaded)
    for name, raw in pairs:
        if name in values:
            raise ParameterError(f"parameter {short(name)} is given twice")
        values[name] = parse_value(name, raw)
    return values


def split_parameters(argv: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """Take `-p NAME VALUE` triples out of argv before argparse sees them (argparse would read a
    value such as -1e-3 as an option)."""
    rest, pairs, i = [], [], 0
    while i < len(argv):
        if argv[i] in ("-p", "--parameter"):
            if i + 2 >= len(argv):
                raise ParameterError(f"{argv[i]} needs a NAME and a VALUE")
            pairs.append((argv[i + 1], argv[i + 2]))
            i += 3
        else:
            rest.append(argv[i])
            i += 1
    return rest, pairs


# ----------------------------------------------------------------------------------------------
# Commands
# ----------------------------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    from lib.book.chapters import chapter_ids

    ids = ", ".join(chapter_ids())
    parser = OneLineParser(
        prog="python -m lib",
        description=__doc__.split("\n")[0],
        epilog=__doc__[__doc__.index("Exit codes") :],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser(
        "evidence", help="the evidence store: list, status, stale, shard, compare, recertify", add_help=False
    )
    run = sub.add_parser(
        "run",
        help="execute a chapter with parameters (-p NAME VALUE, repeatable)",
        description="Execute a chapter with papermill after checking every parameter and the cost; writes "
        "DIR/ID.ipynb and DIR/ID.metrics.json (and DIR/ID.html with --html). Exit 2 on a bad input.",
    )
    run.add_argument("chapter", metavar="ID", help=f"the chapter: {ids}")
    run.add_argument(
        "-p",
        "--parameter",
        nargs=2,
        action="append",
        metavar=("NAME", "VALUE"),
        help="a parameter, read as papermill reads -p (True/False/None, an int, a float such as 1e-3 or -1e-3, "
        "else text); repeatable; `python -m lib list ID` lists them",
    )
    run.add_argument(
        "-y",
        "--yaml",
        action="append",
        default=[],
        help="parameters as a YAML mapping, read as papermill reads -y (lists: -y '{mu: [1.0, 3.0]}')",
    )
    run.add_argument(
        "--output-dir",
        default=None,
        help="where to write, outside the source tree (default: LIB_OUTPUT_DIR, else runs/, ignored by git; "
        "book/chapters for the book)",
    )
    run.add_argument("--html", action="store_true", help="also write DIR/ID.html, a standalone offline page")
    run.add_argument("--threads", default=None, help="torch and BLAS threads (default: 1)")
    run.add_argument(
        "--stored-results",
        choices=STORED_RESULTS_MODES,
        default=None,
        help="use: read the chapter's stored results that match their call and code (default; LIB_STORED_RESULTS); "
        "live: compute everything; write: compute everything and rewrite the stored results (default parameters only)",
    )
    run.add_argument(
        "--allow-expensive",
        action="store_true",
        help="run even when the estimated time or memory is beyond reason for this machine",
    )
    listing = sub.add_parser("list", help="chapters, parameters, defaults and meaning")
    listing.add_argument(
        "chapter", nargs="?", metavar="ID", help=f"one chapter, with the claims each parameter reaches: {ids}"
    )
    claims = sub.add_parser(
        "claims",
        help="every claim against the metrics in DIR",
        description="Every claim of the chapters with metrics in DIR: its verdict on those metrics, the value "
        "with its interval and n, and the verdict its chapter declares. Exit 0 when every verdict is the declared "
        "one, 1 when one differs (marked 'changed'), 2 when DIR or a metrics file is unusable.",
    )
    claims.add_argument(
        "dir",
        nargs="?",
        default=str(BOOK_RUNS),
        help="folder of ID.metrics.json files, or one metrics file (a papermill run's: OUT.metrics.json)",
    )
    claims.add_argument(
        "--chapter",
        action="append",
        default=[],
        help="only this chapter (repeatable); default: the chapters with metrics in DIR",
    )
    claims.add_argument(
        "--check", action="store_true", help="print only the claims whose verdict changed and the counts (CI logs)"
    )
    page = sub.add_parser("page", help="an executed chapter notebook as a standalone offline HTML page")
    page.add_argument("notebook", type=Path, help="an executed chapter (lib run or papermill output)")
    page.add_argument("-o", "--output", default=None, help="the page (default: beside the notebook, .html)")
    params = sub.add_parser(
        "params", help="write each notebook's papermill `parameters` cell from its declaration in lib/book/chapters"
    )
    params.add_argument("chapters", nargs="*")
    params.add_argument("--check", action="store_true", help="only list stale cells; exit 1 if any")
    deps = sub.add_parser("deps", help="make rule: a chapter's dependencies")
    deps.add_argument("chapter")
    deps.add_argument("target")
    pages = sub.add_parser("pages", help="write the scorecard, parameter, notes and errata pages")
    pages.add_argument("runs_dir", type=Path)
    pages.add_argument("out_dir", type=Path)
    release = sub.add_parser("release", help="store this version's verdicts as book/releases/VERSION.json")
    release.add_argument("runs_dir", type=Path, nargs="?", default=BOOK_RUNS)
    readme = sub.add_parser("readme", help="rewrite README.md's results table from the chapters' metrics")
    readme.add_argument("runs_dir", type=Path, nargs="?", default=BOOK_RUNS)
    sub.add_parser("chapters", help="chapter ids in book order")
    refs = sub.add_parser("refs", help="regenerate tests/notebooks/ID.ipynb at the smoke parameters")
    refs.add_argument("chapters", nargs="*")
    bench = sub.add_parser("bench", help="benchmarks and peak memory at default parameters")
    bench.add_argument("chapters", nargs="*")
    bench.add_argument("--output", type=Path, default=ROOT / "_build" / "bench.json")
    bench.add_argument("--no-memory", action="store_true", help="skip executing chapters for peak memory")
    bench.add_argument(
        "--no-phases", action="store_true", help="skip the fresh clone's build phases (environment, chapters, HTML, CI)"
    )
    return parser


def known_chapters(given: list[str]) -> list[str]:
    """The chapter ids `given`, each once in the order given, after checking every one (`load`'s ParameterError
    for an unknown id), so that a command refuses before it computes or writes anything."""
    from lib.book.chapters import load

    for chapter_id in given:
        load(chapter_id)
    return list(dict.fromkeys(given))


def complete_build(runs_dir: Path, command: str) -> Path:
    """`runs_dir` when it holds the metrics of every chapter (a complete `make book`): the book's pages, the README's
    table and a release are written from all chapters or not at all; ParameterError otherwise, before any write."""
    from lib.book.chapters import chapter_ids

    if not runs_dir.is_dir():
        raise ParameterError(
            f"{command}: {runs_dir}: no such folder of built chapters (make book builds book/chapters)"
        )
    missing = [c for c in chapter_ids() if not os.path.lexists(runs_dir / f"{c}.metrics.json")]
    if missing:
        raise ParameterError(
            f"{command}: {runs_dir} holds no metrics of {', '.join(missing)}; it writes from every chapter's "
            "default run (make book)"
        )
    return runs_dir


def pages_folder(out_dir: Path) -> Path:
    """`out_dir` for the generated pages: a folder outside the repository's sources, or book/generated, the book's;
    ParameterError otherwise, before any write."""
    from lib.book.run.outputs import lies_in, source_folder

    if os.path.lexists(out_dir) and not out_dir.is_dir():
        raise ParameterError(f"pages: {out_dir}: exists and is not a folder")
    if (inside := source_folder(out_dir, allowed=(Path("book") / "generated",))) is not None:
        raise ParameterError(f"pages: {out_dir}: lies in {lies_in(inside)} (the book's pages go to book/generated)")
    return out_dir


def _claims(location: Path, only: list[str], check: bool) -> int:
    """`lib claims DIR` (every chapter with an ID.metrics.json there) or `lib claims FILE.metrics.json` (the one
    chapter its run record names: a papermill run's metrics, named after its notebook)."""
    from lib.book.chapters import chapter_ids, load
    from lib.book.verdicts.claims import RUN_KEY, chapters_present, claims_report, read_metrics_file

    if location.name.endswith(".metrics.json"):
        if not os.path.lexists(location):
            raise ParameterError(f"{location}: no such metrics file")
        record = (read_metrics_file(location) or {}).get(RUN_KEY)
        if not isinstance(record, dict) or record.get("chapter") not in chapter_ids():
            raise ParameterError(f"{location}: not the metrics file of a chapter run")
        chapters = [load(c) for c in known_chapters(only)] if only else [load(record["chapter"])]
    elif location.is_dir():
        chapters = (
            [load(c) for c in known_chapters(only)]
            if only
            else chapters_present(location, [load(c) for c in chapter_ids()])
        )
        if not chapters:
            raise ParameterError(
                f"{location}: no ID.metrics.json of any chapter (a papermill run's metrics are named after its "
                "notebook: give that file)"
            )
    elif os.path.lexists(location):
        raise ParameterError(f"{location}: neither a folder of metrics nor a metrics file (named OUT.metrics.json)")
    else:
        raise ParameterError(f"{location}: no such folder of metrics or metrics file")
    text, code = claims_report(chapters, location, only_changed=check)
    print(text)
    return code


def main(argv: list[str] | None = None) -> int:
    """Run `python -m lib` with `argv` (default: the command line) and return its exit status."""
    from lib.book.verdicts.claims import MetricsError
    from lib.util.runtime import MAX_THREADS, OUTPUT_DIR_ENV, SettingError, check_environment, folder_setting

    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["evidence"]:
        from lib.book.commands import evidence

        try:
            code = evidence.main(argv[1:])
            sys.stdout.flush()
            return code
        except BrokenPipeError:  # `lib evidence status | head`
            return _pipe_closed()
    try:
        check_environment()
        rest, pairs = split_parameters(argv)
        args = _parser().parse_args(rest)
        if pairs and args.command != "run":
            raise ParameterError("-p is an option of `run`")
        if args.command == "run":
            from lib.book.run.runner import run_chapter, validate_run
            from lib.util.runtime import Runtime, current

            threads = None if args.threads is None else whole_number("--threads", args.threads, 1, MAX_THREADS)
            overrides = parse_overrides(pairs, args.yaml)
            from papermill.exceptions import PapermillExecutionError

            from lib.book.run.notebook import DEFAULT_RUNS_DIR, check_stored_results_mode

            output_dir = (
                str(folder_setting(OUTPUT_DIR_ENV, DEFAULT_RUNS_DIR)) if args.output_dir is None else args.output_dir
            )
            from lib.book.run.runner import Terminated, disk_full, missing_folders, remove_empty
            from lib.util.runtime import stored_results_mode

            new_folders = missing_folders(output_dir)
            try:
                try:
                    option = (  # the folder named as it was given
                        "--output-dir"
                        if args.output_dir is not None
                        else OUTPUT_DIR_ENV
                        if os.environ.get(OUTPUT_DIR_ENV)
                        else "the output folder"
                    )
                    chapter, params, _ = validate_run(
                        args.chapter, overrides, output_dir, args.allow_expensive, option=option
                    )
                    check_stored_results_mode(chapter, params, args.stored_results or stored_results_mode())
                    render = None  # --html: the page, written in the staging folder and published with the run
                    if args.html:
                        from lib.book.pages.rerun import render_page as render
                    runtime = Runtime(threads or current().threads, args.stored_results)
                    path = run_chapter(
                        args.chapter,
                        overrides,
                        output_dir,
                        runtime=runtime,
                        allow_expensive=args.allow_expensive,
                        render=render,
                        option=option,
                    )
                except BaseException:  # refused, interrupted or failed: a folder the run made and left empty goes
                    remove_empty(new_folders)
                    raise
            except KeyboardInterrupt as err:
                terminated = isinstance(err, Terminated)
                print(f"{'terminated' if terminated else 'interrupted'}; nothing was published", file=sys.stderr)
                return TERMINATED if terminated else INTERRUPTED
            except OSError as err:  # staging or publishing: a full disk, a folder removed under the run
                where = f" ({short(err.filename)})" if err.filename else ""
                print(
                    f"error: chapter {args.chapter}: {err.strerror or err}{where}; nothing was published",
                    file=sys.stderr,
                )
                return 1
            except PapermillExecutionError as err:  # the cell's own error in one line, not papermill's traceback
                if disk_full(err):
                    print(f"error: chapter {args.chapter}: {err.evalue}; nothing was published", file=sys.stderr)
                    return 1
                failed = Path(output_dir) / f"{args.chapter}.failed.ipynb"
                print(
                    f"error: chapter {args.chapter} stopped in cell {err.exec_count}: {err.ename}: {err.evalue} "
                    f"(the executed part: {failed}; nothing was published)",
                    file=sys.stderr,
                )
                return 1
            written = [path, path.with_name(f"{args.chapter}.metrics.json")]
            if args.html:
                written.append(path.with_suffix(".html"))
            print("wrote " + ", ".join(str(p) for p in written))
            from lib.book.run.notebook import evidence_notices, stored_notices

            metrics = json.loads(written[1].read_text())
            for notice in evidence_notices(metrics) + stored_notices(metrics):
                print(notice, file=sys.stderr)
        elif args.command == "page":
            from lib.book.pages.rerun import read_chapter_notebook, render_page
            from lib.book.run.outputs import usable_output_file

            if not os.path.lexists(args.notebook):
                raise ParameterError(f"{args.notebook}: no such notebook")
            _, chapter = read_chapter_notebook(args.notebook)
            given = args.output is not None
            output = args.output if given else args.notebook.with_suffix(".html")
            output = usable_output_file(output, chapter.id, option="-o" if given else "the page")
            same = os.path.realpath(output) == os.path.realpath(args.notebook)
            if output.name.endswith((".ipynb", ".metrics.json")) or same:
                raise ParameterError(
                    f"{'-o' if given else 'the page'} {short(str(output))}: a run's notebook or metrics, not a page; "
                    "name an .html file"
                )
            print(f"wrote {render_page(args.notebook, output)}")
        elif args.command == "list":
            from lib.book.run.runner import list_chapters

            print(list_chapters(None if args.chapter is None else known_chapters([args.chapter])[0]))
        elif args.command == "claims":
            if not args.dir.strip():
                raise ParameterError("claims: the folder or metrics file is empty (default: book/chapters)")
            return _claims(Path(args.dir), args.chapter, args.check)
        elif args.command == "params":
            from lib.book.chapters import chapter_ids, load
            from lib.book.run.papermill_route import write_parameters_cells

            stale = write_parameters_cells(
                [load(c) for c in known_chapters(args.chapters) or chapter_ids()], check=args.check
            )
            for path in stale:
                print(f"{'stale' if args.check else 'wrote'} {path.relative_to(ROOT)}")
            if args.check and stale:
                return 1
        elif args.command == "deps":
            from lib.book.chapters.dependencies import make_rule

            if not args.target.strip() or any(c.isspace() or c in ":;#=%" for c in args.target):
                raise ParameterError(f"deps: {short(args.target)} is not a make target (empty, or a space, : ; # = %)")
            sys.stdout.write(make_rule(known_chapters([args.chapter])[0], args.target))
        elif args.command == "pages":
            from lib.book.pages.generated import write_pages

            out_dir = pages_folder(args.out_dir)
            write_pages(complete_build(args.runs_dir, "pages"), out_dir)
        elif args.command == "release":
            from lib.book.pages.changelog import write_snapshot
            from lib.book.pages.generated import verdicts_and_statuses

            print(f"wrote {write_snapshot(*verdicts_and_statuses(complete_build(args.runs_dir, 'release')))}")
        elif args.command == "readme":
            from lib.book.pages.generated import write_readme

            write_readme(complete_build(args.runs_dir, "readme"))
        elif args.command == "refs":
            from lib.book.chapters import chapter_ids
            from lib.book.run.runner import refresh_reference

            for chapter_id in known_chapters(args.chapters) or chapter_ids():
                print(f"wrote {refresh_reference(chapter_id)}")
        elif args.command == "bench":
            from lib.book.commands.bench import format_table, run_benchmarks
            from lib.book.run.outputs import usable_output_file

            chapters = known_chapters(args.chapters) or None
            output = usable_output_file(args.output, "bench", option="--output")  # before any benchmark runs
            results = run_benchmarks(output, chapters, memory=not args.no_memory, phases=not args.no_phases)
            print(format_table(results))
            print(f"wrote {output}")
        elif args.command == "chapters":
            from lib.book.chapters import chapter_ids

            print("\n".join(chapter_ids()))
        sys.stdout.flush()  # inside the try: a reader's pipe closed early breaks here, not at the interpreter's exit
    except (ParameterError, MetricsError, SettingError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:  # `lib list | head`
        return _pipe_closed()
    return 0


def _pipe_closed() -> int:
    """A reader's pipe closed early (`lib list | head`): they have what they asked for. Python's documented idiom:
    point stdout at /dev/null so that the interpreter's exit does not fail on it again."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 141  # 128 + SIGPIPE, as a shell command cut off by its pipe
