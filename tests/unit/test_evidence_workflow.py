"""The Snakemake workflow: the DAG of every declared set resolves, and a stored smoke shard regenerates."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lib.book.evidence import compare, registry
from lib.book.evidence.run import CLOCK_FILE, checkpoint_dir
from lib.book.evidence.store import PROVENANCE, shard_dir
from lib.util.io import atomic_write_json
from lib.util.paths import ROOT

SNAKEMAKE = [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "workflow" / "Snakefile")]
SMOKE_SET = ("two_layer", "swing_by_d")  # the set whose first smoke shard make test regenerates
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def snakemake(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(
        [*SNAKEMAKE, "--directory", str(tmp_path), *args],
        check=False,
        capture_output=True,
        text=True,
        env={**ENV, **(env or {})},
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout + result.stderr


def planned_jobs(out: str) -> dict[str, int]:
    """Jobs per rule from snakemake's `--quiet rules` dry-run summary."""
    rules = {f"{s.chapter}__{s.name}" for s in registry.all_sets()}
    return {
        line.split()[0]: int(line.split()[1])
        for line in out.splitlines()
        if line.split()[:1] and line.split()[0] in rules
    }


def prioritised_jobs(out: str) -> dict[tuple[str, str], float]:
    """{(rule, shard): priority} of the jobs that a dry run lists with a priority above 0."""
    found = {}
    for block in out.split("\n\n"):
        fields = dict(line.strip().split(": ", 1) for line in block.splitlines() if ": " in line)
        rule = next((line[5:-1] for line in block.splitlines() if line.startswith("rule ")), None)
        if rule and float(fields.get("priority", 0)) > 0:
            found[rule, fields["wildcards"].removeprefix("shard=")] = float(fields["priority"])
    return found


@pytest.mark.slow(15)
def test_dry_run_plans_a_job_for_every_declared_shard_and_resumed_ones_first(tmp_path, monkeypatch):
    """Every declared shard is a job; a shard whose interrupted run saved state comes before the fresh ones, the
    furthest along first (priority 1 + its CPU seconds so far)."""
    monkeypatch.setenv("LIB_CACHE_DIR", str(tmp_path / "cache"))
    evidence_set = registry.get(*SMOKE_SET)
    ids = evidence_set.shard_ids()
    for sid in ids[-2:]:  # saved state; the last one also with the clock of 100 CPU seconds
        (checkpoint_dir(evidence_set, sid, create=True) / "state.pt").write_bytes(b"")
    atomic_write_json(
        checkpoint_dir(evidence_set, ids[-1]) / CLOCK_FILE, {"wall_seconds": 150.0, "cpu_seconds": 100.0, "runs": 1}
    )
    atomic_write_json(
        checkpoint_dir(evidence_set, ids[0], create=True) / CLOCK_FILE,
        {"wall_seconds": 9.0, "cpu_seconds": 8.0, "runs": 1},
    )
    checkpoint_dir(evidence_set, ids[1], create=True)  # killed before its first save, and an empty folder: fresh
    out = snakemake(
        tmp_path,
        "--dry-run",
        "--forceall",
        "--cores",
        "1",
        "--config",
        "gpu=true",
        env={"LIB_CACHE_DIR": str(tmp_path / "cache")},
    )
    jobs = planned_jobs(out)
    for each in registry.all_sets():
        rule = f"{each.chapter}__{each.name}"
        assert jobs.get(rule) == len(each.shards), f"{rule}: {jobs.get(rule)}\n{out[-2000:]}"
    rule = f"{SMOKE_SET[0]}__{SMOKE_SET[1]}"
    assert prioritised_jobs(out) == {(rule, ids[-1]): 101.0, (rule, ids[-2]): 1.0}


@pytest.mark.slow(7)
def test_default_plan_leaves_gpu_sets_out(tmp_path):
    """The default workflow has no rule for a GPU set, so it plans no job of one (`--list-rules` reads the rules
    without building the plan of every shard)."""
    rules = set(snakemake(tmp_path, "--list-rules").split())
    gpu_rules = {f"{s.chapter}__{s.name}" for s in registry.all_sets() if s.gpu}
    assert gpu_rules and not gpu_rules & rules and f"{SMOKE_SET[0]}__{SMOKE_SET[1]}" in rules, rules
    assert registry.select("diffusion/paper") == [registry.get("diffusion", "paper")]  # named: taken as named


@pytest.mark.slow(20)
def test_smoke_shard_regenerates_as_stored(tmp_path):
    evidence_set = registry.get(*SMOKE_SET)
    sid = evidence_set.shard_ids("smoke")[0]
    target = shard_dir(evidence_set, sid, "smoke", tmp_path / "evidence") / PROVENANCE
    snakemake(
        tmp_path,
        "--cores",
        "1",
        "--config",
        f"sets={evidence_set.key}",
        "variant=smoke",
        f"root={tmp_path / 'evidence'}",
        "--",
        str(target),
    )
    assert target.is_file()
    problems = compare(*SMOKE_SET, "smoke", tmp_path / "evidence", shard_ids=[sid])
    assert problems == [], (
        f"{problems}: after a change of the code or declaration, regenerate and commit the "
        f"stored shards: make evidence SETS={evidence_set.key} VARIANT=smoke"
    )
