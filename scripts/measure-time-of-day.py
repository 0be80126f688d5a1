#!/usr/bin/env python3
"""How much a time-of-day term could add to the trained models (an offline prototype, not built).

For each model of one or more `glucomodel-train` output folders (their `predictions/*.csv`), the
training days' residuals (reference - prediction) are averaged by clock time, smoothed with a
Gaussian kernel over the 24-hour circle; the bandwidth (0.5, 1, 2 or 4 hours, or no term at all)
is the one with the lowest validation RMSE; the term is then added to the test days' predictions.
Done for the evolved model (`ge`) and the ARX (`arx`) alike, so the table shows the evolved model
with the term against the ARX as trained and against the ARX given the same term.

The clock is the one of the predictions' `issued_at` as written (the training's `--time-zone`).
Prints, per horizon, the median test RMSE over the patients with test days, before and after, and
per patient the evolved model's ratio with the bandwidth chosen.

Usage: scripts/measure-time-of-day.py OUT_DIR [OUT_DIR ...]
"""
import csv
import glob
import math
import os
import statistics
import sys

BINS = 288  # 5-minute bins over a day
BANDWIDTHS_H = (0.5, 1, 2, 4)


def clock_bin(issued_at):
    hours = int(issued_at[11:13]) + int(issued_at[14:16]) / 60
    return int(round(hours * BINS / 24)) % BINS


def smoothed(sums, counts, bandwidth_h):
    term = []
    for i in range(BINS):
        num = den = 0.0
        for j in range(BINS):
            if counts[j] == 0:
                continue
            d = abs(i - j) * 24 / BINS
            d = min(d, 24 - d)
            w = math.exp(-0.5 * (d / bandwidth_h) ** 2)
            num += w * sums[j]
            den += w * counts[j]
        term.append(num / den if den else 0.0)
    return term


def rmse(rows, column, term):
    total = 0.0
    for r in rows:
        e = float(r["reference_mgdl"]) - float(r[column]) - (term[r["bin"]] if term else 0.0)
        total += e * e
    return math.sqrt(total / len(rows))


def main(folders):
    results = {}  # (horizon, column) -> [(patient, test before, test after, bandwidth)]
    files = [f for d in folders for f in sorted(glob.glob(os.path.join(d, "predictions", "*-h*.csv")))]
    if not files:
        sys.exit("no predictions/*-hNNN.csv in " + ", ".join(folders))
    for path in files:
        patient, horizon = os.path.basename(path)[:-4].rsplit("-h", 1)
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        for r in rows:
            r["bin"] = clock_bin(r["issued_at"])
        split = {s: [r for r in rows if r["split"] == s] for s in ("train", "validation", "test")}
        if not split["test"] or not split["validation"]:
            continue
        for column in ("ge", "arx"):
            sums, counts = [0.0] * BINS, [0] * BINS
            for r in split["train"]:
                sums[r["bin"]] += float(r["reference_mgdl"]) - float(r[column])
                counts[r["bin"]] += 1
            best = (rmse(split["validation"], column, None), None, "none")
            for bw in BANDWIDTHS_H:
                term = smoothed(sums, counts, bw)
                v = rmse(split["validation"], column, term)
                if v < best[0]:
                    best = (v, term, bw)
            results.setdefault((horizon, column), []).append(
                (patient, rmse(split["test"], column, None), rmse(split["test"], column, best[1]), best[2]))
    print("horizon | patients | GE: before -> with term (ratio) | ARX: before -> with term (ratio) "
          "| GE+term vs ARX | GE+term vs ARX+term | GE vs ARX")
    for horizon in sorted({h for h, _ in results}):
        ge, arx = results[(horizon, "ge")], results[(horizon, "arx")]
        g0, g1 = (statistics.median(x[i] for x in ge) for i in (1, 2))
        a0, a1 = (statistics.median(x[i] for x in arx) for i in (1, 2))
        print(f"{int(horizon)} min | {len(ge)} | {g0:.2f} -> {g1:.2f} ({g1 / g0:.3f}) | {a0:.2f} -> {a1:.2f} "
              f"({a1 / a0:.3f}) | {1 - g1 / a0:+.1%} | {1 - g1 / a1:+.1%} | {1 - g0 / a0:+.1%}")
        print("    GE per patient (ratio, bandwidth h): "
              + ", ".join(f"{p} {after / before:.3f} ({bw})" for p, before, after, bw in ge))


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        sys.exit(__doc__)
    main(sys.argv[1:])
