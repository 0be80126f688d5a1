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

    /// Whether a glucose value (mg/dL) is below `low`, above `high`, or neither (nil).
    public func excursion(_ value: Double) -> GlucoseExcursion? {
        value < low ? .low : value > high ? .high : nil
    }
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
