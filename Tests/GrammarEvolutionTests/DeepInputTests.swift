import Testing
@testable import GrammarEvolution

/// Inputs deep enough to exhaust a thread's stack in a recursive parser or search: each must
/// give a value or a Swift error, never a crash.
@Suite struct DeepInputTests {
    @Test func deepParenthesesAreAnErrorNotACrash() throws {
        func nested(_ n: Int, _ open: String) -> String {
            String(repeating: open, count: n) + "x0" + String(repeating: ")", count: n)
        }
        let limit = Program.maximumNesting
        #expect(try Program(infix: nested(limit, "(")).instructions == [.variable(0)])
        #expect(try Program(infix: nested(limit, "sin(")).nodeCount == limit + 1)
        for text in [nested(limit + 1, "("), nested(limit + 1, "sin("), nested(100_000, "("), nested(100_000, "aq(1, ")] {
            do {
                _ = try Program(infix: text)
                Issue.record("\(text.count) characters nested too deep were parsed")
            } catch let e as ExpressionParseError {
                #expect(e.message.contains("nest deeper than \(limit) levels"))
                // The message shows the text near the problem, not all of it (it repeated 200 kB).
                #expect(e.description.count < e.message.count + 200, "\(e.description.count) characters")
            }
        }
        // Where the problem is: a stray ")" at character 301 shows the 60 characters before it.
        let long = String(repeating: "x0+", count: 100) + ")"
        let error = try #require(throws: ExpressionParseError.self) { try Program(infix: long) }
        let near = String(Array(long)[max(0, error.offset - 60)..<min(long.count, error.offset + 60)])
        #expect(error.description.hasSuffix("of '...\(near)'") || error.description.hasSuffix("of '...\(near)...'"),
                "\(error.description)")
        // A short text is shown whole.
        #expect(ExpressionParseError(message: "m", offset: 2, text: "x0 + (").description == "m at character 3 of 'x0 + ('")
    }

    @Test func longRunsOfSignsNeedNoStack() throws {
        // n minus signs before 3 are (-1)^n * 3; before a variable, n negations.
        #expect(try Program(infix: String(repeating: "-", count: 100_000) + "3").instructions == [.constant(3)])
        #expect(try Program(infix: String(repeating: "-", count: 100_001) + "3").instructions == [.constant(-3)])
        #expect(try Program(infix: String(repeating: "- +", count: 3) + "x0").instructions
            == [.variable(0), .operation(.neg), .operation(.neg), .operation(.neg)])
        let p = try Program(infix: String(repeating: "-", count: 50_001) + "x0")
        #expect(p.nodeCount == 50_002)
        #expect(p.evaluate { _, _ in 2 } == -2)
    }

    @Test func derivesALongSeedWithoutRecursion() throws {
        // x0 + x0 + ... + x0 (n terms) through <e> ::= x0 + <e> | x0 is alternative 0 n-1 times,
        // then alternative 1: a derivation n levels deep.
        let n = 5_000
        let m = try Mapper(grammar: Grammar(text: "<e> ::= x0 + <e> | x0"), maxDepth: n + 1)
        let text = Array(repeating: "x0", count: n).joined(separator: " + ")
        let codons = try #require(m.codons(deriving: text))
        #expect(codons == Array(repeating: 0, count: n - 1) + [1])
        #expect(m.map(codons).phenotype.map(m.text) == text)
        // One level too few: not derivable, found out by backtracking through every level.
        let shallow = try Mapper(grammar: Grammar(text: "<e> ::= x0 + <e> | x0"), maxDepth: n - 1)
        #expect(shallow.codons(deriving: text) == nil)
    }
}
