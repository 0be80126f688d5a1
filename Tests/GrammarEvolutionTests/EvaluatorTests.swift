import Foundation
import Testing
@testable import GrammarEvolution
import EvaluatorBenchmarking

@Suite struct EvaluatorTests {
    /// Columns x0 = a, x1 = b over rows that cover the non-finite cases of every operator.
    static let a: [Double] = [6, -6, 1, 0, -1, .nan, 2, .infinity, -1000, 1e-12, 3, 0.5]
    static let b: [Double] = [3, 0, 0, 0, 1e-11, 1, .nan, 1, 1, -4, -4, 1000]

    static func table() -> DataTable<Double> { try! DataTable<Double>(columns: [a, b]) }

    /// Each binary operator against values worked out from its definition (IEEE 754 for + - * /,
    /// pdiv = 1 when |b| < 1e-10, aq = a / sqrt(1 + b²), min/max NaN when either is NaN).
    @Test func binaryOperatorsMatchDefinitions() throws {
        let evaluator = Evaluator(table: Self.table())
        let expected: [String: [Double]] = [
            "x0 / x1": [2, -.infinity, .infinity, .nan, -1e11, .nan, .nan, .infinity, -1000, -2.5e-13, -0.75, 0.0005],
            "pdiv(x0, x1)": [2, 1, 1, 1, 1, .nan, .nan, .infinity, -1000, -2.5e-13, -0.75, 0.0005],
            "aq(x0, x1)": [6 / Double(10.0).squareRoot(), -6, 1, 0, -1.0 / (1 + 1e-22).squareRoot(), .nan, .nan, .infinity,
                           -1000 / Double(2.0).squareRoot(), 1e-12 / Double(17.0).squareRoot(), 3 / Double(17.0).squareRoot(), 0.5 / Double(1_000_001).squareRoot()],
            "min(x0, x1)": [3, -6, 0, 0, -1, .nan, .nan, 1, -1000, -4, -4, 0.5],
            "max(x0, x1)": [6, 0, 1, 0, 1e-11, .nan, .nan, .infinity, 1, 1e-12, 3, 1000],
            "x0 - x1": [3, -6, 1, 0, -1 - 1e-11, .nan, .nan, .infinity, -1001, 4 + 1e-12, 7, -999.5],
        ]
        for (text, want) in expected {
            let got = evaluator.values(of: try Program(infix: text), rows: 0..<Self.a.count)
            for i in want.indices {
                #expect(got[i].isNaN == want[i].isNaN && (want[i].isNaN || got[i] == want[i]), "\(text) row \(i): \(got[i]) vs \(want[i])")
            }
        }
    }

    /// Unary operators: log|x| with log 0 = 0, sqrt|x|, exp overflow to inf, NaN propagation.
    @Test func unaryOperatorsMatchDefinitions() throws {
        let evaluator = Evaluator(table: Self.table())
        let expected: [String: [Double]] = [
            "log(x0)": [Foundation.log(6.0), Foundation.log(6.0), 0, 0, 0, .nan, Foundation.log(2.0), .infinity,
                        Foundation.log(1000.0), Foundation.log(1e-12), Foundation.log(3.0), Foundation.log(0.5)],
            "sqrt(x0)": [Double(6.0).squareRoot(), Double(6.0).squareRoot(), 1, 0, 1, .nan, Double(2.0).squareRoot(), .infinity,
                         Double(1000.0).squareRoot(), 1e-6, Double(3.0).squareRoot(), Double(0.5).squareRoot()],
            "exp(-x0)": [Foundation.exp(-6.0), Foundation.exp(6.0), Foundation.exp(-1.0), 1, Foundation.exp(1.0), .nan,
                         Foundation.exp(-2.0), 0, .infinity, Foundation.exp(-1e-12), Foundation.exp(-3.0), Foundation.exp(-0.5)],
            "square(x0)": [36, 36, 1, 0, 1, .nan, 4, .infinity, 1_000_000, 1e-24, 9, 0.25],
        ]
        for (text, want) in expected {
            let got = evaluator.values(of: try Program(infix: text), rows: 0..<Self.a.count)
            for i in want.indices {
                let close = got[i] == want[i] || Swift.abs(got[i] - want[i]) <= 4e-16 * Swift.abs(want[i])
                #expect(got[i].isNaN == want[i].isNaN && (want[i].isNaN || close), "\(text) row \(i): \(got[i]) vs \(want[i])")
            }
        }
    }

    /// The scalar reference with `sin cos exp log` replaced by the evaluator's scalar
    /// approximations (libm beyond the fast trigonometric range), so that the batching, slots,
    /// lags and IEEE operators are checked bit for bit; the approximations' own accuracy is
    /// checked in `VectorMathTests`.
    static func reference(_ p: Program, _ value: (Int, Int) -> Double) -> Double {
        var stack: [Double] = []
        for ins in p.instructions {
            switch ins {
            case let .constant(c): stack.append(c)
            case let .variable(c): stack.append(value(c, 0))
            case let .lagged(c, lag): stack.append(value(c, lag))
            case let .operation(op) where op.arity == 2:
                let b = stack.removeLast(), a = stack.removeLast()
                stack.append(op.apply(a, b))
            case let .operation(op):
                let a = stack.removeLast()
                let fast = a.magnitude <= Double._trigonometricFastRange
                switch op {
                case .sin: stack.append(fast ? _DoubleMath.sinCos(a, cosine: false) : Foundation.sin(a))
                case .cos: stack.append(fast ? _DoubleMath.sinCos(a, cosine: true) : Foundation.cos(a))
                case .exp: stack.append(_DoubleMath.exp(a))
                case .log: stack.append(_DoubleMath.logMagnitude(a))
                default: stack.append(op.apply(a))
                }
            }
        }
        return stack[0]
    }

    /// Random programs (all operators, lags up to 3) on random data: the Double evaluator equals
    /// the scalar reference bit for bit on every row (NaN matching NaN).
    @Test func matchesScalarReferenceWithLags() throws {
        var rng = SeededGenerator(seed: 3)
        let rows = 700
        let columns = (0..<3).map { _ in (0..<rows).map { _ in Double.random(in: -3...3, using: &rng) } }
        let table = try! DataTable<Double>(columns: columns)
        var generator = ExpressionGenerator(operations: GrammarEvolution.Operation.allCases, columns: 3)
        generator.maximumLag = 3
        let programs = generator.programs(count: 200, nodes: 1...40, using: &rng)
        let all = Evaluator(table: table).values(of: programs, rows: 3..<rows, threads: 2)
        for (p, got) in zip(programs, all) {
            let mismatches = (3..<rows).filter { r in
                let want = Self.reference(p.simplified()) { c, lag in columns[c][r - lag] }
                let v = got[r - 3]
                return !(v.bitPattern == want.bitPattern || (v.isNaN && want.isNaN))
            }
            #expect(mismatches.isEmpty, "\(p): rows \(mismatches.prefix(5)) differ")
        }
    }

    /// Float and Double evaluation of the same programs on the same (Float-representable) data
    /// agree to single precision on well-conditioned programs (+ - * aq sin cos).
    @Test func floatAgreesWithDouble() throws {
        var rng = SeededGenerator(seed: 5)
        let columns = (0..<4).map { _ in (0..<1000).map { _ in Double(Float(Double.random(in: -1...1, using: &rng))) } }
        let table = try! DataTable<Double>(columns: columns)
        let programs = ExpressionGenerator(operations: [.add, .sub, .mul, .aq, .sin, .cos], columns: 4)
            .programs(count: 50, nodes: 5...30, using: &rng)
        let d = Evaluator(table: table).values(of: programs, rows: 0..<1000, threads: 1)
        let f = Evaluator(table: table.converted(to: Float.self)).values(of: programs, rows: 0..<1000, threads: 1)
        for k in programs.indices {
            let scale = d[k].map(Swift.abs).max()!
            let worst = zip(d[k], f[k]).map { Swift.abs($0 - Double($1)) }.max()!
            #expect(worst <= 1e-4 * Swift.max(1, scale), "\(programs[k]): \(worst)")
        }
    }

    @Test func oneAndTwoThreadsGiveIdenticalResults() throws {
        let table = try! EvaluatorBenchmark.randomTable(rows: 3000, columns: 4, seed: 9).converted(to: Float.self)
        let programs = try! EvaluatorBenchmark.randomExpressions(count: 40, minNodes: 1, maxNodes: 30,
                                                                 operations: GrammarEvolution.Operation.allCases, columns: 4, seed: 9)
        let evaluator = Evaluator(table: table)
        let one = evaluator.values(of: programs, rows: 0..<3000, threads: 1)
        let two = evaluator.values(of: programs, rows: 0..<3000, threads: 2)
        #expect(zip(one, two).allSatisfy { zip($0, $1).allSatisfy { $0.bitPattern == $1.bitPattern } })
    }

    @Test func leafAndConstantProgramsAndPartialBatches() throws {
        let table = try! EvaluatorBenchmark.randomTable(rows: 600, columns: 2, seed: 1)
        let evaluator = Evaluator(table: table)
        #expect(evaluator.values(of: try Program(infix: "x1"), rows: 5..<600) == Array(Array(table.column(1))[5..<600]))
        #expect(evaluator.values(of: try Program(infix: "lag(x0, 5)"), rows: 5..<600) == Array(Array(table.column(0))[0..<595]))
        #expect(evaluator.values(of: try Program(infix: "2 * 3"), rows: 0..<300) == [Double](repeating: 6, count: 300))
    }

    @Test func csvErrorsNameLineAndField() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ge-eval-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = dir.appendingPathComponent("good.csv").path, bad = dir.appendingPathComponent("bad.csv").path
        let short = dir.appendingPathComponent("short.csv").path
        try "1,2.5\n\n-3,4e2\n".write(toFile: good, atomically: true, encoding: .utf8)
        try "1,2\n3,x\n".write(toFile: bad, atomically: true, encoding: .utf8)
        try "1,2\n3\n".write(toFile: short, atomically: true, encoding: .utf8)
        let t = try DataTable<Float>(csvFile: good)
        #expect(t.rowCount == 2 && t.columnCount == 2 && t[1, 1] == 400 && t[1, 0] == -3)
        #expect(throws: DataTableError.notANumber(file: bad, line: 2, field: 2, text: "x")) { try DataTable<Double>(csvFile: bad) }
        #expect(throws: DataTableError.fieldCount(file: short, line: 2, expected: 2, found: 1)) { try DataTable<Double>(csvFile: short) }
        #expect(throws: DataTableError.columnLengthMismatch(column: 1, expected: 2, found: 1)) {
            try DataTable<Double>(columns: [[1, 2], [3]])
        }
    }
}
