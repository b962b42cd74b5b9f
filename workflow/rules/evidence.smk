# One rule per evidence set (named CHAPTER__SET), one job per shard; ALL_OUTPUTS: every shard's files.
import re
import shlex

import lib.book.chapters  # the chapter declarations register their evidence sets
from lib.book.evidence import registry
from lib.book.evidence.run import resume_priority
from lib.book.evidence.store import ARRAYS, PROVENANCE, shard_dir

VARIANT = config.get("variant", "full")
OUT = Path(config.get("root") or ROOT / "data" / "evidence").resolve()
GPU = bool(config.get("gpu", False))
PYTHON = sys.executable
SETS = registry.select(config.get("sets", "all"), gpu=GPU)  # "all" leaves GPU sets out unless gpu=true


def rule_name(evidence_set):
    return f"{evidence_set.chapter}__{evidence_set.name}"


def shard_outputs(evidence_set, sid):
    directory = shard_dir(evidence_set, sid, VARIANT, OUT)
    return [str(directory / ARRAYS), str(directory / PROVENANCE)]


def resumed_first(evidence_set):
    """A job's priority: 0 for a fresh shard, more for one whose interrupted run saved state, the more the further
    it got (`resume_priority`). Stopped and restarted (a session's end, a kill), the workflow finishes the shards
    it had begun before it starts others, instead of leaving more half-computed shards behind at every stop."""
    return lambda wildcards: resume_priority(evidence_set, wildcards.shard, VARIANT)


ALL_OUTPUTS = [path for s in SETS for sid in s.shard_ids(VARIANT) for path in shard_outputs(s, sid)]


for _set in SETS:
    _dir = shard_dir(_set, "{shard}", VARIANT, OUT)

    rule:
        name: rule_name(_set)
        output:
            arrays=str(_dir / ARRAYS),
            provenance=str(_dir / PROVENANCE),
        wildcard_constraints:
            shard="|".join(re.escape(sid) for sid in _set.shard_ids(VARIANT)),
        threads: _set.threads
        priority: resumed_first(_set)
        resources:
            runtime=max(5, int(3 * _set.minutes) + 5) if VARIANT == "full" else 10,
            mem_mb=_set.mem_mb,
            **({"gpu": 1} if GPU and _set.gpu else {}),
        params:
            command=shlex.join([PYTHON, "-m", "lib", "evidence", "shard", _set.chapter, _set.name,
                                "--root", str(OUT), *(["--smoke"] if VARIANT == "smoke" else []),
                                *(["--gpu"] if GPU else [])]),
        shell:
            "cd {ROOT:q} && OMP_NUM_THREADS={threads} OPENBLAS_NUM_THREADS={threads} MKL_NUM_THREADS={threads} "
            "{params.command} --threads {threads} {wildcards.shard:q}"
