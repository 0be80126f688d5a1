#!/usr/bin/env bash
# The job array on a real scheduler: starts a single-node Slurm (Debian's slurmctld and slurmd, with
# munge) in a temporary folder with its own slurm.conf (loopback only, its own ports and munge
# socket), submits deploy/slurm-train.sh exactly as the README says on the bundled cohort (tiny
# population and generations, one horizon), and checks:
#   1. --array=0-2: every task COMPLETED, every patient trained exactly once, the models byte for byte
#      those of one unsharded run of the same binary, collect's table whole (exit 0);
#   2. resubmitting one index (--array=1): it reuses its models, nothing changes; an array of 4 ids
#      on the run split in 3 is refused (exit 64) before any work;
#   3. a 1-based array (--array=1-3) gives the same models; resubmitting --array=3 alone after
#      deleting one of its models retrains exactly that model, identically;
#   4. a failing patient (too few days), submitted from another folder with --bin: its task ends
#      FAILED with exit code 2 after training the others, an afterok collect job never runs,
#      and collect names the patient and exits 2;
#   5. submitted from a folder without a build: the checkout's script still finds the checkout's
#      binary; a copy outside any checkout fails with a message saying where it looked;
#   6. scontrol requeue of a running task (once it has a finished model and a checkpoint): the second
#      run keeps the finished models, its log is appended to, and the models are those of an
#      uninterrupted run (resuming from checkpoints is the trainer's, tested in the Swift suite).
# Every daemon it started is stopped on exit; the folder is removed unless a check failed (or
# GLUCOMODEL_SLURM_KEEP is set). Installs slurmctld, slurmd, slurm-client and munge with
# apt-get when they are missing (as root). Takes about a minute once the build exists.
#
# The binary: GLUCOMODEL_TRAIN, else the debug build `swift build` made (scripts/test.sh builds it
# first). The submissions run from a folder laid out like a checkout (deploy/slurm-train.sh, datasets/,
# .build/release/glucomodel-train linked to that binary) so the script finds it the way it would in
# a user's repository, through SLURM_SUBMIT_DIR, without a release build of its own.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
limit=${GLUCOMODEL_SLURM_WAIT:-300}   # seconds one array may take before the test gives up

say() { echo "test-slurm: $*"; }
fail() { echo "test-slurm: FAIL: $*" >&2; exit 1; }

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  say "installing slurmctld slurmd slurm-client munge"
  [ "$(id -u)" = 0 ] || fail "Slurm is not installed and this is not root: apt-get install slurmctld slurmd slurm-client munge"
  install() { DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends slurmctld slurmd slurm-client munge >/dev/null; }
  install || { apt-get update -q >/dev/null && install; } || fail "apt-get could not install Slurm"
fi

bin=${GLUCOMODEL_TRAIN:-$(swift build --show-bin-path)/glucomodel-train}
[ -x "$bin" ] || fail "no glucomodel-train at $bin: run swift build first (or set GLUCOMODEL_TRAIN)"
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

tmp=$(mktemp -d /tmp/glucomodel-slurm.XXXXXX)
pids=()
cleanup() {
  local status=$?
  if [ -f "$tmp/slurm.conf" ] && [ ${#pids[@]} -gt 0 ]; then
    SLURM_CONF=$tmp/slurm.conf scancel --quiet --user="$(id -un)" 2>/dev/null || true
  fi
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for _ in $(seq 50); do
    alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break
    sleep 0.2
  done
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  if [ $status != 0 ] || [ -n "${GLUCOMODEL_SLURM_KEEP:-}" ]; then
    say "logs kept in $tmp (slurmctld.log, slurmd.log, checkout/*.log)"
  else
    rm -rf "$tmp"
  fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# A TCP port nothing listens on at 127.0.0.1 (a connection to it is refused), other than $1.
free_port() {
  local p
  while :; do
    p=$((20000 + RANDOM % 20000))
    [ "$p" != "${1:-}" ] || continue
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
}
ctld_port=$(free_port)
slurmd_port=$(free_port "$ctld_port")

# --- munge with its own key and socket
dd if=/dev/urandom of="$tmp/munge.key" bs=1024 count=1 status=none
chmod 600 "$tmp/munge.key"
mkdir -m 700 "$tmp/munge"
munged --key-file="$tmp/munge.key" --socket="$tmp/munge/socket" --pid-file="$tmp/munge/pid" \
  --log-file="$tmp/munge/log" --seed-file="$tmp/munge/seed" --force --foreground > "$tmp/munge/out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$tmp/munge/socket" ] && break; sleep 0.1; done
[ -S "$tmp/munge/socket" ] || fail "munged did not start: $(cat "$tmp/munge/log" 2>/dev/null)"

# --- a single-node cluster: 6 CPUs declared on this machine (config_overrides) so the three
# 2-CPU tasks run at once, as they would on a cluster.
host=$(hostname -s)
memory=$(awk '/MemTotal/ { print int($2 / 1024) - 512 }' /proc/meminfo)
mkdir -p "$tmp/state" "$tmp/spool"
cat > "$tmp/slurm.conf" <<EOF
ClusterName=glucomodel-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$(id -un)
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge/socket
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MailProg=/bin/true
MpiDefault=none
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=3600
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$host NodeAddr=127.0.0.1 CPUs=6 RealMemory=$memory State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$tmp/slurm.conf
unset GLUCOMODEL_TRAIN GLUCOMODEL_SHARDS
slurmctld -D -c -f "$SLURM_CONF" > "$tmp/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$host" > "$tmp/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 150); do
  sinfo -h -o '%T' 2>/dev/null | grep -qE '^idle' && break
  sleep 0.2
done
sinfo -h -o '%T' 2>/dev/null | grep -qE '^idle' || fail "the node did not come up: $(tail -5 "$tmp/slurmctld.log" "$tmp/slurmd.log" 2>/dev/null)"
say "single-node Slurm $(sinfo -V | cut -d' ' -f2) up in $tmp"

# --- a folder laid out like the user's checkout
co=$tmp/checkout
mkdir -p "$co/deploy" "$co/.build/release"
cp deploy/slurm-train.sh "$co/deploy/"
cp -r datasets "$co/datasets"
ln -s "$bin" "$co/.build/release/glucomodel-train"
tiny=(--population 12 --generations 2 --horizons 30 --time-zone UTC)

# Waits for every task of job $1 to leave the queue; prints "task state exit" lines, sorted.
wait_job() {
  local deadline=$((SECONDS + limit))
  while squeue -h -j "$1" -t PENDING,RUNNING,CONFIGURING,COMPLETING,REQUEUED 2>/dev/null | grep -q .; do
    [ $SECONDS -lt $deadline ] || fail "job $1 still running after ${limit}s"
    sleep 1
  done
  scontrol -o show job "$1" | sed -E 's/.*ArrayTaskId=([0-9]+).* JobState=([A-Z_]+).* ExitCode=([0-9]+):.*/\1 \2 \3/' | sort -n
}
submit() { (cd "$1" && shift && sbatch --parsable "$@"); }
models_digest() { (cd "$1/models" && find . -name '*.json' -print0 | sort -z | xargs -0 sha256sum); }

# 1. The README's command (with tiny settings), 0-based.
out1=$tmp/run1
job=$(submit "$co" --array=0-2 deploy/slurm-train.sh datasets "$out1" "${tiny[@]}")
states=$(wait_job "$job")
[ "$states" = $'0 COMPLETED 0\n1 COMPLETED 0\n2 COMPLETED 0' ] || fail "array 0-2: $states"
for i in 0 1 2; do [ -s "$co/glucomodel-train-${job}_$i.log" ] || fail "no log glucomodel-train-${job}_$i.log"; done
trained=$(cat "$co"/glucomodel-train-"${job}"_*.log | awk '/^Models: trained [0-9]+, reused 0, failed 0\./ { n += $3 } END { print n + 0 }')
[ "$trained" = 6 ] || fail "the three tasks trained $trained models, not 6 (one per patient)"
patients=$(grep -ho '"[a-z]*_00[0-9]"' "$out1"/shards/*-of-3.json | sort)
[ "$(echo "$patients" | uniq | wc -l)" = 6 ] && [ "$(echo "$patients" | wc -l)" = 6 ] || fail "shards' patients: $patients"
"$bin" train datasets --out "$tmp/reference" "${tiny[@]}" --threads 2 > "$tmp/reference.log" 2>&1
diff <(models_digest "$tmp/reference") <(models_digest "$out1") > /dev/null || fail "array models differ from an unsharded run's"
"$bin" collect --out "$out1" > "$tmp/collect1.txt" || fail "collect exit $? on a complete run"
# Every patient has rows; a patient whose test days are all at the sensor's floor has no test rows
# (not scored), so collect's table counts the patients scored on test days.
[ "$(cut -d, -f1 "$out1/results.csv" | tail -n +2 | sort -u | wc -l)" = 6 ] || fail "results.csv: not every patient has rows"
scored=$(awk -F, '$2 == 30 && $4 == "test" { print $1 }' "$out1/results.csv" | sort -u | wc -l)
grep -Eq "^30 min .* $scored *\$" "$tmp/collect1.txt" || fail "collect's table (expected $scored patients scored): $(cat "$tmp/collect1.txt")"
say "array 0-2: 3 tasks COMPLETED, 6 patients trained once, models = unsharded run's, collect 0"

# 2. Resubmit one index: it finds its shard's models and changes nothing.
before=$(models_digest "$out1"; sha256sum < "$out1/results.csv")
job=$(submit "$co" --array=1 deploy/slurm-train.sh datasets "$out1" "${tiny[@]}")
[ "$(wait_job "$job")" = "1 COMPLETED 0" ] || fail "resubmitted index 1 did not complete"
grep -q '^Shard 1/3: 2 of 6 patients' "$co/glucomodel-train-${job}_1.log" || fail "resubmitted index 1 is not shard 1/3"
grep -q '^Models: trained 0, reused 2, failed 0' "$co/glucomodel-train-${job}_1.log" || fail "resubmitted index 1 trained again"
[ "$before" = "$(models_digest "$out1"; sha256sum < "$out1/results.csv")" ] || fail "resubmitting index 1 changed the output"
say "resubmitted --array=1: shard 1/3, reused its 2 models, nothing changed"
# An array spanning more ids than the recorded 3 shards would train a shard twice: refused, no work.
job=$(submit "$co" --array=0-3 deploy/slurm-train.sh datasets "$out1" "${tiny[@]}")
states=$(wait_job "$job")
[ "$states" = $'0 FAILED 64\n1 FAILED 64\n2 FAILED 64\n3 FAILED 64' ] || fail "array 0-3 on 3 recorded shards: $states"
grep -q 'span 4 numbers but the cohort is split into 3 shards' "$co/glucomodel-train-${job}_3.log" || fail "no message: $(cat "$co/glucomodel-train-${job}_3.log")"
[ "$before" = "$(models_digest "$out1"; sha256sum < "$out1/results.csv")" ] || fail "a refused array changed the output"
say "--array=0-3 on a run split in 3: every task refused (exit 64) before any work"

# 3. A 1-based array, then one index alone after losing one of its models.
out2=$tmp/run2
job=$(submit "$co" --array=1-3 deploy/slurm-train.sh datasets "$out2" "${tiny[@]}")
states=$(wait_job "$job")
[ "$states" = $'1 COMPLETED 0\n2 COMPLETED 0\n3 COMPLETED 0' ] || fail "array 1-3: $states"
diff <(models_digest "$out1") <(models_digest "$out2") > /dev/null || fail "1-based array's models differ"
lost=$(grep -ho '"[a-z]*_00[0-9]"' "$out2/shards/0-of-3.json" | head -1 | tr -d '"')
rm "$out2/models/$lost/h030.json"
job=$(submit "$co" --array=3 deploy/slurm-train.sh datasets "$out2" "${tiny[@]}")
[ "$(wait_job "$job")" = "3 COMPLETED 0" ] || fail "resubmitted index 3 did not complete"
grep -q '^Shard 0/3: 2 of 6 patients' "$co/glucomodel-train-${job}_3.log" || fail "index 3 is not shard 0/3"
grep -q '^Models: trained 1, reused 1, failed 0' "$co/glucomodel-train-${job}_3.log" || fail "index 3 did not retrain just $lost"
diff <(models_digest "$out1") <(models_digest "$out2") > /dev/null || fail "retrained model differs"
"$bin" collect --out "$out2" > /dev/null || fail "collect on the 1-based run: exit $?"
say "array 1-3: same models; --array=3 alone is shard 0/3 and retrained only $lost"

# 4. A failing patient, submitted from another folder with --bin: exit 2, afterok never runs.
elsewhere=$tmp/elsewhere
mkdir -p "$elsewhere/data"
cp datasets/*.xml "$elsewhere/data/"
{
  echo "patient,time,event,value,unit"
  for m in $(seq 0 5 1435); do printf 'short_001,2026-01-05T%02d:%02d:00Z,glucose,%d,mg/dL\n' $((m / 60)) $((m % 60)) $((110 + m % 40)); done
} > "$elsewhere/data/short_001.csv"
out3=$tmp/run3
job=$(submit "$elsewhere" --array=0-2 "$co/deploy/slurm-train.sh" --bin "$bin" data "$out3" "${tiny[@]}")
after=$(submit "$elsewhere" --dependency=afterok:"$job" --output=collect-%j.log --wrap "'$bin' collect --out '$out3'")
states=$(wait_job "$job")
failed=$(grep -l '^error: short_001' "$elsewhere"/glucomodel-train-"${job}"_*.log | sed -E 's/.*_([0-9]+)\.log/\1/')
[ -n "$failed" ] || fail "no task reported short_001"
expected=$(for i in 0 1 2; do [ "$i" = "$failed" ] && echo "$i FAILED 2" || echo "$i COMPLETED 0"; done)
[ "$states" = "$expected" ] || fail "with a failing patient: $states (expected task $failed FAILED 2)"
grep -q '^Models: trained 2, reused 0, failed 1' "$elsewhere/glucomodel-train-${job}_$failed.log" || fail "the failing task did not finish its other patients"
sleep 2
reason=$(squeue -h -j "$after" -o '%T %r')
[ "$reason" = "PENDING DependencyNeverSatisfied" ] || fail "afterok collect job: '$reason'"
[ ! -e "$elsewhere/collect-$after.log" ] || fail "the afterok collect job ran"
scancel "$after"
status=0; "$bin" collect --out "$out3" > /dev/null 2> "$tmp/collect3.err" || status=$?
[ $status = 2 ] || fail "collect with a failed patient: exit $status, expected 2"
grep -q 'missing: short_001 at 30 min' "$tmp/collect3.err" || fail "collect does not name short_001: $(cat "$tmp/collect3.err")"
say "failing patient: task $failed FAILED with exit 2 after training its 2 others, afterok collect never ran, collect exit 2 names it"

# 5. Submitted from a folder without a build: the script, named by its path in the checkout, finds the
# checkout's binary (the trainer then refuses the missing data folder); a copy of the script
# outside any checkout fails with a message saying where it looked.
mkdir -p "$tmp/nobuild" "$tmp/loose"
job=$(submit "$tmp/nobuild" --array=0 "$co/deploy/slurm-train.sh" no-such-data "$tmp/run4")
[[ "$(wait_job "$job")" == "0 FAILED "* ]] || fail "the checkout's script submitted from elsewhere: $(cat "$tmp/nobuild/glucomodel-train-${job}_0.log")"
grep -q "no-such-data: .*no such file or folder" "$tmp/nobuild/glucomodel-train-${job}_0.log" \
  || fail "no trainer message: $(cat "$tmp/nobuild/glucomodel-train-${job}_0.log")"
cp deploy/slurm-train.sh "$tmp/loose/"
job=$(submit "$tmp/nobuild" --array=0 "$tmp/loose/slurm-train.sh" data "$tmp/run4")
[ "$(wait_job "$job")" = "0 FAILED 1" ] || fail "a task without a binary did not fail with exit 1"
grep -q 'glucomodel-train not found' "$tmp/nobuild/glucomodel-train-${job}_0.log" || fail "no clear message: $(cat "$tmp/nobuild/glucomodel-train-${job}_0.log")"
say "submitted from elsewhere: the checkout's binary is found; with none to find, the task says where it looked"
# 6. Requeue a running task: it resumes (finished models kept, the unfinished ones from their
# checkpoints), appends to its log, and ends with the models of an uninterrupted run.
out5=$tmp/run5
longer=(--population 100 --generations 80 --horizons 30 --time-zone UTC)
job=$(submit "$co" --array=0 deploy/slurm-train.sh --shards 1 datasets "$out5" "${longer[@]}")
deadline=$((SECONDS + limit))
until compgen -G "$out5/checkpoints/*.json" > /dev/null && compgen -G "$out5/models/*/h030.json" > /dev/null; do
  [ $SECONDS -lt $deadline ] || fail "no checkpoint and finished model to requeue with after ${limit}s"
  squeue -h -j "$job" | grep -q . || fail "the task ended before it could be requeued (make it longer)"
  sleep 0.2
done
scontrol requeue "${job}_0"
# Slurm holds a requeued job back for about two minutes (its begin time); once it is pending again,
# let it start in a few seconds instead (not at once: slurmd refuses, for the second of the requeue,
# every credential of the job, and a start within it fails with "Job credential revoked").
for _ in $(seq 100); do [ "$(squeue -h -j "${job}_0" -o %T)" = PENDING ] && break; sleep 0.2; done
scontrol update JobId="${job}_0" StartTime=now+3 || true
[ "$(wait_job "$job")" = "0 COMPLETED 0" ] || fail "the requeued task did not complete"
log=$co/glucomodel-train-${job}_0.log
grep -q 'restart 0,' "$log" && grep -q 'restart 1,' "$log" || fail "the log of the requeued task was not appended to: $(cat "$log")"
grep -Eq '^Models: trained [1-5], reused [1-5], failed 0' "$log" || fail "the requeued task did not resume: $(grep '^Models:' "$log")"
"$bin" train datasets --out "$tmp/reference5" "${longer[@]}" --threads 2 > "$tmp/reference5.log" 2>&1
diff <(models_digest "$tmp/reference5") <(models_digest "$out5") > /dev/null || fail "models after requeue differ from an uninterrupted run's"
say "requeued while running: finished models kept ($(grep '^Models:' "$log" | tail -1 | cut -d. -f1)), log appended, models = uninterrupted run's"
say "all Slurm checks passed"
