#!/usr/bin/env bash
# Measures importing large exports into a fresh store with `glucomodel-train import-data` (release build):
# wall time, MB/s and peak RSS (/usr/bin/time -v), per file.
# The files come from scripts/generate-large-exports.py (synthetic, one patient).
# Usage: scripts/measure-store-import.sh [size-MB ...]            Dexcom Clarity CSV, one row a minute (default: 100 300)
#        scripts/measure-store-import.sh --formats [size-MB]      Dexcom, Nightscout, LibreView, Tidepool and
#                                                                 GlucoModel CSV files of one size (default 100)
#        GLUCOMODEL_TRAIN=/path/to/glucomodel-train scripts/measure-store-import.sh 100
#        (another build of the command, e.g. a copy of the previous version, to compare in one session)
# GLUCOMODEL_MEASURE_DIR=dir keeps the generated files there (reused when present).
set -euo pipefail
# A relative GLUCOMODEL_TRAIN is the caller's, not the repository's (the script moves there).
[ -n "${GLUCOMODEL_TRAIN:-}" ] && [ "${GLUCOMODEL_TRAIN#/}" = "$GLUCOMODEL_TRAIN" ] && GLUCOMODEL_TRAIN="$PWD/$GLUCOMODEL_TRAIN"
cd "$(dirname "$0")/.."
JOBS=()   # entries "format:file-name"
if [ "${1:-}" = "--formats" ]; then
    MB="${2:-100}"
    for f in dexcom1:large_dexcom_${MB}.csv nightscout:large_nightscout_${MB}.json libre:large_libre_${MB}.csv \
             tidepool:large_tidepool_${MB}.json log:large_log_${MB}.csv; do JOBS+=("$MB:$f"); done
else
    [ $# -eq 0 ] && set -- 100 300
    for MB in "$@"; do JOBS+=("$MB:dexcom1:large_dexcom_${MB}.csv"); done
fi
EXE="${GLUCOMODEL_TRAIN:-}"
if [ -z "$EXE" ]; then
    swift build -c release --product glucomodel-train
    EXE=.build/release/glucomodel-train
fi
[ -x "$EXE" ] || { echo "measure-store-import: no executable $EXE" >&2; exit 1; }
DIR="${GLUCOMODEL_MEASURE_DIR:-$(mktemp -d)}"
mkdir -p "$DIR"
# The generated files go with the folder, whatever ends the run, unless it was given to keep them.
[ -z "${GLUCOMODEL_MEASURE_DIR:-}" ] && trap 'rm -rf "$DIR"' EXIT
for JOB in "${JOBS[@]}"; do
    IFS=: read -r MB FORMAT NAME <<<"$JOB"
    FILE="$DIR/$NAME"
    [ -f "$FILE" ] || python3 scripts/generate-large-exports.py "$DIR" "$MB" "$FORMAT:$NAME"
    BYTES=$(stat -c %s "$FILE")
    STORE="$DIR/store.sqlite"
    rm -f "$STORE" "$STORE-journal" "$STORE-wal" "$STORE-shm" "$STORE.lock"
    OUT="$DIR/time.txt"
    if ! /usr/bin/time -v "$EXE" import-data "$FILE" --store "$STORE" --patient large_p --time-zone UTC >"$DIR/out.txt" 2>"$OUT"; then
        echo "measure-store-import: the import of $NAME failed:" >&2
        grep -v '^\s' "$OUT" | head -5 >&2; head -5 "$DIR/out.txt" >&2
        exit 1
    fi
    WALL=$(grep "Elapsed (wall" "$OUT" | awk '{print $NF}')
    RSS=$(grep "Maximum resident" "$OUT" | awk '{print $NF}')
    python3 - "$BYTES" "$WALL" "$RSS" "$NAME" <<'PY'
import sys
b, wall, rss, name = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
parts = [float(p) for p in wall.split(":")]
secs = parts[-1] + 60 * parts[-2] + (3600 * parts[-3] if len(parts) > 2 else 0)
print(f"{name} ({b / 1e6:.1f} MB): {secs:.2f} s, {b / 1e6 / secs:.1f} MB/s, peak RSS {rss / 1024:.0f} MB")
PY
    head -2 "$DIR/out.txt"
done
exit 0
