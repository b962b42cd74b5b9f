#!/usr/bin/env bash
# Shards of one evidence set computed side by side without Snakemake, one process per shard, for a machine
# that has the book's Python packages but not the workflow's (a rented GPU box, say). With a GPU, under CUDA's
# MPS where it starts, so that small models share the card: 16 shards of diffusion/registered_gpu took 421 to
# 466 s each, side by side on one H100, about 16 times the throughput of the gpu profile's one at a time.
# Each process is stopped after LIMIT seconds (its checkpoint stays in LIB_CACHE_DIR for a rerun); finished
# shards land under OUTPUT/CHAPTER/SET/ with their provenance, to be copied into data/evidence and committed.
#
# usage: workflow/side_by_side.sh CHAPTER/SET LIMIT_SECONDS OUTPUT SHARD_ID...
#   e.g. workflow/side_by_side.sh diffusion/registered_gpu 560 /tmp/ev contrast-0.2__seed-24 contrast-0.7__seed-24
set -uo pipefail
if [ $# -lt 4 ]; then
  sed -n 's/^# \{0,1\}//p' "$0" | sed -n '2,10p' >&2
  exit 2
fi
chapter=${1%%/*} set=${1#*/} limit=$2 output=$3
shift 3
cd "$(dirname "$0")/.."
export PYTHONPATH=$PWD OMP_NUM_THREADS=1 PYTHONUNBUFFERED=1
python=${PYTHON:-python3}
if command -v nvidia-smi > /dev/null; then
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
  nvidia-cuda-mps-control -d 2> /dev/null && echo "MPS started"
fi
mkdir -p "$output/logs"
start=$SECONDS
for shard in "$@"; do
  timeout "$limit" "$python" -m lib evidence shard "$chapter" "$set" "$shard" --gpu --root "$output" \
    > "$output/logs/$shard.log" 2>&1 &
done
wait
echo "$# shards started, $(find "$output/$chapter/$set" -name provenance.json 2> /dev/null | wc -l) stored, $((SECONDS - start)) s"
for shard in "$@"; do
  [ -f "$output/$chapter/$set/$shard/provenance.json" ] || { echo "not finished: $shard"; tail -3 "$output/logs/$shard.log"; }
done
