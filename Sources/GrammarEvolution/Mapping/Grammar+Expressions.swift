extension Mapper {
    /// The symbols of the expression language outside names, numbers and spaces.
    static let expressionSymbols: Set<Character> = ["+", "-", "*", "/", "(", ")", ","]

    /// What would make every phenotype of `grammar` fail to compile, found before any search (a
    /// search of such a grammar has no valid individual, and trains a constant): a character in a
    /// terminal that expressions do not use (a typographic minus `−` pasted from a paper, `^`), and
    /// a start rule none of whose alternatives, every rule in it taken by its shortest alternative,
    /// parses as an expression (terms side by side: `G1 G2`). Names are not judged here (a
    /// grammar may be written for another table: `Grammar.unknownNames`).
    /// The longest shortest text `expressionIssues` judges (tokens): a longer one is not judged.
    static let judgedTokens = 1_000

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
        // Each rule's text by its shallowest alternative, built in order of depth (an alternative
        // reads only shallower rules), so a long chain of rules costs no recursion; a text longer
        // than `judgedTokens` is not judged. Recursively, a 50,000-rule chain overflowed the stack
        // and a 10,000-rule one held 6 GB of token arrays (hunt K, stop 52).
        var shortest: [[InfixToken]?] = Array(repeating: nil, count: grammar.rules.count)
        for n in grammar.rules.indices.sorted(by: { depth[$0] < depth[$1] }) where depth[n] < GrammarTables.unbounded {
            // Of the shallowest alternatives, the shortest text (a chain `<r1> ::= <r2> + G1 | <r2>`
            // stays short): its length from the rules' texts built before.
            func length(_ p: Grammar.Production) -> Int {
                p.symbols.reduce(0) { total, symbol in
                    switch symbol {
                    case let .terminal(text): return total + InfixLexer.tokens(text).count
                    case .codonValue: return total + 1
                    case let .nonTerminal(m): return total + (shortest[m]?.count ?? Self.judgedTokens + 1)
                    }
                }
            }
            guard let best = grammar.rules[n].productions.filter({ depthOf($0) == depth[n] }).min(by: { length($0) < length($1) }) else { continue }
            var made: [InfixToken]? = []
            for symbol in best.symbols {
                switch symbol {
                case let .terminal(text): made?.append(contentsOf: InfixLexer.tokens(text))
                case let .codonValue(range): made?.append(contentsOf: InfixLexer.tokens(of: range.lower))
                case let .nonTerminal(m): if let known = shortest[m] { made?.append(contentsOf: known) } else { made = nil }
                }
                if (made?.count ?? 0) > Self.judgedTokens { made = nil }
                if made == nil { break }
            }
            shortest[n] = made
        }
        func tokens(_ p: Grammar.Production) -> [InfixToken]? {
            var out: [InfixToken] = []
            for symbol in p.symbols {
                switch symbol {
                case let .terminal(text): out += InfixLexer.tokens(text)
                case let .codonValue(range): out += InfixLexer.tokens(of: range.lower)
                case let .nonTerminal(m): guard let known = shortest[m] else { return nil }; out += known
                }
            }
            return out
        }
        let variables = formVariables(grammar)
        var failures: [(line: Int, text: String, message: String)] = []
        for p in start.productions {
            guard let t = tokens(p) else { return [] }
            var parser = InfixParser(tokens: t, text: "", variables: variables)
            do { _ = try parser.parseAll(); return [] } catch {
                failures.append((p.line, t.map(\.text).joined(separator: " "), (error as? ExpressionParseError)?.message ?? "\(error)"))
            }
        }
        let first = failures[0]
        return [.init(severity: .error, kind: .noExpression, rule: start.name, line: first.line,
                      message: "no alternative of the start rule <\(start.name)> makes an expression (each rule taken by its shortest "
                          + "alternative): '\(first.text)' (line \(first.line)): \(first.message); nor did \(derivationsTried) random "
                          + "derivations: every expression would fail to compile")]
    }

    /// Every name the grammar's terminals hold that is not called, as variables: the expression
    /// checks judge a phenotype's form, not whether a table has its names (`Grammar.unknownNames`).
    static func formVariables(_ grammar: Grammar) -> VariableNames {
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
        return VariableNames(names.sorted())
    }
}
