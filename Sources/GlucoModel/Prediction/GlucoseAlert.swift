import Foundation

/// Glucose levels that raise an alert when a prediction crosses them (mg/dL).
public struct AlertThresholds: Sendable, Hashable {
    /// A prediction strictly below this is a `low` alert (default 70 mg/dL: the consensus
    /// level-1 hypoglycaemia threshold, Battelino et al. 2019).
    public var low: Double
    /// A prediction strictly above this is a `high` alert (default 250 mg/dL: level-2 hyperglycaemia).
    public var high: Double

    public init(low: Double = 70, high: Double = 250) {
        self.low = low
        self.high = high
    }

    /// What a CGM reads (mg/dL): a threshold outside is a unit slip (70 read as mmol/L is 1261 mg/dL).
    public static let plausible: ClosedRange<Double> = 20...600

    /// The thresholds given as `low` and `high` in `unit` (nil: the defaults).
    /// - Throws: `AlertThresholdProblem` for a value outside `plausible` (checked before the order:
    ///   `--units mmol/L --low 70` is that slip, not a low above the default high), or a low not
    ///   below the high. Its text names the options `--low` and `--high`.
    public init(low: Double?, high: Double?, in unit: GlucoseUnit) throws(AlertThresholdProblem) {
        let defaults = AlertThresholds()
        self.init(low: low.map(unit.mgdL) ?? defaults.low, high: high.map(unit.mgdL) ?? defaults.high)
        for (name, value, given) in [("--low", self.low, low), ("--high", self.high, high)] where given != nil && !Self.plausible.contains(value) {
            throw .implausible(option: name, given: given!, unit: unit, mgdL: value)
        }
        guard self.low < self.high else { throw .notBelow }
    }

    /// Whether a glucose value (mg/dL) is below `low`, above `high`, or neither (nil).
    public func excursion(_ value: Double) -> GlucoseExcursion? {
        value < low ? .low : value > high ? .high : nil
    }
}

/// Alert thresholds that cannot be: a value outside what a CGM reads, or a low not below the high.
public enum AlertThresholdProblem: Error, CustomStringConvertible, Equatable {
    case implausible(option: String, given: Double, unit: GlucoseUnit, mgdL: Double)
    case notBelow

    public var description: String {
        switch self {
        case let .implausible(option, given, unit, value):
            // Whole mg/dL, unless that would read as inside the range (1.1 mmol/L is 19.8, not 20; 1.11
            // is 19.997, not 20.0: hunt AD, stop 56): then with the decimals that tell it from the bound.
            let bound = value < AlertThresholds.plausible.lowerBound ? AlertThresholds.plausible.lowerBound : AlertThresholds.plausible.upperBound
            let shown = AlertThresholds.plausible.contains(value.rounded())
                ? GlucoseUnit.mgdL.format(value, apartFrom: bound, mgdLDecimals: 1) : Self.format(value.rounded())
            let inMgdL = unit == .mgdL ? " is" : " is \(shown) mg/dL,"
            return "\(option) \(Self.format(given)) \(unit.rawValue)\(inMgdL) outside 20-600 mg/dL; is --units right?"
        case .notBelow: return "--low must be below --high"
        }
    }

    static func format(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }
}

/// A glucose value outside the thresholds, on the low or the high side.
public enum GlucoseExcursion: String, Sendable { case low, high }

/// A predicted low or high: the evolved model's prediction crossing a threshold.
public struct GlucoseAlert: Sendable, Hashable {
    public typealias Kind = GlucoseExcursion

    public var patient: PatientID
    public var issuedAt: Date
    public var targetTime: Date
    public var horizonMinutes: Int
    public var prediction: Double
    public var kind: Kind

    public static let csvHeader = "patient,issued_at,target_time,horizon_min,prediction_mgdl,kind"

    public var csvLine: String {
        [patient.rawValue, PredictionCSV.iso8601(issuedAt), PredictionCSV.iso8601(targetTime), String(horizonMinutes),
         PredictionCSV.fixed(prediction, decimals: 1), kind.rawValue].joined(separator: ",")
    }

    /// The alerts among `rows`: only the `ge` model's predictions are looked at (the baselines
    /// are for comparison), in row order.
    public static func alerts(in rows: [PredictionRow], thresholds: AlertThresholds) -> [GlucoseAlert] {
        rows.compactMap { row in
            guard row.model == ModelKind.ge.rawValue, row.prediction.isFinite else { return nil }
            let kind = thresholds.excursion(row.prediction)
            return kind.map { GlucoseAlert(patient: row.patient, issuedAt: row.issuedAt, targetTime: row.targetTime,
                                           horizonMinutes: row.horizonMinutes, prediction: row.prediction, kind: $0) }
        }
    }
}
