"""Command line of the evidence tier (the Snakemake rules call `shard`).

python -m lib evidence list                       declared sets, shards, estimated minutes, commands
python -m lib evidence status [SETS] [--smoke]    present / missing / stale / begun shards per set, and each chapter's
                                                  stored results: ok / from other code / damaged / missing
python -m lib evidence stale [SETS] [--smoke]     provenance.json paths of stale shards (for --forcerun)
python -m lib evidence shard CHAPTER SET SHARD_ID [--smoke] [--root DIR] [--threads N] [--gpu]
python -m lib evidence compare CHAPTER SET --root DIR [--smoke]   a regenerated copy vs the stored one
python -m lib evidence recertify CHAPTER/SET [--sample N] [--against COMMIT]   certify stale shards by a smoke recompute

Stored results (data/evidence/CHAPTER/stored-results/NAME/) are a chapter's default computations, read by its
`run.stored(...)` calls when function, arguments and reached code match; `status` checks their files and code
(their arguments are checked when the chapter runs) and names the command that rewrites them:
`python -m lib run CHAPTER --stored-results write` (all chapters: `make stored-results`).

Exit code 2, with one line, for an unusable environment variable (LIB_CACHE_DIR, LIB_THREADS, ...).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter


def main(argv: list[str] | None = None) -> int:
    """Run `python -m lib evidence` with `argv` (default: the command line) and return its exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m lib evidence", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("list", "status", "stale"):
        sub = commands.add_parser(name)
        sub.add_argument("sets", nargs="?", default=None, help="chapter or chapter/set, comma-separated (default all)")
        sub.add_argument("--smoke", action="store_true", help="the smoke variant")
        sub.add_argument("--root", default=None, help="evidence folder (default data/evidence)")
        if name == "stale":
            sub.add_argument("--gpu", action="store_true", help="with 'all': include the sets declared for a GPU")
    shard = commands.add_parser("shard")
    compare = commands.add_parser("compare")
    for sub in (shard, compare):
        sub.add_argument("chapter")
        sub.add_argument("set")
        sub.add_argument("--smoke", action="store_true")
    shard.add_argument("shard_id")
    shard.add_argument("--root", default=None)
    shard.add_argument("--threads", type=int, default=1)
    shard.add_argument("--gpu", action="store_true", help="use a GPU if the set declares gpu and one is present")
    compare.add_argument("--root", required=True, help="folder holding the regenerated shards")
    compare.add_argument("--reference", default=None, help="folder holding the stored shards (default data/evidence)")
    recertify = commands.add_parser("recertify", help="certify stale shards for the current code by a smoke recompute")
    recertify.add_argument("set", help="chapter/set")
    recertify.add_argument("--sample", type=int, default=0, help="also recompute N full shards (evenly spread)")
    recertify.add_argument("--root", default=None, help="evidence folder (default data/evidence)")
    recertify.add_argument("--threads", type=int, default=1)
    recertify.add_argument(
        "--against", default=None, help="compare with the smoke shards computed here by the code at this commit"
    )
    args = parser.parse_args(argv)
    variant = "smoke" if getattr(args, "smoke", False) else "full"
    from lib.util.runtime import SettingError, check_environment

    try:
        check_environment()  # LIB_CACHE_DIR, LIB_THREADS, ... as `python -m lib` checks them
    except SettingError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2

    import lib.book.chapters  # noqa: F401  (the chapter declarations register their evidence sets)
    from lib.book.evidence import registry
    from lib.book.evidence.status import stale_targets, status

    if args.command == "shard":
        from lib.book.evidence.run import run_shard

        path = run_shard(
            registry.get(args.chapter, args.set), args.shard_id, variant, args.root, args.threads, args.gpu
        )
        print(path)
    elif args.command == "recertify":
        from lib.book.evidence.certify import recertify as certify_set

        chapter, _, name = args.set.partition("/")
        if not name or args.sample < 0:
            parser.error(f"recertify takes chapter/set and --sample N >= 0, got {args.set!r}, {args.sample}")
        try:
            evidence_set = registry.get(chapter, name)
        except KeyError as error:
            parser.error(str(error))
        certified, problems = certify_set(evidence_set, args.sample, args.root, args.threads, args.against)
        if certified:
            print(f"{args.set}: {len(certified)} shards certified for the current code")
        elif not problems:
            print(f"{args.set}: every stored shard is already of the current code")
        print("\n".join(problems))
        if problems and not certified and not args.against:
            print(
                "(shards computed on another processor may differ here even under unchanged code: "
                "--against COMMIT compares the code at COMMIT, which made them, with the current one on this machine)"
            )
        return 1 if problems else 0
    elif args.command == "compare":
        from lib.book.evidence.load import compare as compare_sets

        problems = compare_sets(args.chapter, args.set, variant, args.root, args.reference)
        print(
            "\n".join(problems)
            or f"{args.chapter}/{args.set} ({variant}): identical to the stored shards within the declared tolerance"
        )
        return 1 if problems else 0
    elif args.command == "stale":
        print("\n".join(str(p) for p in stale_targets(args.sets, variant, args.root, args.gpu)))
    elif args.command == "list":
        for s in registry.select(args.sets, gpu=True):
            print(
                f"{s.key:45s} {len(s.variant_shards(variant)):4d} shards  ~{s.estimated_minutes(variant):7.1f} "
                f"core-min  threads={s.threads} gpu={s.gpu}  {s.function}"
            )
    else:
        rows = status(args.sets, variant, args.root)
        for row in rows:
            counts = ", ".join(f"{v} {k}" for k, v in sorted(row["counts"].items()))
            commit = f", {row['other_commit']} from another commit" if row["other_commit"] else ""
            print(
                f"{row['set']:45s} {row['shards']:4d} shards: {counts}{commit}  ~{row['minutes']:.1f} core-min"
                + (
                    ""
                    if row["counts"].get("ok") == row["shards"]
                    else f" (~{row['minutes_to_go']:.0f} still to compute)  -> {row['command']}"
                )
            )
            for how, n in sorted(row["certified"].items()):
                print(f"    {n} ok, {how}")
            print(f"    processors: {'; '.join(row['processors']) or 'none'}")
            if row["begun"]:  # furthest along first, the order `make evidence` resumes them in
                begun = sorted(row["begun"].items(), key=lambda item: -item[1])
                print("    begun, resumed first: " + ", ".join(f"{sid} ({s / 60:.0f} CPU-min)" for sid, s in begun))
            for problem in row["problems"][:5]:
                print(f"    {problem}")
        stored_ok = True
        if not args.smoke:
            from lib.book.evidence.stored import refresh_command, stored_chapters, stored_status

            chapters = sorted({r["set"].split("/")[0] for r in rows} if args.sets else stored_chapters(args.root))
            for chapter in chapters:
                found = stored_status(chapter, args.root)
                if not found:
                    continue
                counts = ", ".join(f"{n} {state}" for state, n in sorted(Counter(r["state"] for r in found).items()))
                bad = [r for r in found if r["state"] != "ok"]
                stored_ok = stored_ok and not bad
                seconds = sum(r["wall_seconds"] for r in found)
                print(
                    f"{chapter + '/stored-results':45s} {len(found):4d} results: {counts}  ~{seconds / 60:.1f} core-min"
                    + (f"  -> {refresh_command(chapter)}" if bad else "")
                )
                print(
                    f"    processors: {'; '.join(sorted({r['processor'] for r in found if r['processor']})) or 'none'}"
                )
                for r in bad[:5]:
                    print(f"    {r['name']} ({r['state']}): {r['problem']}")
        return 0 if stored_ok and all(r["counts"].get("ok") == r["shards"] for r in rows) else 1
    return 0
