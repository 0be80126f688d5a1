#!/bin/sh
# Compares `glucomodel-predict dose --format json --method formula` (no models) on the cases
# DosePropertyTests dumps (GLUCOMODEL_DOSEPROP_DUMP=DIR) with the library's decision: decision,
# units, formula_units, net_iob_units and reason codes must agree (P5 through the command line).
# Usage: scripts/doseprop-cli.sh DIR  (after the suite ran with GLUCOMODEL_DOSEPROP_DUMP=DIR)
dir=${1:?usage: doseprop-cli.sh DIR}
bin=${GLUCOMODEL_PREDICT:-.build/debug/glucomodel-predict}
[ -d "$dir" ] || { echo "doseprop-cli: no folder $dir" >&2; exit 1; }
[ -x "$bin" ] || { echo "doseprop-cli: no executable $bin (build it, or set GLUCOMODEL_PREDICT)" >&2; exit 1; }
command -v jq > /dev/null || { echo "doseprop-cli: needs jq" >&2; exit 1; }
n=0; bad=0
for args in "$dir"/case_*.args; do
    [ -e "$args" ] || continue  # no case: the pattern itself
    c=${args%.args}
    # shellcheck disable=SC2046
    "$bin" dose $(cat "$args") --data "$c.csv" --settings "$c.settings.json" --method formula --format json > "$c.cli.json" 2> "$c.cli.err"
    keys='{d: .decision, u: .units, f: .formula_units, i: ((.net_iob_units // 0) * 1e6 | round), r: [.reasons[].code]}'
    if [ "$(jq -c "$keys" "$c.cli.json")" != "$(jq -c "$keys" "$c.expected.json")" ]; then
        bad=$((bad + 1)); echo "differs: $c"; jq -c "$keys" "$c.cli.json" "$c.expected.json"
    fi
    n=$((n + 1))
done
echo "$n cases, $bad differ"
# Nothing checked is no pass: a folder without cases (the suite run without GLUCOMODEL_DOSEPROP_DUMP).
[ "$n" -gt 0 ] || { echo "doseprop-cli: no case_*.args in $dir" >&2; exit 1; }
[ "$bad" -eq 0 ]
