import Foundation

/// The evolved model's and persistence's errors per horizon over prediction rows with a measured
/// reference: whether the model predicts less accurately than glucose staying where it is, the sign
/// that its data is no longer like its training data's. Hunt AE (stop 56): with meals no longer
/// logged, boluses going on, the 30-minute RMSE went from 11.9 to 25.4 mg/dL against persistence's
/// 16.5, and `predict`, `nightly` and the report said nothing.
public struct PersistenceCheck: Sendable {
    private var errors: [Int: (model: Double, modelRows: Int, persistence: Double, persistenceRows: Int)] = [:]
    /// Rows whose reference lies in one of these are left out, as training and the report leave them
    /// out: at the sensor's floor for hours persistence is exact and a model cannot be (the bundled
    /// child_003's 169 hours at 40 mg/dL read as the model worse at 60-120 minutes).
    private let sensorLimits: [SensorLimitRun]

    /// The least rows with a reference of each at a horizon to judge it: a day of a 5-minute CGM's.
    public static let minimumRows = 288
    /// The least persistence RMSE judged against (mg/dL): a flat line kept as it is makes any ratio.
    public static let minimumPersistenceRMSE = 1.0

    public init(leavingOut sensorLimits: [SensorLimitRun] = []) { self.sensorLimits = sensorLimits }

    /// The check of `rows`, leaving out none (the report's rows are already without sensor-limit runs).
    public init(_ rows: [PredictionRow]) {
        self.init()
        rows.forEach { add($0) }
    }

    /// The check for `log`'s predictions, leaving out its CGM's runs at the sensor's limits.
    public init(for log: PatientLog) { self.init(leavingOut: SensorLimitDetector().runs(in: log.glucose)) }

    /// Counts `row` if it is the evolved model's or persistence's, with a finite reference outside
    /// the sensor's limit runs.
    public mutating func add(_ row: PredictionRow) {
        let isModel = row.model == ModelKind.ge.rawValue
        guard isModel || row.model == ModelKind.persistence.rawValue, let reference = row.reference, reference.isFinite,
              row.prediction.isFinite, !sensorLimits.cover(row.targetTime) else { return }
        let squared = (row.prediction - reference) * (row.prediction - reference)
        var e = errors[row.horizonMinutes] ?? (0, 0, 0, 0)
        if isModel { e.model += squared; e.modelRows += 1 } else { e.persistence += squared; e.persistenceRows += 1 }
        errors[row.horizonMinutes] = e
    }

    /// The horizons, in order, at which the model's RMSE is above persistence's, each with
    /// `minimumRows` or more and persistence's RMSE at least `minimumPersistenceRMSE`, and by how
    /// many percent (rounded up).
    public var worse: [(horizon: Int, percentAbove: Int)] {
        errors.keys.sorted().compactMap { h in
            let e = errors[h]!
            guard e.modelRows >= Self.minimumRows, e.persistenceRows >= Self.minimumRows else { return nil }
            let model = (e.model / Double(e.modelRows)).squareRoot(), persistence = (e.persistence / Double(e.persistenceRows)).squareRoot()
            guard persistence >= Self.minimumPersistenceRMSE, model > persistence else { return nil }
            return (h, Int((100 * (model / persistence - 1)).rounded(.up)))
        }
    }

    /// What `predict` and `nightly` say of a patient whose model is worse than persistence; nil when it is not.
    public func note(_ patient: PatientID) -> String? {
        finding(predicts: "predicted", above: "above").map {
            "\(patient): " + $0 + "? Check the records, and retrain on recent data (glucomodel-train)"
        }
    }

    /// "the evolved model `predicts` less accurately ... at 30 minutes (its RMSE 55% `above`), ...: its
    /// data is no longer like its training data's (...)", the words `note` and the report share; nil
    /// when the model is not worse.
    func finding(predicts: String, above: String) -> String? {
        let worse = self.worse
        guard !worse.isEmpty else { return nil }
        return "the evolved model \(predicts) less accurately than glucose staying where it is (persistence) at "
            + worse.map { "\($0.horizon) minutes (its RMSE \($0.percentAbove)% \(above))" }.joined(separator: ", ")
            + ": its data is no longer like its training data's (meals or boluses not logged, a pump's or pen's records "
            + "missing, a change of pump, pens or insulin)"
    }
}
