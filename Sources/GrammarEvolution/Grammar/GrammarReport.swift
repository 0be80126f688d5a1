/// What `Grammar.check()` found: errors (the grammar cannot be used) and warnings.
public struct GrammarReport: Sendable, Equatable, CustomStringConvertible {
    public enum Severity: String, Sendable, Equatable { case error, warning }

    public enum Kind: Sendable, Equatable {
        /// A rule is referenced but never defined.
        case undefinedRule
        /// A defined rule cannot be reached from the start rule (warning).
        case unreachableRule
        /// A rule can never finish: every alternative leads to an endless or undefined rule.
        case nonTerminating
        /// An alternative is a single non-terminal (warning: it costs a codon and a level for nothing).
        case unitProduction
        /// A terminal holds a character the expression language has no use for (`−`, `@`, `^`):
        /// every phenotype reaching it fails to compile (`Mapper.expressionIssues`).
        case unknownSymbol
        /// No alternative of the start rule, each rule taken by its shortest alternatives, makes
        /// an expression (terms written side by side, an operator without operand): every phenotype
        /// would fail to compile (`Mapper.expressionIssues`).
        case noExpression
        /// The start rule's shortest derivation is deeper than the mapper's `maxDepth`: every
        /// genome would map to nothing (`Mapper.init`).
        case tooDeep
    }

    public struct Issue: Sendable, Equatable, CustomStringConvertible {
        public var severity: Severity
        public var kind: Kind
        /// The rule concerned (for undefined rules: the missing rule).
        public var rule: String
        /// 1-based line in the grammar text, when known.
        public var line: Int?
        public var message: String

        public var description: String { "\(line.map { "line \($0)" } ?? "-"): \(severity.rawValue): \(message)" }
    }

    public var issues: [Issue]
    /// Minimum depth of each rule in definition order (nil: never finishes). See `Grammar.minimumDepths`.
    public var minimumDepths: [(rule: String, depth: Int?)]

    public var errors: [Issue] { issues.filter { $0.severity == .error } }
    public var warnings: [Issue] { issues.filter { $0.severity == .warning } }

    public var description: String {
        var lines = issues.map(\.description)
        lines.append("minimum depths: " + minimumDepths.map { "<\($0.rule)>=\($0.depth.map(String.init) ?? "never")" }.joined(separator: " "))
        return lines.joined(separator: "\n")
    }

    public static func == (a: GrammarReport, b: GrammarReport) -> Bool {
        a.issues == b.issues && a.minimumDepths.map(\.rule) == b.minimumDepths.map(\.rule)
            && a.minimumDepths.map(\.depth) == b.minimumDepths.map(\.depth)
    }
}

extension Grammar {
    /// Checks the grammar: undefined rules (error, at each line that uses them), rules that can
    /// never finish (error), rules unreachable from the start rule (warning), unit productions
    /// (warning), and each rule's minimum depth.
    public func check() -> GrammarReport {
        var issues: [GrammarReport.Issue] = []
        for (index, rule) in rules.enumerated() where !rule.isDefined {
            for user in rules {
                for p in user.productions where p.symbols.contains(.nonTerminal(index)) {
                    issues.append(.init(severity: .error, kind: .undefinedRule, rule: rule.name, line: p.line,
                                        message: "rule <\(user.name)> uses <\(rule.name)>, which is never defined"))
                }
            }
        }
        let reach = tables.reachable(from: 0, includingStart: true)
        for (i, rule) in rules.enumerated() where rule.isDefined {
            if tables.ruleMinDepth[i] >= GrammarTables.unbounded {
                issues.append(.init(severity: .error, kind: .nonTerminating, rule: rule.name, line: rule.line,
                                    message: "rule <\(rule.name)> can never finish: every alternative leads back to an endless or undefined rule; add an alternative made of terminals"))
            }
            if !reach[i] {
                issues.append(.init(severity: .warning, kind: .unreachableRule, rule: rule.name, line: rule.line,
                                    message: "rule <\(rule.name)> cannot be reached from the start rule <\(rules[0].name)>"))
            }
            for p in rule.productions {
                if p.symbols.count == 1, case let .nonTerminal(n) = p.symbols[0] {
                    issues.append(.init(severity: .warning, kind: .unitProduction, rule: rule.name, line: p.line,
                                        message: "rule <\(rule.name)> has the unit alternative <\(rules[n].name)>; inlining its alternatives saves a codon"))
                }
            }
        }
        issues.sort { ($0.line ?? 0, $0.severity == .error ? 0 : 1) < ($1.line ?? 0, $1.severity == .error ? 0 : 1) }
        let depths = rules.enumerated().filter { $0.element.isDefined }.map { i, rule in
            (rule: rule.name, depth: tables.ruleMinDepth[i] >= GrammarTables.unbounded ? nil : tables.ruleMinDepth[i])
        }
        return GrammarReport(issues: issues, minimumDepths: depths)
    }
}
