import Foundation

/// A clinician's report for one patient over one period, computed from their log and their
/// trained models; `html` renders it as one self-contained page (see `PatientReport+HTML`).
///
/// What it holds: the consensus CGM metrics and AGP (`CGMMetrics`), the
/// time-in-ranges bar, a chart per day with the shortest horizon's evolved-model predictions,
/// the accuracy of every model and baseline on the period, the error grids, the predicted lows
/// and highs, an optional dose audit, and each horizon's model in readable form.
public struct PatientReport: Sendable {
    public var patient: PatientID
    public var period: DateInterval
    public var clock: ReportClock
    public var metrics: CGMMetrics
    public var agp: AmbulatoryGlucoseProfile
    public var days: [DailyTrace]
    /// One per horizon, by horizon.
    public var models: [GlucoseModel]
    /// How each horizon's model answers 1 U of insulin and 10 g of carbohydrate over the period's
    /// moments (empty without predictions).
    public var responses: [Int: ModelResponse] = [:]
    /// Accuracy on the report period, per horizon and model (empty without predictions).
    public var accuracy: [ReportAccuracy]
    /// The horizon whose evolved-model predictions are drawn in the charts and grids.
    public var chartHorizon: Int?
    /// (reference, prediction) pairs of the evolved model at `chartHorizon`.
    public var gridPairs: [GlucosePair]
    /// The most pairs an error grid draws (evenly spaced; the zones count all): more than a default
    /// 14-day period's 4,032. A year's report drew 206,422, 64% of an 18 MB page (hunt AJ, stop 58).
    public var maximumDrawnPairs = 5_000
    public var predictedEpisodes: [PredictedEpisode]
    /// Nil when no dose settings were given; the section then says so.
    public var doseAudit: ReportDoseAudit?
    /// The settings the data supports (`glucomodel-predict settings`), when dose settings were given.
    public var settingsCheck: ReportSettingsCheck?
    /// Things the reader must know about missing parts (e.g. why there are no predictions).
    public var notes: [String]
    /// The unit every glucose is printed in (computed in mg/dL throughout).
    public var units: GlucoseUnit = .mgdL
    /// The paper the print layout is made for (`@page size`).
    public var paper: PaperSize = .a4
    /// The period's CGM runs at the sensor's limits and flat lines (`metrics.sensorLimitRuns`).
    public var sensorLimitRuns: [SensorLimitRun] { metrics.sensorLimitRuns }
    /// Whether predictions whose measured reference lies in a sensor-limit run were scored.
    public var keepSensorLimits: Bool

    /// The models' prediction name for the evolved model.
    public static let evolvedModel = ModelKind.ge.rawValue

    /// Computes a report.
    /// - Parameters:
    ///   - log: the patient's data (the whole log: predictions use the history before the period).
    ///   - period: what the report covers (`ReportPeriod.resolve`).
    ///   - timeZone: the clock days, charts and times are shown on.
    /// - Throws: `ReportError.noReadingsInPeriod` when the period holds no CGM reading.
    ///   Predictions that cannot be made (e.g. a model reads carbohydrates the data lacks) do not
    ///   throw: the report is made without them and `notes` says why.
    ///   - keepSensorLimits: score predictions against readings in sensor-limit runs too
    ///     (by default those pairs are left out of the accuracy and the grids).
    public init(log: PatientLog, models: ModelSet, period: DateInterval, timeZone: TimeZone = TimeZone(identifier: "UTC")!,
                doseAudit: ReportDoseAudit? = nil, keepSensorLimits: Bool = false) throws {
        self.keepSensorLimits = keepSensorLimits
        patient = log.patient
        self.period = period
        clock = ReportClock(timeZone: timeZone)
        let readings = log.glucose.filter { $0.source == .cgm && $0.time >= period.start && $0.time < period.end }
        guard !readings.isEmpty else {
            throw ReportError.noReadingsInPeriod(log.patient, from: period.start, to: period.end, timeZone: timeZone)
        }
        let series = GlucoseSeries(readings: readings, period: period)
        metrics = CGMMetrics(series: series)
        agp = AmbulatoryGlucoseProfile(series: series, timeZone: timeZone)
        self.models = models.horizons.map { models.models[$0]! }
        self.doseAudit = doseAudit
        notes = []
        var rows: [PredictionRow] = []
        do {
            rows = try Predictor(models: models).predict(log, from: period.start, to: period.end.addingTimeInterval(-1))
        } catch {
            notes.append("No predictions for this period: \(error)")
        }
        if let seenUntil = self.models.map({ $0.training.validationTo }).max(), period.start < seenUntil, !rows.isEmpty {
            notes.append("The models were trained and selected on data up to \(clock.dateTime(seenUntil)); "
                         + "accuracy on the part of this period before then is optimistic.")
        }
        // One whose time could not be read: when it may be in the period.
        let skipped = log.skippedInsulin.filter { $0.time <= period.end && $0.latest >= period.start }
        if let note = Self.skippedInsulinNote(skipped, clock: clock) { notes.append(note) }
        if let note = Self.interleavedSensorsNote(readings, clock: clock) { notes.append(note) }
        // Audit 38: a prediction clamped at the model's limit was listed as a real predicted low.
        let atLimit = Dictionary(grouping: rows.filter { $0.model == Self.evolvedModel && GlucoseModel.isAtLimit($0.prediction) },
                                 by: \.horizonMinutes)
        if !atLimit.isEmpty {
            let counts = atLimit.keys.sorted().map { "\(atLimit[$0]!.count) at \($0) minutes" }.joined(separator: ", ")
            notes.append("Some predictions are at the limit of what a model may predict (\(counts)): the model was evaluated "
                         + "beyond its training data there, and those values (and the lows or highs they make) are no basis for "
                         + "insulin. Retrain the models.")
        }
        let byBase = Dictionary(grouping: rows.filter { $0.model == Self.evolvedModel && $0.baseAlone }, by: \.horizonMinutes)
        if !byBase.isEmpty {
            let counts = byBase.keys.sorted().map { "\(byBase[$0]!.count) at \($0) minutes" }.joined(separator: ", ")
            notes.append("Some predictions are the ARX model's alone (\(counts)): there the evolved expression was not finite "
                         + "or beyond the range of its training days, as on a flat sensor line. Retrain the models if this recurs.")
        }
        if !rows.isEmpty {
            // The moments the predictions were made at, on the series they were made from.
            let inputs = Predictor(models: models).series(log, from: period.start)
            let steps = inputs.steps(from: period.start, to: period.end.addingTimeInterval(-1))
            for model in self.models where !steps.isEmpty {
                responses[model.horizonMinutes] = ModelResponse(model: model, table: model.features.table(inputs, steps: steps, requireTarget: false))
            }
        }
        let runs = metrics.sensorLimitRuns
        let scored = keepSensorLimits || runs.isEmpty ? rows : rows.filter { !runs.cover($0.targetTime) }
        accuracy = ReportAccuracy.from(scored)
        if let note = Self.worseThanPersistenceNote(scored) { notes.append(note) }
        let shortest = models.horizons.first
        chartHorizon = rows.isEmpty ? nil : shortest
        let chartRows = rows.filter { $0.model == Self.evolvedModel && $0.horizonMinutes == shortest }
        gridPairs = scored.filter { $0.model == Self.evolvedModel && $0.horizonMinutes == shortest }.compactMap { r in r.reference.map { GlucosePair(reference: $0, prediction: r.prediction) } }
        predictedEpisodes = PredictedEpisode.find(rows, model: Self.evolvedModel, step: models.seriesOptions.step)
        days = DailyTrace.split(log: log, predictions: chartRows.map { ($0.targetTime, $0.prediction) },
                                horizon: chartHorizon, period: period, clock: clock,
                                bands: chartRows.compactMap { r in r.bounds.map { (r.targetTime, $0.lower80, $0.upper80) } })
    }

    /// The note for horizons at which the evolved model's predictions over the period are less
    /// accurate than persistence's (`PersistenceCheck`: a day of rows or more, persistence's RMSE at
    /// least 1 mg/dL): the model meets data unlike its training data. Hunt AE (stop 56): boluses went
    /// on with meals no longer logged, and the 30-minute RMSE went from 11.9 to 25.4 mg/dL,
    /// persistence's 16.5, while the summary gave the test days' 11.2 and nothing said so.
    static func worseThanPersistenceNote(_ rows: [PredictionRow]) -> String? {
        PersistenceCheck(rows).finding(predicts: "predicts", above: "above persistence's").map {
            "On this period " + $0 + ". Check the records, and retrain the models on recent data; until then its "
                + "predictions and doses are no better than the CGM's own reading."
        }
    }

    /// A note when CGM readings of two sensors interleave in the period (`InterleavedSensors`): the
    /// metrics, episodes and charts mix them (hunt BL, stop 62: a Libre 20 mg/dL above a Dexcom broke
    /// every run below 54 into pieces too short to count: no level 2 episode where the Dexcom had 3).
    static func interleavedSensorsNote(_ readings: [GlucoseReading], clock: ReportClock) -> String? {
        let found = InterleavedSensors.find(readings)
        guard found.episodes >= InterleavedSensors.minimumEpisodes, let first = found.pairs.first else { return nil }
        let days = Set(found.pairs.map { clock.date($0.1.time) }).count
        return "CGM readings of two sensors interleave on \(Plural.of(days, "day")) from \(clock.dateTime(first.0.time)) "
            + "(\(Plural.of(found.pairs.count, "pair")) of readings minutes apart and 15 mg/dL or more apart, as one sensor never "
            + "reads): a Dexcom and a Libre imported together? The time in ranges, the episodes and the charts mix both sensors "
            + "(a run below 54 breaks into pieces too short to count), and a dose is refused. Keep one sensor's data and make "
            + "the report again."
    }

    /// The note for insulin records the import skipped in the period (`PatientLog.skippedInsulin`),
    /// or nil without any. It gives their kinds and times, not their files: a file's name may
    /// carry the person's (the import's warnings and a refused dose name file and line).
    static func skippedInsulinNote(_ skipped: [SkippedInsulin], clock: ReportClock) -> String? {
        guard !skipped.isEmpty else { return nil }
        var counts: [(noun: (one: String, many: String), count: Int)] = []
        for s in skipped {
            if let i = counts.firstIndex(where: { $0.noun == s.noun }) { counts[i].count += 1 } else { counts.append((s.noun, 1)) }
        }
        let ahead = skipped.filter(\.datedAfterImport).count, unread = skipped.filter { $0.unreadTime != nil }.count
        let conflicting = skipped.filter { $0.conflictingAmount != nil }.count
        let first = skipped.first { $0.unreadTime == nil }
        return "Insulin records skipped at import in this period: "
            + counts.map { Plural.of($0.count, $0.noun.one, plural: $0.noun.many) }.joined(separator: ", ")
            + (first.map { " (the first a \($0.noun.one) at \(clock.dateTime($0.time)))" } ?? "")
            + (ahead > 0 ? ", \(ahead) of them dated after their import (a device clock running ahead)" : "")
            + (unread > 0 ? ", \(unread) of them with a time that could not be read" : "")
            + (conflicting > 0 ? ", \(conflicting) of them dropped beside another of another amount at the same instant "
                + "(both given, or one written twice?)" : "")
            + ". Their amounts are unknown: the predictions after them read no insulin there, and a dose asked for within "
            + "the insulin's action after one is refused. Correct them in the exported files and import the files again."
    }

    /// The evolved model's accuracy at `chartHorizon` on the period, if predicted.
    public var chartAccuracy: ReportAccuracy? {
        accuracy.first { $0.horizonMinutes == chartHorizon && $0.model == Self.evolvedModel }
    }

    /// The model file's own accuracy on its test days, per horizon and model.
    public var testMetrics: [(horizonMinutes: Int, metrics: SplitMetrics)] {
        models.flatMap { m in m.metrics.filter { $0.split == "test" }.map { (m.horizonMinutes, $0) } }
    }

    /// The evolved model's test RMSE per horizon, from the model files.
    public var testRMSE: [Int: Double] {
        var out: [Int: Double] = [:]
        for (h, m) in testMetrics where m.model == Self.evolvedModel { out[h] = m.rmse }
        return out
    }

    /// Writes `html` to `url` atomically (a reader never sees half a report).
    public func write(to url: URL) throws {
        try AtomicTextFile.write(Data(html.utf8), to: url)
    }
}
