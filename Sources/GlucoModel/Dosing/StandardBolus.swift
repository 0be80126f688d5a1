import Foundation

/// The standard bolus calculator (docs/dosing.md):
/// `bolus = carbs/ICR + (BG - target)/ISF - IOB`, never below 0, at most `maxBolus`,
/// rounded down to the pump's increment.
///
/// Worked example: 60 g at ICR 10 g/U, BG 180 mg/dL, target 110, ISF 35 mg/dL/U, IOB 1.2 U:
/// `6 + 2 - 1.2 = 6.8 U`.
public struct StandardBolus: Hashable, Sendable, Codable {
    public var carbDose: Double
    public var correctionDose: Double
    public var insulinOnBoard: Double
    /// `carbDose + correctionDose - insulinOnBoard` before clamping and rounding.
    public var unclamped: Double
    /// The dose after clamping to `[0, maxBolus]` and rounding down.
    public var dose: Double

    public init(carbs: Double, glucose: Double, insulinOnBoard: Double, settings: CheckedDoseSettings) {
        carbDose = carbs / settings.carbRatio
        correctionDose = (glucose - settings.target) / settings.insulinSensitivity
        self.insulinOnBoard = insulinOnBoard
        unclamped = carbDose + correctionDose - insulinOnBoard
        dose = StandardBolus.deliverable(unclamped, settings: settings)
    }

    /// Clamps to `[0, maxBolus]` and rounds down to the increment (a tiny tolerance keeps
    /// 1.15 from becoming 1.10 through binary rounding of 1.15/0.05).
    public static func deliverable(_ dose: Double, settings: CheckedDoseSettings) -> Double {
        guard dose.isFinite, dose > 0 else { return 0 }
        let clamped = min(dose, settings.maxBolus)
        let steps = Int((clamped / settings.bolusIncrement + 1e-9).rounded(.down))
        return units(steps: max(0, steps), increment: settings.bolusIncrement)
    }

    /// `steps * increment`, cleaned of binary noise (12 * 0.05 is 0.6000000000000001 in
    /// binary; this gives the double nearest 0.6) so that printed and compared doses are exact.
    public static func units(steps: Int, increment: Double) -> Double {
        (Double(steps) * increment * 1e9).rounded() / 1e9
    }
}
