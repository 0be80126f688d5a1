#!/usr/bin/env bash
# Times building the mapper's tables of a large generated grammar (`GrammarTables`: minimum
# depths, recursive productions, minimum lengths), and loading it whole (`Grammar(text:)`:
# parsing, then the tables) in a release build, for four shapes of
# grammar at 250 to 4,000 rules. GrammarEvolution is a library for any BNF grammar, and generated
# grammars can be large.
#   scripts/measure-grammar-tables.sh [BASE_REF [SIZES]]
#     BASE_REF  also measure this commit (e.g. HEAD~1) in the same run and print old/new ratios:
#               the machine may be shared, so compare ratios, not absolute figures.
#     SIZES     rule counts, comma-separated (default 250,500,1000,2000,4000).
# Shapes (n rules, each also holding a few terminals):
#   chain   <r_i> ::= a <r_i+1> | b <r_i+1> c, only the last rule finishes: depth and length
#           grow by one per rule, against the order the rules are written in
#   deep    a chain whose last rule leads back to the first, and each rule also calls itself:
#           one strongly connected component of n rules, depths up to n
#   wide    the start rule has n alternatives, one per rule; each rule has four alternatives
#           naming seeded random rules, one of which finishes
#   cycles  mutual recursion in cycles of 8 rules, each cycle leaving to the next one, only the
#           last cycle finishes
# Builds a throwaway package that depends on this checkout (and one on BASE_REF's files) under
# ${TMPDIR:-/tmp}/measure-grammar-tables; nothing is committed or left in the work tree.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
base_ref=${1:-}
sizes=${2:-250,500,1000,2000,4000}
work=${TMPDIR:-/tmp}/measure-grammar-tables
mkdir -p "$work"

# make_bench DIR PACKAGE_PATH: a package whose one executable times the grammar code of PACKAGE_PATH.
make_bench() {
    mkdir -p "$1/Sources/grammar-tables-bench"
    cat > "$1/Package.swift" <<EOF
// swift-tools-version:6.1
import PackageDescription
let package = Package(
    name: "GrammarTablesBench",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "GlucoModel", path: "$2")],
    targets: [.executableTarget(name: "grammar-tables-bench",
                                dependencies: [.product(name: "GrammarEvolution", package: "GlucoModel")])],
    swiftLanguageModes: [.v6])
EOF
    if [ -f "$repo/Package.resolved" ]; then cp "$repo/Package.resolved" "$1/"; fi
    cat > "$1/Sources/grammar-tables-bench/main.swift" <<'EOF'
import Foundation
@testable import GrammarEvolution

/// Seeded SplitMix64, so every build sees the same "wide" grammars.
struct Seeded {
    var state: UInt64
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}

func grammar(_ shape: String, rules n: Int) -> String {
    var lines: [String] = []
    switch shape {
    case "chain":
        for i in 0..<n - 1 { lines.append("<r\(i)> ::= a <r\(i + 1)> | b <r\(i + 1)> c") }
        lines.append("<r\(n - 1)> ::= z")
    case "deep":
        for i in 0..<n - 1 { lines.append("<r\(i)> ::= ( <r\(i + 1)> ) | <r\(i)> + <r\(i + 1)>") }
        lines.append("<r\(n - 1)> ::= x | <r0> * <r\(n - 1)>")
    case "wide":
        var random = Seeded(state: 7)
        lines.append("<r0> ::= " + (1..<n).map { "<r\($0)>" }.joined(separator: " | "))
        for i in 1..<n {
            let a = random.next(n), b = random.next(n), c = random.next(n), d = random.next(n)
            lines.append("<r\(i)> ::= <r\(a)> + <r\(b)> | f( <r\(c)> ) | <r\(d)> * v\(i) | v\(i)")
        }
    default:  // cycles
        let size = 8
        for i in 0..<n {
            let next = i % size == size - 1 ? i - size + 1 : i + 1
            let exit = i + size < n ? "<r\(i + size)>" : "x"
            lines.append("<r\(i)> ::= <r\(min(next, n - 1))> ; | \(exit) ,")
        }
    }
    return lines.joined(separator: "\n")
}

let sizes = CommandLine.arguments[1].split(separator: ",").map { Int($0)! }
let clock = ContinuousClock()
func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18 }
for shape in ["chain", "deep", "wide", "cycles"] {
    for n in sizes {
        let text = grammar(shape, rules: n)
        // Best of up to 3 runs, fewer when one run already takes over a second.
        var load = Double.infinity, tables = Double.infinity
        var productions = 0
        for _ in 0..<3 {
            var g: Grammar?
            load = min(load, seconds(clock.measure { g = try! Grammar(text: text) }))
            let rules = g!.rules
            productions = rules.reduce(0) { $0 + $1.productions.count }
            var t: GrammarTables?
            tables = min(tables, seconds(clock.measure { t = GrammarTables(rules: rules) }))
            precondition(t!.ruleCount == rules.count)
            if load > 1 { break }
        }
        print("\(shape) \(n) \(productions) \(tables) \(load)")
    }
}
EOF
}

# run LABEL PACKAGE_PATH -> "shape rules productions tables_s load_s" lines in $work/LABEL.txt.
# -enable-testing lets the benchmark build GrammarTables (internal) alone, without parsing.
run() {
    local dir="$work/bench-$1"
    make_bench "$dir" "$2"
    swift build -c release -Xswiftc -enable-testing --package-path "$dir" >&2
    "$dir/.build/release/grammar-tables-bench" "$sizes" > "$work/$1.txt"
}

echo "uptime: $(uptime)"
run new "$repo"
if [ -n "$base_ref" ]; then
    rm -rf "$work/base-src" && mkdir -p "$work/base-src"
    git archive "$base_ref" | tar -x -C "$work/base-src"
    run old "$work/base-src"
    echo "Seconds, best of up to 3 runs, release build; $base_ref (old) and this work tree (new)."
    echo "tables: GrammarTables(rules:) alone; load: Grammar(text:), parsing and tables."
    printf "%-7s %6s %11s %10s %10s %8s %10s %10s %8s\n" shape rules productions tables_old tables_new old/new load_old load_new old/new
    paste -d' ' "$work/old.txt" "$work/new.txt" | awk '{ printf "%-7s %6d %11d %10.4f %10.4f %8.1f %10.4f %10.4f %8.1f\n", $1, $2, $3, $4, $9, $4 / $9, $5, $10, $5 / $10 }'
else
    echo "Seconds, best of up to 3 runs, release build."
    echo "tables: GrammarTables(rules:) alone; load: Grammar(text:), parsing and tables."
    printf "%-7s %6s %11s %10s %10s\n" shape rules productions tables load
    awk '{ printf "%-7s %6d %11d %10.4f %10.4f\n", $1, $2, $3, $4, $5 }' "$work/new.txt"
fi
echo "uptime: $(uptime)"
