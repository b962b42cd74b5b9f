"""Command line of the book (see BOOK_CONTRACT): run, list, claims, plus the build's helpers.

    python -m lib run ID [-p NAME VALUE]... [-y YAML] [--output-dir DIR]
    python -m lib list
    python -m lib claims [DIR] [--known-failures-ok]
    python -m lib deps ID TARGET          (make rule of the chapter's dependencies)
    python -m lib pages RUNS_DIR OUT_DIR  (scorecard and parameter tables of the book)
    python -m lib chapters                (chapter ids, from _toc.yml)
    python -m lib refs [ID...]            (regenerate the nbval references at smoke parameters)
    python -m lib bench [--output FILE]   (benchmarks and peak memory of every chapter)
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

from lib.chapter import ROOT, ParameterError

BOOK_RUNS = ROOT / "book" / "chapters"


def _parse_overrides(pairs: list[list[str]], yaml_texts: list[str]) -> dict:
    values: dict = {}
    for text in yaml_texts:
        loaded = yaml.safe_load(text)
        if not isinstance(loaded, dict):
            raise ParameterError(f"-y expects a YAML mapping, got {text!r}")
        values.update(loaded)
    for name, raw in pairs:
        values[name] = yaml.safe_load(raw)
    return values


def chapter_ids_all() -> list[str]:
    from lib.specs import chapter_ids

    return chapter_ids()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lib", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="execute a chapter with parameters")
    run.add_argument("chapter")
    run.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"))
    run.add_argument("-y", "--yaml", action="append", default=[], help="parameters as a YAML mapping")
    run.add_argument("--output-dir", type=Path, default=ROOT / "runs")
    sub.add_parser("list", help="chapters, parameters, defaults and meaning")
    claims = sub.add_parser("claims", help="every claim against the metrics in DIR")
    claims.add_argument("dir", nargs="?", type=Path, default=BOOK_RUNS)
    claims.add_argument("--known-failures-ok", action="store_true",
                        help="accept claims declared as not reproduced (expected_to_hold=False)")
    deps = sub.add_parser("deps", help="make rule: a chapter's dependencies")
    deps.add_argument("chapter")
    deps.add_argument("target")
    pages = sub.add_parser("pages", help="write the scorecard and parameter pages")
    pages.add_argument("runs_dir", type=Path)
    pages.add_argument("out_dir", type=Path)
    sub.add_parser("chapters", help="chapter ids in book order")
    refs = sub.add_parser("refs", help="regenerate tests/notebooks/ID.ipynb at the smoke parameters")
    refs.add_argument("chapters", nargs="*")
    bench = sub.add_parser("bench", help="benchmarks and peak memory at default parameters")
    bench.add_argument("chapters", nargs="*")
    bench.add_argument("--output", type=Path, default=ROOT / "_build" / "bench.json")
    bench.add_argument("--no-memory", action="store_true", help="skip executing chapters for peak memory")
    args = parser.parse_args(argv)

    try:
        if args.command == "run":
            from lib.runner import run_chapter

            overrides = _parse_overrides(args.parameter, args.yaml)
            path = run_chapter(args.chapter, overrides, args.output_dir)
            print(f"wrote {path} and {path.with_suffix('').with_suffix('')}.metrics.json")
        elif args.command == "list":
            from lib.runner import list_chapters

            print(list_chapters())
        elif args.command == "claims":
            from lib.claims import claims_report
            from lib.specs import chapter_ids, load

            text, code = claims_report([load(c) for c in chapter_ids()], args.dir, args.known_failures_ok)
            print(text)
            return code
        elif args.command == "deps":
            from lib.deps import make_rule

            sys.stdout.write(make_rule(args.chapter, args.target))
        elif args.command == "pages":
            from lib.pages import write_pages

            write_pages(args.runs_dir, args.out_dir)
        elif args.command == "refs":
            from lib.runner import refresh_reference

            for chapter_id in args.chapters or chapter_ids_all():
                print(f"wrote {refresh_reference(chapter_id)}")
        elif args.command == "bench":
            from lib.bench import format_table, run_benchmarks

            results = run_benchmarks(args.output, args.chapters or None, memory=not args.no_memory)
            print(format_table(results))
            print(f"wrote {args.output}")
        elif args.command == "chapters":
            from lib.specs import chapter_ids

            print("\n".join(chapter_ids()))
    except ParameterError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
