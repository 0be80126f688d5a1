#!/usr/bin/env bash
# Times the training of one patient at one horizon (30 min) in a release build, for several
# amounts of data and population sizes, and prints where the time goes (from the trainer's
# timings file). Compare the rows with each other (ratios), not with other machines.
#   scripts/measure-training.sh [patient]
#   GLUCOMODEL_TRAIN=/path/to/glucomodel-train scripts/measure-training.sh   (another build, to compare in one session)
set -euo pipefail
cd "$(dirname "$0")/.."
p=${1:-adolescent_003}
bin=${GLUCOMODEL_TRAIN:-}
if [ -z "$bin" ]; then
  swift build -c release --product glucomodel-train >/dev/null
  bin=.build/release/glucomodel-train
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT  # whatever ends the run
mkdir -p "$tmp/d4" "$tmp/d10" "$tmp/d14"
cp "datasets/$p-ws-testing.xml" "$tmp/d4/$p.xml"                 # 4 days, last day held out
cp "datasets/$p-ws-training.xml" "$tmp/d10/$p.xml"               # 10 days, last 2 held out
cp "datasets/$p-ws-training.xml" "datasets/$p-ws-testing.xml" "$tmp/d14/"  # 14 days, testing file held out
printf "%-6s %-11s %-9s %-10s %-10s %-10s %-10s %-10s\n" days population rows total_s prep_s mapping_s variat_s evaluat_s
for days in 4 10 14; do
  for pop in 150 300 600; do
    out="$tmp/out-$days-$pop"
    start=$(date +%s.%N)
    "$bin" "$tmp/d$days" --horizons 30 --population "$pop" --threads 1 --out "$out" >/dev/null 2>&1
    end=$(date +%s.%N)
    python3 - "$out/timings/$p-h030.json" "$days" "$pop" "$start" "$end" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
total = float(sys.argv[5]) - float(sys.argv[4])
print(f"{sys.argv[2]:<6} {sys.argv[3]:<11} {t['trainingRows']:<9} {total:<10.2f} {t['preparation']:<10.3f} "
      f"{t['mapping']:<10.2f} {t['variation']:<10.2f} {t['evaluation']:<10.2f}")
PY
  done
done
rm -rf "$tmp"
