import Testing
@testable import GrammarEvolution

@Suite struct MappingTests {
    /// <e> has 2 alternatives, <op> 2, <v> 3.
    static let tiny = """
    <e> ::= <e> <op> <e> | <v>
    <op> ::= + | *
    <v> ::= x0 | x1 | x2
    """

    func mapper(_ text: String = tiny, wraps: Int = 0, depth: Int = 17) throws -> Mapper {
        try Mapper(grammar: Grammar(text: text), maxWraps: wraps, maxDepth: depth)
    }

    @Test func mapsCodonsByHand() throws {
        // e:0%2=0 -> <e><op><e>; e:1%2=1 -> <v>; v:2%3=2 -> x2; op:1%2=1 -> *; e:3%2=1 -> <v>; v:4%3=1 -> x1.
        let m = try mapper()
        let r = m.map([0, 1, 2, 1, 3, 4, 99, 99])
        #expect(r.isValid)
        #expect(m.text(of: r.phenotype!) == "x2 * x1")
        #expect(r.usedCodons == 6)
        #expect(r.depth == 3)   // e(1) -> e(2) -> v(3)
        #expect(r.program == (try Program(infix: "x2 * x1")))
    }

    @Test func wrapsAndFailsAfterTheAllowedWraps() throws {
        // [0,1,2]: e:0 -> <e><op><e>; e:1 -> <v>; v:2 -> x2; op needs a 4th codon: wrap to 0 -> +;
        // e:1 -> <v>; v:2 -> x2. Six codons read with one wrap.
        let wrapped = try mapper(wraps: 1).map([0, 1, 2])
        #expect(wrapped.isValid && wrapped.usedCodons == 6)
        #expect(try mapper(wraps: 1).text(of: wrapped.phenotype!) == "x2 + x2")
        let noWrap = try mapper(wraps: 0).map([0, 1, 2])
        #expect(noWrap.invalidReason == .tooManyWraps && noWrap.usedCodons == 3)
        // [0] always recurses: with 2 wraps it reads 3 codons and still has non-terminals.
        #expect(try mapper(wraps: 2).map([0]).invalidReason == .tooManyWraps)
        // With wraps to spare, depth 3 is exceeded at the fourth nested <e>.
        #expect(try mapper(wraps: 100, depth: 3).map([0]).invalidReason == .tooDeep)
        #expect(try mapper().map([]).invalidReason == .emptyGenome)
    }

    @Test func singleAlternativeRulesReadNoCodonAndCodonValuesReadOne() throws {
        let m = try mapper("<s> ::= <v> + <v>\n<v> ::= x0 | x1")
        let r = m.map([1, 0])
        #expect(m.text(of: r.phenotype!) == "x1 + x0" && r.usedCodons == 2)
        // alternative 0 (codon 0), then 27 mod 10 = 7; then 7500 -> -1 + 2 * 0.75 = 0.5.
        let c = try mapper("<e> ::= <GECodonValue-0+9> * x0 + <GECodonValue--1.0+1.0> | x1")
        let rc = c.map([0, 27, 7500])
        #expect(c.text(of: rc.phenotype!) == "7 * x0 + 0.5" && rc.usedCodons == 3)
        #expect(rc.program!.evaluate { _, _ in 2 } == 14.5)
    }

    @Test func phenotypeThatDoesNotCompileIsInvalid() throws {
        // "sin" alone is not an expression; mapping must report it, not crash.
        let m = try mapper("<e> ::= sin | x0")
        #expect(m.map([0]).invalidReason.map { if case .doesNotCompile = $0 { true } else { false } } == true)
        #expect(m.map([1]).isValid)
    }

    /// A chain of rules whose shortest derivation is deeper than the mapper's limit: every genome
    /// mapped to nothing, and the trainer reported "no evolved expression beat ARX" having evaluated
    /// none (hunt BE, stop 61). 17 rules deep is the limit's own depth (a tree of 17 rule levels maps);
    /// 18 is refused, naming the start rule's line.
    @Test func aGrammarDeeperThanTheDepthLimitIsRefused() throws {
        func chain(_ n: Int) -> String {
            (0..<n - 1).map { "<r\($0)> ::= <r\($0 + 1)> + x0 | <r\($0 + 1)> * x1" }.joined(separator: "\n") + "\n<r\(n - 1)> ::= x0 | x1"
        }
        let deepest = try Mapper(grammar: try Grammar(text: chain(17)))
        #expect(deepest.map(Array(repeating: 0, count: 40)).isValid)
        #expect(try Grammar(text: chain(18)).minimumDepths["r0"] == 18)
        do {
            _ = try Mapper(grammar: try Grammar(text: "# a chain\n" + chain(18)))
            Issue.record("a grammar 18 rules deep was accepted under a limit of 17")
        } catch let GrammarError.invalid(_, report) {
            #expect(report.issues.map(\.kind) == [.tooDeep] && report.issues.map(\.line) == [2], "\(report.issues)")
            #expect(report.issues.first?.message.hasPrefix("the start rule <r0>'s shortest derivation is 18 rules deep, deeper than the limit of 17") == true)
        }
        _ = try Mapper(grammar: try Grammar(text: chain(18)), maxDepth: 18)
    }

    /// Before: a grammar with a typographic minus, or whose terms stood side by side, was accepted;
    /// every individual failed to compile and the trainer "found no expression better than ARX".
    @Test func grammarsNoneOfWhoseExpressionsCompileAreRefusedWithTheirLine() throws {
        func issues(_ text: String) -> [GrammarReport.Issue] {
            do { _ = try mapper(text); return [] } catch let GrammarError.invalid(_, report) { return report.issues } catch { return [] }
        }
        let minus = issues("# a comment\n<e> ::= G1 \u{2212} G2 | G0 * <c>\n<c> ::= 2 | 3")
        #expect(minus.map(\.kind) == [.unknownSymbol] && minus.map(\.line) == [2])
        #expect(minus.first?.message.hasPrefix("rule <e> has '\u{2212}' (U+2212), which expressions do not use") == true)
        let at = issues("<e> ::= G0 @ G3 | G0")
        #expect(at.map(\.kind) == [.unknownSymbol] && at.first?.message.contains("'@' (U+40)") == true)
        let sideBySide = issues("<e> ::= G1 G2 | <v> <v>\n<v> ::= G0 | IOB")
        #expect(sideBySide.map(\.kind) == [.noExpression] && sideBySide.map(\.line) == [1])
        #expect(sideBySide.first?.message == "no alternative of the start rule <e> makes an expression (each rule taken by its shortest "
                + "alternative): 'G1 G2' (line 1): unexpected 'G2'; nor did 2000 random derivations: every expression would fail to compile")
        // A rule whose shortest alternative is a dead end beside alternatives that are not: the
        // grammar makes `G0 + G1`, and was refused (hunt BE, stop 61).
        let deadEnd = "<e> ::= <v> <tail>\n<tail> ::= G1 | + G1 | * <c>\n<v> ::= G0 | IOB\n<c> ::= <GECodonValue-0.0+1.0>"
        #expect(Mapper.expressionIssues(try Grammar(text: deadEnd)).map(\.kind) == [.noExpression])
        #expect(issues(deadEnd).isEmpty)
        let m = try Mapper(grammar: Grammar(text: deadEnd), variables: VariableNames(["G0", "G1", "IOB"]))
        // <e> -> <v> <tail>: codon 0 picks G0 (2 alternatives), codon 1 picks '+ G1' (3 alternatives).
        #expect(m.map([0, 1]).program != nil && m.map([0, 0]).invalidReason.map { if case .doesNotCompile = $0 { true } else { false } } == true)
        // One alternative that makes an expression is enough (a grammar may hold dead ends); any names,
        // calls, constants and deep rules are fine.
        #expect(issues("<e> ::= G1 G2 | exp(<v>) - <GECodonValue--2.0+2.0>\n<v> ::= <v> + <v> | ( G0 ) | lag(IOB, 1)").isEmpty)
        #expect(issues(Self.tiny).isEmpty)
        #expect(try Grammar(text: "<e> ::= <v> + lag(G0, 2)\n<v> ::= lag(IOB,1) | x0\n<w> ::= x1").lagLines() == [1, 2])
    }

    @Test func sensibleInitialisationIsValidDeepEnoughAndDiverse() throws {
        let m = try Mapper(grammar: Grammar(text: SearchFixtures.regressionGrammar), maxWraps: 0, maxDepth: 8)
        let initialiser = TreeInitialiser(mapper: m)
        var random = RandomSource(seed: 7)
        var fullDeep = Set<Phenotype>()
        for depth in 2...6 {
            for method in [TreeInitialiser.Method.grow, .full] {
                for _ in 0..<20 {
                    let genome = initialiser.genome(method: method, maxDepth: depth, tail: 5, random: &random)
                    let r = m.map(genome)
                    #expect(r.isValid)
                    #expect(r.usedCodons == genome.count - 5)     // the tail is never read
                    // Full trees reach the limit: <e> recurses while 3 more levels fit, then <v>.
                    if method == .full { #expect(r.depth == depth) } else { #expect(r.depth <= depth) }
                    if method == .full, depth >= 5, let p = r.phenotype { fullDeep.insert(p) }
                }
            }
        }
        // Full trees of depth >= 5 come in tens of thousands of shapes; only the all-function
        // chains (e.g. sin(cos(sin(x0))), 24 of them at depth 5, drawn with p = 1/8) can repeat,
        // so fewer than one repeat is expected among 40 draws. A biased initialiser repeats a lot.
        #expect(fullDeep.count >= 37)
    }

    @Test func derivesCodonsForAKnownPhenotype() throws {
        let m = try Mapper(grammar: Grammar(text: SearchFixtures.regressionGrammar), maxWraps: 0, maxDepth: 10)
        let codons = try #require(m.codons(deriving: "x0*x1 + sin(x2)"))
        let r = m.map(codons)
        #expect(r.program == (try Program(infix: "x0 * x1 + sin(x2)")))
        #expect(m.codons(deriving: "exp(x0)") == nil)             // no exp in the grammar
        let c = try mapper("<e> ::= <e> + <e> | <GECodonValue-0+9> | x0")
        let cc = try #require(c.codons(deriving: "x0 + 7"))
        #expect(c.text(of: c.map(cc).phenotype!) == "x0 + 7")
    }
}
