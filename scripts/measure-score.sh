#!/bin/sh
# Times `glucomodel-predict score` on a generated 1,000,000-row CSV in a release build.
# Usage: scripts/measure-score.sh [rows]
set -eu
ROWS=${1:-1000000}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
awk -v n="$ROWS" 'BEGIN { srand(42); print "reference,prediction";
  for (i = 0; i < n; i++) { r = 40 + int(rand() * 3600) / 10; p = r * (0.6 + rand() * 0.8);
    printf "%.1f,%.1f\n", r, p } }' > "$DIR/pairs.csv"
swift build -c release --product glucomodel-predict >/dev/null
BIN=$(swift build -c release --show-bin-path)/glucomodel-predict
echo "rows: $ROWS"
/usr/bin/time -f "score --out: %e s wall, %M KB max RSS" "$BIN" score --pairs "$DIR/pairs.csv" --out "$DIR/zones.csv"
/usr/bin/time -f "score to stdout: %e s wall" "$BIN" score --pairs "$DIR/pairs.csv" > /dev/null
wc -l "$DIR/zones.csv"
