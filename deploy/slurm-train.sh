#!/usr/bin/env bash
# Train a large cohort as a Slurm job array: each array task trains one shard of the
# patients (every n-th patient, by sorted id), all writing to the same shared --out folder.
#
#   sbatch --array=0-15 deploy/slurm-train.sh /shared/exports /shared/glucomodel-run
#   # when the array is done (e.g. sbatch --dependency=afterok:<array job id>):
#   .build/release/glucomodel-train collect --out /shared/glucomodel-run
#
# Build on a node of the partition that runs the job: a release build targets the build machine's
# CPU (like -march=native). For a mixed cluster build once with
# `GLUCOMODEL_PORTABLE=1 swift build -c release --scratch-path .build-portable` and set
# GLUCOMODEL_TRAIN=.build-portable/release/glucomodel-train.
#
# A task that is killed (time limit, pre-emption) can simply be requeued: finished models are
# kept and the unfinished one resumes from its checkpoint.
#SBATCH --job-name=glucomodel-train
#SBATCH --cpus-per-task=2
#SBATCH --mem=4G
#SBATCH --time=02:00:00
#SBATCH --requeue
set -euo pipefail

data=${1:?usage: slurm-train.sh DATA_FOLDER OUT_FOLDER}
out=${2:?usage: slurm-train.sh DATA_FOLDER OUT_FOLDER}
index=${SLURM_ARRAY_TASK_ID:?run as a Slurm array job (sbatch --array=0-N)}
# SLURM_ARRAY_TASK_COUNT is the number of tasks; arrays that start at 0 use max+1.
count=${SLURM_ARRAY_TASK_COUNT:-$(( ${SLURM_ARRAY_TASK_MAX:-0} + 1 ))}
bin=${GLUCOMODEL_TRAIN:-$(dirname "$0")/../.build/release/glucomodel-train}

exec "$bin" "$data" --out "$out" --shard "$index/$count" --threads "${SLURM_CPUS_PER_TASK:-2}" "${@:3}"
