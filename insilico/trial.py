#!/usr/bin/env python3
"""In-silico trial of the toolkit's dose suggestions (docs/insilico.md, shared spec insilico.md).

For each virtual patient of simglucose: HISTORY days with the standard basal-bolus controller,
exported as GlucoModel CSV and trained on with the real `glucomodel-train`; then TRIAL days with
a new meal scenario and a new sensor seed, the same for every arm, continuing the patient's state.
Arms: `standard` (simglucose's BBController rule), `formula` (`glucomodel-predict dose --method
formula`) and `model` (the toolkit's default suggestion). Outcomes on the true BG.
"""
import argparse
import copy
import csv
import os
import shutil
import statistics
import sys
import time
from collections import Counter
from multiprocessing import Pool

from outcomes import check_finite, outcomes
from patients import ALL, facts, patient_id, write_settings
from sim import seeds as trial_seeds, Log, continued, iso, make_env, run, standard_rule
from toolkit import Toolkit, dose_decider, patient_job

ARMS = ("standard", "formula", "model")
FIELDS = ["patient", "arm", "tir", "below70", "below54", "above180", "above250", "mean", "cv", "lbgi",
          "hbgi", "gri", "insulin_u", "meals", "boluses", "bolus_max_u", "bolus_min_u", "max_bolus_setting",
          "refusals", "refusal_reasons", "no_insulin", "rechecks", "model_used_pct", "isf_clamped", "seconds"]


def say(text):
    print(f"insilico: {text}", file=sys.stderr, flush=True)


def toolkit_arm(tk, pid, folder, method, errors, trained=True):
    """`trained` False: the patient has no models (training refused its history), so `dose` is asked
    without `--models`, as that person would be dosed: the formula's effects (`model_unavailable`)."""
    return dose_decider(tk, pid, os.path.join(folder, "train") if trained else None,
                        os.path.join(folder, f"data-{method}.csv"), os.path.join(folder, "settings.json"), method, errors)


def run_patient(job):
    name, index, args, pid, folder, tk = patient_job(job)
    seeds = trial_seeds(args.seed, index)
    started = time.time()
    env = make_env(name, seeds["history_meals"], seeds["history_sensor"])
    history = Log(pid, cgm_minutes=args.cgm_minutes)
    run(env, args.history_days, standard_rule(name), history)
    history.write_csv(os.path.join(folder, "history.csv"))
    settings, clamped = write_settings(os.path.join(folder, "settings.json"), name, args.target)
    trained = False
    if "model" in args.arms or "formula" in args.arms:
        say(f"{pid}: {args.history_days} history days simulated, training")
        try:
            tk.train(os.path.join(folder, "history.csv"), os.path.join(folder, "train"), args.horizons,
                     args.population, args.generations, args.seed, os.path.join(folder, "train.log"))
            trained = True
        except RuntimeError as error:
            # Too little usable history (e.g. a 15-minute CGM at the sensor's floor most of the time):
            # the trainer refuses; the patient is still dosed, without models, and the run goes on.
            say(f"{pid}: no models ({error}); dosed without them")
    rows = []
    for arm in args.arms:
        t0 = time.time()
        env_arm = continued(env, seeds["trial_meals"], seeds["trial_sensor"])
        log = copy.deepcopy(history)
        errors, trace = [], []
        decide = standard_rule(name) if arm == "standard" else toolkit_arm(tk, pid, folder, arm, errors, trained)
        bg, insulin = run(env_arm, args.trial_days, decide, log, trace)
        asked = [d for *_, ds in trace for d in ds]
        decisions = [d for d in asked if d.final]  # one per meal: its last decision
        boluses = [d.units for d in asked if d.units > 0]
        refusals = Counter(code for d in decisions if d.decision == "refused" for code in (d.reasons or ("none",)))
        row = {"patient": pid, "arm": arm, **outcomes(bg, insulin), "meals": len(decisions),
               "boluses": len(boluses), "bolus_max_u": max(boluses, default=0.0),
               "bolus_min_u": min((d.units for d in asked), default=0.0),
               "max_bolus_setting": settings["maxBolus"],
               "refusals": sum(1 for d in decisions if d.decision == "refused"),
               "refusal_reasons": ";".join(f"{c}:{n}" for c, n in sorted(refusals.items())),
               "no_insulin": sum(1 for d in decisions if d.decision == "no_insulin"),
               "rechecks": sum(1 for d in asked if d.recheck),
               "model_used_pct": (100.0 * sum(d.model_used for d in decisions) / len(decisions)
                                  if decisions and arm == "model" else ""),
               "isf_clamped": int(clamped), "seconds": round(time.time() - t0, 1)}
        check_finite({k: v for k, v in row.items() if isinstance(v, float)})
        rows.append(row)
        with open(os.path.join(folder, f"trace-{arm}.csv"), "w") as out:
            # Glucose to 3 decimals: results.csv is computed from these values (at 0.1, 69.96 read as 70.0).
            # Several decisions in one step (a meal waiting and a new one) are joined by '+'.
            out.write("time,bg_mgdl,cgm_mgdl,carbs_g,bolus_u,decision,reasons\n")
            for t, b, c, g, u, ds in trace:
                decided = "+".join(("recheck:" if d.recheck else "") + d.decision for d in ds)
                out.write(f"{iso(t)},{b:.3f},{c:.3f},{g:.0f},{u:.2f},{decided},{'+'.join(' '.join(d.reasons) for d in ds)}\n")
        if errors:
            with open(os.path.join(folder, f"errors-{arm}.txt"), "w") as out:
                out.write("\n".join(errors) + "\n")
        say(f"{pid} {arm}: TIR {row['tir']:.1f}%, <70 {row['below70']:.1f}%, <54 {row['below54']:.1f}%, "
            f"{row['boluses']}/{row['meals']} meals bolused, {row['refusals']} refused ({row['seconds']} s)")
    say(f"{pid}: done in {time.time() - started:.0f} s")
    return rows


def summary(rows, arms):
    by = {(r["patient"], r["arm"]): r for r in rows}
    patients = sorted({r["patient"] for r in rows})
    keys = ["tir", "below70", "below54", "above180", "above250", "mean", "cv", "lbgi", "hbgi", "gri", "insulin_u"]
    lines = ["| arm | " + " | ".join(keys) + " | model dose used |", "|---" * (len(keys) + 2) + "|"]
    for arm in arms:
        mine = [r for r in rows if r["arm"] == arm]
        if not mine:
            continue
        med = [statistics.median(float(r[k]) for r in mine) for k in keys]
        used = [float(r["model_used_pct"]) for r in mine if r["model_used_pct"] != ""]
        meals = sum(r["meals"] for r in mine)
        used_all = (f"{sum(u * r['meals'] for u, r in zip(used, mine)) / meals:.1f}% of {meals} meals"
                    if used and meals else "")
        lines.append(f"| {arm} | " + " | ".join(f"{v:.2f}" for v in med) + f" | {used_all} |")
    lines.append("")
    if "standard" in arms:
        for arm in [a for a in arms if a != "standard"]:
            pairs = [(by[(p, arm)], by[(p, "standard")]) for p in patients if (p, arm) in by and (p, "standard") in by]
            if not pairs:
                continue
            n = len(pairs)
            lines.append(f"- {arm} vs standard over {n} patients: TIR >= standard for "
                         f"{sum(a['tir'] >= s['tir'] for a, s in pairs)}, within 1 point for "
                         f"{sum(abs(a['tir'] - s['tir']) <= 1 for a, s in pairs)}; <70 no higher for "
                         f"{sum(a['below70'] <= s['below70'] for a, s in pairs)}; <54 no higher for "
                         f"{sum(a['below54'] <= s['below54'] for a, s in pairs)}")
    for arm in [a for a in arms if a != "standard"]:
        mine = [r for r in rows if r["arm"] == arm]
        if mine:
            lines.append(f"- {arm}: meals asked about again (recheck_minutes: after a low, a 0 U below the target's rise, a refusal for the CGM): "
                         f"{sum(int(r.get('rechecks') or 0) for r in mine)} re-asks; "
                         f"no insulin at {sum(r['no_insulin'] for r in mine)} of {sum(r['meals'] for r in mine)} meals")
    over = [r for r in rows if r["bolus_max_u"] > r["max_bolus_setting"] + 1e-9 and r["arm"] != "standard"]
    negative = [r for r in rows if r["bolus_min_u"] < 0]
    lines.append(f"- toolkit boluses above the settings' max bolus: {len(over)}; negative: {len(negative)}")
    reasons = Counter()
    for r in rows:
        for part in filter(None, r["refusal_reasons"].split(";")):
            code, n = part.split(":")
            reasons[(r["arm"], code)] += int(n)
    for (arm, code), n in sorted(reasons.items()):
        lines.append(f"- refusals, {arm}: {code} x{n}")
    return "\n".join(lines) + "\n"


def plots(rows, out, arms):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        say("matplotlib missing: no plots")
        return
    patients = sorted({r["patient"] for r in rows})
    first = patients[0]
    fig, ax = plt.subplots(figsize=(11, 4))
    for arm in arms:
        path = os.path.join(out, first, f"trace-{arm}.csv")
        with open(path) as f:
            data = list(csv.DictReader(f))
        ax.plot(range(len(data)), [float(d["bg_mgdl"]) for d in data], label=arm, linewidth=1)
    ax.axhspan(70, 180, color="#2e7d32", alpha=0.08)
    for y in (54, 70, 180, 250):
        ax.axhline(y, color="#999", linewidth=0.6, linestyle="--")
    ax.set_title(f"{first}: true glucose over the trial days, per arm")
    ax.set_xlabel("3-minute samples")
    ax.set_ylabel("mg/dL")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "traces.svg"))
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(max(6, len(patients) * 0.45), 4))
    width = 0.8 / len(arms)
    by = {(r["patient"], r["arm"]): r["tir"] for r in rows}
    for i, arm in enumerate(arms):
        ax.bar([p + i * width for p in range(len(patients))], [by.get((p, arm), 0) for p in patients], width, label=arm)
    ax.set_xticks([p + width for p in range(len(patients))])
    ax.set_xticklabels(patients, rotation=70, fontsize=7)
    ax.set_ylabel("time in 70-180 mg/dL (%)")
    ax.set_ylim(0, 100)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "tir.svg"))
    plt.close(fig)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--patients", default="all", help="comma-separated simulator names (adolescent#001,...) or 'all'")
    p.add_argument("--history-days", type=int, default=10)
    p.add_argument("--trial-days", type=int, default=5)
    p.add_argument("--seed", type=int, default=1, help="seeds every scenario, sensor and training run")
    p.add_argument("--arms", default=",".join(ARMS))
    p.add_argument("--target", type=float, default=120, help="correction target of the settings files (mg/dL)")
    p.add_argument("--horizons", default="30,60,90,120")
    p.add_argument("--population", type=int, default=0, help="training population (0: the toolkit's default)")
    p.add_argument("--generations", type=int, default=0, help="training generations (0: the toolkit's default)")
    p.add_argument("--cgm-minutes", type=int, default=0, choices=(0, 15),
                   help="the exported CGM's interval: 0 every sensor sample (3 min), 15 a Libre's history")
    p.add_argument("--jobs", type=int, default=1, help="patients simulated at once")
    p.add_argument("--bin", default=".build/release", help="folder with glucomodel-train and glucomodel-predict")
    p.add_argument("--out", default="out/insilico")
    p.add_argument("--smoke", action="store_true",
                   help="one patient, 4 history days, 1 trial day, a tiny training budget (the test suite's run)")
    args = p.parse_args()
    if args.smoke:
        args.patients, args.history_days, args.trial_days = "adolescent#001", 4, 1
        args.population, args.generations, args.horizons = args.population or 40, args.generations or 4, "30,60"
    names = ALL if args.patients == "all" else args.patients.split(",")
    unknown = [n for n in names if n not in ALL]
    if unknown:
        p.error(f"unknown patients {unknown}; the simulator has {ALL[0]} ... {ALL[-1]}")
    args.arms = args.arms.split(",")
    wrong = [a for a in args.arms if a not in ARMS]
    if wrong:
        p.error(f"unknown arms {wrong}; the arms are {', '.join(ARMS)}")
    if args.history_days < 1 or args.trial_days < 1 or args.jobs < 1:
        p.error("--history-days, --trial-days and --jobs must be 1 or more")
    args.horizons = [int(h) for h in args.horizons.split(",")]
    args.bin = os.path.abspath(args.bin)
    Toolkit(args.bin)  # fails early when the executables are missing, before any folder is made
    os.makedirs(args.out, exist_ok=True)
    # What this run writes, from an earlier run into the same folder, goes first: an interrupted
    # run left the old results.csv beside new traces, and old models were dosed with (hunt G, stop 51).
    stale = [n for n in ("results.csv", "summary.md", "tir.svg", "traces.svg") if os.path.exists(os.path.join(args.out, n))]
    stale += [patient_id(n) for n in ALL if os.path.isdir(os.path.join(args.out, patient_id(n)))]
    if stale:
        say(f"{args.out}: removing an earlier run's {', '.join(stale)}")
        for n in stale:
            path = os.path.join(args.out, n)
            shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
    jobs = [(name, ALL.index(name), args) for name in names]
    try:
        with Pool(args.jobs) as pool:
            rows = [row for rows in pool.imap(run_patient, jobs) for row in rows]
    except RuntimeError as error:
        raise SystemExit(f"insilico: stopped: {error}")
    with open(os.path.join(args.out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.3f}" if isinstance(v, float) else v) for k, v in r.items()})
    text = summary(rows, args.arms)
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write(f"# In-silico trial: {len(names)} patients, {args.history_days} history days, "
                f"{args.trial_days} trial days, seed {args.seed}, target {args.target:g}\n\n" + text)
    plots(rows, args.out, args.arms)
    print(text)
    if args.smoke:
        arms = {r["arm"] for r in rows}
        if arms != set(args.arms) or any(r["meals"] == 0 for r in rows):
            raise SystemExit(f"insilico smoke: expected every arm with meals, got {sorted(arms)}")
        say(f"smoke trial passed: {len(rows)} arms, results in {args.out}")


if __name__ == "__main__":
    main()
