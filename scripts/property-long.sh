#!/usr/bin/env bash
# Runs the property tests (Tests/ModelTests/PropertyTests.swift) with a large budget: N cases shared by
# the kinds (numbers, ids, model files, settings, grammars, dose, training) by weight, from SEED.
# Usage: scripts/property-long.sh [N] [SEED]
# Every case ends in a result or a clear error; a failure prints its kind, case number and input. A trap
# kills the test process: the script then prints the case that was running (replay it with the same
# N and SEED).
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-100000}"
SEED="${2:-1}"
swift build --build-tests
start=$(date +%s)
log=$(mktemp)
trace=$(mktemp)
trap 'rm -f "$log" "$trace" "$trace".*' EXIT
status=0
GLUCOMODEL_PROPERTY_CASES="$N" GLUCOMODEL_PROPERTY_SEED="$SEED" GLUCOMODEL_PROPERTY_TRACE="$trace" \
    swift test --skip-build --filter PropertyTests >"$log" 2>&1 || status=$?
grep -E "^property |✘|passed after|failed|recorded|crashed|Fatal error" "$log" | cut -c1-2000 || tail -20 "$log"
if grep -qE "crashed|signal code" "$log"; then
    echo "TRAP; the cases running (the stack trace above names the kind):"; cat "$trace".* 2>/dev/null || echo "(no case was running)"
fi
# No kind reported (a trap before any): 0 cases, said, not a silent end.
total=$( (grep -E "^property " "$log" || true) | sed -E 's/^property [a-zA-Z]+: ([0-9]+) cases.*/\1/' | paste -sd+ - | bc)
echo "cases in all: ${total:-0}; wall time: $(( $(date +%s) - start )) s"
exit "$status"
