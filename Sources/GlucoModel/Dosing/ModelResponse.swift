import Foundation

/// How a model's prediction moves when insulin or carbohydrate is added at the moment of
/// prediction, as if given then (`FeatureSet.row(_:addingBolus:carbs:)`), over many moments.
///
/// A care team reads it to see whether the model learnt that insulin lowers glucose and that a meal
/// raises it. From a log where every meal comes with its bolus in a fixed ratio a model may have
/// learnt neither (docs/accuracy.md, "How the models answer a dose"). A suggested dose does not
/// rest on it: what a bolus and a meal do comes from the settings (docs/dosing.md, step 5).
public struct ModelResponse: Sendable, Equatable {
    /// The probes: 1 U of insulin, and 10 g of carbohydrate.
    public static let units = 1.0, grams = 10.0
    /// A change of at most this (mg/dL) is no change.
    public static let tolerance = 0.1

    public var horizonMinutes: Int
    /// The moments probed.
    public var moments: Int
    /// The median change of the prediction (mg/dL): for `units` of insulin, for `grams` of carbohydrate.
    public var insulin: Double, carbs: Double
    /// The share of moments (0-1) at which the insulin raises the prediction, and at which the
    /// carbohydrate lowers it, each by more than `tolerance`.
    public var insulinRaises: Double, carbsLower: Double

    /// Whether the median answers have the body's signs: insulin does not raise the prediction and
    /// carbohydrate does not lower it.
    public var hasTheBodysSigns: Bool { insulin <= Self.tolerance && carbs >= -Self.tolerance }

    /// The response over every row of `table` (made with `model.features`) where the model's
    /// predictions are finite and not its base's alone; nil when there is none.
    public init?(model: GlucoseModel, table: FeatureTable) {
        precondition(table.names == model.features.names, "model and feature table disagree on the features")
        let effect = model.features.plannedDoseEffect
        var insulin: [Double] = [], carbs: [Double] = []
        var row = [Double](repeating: 0, count: table.columns.count)
        for r in 0..<table.rowCount {
            for j in row.indices { row[j] = table.columns[j][r] }
            let now = model.prediction(row: row)
            let bolus = model.prediction(row: model.features.row(row, addingBolus: Self.units, carbs: 0, effect: effect))
            let meal = model.prediction(row: model.features.row(row, addingBolus: 0, carbs: Self.grams, effect: effect))
            // A moment where any of the three is the base's alone would compare two different models.
            func usable(_ p: GlucoseModel.Prediction) -> Bool { p.glucose.isFinite && !p.baseAlone }
            guard usable(now), usable(bolus), usable(meal) else { continue }
            insulin.append(bolus.glucose - now.glucose)
            carbs.append(meal.glucose - now.glucose)
        }
        guard !insulin.isEmpty else { return nil }
        func median(_ values: [Double]) -> Double { Statistics.percentile(sorted: values.sorted(), 0.5) }
        horizonMinutes = model.horizonMinutes
        moments = insulin.count
        self.insulin = median(insulin)
        self.carbs = median(carbs)
        insulinRaises = Double(insulin.filter { $0 > Self.tolerance }.count) / Double(moments)
        carbsLower = Double(carbs.filter { $0 < -Self.tolerance }.count) / Double(moments)
    }
}
