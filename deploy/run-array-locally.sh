#!/usr/bin/env bash
# Runs deploy/slurm-train.sh as a Slurm job array would, on this machine, then `collect`: N tasks at
# once with the SLURM_ARRAY_* variables set, each running a copy of the script from a spool-like
# temporary folder with SLURM_SUBMIT_DIR set to this repository (so the binary is found the way
# sbatch makes it be found). A check of the array script and the shards without a scheduler;
# scripts/test-slurm.sh runs the real thing on a single-node Slurm.
#   deploy/run-array-locally.sh [N] [DATA] [OUT] [extra trainer options...]
# Exit status: collect's (0 complete, 2 something missing), or 1 when a task failed.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
n=${1:-3}; data=${2:-datasets}; out=${3:-out/array}
shift $(( $# < 3 ? $# : 3 ))
bin=.build/release/glucomodel-train
[ -x .build-portable/release/glucomodel-train ] && bin=.build-portable/release/glucomodel-train
[ -x "$bin" ] || [ -x .build-portable/release/glucomodel-train ] || swift build -c release --product glucomodel-train
spool=$(mktemp -d)
trap 'rm -rf "$spool"' EXIT
cp deploy/slurm-train.sh "$spool/slurm_script"
mkdir -p "$(dirname "$out")"
pids=()
for ((i = 0; i < n; i++)); do
  (cd "$repo" && env -u GLUCOMODEL_TRAIN SLURM_SUBMIT_DIR="$repo" SLURM_ARRAY_JOB_ID=local SLURM_ARRAY_TASK_ID=$i \
    SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=$((n - 1)) SLURM_ARRAY_TASK_COUNT=$n SLURM_CPUS_PER_TASK=1 \
    bash "$spool/slurm_script" "$data" "$out" "$@") > "$out.task$i.log" 2>&1 &
  pids+=($!)
done
failed=0
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then echo "task $i failed: see $out.task$i.log" >&2; failed=1; fi
done
"$bin" collect --out "$out" || exit $?
exit $failed
