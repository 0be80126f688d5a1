#!/usr/bin/env python3
"""The settings trial (settings_trial.py) with two builds' suggestions from the same histories: arms
`perturbed`, `suggested` (--bin) and `suggested_old` (--old-bin); an arm whose settings file equals
`suggested`'s is not simulated again (same settings, same trial days, same outcome).

    insilico/.venv/bin/python insilico/settings_compare.py --bin NEW --old-bin OLD --seed 2 --out DIR
"""
import argparse, copy, csv, json, os, subprocess, sys, time
from multiprocessing import Pool
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from outcomes import outcomes
from patients import ALL
from sim import continued, run
from toolkit import Toolkit, patient_job
from settings_trial import formula_arm, history_with_perturbed_settings, relative_error

def suggest(tk_bin, pid, history_csv, perturbed_path, out_path):
    d = subprocess.run([os.path.join(tk_bin, "glucomodel-predict"), "settings", "--patient", pid, "--data", history_csv,
                        "--settings", perturbed_path, "--out", out_path, "--time-zone", "UTC", "--format", "csv"],
                       capture_output=True, text=True)
    if d.returncode != 0:
        raise RuntimeError(d.stderr)
    with open(out_path + ".csv", "w") as f:
        f.write(d.stdout)
    with open(out_path) as f:
        return json.load(f)

def run_patient(job):
    name, index, args, pid, folder, tk = patient_job(job)
    started = time.time()
    h = history_with_perturbed_settings(name, index, args, pid, folder)
    pp, hc = h.perturbed_path, h.history_csv
    paths = {"perturbed": pp, "suggested": os.path.join(folder, "settings-suggested.json"),
             "suggested_old": os.path.join(folder, "settings-suggested-old.json")}
    new = suggest(args.bin, pid, hc, pp, paths["suggested"])
    old = suggest(args.old_bin, pid, hc, pp, paths["suggested_old"])
    row = {"patient": pid, "factor_cr": h.f_cr, "factor_cf": h.f_cf, "cr_true": h.truth["cr"], "cf_true": h.cf_true,
           "cr_perturbed": h.perturbed["carbRatio"], "cf_perturbed": h.perturbed["insulinSensitivity"],
           "cr_suggested": new["carbRatio"], "cf_suggested": new["insulinSensitivity"],
           "cr_suggested_old": old["carbRatio"], "cf_suggested_old": old["insulinSensitivity"], "same": int(new == old)}
    g = [r["value"] for r in csv.DictReader(open(hc)) if r["event"] == "glucose"]
    g = [float(v) for v in g]
    row["history_below70"] = 100 * sum(v < 70 for v in g) / len(g)
    for arm in ("perturbed", "suggested", "suggested_old"):
        if arm == "suggested_old" and new == old:
            for k in ("tir", "below70", "below54"):
                row[f"{k}_{arm}"] = row[f"{k}_suggested"]
            continue
        env_arm = continued(h.env, h.seeds["trial_meals"], h.seeds["trial_sensor"])
        log = copy.deepcopy(h.history)
        errors = []
        bg, insulin = run(env_arm, args.trial_days, formula_arm(tk, pid, folder, paths[arm], arm, errors), log, [])
        o = outcomes(bg, insulin)
        row[f"tir_{arm}"], row[f"below70_{arm}"], row[f"below54_{arm}"] = o["tir"], o["below70"], o["below54"]
    for arm in ("perturbed", "suggested", "suggested_old"):
        row[f"err_{arm}"] = (relative_error(row[f"cr_{arm}"], row["cr_true"]) + relative_error(row[f"cf_{arm}"], h.cf_true)) / 2
    row["seconds"] = round(time.time() - started, 1)
    print(f"{pid}: same={row['same']} TIR {row['tir_perturbed']:.1f} new {row['tir_suggested']:.1f} old {row['tir_suggested_old']:.1f} "
          f"<54 {row['below54_perturbed']:.1f} / {row['below54_suggested']:.1f} / {row['below54_suggested_old']:.1f} ({row['seconds']} s)",
          file=sys.stderr, flush=True)
    return row

def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=2)
    p.add_argument("--history-days", type=int, default=10)
    p.add_argument("--trial-days", type=int, default=5)
    p.add_argument("--target", type=float, default=120)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--bin", required=True)
    p.add_argument("--old-bin", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--patients", default="all")
    args = p.parse_args()
    names = ALL if args.patients == "all" else args.patients.split(",")
    unknown = [n for n in names if n not in ALL]
    if unknown:
        p.error(f"unknown patients {unknown}; the simulator has {ALL[0]} ... {ALL[-1]}")
    args.bin, args.old_bin = os.path.abspath(args.bin), os.path.abspath(args.old_bin)
    os.makedirs(args.out, exist_ok=True)
    with Pool(args.jobs) as pool:
        rows = list(pool.imap(run_patient, [(n, ALL.index(n), args) for n in names]))
    with open(os.path.join(args.out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.4f}" if isinstance(v, float) else v) for k, v in r.items()})

if __name__ == "__main__":
    main()
