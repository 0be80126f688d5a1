#!/usr/bin/env python3
"""How close to Quest.csv any estimator of the simulated body could bring the settings.

The settings issue's bar measures "closer to the truth" against simglucose's Quest.csv CR and CF.
An estimator reads a log the body wrote, so the best it can do is the body's own settings
(`physiology.py`: `cr_body`, `cf_body`). This takes a run's draws (`settings_trial.py`'s results.csv)
and scores two ideal estimators against Quest.csv as the trial does (mean of the CR and CF relative
errors):
- the body's settings themselves;
- a bounded step from the perturbed settings toward them (at most ±20% of the setting, as
  `glucomodel-predict settings` moves, `SettingsEstimator.maxStep`).

    insilico/.venv/bin/python insilico/settings_reach.py docs/insilico/settings-results.csv
    insilico/.venv/bin/python insilico/settings_reach.py docs/insilico/settings-results-seed2.csv
"""
import csv
import statistics
import sys

STEP = 0.2


def err(cr, cf, r):
    q_cr, q_cf = float(r["cr_true"]), float(r["cf_true"])
    return (abs(cr - q_cr) / q_cr + abs(cf - q_cf) / q_cf) / 2


def main(path, body_path="docs/insilico/settings-results.csv"):
    rows = list(csv.DictReader(open(path)))
    # A run without the body's columns (settings_compare.py's) takes them from one that has them.
    body = {r["patient"]: r for r in csv.DictReader(open(body_path))}
    for r in rows:
        r.setdefault("cr_body", body[r["patient"]]["cr_body"])
        r.setdefault("cf_body", body[r["patient"]]["cf_body"])
    perturbed = [err(float(r["cr_perturbed"]), float(r["cf_perturbed"]), r) for r in rows]
    print(f"{len(rows)} patients; median error of the perturbed settings: {statistics.median(perturbed):.3f}")
    step = lambda p, b: min(max(b, p * (1 - STEP)), p * (1 + STEP))
    ideal = {
        "the body's own settings": lambda r: (float(r["cr_body"]), float(r["cf_body"])),
        "a bounded step toward them": lambda r: (step(float(r["cr_perturbed"]), float(r["cr_body"])),
                                                 step(float(r["cf_perturbed"]), float(r["cf_body"]))),
        "the suggested settings (the run)": lambda r: (float(r["cr_suggested"]), float(r["cf_suggested"])),
    }
    for name, settings in ideal.items():
        e = [err(*settings(r), r) for r in rows]
        closer = sum(a < b for a, b in zip(e, perturbed))
        print(f"{name:34s} closer for {closer:2d} of {len(rows)}; median error {statistics.median(e):.3f} "
              f"({statistics.median(e) / statistics.median(perturbed):.2f} of the perturbed)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/insilico/settings-results.csv")
