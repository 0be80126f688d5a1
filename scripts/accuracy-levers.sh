#!/usr/bin/env bash
# Measures the accuracy levers on the bundled cohort (docs/accuracy.md): trains seeds 1-3 at 30 and
# 60 minutes with --terms 1, 2, 3 and 4, and with 300 generations, then prints per run the median test
# RMSE of GE against ARX, how many patients GE beats ARX for, and for the default run the intervals'
# test coverage and width and the hypoglycaemia alarms' sensitivity and specificity.
# Usage: scripts/accuracy-levers.sh [OUT_DIR]   (default /tmp/accuracy-levers)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-/tmp/accuracy-levers}"
swift build -c release --product glucomodel-train
bin=.build/release/glucomodel-train
for seed in 1 2 3; do
    for terms in 1 2 3 4; do
        "$bin" datasets --out "$out/terms$terms-seed$seed" --horizons 30,60 --threads 2 --seed "$seed" --terms "$terms" > /dev/null 2>&1
    done
    "$bin" datasets --out "$out/gen300-seed$seed" --horizons 30,60 --threads 2 --seed "$seed" --generations 300 > /dev/null 2>&1
done
python3 - "$out" <<'PY'
import csv, statistics as st, sys
out = sys.argv[1]
def load(name, seed): return list(csv.DictReader(open(f"{out}/{name}-seed{seed}/results.csv")))
def test(rows, h, model): return {r["patient"]: r for r in rows if r["horizon_min"] == h and r["model"] == model and r["split"] == "test"}
print("| run | seed | 30 min: GE vs ARX | patients GE < ARX | 60 min: GE vs ARX | patients GE < ARX |")
for name in ("terms1", "terms2", "terms3", "terms4", "gen300"):
    for seed in (1, 2, 3):
        rows, cells = load(name, seed), []
        for h in ("30", "60"):
            ge = {p: float(r["rmse"]) for p, r in test(rows, h, "ge").items()}
            arx = {p: float(r["rmse"]) for p, r in test(rows, h, "arx").items()}
            cells += [f"{100 * (1 - st.median(ge.values()) / st.median(arx.values())):+.1f}%", f"{sum(ge[p] < arx[p] for p in ge)}/{len(ge)}"]
        print(f"| {name} | {seed} | " + " | ".join(cells) + " |")
print()
print("| horizon | seed | coverage 80 / 95 (median %) | width 80 / 95 | point alarm sens / spec | lower-80 alarm sens / spec |")
for seed in (1, 2, 3):
    rows = load("terms3", seed)
    for h in ("30", "60"):
        ge = list(test(rows, h, "ge").values())
        def med(k):
            v = [float(r[k]) for r in ge if r[k]]
            return st.median(v) if v else float("nan")
        print(f"| {h} min | {seed} | {med('coverage_80'):.1f} / {med('coverage_95'):.1f} | {med('width_80'):.0f} / {med('width_95'):.0f} | "
              f"{med('alarm_sensitivity'):.2f} / {med('alarm_specificity'):.3f} | {med('lower80_alarm_sensitivity'):.2f} / {med('lower80_alarm_specificity'):.3f} |")
PY
