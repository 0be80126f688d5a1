import Foundation
import GrammarEvolution
import LinearAlgebra

/// The standard simple predictors every glucose model is compared with
/// (glUCModel papers: "last" and "avg"; ARX is the strong simple baseline).
public enum Baseline: String, CaseIterable, Codable, Sendable {
    /// The last known glucose.
    case persistence
    /// The mean of the readings in the last 2 hours.
    case average
    /// Least squares on the same features as the evolved model.
    case arx

    /// The window of `average`, in minutes.
    public static let averageWindowMinutes = 120
}

/// Persistence: predicts `G0`.
public func persistencePredictions(_ table: FeatureTable) -> [Double] {
    table.column("G0")
}

/// The mean glucose over the 2 hours up to each row (24 steps of 5 min), from the series
/// itself so that it sees the whole window even where features stop at 1 hour. Missing
/// readings are left out of the mean.
public func averagePredictions(_ table: FeatureTable, series inputs: PatientSeries,
                               windowMinutes: Int = Baseline.averageWindowMinutes) -> [Double] {
    let window = max(1, Int((Double(windowMinutes) * 60 / inputs.step).rounded()))
    return table.steps.map { t in
        var sum = 0.0, n = 0
        for s in max(0, t - window + 1)...t where inputs.glucose[s].isFinite {
            sum += inputs.glucose[s]
            n += 1
        }
        return n > 0 ? sum / Double(n) : .nan
    }
}

/// A linear autoregressive model with exogenous inputs: `y = c0 + sum_j c_j x_j`, fitted by
/// least squares (LAPACK `dgelsd`) on the feature columns, with a small ridge term so that
/// collinear features (e.g. `IOB` and `INS`) stay well-conditioned.
public struct ARXModel: Codable, Hashable, Sendable {
    public var featureNames: [String]
    public var intercept: Double
    public var coefficients: [Double]
    /// Ridge weight per row on standardised features (the coefficients are in original units).
    public var ridge: Double

    /// The ridge weight a fit uses unless told otherwise.
    public static let defaultRidge = 1e-3
    /// The weights `fit(_:choosingRidgeOn:signs:)` chooses among, from the default down.
    public static let ridgeCandidates = [1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8]

    /// The fit to `table` whose ridge, of `ridges`, gives the lowest RMSE on `validation`'s rows
    /// with finite targets (of equals, the first). The lags of glucose are nearly collinear, so the
    /// default ridge also shrinks their differences (the rate of change); how much a person's data
    /// bears is for the validation days to say.
    public static func fit(_ table: FeatureTable, choosingRidgeOn validation: FeatureTable,
                           ridges: [Double] = ridgeCandidates, signs: [CoefficientSign]? = nil) throws -> ARXModel {
        var best: (model: ARXModel, rmse: Double)?
        for ridge in ridges {
            let model = try fit(table, ridge: ridge, signs: signs)
            let errors = zip(model.predict(validation), validation.targets).filter { $0.1.isFinite }.map { ($0.0 - $0.1) * ($0.0 - $0.1) }
            let rmse = errors.isEmpty ? 0 : (errors.reduce(0, +) / Double(errors.count)).squareRoot()
            if best == nil || rmse < best!.rmse { best = (model, rmse) }
        }
        guard let best else { return try fit(table, signs: signs) }
        return best.model
    }

    /// Fits the model to the rows of `table` with finite targets, each coefficient held to its
    /// sign in `signs` (one per column; nil: all free).
    public static func fit(_ table: FeatureTable, ridge: Double = defaultRidge, signs: [CoefficientSign]? = nil) throws -> ARXModel {
        let rows = table.targets.indices.filter { table.targets[$0].isFinite }
        let p = table.columns.count
        // Standardise columns so the ridge weighs each feature alike; undo afterwards.
        var means = [Double](repeating: 0, count: p), scales = [Double](repeating: 1, count: p)
        for j in 0..<p {
            let col = rows.map { table.columns[j][$0] }
            let mean = col.reduce(0, +) / Double(max(1, col.count))
            let sd = (col.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(max(1, col.count))).squareRoot()
            means[j] = mean
            scales[j] = sd > 1e-12 ? sd : 1
        }
        // Centred columns and target: the intercept is then the target's mean, unpenalised.
        let targetMean = rows.reduce(0) { $0 + table.targets[$1] } / Double(max(1, rows.count))
        var a = Matrix(rows: rows.count, columns: p)
        var b = [Double](repeating: 0, count: rows.count)
        for (i, r) in rows.enumerated() {
            for j in 0..<p { a[i, j] = (table.columns[j][r] - means[j]) / scales[j] }
            b[i] = table.targets[r] - targetMean
        }
        let solution = try LeastSquares.solve(a, b, ridge: ridge * Double(rows.count),
                                              signs: signs ?? table.names.map { _ in .free })
        var coefficients = [Double](repeating: 0, count: p)
        var intercept = targetMean
        for j in 0..<p {
            coefficients[j] = solution.coefficients[j] / scales[j]
            intercept -= coefficients[j] * means[j]
        }
        return ARXModel(featureNames: table.names, intercept: intercept, coefficients: coefficients, ridge: ridge)
    }

    /// Predictions for every row of `table`, clamped to `GlucoseModel.plausibleRange`.
    public func predict(_ table: FeatureTable) -> [Double] {
        linearValues(table).map(GlucoseModel.clamp)
    }

    /// The unclamped linear values for every row of `table`.
    public func linearValues(_ table: FeatureTable) -> [Double] {
        precondition(table.names == featureNames, "ARX: feature columns differ from the fitted ones")
        var out = [Double](repeating: intercept, count: table.rowCount)
        for (j, c) in coefficients.enumerated() where c != 0 {
            let col = table.columns[j]
            for r in 0..<table.rowCount { out[r] += c * col[r] }
        }
        return out
    }

    /// The unclamped linear value for one row (features in `featureNames` order).
    public func predict(row: [Double]) -> Double {
        zip(coefficients, row).reduce(intercept) { $0 + $1.0 * $1.1 }
    }

    /// The model as infix text over the feature names (for reports and for seeding GE).
    public var infix: String {
        var s = "\(intercept)"
        for (name, c) in zip(featureNames, coefficients) where c != 0 {
            s += c < 0 ? " - \(-c) * \(name)" : " + \(c) * \(name)"
        }
        return s
    }
}

/// The ARX fit's ridge weight (`--arx-ridge`), per row on standardised features: a number, or
/// `auto`, the one of `ARXModel.ridgeCandidates` with the lowest validation RMSE.
public enum ARXRidge: Hashable, Sendable {
    case fixed(Double)
    case auto

    /// `auto`, or a decimal number from 0 to 1 (`NumberText`: not `0x1p-10`).
    public init?(text: String) {
        if text == "auto" { self = .auto; return }
        guard let v = NumberText.read(text), (0...1).contains(v) else { return nil }
        self = .fixed(v == 0 ? 0 : v)  // -0 is 0: written as "-0" it was another run's options (hunt BE)
    }

    public var text: String {
        switch self {
        case .auto: return "auto"
        case let .fixed(v): return String(format: "%g", v)
        }
    }
}
