#!/usr/bin/env python3
"""In-silico check of the settings the data supports (`glucomodel-predict settings`; docs/settings.md).

For each virtual patient of simglucose: the clinician's settings are the patient's own CR and CF
(simglucose's Quest.csv) each multiplied by a seeded random factor in [0.7, 1.3] (the draws are
in results.csv); HISTORY days in which the person doses with those perturbed settings (the
standard rule carbs/CR' + (CGM > 150)(CGM - 140)/CF'); then the real `glucomodel-predict
settings` suggests settings from the exported log. Compared: the relative error of the perturbed
and of the suggested CR and CF against the truth, and TRIAL days (a new meal scenario and sensor,
the same for both arms) dosed by `glucomodel-predict dose --method formula` with the perturbed
settings (arm `perturbed`) or with the suggested ones (arm `suggested`). Outcomes on the true BG.

Quest.csv's CR and CF are the simulator's calculator settings, not what its bodies do: the errors
are also given against the body's own response (`physiology.py`: `cr_body`, `cf_body`).
`--rescore DIR` adds those columns to an earlier run's results.csv without simulating again.
"""
import argparse
import copy
import csv
import json
import os
import random
import statistics
import subprocess
import sys
import time
from multiprocessing import Pool
from types import SimpleNamespace

from outcomes import check_finite, outcomes
from patients import ALL, ISF_LIMITS, facts, settings as clinician_settings
from physiology import body_settings
from sim import seeds as trial_seeds, Decision, Log, continued, make_env, run
from toolkit import Toolkit, dose_decider, patient_job

FIELDS = ["patient", "factor_cr", "factor_cf", "cr_true", "cr_perturbed", "cr_suggested", "cf_true", "cf_perturbed",
          "cf_suggested", "err_cr_perturbed", "err_cr_suggested", "err_cf_perturbed", "err_cf_suggested",
          "err_perturbed", "err_suggested", "closer", "cr_body", "cf_body", "err_cr_body_perturbed",
          "err_cr_body_suggested", "err_cf_body_perturbed", "err_cf_body_suggested", "err_body_perturbed",
          "err_body_suggested", "closer_body", "err_cr_quest_body", "err_cf_quest_body", "err_quest_body", "meal_windows", "correction_windows", "cr_decision", "cf_decision",
          "tir_perturbed", "below70_perturbed", "below54_perturbed", "tir_suggested", "below70_suggested",
          "below54_suggested", "seconds"]


def say(text):
    print(f"insilico-settings: {text}", file=sys.stderr, flush=True)


def rule(cr, cf, target=140):
    """The standard rule with the person's (perturbed) settings."""
    def decide(now, cgm, carbs, log, eaten=None):
        return Decision(units=max(0.0, carbs / cr + (cgm > 150) * (cgm - target) / cf))
    return decide


def formula_arm(tk, pid, folder, settings_path, name, errors):
    return dose_decider(tk, pid, None, os.path.join(folder, f"data-{name}.csv"), settings_path, "formula", errors)


def history_with_perturbed_settings(name, index, args, pid, folder):
    """The patient's perturbed settings (the seeded draws; written to FOLDER/settings-perturbed.json)
    and HISTORY days in which the person doses with them (FOLDER/history.csv): the simulator, its
    seeds and the log, to go on with trial days."""
    draws = random.Random(1000 * args.seed + 500 + index)
    f_cr, f_cf = draws.uniform(0.7, 1.3), draws.uniform(0.7, 1.3)
    truth = facts(name)
    cf_true = min(max(truth["cf"], ISF_LIMITS[0]), ISF_LIMITS[1])
    perturbed, _ = clinician_settings(name, args.target)
    perturbed["carbRatio"] = round(truth["cr"] * f_cr, 2)
    perturbed["insulinSensitivity"] = round(min(max(cf_true * f_cf, ISF_LIMITS[0]), ISF_LIMITS[1]), 2)
    perturbed_path = os.path.join(folder, "settings-perturbed.json")
    with open(perturbed_path, "w") as out:
        json.dump(perturbed, out, indent=2)
    seeds = trial_seeds(args.seed, index)
    env = make_env(name, seeds["history_meals"], seeds["history_sensor"])
    history = Log(pid)
    run(env, args.history_days, rule(perturbed["carbRatio"], perturbed["insulinSensitivity"]), history)
    history_csv = os.path.join(folder, "history.csv")
    history.write_csv(history_csv)
    return SimpleNamespace(f_cr=f_cr, f_cf=f_cf, truth=truth, cf_true=cf_true, perturbed=perturbed,
                           perturbed_path=perturbed_path, seeds=seeds, env=env, history=history, history_csv=history_csv)


def run_patient(job):
    name, index, args, pid, folder, tk = patient_job(job)
    started = time.time()
    h = history_with_perturbed_settings(name, index, args, pid, folder)
    f_cr, f_cf, truth, cf_true, perturbed = h.f_cr, h.f_cf, h.truth, h.cf_true, h.perturbed
    perturbed_path, seeds, env, history, history_csv = h.perturbed_path, h.seeds, h.env, h.history, h.history_csv
    suggested_path = os.path.join(folder, "settings-suggested.json")
    done = subprocess.run([tk.predict_bin, "settings", "--patient", pid, "--data", history_csv, "--settings", perturbed_path,
                           "--out", suggested_path, "--time-zone", "UTC", "--format", "csv"], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{pid}: glucomodel-predict settings exited {done.returncode}: {done.stderr.strip()}")
    with open(os.path.join(folder, "settings.csv"), "w") as out:
        out.write(done.stdout)
    table = {r["setting"]: r for r in csv.DictReader(done.stdout.splitlines())}
    with open(suggested_path) as f:
        suggested = json.load(f)
    row = {"patient": pid, "factor_cr": f_cr, "factor_cf": f_cf, "cr_true": truth["cr"],
           "cr_perturbed": perturbed["carbRatio"], "cr_suggested": float(suggested["carbRatio"]),
           "cf_true": cf_true, "cf_perturbed": perturbed["insulinSensitivity"],
           "cf_suggested": float(suggested["insulinSensitivity"]),
           "cr_decision": table["carbRatio"]["reason"], "cf_decision": table["insulinSensitivity"]["reason"],
           "meal_windows": int(table["carbRatio"]["periods"]),
           "correction_windows": int(table["insulinSensitivity"]["periods"])}
    for k in ("cr", "cf"):
        for arm in ("perturbed", "suggested"):
            row[f"err_{k}_{arm}"] = relative_error(row[f"{k}_{arm}"], row[f"{k}_true"])
    for arm in ("perturbed", "suggested"):
        row[f"err_{arm}"] = (row[f"err_cr_{arm}"] + row[f"err_cf_{arm}"]) / 2
    row["closer"] = int(row["err_suggested"] < row["err_perturbed"])
    add_body(row, name)
    for arm, path in (("perturbed", perturbed_path), ("suggested", suggested_path)):
        env_arm = continued(env, seeds["trial_meals"], seeds["trial_sensor"])
        log = copy.deepcopy(history)
        errors, trace = [], []
        bg, insulin = run(env_arm, args.trial_days, formula_arm(tk, pid, folder, path, arm, errors), log, trace)
        o = outcomes(bg, insulin)
        row[f"tir_{arm}"], row[f"below70_{arm}"], row[f"below54_{arm}"] = o["tir"], o["below70"], o["below54"]
        if errors:
            with open(os.path.join(folder, f"errors-{arm}.txt"), "w") as out:
                out.write("\n".join(errors) + "\n")
    row["seconds"] = round(time.time() - started, 1)
    check_finite({k: v for k, v in row.items() if isinstance(v, float)})
    say(f"{pid}: CR {row['cr_true']:g} perturbed {row['cr_perturbed']:g} suggested {row['cr_suggested']:g}; "
        f"CF {row['cf_true']:.1f} perturbed {row['cf_perturbed']:.1f} suggested {row['cf_suggested']:.1f}; "
        f"TIR {row['tir_perturbed']:.1f} -> {row['tir_suggested']:.1f} ({row['seconds']} s)")
    return row


def relative_error(x, truth):
    return abs(x / truth - 1)


def add_body(row, name):
    """The errors of the perturbed and suggested settings against the body's own response (CF floored
    as the settings are: no setting can go below ISF_LIMITS)."""
    body = body_settings(name)
    row["cr_body"] = body["cr_body"]
    row["cf_body"] = min(max(body["cf_body"], ISF_LIMITS[0]), ISF_LIMITS[1])
    for k in ("cr", "cf"):
        for arm in ("perturbed", "suggested"):
            row[f"err_{k}_body_{arm}"] = relative_error(float(row[f"{k}_{arm}"]), row[f"{k}_body"])
    for arm in ("perturbed", "suggested"):
        row[f"err_body_{arm}"] = (row[f"err_cr_body_{arm}"] + row[f"err_cf_body_{arm}"]) / 2
    row["closer_body"] = int(row["err_body_suggested"] < row["err_body_perturbed"])
    row["err_cr_quest_body"] = relative_error(float(row["cr_true"]), row["cr_body"])
    row["err_cf_quest_body"] = relative_error(float(row["cf_true"]), row["cf_body"])
    row["err_quest_body"] = (row["err_cr_quest_body"] + row["err_cf_quest_body"]) / 2


def rescored(r):
    """A row of an earlier run's results.csv, with the body columns added."""
    row = {k: (r[k] if k in ("patient", "cr_decision", "cf_decision") else float(r[k])) for k in FIELDS if r.get(k, "") != ""}
    for k in ("meal_windows", "correction_windows", "closer"):
        row[k] = int(row[k])
    add_body(row, r["patient"].replace("_", "#"))
    return row


def summary(rows):
    n = len(rows)
    med = lambda k: statistics.median(r[k] for r in rows)
    lines = [
        f"- suggested closer to the truth than perturbed (mean of the CR and CF relative errors): "
        f"{sum(r['closer'] for r in rows)} of {n}; CR alone {sum(r['err_cr_suggested'] < r['err_cr_perturbed'] for r in rows)}, "
        f"CF alone {sum(r['err_cf_suggested'] < r['err_cf_perturbed'] for r in rows)}",
        f"- median relative error, perturbed -> suggested: both {med('err_perturbed'):.3f} -> {med('err_suggested'):.3f}; "
        f"CR {med('err_cr_perturbed'):.3f} -> {med('err_cr_suggested'):.3f}; CF {med('err_cf_perturbed'):.3f} -> "
        f"{med('err_cf_suggested'):.3f}",
        f"- against the body's own response (physiology.py): suggested closer than perturbed for "
        f"{sum(r['closer_body'] for r in rows)} of {n}; CR alone "
        f"{sum(r['err_cr_body_suggested'] < r['err_cr_body_perturbed'] for r in rows)}, CF alone "
        f"{sum(r['err_cf_body_suggested'] < r['err_cf_body_perturbed'] for r in rows)}; median relative error "
        f"{med('err_body_perturbed'):.3f} -> {med('err_body_suggested'):.3f} (CR {med('err_cr_body_perturbed'):.3f} -> "
        f"{med('err_cr_body_suggested'):.3f}, CF {med('err_cf_body_perturbed'):.3f} -> {med('err_cf_body_suggested'):.3f}); "
        f"Quest.csv itself: {med('err_quest_body'):.3f} (CR {med('err_cr_quest_body'):.3f}, CF {med('err_cf_quest_body'):.3f})",
        f"- median TIR perturbed {med('tir_perturbed'):.2f} -> suggested {med('tir_suggested'):.2f}; "
        f"<70 {med('below70_perturbed'):.2f} -> {med('below70_suggested'):.2f}; "
        f"<54 {med('below54_perturbed'):.2f} -> {med('below54_suggested'):.2f}; "
        f"TIR higher for {sum(r['tir_suggested'] > r['tir_perturbed'] for r in rows)}, "
        f"<54 no higher for {sum(r['below54_suggested'] <= r['below54_perturbed'] for r in rows)} of {n}",
    ]
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--patients", default="all", help="comma-separated simulator names or 'all'")
    p.add_argument("--history-days", type=int, default=10)
    p.add_argument("--trial-days", type=int, default=5)
    p.add_argument("--seed", type=int, default=1, help="seeds the factors, every scenario and sensor")
    p.add_argument("--target", type=float, default=120)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--bin", default=".build/release")
    p.add_argument("--out", default="out/insilico-settings")
    p.add_argument("--rescore", metavar="DIR", help="add the body columns to DIR/results.csv (and summary.md); no simulation")
    args = p.parse_args()
    if args.rescore:
        with open(os.path.join(args.rescore, "results.csv")) as f:
            earlier = list(csv.DictReader(f))
        with open(os.path.join(args.rescore, "summary.md")) as f:
            title = f.readline().rstrip("\n")
        with Pool(args.jobs) as pool:
            rows = pool.map(rescored, earlier)
        write(args.rescore, rows, title)
        return
    names = ALL if args.patients == "all" else args.patients.split(",")
    unknown = [n for n in names if n not in ALL]
    if unknown:
        p.error(f"unknown patients {unknown}")
    args.bin = os.path.abspath(args.bin)
    os.makedirs(args.out, exist_ok=True)
    Toolkit(args.bin)
    with Pool(args.jobs) as pool:
        rows = list(pool.imap(run_patient, [(name, ALL.index(name), args) for name in names]))
    write(args.out, rows, f"# Settings from data in silico: {len(names)} patients, {args.history_days} history days, "
                          f"{args.trial_days} trial days, seed {args.seed}")


def write(folder, rows, title):
    """results.csv and summary.md in `folder`, each written whole to a temporary file and renamed."""
    path = os.path.join(folder, "results.csv")
    with open(path + ".tmp", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.4f}" if isinstance(v, float) else v) for k, v in r.items()})
    os.replace(path + ".tmp", path)
    text = summary(rows)
    path = os.path.join(folder, "summary.md")
    with open(path + ".tmp", "w") as f:
        f.write(title + "\n\n" + text)
    os.replace(path + ".tmp", path)
    print(text)


if __name__ == "__main__":
    main()
