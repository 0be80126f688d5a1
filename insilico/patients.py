"""The simulator's virtual patients and the settings a clinician would have for them."""
import json

import pandas as pd
import pkg_resources

QUEST = pd.read_csv(pkg_resources.resource_filename("simglucose", "params/Quest.csv"))
PARAMS = pd.read_csv(pkg_resources.resource_filename("simglucose", "params/vpatient_params.csv"))

ALL = [f"{group}#{i:03d}" for group in ("adolescent", "adult", "child") for i in range(1, 11)]

# Loop's guardrails (shared/specs/dosing.md): a pump or app does not accept an ISF below 10
# mg/dL/U. Four of the simulator's adults have a correction factor of 7.6-9.2; their settings
# file carries 10, as a clinician's device would, and results.csv says so (isf_clamped).
ISF_LIMITS = (10.0, 500.0)


def patient_id(name):
    """The toolkit's pseudonymous id for a simulator name: adolescent#001 -> adolescent_001."""
    return name.replace("#", "_")


def facts(name):
    """CR (g/U), CF (mg/dL/U), TDI (U/day), body weight (kg) and basal (U/h) of a virtual patient."""
    q = QUEST[QUEST.Name == name].iloc[0]
    p = PARAMS[PARAMS.Name == name].iloc[0]
    basal_u_per_min = float(p.u2ss) * float(p.BW) / 6000.0  # simglucose's BBController
    return {"cr": float(q.CR), "cf": float(q.CF), "tdi": float(q.TDI), "bw": float(p.BW),
            "basal_u_per_h": basal_u_per_min * 60.0}


def settings(name, target):
    """The settings file (docs/dosing.md) from the patient's own CR, CF and basal rate."""
    f = facts(name)
    isf = min(max(f["cf"], ISF_LIMITS[0]), ISF_LIMITS[1])
    child = name.startswith("child")
    return {
        "patient": patient_id(name),
        "carbRatio": round(f["cr"], 2),
        "insulinSensitivity": round(isf, 2),
        "target": target,
        "suspendThreshold": 70,
        # Half the total daily insulin, within 5-30 U: above any meal bolus of the scenarios
        # (at most ~100 g) for every patient, below what a pump would let through by mistake.
        "maxBolus": round(min(30.0, max(5.0, 0.5 * f["tdi"])), 1),
        "bolusIncrement": 0.05,
        "insulinPeakMinutes": 65 if child else 75,
        "insulinDurationMinutes": 360,
        "basalSchedule": [{"start": "00:00", "unitsPerHour": round(f["basal_u_per_h"], 4)}],
    }, isf != f["cf"]


def write_settings(path, name, target):
    data, clamped = settings(name, target)
    with open(path, "w") as out:
        json.dump(data, out, indent=2)
    return data, clamped
