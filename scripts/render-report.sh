#!/usr/bin/env bash
# Renders a clinician report the way a person would see it: builds the tools, trains quick
# models if there are none, writes the report of one bundled patient (and the cohort pages),
# and screenshots it with headless Chromium (installed from Debian if missing).
# Usage: scripts/render-report.sh [PATIENT] [OUT_DIR]   (default adolescent_003, /tmp/report-render)
set -euo pipefail
cd "$(dirname "$0")/.."
patient="${1:-adolescent_003}"
out="${2:-/tmp/report-render}"
models="${MODELS:-/tmp/report-models}"
mkdir -p "$out"

if ! command -v chromium >/dev/null 2>&1; then
    apt-get update
    apt-get install -y chromium
fi

swift build -c release --product glucomodel-train
swift build -c release --product glucomodel-predict
if [ ! -f "$models/models/$patient/h030.json" ]; then
    .build/release/glucomodel-train --out "$models" --horizons 30,60 --generations 10 datasets
fi

.build/release/glucomodel-predict report --patient "$patient" --models "$models" \
    --data "datasets/$patient-ws-training.xml" "datasets/$patient-ws-testing.xml" \
    --settings datasets/settings --time-zone UTC --out "$out/$patient.html"
.build/release/glucomodel-predict report --models "$models" --data datasets --settings datasets/settings --time-zone UTC --out-dir "$out/cohort"

shot() {
    chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --screenshot="$2" --window-size="$3" "file://$1" 2>/dev/null
    echo "Screenshot: $2"
}
shot "$(realpath "$out/$patient.html")" "$out/$patient.png" 1200,4000
shot "$(realpath "$out/cohort/index.html")" "$out/index.png" 1200,700
# The whole page too (the 4000-px window cuts a long period's report).
shot "$(realpath "$out/$patient.html")" "$out/$patient-full.png" 1200,9000
