import Foundation
import GrammarEvolution

/// Arithmetic precision of an evaluation.
public enum Precision: String, Sendable, CaseIterable {
    case float, double
}

/// A problem with benchmark settings.
public enum BenchmarkSettingsError: Error, Equatable, CustomStringConvertible {
    case notPositive(option: String, value: Int)
    case nodeRange(minimum: Int, maximum: Int)
    case unknownOperator(String)
    /// `--operators ""` or `","`: no operator to build expressions from (it trapped; hunt H, stop 51).
    case noOperators
    /// The largest lag of the expressions reaches back past every row: nothing to evaluate.
    case lagBeyondRows(lag: Int, rows: Int)
    /// A generated expression nests deeper than an expression file may (`Program.maximumNesting`):
    /// long chains of functions of one argument.
    case generatedTooDeep(maximumNodes: Int)

    static let operatorList = "expected a comma-separated list of + - * / pdiv aq min max sin cos exp log sqrt square neg"

    public var description: String {
        switch self {
        case let .notPositive(option, value): return "\(option) must be at least 1 (got \(value))"
        case let .nodeRange(minimum, maximum):
            return "--min-nodes (\(minimum)) must be at least 1 and at most --max-nodes (\(maximum))"
        case .noOperators:
            return "--operators names no operator; \(Self.operatorList)"
        case let .unknownOperator(name):
            return "unknown operator '\(name)'; \(Self.operatorList)"
        case let .lagBeyondRows(lag, rows):
            return "an expression reads lag \(lag), which reaches back past all \(rows) rows; expected lags below \(rows)"
        case let .generatedTooDeep(maximum):
            return "expressions of up to \(maximum) nodes of these operators nest deeper than the \(Program.maximumNesting) levels an "
                + "expression file may hold (chains of one-argument functions): lower --max-nodes or add operators of two arguments"
        }
    }
}

/// The timing of one evaluator benchmark and a naive reference in the same run.
public struct EvaluatorBenchmarkReport: Sendable {
    public var programs: Int
    /// Total nodes of all programs, leaves included.
    public var nodes: Int
    public var rows: Int
    public var precision: Precision
    public var threads: Int
    /// Seconds per pass (all programs over all rows), one per repeat.
    public var seconds: [Double]
    /// Seconds of the naive row-by-row interpreter over `referenceRows` rows, one thread.
    public var referenceSeconds: Double
    public var referenceRows: Int

    public var minimumSeconds: Double { seconds.min() ?? .nan }
    public var medianSeconds: Double {
        let s = seconds.sorted()
        return s.isEmpty ? .nan : (s[(s.count - 1) / 2] + s[s.count / 2]) / 2
    }
    /// Billions of node evaluations per second: nodes × rows / seconds (every node counted).
    public func gpops(_ seconds: Double) -> Double { Double(nodes) * Double(rows) / seconds / 1e9 }
    public var referenceGPops: Double { Double(nodes) * Double(referenceRows) / referenceSeconds / 1e9 }

    public var text: String {
        func f(_ x: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", x) }
        return """
            programs \(programs), nodes (total) \(nodes), rows \(rows), precision \(precision.rawValue), threads \(threads)
            time per pass: min \(f(minimumSeconds * 1000, 2)) ms, median \(f(medianSeconds * 1000, 2)) ms over \(seconds.count) repeats
            throughput: \(f(gpops(minimumSeconds), 2)) GPops/s (min time), \(f(gpops(medianSeconds), 2)) GPops/s (median)
            naive scalar interpreter (1 thread, \(referenceRows) rows): \(f(referenceGPops, 3)) GPops/s; speed-up \(f(gpops(minimumSeconds) / referenceGPops, 1))x
            """
    }
}

/// The `bench-eval` logic: data, timing loop and value export.
public enum EvaluatorBenchmark {
    /// `columns` columns of `rows` values uniform in [-1, 1], from a seeded generator.
    public static func randomTable(rows: Int, columns: Int, seed: UInt64) throws(BenchmarkSettingsError) -> DataTable<Double> {
        guard rows > 0 else { throw .notPositive(option: "--rows", value: rows) }
        guard columns > 0 else { throw .notPositive(option: "--columns", value: columns) }
        var rng = SeededGenerator(seed: seed)
        let data = (0..<columns).map { _ in (0..<rows).map { _ in Double.random(in: -1...1, using: &rng) } }
        return try! DataTable(columns: data)
    }

    /// Parses an operator list such as `+,-,*,/,aq,sin` (names as in infix text).
    public static func operations(_ list: String) throws(BenchmarkSettingsError) -> [GrammarEvolution.Operation] {
        let symbols: [String: GrammarEvolution.Operation] = ["+": .add, "-": .sub, "*": .mul, "/": .div, "neg": .neg]
        let operations = try list.split(separator: ",").map { (name: Substring) throws(BenchmarkSettingsError) -> GrammarEvolution.Operation in
            let n = name.trimmingCharacters(in: .whitespaces)
            guard let op = symbols[n] ?? GrammarEvolution.Operation.functions[n] else { throw .unknownOperator(n) }
            return op
        }
        guard !operations.isEmpty else { throw .noOperators }
        return operations
    }

    /// `count` random expressions of `minNodes...maxNodes` nodes over `columns` columns.
    public static func randomExpressions(count: Int, minNodes: Int, maxNodes: Int, operations: [GrammarEvolution.Operation],
                                         columns: Int, seed: UInt64) throws(BenchmarkSettingsError) -> [Program] {
        guard count > 0 else { throw .notPositive(option: "--generate-expressions", value: count) }
        guard minNodes >= 1, minNodes <= maxNodes else { throw .nodeRange(minimum: minNodes, maximum: maxNodes) }
        guard columns > 0 else { throw .notPositive(option: "--columns", value: columns) }
        var rng = SeededGenerator(seed: seed)
        let programs = ExpressionGenerator(operations: operations, columns: columns)
            .programs(count: count, nodes: minNodes...maxNodes, using: &rng)
        // Checked before the file is written: the file must read back (hunt C: it was overwritten
        // with 300-deep chains, then refused as "nesting deeper than 256 levels").
        for p in programs where (try? Program(infix: p.infix())) == nil { throw .generatedTooDeep(maximumNodes: maxNodes) }
        return programs
    }

    /// Times `repeats` passes of all programs over all evaluable rows (from the largest lag on),
    /// and a naive row-by-row interpreter over up to `referenceRows` rows.
    public static func run(_ programs: [Program], table: DataTable<Double>, precision: Precision, threads: Int,
                           repeats: Int, referenceRows: Int = 10_000) throws(BenchmarkSettingsError) -> EvaluatorBenchmarkReport {
        guard threads > 0 else { throw .notPositive(option: "--threads", value: threads) }
        guard repeats > 0 else { throw .notPositive(option: "--repeat", value: repeats) }
        let lag = programs.map(\.maximumLag).max() ?? 0
        guard lag < table.rowCount else { throw .lagBeyondRows(lag: lag, rows: table.rowCount) }
        switch precision {
        case .float: return run(programs, table: table.converted(to: Float.self), threads: threads, repeats: repeats, referenceRows: referenceRows)
        case .double: return run(programs, table: table, threads: threads, repeats: repeats, referenceRows: referenceRows)
        }
    }

    static func run<S: EvaluatorScalar>(_ programs: [Program], table: DataTable<S>, threads: Int, repeats: Int,
                                        referenceRows: Int) -> EvaluatorBenchmarkReport {
        let start = programs.map(\.maximumLag).max() ?? 0
        let rows = start..<Swift.max(start, table.rowCount)
        let evaluator = Evaluator(table: table)
        let compiled = programs.map { _CompiledProgram<S>($0) }
        var seconds: [Double] = []
        let clock = ContinuousClock()
        for _ in 0..<repeats {
            let elapsed = clock.measure {
                let checks = evaluator.map(compiled, rows: [rows], threads: threads) { _, v in
                    v.isEmpty ? 0 : Double(v[0]) + Double(v[v.count - 1])
                }
                precondition(checks.count == programs.count)
            }
            seconds.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
        }
        let referenceRange = start..<Swift.min(rows.upperBound, start + referenceRows)
        let referenceElapsed = clock.measure {
            for p in programs { _ = naiveEvaluate(p, table: table, rows: referenceRange) }
        }
        return EvaluatorBenchmarkReport(
            programs: programs.count, nodes: programs.reduce(0) { $0 + $1.nodeCount }, rows: rows.count,
            precision: S.self == Float.self ? .float : .double, threads: threads, seconds: seconds,
            referenceSeconds: Double(referenceElapsed.components.seconds) + Double(referenceElapsed.components.attoseconds) * 1e-18,
            referenceRows: referenceRange.count)
    }

    /// A plain row-at-a-time stack interpreter in `S` with libm transcendentals: the baseline
    /// the batched evaluator is compared with.
    static func naiveEvaluate<S: EvaluatorScalar>(_ program: Program, table: DataTable<S>, rows: Range<Int>) -> [S] {
        var stack = [S](repeating: 0, count: Swift.max(program.stackDepth, 1))
        var out: [S] = []
        out.reserveCapacity(rows.count)
        for r in rows {
            var top = -1
            for ins in program.instructions {
                switch ins {
                case let .constant(c): top += 1; stack[top] = S(c)
                case let .variable(c): top += 1; stack[top] = table[r, c]
                case let .lagged(c, lag): top += 1; stack[top] = table[r - lag, c]
                case let .operation(op):
                    if op.arity == 2 {
                        stack[top - 1] = S(op.apply(Double(stack[top - 1]), Double(stack[top])))
                        top -= 1
                    } else {
                        stack[top] = S(op.apply(Double(stack[top])))
                    }
                }
            }
            out.append(stack[0])
        }
        return out
    }

    /// Writes each program's values on the first `rows` evaluable rows as CSV: a header of
    /// `e1, e2, ...`, then one line per row, one column per program, shortest round-trip text.
    /// - Precondition: every lag is below `table.rowCount` (`ExpressionFile.load(_:columns:rows:)` checks it).
    public static func writeValues(_ programs: [Program], table: DataTable<Double>, precision: Precision,
                                   rows: Int = 1000, to path: String) throws(ExpressionFileError) {
        let start = programs.map(\.maximumLag).max() ?? 0
        let range = start..<Swift.max(start, Swift.min(table.rowCount, start + rows))
        let columns: [[String]]
        switch precision {
        case .float:
            columns = Evaluator(table: table.converted(to: Float.self)).values(of: programs, rows: range, threads: 1)
                .map { $0.map { "\($0)" } }
        case .double:
            columns = Evaluator(table: table).values(of: programs, rows: range, threads: 1).map { $0.map { "\($0)" } }
        }
        var text = programs.indices.map { "e\($0 + 1)" }.joined(separator: ",") + "\n"
        for r in 0..<range.count {
            text += columns.map { $0[r] }.joined(separator: ",") + "\n"
        }
        // A stream (`/dev/stdout`, a named pipe) is written in place; a regular file atomically, a
        // symbolic link's target in its place (until stop 52 the link, and as root `/dev/stdout`
        // itself, was replaced by a regular file and nothing reached the reader).
        var info = stat()
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG, (info.st_mode & S_IFMT) != S_IFDIR {
            guard let handle = FileHandle(forWritingAtPath: path), (try? handle.write(contentsOf: Data(text.utf8))) != nil else {
                throw .unwritable(file: path)
            }
            try? handle.close()
            return
        }
        let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil
            ? URL(fileURLWithPath: path).resolvingSymlinksInPath().path : path
        guard FileManager.default.createFile(atPath: target, contents: Data(text.utf8)) else {
            throw .unwritable(file: path)
        }
    }
}
