import Foundation

/// A trained personal glucose model for one patient and one horizon, as saved to disk.
///
/// Prediction: `y = base(x) + intercept + slope * f(x)`, where `base` is the ARX model
/// fitted on the same training rows (or absent), `f` the evolved expression and
/// `intercept`, `slope` its linear scaling (least squares on the training rows).
/// With `slope == 0` the model is its base alone: evolution found nothing better on the
/// validation days, and the file says so (`selection`).
public struct GlucoseModel: Codable, Hashable, Sendable {
    public static let schema = "glucomodel.model"
    public static let currentVersion = 1

    public var schema: String = GlucoseModel.schema
    public var version: Int = GlucoseModel.currentVersion
    public var patient: PatientID
    public var horizonMinutes: Int
    public var features: FeatureSet
    public var base: ARXModel?
    /// The evolved expression, readable infix over `features.names`.
    public var expression: String
    /// The same expression compiled (postfix); the infix is for people, this is what runs.
    public var program: Program
    public var intercept: Double
    public var slope: Double
    public var selection: String
    public var grammar: GrammarReference
    public var seed: UInt64
    public var training: TrainingWindow
    public var metrics: [SplitMetrics]

    /// Predicts from one feature row (values in `features.names` order).
    public func predict(row: [Double]) -> Double {
        let baseValue = base.map { b in zip(b.coefficients, row).reduce(b.intercept) { $0 + $1.0 * $1.1 } } ?? 0
        guard slope != 0 else { return baseValue + intercept }
        let f = program.evaluate { column, _ in row[column] }
        return baseValue + intercept + slope * f
    }

    /// Predicts every row of a feature table built with `features`.
    public func predict(_ table: FeatureTable) -> [Double] {
        precondition(table.names == features.names, "model and feature table disagree on the features")
        var row = [Double](repeating: 0, count: table.columns.count)
        return (0..<table.rowCount).map { r in
            for j in row.indices { row[j] = table.columns[j][r] }
            return predict(row: row)
        }
    }
}

/// Which grammar produced a model.
public struct GrammarReference: Codable, Hashable, Sendable {
    public var name: String
    /// Hex digest of the grammar text (FNV-1a 64), so a model can be traced to its grammar.
    public var hash: String
}

/// The periods a model was trained, selected and tested on.
public struct TrainingWindow: Codable, Hashable, Sendable {
    public var trainFrom: Date
    public var trainTo: Date
    public var validationFrom: Date
    public var validationTo: Date
    public var testFrom: Date?
    public var testTo: Date?
}

/// Accuracy of one model on one split, as in `results.csv`.
public struct SplitMetrics: Codable, Hashable, Sendable {
    public var model: String
    public var split: String
    public var n: Int
    public var rmse: Double
    public var mae: Double
    public var mard: Double
    public var clarkeA: Double
    public var clarkeAB: Double
    public var parkesA: Double
    public var parkesAB: Double
}
