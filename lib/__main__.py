"""Command line of the book (see the README): run, list, claims, plus the build's helpers.

    python -m lib run ID [-p NAME VALUE]... [-y YAML] [--output-dir DIR] [--threads N] [--device D]
                         [--allow-expensive]
    python -m lib list
    python -m lib claims [DIR] [--chapter ID]...
    python -m lib deps ID TARGET          (make rule of the chapter's dependencies)
    python -m lib pages RUNS_DIR OUT_DIR  (summary, scorecard, parameter tables, notes and errata of the book)
    python -m lib readme [RUNS_DIR]       (rewrite README.md's results table from the built chapters)
    python -m lib chapters                (chapter ids, from _toc.yml)
    python -m lib refs [ID...]            (regenerate the nbval references at smoke parameters)
    python -m lib bench [--output FILE]   (benchmarks and peak memory of every chapter)

Exit codes: 0 success; 1 a claim's verdict differs from its declaration (claims) or a run failed;
2 a bad input (unknown chapter or parameter, invalid value or YAML, unusable folder or metrics file),
always with one line that names it, before any computation.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

import yaml

from lib.chapter import ParameterError, short
from lib.paths import ROOT

BOOK_RUNS = ROOT / "book" / "chapters"
MAX_YAML_BYTES = 100_000

# ----------------------------------------------------------------------------------------------
# Parameter values: papermill's reading of -p, a strict YAML reading of -y
# ----------------------------------------------------------------------------------------------


class _StrictLoader(yaml.SafeLoader):
    """Safe YAML that refuses duplicate keys, non-string keys and aliases (no alias bombs), and reads
    exponent floats without a dot (1e-3, [1e-9, 0.5]) as numbers, as YAML 1.2 and Python do (YAML
    1.1, PyYAML's default, reads them as strings)."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            raise ParameterError("YAML aliases (*name) are not accepted in parameters")
        return super().compose_node(parent, index)

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if not isinstance(key, str):
                raise ParameterError(f"parameter names must be strings, got {short(key)}")
            if key in seen:
                raise ParameterError(f"parameter {key!r} is given twice in the YAML")
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


_StrictLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$"),
    list("-+.0123456789"),
)


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


def parse_value(raw: str) -> Any:
    """A `-p` value read as papermill reads it: True/False/None, int, float (1e-3, -1e-3), else YAML
    (lists, -.inf, true), else the string itself."""
    if raw in ("True", "False"):
        return raw == "True"
    if raw == "None":
        return None
    for kind in (int, float):
        try:
            return kind(raw)
        except ValueError:
            pass
    try:
        value = parse_yaml(raw)
    except ParameterError:
        return raw
    return value if isinstance(value, (list, dict, bool, float, int)) or value is None else raw


def parse_overrides(pairs: list[tuple[str, str]], yaml_texts: list[str]) -> dict[str, Any]:
    """-y mappings first, then -p pairs; a name given twice is refused."""
    values: dict[str, Any] = {}
    for text in yaml_texts:
        loaded = parse_yaml(text)
        if not isinstance(loaded, dict):
            raise ParameterError(f"-y expects a YAML mapping of name: value, got {short(loaded)}")
        for name in loaded:
            if name in values:
                raise ParameterError(f"parameter {name!r} is given twice")
        values.update(loaded)
    for name, raw in pairs:
        if name in values:
            raise ParameterError(f"parameter {short(name)} is given twice")
        values[name] = parse_value(raw)
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
    parser = argparse.ArgumentParser(prog="python -m lib", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="execute a chapter with parameters (-p NAME VALUE, repeatable)")
    run.add_argument("chapter")
    run.add_argument("-y", "--yaml", action="append", default=[], help="parameters as a YAML mapping")
    run.add_argument("--output-dir", type=Path, default=ROOT / "runs")
    run.add_argument("--threads", type=int, default=None, help="torch and BLAS threads (default: 1)")
    run.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    run.add_argument(
        "--allow-expensive",
        action="store_true",
        help="run even when the estimated time or memory is beyond reason for this machine",
    )
    sub.add_parser("list", help="chapters, parameters, defaults and meaning")
    claims = sub.add_parser("claims", help="every claim against the metrics in DIR")
    claims.add_argument("dir", nargs="?", type=Path, default=BOOK_RUNS)
    claims.add_argument(
        "--chapter",
        action="append",
        default=[],
        help="only this chapter (repeatable); default: the chapters with metrics in DIR",
    )
    deps = sub.add_parser("deps", help="make rule: a chapter's dependencies")
    deps.add_argument("chapter")
    deps.add_argument("target")
    pages = sub.add_parser("pages", help="write the scorecard, parameter, notes and errata pages")
    pages.add_argument("runs_dir", type=Path)
    pages.add_argument("out_dir", type=Path)
    readme = sub.add_parser("readme", help="rewrite README.md's results table from the chapters' metrics")
    readme.add_argument("runs_dir", type=Path, nargs="?", default=BOOK_RUNS)
    sub.add_parser("chapters", help="chapter ids in book order")
    refs = sub.add_parser("refs", help="regenerate tests/notebooks/ID.ipynb at the smoke parameters")
    refs.add_argument("chapters", nargs="*")
    bench = sub.add_parser("bench", help="benchmarks and peak memory at default parameters")
    bench.add_argument("chapters", nargs="*")
    bench.add_argument("--output", type=Path, default=ROOT / "_build" / "bench.json")
    bench.add_argument("--no-memory", action="store_true", help="skip executing chapters for peak memory")
    return parser


def _claims(directory: Path, only: list[str]) -> int:
    from lib.claims import chapters_present, claims_report
    from lib.specs import chapter_ids, load

    if not directory.is_dir():
        raise ParameterError(f"{directory}: no such folder of metrics")
    chapters = [load(c) for c in only] if only else chapters_present(directory, [load(c) for c in chapter_ids()])
    if not chapters:
        raise ParameterError(f"{directory}: no ID.metrics.json of any chapter")
    text, code = claims_report(chapters, directory)
    print(text)
    return code


def main(argv: list[str] | None = None) -> int:
    from lib.claims import MetricsError

    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        rest, pairs = split_parameters(argv)
        args = _parser().parse_args(rest)
        if pairs and args.command != "run":
            raise ParameterError("-p is an option of `run`")
        if args.command == "run":
            from lib.runner import run_chapter, validate_run
            from lib.runtime import Runtime

            if args.threads is not None and not 1 <= args.threads <= 1024:
                raise ParameterError(f"--threads must be between 1 and 1024, got {args.threads}")
            overrides = parse_overrides(pairs, args.yaml)
            validate_run(args.chapter, overrides, args.output_dir, args.allow_expensive)  # before imports
            runtime = Runtime(threads=args.threads or 1, device=args.device)
            path = run_chapter(
                args.chapter, overrides, args.output_dir, runtime=runtime, allow_expensive=args.allow_expensive
            )
            print(f"wrote {path} and {path.with_suffix('').with_suffix('')}.metrics.json")
        elif args.command == "list":
            from lib.runner import list_chapters

            print(list_chapters())
        elif args.command == "claims":
            return _claims(args.dir, args.chapter)
        elif args.command == "deps":
            from lib.deps import make_rule

            sys.stdout.write(make_rule(args.chapter, args.target))
        elif args.command == "pages":
            from lib.pages import write_pages

            write_pages(args.runs_dir, args.out_dir)
        elif args.command == "readme":
            from lib.pages import write_readme

            write_readme(args.runs_dir)
        elif args.command == "refs":
            from lib.runner import refresh_reference
            from lib.specs import chapter_ids

            for chapter_id in args.chapters or chapter_ids():
                print(f"wrote {refresh_reference(chapter_id)}")
        elif args.command == "bench":
            from lib.bench import format_table, run_benchmarks

            results = run_benchmarks(args.output, args.chapters or None, memory=not args.no_memory)
            print(format_table(results))
            print(f"wrote {args.output}")
        elif args.command == "chapters":
            from lib.specs import chapter_ids

            print("\n".join(chapter_ids()))
    except (ParameterError, MetricsError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
