extension Mapper {
    /// The symbols of the expression language outside names, numbers and spaces.
    static let expressionSymbols: Set<Character> = ["+", "-", "*", "/", "(", ")", ","]

    /// What would make every phenotype of `grammar` fail to compile, found before any search (a
    /// search of such a grammar has no valid individual, and trains a constant): a character in a
    /// terminal that expressions do not use (a typographic minus `−` pasted from a paper, `^`), and
    /// a start rule none of whose alternatives, every rule in it taken by its shortest alternative,
    /// parses as an expression (terms side by side: `G1 G2`). Names are not judged here (a
    /// grammar may be written for another table: `Grammar.unknownNames`).
    static func expressionIssues(_ grammar: Grammar) -> [GrammarReport.Issue] {
        var issues: [GrammarReport.Issue] = []
        for rule in grammar.rules {
            for p in rule.productions {
                var seen = Set<Character>()
                for case let .terminal(text) in p.symbols {
                    for token in InfixLexer.tokens(text) {
                        guard case let .symbol(c) = token.kind, !expressionSymbols.contains(c), seen.insert(c).inserted else { continue }
                        let code = c.unicodeScalars.map { "U+" + String($0.value, radix: 16, uppercase: true) }.joined(separator: " ")
                        issues.append(.init(severity: .error, kind: .unknownSymbol, rule: rule.name, line: p.line,
                                            message: "rule <\(rule.name)> has '\(c)' (\(code)), which expressions do not use "
                                                + "(operators + - * /, calls f(x, y)): every expression reaching it would fail to compile"))
                    }
                }
            }
        }
        guard issues.isEmpty, let start = grammar.rules.first, !start.productions.isEmpty else { return issues }
        let depth = grammar.tables.ruleMinDepth
        func depthOf(_ p: Grammar.Production) -> Int {
            1 + p.symbols.reduce(0) { d, s in if case let .nonTerminal(n) = s { return max(d, depth[n]) } else { return d } }
        }
        var shortest: [Int: [InfixToken]] = [:]
        func tokens(_ p: Grammar.Production) -> [InfixToken] {
            p.symbols.flatMap { symbol -> [InfixToken] in
                switch symbol {
                case let .terminal(text): return InfixLexer.tokens(text)
                case let .codonValue(range): return InfixLexer.tokens(of: range.lower)
                case let .nonTerminal(n):
                    if let known = shortest[n] { return known }
                    guard let best = grammar.rules[n].productions.min(by: { depthOf($0) < depthOf($1) }) else { return [] }
                    let made = tokens(best)
                    shortest[n] = made
                    return made
                }
            }
        }
        // Every name that is not called reads as a variable of the table: only the form is judged.
        var names = Set<String>()
        for rule in grammar.rules {
            for p in rule.productions {
                for case let .terminal(text) in p.symbols {
                    let t = InfixLexer.tokens(text)
                    for i in t.indices {
                        if case let .name(name) = t[i].kind, !(i + 1 < t.count && t[i + 1].isSymbol("(")) { names.insert(name) }
                    }
                }
            }
        }
        let variables = VariableNames(names.sorted())
        var failures: [(line: Int, text: String, message: String)] = []
        for p in start.productions {
            let t = tokens(p)
            var parser = InfixParser(tokens: t, text: "", variables: variables)
            do { _ = try parser.parseAll(); return [] } catch {
                failures.append((p.line, t.map(\.text).joined(separator: " "), (error as? ExpressionParseError)?.message ?? "\(error)"))
            }
        }
        let first = failures[0]
        return [.init(severity: .error, kind: .noExpression, rule: start.name, line: first.line,
                      message: "no alternative of the start rule <\(start.name)> makes an expression (each rule taken by its shortest "
                          + "alternative): '\(first.text)' (line \(first.line)): \(first.message); every expression would fail to compile")]
    }
}
