"""Re-certification: stored shards of changed code certified for the current code by recomputing a part of the set.

When the code a set's shards reach changes (`lib.util.fingerprint.reached_code`), its stored shards are
stale, and recomputing a full set costs hours. `recertify` recomputes instead the set's smoke
variant (and, when asked, a sample of full shards, spread evenly over the declared order and
named before anything is computed) under the current code into a temporary folder, and compares
every array with the stored one, bitwise or within the set's declared rtol/atol. If all agree, the
stored shards made by the same previous code (full and smoke: the same recorded fingerprint as
the stored smoke shards) are certified for the current code: their provenance.json is rewritten,
atomically, with the current fingerprint and reached code, and an entry is appended to its
`certifications` list (old and new fingerprint, how, when in UTC, on which processor, at which
commit). If any array differs, nothing is changed and the differing arrays are named.

Torch's floating-point results differ between processors (AVX2, AVX-512), so shards computed on
another machine may not be reproduced bitwise here even by unchanged code. `--against COMMIT`
compares instead the current code with the previous one on this machine: the smoke variant (and
the sample) is computed twice, by the code at COMMIT (checked to be the code the stored shards
record: same fingerprint) and by the current code, and the stored shards are certified if the two
agree; it shows that the change does not change what the set computes.

`python -m lib evidence recertify CHAPTER/SET [--sample N] [--against COMMIT]`; `python -m
lib.book.evidence status` then shows the certified shards as ok, with the date and the method.
"""

from __future__ import annotations

import datetime
import io
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import numpy as np

from lib.book.evidence.declare import EvidenceSet
from lib.book.evidence.load import compare
from lib.book.evidence.run import processor, run_shard
from lib.book.evidence.store import PROVENANCE, check_shard, git_commit, set_code, shard_dir
from lib.util.fingerprint import Reached, reached_code
from lib.util.io import atomic_write_text
from lib.util.paths import ROOT

SMOKE_METHOD = "smoke recompute"


def sample_ids(evidence_set: EvidenceSet, n: int, among: list[str] | None = None) -> list[str]:
    """`n` full shard ids spread evenly over the declared order (of `among`, default all): fixed before computing."""
    ids = among if among is not None else evidence_set.shard_ids()
    if n <= 0 or not ids:
        return []
    picks = np.unique(np.linspace(0, len(ids) - 1, min(n, len(ids))).round().astype(int))
    return [ids[i] for i in picks]


def code_at(commit: str, into: Path) -> tuple[str, Path]:
    """(full sha, the repository's files at `commit` without data/ and tests/, extracted under `into`)."""
    git = ["git", "-C", str(ROOT)]
    sha = subprocess.run(
        [*git, "rev-parse", "--verify", f"{commit}^{{commit}}"], check=True, capture_output=True, text=True
    )
    archive = subprocess.run(
        [*git, "archive", sha.stdout.strip(), "--", ".", ":(exclude)data", ":(exclude)tests"],
        check=True,
        capture_output=True,
    )
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="data")
    return sha.stdout.strip(), into


def shard_command(tree: Path) -> list[str]:
    """How the code in `tree` computes a shard: `python -m lib evidence shard` since lib was regrouped by
    layer, `python -m lib.evidence shard` in a commit from before."""
    before_regroup = (tree / "lib" / "evidence" / "__main__.py").exists()
    return [sys.executable, "-m", *(["lib.evidence"] if before_regroup else ["lib", "evidence"]), "shard"]


def compute_with(tree: Path, evidence_set: EvidenceSet, variant: str, ids: list[str], root: Path, threads: int) -> None:
    """Compute shards `ids` with the code in `tree` (another commit's), in a process of this interpreter."""
    for sid in ids:
        command = [*shard_command(tree), evidence_set.chapter, evidence_set.name, sid]
        command += ["--root", str(root), "--threads", str(threads)] + (["--smoke"] if variant == "smoke" else [])
        done = subprocess.run(command, cwd=tree, capture_output=True, text=True)
        if done.returncode:
            raise RuntimeError(f"shard {sid} under the previous code failed:\n{done.stderr[-2000:]}")


def certification(old: str, new: str, method: str, function: str) -> dict[str, str]:
    """One `certifications` entry: the fingerprints, the method, the date (UTC), processor and commit."""
    cpu = processor()
    return {
        "old_fingerprint": old,
        "new_fingerprint": new,
        "method": method,
        "function": function,
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "processor": f"{cpu['model']}; torch {cpu['torch_kernels']}",
        "commit": git_commit()[0],
    }


def recorded_function(provenance: dict, declared: str) -> str:
    """The 'module:name' of the code a stored shard is recorded for: the last certification's (a move since the
    shard was computed is recorded there), else the function that computed it, else the set's declared one."""
    history = provenance.get("certifications") or []
    return (
        history[-1].get("function") if history and history[-1].get("function") else provenance.get("function", declared)
    )


def certify_shard(directory: Path, code: Reached, entry: dict[str, str]) -> None:
    """Rewrite a stored shard's provenance.json (atomically) for the code `code`, keeping the history."""
    path = Path(directory) / PROVENANCE
    provenance = json.loads(path.read_text())
    provenance.pop("code_modules", None)  # the module digests of the scheme before reached code
    provenance.update(
        code_fingerprint=code.fingerprint,
        code_objects=code.objects,
        certifications=[*provenance.get("certifications", []), entry],
    )
    atomic_write_text(path, json.dumps(provenance, indent=2, sort_keys=True, allow_nan=False) + "\n")


def recertify(
    evidence_set: EvidenceSet,
    sample: int = 0,
    root: Path | None = None,
    threads: int = 1,
    against: str | None = None,
) -> tuple[list[str], list[str]]:
    """Certify the set's stale stored shards for the current code by a smoke recompute (and `sample`
    full shards recomputed), compared with the stored arrays or, with `against` (a commit whose code
    made the stored shards), with the same shards computed by that code here. Returns (certified shard
    folders, problems): a recompute that differs certifies nothing; full shards made by other code
    than the stored smoke shards stay stale and are named."""
    code = set_code(evidence_set)
    states = {
        variant: [check_shard(evidence_set, sid, variant, root, read=False) for sid in evidence_set.shard_ids(variant)]
        for variant in ("smoke", "full")
    }
    stale = {v: [s for s in states[v] if s.status == "code"] for v in states}
    if not stale["full"] and not stale["smoke"]:
        return [], []
    smoke_problems = [f"smoke shard {s.sid} ({s.status}): {s.problem}" for s in states["smoke"] if s.status != "code"]
    if smoke_problems:
        return [], [*smoke_problems, "the stored smoke shards must all be of the previous code to compare with"]
    old = {s.provenance["code_fingerprint"] for s in stale["smoke"]}
    if len(old) != 1:
        return [], [f"the stored smoke shards were made by different code ({', '.join(sorted(old))})"]
    (previous,) = old
    full = [s.sid for s in stale["full"] if s.provenance["code_fingerprint"] == previous]
    others = [s.sid for s in stale["full"] if s.provenance["code_fingerprint"] != previous]
    sampled = sample_ids(evidence_set, sample, full)
    plan = [(v, ids) for v, ids in (("smoke", evidence_set.shard_ids("smoke")), ("full", sampled)) if ids]

    tmp = Path(tempfile.mkdtemp(prefix="recertify-"))
    try:
        reference, method = root, SMOKE_METHOD
        if against:
            sha, tree = code_at(against, tmp / "previous-code")
            function = recorded_function(stale["smoke"][0].provenance, evidence_set.function)
            then = reached_code(function, with_versions=not evidence_set.gpu, root=tree).fingerprint
            if then != previous:
                return [], [
                    f"the code at {sha[:12]} is not the code of the stored shards (fingerprint {then}, stored {previous})"
                ]
            reference, method = (
                tmp / "previous",
                f"smoke recompute by the previous code (commit {sha}) and the current one",
            )
            for variant, ids in plan:
                compute_with(tree, evidence_set, variant, ids, reference, threads)
        problems = []
        for variant, ids in plan:
            for sid in ids:
                run_shard(evidence_set, sid, variant, root=tmp / "current", threads=threads)
            problems += compare(
                evidence_set.chapter, evidence_set.name, variant, tmp / "current", reference, ids, stored_code=False
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if problems:
        return [], problems

    method += f" and {len(sampled)} full shards recomputed ({', '.join(sampled)})" if sampled else ""
    entry = certification(previous, code.fingerprint, method, evidence_set.function)
    certified = []
    for variant, ids in (("smoke", [s.sid for s in stale["smoke"]]), ("full", full)):
        for sid in ids:
            directory = shard_dir(evidence_set, sid, variant, root)
            certify_shard(directory, code, entry)
            certified.append(str(directory))
    problems = [
        f"shard {sid}: made by other code ({previous} is the stored smoke shards'); recompute it" for sid in others
    ]
    return certified, problems
