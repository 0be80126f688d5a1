import Foundation

/// The standard bolus calculator (`../shared/specs/dosing.md`):
/// `bolus = carbs/ICR + (BG - target)/ISF - IOB`, never below 0, at most `maxBolus`,
/// rounded down to the pump's increment.
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
        let steps = (clamped / settings.bolusIncrement + 1e-9).rounded(.down)
        return max(0, steps * settings.bolusIncrement)
    }
}
