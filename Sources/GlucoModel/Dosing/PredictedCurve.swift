import Foundation

/// The predicted glucose curve a dose is chosen on (dosing.md, "A model-based suggestion"),
/// every `step` minutes from now (`τ = 0`) to the end of insulin action (`τ = D`):
///
///     G_b(τ) = B(τ) + (ISF/ICR) · carbs · (1 − C(τ)) − ISF · b · (1 − R(τ))
///
/// - `B`, the patient's own trajectory with no new meal and no new bolus: through the evolved
///   models' predictions `p_h` at their horizons, linear between the anchors `(0, G now)` and
///   `(h, p_h)`; after the longest horizon `H` it goes on with what insulin and carbohydrates
///   already on board have still to do (Loop's "eventual glucose"):
///   `B(τ) = B(H) − ISF · (I(H) − I(τ)) + (ISF/ICR) · (Q(H) − Q(τ))`, `I(τ)` the net insulin and
///   `Q(τ)` the carbohydrates (g) still on board `τ` minutes from now. With no model the effects
///   alone make the curve from `τ = 0`.
/// - `C` the carbohydrate fraction remaining (the toolkit's Bateman curve) and `R` the insulin
///   fraction remaining (the exponential curve): the planned meal's and bolus's effects.
///
/// `∂G_b(τ)/∂b = −ISF · (1 − R(τ)) ≤ 0`: predicted glucose never rises with the bolus, for any
/// evolved model, by construction.
public struct PredictedCurve: Hashable, Sendable {
    /// Minutes from now of each point: 0, step, 2·step, ..., D.
    public let minutes: [Double]
    /// `B(τ)`, mg/dL.
    public let baseline: [Double]
    /// `(ISF/ICR) · carbs · (1 − C(τ))`: the planned meal's rise, mg/dL.
    public let carbRise: [Double]
    /// `ISF · (1 − R(τ))`: the fall per unit of the planned bolus, mg/dL per U.
    public let fallPerUnit: [Double]

    /// The inputs of the curve.
    public struct Effects: Sendable {
        /// Glucose now.
        public var glucose: GlucoseValue
        /// ISF (mg/dL per U) and ICR (g per U).
        public var insulinSensitivity: Double, carbRatio: Double
        public var insulin: ExponentialInsulinModel
        public var carbs: BatemanCarbModel
        /// `I(τ)`: net insulin still on board `τ` minutes from now, with no new dose.
        public var insulinOnBoard: @Sendable (Double) -> InsulinUnits
        /// `Q(τ)`: carbohydrates still on board `τ` minutes from now, with no new meal.
        public var carbsOnBoard: @Sendable (Double) -> Carbohydrate

        public init(glucose: GlucoseValue, insulinSensitivity: Double, carbRatio: Double,
                    insulin: ExponentialInsulinModel, carbs: BatemanCarbModel,
                    insulinOnBoard: @escaping @Sendable (Double) -> InsulinUnits,
                    carbsOnBoard: @escaping @Sendable (Double) -> Carbohydrate) {
            self.glucose = glucose; self.insulinSensitivity = insulinSensitivity; self.carbRatio = carbRatio
            self.insulin = insulin; self.carbs = carbs
            self.insulinOnBoard = insulinOnBoard; self.carbsOnBoard = carbsOnBoard
        }
    }

    /// - Parameters:
    ///   - anchors: the models' predictions `(minutes from now, glucose)` with no new meal or bolus,
    ///     at positive minutes (any order); empty for the effects alone.
    ///   - plannedCarbs: the meal about to be eaten.
    ///   - step: minutes between points (5).
    public init(effects e: Effects, anchors: [(minutes: Double, glucose: GlucoseValue)],
                plannedCarbs: Carbohydrate, step: Double = 5) {
        let duration = e.insulin.durationMinutes
        let count = Int((duration / step).rounded(.up)) + 1
        minutes = (0..<count).map { min(Double($0) * step, duration) }
        let isf = e.insulinSensitivity, perGram = isf / e.carbRatio
        var points = [(minutes: 0.0, value: e.glucose.mgdL)]
        points += anchors.filter { $0.minutes > 0 }.sorted { $0.minutes < $1.minutes }.map { ($0.minutes, $0.glucose.mgdL) }
        let last = points[points.count - 1]
        let iLast = e.insulinOnBoard(last.minutes).units, qLast = e.carbsOnBoard(last.minutes).grams
        baseline = minutes.map { tau in
            if tau >= last.minutes {
                return last.value - isf * (iLast - e.insulinOnBoard(tau).units) + perGram * (qLast - e.carbsOnBoard(tau).grams)
            }
            let k = points.firstIndex { $0.minutes > tau }!  // tau < last.minutes
            let (a, b) = (points[k - 1], points[k])
            return a.value + (b.value - a.value) * (tau - a.minutes) / (b.minutes - a.minutes)
        }
        carbRise = minutes.map { perGram * plannedCarbs.grams * (1 - e.carbs.fractionRemaining(after: $0)) }
        fallPerUnit = minutes.map { isf * (1 - e.insulin.fractionRemaining(after: $0)) }
    }

    /// `G_b(τ)` at every point, mg/dL.
    public func glucose(bolus: InsulinUnits) -> [GlucoseValue] {
        minutes.indices.map { GlucoseValue(mgdL: baseline[$0] + carbRise[$0] - bolus.units * fallPerUnit[$0]) }
    }

    /// `G_b` at `tau` minutes (linear between points; the last point beyond the curve).
    public func glucose(bolus: InsulinUnits, atMinute tau: Double) -> GlucoseValue {
        let g = glucose(bolus: bolus).map(\.mgdL)
        guard let k = minutes.firstIndex(where: { $0 >= tau }) else { return GlucoseValue(mgdL: g[g.count - 1]) }
        if k == 0 || minutes[k] == tau { return GlucoseValue(mgdL: g[k]) }
        let w = (tau - minutes[k - 1]) / (minutes[k] - minutes[k - 1])
        return GlucoseValue(mgdL: g[k - 1] + w * (g[k] - g[k - 1]))
    }

    /// Whether every point is a finite number.
    public var isFinite: Bool { (baseline + carbRise + fallPerUnit).allSatisfy(\.isFinite) }
}
