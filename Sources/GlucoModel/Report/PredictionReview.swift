import Foundation

/// Accuracy of one model at one horizon over a report period: every prediction with a
/// measured reference at its target time.
public struct ReportAccuracy: Sendable {
    public var horizonMinutes: Int
    /// `ge`, `arx`, `average` or `persistence`.
    public var model: String
    public var metrics: AccuracyMetrics
    public var clarke: ZoneCounts
    public var parkes: ZoneCounts

    /// Groups prediction rows by horizon and model, in horizon order and then the rows' model
    /// order; rows without a reference are left out.
    public static func from(_ rows: [PredictionRow]) -> [ReportAccuracy] {
        var pairs: [String: [GlucosePair]] = [:]
        var keys: [(Int, String)] = []
        for row in rows {
            guard let reference = row.reference else { continue }
            let key = "\(row.horizonMinutes)|\(row.model)"
            if pairs[key] == nil { keys.append((row.horizonMinutes, row.model)) }
            pairs[key, default: []].append(GlucosePair(reference: reference, prediction: row.prediction))
        }
        let order = Dictionary(keys.enumerated().map { ($1.1, $0) }, uniquingKeysWith: min)
        return keys.sorted { ($0.0, order[$0.1]!) < ($1.0, order[$1.1]!) }.map { h, model in
            let p = pairs["\(h)|\(model)"]!
            return ReportAccuracy(horizonMinutes: h, model: model, metrics: AccuracyMetrics(pairs: p),
                                  clarke: ZoneCounts(grid: .clarke, pairs: p), parkes: ZoneCounts(grid: .parkesType1, pairs: p))
        }
    }
}

/// A run of consecutive predictions of one horizon below the low threshold or above the high one.
public struct PredictedEpisode: Sendable, Equatable {
    public typealias Kind = GlucoseExcursion

    public var kind: Kind
    public var horizonMinutes: Int
    /// Target time of the first and the last prediction of the run.
    public var start: Date
    public var end: Date
    /// When the first prediction of the run was made (`start - horizon`).
    public var issuedAt: Date
    /// The lowest (low) or highest (high) predicted value, mg/dL, and its target time.
    public var predicted: Double
    public var predictedAt: Date
    /// The glucose measured at `predictedAt`, when known.
    public var actualAtPredicted: Double?
    /// The lowest (low) or highest (high) measured value over the run's target times.
    public var actualExtreme: Double?

    /// Whether the measured glucose crossed the threshold too during the run; nil without
    /// any measured value.
    public func confirmed(low: Double = PredictedEpisode.lowThreshold, high: Double = PredictedEpisode.highThreshold) -> Bool? {
        actualExtreme.map { kind == .low ? $0 < low : $0 > high }
    }

    /// Predicted lows: below 70 mg/dL (hypoglycaemia level 1); highs: above 250 mg/dL (TAR level 2).
    public static let lowThreshold = 70.0
    public static let highThreshold = 250.0

    /// The episodes of one model's predictions (`ge` by default), per horizon in time order:
    /// a run is consecutive predictions (target times at most `step` apart, or the usual time
    /// between the rows' predictions when longer: a 15-minute CGM's, `IssueSpacing`) strictly below
    /// `low` (or strictly above `high`).
    public static func find(_ rows: [PredictionRow], model: String = ModelKind.ge.rawValue, step: TimeInterval = 300,
                            low: Double = lowThreshold, high: Double = highThreshold) -> [PredictedEpisode] {
        let byHorizon = Dictionary(grouping: rows.filter { $0.model == model && $0.prediction.isFinite }, by: \.horizonMinutes)
        let step = IssueSpacing.of(byHorizon.values.flatMap { $0 }, atLeast: step)
        return byHorizon.keys.sorted().flatMap { h in
            ExcursionRun.runs(in: byHorizon[h]!, thresholds: AlertThresholds(low: low, high: high), step: step).map { run in
                run.rows.dropFirst().reduce(into: PredictedEpisode(kind: run.kind, first: run.rows.first!)) { $0.extend(with: $1) }
            }
        }
    }

    init(kind: Kind, first row: PredictionRow) {
        self.kind = kind
        horizonMinutes = row.horizonMinutes
        start = row.targetTime
        end = row.targetTime
        issuedAt = row.issuedAt
        predicted = row.prediction
        predictedAt = row.targetTime
        actualAtPredicted = row.reference
        actualExtreme = row.reference
    }

    mutating func extend(with row: PredictionRow) {
        end = row.targetTime
        if kind == .low ? row.prediction < predicted : row.prediction > predicted {
            predicted = row.prediction
            predictedAt = row.targetTime
            actualAtPredicted = row.reference
        }
        if let r = row.reference {
            actualExtreme = actualExtreme.map { kind == .low ? min($0, r) : max($0, r) } ?? r
        }
    }
}
