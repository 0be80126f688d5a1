#!/usr/bin/env bash
# Evaluator throughput on the issue's workload, with a plain C batched interpreter as the
# reference in the same run (the machine may be shared: compare ratios, not absolute figures).
#
# Usage: scripts/bench-eval.sh [ROWS] [REPEATS]
# Writes generated expressions and the C binary under ${TMPDIR:-/tmp}/bench-eval (nothing committed).
# To let Swift use AVX2/FMA like the C build, set SWIFT_TARGET_CPU=haswell (separate build dir);
# that build also defines GE_FMA (fused multiply-adds in the Float vector math; the CPU must
# have FMA, as haswell and later do).
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-100000}
repeats=${2:-5}
work=${TMPDIR:-/tmp}/bench-eval
mkdir -p "$work"

if [[ -n "${SWIFT_TARGET_CPU:-}" ]]; then
    scratch=.build-$SWIFT_TARGET_CPU
    swift build -c release --product glucomodel-train --scratch-path "$scratch" \
        -Xswiftc -target-cpu -Xswiftc "$SWIFT_TARGET_CPU" -Xswiftc -DGE_FMA
    bin=$scratch/release/glucomodel-train
else
    swift build -c release --product glucomodel-train
    bin=.build/release/glucomodel-train
fi
cc -O3 -march=native -o "$work/bi-float" scripts/reference/batched_interpreter.c -lm
cc -O3 -march=native -DUSE_DOUBLE -o "$work/bi-double" scripts/reference/batched_interpreter.c -lm

# 300 random expressions of 20-50 nodes, 8 columns (seeded).
"$bin" bench-eval --expressions "$work/arith.txt" --generate-expressions 300 --min-nodes 20 --max-nodes 50 \
    --operators "+,-,*,/" --rows 1000 --repeat 1 > /dev/null
"$bin" bench-eval --expressions "$work/mixed.txt" --generate-expressions 300 --min-nodes 20 --max-nodes 50 \
    --operators "+,-,*,/,+,-,*,/,aq,sin,exp,log" --rows 1000 --repeat 1 > /dev/null

for set in arith mixed; do
    echo "== $set: Swift evaluator"
    "$bin" bench-eval --expressions "$work/$set.txt" --rows "$rows" --repeat "$repeats" --precision float --threads 1
    "$bin" bench-eval --expressions "$work/$set.txt" --rows "$rows" --repeat "$repeats" --precision float --threads 2
    "$bin" bench-eval --expressions "$work/$set.txt" --rows "$rows" --repeat "$repeats" --precision double --threads 1
    echo "== $set: C reference (-O3 -march=native, libm transcendentals)"
    "$work/bi-float" "$work/$set.txt" "$rows" 8 "$repeats"
    "$work/bi-double" "$work/$set.txt" "$rows" 8 "$repeats"
done
