import Foundation

/// Loop's dose rule (LoopKit `DoseMath.insulinCorrection`; dosing.md): on the curve predicted
/// with the planned meal and no bolus, `G_0(τ)`,
///
/// - if any point is below the suspend threshold: no insulin (`predictedLow`);
/// - the target rises from the suspend threshold now to the correction target at half the
///   insulin duration and stays there: `T(τ) = S + (T − S) · min(1, τ / (D/2))`;
/// - each point asks for the insulin that brings it to its target, given how much of a bolus
///   will have acted by then: `u(τ) = (G_0(τ) − T(τ)) / (ISF · (1 − R(τ)))`;
/// - the suggestion is the smallest of these, never negative: a bolus that brings no point
///   below its target; none when the eventual glucose `G_0(D)` is not above the target, nor when
///   the smallest is negative (`belowTargetRise`: a point between the suspend threshold and its
///   rising target, glucose near the threshold now with a meal still to show).
///
/// Worked example (tests): flat 180 mg/dL, no meal, ISF 50, target 110, suspend 70, D = 360:
/// the eventual point asks `(180 − 110)/50 = 1.4 U`; earlier points ask more (less of the bolus
/// has acted), so 1.4 U.
public struct LoopDoseRule: Sendable {
    public var suspendThreshold: GlucoseValue
    public var target: GlucoseValue
    public var insulinSensitivity: Double
    public var insulin: ExponentialInsulinModel

    public init(suspendThreshold: GlucoseValue, target: GlucoseValue, insulinSensitivity: Double, insulin: ExponentialInsulinModel) {
        self.suspendThreshold = suspendThreshold; self.target = target
        self.insulinSensitivity = insulinSensitivity; self.insulin = insulin
    }

    public enum Outcome: Hashable, Sendable {
        /// The bolus (before clamping and rounding) and the minute of the point that set it.
        case dose(InsulinUnits, correctingMinute: Double)
        /// The eventual glucose is at or below the target: no correction or meal insulin needed.
        case noneNeeded(eventual: GlucoseValue)
        /// A point of the curve without a bolus is below the suspend threshold.
        case predictedLow(minute: Double, glucose: GlucoseValue)
        /// The point that asks least is below its target, `T(minute)` (above the suspend threshold):
        /// no bolus now (Loop's rule gives 0). Before stop 63 it was a dose of 0 U without a word.
        case belowTargetRise(minute: Double, glucose: GlucoseValue, target: GlucoseValue)
    }

    /// `T(τ)`, mg/dL.
    public func target(atMinute tau: Double) -> Double {
        let s = suspendThreshold.mgdL, t = target.mgdL
        return s + (t - s) * min(1, max(0, tau) / (insulin.durationMinutes / 2))
    }

    public func apply(to curve: PredictedCurve) -> Outcome {
        let g = curve.glucose(bolus: InsulinUnits(0)).map(\.mgdL)
        if let k = g.indices.first(where: { g[$0] < suspendThreshold.mgdL }) {
            return .predictedLow(minute: curve.minutes[k], glucose: GlucoseValue(mgdL: g[k]))
        }
        let eventual = g[g.count - 1]
        guard eventual > target.mgdL else { return .noneNeeded(eventual: GlucoseValue(mgdL: eventual)) }
        var best = Double.infinity, at = curve.minutes[curve.minutes.count - 1]
        for k in curve.minutes.indices {
            let acted = 1 - insulin.fractionRemaining(after: curve.minutes[k])
            guard acted > 1e-9 else { continue }  // now: no bolus has acted yet
            let units = (g[k] - target(atMinute: curve.minutes[k])) / (insulinSensitivity * acted)
            if units < best { best = units; at = curve.minutes[k] }
        }
        if best < 0, let k = curve.minutes.firstIndex(of: at) {
            return .belowTargetRise(minute: at, glucose: GlucoseValue(mgdL: g[k]), target: GlucoseValue(mgdL: target(atMinute: at)))
        }
        return .dose(InsulinUnits(max(0, best)), correctingMinute: at)
    }
}
