import Foundation
import GrammarEvolution

/// Limits a model file must respect before a single prediction is made from it. A file edited
/// by hand, cut short by a disk or written by another tool is refused with its field named,
/// never run: every check here guards a trap or a silently wrong number further on.
extension GlucoseModel {
    /// Grid steps a model may use (minutes).
    public static let stepRange = 1...60
    /// Horizons a model may predict (minutes, a multiple of its step).
    public static let horizonRange = 1...(24 * 60)
    /// Insulin action: peak and duration (minutes) of the exponential curve.
    public static let insulinDurationRange = 60.0...(24 * 60)
    /// Carbohydrate absorption rates (per minute).
    public static let carbRateRange = 1e-4...1.0
    /// The most extra curves of each kind a feature set may carry (`FeatureSet.carbCurves`, `insulinCurves`).
    public static let maximumExtraCurves = 16
    /// The largest magnitude of an ARX coefficient, an intercept or a scaling slope. A slope may
    /// legitimately be large (an expression like `1/G0^3` is about 1e-7 and gets a slope near 1e8),
    /// but beyond 1e12 the scaled expression is a near-constant blown up (the trainer once made
    /// -7.4e47), and its predictions are rounding noise.
    public static let coefficientLimit = 1e12

    /// Checks every field a prediction depends on; returns the model with the insulin curve's
    /// derived constants (`tau`, `a`, `S`) recomputed from its peak and duration, so a file
    /// cannot make them disagree.
    /// - Throws: `ModelFileError.invalidField(path, field, why)` naming the first bad field.
    public func validated(path: String) throws -> GlucoseModel {
        func fail(_ field: String, _ why: String) -> ModelFileError { .invalidField(path, field: field, reason: why) }
        let f = features
        guard GlucoseModel.stepRange.contains(f.stepMinutes) else {
            throw fail("features.stepMinutes", "\(f.stepMinutes); expected \(GlucoseModel.stepRange) minutes")
        }
        let maximumLags = 24 * 60 / f.stepMinutes
        guard (1...maximumLags).contains(f.glucoseLags) else {
            throw fail("features.glucoseLags", "\(f.glucoseLags); expected 1...\(maximumLags) (up to a day of readings)")
        }
        guard GlucoseModel.horizonRange.contains(horizonMinutes), horizonMinutes % f.stepMinutes == 0 else {
            throw fail("horizonMinutes", "\(horizonMinutes); expected a multiple of \(f.stepMinutes) in \(GlucoseModel.horizonRange) minutes")
        }
        guard f.horizonMinutes == horizonMinutes else {
            throw fail("features.horizonMinutes", "\(f.horizonMinutes); the model's horizon is \(horizonMinutes)")
        }
        /// The curve rebuilt from its peak and duration once they are checked.
        func checkedInsulin(_ curve: ExponentialInsulinModel, _ field: String) throws -> ExponentialInsulinModel {
            let peak = curve.peakMinutes, duration = curve.durationMinutes
            guard GlucoseModel.insulinDurationRange.contains(duration) else {
                throw fail("\(field).durationMinutes", "\(duration); expected \(GlucoseModel.insulinDurationRange) minutes")
            }
            guard peak > 0, 2 * peak < duration else {
                throw fail("\(field).peakMinutes", "\(peak); expected above 0 and below half the duration (\(duration / 2))")
            }
            return ExponentialInsulinModel(peakMinutes: peak, durationMinutes: duration)
        }
        func checkCarbs(_ curve: BatemanCarbModel, _ field: String) throws {
            for (name, rate) in [("ka", curve.ka), ("ke", curve.ke)] where !GlucoseModel.carbRateRange.contains(rate) {
                throw fail("\(field).\(name)", "\(rate); expected \(GlucoseModel.carbRateRange) per minute")
            }
        }
        let insulin = try checkedInsulin(f.insulin, "features.insulin")
        try checkCarbs(f.carbs, "features.carbs")
        for (field, count) in [("features.carbCurves", f.carbCurves.count), ("features.insulinCurves", f.insulinCurves.count)]
        where count > GlucoseModel.maximumExtraCurves {
            throw fail(field, "\(count) curves; expected at most \(GlucoseModel.maximumExtraCurves)")
        }
        for (k, curve) in f.carbCurves.enumerated() { try checkCarbs(curve, "features.carbCurves[\(k)]") }
        let insulinCurves = try f.insulinCurves.enumerated().map { try checkedInsulin($1, "features.insulinCurves[\($0)]") }
        let names = f.names
        guard arx.featureNames == names else {
            throw fail("arx.featureNames", "\(arx.featureNames.count) names that differ from the features' \(names.count) (\(names.joined(separator: ",")))")
        }
        guard arx.coefficients.count == names.count else {
            throw fail("arx.coefficients", "\(arx.coefficients.count) values; expected one per feature (\(names.count))")
        }
        let limit = GlucoseModel.coefficientLimit
        if let j = arx.coefficients.firstIndex(where: { !($0.magnitude <= limit) }) {
            throw fail("arx.coefficients[\(j)]", "\(arx.coefficients[j]); expected a finite number within ±\(limit)")
        }
        for (field, value) in [("arx.intercept", arx.intercept), ("intercept", intercept), ("slope", slope)]
        where !(value.magnitude <= limit) {
            throw fail(field, "\(value); expected a finite number within ±\(limit)")
        }
        guard arx.ridge.isFinite, arx.ridge >= 0 else { throw fail("arx.ridge", "\(arx.ridge); expected 0 or more") }
        do { try program.check(columns: names.count, maximumLag: maximumLags) } catch {
            throw fail("program", error.description)
        }
        // The expression is what people read (the report's appendix, review); the program is what
        // runs. A hand edit of one without the other showed a model that was not the one predicting.
        let variables = VariableNames(names), runs = program.infix(variables)
        if expression != runs, (try? Program(infix: expression, variables: variables))?.infix(variables) != runs {
            throw fail("expression", "'\(expression.prefix(80))' is not the program, which is what runs ('\(runs.prefix(80))'); "
                + "the two are written together: edit neither by hand, or retrain (glucomodel-train --retrain)")
        }
        if let problem = intervals?.problem() { throw fail(problem.field, problem.reason) }
        if let range = evolvedRange, !(range.lowerBound.magnitude <= limit && range.upperBound.magnitude <= limit) {
            throw fail("evolvedRange", "\(range); expected finite numbers within ±\(limit)")
        }
        for (field, listed, signals) in [("absentRecords", absentRecords, false), ("absentSignals", absentSignals, true)] {
            let kinds = PatientLog.RecordInputs.allCases.filter { $0.isSignal == signals }.map(\.rawValue)
            if let listed, let bad = listed.first(where: { !kinds.contains($0) }) {
                throw fail(field, "'\(bad)'; expected \(kinds.dropLast().joined(separator: ", ")) or \(kinds.last!)")
            }
        }
        if let searches, !(2...100).contains(searches) { throw fail("searches", "\(searches); expected 2 to 100 (absent for one search)") }
        var checked = self
        checked.features.insulin = insulin
        checked.features.insulinCurves = insulinCurves
        return checked
    }
}
