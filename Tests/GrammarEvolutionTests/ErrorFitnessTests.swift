import Testing
@testable import GrammarEvolution
import EvaluatorBenchmarking

@Suite struct ErrorFitnessTests {
    static let x: [Double] = (0..<500).map { Double($0) / 100 - 2.5 }

    /// y = 3 + 2 f(x) with f = x0 * x0 - x0: scaling must give intercept 3, slope 2, error 0.
    @Test func linearScalingRecoversInterceptAndSlope() throws {
        let table = try DataTable<Double>(columns: [Self.x])
        let y = Self.x.map { 3 + 2 * ($0 * $0 - $0) }
        let fitness = try ErrorFitness(table: table, target: y, rows: [0..<500])
        let p = fitness.predict(try Program(infix: "x0 * x0 - x0"))
        #expect(Swift.abs(p.intercept - 3) < 1e-9 && Swift.abs(p.slope - 2) < 1e-9)
        #expect(p.error < 1e-9)
        #expect(zip(p.values, y).allSatisfy { Swift.abs($0 - $1) < 1e-9 })
        #expect(fitness.errors(of: [try Program(infix: "x0 * x0 - x0")], threads: 1)[0] < 1e-9)
    }

    /// Without scaling, f = x0 against y = x0 + 1 has error exactly 1 (RMSE and MAE).
    /// A constant program with scaling predicts mean(y): slope 0.
    @Test func unscaledErrorsAndConstantPrograms() throws {
        let table = try DataTable<Double>(columns: [Self.x])
        let y = Self.x.map { $0 + 1 }
        for metric in ErrorMetric.allCases {
            let f = try ErrorFitness(table: table, target: y, rows: [0..<500], metric: metric, linearScaling: false)
            #expect(Swift.abs(f.errors(of: [try Program(infix: "x0")], threads: 1)[0] - 1) < 1e-12)
        }
        let scaled = try ErrorFitness(table: table.converted(to: Float.self), target: y, rows: [0..<500])
        let c = scaled.predict(try Program(infix: "0.1 + 0.2"))
        // mean(y) = mean(x) + 1 = (-2.5 + 2.49) / 2 + 1 = 0.995
        #expect(c.slope == 0 && Swift.abs(c.intercept - 0.995) < 1e-12)
    }

    /// Weighted MAE by hand: rows 0..<4, f = 0 (no scaling), y = [1, 2, 3, 4], w = [1, 0, 0, 3]:
    /// (1*1 + 3*4) / 4 = 3.25. Row ranges [0..<2, 3..<4] skip row 2: (1 + 12) / 4 is unchanged.
    @Test func weightsAndRowRanges() throws {
        let table = try DataTable<Double>(columns: [[0, 0, 0, 0]])
        let f = try ErrorFitness(table: table, target: [1, 2, 3, 4], rows: [0..<4], weights: [1, 0, 0, 3],
                                 metric: .mae, linearScaling: false)
        #expect(f.errors(of: [try Program(infix: "x0")], threads: 1) == [3.25])
        let g = try ErrorFitness(table: table, target: [1, 2, 3, 4], rows: [0..<2, 3..<4], weights: [1, 0, 0, 3],
                                 metric: .mae, linearScaling: false)
        #expect(g.errors(of: [try Program(infix: "x0")], threads: 1) == [3.25])
        #expect(throws: FitnessSetupError.invalidWeight(row: 1, value: -1)) {
            try ErrorFitness(table: table, target: [1, 2, 3, 4], rows: [0..<4], weights: [1, -1, 0, 3])
        }
        #expect(throws: FitnessSetupError.targetLength(expected: 4, found: 3)) {
            try ErrorFitness(table: table, target: [1, 2, 3], rows: [0..<4])
        }
    }

    /// 0 / (x0 - x0) is NaN on every row; exp(1000 * x0) overflows; lag 5 reaches before row 2;
    /// the table has no column x1.
    @Test func nonFiniteAndUnevaluableProgramsGetInfinity() throws {
        let table = try DataTable<Double>(columns: [Self.x]).converted(to: Float.self)
        let f = try ErrorFitness(table: table, target: Self.x, rows: [2..<500])
        let errors = f.errors(of: [try Program(infix: "0 / (x0 - x0)"), try Program(infix: "exp(1000 * x0)"),
                                   try Program(infix: "lag(x0, 5)"), try Program(infix: "lag(x0, 2)"),
                                   try Program(infix: "x0 + x1")], threads: 2)
        #expect(errors[0] == .infinity && errors[1] == .infinity && errors[2] == .infinity && errors[4] == .infinity)
        #expect(errors[3].isFinite)
        #expect(f.predict(try Program(infix: "x1")).error == .infinity)
    }

    /// Issue #12: a program finite on the training rows but not on the validation rows
    /// (exp(1000 * x0) overflows for x0 > 0.71) gave `values: []`, and the trainer indexed it.
    /// Its prediction must hold one NaN per row, with error infinity.
    @Test func nonFinitePredictionKeepsOneValuePerRow() throws {
        let table = try DataTable<Double>(columns: [Self.x])
        let validation = try ErrorFitness(table: table, target: Self.x, rows: [400..<500], linearScaling: false)
        let program = try Program(infix: "exp(1000 * x0)")
        let p = validation.predict(program)
        #expect(p.values.count == 100)
        #expect(p.values.allSatisfy { $0.isNaN })
        #expect(p.error == .infinity)
        let training = try ErrorFitness(table: table, target: Self.x, rows: [0..<100])
        #expect(training.predict(program).error.isFinite)
    }

    /// Hunt BV: 1e39 in a Float table became inf, and a NaN cell made every program reading its
    /// column invalid: the search returned a constant without a word. Both are refused, by name.
    @Test func valuesBeyondThePrecisionAndNonFiniteCellsAreRefused() throws {
        #expect(throws: DataTableError.valueOutOfRange(column: 1, name: "b", row: 2, value: -1e39,
                                                        largestMagnitude: Double(Float.greatestFiniteMagnitude))) {
            try DataTable<Float>(columns: [[1, 2, 3], [1, 2, -1e39]], names: ["a", "b"])
        }
        // Double holds it; Float's largest (written as text, a little above it in Double) rounds to it.
        #expect(throws: Never.self) { try DataTable<Double>(columns: [[1e39]]) }
        #expect(try DataTable<Float>(columns: [[Double(Float.greatestFiniteMagnitude), 3.4028235e+38]])[1, 0] == .greatestFiniteMagnitude)
        // NaN and inf are kept in the table (the evaluator computes with them) but not scored.
        let table = try DataTable<Float>(columns: [[1, 2, .nan, 4], [1, 2, 3, .infinity]], names: ["x", "y"])
        #expect(table[2, 0].isNaN)
        do {
            try table.checkFinite()
            Issue.record("accepted")
        } catch {
            // NaN is not equal to itself: match the case.
            guard case let .nonFiniteValue(column, name, row, value) = error else { Issue.record("\(error)"); return }
            #expect(column == 0 && name == "x" && row == 2 && value.isNaN)
        }
        #expect(throws: Never.self) { try table.checkFinite(rows: [0..<2]) }
        #expect(throws: FitnessSetupError.nonFiniteValue(row: 3, column: 1, name: "y", value: .infinity)) {
            try ErrorFitness(table: table, target: [1, 2, 3, 4], rows: [0..<2, 3..<4])
        }
        #expect(throws: Never.self) { try ErrorFitness(table: table, target: [1, 2, 3, 4], rows: [0..<2]) }
        #expect(FitnessSetupError.nonFiniteValue(row: 3, column: 1, name: "y", value: .infinity).description
                    == "column 1 (y) of row 3 is inf; expected a finite number (drop or fill missing values, or leave the column out)")
    }

    @Test func deterministicAcrossThreads() throws {
        let table = try EvaluatorBenchmark.randomTable(rows: 2000, columns: 3, seed: 4)
        let y = (0..<2000).map { Double(table[$0, 0]) * 2 + Double(table[$0, 1]) }
        let f = try ErrorFitness(table: table.converted(to: Float.self), target: y, rows: [0..<2000])
        let programs = try EvaluatorBenchmark.randomExpressions(count: 30, minNodes: 3, maxNodes: 25,
                                                                operations: Operation.allCases, columns: 3, seed: 4)
        let one = f.errors(of: programs, threads: 1), two = f.errors(of: programs, threads: 2)
        #expect(zip(one, two).allSatisfy { $0.bitPattern == $1.bitPattern })
    }
}
