import Foundation

/// What the toolkit advises, in the manner of LoopKit's `InsulinCorrection`: a decision with
/// its reasons attached, never a bare number.
public enum DoseDecision: Hashable, Sendable, Codable {
    /// A bolus of `units` (already clamped, capped and rounded down to the pump increment;
    /// may be 0 when insulin on board covers the need).
    case bolus(units: Double, basis: DoseBasis)
    /// No insulin: glucose is, or is predicted to be, below the suspend threshold.
    /// Treat or watch for a low.
    case noInsulin(DoseRefusal)
    /// No dose at all: the data or the settings cannot support one (every reason found).
    case refused([DoseRefusal])

    /// The units to give, or nil when refused. `noInsulin` is 0 U.
    public var units: Double? {
        switch self {
        case let .bolus(units, _): return units
        case .noInsulin: return 0
        case .refused: return nil
        }
    }

    /// `bolus`, `no_insulin` or `refused`.
    public var kind: String {
        switch self {
        case .bolus: return "bolus"
        case .noInsulin: return "no_insulin"
        case .refused: return "refused"
        }
    }
}

/// Where a suggested bolus came from.
public enum DoseBasis: String, Hashable, Sendable, Codable {
    /// The model-based search (`ModelDoseSearch`), at most the standard formula's dose.
    case model
    /// The standard bolus calculator (`StandardBolus`).
    case standardFormula = "standard_formula"
}

/// Facts about how a bolus was reached that a clinician should see; none of them stops a dose.
public enum DoseNote: Hashable, Sendable, Codable, CustomStringConvertible {
    /// No model was given, or none could predict at this moment.
    case modelUnavailable(String)
    /// Predicted glucose at `horizonMinutes` rises by `rise` mg/dL when the bolus goes from
    /// `bolus` to the next increment: the model is not trusted for dosing.
    case modelNotMonotone(horizonMinutes: Int, bolus: Double, rise: Double)
    /// Predictions do not change with the bolus at any horizon: the model cannot see insulin.
    case modelBlindToInsulin
    /// The search ended on the maximum bolus: the models see too little effect of insulin to
    /// dose by (their best dose is "as much as allowed"), so no model-based dose is given.
    case modelSaturated(maxBolus: Double)
    /// The model-based dose was held at `units` so that no predicted value falls below the
    /// suspend threshold (a larger dose would have been closer to the target).
    case limitedBySuspendThreshold(units: Double)
    /// The model-based dose `model` exceeded the standard formula's `formula`: the formula's wins.
    case cappedByFormula(model: Double, formula: Double)
    /// The formula asked for `requested` U, more than the maximum bolus.
    case clampedToMaxBolus(requested: Double, maxBolus: Double)
    /// Insulin on board covers the carbohydrates and the correction: the formula gives 0.
    case insulinOnBoardCovers(insulinOnBoard: Double, need: Double)

    public var code: String {
        switch self {
        case .modelUnavailable: return "model_unavailable"
        case .modelNotMonotone: return "model_not_monotone"
        case .modelBlindToInsulin: return "model_blind_to_insulin"
        case .modelSaturated: return "model_saturated"
        case .limitedBySuspendThreshold: return "limited_by_suspend_threshold"
        case .cappedByFormula: return "capped_by_formula"
        case .clampedToMaxBolus: return "clamped_to_max_bolus"
        case .insulinOnBoardCovers: return "iob_covers_need"
        }
    }

    public var description: String {
        switch self {
        case let .modelUnavailable(why): return "no model-based dose: \(why); the standard formula's dose is shown"
        case let .modelNotMonotone(h, b, rise):
            return String(format: "no model-based dose: the %d-min model predicts glucose %.3g mg/dL higher when the bolus rises above %.2f U (more insulin must never raise glucose); the standard formula's dose is shown", h, rise, b)
        case .modelBlindToInsulin:
            return "no model-based dose: the models' predictions do not change with the bolus (they cannot see insulin); the standard formula's dose is shown"
        case let .modelSaturated(m):
            return String(format: "no model-based dose: the search reached the maximum bolus %.2f U, so the models see too little effect of insulin to dose by; the standard formula's dose is shown", m)
        case let .limitedBySuspendThreshold(u):
            return String(format: "model-based dose held at %.2f U so that no predicted glucose falls below the suspend threshold", u)
        case let .cappedByFormula(m, f):
            return String(format: "model-based dose %.2f U exceeds the standard formula's %.2f U; the lower is suggested", m, f)
        case let .clampedToMaxBolus(r, m): return String(format: "%.2f U requested, clamped to the maximum bolus %.2f U", r, m)
        case let .insulinOnBoardCovers(iob, need):
            return String(format: "insulin on board %.2f U covers the %.2f U needed for carbohydrates and correction", iob, need)
        }
    }
}

/// A reason code with its message, as printed and written to JSON.
public struct DoseReason: Hashable, Sendable, Codable {
    public var code: String
    public var message: String
}

/// Predicted glucose at one horizon with no added insulin and at the suggested dose
/// (both with the planned carbohydrates).
public struct PredictedGlucose: Hashable, Sendable, Codable {
    public var horizonMinutes: Int
    public var atZeroDose: Double
    public var atSuggestedDose: Double
}

/// One dose suggestion with everything it was computed from, so that a clinician can audit it.
public struct DoseSuggestion: Hashable, Sendable, Codable {
    public var patient: PatientID
    /// The moment of the suggestion ("now").
    public var at: Date
    public var decision: DoseDecision
    /// Every refusal and note, in order, as codes and messages.
    public var reasons: [DoseReason]
    /// Planned carbohydrates (g).
    public var carbs: Double
    /// The newest glucose reading at or before `at`, and its time.
    public var glucose: Double?
    public var glucoseTime: Date?
    /// Insulin on board at `at` (U), with the settings' insulin curve.
    public var insulinOnBoard: Double?
    /// The settings used, when they passed their checks.
    public var settings: CheckedDoseSettings?
    /// The standard formula's parts and dose.
    public var standard: StandardBolus?
    /// The model-based dose before the cap by the formula, when the models could give one.
    public var modelDose: Double?
    /// The grid point the model features were computed at (the end of the step holding `at`).
    public var featureTime: Date?
    /// Predicted glucose per model horizon (empty when no model could predict).
    public var predictions: [PredictedGlucose]

    /// The refusal and note codes.
    public var reasonCodes: [String] { reasons.map(\.code) }
}
