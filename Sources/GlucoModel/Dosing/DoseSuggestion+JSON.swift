import Foundation

/// The dose JSON for pipelines (`dose --format json`; docs/dosing.md, docs/formats.md): one
/// flat object, snake_case keys in sorted order, with `schema_version`. Numbers are mg/dL, U, g and
/// minutes as the key says; a value that does not apply is null. Only `reasons` nests (a list
/// of `{code, message}`), and the `predicted_*` keys are lists of numbers, one per minute of
/// `predicted_minutes`. In mmol/L (`dose --units mmol/L`), `glucose_units` says so, every
/// `_mgdl` key is `_mmoll` with its value converted (to 0.01 mmol/L), `isf` is in mmol/L per U,
/// and the reason messages give glucose in mmol/L.
public struct DoseRecord: Encodable, Hashable, Sendable {
    public static let schemaVersion = 1

    public var schema_version = DoseRecord.schemaVersion
    /// `mg/dL` or `mmol/L`: the unit of every glucose value (and of `isf` per U).
    public var glucose_units: String
    public var patient: String
    public var at: String
    /// `bolus`, `no_insulin` or `refused`.
    public var decision: String
    /// `model` or `formula`: the dose asked for.
    public var method: String
    /// The suggestion (U); 0 when the decision is not a bolus.
    public var units: Double
    public var model_units: Double?
    public var formula_units: Double?
    /// Whether `units` is the model-based dose (false: the formula's, by choice or fallback).
    public var model_used: Bool
    public var reasons: [DoseReason]
    /// Minutes after which to ask again with the same carbohydrates (a meal that got no insulin
    /// for a low); null otherwise.
    public var recheck_minutes: Int?
    public var glucose_mgdl: Double?
    public var glucose_time: String?
    public var net_iob_units: Double?
    /// `settings`, `data` or `none`: what the net insulin on board was counted against.
    public var basal_schedule_source: String?
    public var carbs_g: Double?
    /// When the carbohydrates were eaten, when before `at` (`dose --carbs-time`); null otherwise.
    public var carbs_time: String?
    public var carb_ratio: Double?
    public var isf: Double?
    public var target_mgdl: Double?
    public var suspend_mgdl: Double?
    public var max_bolus: Double?
    public var max_iob: Double?
    public var formula_carb_units: Double?
    public var formula_correction_units: Double?
    public var feature_time: String?
    public var predicted_minutes: [Double]?
    public var predicted_no_bolus_mgdl: [Double]?
    public var predicted_with_dose_mgdl: [Double]?

    /// The suffix of the glucose keys (`mgdl`, `mmoll`).
    let suffix: String

    public init(_ s: DoseSuggestion, units glucose: GlucoseUnit = .mgdL) {
        func r(_ v: Double?, _ digits: Double = 100) -> Double? { v.map { ($0 * digits).rounded() / digits } }
        /// A glucose in `glucose`: as computed in mg/dL, or converted and rounded to 0.01 mmol/L.
        func g(_ v: Double?) -> Double? { glucose == .mgdL ? v : r(v.map(glucose.convert)) }
        glucose_units = glucose.rawValue
        suffix = glucose.columnSuffix
        patient = s.patient.rawValue
        at = s.at.iso8601
        decision = s.decision.kind
        method = s.method.rawValue
        units = s.decision.units ?? 0
        model_units = s.modelDose
        formula_units = s.formulaUnits
        model_used = s.modelUsed
        reasons = s.reasons.map { DoseReason(code: $0.code, message: $0.message(units: glucose)) }
        recheck_minutes = s.recheckMinutes
        glucose_mgdl = g(s.glucose)
        glucose_time = s.glucoseTime?.iso8601
        net_iob_units = r(s.insulinOnBoard, 1000)
        basal_schedule_source = s.basalScheduleSource?.rawValue
        carbs_g = s.carbs.isFinite ? s.carbs : nil  // a refused non-number stays valid JSON
        carbs_time = s.carbsTime?.iso8601
        carb_ratio = s.settings?.carbRatio
        isf = glucose == .mgdL ? s.settings?.insulinSensitivity : r(s.settings.map { glucose.convert($0.insulinSensitivity) }, 1000)
        target_mgdl = g(s.settings?.target)
        suspend_mgdl = g(s.settings?.suspendThreshold)
        max_bolus = s.settings?.maxBolus
        max_iob = s.settings?.maxInsulinOnBoard
        formula_carb_units = r(s.standard?.carbDose, 1000)
        formula_correction_units = r(s.standard?.correctionDose, 1000)
        feature_time = s.featureTime?.iso8601
        if let c = s.curve {
            predicted_minutes = c.minutes
            let dose = InsulinUnits(units)
            let digits = glucose == .mgdL ? 10.0 : 100.0
            predicted_no_bolus_mgdl = c.glucose(bolus: InsulinUnits(0)).map { r(glucose.convert(DoseAdvisor.shown($0.mgdL)), digits)! }
            predicted_with_dose_mgdl = c.glucose(bolus: dose).map { r(glucose.convert(DoseAdvisor.shown($0.mgdL)), digits)! }
        }
    }

    /// Keys in the order above (the schema's order), nulls written out.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        func put<T: Encodable>(_ v: T?, _ k: String) throws {
            if let v { try c.encode(v, forKey: Key(k)) } else { try c.encodeNil(forKey: Key(k)) }
        }
        try put(schema_version, "schema_version"); try put(glucose_units, "glucose_units")
        try put(patient, "patient"); try put(at, "at")
        try put(decision, "decision"); try put(method, "method"); try put(units, "units")
        try put(model_units, "model_units"); try put(formula_units, "formula_units"); try put(model_used, "model_used")
        try put(reasons, "reasons"); try put(recheck_minutes, "recheck_minutes"); try put(glucose_mgdl, "glucose_\(suffix)"); try put(glucose_time, "glucose_time")
        try put(net_iob_units, "net_iob_units"); try put(basal_schedule_source, "basal_schedule_source")
        try put(carbs_g, "carbs_g"); try put(carbs_time, "carbs_time"); try put(carb_ratio, "carb_ratio"); try put(isf, "isf")
        try put(target_mgdl, "target_\(suffix)"); try put(suspend_mgdl, "suspend_\(suffix)"); try put(max_bolus, "max_bolus")
        try put(max_iob, "max_iob"); try put(formula_carb_units, "formula_carb_units")
        try put(formula_correction_units, "formula_correction_units"); try put(feature_time, "feature_time")
        try put(predicted_minutes, "predicted_minutes"); try put(predicted_no_bolus_mgdl, "predicted_no_bolus_\(suffix)")
        try put(predicted_with_dose_mgdl, "predicted_with_dose_\(suffix)")
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ s: String) { stringValue = s }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

extension DoseSuggestion {
    /// The suggestion as one flat JSON object (`DoseRecord`), pretty-printed, glucose in `units`.
    public func json(units: GlucoseUnit = .mgdL) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(DoseRecord(self, units: units)), as: UTF8.self)
    }
}
