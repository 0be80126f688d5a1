#!/usr/bin/env bash
# Runs the importer fuzz harness (all six importers; every 10th case also through the store) (Tests/ModelTests/FuzzImportTests.swift) with a large budget.
# Usage: scripts/fuzz-long.sh [cases-per-importer] [seconds-per-importer] [seed]
# Each importer gets up to CASES cases or SECONDS seconds, whichever ends first; the seed makes a run
# replayable (case N of a seed is always the same input). Failures print the case number and input.
set -euo pipefail
cd "$(dirname "$0")/.."
CASES="${1:-100000}"
SECONDS_PER="${2:-600}"
SEED="${3:-}"
swift build --build-tests
start=$(date +%s)
log=$(mktemp)
status=0
# `env` so that the optional seed assignment, which comes from an expansion, is still an assignment.
env GLUCOMODEL_FUZZ_CASES="$CASES" GLUCOMODEL_FUZZ_SECONDS="$SECONDS_PER" ${SEED:+GLUCOMODEL_FUZZ_SEED="$SEED"} \
    swift test --skip-build --filter FuzzImportTests >"$log" 2>&1 || status=$?
grep -E "^fuzz |✘|passed after|failed|recorded|crashed" "$log" || tail -20 "$log"
rm -f "$log"
echo "wall time: $(( $(date +%s) - start )) s"
exit "$status"
