import LinearAlgebra

/// How prediction errors are summarised.
public enum ErrorMetric: String, Sendable, CaseIterable {
    /// Root mean squared error `sqrt(Σ w e² / Σ w)`.
    case rmse
    /// Mean absolute error `Σ w |e| / Σ w`.
    case mae
}

/// A problem setting up an `ErrorFitness`, saying which row or argument and what was expected.
public enum FitnessSetupError: Error, Equatable, CustomStringConvertible {
    case targetLength(expected: Int, found: Int)
    case weightsLength(expected: Int, found: Int)
    case invalidWeight(row: Int, value: Double)
    case nonFiniteTarget(row: Int, value: Double)
    /// A NaN or infinite table value in a scored row (`DataTable.checkFinite(rows:)`).
    case nonFiniteValue(row: Int, column: Int, name: String, value: Double)
    case rowsOutsideTable(lower: Int, upper: Int, tableRows: Int)
    case noRows
    case zeroTotalWeight

    public var description: String {
        switch self {
        case let .targetLength(e, f): return "target has \(f) values; expected one per table row (\(e))"
        case let .weightsLength(e, f): return "weights have \(f) values; expected one per table row (\(e))"
        case let .invalidWeight(row, v): return "weight of row \(row) is \(v); expected a finite number >= 0"
        case let .nonFiniteTarget(row, v): return "target of row \(row) is \(v); expected a finite number"
        case let .nonFiniteValue(row, column, name, v):
            return "column \(column) (\(name)) of row \(row) is \(v); expected a finite number (drop or fill missing values, or leave the column out)"
        case let .rowsOutsideTable(l, u, n): return "rows \(l)..<\(u) are outside the table's \(n) rows"
        case .noRows: return "no rows to score on"
        case .zeroTotalWeight: return "the weights of the scored rows sum to 0"
        }
    }
}

/// A program's scaled predictions on the fitness rows: `values[i] = intercept + slope * f(x_i)`.
public struct ScaledPrediction: Sendable, Equatable {
    public var values: [Double]
    public var intercept: Double
    public var slope: Double
    /// The fitness error of these values (`.infinity` when not finite).
    public var error: Double
}

/// Scores programs by their prediction error on rows of a table: RMSE (default) or MAE,
/// optionally after linear scaling and with row weights.
///
/// **Linear scaling** (Keijzer 2003): the prediction is `a + b f(x)` with the least-squares
/// `b = cov(f, y) / var(f)`, `a = mean(y) - b mean(f)` (weighted means and moments, computed
/// from BLAS dot products of centred values); `b = 0` when `var(f) = 0` (also when it is below
/// `1e-24 mean(f)²`, i.e. rounding noise of a constant `f`).
///
/// **Rows**: the concatenation of `rows` (training and validation sets are row ranges of one
/// table). Their targets and table values must be finite (`FitnessSetupError`). A program whose
/// `maximumLag` exceeds the first row of a range, which reads a column the table lacks, or whose
/// values or error are not finite (a lag may read a NaN before the scored rows), gets
/// `.infinity`; so does one whose
/// values are so large that their sum of squares overflows (beyond about 1e154): rescale data of
/// such magnitude before the search.
///
/// Deterministic: each program is scored by one thread with the same sequence of operations,
/// whatever `threads` is. `init` restricts OpenBLAS to one thread (parallelism is across programs).
public struct ErrorFitness<Scalar: EvaluatorScalar>: FitnessEvaluator {
    public let evaluator: Evaluator<Scalar>
    public let rows: [Range<Int>]
    public let metric: ErrorMetric
    public let linearScaling: Bool
    /// Target and weights of the scored rows, in order.
    let y: [Double]
    let w: [Double]?
    let totalWeight: Double
    let meanY: Double
    let ones: [Double]
    let firstRow: Int

    /// - Parameters:
    ///   - target: one value per table row (only the scored rows must be finite).
    ///   - weights: one weight >= 0 per table row, or nil for equal weights.
    public init(table: DataTable<Scalar>, target: [Double], rows: [Range<Int>], weights: [Double]? = nil,
                metric: ErrorMetric = .rmse, linearScaling: Bool = true) throws(FitnessSetupError) {
        guard target.count == table.rowCount else { throw .targetLength(expected: table.rowCount, found: target.count) }
        if let weights, weights.count != table.rowCount {
            throw .weightsLength(expected: table.rowCount, found: weights.count)
        }
        let rows = rows.filter { !$0.isEmpty }
        guard !rows.isEmpty else { throw .noRows }
        for r in rows where r.lowerBound < 0 || r.upperBound > table.rowCount {
            throw .rowsOutsideTable(lower: r.lowerBound, upper: r.upperBound, tableRows: table.rowCount)
        }
        var y: [Double] = [], w: [Double] = []
        for range in rows {
            for r in range {
                guard target[r].isFinite else { throw .nonFiniteTarget(row: r, value: target[r]) }
                y.append(target[r])
                if let weights {
                    guard weights[r].isFinite, weights[r] >= 0 else { throw .invalidWeight(row: r, value: weights[r]) }
                    w.append(weights[r])
                }
            }
        }
        // A NaN cell made every program reading its column invalid, and the search returned a
        // constant without a word (hunt BV).
        do { try table.checkFinite(rows: rows) } catch {
            if case let .nonFiniteValue(column, name, row, value) = error {
                throw .nonFiniteValue(row: row, column: column, name: name, value: value)
            }
        }
        BLAS.useSingleThread()
        self.evaluator = Evaluator(table: table)
        self.rows = rows
        self.metric = metric
        self.linearScaling = linearScaling
        self.y = y
        self.w = weights == nil ? nil : w
        self.ones = [Double](repeating: 1, count: y.count)
        self.totalWeight = weights == nil ? Double(y.count) : BLAS.dot(w, ones)
        guard totalWeight > 0 else { throw .zeroTotalWeight }
        self.meanY = BLAS.dot(y, weights == nil ? ones : w) / totalWeight
        self.firstRow = rows.map(\.lowerBound).min()!
    }

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    public func errors(of programs: [Program], threads: Int) -> [Double] {
        let evaluable = programs.map(isEvaluable)
        let compiled = programs.enumerated().map { i, p in
            _CompiledProgram<Scalar>(evaluable[i] ? p : Program(instructions: [.constant(0)]))
        }
        let count = y.count
        return evaluator.map(compiled, rows: rows, threads: threads, state: { [Double](repeating: 0, count: count) }) {
            i, values, scratch in
            evaluable[i] ? score(values, &scratch, keepValues: false).error : .infinity
        }
    }

    /// The scaled predictions of `program` on the fitness rows, with the fitted intercept and
    /// slope (a trainer saves these with the program to predict later: `a + b f(x)`).
    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    public func predict(_ program: Program) -> ScaledPrediction {
        guard isEvaluable(program) else {
            return ScaledPrediction(values: [Double](repeating: .nan, count: y.count), intercept: 0, slope: 0, error: .infinity)
        }
        let count = y.count
        return evaluator.map([_CompiledProgram<Scalar>(program)], rows: rows, threads: 1,
                             state: { [Double](repeating: 0, count: count) }) { _, values, scratch in
            score(values, &scratch, keepValues: true)
        }[0]
    }

    /// Whether every row of `rows` can be evaluated: lags stay inside the table, columns exist.
    func isEvaluable(_ program: Program) -> Bool {
        program.maximumLag <= firstRow && (program.columnsUsed.max() ?? -1) < evaluator.table.columnCount
    }

    /// Fits the scaling and measures the error of `values` against the target. `f` is
    /// overwritten (centred values).
    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func score(_ values: UnsafeBufferPointer<Scalar>, _ f: inout [Double], keepValues: Bool) -> ScaledPrediction {
        let n = y.count
        for i in 0..<n { f[i] = Double(values[i]) }
        let weightsOrOnes = w ?? ones
        let sum = BLAS.dot(f, weightsOrOnes)
        guard sum.isFinite, BLAS.dot(f, f).isFinite else {
            // One NaN per row, like an unevaluable program: callers may index `values` by row.
            return ScaledPrediction(values: keepValues ? [Double](repeating: .nan, count: n) : [],
                                    intercept: 0, slope: 0, error: .infinity)
        }
        let meanF = sum / totalWeight
        var a = 0.0, b = 1.0
        if linearScaling {
            for i in 0..<n { f[i] -= meanF }
            let variance: Double, covariance: Double
            if let w {
                var wf = f
                for i in 0..<n { wf[i] *= w[i] }
                variance = BLAS.dot(wf, f) / totalWeight
                covariance = BLAS.dot(wf, y) / totalWeight
            } else {
                variance = BLAS.dot(f, f) / totalWeight
                covariance = BLAS.dot(f, y) / totalWeight
            }
            b = variance > 0 && variance > 1e-24 * meanF * meanF ? covariance / variance : 0
            a = meanY - b * meanF
            // Predictions are meanY + b (f - meanF); f holds f - meanF.
            for i in 0..<n { f[i] = meanY + b * f[i] }
        }
        var total = 0.0
        switch metric {
        case .rmse:
            for i in 0..<n { let e = y[i] - f[i]; total += (w?[i] ?? 1) * e * e }
            total = (total / totalWeight).squareRoot()
        case .mae:
            for i in 0..<n { total += (w?[i] ?? 1) * Swift.abs(y[i] - f[i]) }
            total /= totalWeight
        }
        let error = total.isFinite ? total : .infinity
        return ScaledPrediction(values: keepValues ? f : [], intercept: a, slope: b, error: error)
    }
}
