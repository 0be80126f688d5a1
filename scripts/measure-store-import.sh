#!/usr/bin/env bash
# Measures importing a large Dexcom Clarity CSV into a fresh store with `glucomodel-train import-data`
# (release build): wall time, MB/s and peak RSS (/usr/bin/time -v), for each size given.
# The file is shaped like the one scripts/measure-large-import.sh generates, one row a minute (EGV, an insulin row
# every 50 rows, a carb row every 77; one preamble row).
# Usage: scripts/measure-store-import.sh [size-MB ...]          (default: 100 300)
#        GLUCOMODEL_TRAIN=/path/to/glucomodel-train scripts/measure-store-import.sh 100
#        (another build of the command, e.g. a copy of the previous version, to compare in one session)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -eq 0 ]; then SIZES=(100 300); else SIZES=("$@"); fi
EXE="${GLUCOMODEL_TRAIN:-}"
if [ -z "$EXE" ]; then
    swift build -c release --product glucomodel-train
    EXE=.build/release/glucomodel-train
fi
DIR="${GLUCOMODEL_MEASURE_DIR:-$(mktemp -d)}"
mkdir -p "$DIR"
for MB in "${SIZES[@]}"; do
    FILE="$DIR/large_dexcom_${MB}.csv"
    if [ ! -f "$FILE" ]; then
        python3 - "$FILE" "$MB" <<'PY'
import sys, datetime
path, mb = sys.argv[1], int(sys.argv[2])
target = mb * 1_000_000
t0 = datetime.datetime(2010, 1, 1)
step = 1  # minutes between rows: 300 MB (4.3 M rows) still ends before 2026 (none future-dated)
with open(path, "w") as f:
    f.write("Index,Timestamp (YYYY-MM-DDThh:mm:ss),Event Type,Event Subtype,Patient Info,Device Info,Source Device ID,"
            "Glucose Value (mg/dL),Insulin Value (u),Carb Value (grams),Duration (hh:mm:ss),"
            "Glucose Rate of Change (mg/dL/min),Transmitter Time (Long Integer),Transmitter ID\n")
    f.write("1,,FirstName,,Someone,,,,,,,,,\n")
    i, size = 2, 0
    while size < target:
        t = t0 + datetime.timedelta(minutes=step * i)
        if i % 50 == 0:
            row = f"{i},{t:%Y-%m-%dT%H:%M:%S},Insulin,Fast-Acting,,,iOS G6,,{1 + i % 7}.5,,,,,\n"
        elif i % 77 == 0:
            row = f"{i},{t:%Y-%m-%dT%H:%M:%S},Carbs,,,,iOS G6,,,{20 + i % 60},,,,\n"
        else:
            row = f"{i},{t:%Y-%m-%dT%H:%M:%S},EGV,,,,iOS G6,{70 + (i * 7) % 250},,,,{((i % 9) - 4) / 2},{1000 + i * 300},8ABCDE\n"
        f.write(row); size += len(row); i += 1
PY
    fi
    BYTES=$(stat -c %s "$FILE")
    STORE="$DIR/store_${MB}.sqlite"
    rm -f "$STORE" "$STORE-journal" "$STORE-wal" "$STORE-shm" "$STORE.lock"
    OUT="$DIR/time_${MB}.txt"
    /usr/bin/time -v "$EXE" import-data "$FILE" --store "$STORE" --patient large_p --time-zone UTC >"$DIR/out_${MB}.txt" 2>"$OUT"
    WALL=$(grep "Elapsed (wall" "$OUT" | awk '{print $NF}')
    RSS=$(grep "Maximum resident" "$OUT" | awk '{print $NF}')
    python3 - "$BYTES" "$WALL" "$RSS" "$MB" <<'PY'
import sys
b, wall, rss, mb = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
parts = [float(p) for p in wall.split(":")]
secs = parts[-1] + 60 * parts[-2] + (3600 * parts[-3] if len(parts) > 2 else 0)
print(f"{mb} MB file ({b / 1e6:.1f} MB): {secs:.2f} s, {b / 1e6 / secs:.1f} MB/s, peak RSS {rss / 1024:.0f} MB")
PY
    head -2 "$DIR/out_${MB}.txt"
done
[ -z "${GLUCOMODEL_MEASURE_DIR:-}" ] && rm -rf "$DIR"
exit 0
