import Foundation
import GrammarEvolution

/// A problem in an expression file or its generation settings, naming file, line and column.
public enum ExpressionFileError: Error, Equatable, CustomStringConvertible {
    case unreadable(file: String)
    case unwritable(file: String)
    case empty(file: String)
    case syntax(file: String, line: Int, column: Int, message: String)
    case unknownColumn(file: String, line: Int, variable: Int, columns: Int)
    /// A lag that reaches back past every row of the data: no row could be evaluated.
    case lagBeyondRows(file: String, line: Int, lag: Int, rows: Int)

    public var description: String {
        switch self {
        case let .unreadable(file): return "\(file): cannot be read"
        case let .unwritable(file): return "\(file): cannot be written"
        case let .empty(file): return "\(file): no expressions (one infix expression per line; '#' starts a comment)"
        case let .syntax(file, line, column, message): return "\(file):\(line):\(column): \(message)"
        case let .unknownColumn(file, line, variable, columns):
            return "\(file):\(line): x\(variable) is not a column; the data has x0...x\(columns - 1)"
        case let .lagBeyondRows(file, line, lag, rows):
            return "\(file):\(line): lag \(lag) reaches back past all \(rows) rows of the data; expected a lag below \(rows)"
        }
    }
}

/// Files of infix expressions, one per line, over `x0, x1, ...`.
public enum ExpressionFile {
    /// Parses `text`: one expression per line (LF or CRLF); blank lines and lines starting with
    /// `#` are skipped.
    /// - Parameters:
    ///   - columns: when given, expressions may only read `x0 ..< x<columns>`.
    ///   - rows: when given, lags must be below it (a row must be left to evaluate).
    ///   - file: the name used in errors.
    public static func parse(_ text: String, file: String, columns: Int? = nil, rows: Int? = nil) throws(ExpressionFileError) -> [Program] {
        var programs: [Program] = []
        // Lines end at LF (a CRLF's CR is whitespace at the end): a lone CR, VT or FF inside a line
        // split one expression into two without a word (hunt K, stop 52); a byte-order mark, as an
        // editor saves it, is skipped as the data CSV's is.
        let body = text.unicodeScalars.first == "\u{FEFF}" ? String(text.unicodeScalars.dropFirst()) : text
        for (n, line) in body.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let program: Program
            do {
                program = try Program(infix: String(line))
            } catch let e as ExpressionParseError {
                throw .syntax(file: file, line: n + 1, column: e.offset + 1, message: e.message)
            } catch {
                throw .syntax(file: file, line: n + 1, column: 1, message: "\(error)")
            }
            if let columns, let used = program.columnsUsed.max(), used >= columns {
                throw .unknownColumn(file: file, line: n + 1, variable: used, columns: columns)
            }
            if let rows, program.maximumLag >= rows {
                throw .lagBeyondRows(file: file, line: n + 1, lag: program.maximumLag, rows: rows)
            }
            programs.append(program)
        }
        guard !programs.isEmpty else { throw .empty(file: file) }
        return programs
    }

    public static func load(_ path: String, columns: Int? = nil, rows: Int? = nil) throws(ExpressionFileError) -> [Program] {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(file: path) }
        return try parse(String(decoding: data, as: UTF8.self), file: path, columns: columns, rows: rows)
    }

    public static func write(_ programs: [Program], to path: String) throws(ExpressionFileError) {
        let text = programs.map { $0.infix() }.joined(separator: "\n") + "\n"
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else {
            throw .unwritable(file: path)
        }
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014): a small seeded generator, the same sequence on every platform.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random expression trees with a chosen number of nodes, for benchmarks and tests.
public struct ExpressionGenerator: Sendable {
    public var operations: [GrammarEvolution.Operation]
    public var columns: Int
    /// Chance that a leaf is a column rather than a constant.
    public var variableProbability = 0.8
    /// Largest lag of a lagged leaf (0: no lagged leaves).
    public var maximumLag = 0

    public init(operations: [GrammarEvolution.Operation], columns: Int) {
        precondition(!operations.isEmpty && columns > 0, "ExpressionGenerator: needs operations and columns")
        self.operations = operations
        self.columns = columns
    }

    /// `count` programs with node counts uniform in `nodes` (an even count is made odd when only
    /// binary operations are allowed, as such trees always have an odd size).
    public func programs<G: RandomNumberGenerator>(count: Int, nodes: ClosedRange<Int>, using rng: inout G) -> [Program] {
        (0..<count).map { _ in
            var size = Int.random(in: nodes, using: &rng)
            if !operations.contains(where: { $0.arity == 1 }), size % 2 == 0 {
                size += size < nodes.upperBound ? 1 : -1
            }
            var out: [Instruction] = []
            grow(Swift.max(size, 1), into: &out, using: &rng)
            return Program(instructions: out)
        }
    }

    /// What `grow` does next: a subtree of so many nodes, or an operator after its arguments.
    private enum GrowTask { case tree(Int), unaryOperator, binaryOperator }

    /// A random tree of `size` nodes in postfix order. A stack of tasks, not recursion: a chain of
    /// 100,000 one-argument operators overflowed the stack (hunt K, stop 52). The generator is
    /// drawn from in the order the recursive version drew (an operator after its arguments), so a
    /// seed gives the expressions it gave.
    private func grow<G: RandomNumberGenerator>(_ size: Int, into out: inout [Instruction], using rng: inout G) {
        let unary = operations.filter { $0.arity == 1 }, binary = operations.filter { $0.arity == 2 }
        var tasks: [GrowTask] = [.tree(size)]
        while let task = tasks.popLast() {
            switch task {
            case .unaryOperator: out.append(.operation(unary.randomElement(using: &rng)!))
            case .binaryOperator: out.append(.operation(binary.randomElement(using: &rng)!))
            case let .tree(size):
                if size == 1 || (size == 2 && unary.isEmpty) {
                    if Double.random(in: 0..<1, using: &rng) < variableProbability {
                        let c = Int.random(in: 0..<columns, using: &rng)
                        let lag = maximumLag > 0 ? Int.random(in: 0...maximumLag, using: &rng) : 0
                        out.append(lag == 0 ? .variable(c) : .lagged(column: c, lag: lag))
                    } else {
                        out.append(.constant((Double.random(in: -2...2, using: &rng) * 1000).rounded() / 1000))
                    }
                    continue
                }
                let useUnary = !unary.isEmpty && (size == 2 || binary.isEmpty || Int.random(in: 0..<operations.count, using: &rng) < unary.count)
                if useUnary {
                    tasks += [.unaryOperator, .tree(size - 1)]
                } else {
                    var left = Int.random(in: 1...(size - 2), using: &rng)
                    if unary.isEmpty, left % 2 == 0 { left = left > 1 ? left - 1 : left + 1 }
                    tasks += [.binaryOperator, .tree(size - 1 - left), .tree(left)]
                }
            }
        }
    }
}
