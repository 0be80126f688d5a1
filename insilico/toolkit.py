"""The toolkit's two executables, as a person's pipeline would call them."""
import json
import os
import subprocess

from patients import patient_id
from sim import Decision, iso


class Toolkit:
    def __init__(self, bin_dir):
        self.train_bin = os.path.join(bin_dir, "glucomodel-train")
        self.predict_bin = os.path.join(bin_dir, "glucomodel-predict")
        for path in (self.train_bin, self.predict_bin):
            if not os.access(path, os.X_OK):
                raise SystemExit(f"insilico: no executable {path} (build the package, or pass --bin DIR)")
        help_text = subprocess.run([self.predict_bin, "dose", "--help"], capture_output=True, text=True).stdout
        self.has_method = "--method" in help_text
        self.has_carbs_time = "--carbs-time" in help_text

    def train(self, data_csv, out_dir, horizons, population, generations, seed, log_path):
        cmd = [self.train_bin, data_csv, "--out", out_dir, "--horizons", ",".join(map(str, horizons)),
               "--seed", str(seed), "--threads", "1", "--time-zone", "UTC"]
        if population:
            cmd += ["--population", str(population)]
        if generations:
            cmd += ["--generations", str(generations)]
        with open(log_path, "w") as log:
            done = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT)
        if done.returncode not in (0, 2):
            raise RuntimeError(f"glucomodel-train exited {done.returncode}: see {log_path}")
        return done.returncode

    def dose(self, patient, models, data_csv, settings, carbs, at, method, eaten=None):
        """One suggestion: a `Decision` from `dose --format json` (docs/dosing.md's schema); `eaten`,
        when the carbohydrates were eaten before `at` (a re-ask after a low), with toolkits that take it."""
        cmd = [self.predict_bin, "dose", "--patient", patient] + (["--models", models] if models else []) + [
               "--data", data_csv, "--settings", settings, "--carbs", f"{carbs:.0f}", "--at", iso(at), "--time-zone", "UTC",
               "--format", "json"]
        if self.has_method:
            cmd += ["--method", method]
        if eaten is not None and self.has_carbs_time:
            cmd += ["--carbs-time", iso(eaten)]
        done = subprocess.run(cmd, capture_output=True, text=True)
        # 0 a decision, 3 a refusal; anything else is the tool failing (a crash, bad input), which
        # stops the trial: scored as a refusal it counted in the medians as meals without insulin,
        # and a smoke run with a broken tool passed (hunt G, stop 51).
        if done.returncode not in (0, 3):
            raise RuntimeError(f"glucomodel-predict dose exited {done.returncode} for {patient} at {iso(at)}: "
                               f"{done.stderr.strip()[-2000:]}")
        try:
            j = json.loads(done.stdout)
        except json.JSONDecodeError as error:
            raise RuntimeError(f"glucomodel-predict dose for {patient} at {iso(at)} wrote no JSON ({error}): {done.stdout[:500]}")
        if "formula_units" in j:  # the flat schema
            reasons = tuple(r["code"] for r in j.get("reasons", []))
            return Decision(units=float(j["units"] or 0.0), decision=j["decision"], reasons=reasons,
                            model_used=bool(j.get("model_used")),
                            recheck_minutes=j.get("recheck_minutes")), None
        return _legacy(j, method), None


def _legacy(j, method):
    """The nested JSON of toolkit versions before the flat schema (no --method there)."""
    reasons = tuple(r["code"] for r in j.get("reasons", []))
    decision = j.get("decision", {})
    if "bolus" in decision:
        basis = decision["bolus"].get("basis", "")
        if method == "formula":
            return Decision(units=float(j["standard"]["dose"]), reasons=reasons)
        return Decision(units=float(decision["bolus"]["units"]), reasons=reasons,
                        model_used=basis != "standard_formula")
    if "noInsulin" in decision or "no_insulin" in decision:
        return Decision(units=0.0, decision="no_insulin", reasons=reasons)
    return Decision(units=0.0, decision="refused", reasons=reasons)


def patient_job(job):
    """A worker's job `(name, index, args)` opened: its id, output folder (made) and toolkit."""
    name, index, args = job
    pid = patient_id(name)
    folder = os.path.join(args.out, pid)
    os.makedirs(folder, exist_ok=True)
    return name, index, args, pid, folder, Toolkit(args.bin)


def dose_decider(tk, patient, models, data_csv, settings, method, errors):
    """A meal's decision by `glucomodel-predict dose`: the log so far is written to `data_csv`
    first, as a person's devices would export it; a tool failure is kept in `errors`."""
    def decide(now, cgm, carbs, log, eaten=None):
        log.write_csv(data_csv)
        decision, error = tk.dose(patient, models, data_csv, settings, carbs, now, method, eaten)
        if error:
            errors.append(error)
        return decision
    return decide
