import Foundation

/// The dose JSON for pipelines (`dose --format json`; docs/dosing.md, docs/formats.md): one
/// flat object, snake_case keys in sorted order, with `schema_version`. Numbers are mg/dL, U, g and
/// minutes as the key says; a value that does not apply is null. Only `reasons` nests (a list
/// of `{code, message}`), and the `predicted_*` keys are lists of numbers, one per minute of
/// `predicted_minutes`.
public struct DoseRecord: Encodable, Hashable, Sendable {
    public static let schemaVersion = 1

    public var schema_version = DoseRecord.schemaVersion
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
    public var glucose_mgdl: Double?
    public var glucose_time: String?
    public var net_iob_units: Double?
    /// `settings`, `data` or `none`: what the net insulin on board was counted against.
    public var basal_schedule_source: String?
    public var carbs_g: Double
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

    public init(_ s: DoseSuggestion) {
        func r(_ v: Double?, _ digits: Double = 100) -> Double? { v.map { ($0 * digits).rounded() / digits } }
        patient = s.patient.rawValue
        at = s.at.iso8601
        decision = s.decision.kind
        method = s.method.rawValue
        units = s.decision.units ?? 0
        model_units = s.modelDose
        formula_units = s.standard.map { DoseAdvisor.formulaUnits($0, iob: s.insulinOnBoard ?? 0, settings: s.settings) }
        model_used = s.modelUsed
        reasons = s.reasons
        glucose_mgdl = s.glucose
        glucose_time = s.glucoseTime?.iso8601
        net_iob_units = r(s.insulinOnBoard, 1000)
        basal_schedule_source = s.basalScheduleSource?.rawValue
        carbs_g = s.carbs
        carb_ratio = s.settings?.carbRatio
        isf = s.settings?.insulinSensitivity
        target_mgdl = s.settings?.target
        suspend_mgdl = s.settings?.suspendThreshold
        max_bolus = s.settings?.maxBolus
        max_iob = s.settings?.maxInsulinOnBoard
        formula_carb_units = r(s.standard?.carbDose, 1000)
        formula_correction_units = r(s.standard?.correctionDose, 1000)
        feature_time = s.featureTime?.iso8601
        if let c = s.curve {
            predicted_minutes = c.minutes
            predicted_no_bolus_mgdl = c.glucose(bolus: InsulinUnits(0)).map { r($0.mgdL, 10)! }
            predicted_with_dose_mgdl = c.glucose(bolus: InsulinUnits(units)).map { r($0.mgdL, 10)! }
        }
    }

    /// Keys in the order above (the schema's order), nulls written out.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        func put<T: Encodable>(_ v: T?, _ k: String) throws {
            if let v { try c.encode(v, forKey: Key(k)) } else { try c.encodeNil(forKey: Key(k)) }
        }
        try put(schema_version, "schema_version"); try put(patient, "patient"); try put(at, "at")
        try put(decision, "decision"); try put(method, "method"); try put(units, "units")
        try put(model_units, "model_units"); try put(formula_units, "formula_units"); try put(model_used, "model_used")
        try put(reasons, "reasons"); try put(glucose_mgdl, "glucose_mgdl"); try put(glucose_time, "glucose_time")
        try put(net_iob_units, "net_iob_units"); try put(basal_schedule_source, "basal_schedule_source")
        try put(carbs_g, "carbs_g"); try put(carb_ratio, "carb_ratio"); try put(isf, "isf")
        try put(target_mgdl, "target_mgdl"); try put(suspend_mgdl, "suspend_mgdl"); try put(max_bolus, "max_bolus")
        try put(max_iob, "max_iob"); try put(formula_carb_units, "formula_carb_units")
        try put(formula_correction_units, "formula_correction_units"); try put(feature_time, "feature_time")
        try put(predicted_minutes, "predicted_minutes"); try put(predicted_no_bolus_mgdl, "predicted_no_bolus_mgdl")
        try put(predicted_with_dose_mgdl, "predicted_with_dose_mgdl")
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
    /// The suggestion as one flat JSON object (`DoseRecord`), pretty-printed.
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(DoseRecord(self)), as: UTF8.self)
    }
}
