#!/usr/bin/env bash
# make test-cluster: bring up a single-node SLURM on this machine (Debian packages munge, slurmctld,
# slurmd; no systemd, no accounting), run the smoke shards of one evidence set through the SLURM
# profile into a temporary folder, compare them with the stored smoke shards, stop the daemons.
# Needs root (apt-get, daemons). Not part of `make test`.
#   tests/cluster/run.sh [CHAPTER/SET]        (default two_layer/swing_by_d)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SET=${1:-two_layer/swing_by_d}
PY=$ROOT/.venv/bin/python
SNAKEMAKE=$ROOT/.venv/bin/snakemake
WORK=$(mktemp -d /tmp/evidence-cluster.XXXXXX)
chmod 755 "$WORK"
STATE=$WORK/slurm
# The job step's srun drops SLURM_* variables (SLURM_CONF too) and reads the compiled-in default,
# so the configuration goes there, marked as ours; an existing configuration is never overwritten.
export SLURM_CONF=/etc/slurm/slurm.conf
MARK="# written by tests/cluster/run.sh"

[[ $(id -u) == 0 ]] || { echo "test-cluster: needs root (apt-get and the SLURM daemons)" >&2; exit 2; }
if [[ -f $SLURM_CONF ]] && ! head -1 "$SLURM_CONF" | grep -qF "$MARK"; then
    echo "test-cluster: $SLURM_CONF exists and was not written by this script; refusing to replace it" >&2; exit 2
fi

# ---- packages -------------------------------------------------------------------------------
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
    echo "test-cluster: installing slurmctld slurmd munge (apt-get)"
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends slurmctld slurmd munge
fi

# ---- daemons ----------------------------------------------------------------------------------
stop() {
    [[ -f $STATE/slurmctld.pid ]] && kill "$(cat "$STATE/slurmctld.pid")" 2>/dev/null || true
    [[ -f $STATE/slurmd.pid ]] && kill "$(cat "$STATE/slurmd.pid")" 2>/dev/null || true
    [[ -f $WORK/munge/munged.pid ]] && kill "$(cat "$WORK/munge/munged.pid")" 2>/dev/null || true
    sleep 1
    head -1 "$SLURM_CONF" 2>/dev/null | grep -qF "$MARK" && rm -f "$SLURM_CONF"
    rm -rf "$WORK"
}
trap stop EXIT

mkdir -p "$STATE/ctld" "$STATE/slurmd" "$WORK/munge"
NODE=$(hostname -s)
MEMORY=$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
free_port() { "$PY" -c 'import socket; s = socket.socket(); s.bind(("", 0)); print(s.getsockname()[1])'; }
mkdir -p "$(dirname "$SLURM_CONF")"
{ echo "$MARK"; sed -e "s|@NODE@|$NODE|g" -e "s|@CPUS@|$(nproc)|g" -e "s|@MEMORY@|$MEMORY|g" -e "s|@STATE@|$STATE|g" \
    -e "s|@CTLD_PORT@|$(free_port)|g" -e "s|@SLURMD_PORT@|$(free_port)|g" \
    "$ROOT/tests/cluster/slurm.conf.in"; } > "$SLURM_CONF"

# munge: a key of its own if the package made none, a private socket so a system munged is left alone
[[ -f /etc/munge/munge.key ]] || { dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null
                                   chown munge:munge /etc/munge/munge.key; chmod 400 /etc/munge/munge.key; }
chown munge:munge "$WORK/munge"
SOCKET=$WORK/munge/munge.socket.2
runuser -u munge -- /usr/sbin/munged --socket="$SOCKET" --pid-file="$WORK/munge/munged.pid" \
    --log-file="$WORK/munge/munged.log" --seed-file="$WORK/munge/munged.seed"
# slurm reads the socket from AuthInfo
sed -i "s|^AuthType=auth/munge|AuthType=auth/munge\nAuthInfo=socket=$SOCKET|" "$SLURM_CONF"

slurmctld -f "$SLURM_CONF" -i          # -i: ignore state of an earlier run
slurmd -f "$SLURM_CONF"
echo "test-cluster: waiting for node $NODE"
for _ in $(seq 60); do
    sinfo -h -n "$NODE" -o %t 2>/dev/null | grep -qE '^(idle|mix|alloc)' && break
    sleep 1
done
sinfo -h -n "$NODE" -o %t | grep -qE '^(idle|mix|alloc)' || { echo "test-cluster: node not up"; sinfo; tail "$STATE"/*.log; exit 1; }
sinfo

# ---- one smoke set through the SLURM profile, then compare with the stored shards -------------------
OUT=$WORK/evidence
cd "$WORK"                                   # snakemake's .snakemake/ lands here, not in the repository
"$SNAKEMAKE" --snakefile "$ROOT/workflow/Snakefile" --profile "$ROOT/workflow/profiles/slurm" \
    --config "sets=$SET" variant=smoke "root=$OUT" --jobs 4
squeue --all
cd "$ROOT"
"$PY" -m lib evidence compare "${SET%%/*}" "${SET#*/}" --smoke --root "$OUT"
grep -h '"host"\|"wall_seconds"' "$OUT"/*/*/smoke/*/provenance.json | sort | uniq -c
echo "test-cluster: passed"
