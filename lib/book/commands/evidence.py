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

Exit code 2, with one line naming it, before any work, for a bad input: an unknown chapter, set or shard, an
invalid value (--threads, --sample, --against), an unusable folder or environment variable (LIB_CACHE_DIR,
LIB_THREADS, ...), a malformed command line (no abbreviated options: --thr is not --threads).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from lib.book.chapters.declaration import ParameterError, short
from lib.book.commands.arguments import OneLineParser, whole_number

if TYPE_CHECKING:
    from lib.book.evidence.declare import EvidenceSet

PROG = "python -m lib evidence"
SHOWN = 8  # names listed in a refusal before "..."


def _names(names: list[str]) -> str:
    """`names` comma-separated, the first SHOWN of them and the count when there are more."""
    return ", ".join(names[:SHOWN]) + (f", ... ({len(names)} in all)" if len(names) > SHOWN else "")


def _evidence_set(chapter: str, name: str) -> EvidenceSet:
    """The declared set `chapter/name`; ParameterError naming the unknown chapter or set and the valid ones."""
    from lib.book.evidence import registry

    sets = registry.all_sets()
    chapters = list(dict.fromkeys(s.chapter for s in sets))
    if chapter not in chapters:
        raise ParameterError(f"no evidence set is declared by chapter {short(chapter)}; chapters: {_names(chapters)}")
    names = [s.name for s in sets if s.chapter == chapter]
    if name not in names:
        raise ParameterError(f"chapter {chapter} has no evidence set {short(name)}; its sets: {_names(names)}")
    return next(s for s in sets if (s.chapter, s.name) == (chapter, name))


def _check_sets(keys: str | None) -> None:
    """ParameterError unless `keys` (SETS: chapter or chapter/set, comma-separated; None or 'all': every set)
    names only declared chapters and sets, at least one."""
    from lib.book.evidence import registry

    if keys is None or keys == "all":
        return
    sets = registry.all_sets()
    wanted = [k.strip() for k in keys.split(",") if k.strip()]
    if not wanted:
        raise ParameterError(f"SETS {short(keys)} names no chapter or set (leave it out for all of them)")
    for key in wanted:
        if not any(key in (s.key, s.chapter) for s in sets):
            from lib.book.chapters import chapter_ids

            if key in chapter_ids():
                raise ParameterError(f"chapter {key} declares no evidence set (it computes everything as it runs)")
            chapters = list(dict.fromkeys(s.chapter for s in sets))
            raise ParameterError(
                f"no evidence set or chapter {short(key)}; chapters: {_names(chapters)} "
                f"(`{PROG} list` lists their sets)"
            )


def _folder(option: str, text: str | None, create: bool = False) -> Path | None:
    """The folder `text` given to `option` (None: not given): an existing folder, or with `create` one that can be
    made (what exists of its path is folders, the deepest of them writable); ParameterError otherwise."""
    if text is None:
        return None
    if not text.strip():
        raise ParameterError(f"{option} is empty: give a folder")
    path = Path(text)
    try:
        is_dir, exists = path.is_dir(), path.exists() or path.is_symlink()
        parents = [p for p in path.absolute().parents if p.exists() or p.is_symlink()]
    except (OSError, ValueError) as err:  # a name too long, a NUL byte
        raise ParameterError(f"{option} {short(text)}: {(getattr(err, 'strerror', None) or str(err))[:100]}") from None
    if exists and not is_dir:
        raise ParameterError(f"{option} {short(text)}: not a folder")
    if not is_dir and not create:
        raise ParameterError(f"{option} {short(text)}: no such folder")
    found = path if is_dir else parents[0]
    if not found.is_dir():
        raise ParameterError(f"{option} {short(text)}: cannot be made, a part of it is not a folder")
    if create and not os.access(found, os.W_OK | os.X_OK):
        raise ParameterError(f"{option} {short(text)}: cannot be written")
    return path


def _threads(text: str) -> int:
    """`--threads`, by the rule of `python -m lib run --threads`: ASCII digits, 1 to MAX_THREADS."""
    from lib.util.runtime import MAX_THREADS

    return whole_number("--threads", text, 1, MAX_THREADS)


def _commit(text: str) -> str:
    """`--against`: a commit of this repository (`git rev-parse --verify`), as given; ParameterError otherwise."""
    from lib.util.paths import ROOT

    if not text.strip() or text.startswith("-"):
        raise ParameterError(f"--against {short(text)}: not a commit of this repository")
    try:
        found = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet", f"{text}^{{commit}}"],
            capture_output=True,
            text=True,
        )
    except (OSError, ValueError) as err:
        raise ParameterError(f"--against {short(text)}: git cannot be run ({short(str(err))})") from None
    if found.returncode:
        raise ParameterError(f"--against {short(text)}: not a commit of this repository")
    return text


def _parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
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
    shard.add_argument("--root", default=None, help="evidence folder, made if missing (default data/evidence)")
    shard.add_argument("--threads", default="1", help="torch and BLAS threads (default: 1)")
    shard.add_argument("--gpu", action="store_true", help="use a GPU if the set declares gpu and one is present")
    compare.add_argument("--root", required=True, help="folder holding the regenerated shards")
    compare.add_argument("--reference", default=None, help="folder holding the stored shards (default data/evidence)")
    recertify = commands.add_parser("recertify", help="certify stale shards for the current code by a smoke recompute")
    recertify.add_argument("set", help="chapter/set")
    recertify.add_argument("--sample", default="0", help="also recompute N full shards (evenly spread)")
    recertify.add_argument("--root", default=None, help="evidence folder (default data/evidence)")
    recertify.add_argument("--threads", default="1", help="torch and BLAS threads (default: 1)")
    recertify.add_argument(
        "--against", default=None, help="compare with the smoke shards computed here by the code at this commit"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run `python -m lib evidence` with `argv` (default: the command line) and return its exit status: 2 with
    one line for a bad input (unknown chapter, set or shard, invalid value, unusable folder), before any work."""
    from lib.util.runtime import SettingError

    try:
        return _main(argv)
    except (ParameterError, SettingError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


def _main(argv: list[str] | None) -> int:
    args = _parser().parse_args(argv)
    variant = "smoke" if getattr(args, "smoke", False) else "full"
    from lib.util.runtime import check_environment

    check_environment()  # LIB_CACHE_DIR, LIB_THREADS, ... as `python -m lib` checks them (SettingError: exit 2)

    import lib.book.chapters  # noqa: F401  (the chapter declarations register their evidence sets)
    from lib.book.evidence import registry
    from lib.book.evidence.status import stale_targets, status

    # every input is checked here, before any work
    if args.command in ("list", "status", "stale"):
        _check_sets(args.sets)
        root = _folder("--root", args.root)
    elif args.command in ("shard", "compare"):
        evidence_set = _evidence_set(args.chapter, args.set)
        if args.command == "shard":
            shard_ids = evidence_set.shard_ids(variant)
            if args.shard_id not in shard_ids:
                raise ParameterError(
                    f"evidence set {evidence_set.key} ({variant}) has no shard {short(args.shard_id)}; "
                    f"shards: {_names(shard_ids)}"
                )
            threads = _threads(args.threads)
            root = _folder("--root", args.root, create=True)
        else:
            root = _folder("--root", args.root)
            reference = _folder("--reference", args.reference)
    else:  # recertify
        chapter, slash, name = args.set.partition("/")
        if not slash:
            raise ParameterError(f"recertify takes CHAPTER/SET, got {short(args.set)}")
        evidence_set = _evidence_set(chapter, name)
        full = len(evidence_set.shard_ids("full"))
        sample = whole_number("--sample", args.sample, 0, full, f" (the full shards of {evidence_set.key})")
        threads = _threads(args.threads)
        root = _folder("--root", args.root)
        against = None if args.against is None else _commit(args.against)

    if args.command == "shard":
        from lib.book.evidence.run import run_shard

        print(run_shard(evidence_set, args.shard_id, variant, root, threads, args.gpu))
    elif args.command == "recertify":
        from lib.book.evidence.certify import recertify as certify_set

        certified, problems = certify_set(evidence_set, sample, root, threads, against)
        if certified:
            print(f"{args.set}: {len(certified)} shards certified for the current code")
        elif not problems:
            print(f"{args.set}: every stored shard is already of the current code")
        print("\n".join(problems))
        if problems and not certified and not against:
            print(
                "(shards computed on another processor may differ here even under unchanged code: "
                "--against COMMIT compares the code at COMMIT, which made them, with the current one on this machine)"
            )
        return 1 if problems else 0
    elif args.command == "compare":
        from lib.book.evidence.load import compare as compare_sets

        problems = compare_sets(args.chapter, args.set, variant, root, reference)
        print(
            "\n".join(problems)
            or f"{args.chapter}/{args.set} ({variant}): identical to the stored shards within the declared tolerance"
        )
        return 1 if problems else 0
    elif args.command == "stale":
        print("\n".join(str(p) for p in stale_targets(args.sets, variant, root, args.gpu)))
    elif args.command == "list":
        for s in registry.select(args.sets, gpu=True):
            print(
                f"{s.key:45s} {len(s.variant_shards(variant)):4d} shards  ~{s.estimated_minutes(variant):7.1f} "
                f"core-min  threads={s.threads} gpu={s.gpu}  {s.function}"
            )
    else:
        rows = status(args.sets, variant, root)
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

            chapters = sorted({r["set"].split("/")[0] for r in rows} if args.sets else stored_chapters(root))
            for chapter in chapters:
                found = stored_status(chapter, root)
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
