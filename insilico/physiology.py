#!/usr/bin/env python3
"""What each virtual patient's body does with a unit of insulin and a gram of carbohydrate.

simglucose's Quest.csv gives every virtual patient a carb ratio (CR) and correction factor (CF):
the numbers its own bolus calculator uses. They are not measured from the patient's model. This
measures them from the simulated body, from the basal steady state (noise-free, no sensor):

- `cf_body`: the largest drop of glucose after a correction bolus, per unit (the bolus sized by
  Quest's CF to drop 20 mg/dL: small enough to stay in the body's linear range). A correction of
  (G - target)/CF units then brings glucose to the target at its lowest.
- `cr_body`: the grams whose rise one unit's fall balances over 12 hours: the area of the drop per
  unit over the area of the rise per gram of a 20 g meal eaten without insulin. A meal bolused by
  it leaves no net glucose excess over the day.

`glucomodel-predict settings` estimates a person's settings from their log; on the simulator, these
are what it can approach. `settings_trial.py` reports the errors against both.

    insilico/.venv/bin/python insilico/physiology.py [--out body.csv]
"""
import argparse
import csv
import logging
import sys
from collections import namedtuple
from functools import lru_cache

import numpy as np
from simglucose.patient.t1dpatient import T1DPatient

from patients import ALL, facts, patient_id

logging.getLogger("simglucose").setLevel(logging.WARNING)

_Action = namedtuple("_Action", ["insulin", "CHO"])  # what T1DPatient.step reads: U/min and g/min
MINUTES = 720
AT = 30  # the bolus or the meal, minutes after the start


def _glucose(name, bolus_u=0.0, carbs_g=0.0):
    """Subcutaneous glucose each minute of MINUTES, on the patient's basal, from its steady state."""
    patient = T1DPatient.withName(name)
    basal_u_per_min = facts(name)["basal_u_per_h"] / 60.0
    out = np.empty(MINUTES)
    for t in range(MINUTES):
        patient.step(_Action(insulin=basal_u_per_min + (bolus_u if t == AT else 0.0), CHO=carbs_g if t == AT else 0.0))
        out[t] = patient.observation.Gsub
    return out


@lru_cache(maxsize=None)
def body_settings(name):
    """{"cr_body": g/U, "cf_body": mg/dL/U} measured on the simulated body."""
    f = facts(name)
    units, grams = 20.0 / f["cf"], 20.0
    base = _glucose(name)
    drop = base - _glucose(name, bolus_u=units)
    rise = _glucose(name, carbs_g=grams) - base
    if not (drop.sum() > 0 and rise.sum() > 0):
        raise RuntimeError(f"{name}: no drop after insulin or no rise after carbohydrate")
    return {"cr_body": float((drop.sum() / units) / (rise.sum() / grams)), "cf_body": float(drop.max() / units)}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="-", help="CSV file, or - for standard output")
    args = p.parse_args()
    out = sys.stdout if args.out == "-" else open(args.out, "w", newline="")
    w = csv.writer(out)
    w.writerow(["patient", "cr_quest", "cr_body", "cf_quest", "cf_body"])
    for name in ALL:
        b, f = body_settings(name), facts(name)
        w.writerow([patient_id(name), f"{f['cr']:g}", f"{b['cr_body']:.2f}", f"{f['cf']:.2f}", f"{b['cf_body']:.2f}"])
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()
