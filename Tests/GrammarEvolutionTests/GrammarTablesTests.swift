import Foundation
import Testing
@testable import GrammarEvolution

/// The mapper's tables (minimum depths and lengths, recursive productions) against the
/// obviously correct computations they replaced: fixed points found by sweeping every production
/// until nothing changes, and a reachability search from every rule. These are quadratic, so the
/// grammars compared are small; large grammars are timed by scripts/measure-grammar-tables.sh.
@Suite struct GrammarTablesTests {
    /// The tables as the sweeping reference computes them from the same flat arrays.
    struct Reference: Equatable {
        var ruleMinDepth: [Int]
        var productionMinDepth: [Int]
        var productionRecursive: [Bool]
        var ruleMinLength: [Int]

        init(ruleMinDepth: [Int], productionMinDepth: [Int], productionRecursive: [Bool], ruleMinLength: [Int]) {
            self.ruleMinDepth = ruleMinDepth
            self.productionMinDepth = productionMinDepth
            self.productionRecursive = productionRecursive
            self.ruleMinLength = ruleMinLength
        }

        init(tablesOf t: GrammarTables) {
            let unbounded = GrammarTables.unbounded
            let productionCount = t.productionRule.count
            // Minimum depths: sweep all productions until no rule's depth falls.
            var depth = Array(repeating: unbounded, count: t.ruleCount)
            var productionDepth = Array(repeating: unbounded, count: productionCount)
            var changed = true
            while changed {
                changed = false
                for p in 0..<productionCount {
                    var deepest = 0
                    for code in t.symbols(of: p) where code & 3 == GrammarTables.kindRule {
                        deepest = max(deepest, depth[Int(code >> 2)])
                    }
                    let d = deepest >= unbounded ? unbounded : deepest + 1
                    productionDepth[p] = d
                    let r = Int(t.productionRule[p])
                    if d < depth[r] { depth[r] = d; changed = true }
                }
            }
            // Recursion: search from each non-terminal of the production for the production's rule.
            let reach = (0..<t.ruleCount).map { t.reachable(from: $0, includingStart: true) }
            let recursive = (0..<productionCount).map { p in
                t.symbols(of: p).contains { $0 & 3 == GrammarTables.kindRule && reach[Int($0 >> 2)][Int(t.productionRule[p])] }
            }
            // Minimum lengths: sweep until no rule's length falls, capping sums at `unbounded`.
            var length = Array(repeating: unbounded, count: t.ruleCount)
            changed = true
            while changed {
                changed = false
                for p in 0..<productionCount {
                    var total = 0
                    for code in t.symbols(of: p) {
                        switch code & 3 {
                        case GrammarTables.kindTerminal: total += t.compactTerminals[Int(code >> 2)].count
                        case GrammarTables.kindRule: total += length[Int(code >> 2)]
                        default: total += 1
                        }
                        if total >= unbounded { break }
                    }
                    let r = Int(t.productionRule[p])
                    if total < length[r] { length[r] = total; changed = true }
                }
            }
            self.init(ruleMinDepth: depth, productionMinDepth: productionDepth,
                      productionRecursive: recursive, ruleMinLength: length)
        }
    }

    /// What the tables hold, to compare with the reference whole.
    static func found(_ t: GrammarTables) -> Reference {
        Reference(ruleMinDepth: t.ruleMinDepth, productionMinDepth: t.productionMinDepth,
                  productionRecursive: t.productionRecursive, ruleMinLength: t.ruleMinLength)
    }

    /// A seeded random grammar: self and mutual recursion, unreachable rules, undefined rules (no
    /// productions), rules that derive nothing finite, empty productions, blank terminals (length
    /// 0), codon values and long terminals.
    static func randomRules(_ random: inout RandomSource) -> [Grammar.Rule] {
        func below(_ n: Int) -> Int { Int(random.next() % UInt64(n)) }
        let terminals = ["x", "", " ", "sin(", "+", String(repeating: "long", count: 50), " \t\n", "ab cd"]
        let ruleCount = 1 + below(30)
        return (0..<ruleCount).map { r in
            // About one rule in eight is undefined (no productions).
            let productionCount = below(8) == 0 ? 0 : 1 + below(4)
            let productions = (0..<productionCount).map { _ in
                let symbols: [Grammar.Symbol] = (0..<below(5)).map { _ in
                    switch below(10) {
                    case 0..<3: return .terminal(terminals[below(terminals.count)])
                    case 3: return .codonValue(.init(lower: 0, upper: Double(below(10)), isInteger: true))
                    case 4: return .nonTerminal(r)  // self recursion
                    case 5: return .nonTerminal(max(0, r - 1 - below(3)))  // back to a recent rule: cycles
                    default: return .nonTerminal(below(ruleCount))
                    }
                }
                return Grammar.Production(symbols: symbols, line: 1)
            }
            return Grammar.Rule(name: "r\(r)", line: productionCount == 0 ? nil : r + 1, productions: productions)
        }
    }

    @Test func matchesTheSweepingReferenceOnRandomGrammars() {
        var random = RandomSource(seed: 41)
        var seen = (unbounded: 0, finite: 0, recursive: 0, notRecursive: 0)
        for _ in 0..<2_000 {
            let rules = Self.randomRules(&random)
            let t = GrammarTables(rules: rules)
            let found = Self.found(t)
            let reference = Reference(tablesOf: t)
            #expect(found == reference, "\(rules.map { $0.productions.map(\.symbols) })")
            if found != reference { return }
            seen.unbounded += found.ruleMinDepth.filter { $0 == GrammarTables.unbounded }.count
            seen.finite += found.ruleMinDepth.filter { $0 != GrammarTables.unbounded }.count
            seen.recursive += found.productionRecursive.filter { $0 }.count
            seen.notRecursive += found.productionRecursive.filter { !$0 }.count
        }
        // The generator reaches every case the tables distinguish.
        #expect(seen.unbounded > 1_000 && seen.finite > 1_000 && seen.recursive > 1_000 && seen.notRecursive > 1_000)
    }

    /// `<a>` is recursive only through `<b>`, `<c>` not at all, and `<d>` through itself.
    @Test func recursionThroughAnotherRule() throws {
        let g = try Grammar(text: """
        <a> ::= <b> x | y
        <b> ::= <c> <a> | <c>
        <c> ::= w
        <d> ::= <d> <c> | <c>
        """)
        let t = g.tables
        // Productions in order: a: [b x], [y]; b: [c a], [c]; c: [w]; d: [d c], [c].
        #expect(t.productionRecursive == [true, false, true, false, false, true, false])
        // Hand-worked: c = 1; b = 1 + c = 2 (via <c>); a = 1 (via y); d = 1 + c = 2.
        #expect(t.ruleMinDepth == [1, 2, 1, 2])
        #expect(t.productionMinDepth == [3, 1, 2, 2, 1, 3, 2])
        #expect(t.ruleMinLength == [1, 1, 1, 1])
        #expect(Self.found(t) == Reference(tablesOf: t))
    }

    /// `<loop>` never finishes, so neither do `<via>` nor the production of `<s>` naming it;
    /// `<missing>` is undefined.
    @Test func rulesThatCannotFinish() throws {
        let g = try Grammar(text: """
        <s> ::= <loop> | "ab c" | <via> <s>
        <loop> ::= <loop> y | <via>
        <via> ::= <loop> z | <missing>
        """)
        let t = g.tables
        let unbounded = GrammarTables.unbounded
        #expect(g.rules.map(\.name) == ["s", "loop", "via", "missing"])
        #expect(t.ruleMinDepth == [1, unbounded, unbounded, unbounded])
        #expect(t.ruleMinLength == [3, unbounded, unbounded, unbounded])  // "ab c" without its blank
        // s: [loop], [ab c], [via s]; loop: [loop y], [via]; via: [loop z], [missing].
        #expect(t.productionMinDepth == [unbounded, 1, unbounded, unbounded, unbounded, unbounded, unbounded])
        #expect(t.productionRecursive == [false, false, true, true, true, true, false])
        #expect(Self.found(t) == Reference(tablesOf: t))
    }

    /// Minimum lengths that double from rule to rule pass `unbounded` after about 61 rules; from
    /// there on a rule counts as deriving nothing finite, as the sweep with its capped sums had it.
    @Test func lengthsCapAtUnbounded() throws {
        let count = 70
        var text = (0..<count - 1).map { "<r\($0)> ::= <r\($0 + 1)> <r\($0 + 1)> | <r\($0 + 1)> <r\($0 + 1)> <r\($0 + 1)>" }
        text.append("<r\(count - 1)> ::= x")
        let g = try Grammar(text: text.joined(separator: "\n"))
        let t = g.tables
        let expected = (0..<count).map { r in
            let doublings = count - 1 - r
            return doublings < 61 ? 1 << doublings : GrammarTables.unbounded
        }
        #expect(t.ruleMinLength == expected)
        #expect(t.ruleMinDepth == (0..<count).map { count - $0 })
        #expect(Self.found(t) == Reference(tablesOf: t))
    }

    /// 20,000 rules in one cycle, each also finishing: every production naming a rule is
    /// recursive, and the depth-first search holds the whole cycle at once (a recursive search
    /// would need 20,000 stack frames). Built without parsing and not compared with the
    /// reference, both quadratic in the rules.
    @Test func aCycleOfManyRules() {
        let count = 20_000
        func rule(_ r: Int, _ productions: [[Grammar.Symbol]]) -> Grammar.Rule {
            Grammar.Rule(name: "r\(r)", line: r + 1, productions: productions.map { Grammar.Production(symbols: $0, line: r + 1) })
        }
        let cycle = (0..<count).map { r in
            rule(r, [[.terminal("("), .nonTerminal((r + 1) % count), .terminal(")")], [.terminal("x\(r % 10)")]])
        }
        let t = GrammarTables(rules: cycle)
        #expect(t.productionRecursive == Array((0..<count).map { _ in [true, false] }.joined()))
        #expect(t.ruleMinDepth == Array(repeating: 1, count: count))
        #expect(t.ruleMinLength == Array(repeating: 2, count: count))
        // A chain finishing only at its end: depths and lengths grow against the rules' order.
        let chain = (0..<count).map { r in
            rule(r, r == count - 1 ? [[.terminal("z")]] : [[.terminal("a"), .nonTerminal(r + 1)]])
        }
        let c = GrammarTables(rules: chain)
        #expect(c.ruleMinDepth == (0..<count).map { count - $0 })
        #expect(c.ruleMinLength == (0..<count).map { count - $0 })
        #expect(!c.productionRecursive.contains(true))
    }
}
