#!/usr/bin/env python3
"""Adaptive conformal intervals (Gibbs and Candes 2021), per band, measured offline on a trainer's
per-row predictions (`OUT/predictions/*-hNNN.csv`) (docs/accuracy.md, "Prediction intervals").
With `--window-hours W` each test row's miss rates are replayed from nominal over the W hours of
validation and test rows before it, with `--gamma95-ratio` times gamma at 95%: what
`glucomodel-predict` writes (IntervalAdaptation.swift: W 24, gamma 0.01, ratio 0.25). Without it,
one miss rate per band runs on from the start of the test days (the stop-46 measurement).

Usage: scripts/measure-adaptive-intervals.py [--gammas 0,0.005,0.01,0.02,0.05] [--window-hours 24 --gamma95-ratio 0.25] DIR [DIR ...]
Each DIR is a trainer's output (or a glob of them, quoted, for a cohort trained one patient at a
time, e.g. '/tmp/trial/*/train'); every DIR is one cohort. Prints, per cohort, horizon (30, 60) and
level (80, 95): median coverage and width over the patients scored, and per band of the glucose now
(< 70, 70-180, >= 180) the median over patients with 50+ test rows in it; how many band medians
miss nominal by more than 5 points (issue #15's bar); and the lower-80 alarm (docs/formats.md: fires
when the 80% interval's lower bound is below 70; a row is positive when a reading in the horizon's
5-minute steps after it is below 70, negative when all are read and none is), its sensitivity over
the patients with lows and specificity over all, medians.

The static intervals are the trainer's (PredictionIntervals.swift): each band's scale the mean
absolute training residual of its rows (all rows for a band with fewer than 50), one conformal
quantile of the validation days' scaled residuals. Gamma 0 is them (the intervals of model files
written before stop 47). With gamma > 0 the test rows are taken in time order and each band keeps
its own miss rate alpha_t (start: 1 - level): a row's interval uses the ceil((n+1)(1 - alpha_t))-th
smallest scaled validation residual (no finite interval once that rank passes n), and once its
outcome is known (the horizon later) alpha_t moves by gamma (nominal miss rate - missed); with
--window-hours, replayed per row over the window as above. The glucose now is the persistence
forecast's column.
"""
import argparse
import csv
import glob
import math
import os
import statistics as st
from datetime import datetime

LEVELS = (0.80, 0.95)


def band(g):
    return 0 if g < 70 else (1 if g < 180 else 2)


def rank_value(sorted_scores, level):
    """The ceil((n+1) level)-th smallest score; inf when the rank passes n."""
    n = len(sorted_scores)
    if level <= 0:
        return 0.0
    k = math.ceil((n + 1) * level - 1e-9)
    return sorted_scores[k - 1] if k <= n else math.inf


def load(path):
    """Rows (glucose now, prediction, reference) per split; the test rows' issue times; and the
    validation and test rows in time order as (time, glucose now, prediction, reference)."""
    rows = {"train": [], "validation": [], "test": []}
    times, stream = [], []
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["ge"] and r["reference_mgdl"] and r["persistence"]:
                row = (float(r["persistence"]), float(r["ge"]), float(r["reference_mgdl"]))
                rows[r["split"]].append(row)
                t = datetime.fromisoformat(r["issued_at"].replace("Z", "+00:00")).timestamp()
                if r["split"] == "test":
                    times.append(t)
                if r["split"] != "train":
                    stream.append((t,) + row + (r["split"] == "test",))
    return rows, times, stream


def windowed_halfwidths(stream, scores, s, horizon, level, gamma, window_hours):
    """Each test row's half-width: the band miss rates replayed from nominal over the rows issued in
    the window before it whose outcome is known by then (IntervalAdaptation.halfWidths)."""
    H, W = horizon * 60, window_hours * 3600
    out, lo = [], 0
    for i, (t, g, p, y, is_test) in enumerate(stream):
        if not is_test:
            continue
        while stream[lo][0] < t - W:
            lo += 1
        alpha, pending, nxt = [1 - level] * 3, [], 0
        for j in range(lo, i):
            tj, gj, pj, yj, _ = stream[j]
            if tj + H > t:
                break
            while nxt < len(pending) and pending[nxt][0] <= tj:
                alpha[pending[nxt][1]] += gamma * ((1 - level) - pending[nxt][2])
                nxt += 1
            bj = band(gj)
            half = rank_value(scores, 1 - alpha[bj]) * s[bj]
            lower, upper = max(10.0, pj - half), min(600.0, pj + half)
            pending.append((tj + H, bj, 0 if lower <= yj <= upper else 1))
        for _, bb, missed in pending[nxt:]:
            alpha[bb] += gamma * ((1 - level) - missed)
        out.append(rank_value(scores, 1 - alpha[band(g)]) * s[band(g)])
    return out


def alarm_truth(rows, times, horizon):
    """Per test row: True (a reading below 70 in the horizon's steps after it), False (all read, none
    below), None (not scored). Readings are the later rows' glucose now, and the reference at the horizon."""
    at = {round(t): g for t, (g, _, _) in zip(times, rows)}
    truth = []
    for t, (_, _, y) in zip(times, rows):
        steps = [at.get(round(t) + 300 * k) for k in range(1, horizon // 5)] + [y]
        truth.append(True if any(v is not None and v < 70 for v in steps) else (None if None in steps else False))
    return truth


def scales(train):
    by_band = [[], [], []]
    for g, p, y in train:
        by_band[band(g)].append(abs(y - p))
    pooled = sum(sum(b) for b in by_band) / len(train)
    return [sum(b) / len(b) if len(b) >= 50 else pooled for b in by_band]


def measure(rows, times, stream, horizon, gamma, window_hours=None, gamma95_ratio=1.0):
    s = scales(rows["train"])
    truth = alarm_truth(rows["test"], times, horizon)
    scores = sorted(abs(y - p) / s[band(g)] for g, p, y in rows["validation"])
    lag = horizon // 5  # rows are 5 minutes apart: an outcome is known `lag` rows later
    out = {}
    for level in LEVELS:
        step = gamma * (gamma95_ratio if level == 0.95 else 1)
        windowed = windowed_halfwidths(stream, scores, s, horizon, level, step, window_hours) if window_hours else None
        alpha = [1 - level] * 3
        covered, widths, by_band, pending, alarms = [], [], [[], [], []], [], []
        for t, (g, p, y) in enumerate(rows["test"]):
            b = band(g)
            while not windowed and gamma and pending and pending[0][0] <= t - lag:
                _, bb, missed = pending.pop(0)
                alpha[bb] += gamma * ((1 - level) - missed)
            half = windowed[t] if windowed else rank_value(scores, 1 - alpha[b]) * s[b]
            lower, upper = max(10.0, p - half), min(600.0, p + half)  # clamped to the plausible range, as predictions are
            hit = lower <= y <= upper
            covered.append(hit)
            by_band[b].append(hit)
            widths.append(upper - lower)
            pending.append((t, b, 0 if hit else 1))
            alarms.append(lower < 70)
        scored = [(a, p) for a, p in zip(alarms, truth) if p is not None]
        positives = [a for a, p in scored if p]
        negatives = [a for a, p in scored if not p]
        out[level] = (100 * sum(covered) / len(covered), st.mean(widths),
                      [100 * sum(c) / len(c) if len(c) >= 50 else None for c in by_band],
                      sum(positives) / len(positives) if positives else None,
                      1 - sum(negatives) / len(negatives) if negatives else None)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gammas", default="0,0.005,0.01,0.02,0.05")
    ap.add_argument("--window-hours", type=float, default=None)
    ap.add_argument("--gamma95-ratio", type=float, default=1.0)
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    gammas = [float(x) for x in a.gammas.split(",")]
    for cohort in a.dirs:
        print(f"== {cohort}")
        for gamma in gammas:
            misses, lines = 0, []
            for horizon in (30, 60):
                results = []
                for path in sorted(glob.glob(os.path.join(cohort, "predictions", f"*-h{horizon:03d}.csv"))):
                    rows, times, stream = load(path)
                    # As the trainer: a patient whose test days are too few or all at one value is not scored.
                    if len(rows["test"]) < 12 or len(rows["validation"]) < 19 or len({r[2] for r in rows["test"]}) < 5:
                        continue
                    results.append(measure(rows, times, stream, horizon, gamma, a.window_hours, a.gamma95_ratio))
                for level in LEVELS:
                    cov = st.median(r[level][0] for r in results)
                    width = st.median(r[level][1] for r in results)
                    bands = []
                    for b in range(3):
                        vals = [r[level][2][b] for r in results if r[level][2][b] is not None]
                        m = st.median(vals) if vals else None
                        misses += m is not None and abs(m - 100 * level) > 5
                        bands.append("-" if m is None else f"{m:.1f} ({len(vals)})")
                    alarm = ""
                    if level == 0.80:
                        sens = [r[level][3] for r in results if r[level][3] is not None]
                        spec = [r[level][4] for r in results if r[level][4] is not None]
                        alarm = f"; lower-80 alarm {st.median(sens):.2f} / {st.median(spec):.3f}" if sens and spec else ""
                    lines.append(f"  {horizon} min {int(level * 100)}%: coverage {cov:.1f}, width {width:.1f}; "
                                 f"bands < 70 / 70-180 / >= 180: {' / '.join(bands)}{alarm}  [{len(results)} patients]")
            print(f"gamma {gamma}: {misses} band medians miss by more than 5 points")
            print("\n".join(lines))


if __name__ == "__main__":
    main()
