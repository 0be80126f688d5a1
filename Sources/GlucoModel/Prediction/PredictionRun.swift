import Foundation

/// The outcome of predicting one patient: rows, or why there are none.
public enum PatientPrediction: Sendable {
    case predicted(PatientID, [PredictionRow])
    /// `reason` is a whole message starting with the patient id.
    /// `reason` is a whole message that starts with the patient id.
    case skipped(PatientID, reason: String)

    public var patient: PatientID {
        switch self {
        case let .predicted(p, _), let .skipped(p, _): return p
        }
    }
}

/// Predictions for a cohort: each patient's models applied to their data over a period.
///
/// A patient without models, with models reading inputs the data lacks, or with data too old
/// for the period is skipped with a reason (never given a wrong number); the others go on.
public struct PredictionRun: Sendable {
    /// The folder with the trainer's output (`<folder>/models/<patient>/h030.json`) or its `models/`.
    public var modelsFolder: URL
    /// Horizons to predict (minutes); nil: every horizon the patient has a model for.
    public var horizons: [Int]?
    public var from: Date?
    public var to: Date?

    public init(modelsFolder: URL, horizons: [Int]? = nil, from: Date? = nil, to: Date? = nil) {
        self.modelsFolder = modelsFolder
        self.horizons = horizons
        self.from = from
        self.to = to
    }

    /// One patient's predictions (issue moments from `from` to `to`, inclusive).
    public func predict(_ patient: PatientID, log: PatientLog) -> PatientPrediction {
        var rows: [PredictionRow] = []
        if let reason = predict(patient, log: log, each: { rows += $0 }) { return .skipped(patient, reason: reason) }
        return .predicted(patient, rows)
    }

    /// The same rows handed to `each` a week of issue moments at a time, in order (a patient's
    /// years are not held in memory at once); returns nil, or why the patient is skipped (a whole
    /// message starting with the patient id: then `each` was not called).
    public func predict(_ patient: PatientID, log: PatientLog, each: ([PredictionRow]) -> Void) -> String? {
        do {
            let models = try ModelSet.load(modelsFolder, patient: patient, horizons: horizons)
            try Predictor(models: models).predict(log, from: from, to: to, each: each)
            return nil
        } catch let error as PredictionError {
            return error.description
        } catch {
            return "\(patient): \(error)"
        }
    }

    /// Every patient's predictions, sorted by patient.
    public func predict(_ patients: [PatientData]) -> [PatientPrediction] {
        patients.sorted { $0.patient < $1.patient }.map { predict($0.patient, log: $0.log) }
    }
}
