#!/usr/bin/env bash
# Train a large cohort as a Slurm job array: each array task trains one shard of the patients,
# all writing to the same shared OUT folder. Submit it from the repository where you built:
#
#   sbatch --array=0-15 deploy/slurm-train.sh /shared/exports /shared/run
#   sbatch --dependency=afterok:<array job id> --wrap '.build/release/glucomodel-train collect --out /shared/run'
#
#   deploy/slurm-train.sh [--shards N] [--bin PATH] DATA OUT [glucomodel-train options...]
#
# Shards: task id T trains shard (T mod N) of N. Without --shards (or GLUCOMODEL_SHARDS), N is the
# count recorded in OUT/shards/count by the first task, else the size of this array (its ids must
# be consecutive). So --array=0-15 and --array=1-16 give the same 16 shards, and resubmitting any
# ids later (--array=3, --array=3,7) retrains exactly those shards of the recorded split. An array
# whose ids span more numbers than N (it would train a shard twice) or an N other than the recorded
# one is refused before any work. Each task reads only the files of its own patients.
#
# The binary: --bin PATH or GLUCOMODEL_TRAIN, else in the submit directory (SLURM_SUBMIT_DIR; sbatch
# runs a copy of this script from slurmd's spool, so the script's own path says nothing)
# .build-portable/release/glucomodel-train, then .build/release/glucomodel-train, else the same in
# the repository of the script as submitted (`scontrol show job`'s Command), else glucomodel-train
# on PATH.
#
# Exit status of a task: 0 all its patients trained; 2 some failed (after finishing the others);
# 1 none could; 64 a usage error (bad shard count, array). Slurm's afterok runs only after all 0.
# A killed or pre-empted task can be requeued (scontrol requeue): finished models are kept and the
# unfinished ones resume from their checkpoints; the log is appended to. See docs/deploy.md.
#SBATCH --job-name=glucomodel-train
#SBATCH --cpus-per-task=2
#SBATCH --mem=4G
#SBATCH --time=02:00:00
#SBATCH --requeue
#SBATCH --output=glucomodel-train-%A_%a.log
#SBATCH --open-mode=append
set -euo pipefail
# OpenBLAS's own threads spin for ever at start-up under an address-space limit (docs/deploy.md);
# the trainer runs its own threads and calls BLAS on small problems.
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}

usage="usage: sbatch --array=0-N deploy/slurm-train.sh [--shards N] [--bin PATH] DATA OUT [trainer options...]"
shards=${GLUCOMODEL_SHARDS:-auto}
bin=${GLUCOMODEL_TRAIN:-}
while (($#)); do
  case $1 in
    --shards) shards=${2:?$usage}; shift 2 ;;
    --shards=*) shards=${1#*=}; shift ;;
    --bin) bin=${2:?$usage}; shift 2 ;;
    --bin=*) bin=${1#*=}; shift ;;
    --) shift; break ;;
    -*) echo "slurm-train.sh: unknown option $1 (trainer options go after DATA OUT); $usage" >&2; exit 64 ;;
    *) break ;;
  esac
done
(($# >= 2)) || { echo "slurm-train.sh: $usage" >&2; exit 64; }
data=$1 out=$2
shift 2
if [ -z "${SLURM_ARRAY_TASK_ID:-}" ]; then
  echo "slurm-train.sh: SLURM_ARRAY_TASK_ID is not set: submit it as a job array (sbatch --array=0-N ...)" >&2
  exit 64
fi

# The repository this script is in: where it runs in place, or where it was submitted from
# (slurmd runs a copy from its spool; the controller still knows the path given to sbatch).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." 2>/dev/null && pwd || true)
if [ -n "${SLURM_JOB_ID:-}" ] && command -v scontrol >/dev/null; then
  submitted=$(scontrol show job "$SLURM_JOB_ID" 2>/dev/null | sed -n 's/^ *Command=//p' | head -n 1 || true)
  [ -f "$submitted" ] || submitted=${submitted%% *}
  if [ -f "$submitted" ]; then here=$(cd "$(dirname "$submitted")/.." 2>/dev/null && pwd || echo "$here"); fi
fi
tried=()
if [ -n "$bin" ]; then
  tried+=("$bin (--bin / GLUCOMODEL_TRAIN)")
  [ -x "$bin" ] || bin=
else
  for root in "${SLURM_SUBMIT_DIR:-}" "$here"; do
    [ -n "$root" ] || continue
    for b in "$root/.build-portable/release/glucomodel-train" "$root/.build/release/glucomodel-train"; do
      tried+=("$b")
      if [ -z "$bin" ] && [ -x "$b" ]; then bin=$b; fi
    done
  done
  if [ -z "$bin" ]; then
    tried+=("glucomodel-train on PATH")
    bin=$(command -v glucomodel-train || true)
  fi
fi
if [ -z "$bin" ]; then
  {
    echo "slurm-train.sh: glucomodel-train not found (task ${SLURM_ARRAY_JOB_ID:-?}_${SLURM_ARRAY_TASK_ID} on $(hostname)). Tried:"
    printf '  %s\n' "${tried[@]}"
    echo "Submit from the repository where you ran 'swift build -c release' (see docs/deploy.md),"
    echo "or name the binary: sbatch --array=... deploy/slurm-train.sh --bin /path/to/glucomodel-train DATA OUT"
  } >&2
  exit 1
fi

echo "slurm-train.sh: task ${SLURM_ARRAY_JOB_ID:-?}_${SLURM_ARRAY_TASK_ID} on $(hostname)," \
  "restart ${SLURM_RESTART_COUNT:-0}, $(date -u +%FT%TZ): $bin" >&2
exec "$bin" train "$data" --out "$out" --shards "$shards" --threads "${SLURM_CPUS_PER_TASK:-2}" "$@"
