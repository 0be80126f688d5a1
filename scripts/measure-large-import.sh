#!/usr/bin/env bash
# Generates a ~100 MB Dexcom Clarity CSV and a ~100 MB Nightscout JSON, imports each in a release
# build and reports throughput (MB/s, printed by the test) and peak RSS (/usr/bin/time -v).
# (-enable-testing because other test targets use @testable.)
# The import runs in ExportLargeImportTests, which does nothing unless GLUCOMODEL_LARGE_IMPORT names a file.
# Usage: scripts/measure-large-import.sh [size-MB]
set -euo pipefail
cd "$(dirname "$0")/.."
MB="${1:-100}"
DIR="$(mktemp -d)"
trap 'rm -rf "$DIR"' EXIT
python3 - "$DIR" "$MB" <<'PY'
import sys, datetime
d, mb = sys.argv[1], int(sys.argv[2])
target = mb * 1_000_000
t0 = datetime.datetime(2010, 1, 1)
with open(f"{d}/large_dexcom.csv", "w") as f:
    f.write("Index,Timestamp (YYYY-MM-DDThh:mm:ss),Event Type,Event Subtype,Patient Info,Device Info,Source Device ID,"
            "Glucose Value (mg/dL),Insulin Value (u),Carb Value (grams),Duration (hh:mm:ss),"
            "Glucose Rate of Change (mg/dL/min),Transmitter Time (Long Integer),Transmitter ID\n")
    f.write("1,,FirstName,,Someone,,,,,,,,,\n")
    i, size = 2, 0
    while size < target:
        t = t0 + datetime.timedelta(minutes=5 * i)
        if i % 50 == 0:
            row = f"{i},{t:%Y-%m-%dT%H:%M:%S},Insulin,Fast-Acting,,,iOS G6,,{1 + i % 7}.5,,,,,\n"
        elif i % 77 == 0:
            row = f"{i},{t:%Y-%m-%dT%H:%M:%S},Carbs,,,,iOS G6,,,{20 + i % 60},,,,\n"
        else:
            row = f"{i},{t:%Y-%m-%dT%H:%M:%S},EGV,,,,iOS G6,{70 + (i * 7) % 250},,,,{((i % 9) - 4) / 2},{1000 + i * 300},8ABCDE\n"
        f.write(row); size += len(row); i += 1
epoch = 1262304000000  # 2010-01-01T00:00Z
with open(f"{d}/large_nightscout.json", "w") as f:
    f.write('{"entries": [\n')
    i, size = 0, 0
    while size < target:
        ms = epoch + i * 300000
        iso = datetime.datetime.utcfromtimestamp(ms / 1000).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        row = (',\n' if i else '') + f'{{"_id": "{i:024x}", "device": "xDrip-DexcomG6", "date": {ms}, "dateString": "{iso}", ' \
              f'"sgv": {70 + (i * 7) % 250}, "delta": 1.5, "direction": "Flat", "type": "sgv", "utcOffset": 60}}'
        f.write(row); size += len(row); i += 1
    f.write('\n],\n"treatments": [\n')
    for j in range(0, i // 50):
        ms = epoch + j * 50 * 300000
        f.write((',\n' if j else '') + f'{{"eventType": "Meal Bolus", "created_at": "{datetime.datetime.utcfromtimestamp(ms/1000):%Y-%m-%dT%H:%M:%S}Z", "insulin": 2.5, "carbs": 40}}')
    f.write('\n]}\n')
PY
ls -l "$DIR"
swift build -c release --build-tests -Xswiftc -enable-testing
for f in large_dexcom.csv large_nightscout.json; do
    echo "== $f"
    GLUCOMODEL_LARGE_IMPORT="$DIR/$f" /usr/bin/time -v swift test -c release -Xswiftc -enable-testing --skip-build --filter ExportLargeImportTests 2>&1 \
        | grep -E "large import|Maximum resident|Elapsed \(wall|failed"
done
