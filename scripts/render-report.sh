#!/usr/bin/env bash
# Renders a clinician report the way a person would see and print it: builds the tools, trains
# quick models if there are none, writes the report of one bundled patient (mg/dL on A4, mmol/L on
# Letter) and the cohort pages, screenshots them with headless Chromium, prints each report to PDF
# at its paper size, and checks the print: the clinician view is exactly pages 1 and 2 (page 1
# starts with the AGP header, page 2 with the predictions, page 3 with the appendix), also for a
# patient whose header carries many notes (scripts/crowded-patient.py) on Letter.
# Chromium and pdfinfo/pdftotext (poppler-utils) are installed from Debian if missing.
# Usage: scripts/render-report.sh [PATIENT] [OUT_DIR]   (default adolescent_003, /tmp/report-render)
# Environment: MODELS (default /tmp/report-models), CONFIG=debug|release (default release).
set -euo pipefail
cd "$(dirname "$0")/.."
patient="${1:-adolescent_003}"
out="${2:-/tmp/report-render}"
models="${MODELS:-/tmp/report-models}"
config="${CONFIG:-release}"
mkdir -p "$out"

if ! command -v chromium >/dev/null 2>&1 || ! command -v pdfinfo >/dev/null 2>&1; then
    apt-get update
    apt-get install -y chromium poppler-utils
fi

swift build -c "$config" --product glucomodel-train
swift build -c "$config" --product glucomodel-predict
bin=".build/$config"
if [ ! -f "$models/models/$patient/h030.json" ]; then
    "$bin/glucomodel-train" --out "$models" --horizons 30,60 --generations 10 datasets
fi

report() {  # report UNITS PAPER FILE
    "$bin/glucomodel-predict" report --patient "$patient" --models "$models" \
        --data "datasets/$patient-ws-training.xml" "datasets/$patient-ws-testing.xml" \
        --settings datasets/settings --time-zone UTC --units "$1" --paper "$2" --out "$3"
}
report mg/dL A4 "$out/$patient.html"
report mmol/L letter "$out/$patient-mmol-letter.html"
# A header with many notes (sensor floor, a skipped bolus, meals no longer logged: scripts/crowded-patient.py)
# on the shorter paper: page 1 must still hold the strip (hunt AQ: it spilled onto page 2).
python3 scripts/crowded-patient.py "datasets/$patient-ws-training.xml" "datasets/$patient-ws-testing.xml" "$out/$patient-crowded.xml"
"$bin/glucomodel-predict" report --patient "$patient" --models "$models" --data "$out/$patient-crowded.xml" \
    --time-zone UTC --paper letter --out "$out/$patient-crowded-letter.html"
"$bin/glucomodel-predict" report --models "$models" --data datasets --settings datasets/settings --time-zone UTC --out-dir "$out/cohort"

chrome() { chromium --headless --no-sandbox --disable-gpu --hide-scrollbars "$@" 2>/dev/null; }
shot() {
    chrome --screenshot="$2" --window-size="$3" "file://$(realpath "$1")"
    echo "Screenshot: $2"
}
shot "$out/$patient.html" "$out/$patient.png" 1000,2400
shot "$out/$patient-mmol-letter.html" "$out/$patient-mmol.png" 1000,2400
shot "$out/cohort/index.html" "$out/index.png" 1200,700
# The trainer's research summary (written beside results.csv by every run).
[ -f "$models/summary.html" ] && shot "$models/summary.html" "$out/summary.png" 1100,2600

# Print: the @page rule sets the size; --no-pdf-header-footer keeps Chromium's own date/URL lines off.
status=0
for name in "$patient" "$patient-mmol-letter" "$patient-crowded-letter"; do
    pdf="$out/$name.pdf"
    chrome --no-pdf-header-footer --print-to-pdf="$pdf" "file://$(realpath "$out/$name.html")"
    pages=$(pdfinfo "$pdf" | awk '/^Pages:/ {print $2}')
    size=$(pdfinfo "$pdf" | awk -F': *' '/^Page size:/ {print $2}')
    p1=$(pdftotext -f 1 -l 1 "$pdf" - | tr '\n' ' ')
    p2=$(pdftotext -f 2 -l 2 "$pdf" - | head -c 400 | tr '\n' ' ')
    p3=$(pdftotext -f 3 -l 3 "$pdf" - | head -c 400 | tr '\n' ' ')
    echo "$pdf: $pages pages, $size"
    ok=yes
    [[ "$p1" == *"Glucose report"* && "$p1" == *"Ambulatory glucose profile"* && "$p1" == *"Daily glucose profiles"* ]] || ok=no
    [[ "$p2" == "Predictions and dose advice"* ]] || ok=no
    [[ "$p3" == "Appendix"* ]] || ok=no
    echo "  clinician view on pages 1-2, appendix from page 3: $ok"
    [ "$ok" = yes ] || status=1
    # pdftoppm pads the page number to the width of the page count (page-01.png of a 12-page PDF):
    # the images are named as written.
    rm -f "$out/$name-page"-*.png
    pdftoppm -r 60 -png -f 1 -l 2 "$pdf" "$out/$name-page"
    echo "  page images: $(ls "$out/$name-page"-*.png | tr '\n' ' ')"
done
exit $status
