"""How often a meter check disagrees with the CGM under `dose`'s `meter_disagrees` rule
(docs/dosing.md), in simglucose: its Dexcom sensor model (subcutaneous glucose, which lags the
blood's, and its noise) against a meter of ISO 15197 accuracy (SD 7.5% of blood glucose, 7.5 mg/dL
below 100). Each check is at a random time and the dose asked right after it, so only the CGM
reading before it is there. Prints the share of checks that disagree for the limits used
(DoseGuards.meterDisagreementLimit / Share, 40 mg/dL or 40%) and for others.

    insilico/.venv/bin/python insilico/meter_agreement.py [--checks 300] [--days 3]
"""
import argparse
import logging
import random
from datetime import datetime

from simglucose.actuator.pump import InsulinPump
from simglucose.controller.basal_bolus_ctrller import BBController
from simglucose.patient.t1dpatient import T1DPatient
from simglucose.sensor.cgm import CGMSensor
from simglucose.simulation.env import T1DSimEnv
from simglucose.simulation.scenario_gen import RandomScenario

logging.getLogger("simglucose").setLevel(logging.WARNING)

PATIENTS = ["adolescent#001", "adolescent#004", "adult#002", "adult#007", "child#003", "child#008"]
LAG, LIVING_RATE = 15.0, 5.0  # DoseGuards.cgmLag (min), livingRate (mg/dL a minute)


def run(name, seed, days):
    """(minute, blood glucose, CGM reading) every sensor sample, simglucose's basal-bolus controller."""
    sensor = CGMSensor.withName("Dexcom", seed=seed)
    env = T1DSimEnv(T1DPatient.withName(name), sensor, InsulinPump.withName("Insulet"),
                    RandomScenario(start_time=datetime(2026, 1, 5), seed=seed))
    controller = BBController()
    obs, reward, done, info = env.reset()
    out, t = [], 0.0
    while t < days * 1440:
        obs, reward, done, info = env.step(controller.policy(obs, reward, done, **info))
        t += sensor.sample_time
        out.append((t, info["bg"], obs.CGM))
    return out


def lag_band(i, series):
    """DoseGuards.lagBand: from the reading to where its trend over the 15 minutes before goes in LAG."""
    t, _, cgm = series[i]
    j = i
    while j > 0 and series[j - 1][0] >= t - 15:
        j -= 1
    if t - series[j][0] < 5:
        return cgm, cgm
    rate = max(-LIVING_RATE, min(LIVING_RATE, (cgm - series[j][2]) / (t - series[j][0])))
    ahead = cgm + rate * LAG
    return min(cgm, ahead), max(cgm, ahead)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checks", type=int, default=300, help="meter checks per patient")
    parser.add_argument("--days", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rules = [("40 mg/dL or 40%, with the lag (the rule)", 40, 0.4, True),
             ("30 mg/dL or 30%, with the lag", 30, 0.3, True),
             ("20 mg/dL or 20%, with the lag", 20, 0.2, True),
             ("20 mg/dL or 20%, without", 20, 0.2, False)]
    rng = random.Random(args.seed)
    disagree, n = [0] * len(rules), 0
    for k, name in enumerate(PATIENTS):
        series = run(name, 10 + k, args.days)
        for _ in range(args.checks):
            i = rng.randrange(10, len(series) - 1)
            _, bg, cgm = series[i]
            meter = bg * (1 + rng.gauss(0, 0.075)) if bg >= 100 else bg + rng.gauss(0, 7.5)
            n += 1
            for r, (_, limit, share, lagged) in enumerate(rules):
                tolerance = max(limit, share * meter)
                lo, hi = lag_band(i, series) if lagged else (cgm, cgm)
                if not lo - tolerance <= meter <= hi + tolerance:
                    disagree[r] += 1
    for (label, *_), d in zip(rules, disagree):
        print(f"{label}: {d} of {n} checks disagree ({100 * d / n:.1f}%)")


if __name__ == "__main__":
    main()
