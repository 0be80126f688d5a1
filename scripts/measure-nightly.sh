#!/usr/bin/env bash
# Measures nightly scoring at scale: N patients (default 1000), one day of 5-minute readings each
# (GlucoModel CSV written by python3, with meals, boluses and basal), each with a copy of one
# trained patient's models (4 horizons, the `patient` field rewritten). Runs
# `glucomodel-predict nightly` in a release build on a fresh store and prints the wall time and
# peak memory; then runs it again (nothing new: the cost of a no-op night).
# Usage: scripts/measure-nightly.sh [patients] [keep-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-1000}"
DIR="${2:-$(mktemp -d)}"
[ -n "${2:-}" ] || trap 'rm -rf "$DIR"' EXIT
mkdir -p "$DIR/inbox"
swift build -c release --product glucomodel-train >/dev/null
swift build -c release --product glucomodel-predict >/dev/null
BIN="$(swift build -c release --show-bin-path)"
if [ ! -d "$DIR/train/models/adolescent_003" ]; then
  echo "training one patient's models (small budget; their quality does not matter here)..."
  "$BIN/glucomodel-train" datasets/adolescent_003-ws-training.xml datasets/adolescent_003-ws-testing.xml \
    --out "$DIR/train" --horizons 30,60,90,120 --population 40 --generations 5 >/dev/null
fi
python3 - "$DIR" "$N" <<'PY'
import sys, os, json, math, datetime
d, n = sys.argv[1], int(sys.argv[2])
src = f"{d}/train/models/adolescent_003"
models = {name: json.load(open(f"{src}/{name}")) for name in os.listdir(src) if name.endswith(".json")}
day = datetime.datetime(2026, 1, 5, tzinfo=datetime.timezone.utc)
meals = [(420, 50, 5.0), (750, 70, 7.0), (1140, 60, 6.0)]
for p in range(n):
    pid = f"gen_{p:04d}"
    lines = ["patient,time,event,value,unit,duration,type,moment,note"]
    offset = (p % 13) * 5 - 30
    for step in range(288):
        minute = step * 5
        g = 150 + offset + 60 * math.sin(2 * math.pi * (minute - 360) / 1440)
        for m, _, _ in meals:
            if minute > m:
                x = (minute - m) / 60
                g += 60 * x * math.exp(1 - x)
        g += ((p * 7919 + step * 104729) % 9) - 4
        t = day + datetime.timedelta(minutes=minute)
        lines.append(f"{pid},{t:%Y-%m-%dT%H:%M:%SZ},glucose,{max(40, round(g))},mg/dL,,,,")
    for m, grams, units in meals:
        t = day + datetime.timedelta(minutes=m)
        lines.append(f"{pid},{t:%Y-%m-%dT%H:%M:%SZ},carbs,{grams},g,,,,")
        lines.append(f"{pid},{t:%Y-%m-%dT%H:%M:%SZ},bolus,{units},U,,,,")
    lines.append(f"{pid},{day:%Y-%m-%dT%H:%M:%SZ},basal,0.8,U/h,1440,,,")
    open(f"{d}/inbox/{pid}.csv", "w").write("\n".join(lines) + "\n")
    os.makedirs(f"{d}/models/{pid}", exist_ok=True)
    for name, model in models.items():
        model["patient"] = pid
        json.dump(model, open(f"{d}/models/{pid}/{name}", "w"))
PY
rm -rf "$DIR/store.sqlite" "$DIR/store.sqlite.lock" "$DIR/out"
run() {
  /usr/bin/time -f "%e s wall, %U s user, %M KB peak" "$BIN/glucomodel-predict" nightly --store "$DIR/store.sqlite" \
    --inbox "$DIR/inbox" --models "$DIR/models" --out "$DIR/out" --night 2026-01-06 --time-zone UTC 2>"$DIR/stderr.txt" || true
  tail -1 "$DIR/stderr.txt"
}
echo "first night, $N patients x 288 readings x 4 horizons:"
run
echo "second run, same night (nothing new):"
run
du -sh "$DIR/out/2026-01-06" | sed 's/^/output: /'
