#!/usr/bin/env bash
# Measures importing the bundled cohort (datasets/*.xml) into a fresh store with a release build,
# and reports the time per patient-week (patient-weeks = CGM readings x 5 min / 7 days).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product glucomodel-train >/dev/null
bin="$(swift build -c release --show-bin-path)/glucomodel-train"
store="$(mktemp -d)/cohort.sqlite"
readings=$(grep -h -c '<event ts=' datasets/*.xml | paste -sd+ | bc)
cgm=$(awk '/<glucose_level>/,/<\/glucose_level>/' datasets/*.xml | grep -c '<event')
start=$(date +%s.%N)
"$bin" import-data datasets/*.xml --store "$store" --time-zone UTC >/dev/null
end=$(date +%s.%N)
python3 - "$start" "$end" "$cgm" "$readings" <<'PY'
import sys
start, end, cgm, rows = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
weeks = cgm * 5 / (7 * 1440)
s = end - start
print(f"imported {rows} timed events ({cgm} CGM readings, {weeks:.2f} patient-weeks) in {s:.3f} s "
      f"(process start included): {s / weeks * 1000:.1f} ms per patient-week")
PY
rm -rf "$(dirname "$store")"
