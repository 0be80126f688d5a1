/// The grammar flattened into integer arrays, so mapping does no String work per codon.
///
/// A symbol is one `Int32` code: `index << 2 | kind` with kind 0 = terminal (index into
/// `terminals`), 1 = non-terminal (index into rules), 2 = codon value (index into `codonRanges`).
struct GrammarTables: Sendable {
    static let unbounded = Int.max / 4
    static let kindTerminal: Int32 = 0, kindRule: Int32 = 1, kindCodon: Int32 = 2

    var terminals: [String] = []
    /// Terminals with their whitespace removed, as bytes (for matching seed phenotypes).
    var compactTerminals: [[UInt8]] = []
    var codonRanges: [Grammar.CodonRange] = []
    /// Productions of rule r are `ruleFirst[r] ..< ruleFirst[r + 1]`.
    var ruleFirst: [Int32] = [0]
    /// Symbols of production p are `symbols[productionFirst[p] ..< productionFirst[p + 1]]`.
    var productionFirst: [Int32] = [0]
    var symbols: [Int32] = []
    var productionRule: [Int32] = []
    var ruleMinDepth: [Int] = []
    /// Height of the smallest tree rooted at the production's rule node that uses this production.
    var productionMinDepth: [Int] = []
    /// True when a non-terminal of the production can derive the production's own rule again.
    var productionRecursive: [Bool] = []
    /// Fewest non-blank characters a rule can produce (for pruning the seed derivation search).
    var ruleMinLength: [Int] = []
    var ruleCount: Int { ruleFirst.count - 1 }

    init(rules: [Grammar.Rule]) {
        var terminalIndex: [String: Int32] = [:]
        for (r, rule) in rules.enumerated() {
            for p in rule.productions {
                for s in p.symbols {
                    switch s {
                    case let .terminal(t):
                        if terminalIndex[t] == nil {
                            terminalIndex[t] = Int32(terminals.count)
                            terminals.append(t)
                            compactTerminals.append(Array(t.utf8.filter { $0 != 32 && $0 != 9 && $0 != 10 && $0 != 13 }))
                        }
                        symbols.append(terminalIndex[t]! << 2 | Self.kindTerminal)
                    case let .nonTerminal(i):
                        symbols.append(Int32(i) << 2 | Self.kindRule)
                    case let .codonValue(c):
                        symbols.append(Int32(codonRanges.count) << 2 | Self.kindCodon)
                        codonRanges.append(c)
                    }
                }
                productionFirst.append(Int32(symbols.count))
                productionRule.append(Int32(r))
            }
            ruleFirst.append(Int32(productionFirst.count - 1))
        }
        computeDepths()
        computeRecursion()
        computeMinLengths()
    }

    func symbols(of production: Int) -> ArraySlice<Int32> {
        symbols[Int(productionFirst[production])..<Int(productionFirst[production + 1])]
    }

    func productions(of rule: Int) -> Range<Int> { Int(ruleFirst[rule])..<Int(ruleFirst[rule + 1]) }

    /// Fixed point of `minDepth(r) = min_p (1 + max_{non-terminal n in p} minDepth(n))`.
    private mutating func computeDepths() {
        ruleMinDepth = Array(repeating: Self.unbounded, count: ruleCount)
        productionMinDepth = Array(repeating: Self.unbounded, count: productionRule.count)
        var changed = true
        while changed {
            changed = false
            for p in productionRule.indices {
                var deepest = 0
                for code in symbols(of: p) where code & 3 == Self.kindRule {
                    deepest = max(deepest, ruleMinDepth[Int(code >> 2)])
                }
                let d = deepest >= Self.unbounded ? Self.unbounded : deepest + 1
                productionMinDepth[p] = d
                let r = Int(productionRule[p])
                if d < ruleMinDepth[r] { ruleMinDepth[r] = d; changed = true }
            }
        }
    }

    /// Rules reachable from `start` in one or more steps.
    func reachable(from start: Int, includingStart: Bool) -> [Bool] {
        var seen = Array(repeating: false, count: ruleCount)
        var stack = [start]
        if includingStart { seen[start] = true }
        while let r = stack.popLast() {
            for p in productions(of: r) {
                for code in symbols(of: p) where code & 3 == Self.kindRule {
                    let n = Int(code >> 2)
                    if !seen[n] { seen[n] = true; stack.append(n) }
                }
            }
        }
        return seen
    }

    private mutating func computeRecursion() {
        let reach = (0..<ruleCount).map { reachable(from: $0, includingStart: true) }
        productionRecursive = productionRule.indices.map { p in
            let r = Int(productionRule[p])
            return symbols(of: p).contains { $0 & 3 == Self.kindRule && reach[Int($0 >> 2)][r] }
        }
    }

    private mutating func computeMinLengths() {
        ruleMinLength = Array(repeating: Self.unbounded, count: ruleCount)
        var changed = true
        while changed {
            changed = false
            for p in productionRule.indices {
                var total = 0
                for code in symbols(of: p) {
                    total += symbolMinLength(code)
                    if total >= Self.unbounded { break }
                }
                let r = Int(productionRule[p])
                if total < ruleMinLength[r] { ruleMinLength[r] = total; changed = true }
            }
        }
    }

    func symbolMinLength(_ code: Int32) -> Int {
        switch code & 3 {
        case Self.kindTerminal: return compactTerminals[Int(code >> 2)].count
        case Self.kindRule: return ruleMinLength[Int(code >> 2)]
        default: return 1
        }
    }
}
