#!/usr/bin/env bash
# Runs deploy/slurm-train.sh as a job array would, on this machine: N tasks at once with
# SLURM_ARRAY_TASK_ID set, then `collect`. A check that the array script and the shards work.
#   deploy/run-array-locally.sh [N] [DATA] [OUT] [extra trainer options...]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-3}; data=${2:-datasets}; out=${3:-out/array}
shift $(( $# < 3 ? $# : 3 ))
bin=.build/release/glucomodel-train
[ -x "$bin" ] || swift build -c release --product glucomodel-train
pids=()
for ((i = 0; i < n; i++)); do
  SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_COUNT=$n SLURM_CPUS_PER_TASK=1 GLUCOMODEL_TRAIN=$bin \
    bash deploy/slurm-train.sh "$data" "$out" "$@" > "$out.task$i.log" 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
"$bin" collect --out "$out"
