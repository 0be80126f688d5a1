import Foundation
import LinearAlgebra

/// The inputs a glucose model may read at the moment of prediction `t`, all computed from
/// data at or before `t` (causal). Their names are the variables of the glucose grammars.
///
/// | name | meaning |
/// |---|---|
/// | `G0`...`G11` | glucose at `t`, `t-5`, ... `t-55` min (mg/dL; gaps up to 30 min filled) |
/// | `IOB`, `IA` | insulin on board (U) and insulin activity (U/min), exponential model |
/// | `INS` | insulin given up to `t` that will act in `(t, t+h]` (U) |
/// | `COB`, `RA` | carbohydrates on board (g) and rate of appearance (g/min), Bateman curve |
/// | `CARB` | carbohydrates eaten up to `t` that will appear in `(t, t+h]` (g) |
/// | `EX`, `HR` | exercise intensity (0-10) and heart rate (bpm; 0 when not recorded) |
/// | `CARB1`...`CARBn` | `CARB` by each of `carbCurves` (carbohydrate absorbed faster or slower) |
/// | `INS1`...`INSm` | `INS` by each of `insulinCurves` (insulin acting faster or slower) |
///
/// `INS` and `CARB` depend on the horizon `h`: they carry what is already known at `t` about
/// the next `h` minutes (doses and meals logged so far), never anything logged after `t`.
/// A person's insulin and carbohydrates act at their own speeds, not the toolkit's curves': the
/// same amounts through curves at several speeds let a model's least-squares part weigh them into
/// the person's own response (docs/accuracy.md, "Curves at more than one speed").
public struct FeatureSet: Codable, Hashable, Sendable {
    /// Number of glucose lags (`G0` ... `G{n-1}`).
    public var glucoseLags: Int
    /// Horizon the horizon-dependent features look ahead to, in minutes.
    public var horizonMinutes: Int
    /// Grid step in minutes.
    public var stepMinutes: Int
    /// The insulin-action curve behind `INS` (the series' own `IOB`/`IA` use the same one).
    public var insulin: ExponentialInsulinModel
    /// The absorption curve behind `CARB` (the series' own `COB`/`RA` use the same one).
    public var carbs: BatemanCarbModel
    /// The curves behind `CARB1`...: empty in model files written before them.
    public var carbCurves: [BatemanCarbModel]
    /// The curves behind `INS1`...: empty in model files written before them.
    public var insulinCurves: [ExponentialInsulinModel]

    public init(glucoseLags: Int = 12, horizonMinutes: Int, stepMinutes: Int = 5,
                insulin: ExponentialInsulinModel = .adultRapid, carbs: BatemanCarbModel = .standard,
                carbCurves: [BatemanCarbModel] = [], insulinCurves: [ExponentialInsulinModel] = []) {
        self.glucoseLags = glucoseLags
        self.horizonMinutes = horizonMinutes
        self.stepMinutes = stepMinutes
        self.insulin = insulin
        self.carbs = carbs
        self.carbCurves = carbCurves
        self.insulinCurves = insulinCurves
    }

    public static let nonGlucoseNames = ["IOB", "IA", "INS", "COB", "RA", "CARB", "EX", "HR"]

    /// Column names, in column order.
    public var names: [String] {
        (0..<glucoseLags).map { "G\($0)" } + FeatureSet.nonGlucoseNames
            + carbCurves.indices.map { "CARB\($0 + 1)" } + insulinCurves.indices.map { "INS\($0 + 1)" }
    }

    /// The columns computed from insulin records, and from carbohydrate records.
    public var insulinInputs: [String] { ["IOB", "IA", "INS"] + insulinCurves.indices.map { "INS\($0 + 1)" } }
    public var carbInputs: [String] { ["COB", "RA", "CARB"] + carbCurves.indices.map { "CARB\($0 + 1)" } }

    /// The columns computed from records of `kind`.
    public func inputs(of kind: PatientLog.RecordInputs) -> [String] {
        switch kind {
        case .insulin, .basal, .bolus, .basalRate, .basalInjection: return insulinInputs
        case .carbohydrate: return carbInputs
        case .heartRate: return ["HR"]
        case .exercise: return ["EX"]
        }
    }

    /// The sign each column's weight is held to in the least-squares part of a model (`ARXModel`):
    /// every column computed from carbohydrates (`carbInputs`) has a weight of zero or more and
    /// every column computed from insulin (`insulinInputs`) zero or less, so that in the linear
    /// part a meal never lowers glucose and insulin never raises it. Unheld, the weights trade a
    /// meal against its insulin (in a log, boluses come with meals in a fixed ratio): insulin may
    /// be learnt to raise glucose, and a meal eaten without insulin to lower it (docs/accuracy.md).
    public var weightSigns: [CoefficientSign] {
        let carbs = Set(carbInputs), insulin = Set(insulinInputs)
        return names.map { carbs.contains($0) ? .nonNegative : insulin.contains($0) ? .nonPositive : .free }
    }

    /// The carbohydrate curve's rates times each of these give `carbCurves` (`multiSpeed`): from
    /// about three times as slow to three times as fast.
    public static let carbSpeeds = [0.35, 0.5, 0.7, 1.4, 2, 3]
    /// The insulin curve's peak times each of these (its duration too, when longer, up to a day)
    /// give `insulinCurves` (`multiSpeed`).
    public static let insulinPeakFactors = [0.5, 0.7, 1.4, 1.8]

    /// The extra curves around `insulin` and `carbs`: every speed in `carbSpeeds` and
    /// `insulinPeakFactors` (`--curves multi`; measured in docs/accuracy.md).
    public static func multiSpeed(insulin: ExponentialInsulinModel,
                                  carbs: BatemanCarbModel) -> (carbs: [BatemanCarbModel], insulin: [ExponentialInsulinModel]) {
        (carbSpeeds.map { BatemanCarbModel(ka: carbs.ka * $0, ke: carbs.ke * $0) },
         insulinPeakFactors.map {
             ExponentialInsulinModel(peakMinutes: insulin.peakMinutes * $0,
                                     durationMinutes: min(insulin.durationMinutes * max(1, $0), 24 * 60))
         })
    }

    /// The names of the curves at several speeds (`multiSpeed`): `CARB1` ... `CARB6`, `INS1` ... `INS4`.
    public static var multiSpeedNames: [String] {
        carbSpeeds.indices.map { "CARB\($0 + 1)" } + insulinPeakFactors.indices.map { "INS\($0 + 1)" }
    }
    /// `CARB1 ... CARB6 and INS1 ... INS4`.
    static var multiSpeedRanges: String { "CARB1 ... CARB\(carbSpeeds.count) and INS1 ... INS\(insulinPeakFactors.count)" }

    public var horizonSteps: Int { horizonMinutes / stepMinutes }

    /// Steps of history a row needs before it can be computed.
    public var historySteps: Int { glucoseLags - 1 }

    enum CodingKeys: String, CodingKey {
        case glucoseLags, horizonMinutes, stepMinutes, insulin, carbs, carbCurves, insulinCurves
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        glucoseLags = try c.decode(Int.self, forKey: .glucoseLags)
        horizonMinutes = try c.decode(Int.self, forKey: .horizonMinutes)
        stepMinutes = try c.decode(Int.self, forKey: .stepMinutes)
        insulin = try c.decode(ExponentialInsulinModel.self, forKey: .insulin)
        carbs = try c.decode(BatemanCarbModel.self, forKey: .carbs)
        carbCurves = try c.decodeIfPresent([BatemanCarbModel].self, forKey: .carbCurves) ?? []
        insulinCurves = try c.decodeIfPresent([ExponentialInsulinModel].self, forKey: .insulinCurves) ?? []
    }

    /// Without the extra curves' keys when there are none: such a file reads as before them.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(glucoseLags, forKey: .glucoseLags)
        try c.encode(horizonMinutes, forKey: .horizonMinutes)
        try c.encode(stepMinutes, forKey: .stepMinutes)
        try c.encode(insulin, forKey: .insulin)
        try c.encode(carbs, forKey: .carbs)
        if !carbCurves.isEmpty { try c.encode(carbCurves, forKey: .carbCurves) }
        if !insulinCurves.isEmpty { try c.encode(insulinCurves, forKey: .insulinCurves) }
    }
}
