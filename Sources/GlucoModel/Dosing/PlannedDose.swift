import Foundation

extension FeatureSet {
    /// How much one unit of insulin and one gram of carbohydrate, given at the row's own grid
    /// point, add to each feature. Taken from the same kernels the series and `table` use at
    /// lag 0, so a planned dose moves the features exactly as logging it would:
    ///
    /// - `IOB += b * R(0)` (= b), `IA += b * A(0)` (= 0), `INS += b * (R(0) - R(h))`
    /// - `COB += G * C(0)` (= G), `RA += G * Ra(0)` (= 0), `CARB += G * (C(0) - C(h))`
    /// - `INSk` and `CARBk` as `INS` and `CARB`, by their own curves
    ///
    /// with `R` the insulin fraction remaining, `A` its activity, `C` the carbohydrate fraction
    /// remaining and `Ra` its rate of appearance.
    public struct PlannedDoseEffect: Hashable, Sendable {
        /// Per unit of insulin: the change of (`IOB`, `IA`, `INS`).
        public var insulinOnBoard, insulinActivity, insulinEffect: Double
        /// Per gram of carbohydrate: the change of (`COB`, `RA`, `CARB`).
        public var carbsOnBoard, carbAppearance, carbEffect: Double
        /// Per gram, the change of `CARB1`...; per unit, of `INS1`...
        public var carbCurveEffects: [Double] = [], insulinCurveEffects: [Double] = []
    }

    /// The per-unit, per-gram effect of a dose planned at the row's grid point.
    public var plannedDoseEffect: PlannedDoseEffect {
        PlannedDoseEffect(
            insulinOnBoard: insulin.fractionRemaining(after: 0), insulinActivity: insulin.activity(after: 0),
            insulinEffect: insulinKernel()[0],
            carbsOnBoard: carbs.fractionRemaining(after: 0), carbAppearance: carbs.rateOfAppearance(after: 0),
            carbEffect: carbKernel()[0],
            carbCurveEffects: carbCurves.map { carbKernel($0)[0] },
            insulinCurveEffects: insulinCurves.map { insulinKernel($0)[0] })
    }

    /// `row` (values in `names` order, as `table` computes them at a grid point) with a bolus of
    /// `bolus` U and `carbs` g added as if given at that point.
    /// - Precondition: `row.count == names.count`.
    public func row(_ row: [Double], addingBolus bolus: Double, carbs grams: Double,
                    effect: PlannedDoseEffect? = nil) -> [Double] {
        precondition(row.count == names.count, "feature row has \(row.count) values, expected \(names.count)")
        let e = effect ?? plannedDoseEffect
        precondition(e.carbCurveEffects.count == carbCurves.count && e.insulinCurveEffects.count == insulinCurves.count,
                     "planned-dose effect made for other curves")
        var out = row
        func add(_ name: String, _ amount: Double) {
            out[glucoseLags + FeatureSet.nonGlucoseNames.firstIndex(of: name)!] += amount
        }
        add("IOB", bolus * e.insulinOnBoard)
        add("IA", bolus * e.insulinActivity)
        add("INS", bolus * e.insulinEffect)
        add("COB", grams * e.carbsOnBoard)
        add("RA", grams * e.carbAppearance)
        add("CARB", grams * e.carbEffect)
        let curves = glucoseLags + FeatureSet.nonGlucoseNames.count
        for (k, effect) in e.carbCurveEffects.enumerated() { out[curves + k] += grams * effect }
        for (k, effect) in e.insulinCurveEffects.enumerated() { out[curves + carbCurves.count + k] += bolus * effect }
        return out
    }

    /// The feature row at grid point `t` of `series` (data up to `t` only), or nil when it
    /// cannot be computed there (glucose history missing or not yet known at `t`).
    public func row(_ series: PatientSeries, at t: Int) -> [Double]? {
        let table = table(series, steps: t..<(t + 1), requireTarget: false)
        guard table.rowCount == 1 else { return nil }
        return table.columns.map { $0[0] }
    }
}
