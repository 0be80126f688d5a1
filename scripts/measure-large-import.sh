#!/usr/bin/env bash
# Generates a ~100 MB Dexcom Clarity CSV and a ~100 MB Nightscout JSON, imports each in a release
# build and reports throughput (MB/s, printed by the test) and peak RSS (/usr/bin/time -v).
# (-enable-testing because other test targets use @testable.)
# The import runs in ExportLargeImportTests, which does nothing unless GLUCOMODEL_LARGE_IMPORT names a file.
# With --parse-only it also writes ~MB-sized LibreView CSV, Tidepool JSON and GlucoModel log CSV files
# and prints, per format, the best of GLUCOMODEL_PARSE_REPEAT (default 3) in-memory imports (no store) as
# MB/s and rows/s (ImportParseSpeedTests).
# Built with -g so `perf record` can be run on the same binary.
# Usage: scripts/measure-large-import.sh [--parse-only] [size-MB]
set -euo pipefail
cd "$(dirname "$0")/.."
PARSE_ONLY=0
if [ "${1:-}" = "--parse-only" ]; then PARSE_ONLY=1; shift; fi
MB="${1:-100}"
# GLUCOMODEL_MEASURE_DIR=dir keeps the generated files there (reused when present, e.g. for perf).
if [ -n "${GLUCOMODEL_MEASURE_DIR:-}" ]; then
    DIR="$GLUCOMODEL_MEASURE_DIR"; mkdir -p "$DIR"
else
    DIR="$(mktemp -d)"; trap 'rm -rf "$DIR"' EXIT
fi
if [ ! -s "$DIR/large_dexcom.csv" ] || { [ "$PARSE_ONLY" = 1 ] && [ ! -s "$DIR/large_mapped.csv" ]; }; then
    formats=(dexcom nightscout)
    [ "$PARSE_ONLY" = 1 ] && formats+=(libre tidepool log mapped)
    python3 scripts/generate-large-exports.py "$DIR" "$MB" "${formats[@]}"
fi
ls -l "$DIR"
FLAGS=(-c release -Xswiftc -enable-testing -Xswiftc -g)
swift build "${FLAGS[@]}" --build-tests
if [ "$PARSE_ONLY" = 1 ]; then
    files=$(ls "$DIR"/large_* | paste -sd: -)
    GLUCOMODEL_PARSE_SPEED="$files" swift test "${FLAGS[@]}" --skip-build --filter ImportParseSpeedTests 2>&1 \
        | grep -E "^parse |failed"
    exit 0
fi
for f in large_dexcom.csv large_nightscout.json; do
    echo "== $f"
    GLUCOMODEL_LARGE_IMPORT="$DIR/$f" /usr/bin/time -v swift test "${FLAGS[@]}" --skip-build --filter ExportLargeImportTests 2>&1 \
        | grep -E "large import|Maximum resident|Elapsed \(wall|failed"
done
