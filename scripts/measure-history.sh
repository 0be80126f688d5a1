#!/usr/bin/env bash
# Measures what a long history costs: one patient with H days (30 and 730 by default). `predict`
# over the whole history and the first nightly after importing it (every row scored: time and peak
# memory); then NIGHTS nights (default 8) each adding one day of readings to the inbox, timed one by
# one (they need only their day; the last also audits the doses and checks the settings, which read
# four weeks); then one `dose --store` ask and one `settings --store` check at the end of the log.
# With OLD_BIN=DIR (another build's release binaries), the same runs with it after, on the same data,
# the per-night means as ratios new/old, and whether every file of both runs' nights is the same.
# Usage: scripts/measure-history.sh [history days...]    env: NIGHTS, BIN, OLD_BIN, KEEP=DIR
set -euo pipefail
# Paths given relative are the caller's (the script moves to the repository).
for v in BIN OLD_BIN KEEP; do
  [ -n "${!v:-}" ] && [ "${!v#/}" = "${!v}" ] && printf -v "$v" '%s' "$PWD/${!v}"
done
cd "$(dirname "$0")/.."
HISTORIES=("${@:-30 730}")
read -r -a HISTORIES <<< "${HISTORIES[*]}"
NIGHTS="${NIGHTS:-8}"
if [ -z "${BIN:-}" ]; then
  swift build -c release --product glucomodel-train >/dev/null
  swift build -c release --product glucomodel-predict >/dev/null
  BIN="$(swift build -c release --show-bin-path)"
fi
DIR="${KEEP:-$(mktemp -d)}"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$DIR"' EXIT
mkdir -p "$DIR"

# A synthetic log in GlucoModel CSV: 5-minute CGM shaped by meals, boluses and a daily basal row,
# occasional gaps; one file per day after the history.
gen() {  # gen DAYS OUT_PREFIX HISTORY_DAYS
  python3 - "$@" <<'PY'
import sys, math, random, datetime as dt, os
days, prefix, history = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
r = random.Random(3)
t0 = dt.datetime(2026, 11, 20, tzinfo=dt.timezone.utc) - dt.timedelta(days=days)
def ts(m): return (t0 + dt.timedelta(minutes=m)).strftime("%Y-%m-%dT%H:%M:%SZ")
rows, effect = [], [0.0] * (days * 288 + 200)
for d in range(days):
    rows.append((d * 1440, f"basal,{r.uniform(0.7, 0.9):.3f},U/h,,,"))
    for h, c in ((7.5, 45), (13.0, 70), (19.5, 65)):
        m, grams = d * 1440 + int((h + r.gauss(0, 0.5)) * 60), max(5, int(r.gauss(c, 12)))
        rows += [(m, f"carbs,{grams},g,,,"), (m, f"bolus,{grams / 12 * r.uniform(0.85, 1.15):.2f},U,,normal,")]
        for k in range(1, 48): effect[m // 5 + k] += 1.05 * grams / 12 * 45 * (k / 9) * math.exp(1 - k / 9) / 9
        for k in range(1, 72): effect[m // 5 + k] -= grams / 12 * 45 * (k / 15) * math.exp(1 - k / 15) / 15
e, drift, gap = 0.0, 0.0, 0
for i in range(days * 288):
    drift = 0.97 * drift + r.gauss(0, 3)
    e = 0.997 * e + effect[i]
    g = min(400, max(40, 135 + 25 * math.sin(2 * math.pi * (i % 288) / 288) + e + drift))
    if gap > 0: gap -= 1; continue
    if r.random() < 0.002: gap = r.choice([2, 4, 8, 24]); continue
    rows.append((i * 5, f"glucose,{min(400, max(40, round(g + r.gauss(0, 4))))},mg/dL,,cgm,"))
rows.sort(key=lambda x: x[0])
head = "patient,time,event,value,unit,duration,type,note\n"
def write(path, part): open(path, "w").write(head + "".join(f"p1,{ts(m)},{text}\n" for m, text in part))
write(f"{prefix}-history.csv", [x for x in rows if x[0] < history * 1440])
os.makedirs(f"{prefix}-days", exist_ok=True)
for d in range(history, days):
    write(f"{prefix}-days/p1-{(t0 + dt.timedelta(days=d)):%Y-%m-%d}.csv", [x for x in rows if d * 1440 <= x[0] < (d + 1) * 1440])
PY
}

cat > "$DIR/p1.json" <<'J'
{"patient": "p1", "carbRatio": 12, "insulinSensitivity": 45, "target": 110, "suspendThreshold": 70,
 "maxBolus": 10, "bolusIncrement": 0.05, "insulinPeakMinutes": 75, "insulinDurationMinutes": 360}
J
mkdir -p "$DIR/settings" && cp "$DIR/p1.json" "$DIR/settings/"
if [ ! -d "$DIR/models/models/p1" ]; then  # the trainer's own models/ folder inside --out
  echo "training small models for p1 (their quality does not matter here)..."
  gen 14 "$DIR/train" 14
  "$BIN/glucomodel-train" "$DIR/train-history.csv" --out "$DIR/models" --generations 5 --population 60 --ensemble 1 \
    --horizons 30,60 --threads 1 --time-zone UTC >/dev/null 2>&1
fi

# run LABEL BIN H: a fresh store of H days, night 0 (scores the history, not timed), then the nights.
run() {
  local label=$1 bin=$2 h=$3 w="$DIR/$1-$3"
  rm -rf "$w"; mkdir -p "$w/inbox"
  # Kept data (KEEP) of another NIGHTS is made again: the nights run are the data's days.
  if [ ! -f "$DIR/data-$h-history.csv" ] || [ "$(ls "$DIR/data-$h-days" 2>/dev/null | wc -l)" -ne "$NIGHTS" ]; then
    rm -rf "$DIR/data-$h-days" "$DIR/data-$h-history.csv"
    gen $((h + NIGHTS)) "$DIR/data-$h" "$h"
  fi
  "$bin/glucomodel-train" import-data "$DIR/data-$h-history.csv" --store "$w/store.sqlite" --time-zone UTC >/dev/null 2>&1
  /usr/bin/time -f "%e %M" -o "$w/t" "$bin/glucomodel-predict" predict "$DIR/data-$h-history.csv" --models "$DIR/models" \
    --out "$w/predictions.csv" --horizons 30,60 --time-zone UTC >/dev/null 2>&1
  read -r pwall prss < "$w/t"
  /usr/bin/time -f "%e %M" -o "$w/t" "$bin/glucomodel-predict" nightly --store "$w/store.sqlite" --inbox "$w/inbox" \
    --models "$DIR/models" --out "$w/out" --night 2000-01-01 --horizons 30,60 --time-zone UTC >/dev/null 2>&1
  read -r fwall frss < "$w/t"
  echo "$label history ${h} d: predict over it ${pwall} s (${prss} KB peak); first night ${fwall} s (${frss} KB peak)"
  local total=0 timed=0 days check=()
  days=$(ls "$DIR/data-$h-days" | sort)
  for f in $days; do
    cp "$DIR/data-$h-days/$f" "$w/inbox/"
    local night=${f#p1-}; night=${night%.csv}
    # The last night also audits the doses and checks the settings (--settings; its weekday).
    [ "$f" = "$(echo "$days" | tail -1)" ] && check=(--settings "$DIR/settings" --settings-check-on "$(date -u -d "$night" +%A | tr 'A-Z' 'a-z')")
    /usr/bin/time -f "%e %M" -o "$w/t" "$bin/glucomodel-predict" nightly --store "$w/store.sqlite" --inbox "$w/inbox" \
      --models "$DIR/models" --out "$w/out" --night "$night" --horizons 30,60 --time-zone UTC "${check[@]}" >/dev/null 2>&1
    read -r wall rss < "$w/t"
    if [ ${#check[@]} -eq 0 ]; then total=$(echo "$total + $wall" | bc); timed=$((timed + 1)); fi
  done
  local cwall=$wall crss=$rss
  /usr/bin/time -f "%e %M" -o "$w/t" "$bin/glucomodel-predict" settings --patient p1 --store "$w/store.sqlite" \
    --settings "$DIR/p1.json" --time-zone UTC >/dev/null 2>&1 || true
  read -r swall srss < "$w/t"
  /usr/bin/time -f "%e %M" -o "$w/t" "$bin/glucomodel-predict" dose --patient p1 --models "$DIR/models" --store "$w/store.sqlite" \
    --settings "$DIR/p1.json" --carbs 50 --time-zone UTC >/dev/null 2>&1 || true
  read -r dwall drss < "$w/t"
  # The mean of the nights timed (every night but the last, which also checks the settings).
  local mean=n/a; [ "$timed" -gt 0 ] && mean=$(echo "scale=3; $total / $timed" | bc)
  echo "$label history ${h} d: nightly mean ${mean} s a night; a night with a settings check ${cwall} s (${crss} KB peak)"
  echo "$label history ${h} d: dose --store ${dwall} s (${drss} KB); settings --store ${swall} s (${srss} KB)"
  echo "$mean" > "$w/mean"
}

for h in "${HISTORIES[@]}"; do
  run new "$BIN" "$h"
  if [ -n "${OLD_BIN:-}" ]; then
    run old "$OLD_BIN" "$h"
    echo "  ratio new/old, mean night at ${h} d: $(echo "scale=2; $(cat "$DIR/new-$h/mean") / $(cat "$DIR/old-$h/mean")" | bc)"
    if diff -r "$DIR/new-$h/out" "$DIR/old-$h/out" >/dev/null && cmp -s "$DIR/new-$h/predictions.csv" "$DIR/old-$h/predictions.csv"; then
      echo "  every file of every night, and predict's: the same"
    else
      echo "  the outputs differ"
    fi
  fi
done
