extension Grammar {
    /// A name in a terminal that is neither a variable of the data nor a function.
    public struct UnknownName: Sendable, Hashable {
        public var name: String
        /// 1-based line of the alternative holding it.
        public var line: Int
        /// Whether the terminal calls it (`pow(`): an unknown function, not a variable.
        public var isCall = false
    }

    /// Names in the grammar's terminals (lexed as the infix language lexes them) that are not
    /// among `variables` and not a function (`exp`, `aq`, `lag`, ...), in line order, each once.
    /// Such a name makes every phenotype that reaches it fail to compile: a grammar written for
    /// other data would evolve nothing and train a constant model.
    public func unknownNames(_ variables: VariableNames) -> [UnknownName] {
        var seen = Set<String>(), out: [UnknownName] = []
        for rule in rules {
            for production in rule.productions {
                for case let .terminal(text) in production.symbols {
                    let tokens = InfixLexer.tokens(text)
                    for (i, token) in tokens.enumerated() {
                        guard case let .name(name) = token.kind, variables.column(named: name) == nil,
                              Operation.functions[name] == nil, name != "lag", seen.insert(name).inserted else { continue }
                        out.append(UnknownName(name: name, line: production.line,
                                               isCall: i + 1 < tokens.count && tokens[i + 1].isSymbol("(")))
                    }
                }
            }
        }
        return out.sorted { ($0.line, $0.name) < ($1.line, $1.name) }
    }

    /// Whether a terminal names one of `variables` (a grammar that names none evolves constants).
    public func namesAny(of variables: VariableNames) -> Bool {
        rules.contains { rule in
            rule.productions.contains { production in
                production.symbols.contains { symbol in
                    guard case let .terminal(text) = symbol else { return false }
                    return InfixLexer.tokens(text).contains { token in
                        if case let .name(name) = token.kind { return variables.column(named: name) != nil }
                        return false
                    }
                }
            }
        }
    }

    /// Lines of the alternatives whose terminals call `lag(...)`, in order, each once: a lag reads
    /// the table's row before, which a caller whose rows are not evenly spaced may have to refuse.
    public func lagLines() -> [Int] {
        var lines = Set<Int>()
        for rule in rules {
            for production in rule.productions {
                for case let .terminal(text) in production.symbols where InfixLexer.tokens(text).contains(where: { $0.kind == .name("lag") }) {
                    lines.insert(production.line)
                }
            }
        }
        return lines.sorted()
    }
}
