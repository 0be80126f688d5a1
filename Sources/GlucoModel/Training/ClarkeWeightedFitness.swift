import Foundation
import GrammarEvolution

/// A clinically weighted error: RMSE in which each squared error counts by the Clarke zone
/// its (reference, prediction) pair falls in — A 1, B 2, C 4, D 8, E 16 — so that errors
/// that would mislead treatment cost more than harmless ones of the same size.
///
/// Predictions are those the saved model would make: the base (ARX) values plus the
/// program's least-squares scaling fitted by `scaling`, clamped to the plausible range.
public struct ClarkeWeightedFitness: FitnessEvaluator {
    public static let zoneWeights: [ErrorGridZone: Double] = [.a: 1, .b: 2, .c: 4, .d: 8, .e: 16]

    let scaling: ErrorFitness<Double>
    let base: [Double]?
    let references: [Double]

    /// - Parameters:
    ///   - scaling: RMSE fitness on the training rows (fits each program's scaling).
    ///   - base: the base model's values on those rows, or nil when the program stands alone.
    ///   - references: measured glucose on those rows.
    public init(scaling: ErrorFitness<Double>, base: [Double]?, references: [Double]) {
        self.scaling = scaling
        self.base = base
        self.references = references
    }

    public func errors(of programs: [Program], threads: Int) -> [Double] {
        parallelMap(count: programs.count, threads: threads) { error(of: programs[$0]) }
    }

    func error(of program: Program) -> Double {
        let fit = scaling.predict(program)
        guard fit.error.isFinite else { return .infinity }
        var sum = 0.0, weights = 0.0
        for (i, reference) in references.enumerated() {
            let prediction = GlucoseModel.clamp((base?[i] ?? 0) + fit.values[i])
            let zone = ErrorGrid.clarke.zone(reference: reference, prediction: prediction) ?? .e
            let w = ClarkeWeightedFitness.zoneWeights[zone]!
            let e = prediction - reference
            sum += w * e * e
            weights += w
        }
        let value = (sum / weights).squareRoot()
        return value.isFinite ? value : .infinity
    }
}
