#!/usr/bin/env bash
# Evaluator throughput on the issue's workload (300 random expressions of 20-50 nodes, 8 columns),
# with a plain C batched interpreter (-O3 -march=native) as the reference in the same run: the
# machine may be shared, so compare ratios, not absolute figures.
#
# Usage: scripts/bench-eval.sh [native|portable|both] [ROWS] [REPEATS]
#   native   (default) the ordinary `swift build -c release`: GrammarEvolution is compiled for
#            this machine's CPU (-target-cpu native, GE_FMA where the CPU has FMA; Package.swift).
#   portable GLUCOMODEL_PORTABLE=1 build (baseline CPU, no GE_FMA) in its own scratch path
#            .build-portable, so that switching modes does not rebuild the other one.
#   both     both builds, measured one after the other in this run.
# GLUCOMODEL_TRAIN=PATH measures that glucomodel-train binary instead of building one (the mode is
# then only its label).
# After each workload it prints Swift's speed against C's as C's time per pass over Swift's (above 1:
# Swift is faster): the same expressions on the same rows, so it does not depend on how each counts
# nodes (C counts a negative literal as two, so its GPops/s are ~5 % higher for the same time).
# Writes generated expressions and the C binaries under ${TMPDIR:-/tmp}/bench-eval (nothing committed).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=native
if [[ "${1:-}" =~ ^(native|portable|both)$ ]]; then mode=$1; shift; fi
rows=${1:-100000}
repeats=${2:-5}
work=${TMPDIR:-/tmp}/bench-eval
mkdir -p "$work"

build() { # build MODE -> prints the binary's path
    if [[ -n ${GLUCOMODEL_TRAIN:-} ]]; then
        echo "$GLUCOMODEL_TRAIN"
    elif [[ $1 == portable ]]; then
        GLUCOMODEL_PORTABLE=1 swift build -c release --product glucomodel-train --scratch-path .build-portable >&2
        echo .build-portable/release/glucomodel-train
    else
        swift build -c release --product glucomodel-train >&2
        echo .build/release/glucomodel-train
    fi
}
case $mode in
    both) modes=(native portable) ;;
    *) modes=("$mode") ;;
esac
declare -A bins
for m in "${modes[@]}"; do bins[$m]=$(build "$m"); done
cc -O3 -march=native -o "$work/bi-float" scripts/reference/batched_interpreter.c -lm
cc -O3 -march=native -DUSE_DOUBLE -o "$work/bi-double" scripts/reference/batched_interpreter.c -lm

# 300 random expressions of 20-50 nodes, 8 columns (seeded, so every run and mode sees the same).
gen=${bins[${modes[0]}]}
"$gen" bench-eval --expressions "$work/arith.txt" --generate-expressions 300 --min-nodes 20 --max-nodes 50 \
    --operators "+,-,*,/" --rows 1000 --repeat 1 > /dev/null
"$gen" bench-eval --expressions "$work/mixed.txt" --generate-expressions 300 --min-nodes 20 --max-nodes 50 \
    --operators "+,-,*,/,+,-,*,/,aq,sin,exp,log" --rows 1000 --repeat 1 > /dev/null

# Runs a measurement, prints its output and keeps its minimum time per pass (ms) in $ms.
measure() {
    local out
    out=$("$@")
    printf '%s\n' "$out"
    ms=$(sed -n 's/.*min \([0-9.]*\) ms.*/\1/p' <<<"$out" | head -n 1)
    [[ -n $ms ]] || { echo "bench-eval.sh: no 'min ... ms' in the output of $*" >&2; exit 1; }
}
ratio() { awk -v c="$1" -v s="$2" 'BEGIN { printf "%.2f", c / s }'; }

for set in arith mixed; do
    declare -A float1 float2 double1
    for m in "${modes[@]}"; do
        echo "== $set: Swift evaluator, $m build"
        measure "${bins[$m]}" bench-eval --expressions "$work/$set.txt" --rows "$rows" --repeat "$repeats" --precision float --threads 1
        float1[$m]=$ms
        measure "${bins[$m]}" bench-eval --expressions "$work/$set.txt" --rows "$rows" --repeat "$repeats" --precision float --threads 2
        float2[$m]=$ms
        measure "${bins[$m]}" bench-eval --expressions "$work/$set.txt" --rows "$rows" --repeat "$repeats" --precision double --threads 1
        double1[$m]=$ms
    done
    echo "== $set: C reference (-O3 -march=native, libm transcendentals)"
    measure "$work/bi-float" "$work/$set.txt" "$rows" 8 "$repeats"
    cfloat=$ms
    measure "$work/bi-double" "$work/$set.txt" "$rows" 8 "$repeats"
    cdouble=$ms
    echo "== $set: Swift / C speed (C's minimum time per pass / Swift's; same expressions and rows; above 1: Swift faster)"
    for m in "${modes[@]}"; do
        echo "$m build: Float32 $(ratio "$cfloat" "${float1[$m]}") (2 threads against C's 1: $(ratio "$cfloat" "${float2[$m]}")), Float64 $(ratio "$cdouble" "${double1[$m]}")"
    done
    unset float1 float2 double1
done
