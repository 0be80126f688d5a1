import Foundation

/// A dense table of feature rows for one horizon: only rows where every feature is finite
/// (and, for `targets`, the glucose `h` minutes later was measured) are kept.
public struct FeatureTable: Sendable {
    public var names: [String]
    /// Column-major feature values: `columns[j][r]`.
    public var columns: [[Double]]
    /// Glucose measured `h` minutes after the row's moment (NaN when unknown).
    public var targets: [Double]
    /// Index of each row's moment in the series grid.
    public var steps: [Int]

    public var rowCount: Int { steps.count }

    public func column(_ name: String) -> [Double] {
        columns[names.firstIndex(of: name)!]
    }

    /// The rows in `range`, as a table of their own.
    public func rows(_ range: Range<Int>) -> FeatureTable {
        FeatureTable(names: names, columns: columns.map { Array($0[range]) },
                     targets: Array(targets[range]), steps: Array(steps[range]))
    }
}

extension FeatureSet {
    /// Computes the feature rows for the steps in `range` of `inputs`.
    ///
    /// - Parameter requireTarget: keep only rows whose target (glucose `h` minutes later) was
    ///   measured: for training and scoring. Predicting live passes `false`.
    /// - Complexity: O(n * (td/step + lags)).
    public func table(_ inputs: PatientSeries, steps range: Range<Int>, requireTarget: Bool) -> FeatureTable {
        let h = horizonSteps
        let insulinEffect = FeatureSet.lookAhead(inputs.insulin, kernel: insulinKernel(), range: range)
        let carbEffect = FeatureSet.lookAhead(inputs.carbs, kernel: carbKernel(), range: range)
        // CARB1... and INS1...: the same look-ahead by each extra curve.
        let curveEffects = carbCurves.map { FeatureSet.lookAhead(inputs.carbs, kernel: carbKernel($0), range: range) }
            + insulinCurves.map { FeatureSet.lookAhead(inputs.insulin, kernel: insulinKernel($0), range: range) }
        var columns = Array(repeating: [Double](), count: names.count)
        var targets: [Double] = [], steps: [Int] = []
        let n = inputs.count
        let first = max(0, range.lowerBound - historySteps)
        let knownAt = inputs.glucoseKnownAt(first..<max(first, min(n, range.upperBound)))
        rows: for t in range where t >= historySteps && t < n {
            var target = Double.nan
            if t + h < n, inputs.glucoseFlags[t + h] == .measured { target = inputs.glucose[t + h] }
            if requireTarget && !target.isFinite { continue }
            // Only glucose known at t: a filled value whose gap closes after t would leak the future.
            for k in 0..<glucoseLags where knownAt[t - k - first] > t { continue rows }
            let hr = inputs.heartRate[t].isFinite ? inputs.heartRate[t] : 0
            let others = [inputs.insulinOnBoard[t], inputs.insulinActivity[t], insulinEffect[t - range.lowerBound],
                          inputs.carbsOnBoard[t], inputs.carbAppearance[t], carbEffect[t - range.lowerBound],
                          inputs.exercise[t], hr] + curveEffects.map { $0[t - range.lowerBound] }
            guard others.allSatisfy(\.isFinite) else { continue }
            for k in 0..<glucoseLags { columns[k].append(inputs.glucose[t - k]) }
            for (j, v) in others.enumerated() { columns[glucoseLags + j].append(v) }
            targets.append(target)
            steps.append(t)
        }
        return FeatureTable(names: names, columns: columns, targets: targets, steps: steps)
    }

    /// `kernel[k]` = fraction of a dose given `k` steps before `t` that acts in `(t, t+h]`:
    /// `R(k) - R(k+h)` with `R` the fraction of insulin remaining (by `model`, the set's own
    /// insulin curve by default).
    func insulinKernel(_ model: ExponentialInsulinModel? = nil) -> [Double] {
        let model = model ?? insulin
        let steps = Int((model.durationMinutes / Double(stepMinutes)).rounded(.up))
        let h = Double(horizonMinutes)
        return (0...steps).map { k in
            let m = Double(k * stepMinutes)
            return model.fractionRemaining(after: m) - model.fractionRemaining(after: m + h)
        }
    }

    /// `kernel[k]` = fraction of carbohydrate eaten `k` steps before `t` that appears in `(t, t+h]`
    /// (by `model`, the set's own carbohydrate curve by default).
    func carbKernel(_ model: BatemanCarbModel? = nil) -> [Double] {
        let model = model ?? carbs
        let steps = Self.carbKernelMinutes(model) / stepMinutes
        let h = Double(horizonMinutes)
        return (0...steps).map { k in
            let m = Double(k * stepMinutes)
            return model.fractionRemaining(after: m) - model.fractionRemaining(after: m + h)
        }
    }

    /// How far back the carbohydrate look-ahead by `model` reaches, in minutes: twelve hours (the
    /// default curve has less than 0.1% left after seven), longer for a slower curve: until under
    /// 0.1% is left, at most two days.
    static func carbKernelMinutes(_ model: BatemanCarbModel) -> Int {
        var minutes = 12 * 60
        while minutes < 48 * 60, model.fractionRemaining(after: Double(minutes)) > 1e-3 { minutes += 60 }
        return minutes
    }

    /// `out[t - range.lower] = sum_k amounts[t - k] * kernel[k]` over past steps only.
    static func lookAhead(_ amounts: [Double], kernel: [Double], range: Range<Int>) -> [Double] {
        var out = [Double](repeating: 0, count: range.count)
        for t in range where t < amounts.count {
            var s = 0.0
            for k in 0..<min(kernel.count, t + 1) {
                let a = amounts[t - k]
                if a != 0 { s += a * kernel[k] }
            }
            out[t - range.lowerBound] = s
        }
        return out
    }
}
