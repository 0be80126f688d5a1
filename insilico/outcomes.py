"""Outcomes of a trial arm on the true blood glucose (shared/specs: cgm-metrics.md, insilico.md).

Every figure is computed from the simulator's true BG at each sample, never the CGM.
LBGI/HBGI follow Kovatchev's definition as the toolkit's metrics do (the mean of r over *all*
readings, readings on the other side counting 0), not simglucose's risk_index, which averages
over the low (or high) readings only.
"""
import math

import numpy as np


def risk(bg):
    """(LBGI, HBGI): f = 1.509 (ln(G)^1.084 - 5.381), r = 10 f^2."""
    g = np.clip(np.asarray(bg, dtype=float), 1.0, None)
    f = 1.509 * (np.log(g) ** 1.084 - 5.381)
    r = 10 * f ** 2
    return float(np.mean(np.where(f < 0, r, 0.0))), float(np.mean(np.where(f > 0, r, 0.0)))


def outcomes(bg, insulin_units):
    """Percentages of samples in each range, mean, CV, LBGI, HBGI, GRI and total insulin (U)."""
    g = np.asarray(bg, dtype=float)
    n = len(g)
    if n == 0:
        raise ValueError("no glucose samples")

    def pct(mask):
        return 100.0 * float(np.count_nonzero(mask)) / n

    below54, below70 = pct(g < 54), pct(g < 70)
    above180, above250 = pct(g > 180), pct(g > 250)
    tir = pct((g >= 70) & (g <= 180))
    lbgi, hbgi = risk(g)
    gri = min(100.0, 3.0 * below54 + 2.4 * (below70 - below54) + 1.6 * above250 + 0.8 * (above180 - above250))
    mean = float(np.mean(g))
    # The sample SD, as the toolkit's metrics and iglu's cv() take it (numpy's default is the
    # population's: hunt T, stop 53; over a trial's thousands of samples the two differ in the
    # fourth digit).
    sd = float(np.std(g, ddof=1)) if n > 1 else 0.0
    return {
        "tir": tir, "below70": below70, "below54": below54, "above180": above180, "above250": above250,
        "mean": mean, "cv": 100.0 * sd / mean, "lbgi": lbgi, "hbgi": hbgi, "gri": gri,
        "insulin_u": float(insulin_units),
    }


def check_finite(row):
    """Raises when any number of an outcome row is not finite (the smoke test's check)."""
    for key, value in row.items():
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{key} is not finite: {value}")
