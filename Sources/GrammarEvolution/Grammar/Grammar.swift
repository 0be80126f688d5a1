import Foundation

/// A context-free grammar for grammatical evolution, parsed from BNF text and precompiled
/// into integer tables for the mapper.
///
/// ## Dialect (the common GE dialect, as PonyGE2 writes it, plus two libGE-style extensions)
/// - A rule is `<name> ::= alternative | alternative | ...`. The first rule is the start symbol.
/// - A rule may continue over several lines: a line whose first non-blank character is `|`
///   (or any line following one that ends in `|`) adds alternatives to the rule above.
/// - `#` starts a comment that runs to the end of the line (except inside quotes).
/// - Within an alternative, `<name>` is a non-terminal; `"..."` or `'...'` is a terminal taken
///   verbatim (it may contain spaces, `|`, `<` or `#`); any other run of non-blank characters is
///   a terminal. A terminal must not be empty unless quoted (`""` is the empty terminal).
/// - The mapper joins terminals with single spaces, and the phenotype text is compiled with
///   `Program(infix:variables:)`, so terminals are pieces of that infix language and spacing
///   inside the grammar never matters.
/// - `<GECodonValue-lo+hi>` is a constant chosen by one codon. With integer bounds
///   (`<GECodonValue-0+9>`) it yields `lo + codon mod (hi - lo + 1)`. With a real bound
///   (`<GECodonValue-0.0+1.0>`, `<GECodonValue--2.5+2.5>`) it yields
///   `lo + (hi - lo) * (codon mod 10001) / 10000`: a resolution of `(hi - lo) / 10000`. Bounds
///   must be finite, and a real range no wider than `CodonRange.widestRealSpan` (about 1.8e304),
///   so that every constant is a finite number; an integer range spans fewer values than a codon.
/// - A range `prefix[lo..hi]suffix` inside an unquoted terminal expands the alternative into
///   one alternative per integer in `lo...hi`: `x[0..2]` is `x0 | x1 | x2`, `G[1..12]` is
///   `G1 | ... | G12`. Several ranges in one alternative expand to all combinations.
///
/// Parsing only rejects malformed text; semantic problems (undefined, unreachable or endless
/// rules) are reported by `check()` and turned into an error by `validated()`.
public struct Grammar: Sendable {
    /// A rule with its productions. Rules referenced but never defined have `isDefined == false`.
    public struct Rule: Sendable, Hashable {
        public var name: String
        /// 1-based line of the definition, nil for undefined rules.
        public var line: Int?
        public var productions: [Production]
        public var isDefined: Bool { line != nil }
    }

    public struct Production: Sendable, Hashable {
        public var symbols: [Symbol]
        /// 1-based line where the alternative starts.
        public var line: Int
    }

    public enum Symbol: Sendable, Hashable {
        case terminal(String)
        /// Index into `rules`.
        case nonTerminal(Int)
        case codonValue(CodonRange)
    }

    /// A constant chosen by one codon (`<GECodonValue-lo+hi>`).
    public struct CodonRange: Sendable, Hashable {
        public var lower: Double
        public var upper: Double
        public var isInteger: Bool
        /// Number of steps a real range is divided into.
        public static let realSteps: UInt32 = 10_000

        /// The constant a codon selects: `lo + c mod (hi-lo+1)` (integer) or
        /// `lo + (hi-lo) * (c mod 10001) / 10000` (real).
        @inlinable
        public func value(for codon: UInt32) -> Double {
            if isInteger {
                let span = UInt32(upper - lower) + 1
                return lower + Double(codon % span)
            }
            let k = Double(codon % (CodonRange.realSteps + 1))
            return lower + (upper - lower) * k / Double(CodonRange.realSteps)
        }

        /// The widest span `hi - lo` of a real range whose constants are all finite:
        /// `(hi - lo) * 10000` must not overflow (about 1.8e304). The parser refuses wider ranges.
        public static let widestRealSpan = Double.greatestFiniteMagnitude / Double(realSteps)

        /// Whether every constant of the range is a finite number: finite bounds and, for a real
        /// range, a span `hi - lo` of at most `widestRealSpan` (every range a grammar parses to).
        public var isFinite: Bool {
            guard lower.isFinite, upper.isFinite, lower <= upper else { return false }
            if isInteger { return true }
            let span = upper - lower
            return span.isFinite && span <= Self.widestRealSpan && value(for: Self.realSteps).isFinite
        }

        /// The codon (smallest) selecting `value` exactly, if one does.
        func codon(for value: Double) -> UInt32? {
            if isInteger {
                guard value == value.rounded(), value >= lower, value <= upper else { return nil }
                return UInt32(value - lower)
            }
            guard upper > lower else { return value == lower ? 0 : nil }
            let k = ((value - lower) / (upper - lower) * Double(CodonRange.realSteps)).rounded()
            guard k >= 0, k <= Double(CodonRange.realSteps) else { return nil }
            return self.value(for: UInt32(k)) == value ? UInt32(k) : nil
        }
    }

    /// The rules; `rules[0]` is the start rule.
    public let rules: [Rule]
    /// The file the grammar was read from, for messages.
    public let source: String?
    let tables: GrammarTables

    /// Parses grammar text. Throws `GrammarError.syntax` naming the line of the first problem.
    public init(text: String, source: String? = nil) throws {
        let rules = try GrammarParser(text: text, source: source).parse()
        self.rules = rules
        self.source = source
        self.tables = GrammarTables(rules: rules)
    }

    /// Reads and parses a grammar file.
    public init(contentsOf url: URL) throws {
        let text: String
        do { text = try String(contentsOf: url, encoding: .utf8) } catch {
            throw GrammarError.unreadable(path: url.path, reason: "\(error.localizedDescription)")
        }
        try self.init(text: text, source: url.path)
    }

    /// Index of the rule named `name` (without angle brackets).
    public func ruleIndex(named name: String) -> Int? { rules.firstIndex { $0.name == name } }

    /// Minimum depth of each rule: the height of the smallest derivation tree rooted at it,
    /// counting rule nodes only (a rule with an all-terminal alternative has depth 1;
    /// `minDepth(r) = min over alternatives of 1 + max over its non-terminals of minDepth`).
    /// nil for a rule that can never finish.
    public var minimumDepths: [String: Int?] {
        var out: [String: Int?] = [:]
        for (i, rule) in rules.enumerated() {
            let d = tables.ruleMinDepth[i]
            out[rule.name] = d == GrammarTables.unbounded ? nil : d
        }
        return out
    }

    /// Returns the grammar if `check()` finds no errors, otherwise throws `GrammarError.invalid`.
    public func validated() throws -> Grammar {
        let report = check()
        if !report.errors.isEmpty { throw GrammarError.invalid(source: source, report: report) }
        return self
    }

    /// A stable 64-bit FNV-1a hash of the rules (comments and spacing excluded), as 16 hex digits.
    /// Checkpoints record it so a run is never resumed with a different grammar.
    public var fingerprint: String {
        var text = ""
        for rule in rules {
            text += "<\(rule.name)>::="
            for p in rule.productions {
                for s in p.symbols {
                    switch s {
                    case let .terminal(t): text += "T\(t.utf8.count):\(t)"
                    case let .nonTerminal(r): text += "N\(r)"
                    case let .codonValue(c): text += "C\(c.lower.bitPattern),\(c.upper.bitPattern),\(c.isInteger)"
                    }
                }
                text += "|"
            }
            text += "\n"
        }
        return FNV1a.hex(text)
    }
}

/// 64-bit FNV-1a: a stable (process-independent) hash for fingerprints of grammars, settings and
/// data (not cryptographic). `hash(_:)` and `hex(_:)` hash a text; a value fed byte by byte or a
/// word at a time (`add`) hashes anything else.
public struct FNV1a: Sendable {
    public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    public init() {}

    public mutating func add(byte: UInt8) {
        value ^= UInt64(byte)
        value = value &* 0x0000_0100_0000_01b3
    }

    /// The word's eight bytes, least significant first.
    public mutating func add(_ word: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { add(byte: UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
    }

    /// `value` as 16 hex digits.
    public var hex: String {
        let s = String(value, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    public static func hash(_ text: String) -> UInt64 {
        var h = FNV1a()
        for byte in text.utf8 { h.add(byte: byte) }
        return h.value
    }

    public static func hex(_ text: String) -> String {
        var h = FNV1a()
        for byte in text.utf8 { h.add(byte: byte) }
        return h.hex
    }
}

/// A grammar that cannot be used.
public enum GrammarError: Error, CustomStringConvertible, Equatable {
    /// Malformed text at a line.
    case syntax(source: String?, line: Int, message: String)
    /// `check()` found errors; the report lists them all with their lines.
    case invalid(source: String?, report: GrammarReport)
    case unreadable(path: String, reason: String)

    public var description: String {
        switch self {
        case let .syntax(source, line, message):
            return "\(source ?? "grammar"):\(line): \(message)"
        case let .invalid(source, report):
            let lines = report.errors.map { "  \(source ?? "grammar"):\($0.line.map(String.init) ?? "-"): \($0.message)" }
            return "the grammar\(source.map { " \($0)" } ?? "") has \(report.errors.count) error(s):\n" + lines.joined(separator: "\n")
        case let .unreadable(path, reason):
            return "cannot read grammar file \(path): \(reason)"
        }
    }
}
