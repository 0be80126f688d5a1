#!/usr/bin/env python3
"""A patient whose report header carries many notes, for scripts/render-report.sh's print check.

Usage: crowded-patient.py TRAINING.xml TESTING.xml OUT.xml

Joins an OhioT1DM pair into one file and, counted back from its last glucose day:
- the sensor at its floor (39 mg/dL) from 02:00 to 05:00 on the 3rd and 6th last days (a note);
- a 1000 U bolus, skipped at import, at noon on the 2nd last day (a note);
- meals no longer logged, and boluses without their carbohydrate input, in the last 8 days
  (the model worse than persistence: a note).
With the models-trained-up-to note, the header has 4-5 notes of 1-4 lines.
"""
import datetime as dt
import re
import sys

training, testing, out = sys.argv[1:4]
stamp = re.compile(r'ts(?:_begin)?="([^"]+)"')


def day(line):
    m = stamp.search(line)
    return dt.datetime.strptime(m.group(1), "%d-%m-%Y %H:%M:%S") if m else None


texts = [open(training).read().splitlines(), open(testing).read().splitlines()]
last = max(day(l) for t in texts for l in t if "<event" in l and day(l)).date()
floor_days = {last - dt.timedelta(days=2), last - dt.timedelta(days=5)}
bolus_day = last - dt.timedelta(days=1)
quiet_from = last - dt.timedelta(days=7)

lines, section = [], None
for n, text in enumerate(texts):
    for line in text:
        m = re.match(r"\s*<(\w+)>\s*$", line)
        if m:
            section = m.group(1)
        if n == 1 and (line.startswith("<patient") or line.startswith("</patient") or line.startswith("<?xml")):
            continue
        if n == 0 and line.startswith("</patient"):
            continue
        if "<event" in line:
            t = day(line)
            if section == "meal" and t.date() >= quiet_from:
                continue
            if section == "bolus" and t.date() >= quiet_from:
                line = re.sub(r' bwz_carb_input="[^"]*"', "", line)
            if section == "glucose_level" and t.date() in floor_days and 2 <= t.hour < 5:
                line = re.sub(r'value="\d+"', 'value="39"', line)
        lines.append(line)
    if n == 0:
        when = bolus_day.strftime("%d-%m-%Y") + " 12:00:00"
        lines.append(f'  <bolus>\n    <event ts_begin="{when}" ts_end="{when}" type="normal" dose="1000"/>\n  </bolus>')
lines.append("</patient>")
open(out, "w").write("\n".join(lines) + "\n")
