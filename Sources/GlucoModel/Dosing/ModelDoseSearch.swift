import Foundation

/// The model-based bolus (dosing.md): the dose `b` on the pump's increment grid in
/// `[0, maxBolus]` whose predicted glucose over the models' horizons comes closest to the
/// target in least squares, `min_b sum_h (p_h(b) - target)^2`, subject to `p_h(b) >= suspend`
/// for every horizon. Ties go to the smaller dose.
///
/// `p_h(b)` is the horizon's model applied to its feature row at the moment of the suggestion
/// with the planned bolus `b` and carbohydrates added (`FeatureSet.row(_:addingBolus:carbs:)`).
/// Insulin already on board enters through the row's own `IOB`, `IA` and `INS`, so the search
/// adds `b` on top of it and subtracts nothing itself.
///
/// Before any dose is trusted the models must pass two checks over the whole grid: for every
/// horizon `p_h` is non-increasing in `b` (1e-9 mg/dL tolerance), and at least one horizon's
/// prediction changes with `b` (a model blind to insulin cannot dose).
public struct ModelDoseSearch: Sendable {
    /// One horizon's model with its feature row at the moment of the suggestion (no planned dose).
    public struct Horizon: Sendable {
        public var model: GlucoseModel
        public var row: [Double]
        public init(model: GlucoseModel, row: [Double]) { self.model = model; self.row = row }
    }

    public enum Outcome: Hashable, Sendable {
        /// The dose found (on the grid), and whether the suspend threshold held it below the
        /// unconstrained best.
        case dose(units: Double, limitedBySuspend: Bool)
        /// The models cannot be trusted for dosing: why.
        case untrusted(DoseNote)
        /// Even with no bolus a prediction is below the suspend threshold.
        case predictedLow(horizonMinutes: Int, predicted: Double)
    }

    public let horizons: [Horizon]
    public let carbs: Double
    public let settings: CheckedDoseSettings
    /// The candidate boluses: 0, inc, 2*inc, ... up to the largest multiple of the increment
    /// not above `maxBolus`.
    public let grid: [Double]

    public static let monotonicityTolerance = 1e-9

    /// - Parameter horizons: one entry per model, in any order (sorted by horizon here).
    public init(horizons: [Horizon], carbs: Double, settings: CheckedDoseSettings) {
        self.horizons = horizons.sorted { $0.model.horizonMinutes < $1.model.horizonMinutes }
        self.carbs = carbs
        self.settings = settings
        let steps = Int((settings.maxBolus / settings.bolusIncrement + 1e-9).rounded(.down))
        grid = (0...max(0, steps)).map { StandardBolus.units(steps: $0, increment: settings.bolusIncrement) }
    }

    /// Predicted glucose (mg/dL) per horizon, in horizon order, with a planned bolus of `bolus` U.
    public func predictions(bolus: Double) -> [Double] {
        horizons.map { h in
            h.model.predict(row: h.model.features.row(h.row, addingBolus: bolus, carbs: carbs))
        }
    }

    /// Runs the checks and the search.
    /// - Complexity: O(grid.count * horizons.count) model evaluations (601 * 4 for 30 U in 0.05 U).
    public func run() -> Outcome {
        let table = grid.map(predictions(bolus:))
        let suspend = settings.suspendThreshold
        // Non-finite first: NaN fails `>= suspend` too, and must not read as a predicted low.
        if table.contains(where: { $0.contains { !$0.isFinite } }) {
            return .untrusted(.modelUnavailable("a model predicts a non-finite value"))
        }
        for (j, h) in horizons.enumerated() where !(table[0][j] >= suspend) {
            return .predictedLow(horizonMinutes: h.model.horizonMinutes, predicted: table[0][j])
        }
        let tolerance = ModelDoseSearch.monotonicityTolerance
        let blind = table.allSatisfy { p in zip(p, table[0]).allSatisfy { abs($0 - $1) <= tolerance } }
        if blind { return .untrusted(.modelBlindToInsulin) }
        for (j, h) in horizons.enumerated() {
            for k in 0..<(grid.count - 1) where table[k + 1][j] - table[k][j] > tolerance {
                return .untrusted(.modelNotMonotone(horizonMinutes: h.model.horizonMinutes, bolus: grid[k],
                                                   rise: table[k + 1][j] - table[k][j]))
            }
        }
        func cost(_ p: [Double]) -> Double { p.reduce(0) { $0 + ($1 - settings.target) * ($1 - settings.target) } }
        var best = 0, bestFree = 0
        for k in 1..<max(1, grid.count) {
            let c = cost(table[k])
            if c < cost(table[bestFree]) { bestFree = k }
            if table[k].allSatisfy({ $0 >= suspend }), c < cost(table[best]) { best = k }
        }
        return .dose(units: grid[best], limitedBySuspend: bestFree > best)
    }
}
