#!/usr/bin/env bash
# Measures the accuracy levers on the bundled cohort (docs/accuracy.md): trains seeds 1-3 at 30 and
# 60 minutes with the defaults (3 searches, --ensemble 3) and, with one search (--ensemble 1, as those
# levers were measured), --terms 1, 2, 3 and 4, 300 generations, and --curves single-held, multi and
# multi-free; then prints per run the median test RMSE of GE against ARX, how many patients GE beats
# ARX for, the ensemble and the curves as ratios to one search of single curves, and for the default
# run the intervals' test coverage and width and the hypoglycaemia alarms' sensitivity and specificity.
# The last table gives the test coverage per band of the glucose at the moment of prediction (< 70,
# 70-180, >= 180) for every patient with 50 or more test rows in the band.
# Usage: scripts/accuracy-levers.sh [OUT_DIR]   (default /tmp/accuracy-levers)
# DEFAULT_ONLY=1 trains the default runs only and prints the interval tables (about two minutes).
set -euo pipefail
out="${1:-/tmp/accuracy-levers}"
[ "${out#/}" = "$out" ] && out="$PWD/$out"  # relative: the caller's folder, not the repository's
cd "$(dirname "$0")/.."
swift build -c release --product glucomodel-train
bin=.build/release/glucomodel-train
mkdir -p "$out"
# train NAME ARGS...: one measurement into OUT/NAME, trained afresh (--retrain: a folder of an earlier
# run, or of another build, would otherwise be reused and its figures reprinted), the trainer's own
# output in OUT/NAME.log. Exit 2 (some patient not trained) is said and measured; any other failure stops.
train() {
    local name=$1 status=0; shift
    "$@" --out "$out/$name" --retrain > "$out/$name.log" 2>&1 || status=$?
    case $status in
        0) ;;
        2) echo "accuracy-levers: $name: some models not trained (see $out/$name.log)" >&2 ;;
        *) echo "accuracy-levers: $name: the trainer failed (exit $status): see $out/$name.log" >&2; exit 1 ;;
    esac
}
for seed in 1 2 3; do
    train "default-seed$seed" "$bin" datasets --horizons 30,60 --threads 2 --seed "$seed"
    [ "${DEFAULT_ONLY:-0}" = 1 ] && continue
    one=("$bin" datasets --horizons 30,60 --threads 2 --seed "$seed" --ensemble 1)
    for terms in 1 2 3 4; do
        train "terms$terms-seed$seed" "${one[@]}" --terms "$terms"
    done
    train "gen300-seed$seed" "${one[@]}" --generations 300
    train "singleheld-seed$seed" "${one[@]}" --curves single-held
    train "multi-seed$seed" "${one[@]}" --curves multi
    train "multifree-seed$seed" "${one[@]}" --curves multi-free
done
python3 - "$out" "${DEFAULT_ONLY:-0}" <<'PY'
import csv, statistics as st, sys
out, default_only = sys.argv[1], sys.argv[2] == "1"
def load(name, seed): return list(csv.DictReader(open(f"{out}/{name}-seed{seed}/results.csv")))
def test(rows, h, model): return {r["patient"]: r for r in rows if r["horizon_min"] == h and r["model"] == model and r["split"] == "test"}
print("| run | seed | 30 min: GE vs ARX | patients GE < ARX | 60 min: GE vs ARX | patients GE < ARX |")
for name in (("default",) if default_only else ("default", "terms1", "terms2", "terms3", "terms4", "gen300", "singleheld", "multi", "multifree")):
    for seed in (1, 2, 3):
        rows, cells = load(name, seed), []
        for h in ("30", "60"):
            ge = {p: float(r["rmse"]) for p, r in test(rows, h, "ge").items()}
            arx = {p: float(r["rmse"]) for p, r in test(rows, h, "arx").items()}
            cells += [f"{100 * (1 - st.median(ge.values()) / st.median(arx.values())):+.1f}%", f"{sum(ge[p] < arx[p] for p in ge)}/{len(ge)}"]
        print(f"| {name} | {seed} | " + " | ".join(cells) + " |")
if not default_only:
    # The ensemble (default) and the curves as ratios to one search of single curves (terms3), same
    # seed: median test RMSE of each model.
    print()
    print("| run | seed | horizon | ARX: run / one search | GE: run / one search | GE (run) vs ARX (one search) | patients |")
    for curves in ("default", "singleheld", "multi", "multifree"):
        for seed in (1, 2, 3):
            runs = {curves: load(curves, seed), "single": load("terms3", seed)}
            for h in ("30", "60"):
                m, s1 = ({k: {p: float(r["rmse"]) for p, r in test(runs[run], h, k).items()} for k in ("arx", "ge")}
                         for run in (curves, "single"))
                med = lambda d: st.median(d.values())
                print(f"| {curves} | {seed} | {h} min | {med(m['arx']) / med(s1['arx']):.3f} | {med(m['ge']) / med(s1['ge']):.3f} | "
                      f"{100 * (1 - med(m['ge']) / med(s1['arx'])):+.1f}% | {sum(m['ge'][p] < s1['arx'][p] for p in m['ge'])}/{len(m['ge'])} |")
def default_runs():
    """(seed, horizon, the default run's GE test rows sorted by patient) for every seed and horizon."""
    for seed in (1, 2, 3):
        rows = load("default", seed)
        for h in ("30", "60"):
            yield seed, h, [r for _, r in sorted(test(rows, h, "ge").items())]
def med(rows, k):
    v = [float(r[k]) for r in rows if r[k]]
    return st.median(v) if v else float("nan")
print()
print("| horizon | seed | coverage 80 / 95 (median %) | width 80 / 95 | point alarm sens / spec | lower-80 alarm sens / spec |")
for seed, h, ge in default_runs():
    print(f"| {h} min | {seed} | {med(ge, 'coverage_80'):.1f} / {med(ge, 'coverage_95'):.1f} | {med(ge, 'width_80'):.0f} / {med(ge, 'width_95'):.0f} | "
          f"{med(ge, 'alarm_sensitivity'):.2f} / {med(ge, 'alarm_specificity'):.3f} | "
          f"{med(ge, 'lower80_alarm_sensitivity'):.2f} / {med(ge, 'lower80_alarm_specificity'):.3f} |")
print()
print("| horizon | seed | band | patients with 50+ rows | coverage 80 per patient (median) | coverage 95 per patient (median) | largest miss 80 / 95 (points) |")
for seed, h, ge in default_runs():
    for band in ("below70", "70to180", "from180"):
        at = [r for r in ge if r[f"rows_{band}"] and int(r[f"rows_{band}"]) >= 50]
        if not at:
            print(f"| {h} min | {seed} | {band} | 0 | | | |")
            continue
        c80 = [float(r[f"coverage_80_{band}"]) for r in at]
        c95 = [float(r[f"coverage_95_{band}"]) for r in at]
        miss80, miss95 = max(abs(c - 80) for c in c80), max(abs(c - 95) for c in c95)
        print(f"| {h} min | {seed} | {band} | {len(at)} | {', '.join(f'{c:.0f}' for c in c80)} ({st.median(c80):.1f}) | "
              f"{', '.join(f'{c:.0f}' for c in c95)} ({st.median(c95):.1f}) | {miss80:.1f} / {miss95:.1f} |")
PY
