/// Reads the BNF dialect documented on `Grammar` into rules.
struct GrammarParser {
    let text: String
    let source: String?
    /// Most alternatives one alternative may expand to through `[lo..hi]` ranges.
    static let maximumExpansion = 100_000
    /// Most alternatives a whole grammar may hold once its ranges are expanded: a rule of 150
    /// alternatives `k[0..99999]` (a 2 KB file) took 15 million, and the trainer aborted out of
    /// memory (hunt BE, stop 61). A generated grammar of 4,000 rules holds about 20,000.
    static let maximumAlternatives = 1_000_000

    /// A symbol before names are resolved and ranges expanded.
    private enum RawSymbol {
        case terminal(String)
        case nonTerminal(String, line: Int)
        case codonValue(Grammar.CodonRange)
        /// `prefix[lo..hi]suffix`
        case range(prefix: String, lower: Int, upper: Int, suffix: String)
    }

    private struct RawRule {
        var name: String
        var line: Int
        /// Right-hand side pieces with the line each came from.
        var pieces: [(text: String, line: Int)]
    }

    func error(_ line: Int, _ message: String) -> GrammarError {
        .syntax(source: source, line: line, message: message)
    }

    func parse() throws -> [Grammar.Rule] {
        var raw: [RawRule] = []
        // Rule name -> index in `raw` (then in `names`): a search of the list per name made loading
        // a generated grammar of thousands of rules quadratic.
        var defined: [String: Int] = [:]
        var lineNumber = 0
        // `isNewline`, not "\n": a Swift string holds a CRLF line end as one character, "\r\n", so a
        // file written on Windows would be one line.
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            lineNumber += 1
            let content = Self.stripComment(String(line)).trimmingSpaces()
            if content.isEmpty { continue }
            if content.hasPrefix("<"), let range = Self.definitionOperator(in: content) {
                let lhs = String(content[..<range.lowerBound]).trimmingSpaces()
                guard lhs.hasPrefix("<"), lhs.hasSuffix(">"), lhs.count > 2,
                      !lhs.dropFirst().dropLast().contains(where: { $0 == "<" || $0 == ">" }) else {
                    throw error(lineNumber, "the left side of '::=' must be one rule name like <expr>, found '\(lhs)'")
                }
                let name = String(lhs.dropFirst().dropLast())
                if let previous = defined[name] {
                    throw error(lineNumber, "rule <\(name)> is defined twice (first on line \(raw[previous].line)); merge the alternatives into one rule")
                }
                defined[name] = raw.count
                raw.append(RawRule(name: name, line: lineNumber, pieces: [(String(content[range.upperBound...]), lineNumber)]))
            } else if let last = raw.last, content.hasPrefix("|") || last.pieces.last!.text.trimmingSpaces().hasSuffix("|") {
                raw[raw.count - 1].pieces.append((content, lineNumber))
            } else {
                throw error(lineNumber, "expected a rule '<name> ::= ...' or a continuation line starting with '|', found '\(content)'")
            }
        }
        guard !raw.isEmpty else { throw error(1, "the grammar has no rules") }

        var names = raw.map(\.name)
        var productions: [[Grammar.Production]] = []
        var undefinedLines: [String: Int] = [:]
        var total = 0
        for rule in raw {
            var list: [Grammar.Production] = []
            for (alternative, line) in try splitAlternatives(rule.pieces) {
                let symbols = try tokenize(alternative, line: line)
                guard !symbols.isEmpty else {
                    throw error(line, "rule <\(rule.name)> has an empty alternative; write \"\" for an empty terminal")
                }
                let alternatives = try expand(symbols, line: line)
                total += alternatives.count
                guard total <= Self.maximumAlternatives else {
                    throw error(line, "the grammar's ranges expand it into more than \(Self.maximumAlternatives) alternatives by this line; "
                                + "write fewer or narrower ranges")
                }
                for expanded in alternatives {
                    var resolved: [Grammar.Symbol] = []
                    for s in expanded {
                        switch s {
                        case let .terminal(t): resolved.append(.terminal(t))
                        case let .codonValue(c): resolved.append(.codonValue(c))
                        case let .nonTerminal(name, refLine):
                            if let i = defined[name] {
                                resolved.append(.nonTerminal(i))
                            } else {
                                defined[name] = names.count
                                names.append(name)
                                undefinedLines[name] = refLine
                                resolved.append(.nonTerminal(names.count - 1))
                            }
                        case .range: preconditionFailure("ranges are expanded above")
                        }
                    }
                    list.append(Grammar.Production(symbols: resolved, line: line))
                }
            }
            productions.append(list)
        }
        var rules = zip(raw, productions).map { Grammar.Rule(name: $0.name, line: $0.line, productions: $1) }
        for name in names.dropFirst(raw.count) {
            rules.append(Grammar.Rule(name: name, line: nil, productions: []))
        }
        return rules
    }

    /// Removes a `#` comment that is not inside quotes.
    static func stripComment(_ line: String) -> String {
        var quote: Character? = nil
        var out = ""
        for c in line {
            if let q = quote {
                if c == q { quote = nil }
            } else if c == "\"" || c == "'" {
                quote = c
            } else if c == "#" {
                break
            }
            out.append(c)
        }
        return out
    }

    /// Position of `::=` outside quotes.
    static func definitionOperator(in line: String) -> Range<String.Index>? {
        guard let r = line.range(of: "::=") else { return nil }
        let before = line[..<r.lowerBound]
        let quotes = before.filter { $0 == "\"" || $0 == "'" }.count
        return quotes == 0 ? r : nil
    }

    /// Splits right-hand sides on `|` outside quotes and angle brackets; each alternative
    /// keeps the line of its first character.
    private func splitAlternatives(_ pieces: [(text: String, line: Int)]) throws -> [(String, Int)] {
        var out: [(String, Int)] = []
        var current = ""
        var currentLine = pieces.first?.line ?? 0
        var blank = true
        for (text, line) in pieces {
            var quote: Character? = nil
            var inName = false
            for c in text {
                if quote == nil && !inName && c == "|" {
                    out.append((current, currentLine))
                    current = ""
                    currentLine = line
                    blank = true
                    continue
                }
                if let q = quote {
                    if c == q { quote = nil }
                } else if c == "\"" || c == "'" {
                    quote = c
                } else if c == "<" {
                    inName = true
                } else if c == ">" {
                    inName = false
                }
                if blank && !c.isWhitespace { blank = false; currentLine = line }
                current.append(c)
            }
            if let q = quote { throw error(line, "unterminated quoted terminal (missing \(q))") }
            current.append(" ")
        }
        out.append((current, currentLine))
        // `<a> ::=` followed by `| x` lines: the empty text before the first bar is no alternative.
        if out.count > 1, out[0].0.trimmingSpaces().isEmpty, pieces.first?.text.trimmingSpaces().isEmpty == true {
            out.removeFirst()
        }
        return out
    }

    private func tokenize(_ text: String, line: Int) throws -> [RawSymbol] {
        let chars = Array(text)
        var i = 0
        var out: [RawSymbol] = []
        while i < chars.count {
            let c = chars[i]
            if c.isWhitespace { i += 1; continue }
            if c == "\"" || c == "'" {
                var j = i + 1
                while j < chars.count, chars[j] != c { j += 1 }
                out.append(.terminal(String(chars[(i + 1)..<j])))
                i = j + 1
            } else if c == "<" {
                guard let close = chars[i...].firstIndex(of: ">") else {
                    throw error(line, "'<' without a closing '>'; quote it if it is a terminal")
                }
                let name = String(chars[(i + 1)..<close])
                guard !name.isEmpty, !name.contains(where: \.isWhitespace) else {
                    throw error(line, "'<\(name)>' is not a rule name")
                }
                out.append(try codonValue(name, line: line) ?? .nonTerminal(name, line: line))
                i = close + 1
            } else {
                var j = i
                while j < chars.count, !chars[j].isWhitespace, chars[j] != "<", chars[j] != "\"", chars[j] != "'" { j += 1 }
                out.append(try rangeOrTerminal(String(chars[i..<j]), line: line))
                i = j
            }
        }
        return out
    }

    /// `GECodonValue-lo+hi`, or nil when `name` is an ordinary rule name.
    private func codonValue(_ name: String, line: Int) throws -> RawSymbol? {
        let prefix = "GECodonValue"
        guard name.hasPrefix(prefix) else { return nil }
        let rest = name.dropFirst(prefix.count)
        guard rest.hasPrefix("-") else {
            throw error(line, "<\(name)> needs a range, like <GECodonValue-0+9> or <GECodonValue-0.0+1.0>")
        }
        let bounds = rest.dropFirst()
        for plus in bounds.indices where bounds[plus] == "+" && plus != bounds.startIndex {
            let previous = bounds[bounds.index(before: plus)]
            if previous == "e" || previous == "E" { continue }
            let loText = String(bounds[..<plus]), hiText = String(bounds[bounds.index(after: plus)...])
            // Decimal only: Double("0x10") reads hexadecimal, which the toolkit refuses everywhere else (hunt BE).
            func decimal(_ text: String) -> Double? {
                text.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }) ? Double(text) : nil
            }
            guard let lo = decimal(loText), let hi = decimal(hiText), lo.isFinite, hi.isFinite else { continue }
            guard lo <= hi else { throw error(line, "<\(name)>: the lower bound \(loText) is above the upper bound \(hiText)") }
            let isInteger = Int(loText) != nil && Int(hiText) != nil
            if isInteger, hi - lo >= Double(UInt32.max) {
                throw error(line, "<\(name)>: the integer range is wider than a codon")
            }
            let range = Grammar.CodonRange(lower: lo, upper: hi, isInteger: isInteger)
            // A real constant is lo + (hi - lo) * k / 10000: with -1e308 and 1e308, hi - lo overflowed
            // and every constant was inf or NaN, without a word (hunt BV).
            if !isInteger, !range.isFinite {
                throw error(line, "<\(name)>: the range is too wide: its constants would not be finite numbers "
                                + "(hi - lo must be at most \(Grammar.CodonRange.widestRealSpan))")
            }
            return .codonValue(range)
        }
        throw error(line, "<\(name)>: expected <GECodonValue-lo+hi> with numeric bounds")
    }

    /// A bare terminal, possibly containing `[lo..hi]`.
    private func rangeOrTerminal(_ text: String, line: Int) throws -> RawSymbol {
        guard let open = text.firstIndex(of: "["), let close = text[open...].firstIndex(of: "]"),
              let dots = text[open..<close].range(of: "..")
        else { return .terminal(text) }
        let loText = text[text.index(after: open)..<dots.lowerBound]
        let hiText = text[dots.upperBound..<close]
        guard let lo = Int(loText), let hi = Int(hiText) else {
            throw error(line, "range '\(text)': expected whole numbers like x[0..37]")
        }
        guard lo <= hi else { throw error(line, "range '\(text)': \(lo) is above \(hi)") }
        // hi - lo + 1 below must not overflow (x[0..9223372036854775807] trapped; hunt H, stop 51).
        guard hi.subtractingReportingOverflow(lo).overflow == false, hi - lo < Self.maximumExpansion else {
            throw error(line, "range '\(text)': more than \(Self.maximumExpansion) values")
        }
        return .range(prefix: String(text[..<open]), lower: lo, upper: hi, suffix: String(text[text.index(after: close)...]))
    }

    /// Expands ranges into the cartesian product of alternatives.
    private func expand(_ symbols: [RawSymbol], line: Int) throws -> [[RawSymbol]] {
        var results: [[RawSymbol]] = [[]]
        for s in symbols {
            if case let .range(prefix, lo, hi, suffix) = s {
                let count = hi - lo + 1
                guard results.count * count <= Self.maximumExpansion else {
                    throw error(line, "ranges expand this alternative into more than \(Self.maximumExpansion) alternatives")
                }
                var next: [[RawSymbol]] = []
                next.reserveCapacity(results.count * count)
                for r in results {
                    for k in lo...hi {
                        // The suffix may hold a further range.
                        let rest = try rangeOrTerminal("\(k)\(suffix)", line: line)
                        switch rest {
                        case let .terminal(t): next.append(r + [.terminal(prefix + t)])
                        case let .range(p2, l2, h2, s2):
                            next.append(contentsOf: try expand([.range(prefix: prefix + p2, lower: l2, upper: h2, suffix: s2)], line: line).map { r + $0 })
                        default: preconditionFailure()
                        }
                        // Ranges in one terminal (`Q[0..499][0..499]`) multiply too: the nested one
                        // was checked alone, and 10^10 alternatives ran out of memory (hunt K, stop 52).
                        guard next.count <= Self.maximumExpansion else {
                            throw error(line, "ranges expand this alternative into more than \(Self.maximumExpansion) alternatives")
                        }
                    }
                }
                results = next
            } else {
                for i in results.indices { results[i].append(s) }
            }
        }
        return results
    }
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s = s.dropFirst() }
        while let l = s.last, l.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}
