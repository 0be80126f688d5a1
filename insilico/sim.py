"""Running a virtual patient: the simulator, the patient's log as the toolkit reads it, the arms."""
import copy
import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from simglucose.actuator.pump import InsulinPump
from simglucose.controller.base import Action
from simglucose.patient.t1dpatient import T1DPatient
from simglucose.sensor.cgm import CGMSensor
from simglucose.simulation.env import T1DSimEnv
from simglucose.simulation.scenario_gen import RandomScenario

from patients import facts, patient_id

logging.getLogger("simglucose").setLevel(logging.WARNING)

START = datetime(2026, 1, 5)  # simulated clock, written as UTC


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Log:
    """What the person's devices recorded: CGM, basal, boluses (with carbs) and meals."""
    patient: str
    glucose: list = field(default_factory=list)  # (time, mg/dL)
    boluses: list = field(default_factory=list)  # (time, U)
    carbs: list = field(default_factory=list)    # (time, g)
    basal: list = field(default_factory=list)    # (time, U/h), when the rate changes
    cgm_minutes: int = 0  # the CGM's recording interval in the export: 0 every sensor sample (3 min)

    def write_csv(self, path):
        """GlucoModel CSV (README, "GlucoModel CSV"), rows in time order. With `cgm_minutes`, only
        the readings on that interval since START are exported (15: a Libre's history)."""
        kept = [(t, v) for t, v in self.glucose
                if not self.cgm_minutes or int((t - START).total_seconds()) % (60 * self.cgm_minutes) == 0]
        rows = [(t, "glucose", f"{v:.1f}", "mg/dL", "cgm") for t, v in kept]
        rows += [(t, "bolus", f"{u:.2f}", "U", "normal") for t, u in self.boluses if u > 0]
        rows += [(t, "carbs", f"{g:.0f}", "g", "") for t, g in self.carbs]
        rows += [(t, "basal", f"{r:.4f}", "U/h", "") for t, r in self.basal]
        rows.sort(key=lambda r: (r[0], r[1]))
        with open(path, "w") as out:
            out.write("patient,time,event,value,unit,duration,type\n")
            for t, event, value, unit, kind in rows:
                out.write(f"{self.patient},{iso(t)},{event},{value},{unit},,{kind}\n")


def seeds(seed, index):
    """Every scenario and sensor seed of patient `index` for a run seeded `seed`."""
    return {k: 1000 * seed + offset + index for k, offset in
            (("history_meals", 0), ("history_sensor", 100), ("trial_meals", 200), ("trial_sensor", 300))}


def make_env(name, scenario_seed, sensor_seed):
    patient = T1DPatient.withName(name)
    sensor = CGMSensor.withName("Dexcom", seed=sensor_seed)
    pump = InsulinPump.withName("Insulet")
    return T1DSimEnv(patient, sensor, pump, RandomScenario(start_time=START, seed=scenario_seed))


def continued(env, scenario_seed, sensor_seed):
    """A copy of `env` with the patient's state as it is, a new meal scenario and a new sensor:
    every arm of a trial starts from one such copy made with the same seeds."""
    copied = copy.deepcopy(env)
    copied.scenario = RandomScenario(start_time=START, seed=scenario_seed)
    copied.sensor = CGMSensor.withName("Dexcom", seed=sensor_seed)
    # A new sensor holds 0 until its first sample: the first trial reading averaged it in (36 mg/dL
    # at a true 102, below the sensor's floor, in every toolkit arm's log; hunt G, stop 51). It
    # holds the last reading instead, as the sensor on the body would.
    copied.sensor._last_CGM = env.sensor._last_CGM
    return copied


@dataclass
class Decision:
    units: float
    decision: str = "bolus"          # bolus, no_insulin, refused
    reasons: tuple = ()              # reason codes
    model_used: bool = False
    recheck_minutes: int = None      # the toolkit's "ask again in N minutes with these carbs"
    final: bool = True               # the meal's last decision (False: asked again later)
    recheck: bool = False            # this decision was a re-ask, not the meal itself


def standard_rule(name, target=140):
    """simglucose's BBController at a meal: carbs/CR + (CGM > 150) (CGM - target)/CF."""
    f = facts(name)

    def decide(now, cgm, carbs, log, eaten=None):
        units = carbs / f["cr"] + (cgm > 150) * (cgm - target) / f["cf"]
        return Decision(units=max(0.0, units))
    return decide


def run(env, days, decide, log, trace=None, recheck_window=60):
    """Steps `env` for `days` days with the patient's basal and `decide`'s meal boluses,
    recording what a person's devices would into `log` (and every sample into `trace`).

    A person follows the advice: when a meal gets no insulin with `recheck_minutes` (glucose
    low), they eat, and ask again after those minutes with the carbohydrates not yet covered and
    the time they ate them (`decide`'s `eaten`), for up to `recheck_window` minutes after the
    meal; the carbohydrates are logged at the time they were eaten, with the bolus that covers
    them (as a pump's bolus calculator records them) or, deferred, once the last ask is answered.
    A new meal while an earlier one waits: the earlier is asked about first, with its own time,
    then the new one (until stop 51 one ask for both, as eaten now, the way docs/insilico.md shows
    to be harmful); what both asks give is one bolus. The standard rule never defers. Each trace
    row's last field is the list of the step's decisions. Returns the true BG and the insulin
    delivered (U)."""
    f = facts(env.patient.name)
    basal_u_per_min = f["basal_u_per_h"] / 60.0
    sample = env.sample_time
    steps = int(days * 24 * 60 / sample)
    if not log.basal:
        log.basal.append((env.time, f["basal_u_per_h"]))
    bg, insulin = [], 0.0
    meal_grams, bolus = 0.0, 0.0
    pending = []  # [(carbs, meal time, time to ask again)]: meals eaten at a low, not yet covered
    for _ in range(steps):
        now = env.time
        cgm = env.CGM_hist[-1]
        # (carbs, when eaten, a re-ask): the meals waiting that are due (all of them at a new
        # meal), then the new meal. A re-ask is about carbohydrates the log does not hold yet.
        due = [p for p in pending if meal_grams > 0 or now >= p[2]]
        pending = [p for p in pending if p not in due]
        asks = [(carbs, eaten, True) for carbs, eaten, _ in due]
        if meal_grams > 0:
            asks.append((meal_grams, now - timedelta(minutes=sample), False))
        decisions = []
        for carbs, meal_time, recheck in asks:
            decision = decide(now, cgm, carbs, log, eaten=meal_time if recheck else None)
            decision.recheck = recheck
            again = decision.recheck_minutes
            if decision.units <= 0 and again and now + timedelta(minutes=again) <= meal_time + timedelta(minutes=recheck_window):
                decision.final = False
                pending.append((carbs, meal_time, now + timedelta(minutes=again)))
            else:
                log.carbs.append((meal_time, carbs))  # when eaten, as the re-ask says
            bolus += max(0.0, decision.units)
            decisions.append(decision)
            # The bolus is logged with the carbohydrates it covers before the next ask, as a pump
            # records it: one bolus for the step's asks, as one injection, so a second ask replaces
            # the step's record with the sum. (Until stop 52 it was logged after every ask: the new
            # meal was asked about with the waiting meal's carbohydrates logged and no bolus for
            # them, which no pump holds; the models then dosed that meal a second time.)
            if bolus > 0:
                if log.boluses and log.boluses[-1][0] == now:
                    log.boluses[-1] = (now, bolus)
                else:
                    log.boluses.append((now, bolus))
        step = env.step(Action(basal=basal_u_per_min, bolus=bolus / sample))
        insulin += step.info["sample_time"] * sum(env.insulin_hist[-1:])
        if trace is not None:
            trace.append((now, env.BG_hist[-1], env.CGM_hist[-1], meal_grams, bolus, decisions))
        bolus = 0.0
        meal_grams = step.info["meal"] * sample
        log.glucose.append((env.time, step.observation.CGM))
        bg.append(step.info["bg"])
    return bg, insulin
