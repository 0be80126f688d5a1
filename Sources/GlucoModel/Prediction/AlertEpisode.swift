import Foundation

/// A predicted low or high as one alert: a run of the evolved model's predictions of one
/// horizon strictly beyond a threshold, consecutive in target time, with what the CGM measured
/// over the same target times. One episode replaces the one-alert-per-prediction list (a
/// two-hour predicted low at 5-minute steps was 24 alerts).
public struct AlertEpisode: Sendable, Hashable {
    public typealias Kind = GlucoseExcursion

    public var patient: PatientID
    public var kind: Kind
    public var horizonMinutes: Int
    /// The threshold the predictions are beyond (strictly: a prediction of exactly 70.0 is no low).
    public var threshold: Double
    /// When the first prediction of the run was issued.
    public var firstIssuedAt: Date
    /// Target times of the run's first and last prediction.
    public var start: Date
    public var end: Date
    public var predictions: Int
    /// The lowest (low) or highest (high) prediction, mg/dL.
    public var predictedExtreme: Double
    /// The lowest (low) or highest (high) CGM reading at the run's target times; nil when none is known yet.
    public var measuredExtreme: Double?
    /// When the CGM went beyond the threshold in the run it confirms: the first reading of the
    /// CGM's own run beyond the threshold that holds the run's first target time with a reading
    /// beyond it (with the CGM's readings, `episodes(in:thresholds:step:glucose:)`; else that target
    /// time). Before the first issue when the alert came with the low already under way.
    public var measuredCrossing: Date?

    /// Whether the CGM crossed the threshold during the run; nil when nothing was measured.
    public var confirmed: Bool? {
        measuredExtreme.map { kind == .low ? $0 < threshold : $0 > threshold }
    }

    /// Minutes from the first alert to the CGM's own crossing (how much warning it gave);
    /// nil when the CGM did not cross. Negative when the CGM crossed before the alert was issued
    /// (an alert of a low already under way: 48 mg/dL at the issue, 40 minutes after the crossing, is -40).
    public var leadMinutes: Double? { measuredCrossing.map { $0.timeIntervalSince(firstIssuedAt) / 60 } }

    /// The issue time is the second column: the nightly files are cut by it on a re-run.
    public static let csvHeader = csvHeader(units: .mgdL)

    /// The header with the glucose columns in `units` (`_mgdl` or `_mmoll`).
    public static func csvHeader(units: GlucoseUnit) -> String {
        let u = units.columnSuffix
        return "patient,first_issued_at,kind,horizon_min,threshold_\(u),start,end,predictions,"
            + "predicted_extreme_\(u),measured_extreme_\(u),confirmed,lead_time_min"
    }

    public var csvLine: String { csvLine(units: .mgdL) }

    /// The episode as CSV, glucose in `units` (one decimal in mg/dL, two in mmol/L). The predicted
    /// extreme, beyond the threshold, never prints as it: it gains decimals until it differs (an
    /// alert "11.00" above 11.00 mmol/L; hunt AD, stop 56), as the report's do.
    public func csvLine(units: GlucoseUnit) -> String {
        func g(_ v: Double) -> String { PredictionCSV.glucose(v, units, mgdLDecimals: 1) }
        let extreme = g(predictedExtreme) == g(threshold) ? units.format(predictedExtreme, apartFrom: threshold, mgdLDecimals: 1) : g(predictedExtreme)
        return [patient.rawValue, PredictionCSV.iso8601(firstIssuedAt), kind.rawValue, String(horizonMinutes),
                g(threshold), PredictionCSV.iso8601(start), PredictionCSV.iso8601(end), String(predictions),
                extreme, measuredExtreme.map(g) ?? "",
                confirmed.map { $0 ? "yes" : "no" } ?? "", leadMinutes.map { PredictionCSV.fixed($0, decimals: 0) } ?? ""].joined(separator: ",")
    }

    /// The episodes among `rows` (only the `ge` model's predictions), per patient and horizon in
    /// target-time order. Two predictions belong to one episode when they are of the same kind
    /// and their target times are at most `step` apart: the usual time between predictions
    /// (`IssueSpacing`), as no prediction lies between them then.
    ///
    /// With `glucose` (the patient's CGM readings in time order) the CGM's crossing is walked back
    /// from the run's first confirmed target time through the readings beyond the threshold
    /// (readings at most three times `step` apart): the rows alone hold the CGM at target times
    /// only, all a horizon or more after the first issue, so an alert of a low already under way read
    /// as a full horizon of warning.
    public static func episodes(in rows: [PredictionRow], thresholds: AlertThresholds, step: TimeInterval = 300,
                                glucose: [GlucoseReading] = []) -> [AlertEpisode] {
        let ge = rows.filter { isExcursion($0, thresholds) }
        let groups = Dictionary(grouping: ge) { "\($0.patient.rawValue)|\($0.horizonMinutes)" }
        let out = groups.keys.sorted().flatMap { key in
            ExcursionRun.runs(in: groups[key]!, thresholds: thresholds, step: step).map { run in
                var e = run.rows.dropFirst().reduce(into: AlertEpisode(kind: run.kind, threshold: run.kind == .low ? thresholds.low : thresholds.high,
                                                                       first: run.rows.first!)) { $0.extend(with: $1) }
                e.walkCrossingBack(through: glucose, maxGap: 3 * step + 1)
                return e
            }
        }
        return out.sorted { ($0.patient.rawValue, $0.firstIssuedAt, $0.horizonMinutes) < ($1.patient.rawValue, $1.firstIssuedAt, $1.horizonMinutes) }
    }

    /// Whether `row` is an evolved model's prediction beyond a threshold: the rows episodes are made
    /// of. Another row only ends an episode, as a gap in the target times does, so the episodes of
    /// these rows alone are those of all (nightly keeps only these of a long night).
    public static func isExcursion(_ row: PredictionRow, _ thresholds: AlertThresholds) -> Bool {
        row.model == ModelKind.ge.rawValue && row.prediction.isFinite && thresholds.excursion(row.prediction) != nil
    }

    init(kind: Kind, threshold: Double, first row: PredictionRow) {
        patient = row.patient
        self.kind = kind
        horizonMinutes = row.horizonMinutes
        self.threshold = threshold
        firstIssuedAt = row.issuedAt
        start = row.targetTime
        end = row.targetTime
        predictions = 0
        predictedExtreme = row.prediction
        extend(with: row)
    }

    /// Moves `measuredCrossing` back to the first reading of the CGM's run beyond the threshold
    /// that holds it (`glucose` in time order; consecutive readings at most `maxGap` apart).
    mutating func walkCrossingBack(through glucose: [GlucoseReading], maxGap: TimeInterval) {
        guard let crossing = measuredCrossing else { return }
        func beyond(_ g: GlucoseReading) -> Bool { kind == .low ? g.value.mgdL < threshold : g.value.mgdL > threshold }
        // The last reading at or before the crossing target time.
        let after = PatientLog.firstIndex(glucose, atOrAfter: crossing)
        var i = after < glucose.count && glucose[after].time == crossing ? after : after - 1
        guard i >= 0, beyond(glucose[i]), crossing.timeIntervalSince(glucose[i].time) <= maxGap else { return }
        while i > 0, beyond(glucose[i - 1]), glucose[i].time.timeIntervalSince(glucose[i - 1].time) <= maxGap { i -= 1 }
        measuredCrossing = min(crossing, glucose[i].time)
    }

    mutating func extend(with row: PredictionRow) {
        end = row.targetTime
        predictions += 1
        firstIssuedAt = min(firstIssuedAt, row.issuedAt)
        predictedExtreme = kind == .low ? min(predictedExtreme, row.prediction) : max(predictedExtreme, row.prediction)
        guard let r = row.reference, r.isFinite else { return }
        measuredExtreme = measuredExtreme.map { kind == .low ? min($0, r) : max($0, r) } ?? r
        if measuredCrossing == nil, kind == .low ? r < threshold : r > threshold { measuredCrossing = row.targetTime }
    }
}

/// A run of predictions beyond one threshold: what an alert episode (`AlertEpisode`, nightly's)
/// and a predicted low or high (`PredictedEpisode`, the report's) are made of.
public struct ExcursionRun: Sendable {
    public var kind: GlucoseExcursion
    /// The run's predictions in target-time order (at least one).
    public var rows: ArraySlice<PredictionRow>

    /// The runs among `rows` (one patient's, model's and horizon's; any order): consecutive
    /// predictions strictly beyond a threshold on the same side, target times at most `step` apart.
    /// A prediction within both thresholds, or a longer gap, ends a run.
    public static func runs(in rows: [PredictionRow], thresholds: AlertThresholds, step: TimeInterval) -> [ExcursionRun] {
        let sorted = rows.sorted { $0.targetTime < $1.targetTime }
        var runs: [ExcursionRun] = []
        var start = 0, open: GlucoseExcursion?
        for (i, row) in sorted.enumerated() {
            let kind = thresholds.excursion(row.prediction)
            let contiguous = i > 0 && row.targetTime.timeIntervalSince(sorted[i - 1].targetTime) <= step + 1
            if let k = open, k == kind, contiguous { continue }
            if let k = open { runs.append(ExcursionRun(kind: k, rows: sorted[start..<i])) }
            open = kind
            start = i
        }
        if let k = open { runs.append(ExcursionRun(kind: k, rows: sorted[start...])) }
        return runs
    }
}

/// The usual time between a model's consecutive predictions of one horizon: the grid step with a
/// CGM that reads every 5 minutes, 15 minutes with one that reads every 15 (a LibreView history),
/// where predictions are issued only at readings. Predictions that far apart are consecutive, so
/// two of them beyond a threshold are one episode (`AlertEpisode`, `PredictedEpisode`): with the
/// grid step alone, a 15-minute CGM's 3-hour low was 12 one-prediction alerts.
public struct IssueSpacing: Sendable {
    /// How many times each gap (whole seconds) occurred, and the last issue moment per horizon.
    private var counts: [Int: Int] = [:]
    private var last: [Int: Date] = [:]

    public init() {}

    /// Counts `row`'s gap from the previous row of its horizon given (rows in issue order per horizon).
    public mutating func add(_ row: PredictionRow) {
        defer { last[row.horizonMinutes] = row.issuedAt }
        guard let previous = last[row.horizonMinutes], row.issuedAt > previous else { return }
        counts[Int(row.issuedAt.timeIntervalSince(previous).rounded()), default: 0] += 1
    }

    /// The most common gap (the shorter of a tie), at least `step` (the grid's); `step` with none.
    public func usual(atLeast step: TimeInterval) -> TimeInterval {
        guard let mode = counts.max(by: { ($0.value, -$0.key) < ($1.value, -$1.key) }) else { return step }
        return max(step, TimeInterval(mode.key))
    }

    /// The usual gap of `rows` (one model's; any order).
    public static func of(_ rows: [PredictionRow], atLeast step: TimeInterval) -> TimeInterval {
        var spacing = IssueSpacing()
        for row in rows.sorted(by: { ($0.horizonMinutes, $0.issuedAt) < ($1.horizonMinutes, $1.issuedAt) }) { spacing.add(row) }
        return spacing.usual(atLeast: step)
    }
}
