import Foundation
import Testing
@testable import GrammarEvolution

@Suite struct GrammarParsingTests {
    @Test func readsQuotesCommentsContinuationsRangesAndCodonValues() throws {
        let text = """
        # comment line
        <e> ::= <e> <op> <e> | "sin(" <e> ")"   # trailing comment
              | <v>
              | <c>
        <op> ::= '+' | "-" | *
        <v> ::= x[0..2]
        <c> ::= <GECodonValue-0+9> | <GECodonValue--1.0+1.0>
        <q> ::= "a|b" | 'c # d' | G[1..12]
        """
        let g = try Grammar(text: text)
        #expect(g.rules.map(\.name) == ["e", "op", "v", "c", "q"])
        let e = g.rules[0]
        #expect(e.productions.count == 4)
        // Lines: alternatives 1-2 start on line 2, the continuations on lines 3 and 4.
        #expect(e.productions.map(\.line) == [2, 2, 3, 4])
        #expect(e.productions[1].symbols == [.terminal("sin("), .nonTerminal(0), .terminal(")")])
        #expect(g.rules[1].productions.map(\.symbols) == [[.terminal("+")], [.terminal("-")], [.terminal("*")]])
        #expect(g.rules[2].productions.map(\.symbols) == [[.terminal("x0")], [.terminal("x1")], [.terminal("x2")]])
        let c = g.rules[3].productions.map(\.symbols)
        #expect(c == [[.codonValue(.init(lower: 0, upper: 9, isInteger: true))],
                      [.codonValue(.init(lower: -1, upper: 1, isInteger: false))]])
        let q = g.rules[4].productions.map(\.symbols)
        #expect(q.count == 2 + 12)
        #expect(q[0] == [.terminal("a|b")] && q[1] == [.terminal("c # d")])
        #expect(q[2] == [.terminal("G1")] && q[13] == [.terminal("G12")])
    }

    /// Audit 38: a grammar file with Windows line ends (CRLF) was refused as having no rules
    /// (Swift holds "\r\n" as one character, so splitting at "\n" found one line).
    @Test func windowsLineEndsReadAsLines() throws {
        let text = "# comment\n<e> ::= <e> '+' <v>\n      | <v>\n<v> ::= x[0..1]\n"
        let unix = try Grammar(text: text)
        let windows = try Grammar(text: text.replacingOccurrences(of: "\n", with: "\r\n"))
        #expect(windows.rules.map(\.name) == ["e", "v"])
        #expect(windows.rules.map { $0.productions.map(\.line) } == [[2, 3], [4, 4]])
        #expect(windows.fingerprint == unix.fingerprint)
    }

    @Test func expandsSeveralRangesInOneTerminal() throws {
        let g = try Grammar(text: "<l> ::= lag(x[0..1],[1..2])")
        #expect(g.rules[0].productions.map(\.symbols) == [
            [.terminal("lag(x0,1)")], [.terminal("lag(x0,2)")], [.terminal("lag(x1,1)")], [.terminal("lag(x1,2)")],
        ])
    }

    /// Ranges are capped per alternative (100,000) and per grammar (1,000,000 alternatives): a rule
    /// of 150 alternatives `k[0..99999]`, a 2 KB file, took 15 million and the trainer aborted out
    /// of memory (hunt BE, stop 61). Refused at the line that passes the cap.
    @Test func rangesAreCappedForTheWholeGrammar() throws {
        let wide = (1...11).map { "\($0)[0..99999]" }
        do {
            _ = try Grammar(text: "<e> ::= <c> + G0\n<c> ::= " + wide.prefix(5).joined(separator: " | ") + "\n | " + wide.dropFirst(5).joined(separator: " | "))
            Issue.record("a grammar of 1.1 million alternatives was accepted")
        } catch let GrammarError.syntax(_, line, message) {
            #expect(line == 3 && message.hasPrefix("the grammar's ranges expand it into more than 1000000 alternatives by this line"), "\(message)")
        }
        #expect(try Grammar(text: "<c> ::= " + wide.prefix(2).joined(separator: " | ")).rules[0].productions.count == 200_000)
    }

    @Test func continuationForms() throws {
        // Alternatives only on continuation lines, and a line ending in '|' continued below.
        let a = try Grammar(text: "<a> ::=\n  | x\n  | y")
        #expect(a.rules[0].productions.map(\.symbols) == [[.terminal("x")], [.terminal("y")]])
        #expect(a.rules[0].productions.map(\.line) == [2, 3])
        let b = try Grammar(text: "<a> ::= x |\n y")
        #expect(b.rules[0].productions.map(\.line) == [1, 2])
    }

    @Test func codonValuesByHand() {
        let int = Grammar.CodonRange(lower: 0, upper: 9, isInteger: true)
        #expect(int.value(for: 23) == 3)                   // 23 mod 10
        let real = Grammar.CodonRange(lower: -1, upper: 1, isInteger: false)
        #expect(real.value(for: 7500) == 0.5)              // -1 + 2 * 7500/10000
        #expect(real.value(for: 10001 + 2500) == -0.5)     // 12501 mod 10001 = 2500
        #expect(real.codon(for: 0.5) == 7500)
        #expect(real.codon(for: 0.50001) == nil)           // finer than the 2/10000 resolution
    }

    /// Hunt BV: every constant of the widest ranges the parser accepts is finite, at both ends.
    @Test func theWidestRealRangesGiveFiniteConstants() throws {
        for text in ["<GECodonValue-0+1e304>", "<GECodonValue--8.9e303+8.9e303>", "<GECodonValue-1.7976e308+1.7976931348623157e308>"] {
            let g = try Grammar(text: "<a> ::= \(text)")
            guard case let .codonValue(range) = g.rules[0].productions[0].symbols[0] else { Issue.record("\(text)"); continue }
            #expect(range.isFinite)
            for codon: UInt32 in [0, 1, 5000, 9999, 10000] { #expect(range.value(for: codon).isFinite, "\(text) \(codon)") }
        }
        do {
            _ = try Grammar(text: "<a> ::= <GECodonValue--1e308+1e308>", source: "g.bnf")
            Issue.record("accepted")
        } catch {
            #expect("\(error)".hasPrefix("g.bnf:1: <GECodonValue--1e308+1e308>: the range is too wide"))
        }
    }

    @Test func syntaxErrorsNameTheLine() {
        func line(_ text: String) -> Int? {
            do { _ = try Grammar(text: text); return nil } catch let GrammarError.syntax(_, line, _) { return line } catch { return -1 }
        }
        #expect(line("<a> ::= x\n y") == 2)                       // neither a rule nor a continuation
        #expect(line("<a> ::= x\n<b> ::= \"y") == 2)              // unterminated quote
        #expect(line("<a> ::= x\n\n<a> ::= y") == 3)              // defined twice
        #expect(line("<a> ::= x | | y") == 1)                     // empty alternative
        #expect(line("<a> ::= <GECodonValue-9+1>") == 1)          // inverted range
        #expect(line("<a> ::= x\n<b> ::= <GECodonValue-0x1+0x10>") == 2)  // hexadecimal, refused as everywhere (hunt BE)
        #expect(line("<a> ::= <GECodonValue--1.5e-3+2E2>") == nil)
        // hi - lo overflowed and every constant was inf or NaN, without a word (hunt BV).
        #expect(line("<a> ::= x\n<b> ::= <GECodonValue--1e308+1e308>") == 2)
        #expect(line("<a> ::= <GECodonValue-0+1e305>") == 1)      // finite span, but span * 10000 overflows
        #expect(line("<a> ::= <GECodonValue-0+1e304>") == nil)
        #expect(line("<a> ::= <GECodonValue--1e300+1e300>") == nil)
        #expect(line("<a> ::= x[5..2]") == 1)
        // hi - lo + 1 overflowed and trapped (hunt H, stop 51); a range beyond the expansion limit is refused on its line.
        #expect(line("<a> ::= 1\n<b> ::= G[0..9223372036854775807]") == 2)
        #expect(line("<a> ::= G[-9223372036854775808..0]") == 1)
        // Two ranges in one terminal multiply: 10^10 alternatives ran out of memory (hunt K, stop 52).
        #expect(line("<a> ::= 1\n<b> ::= Q[0..99999][0..99999]") == 2)
        #expect(line("<a> ::= Q[0..999][0..999]") == 1)
        #expect((try? Grammar(text: "<a> ::= Q[0..9][0..9]"))?.rules[0].productions.count == 100)
        // Two rule names on the left were read as one rule named `e> <f`.
        #expect(line("<s> ::= <e>\n<e> <f> ::= G0 | G1") == 2)
        #expect(line("# only a comment") == 1)
    }

    @Test func unreadableFileIsAnError() {
        #expect(throws: GrammarError.self) { try Grammar(contentsOf: URL(fileURLWithPath: "/nonexistent/g.bnf")) }
    }
}

@Suite struct GrammarCheckTests {
    /// The check that some alternative of the start rule makes an expression took memory growing
    /// with the square of a chain of rules (6 GB at 10,000) and overflowed the stack at 50,000
    /// (hunt K, stop 52): it builds each rule's shortest text in order of depth, not recursively.
    @Test func aLongChainOfRulesIsCheckedInLittleMemory() throws {
        let n = 50_000
        var text = (0..<n).map { "<r\($0)> ::= <r\($0 + 1)> + x0 | <r\($0 + 1)>" }
        text.append("<r\(n)> ::= x0")
        #expect(Mapper.expressionIssues(try Grammar(text: text.joined(separator: "\n"))).isEmpty)
        // Terms side by side are still found through a chain.
        text[0] = "<r0> ::= <r1> <r1>"
        #expect(Mapper.expressionIssues(try Grammar(text: text.joined(separator: "\n"))).map(\.kind) == [.noExpression])
    }

    @Test func reportsEveryProblemWithItsLine() throws {
        let g = try Grammar(text: """
        <s> ::= <a> | <b> x
        <a> ::= <a> y
        <b> ::= z | <missing>
        <u> ::= z
        <w> ::= <b>
        """)
        let report = g.check()
        let found = report.issues.map { "\($0.line ?? 0) \($0.severity) \($0.kind) \($0.rule)" }
        #expect(found == [
            "1 warning unitProduction s",        // <s> ::= <a>
            "2 error nonTerminating a",          // <a> only ever derives <a> y
            "3 error undefinedRule missing",
            "3 warning unitProduction b",        // <b> ::= <missing>
            "4 warning unreachableRule u",
            "5 warning unreachableRule w",
            "5 warning unitProduction w",
        ])
        // Hand-worked minimum depths: b = 1 (z); s = 1 + max(b) = 2; a never; u = 1; w = 1 + b = 2.
        #expect(report.minimumDepths.map(\.rule) == ["s", "a", "b", "u", "w"])
        #expect(report.minimumDepths.map(\.depth) == [2, nil, 1, 1, 2])
        do {
            _ = try g.validated()
            Issue.record("a broken grammar validated")
        } catch let error as GrammarError {
            let message = "\(error)"
            #expect(message.contains("grammar:2:") && message.contains("grammar:3:") && message.contains("2 error"))
            #expect(message.hasPrefix("the grammar has 2 error(s):\n"))   // one space when it has no file
        }
        #expect(throws: GrammarError.self) { try Mapper(grammar: g) }
    }

    @Test func minimumDepthsOfTheRegressionGrammar() throws {
        // op, f, v are all-terminal: depth 1. e: via <v> = 1 + 1 = 2.
        let g = try Grammar(text: SearchFixtures.regressionGrammar)
        let report = g.check()
        // Only warning: `<e> ::= ... | <v>` is a unit alternative (line 2; line 1 is a comment).
        #expect(report.errors.isEmpty)
        #expect(report.warnings.map(\.kind) == [.unitProduction] && report.warnings.first?.line == 2)
        #expect(report.minimumDepths.map(\.depth) == [2, 1, 1, 1])
        #expect(g.minimumDepths["e"] == 2)
    }

    @Test func fingerprintIgnoresCommentsAndSpacing() throws {
        let a = try Grammar(text: "<e> ::= x0 | <e> + <e>")
        let b = try Grammar(text: "# c\n<e> ::=   x0\n   | <e>   +   <e>  # c")
        let c = try Grammar(text: "<e> ::= x1 | <e> + <e>")
        #expect(a.fingerprint == b.fingerprint)
        #expect(a.fingerprint != c.fingerprint)
    }
}
