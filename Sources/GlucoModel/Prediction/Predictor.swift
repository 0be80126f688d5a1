import Foundation

/// One prediction: issued at a moment from data up to it only, for `horizonMinutes` later.
public struct PredictionRow: Sendable, Equatable {
    public var patient: PatientID
    public var issuedAt: Date
    public var targetTime: Date
    public var horizonMinutes: Int
    /// `ge`, `arx`, `average` or `persistence`.
    public var model: String
    public var prediction: Double
    /// The glucose measured at the target time, when known.
    public var reference: Double?
    /// The model's 80% and 95% intervals (mg/dL), for the evolved model's rows when the model
    /// file has `intervals`.
    public var bounds: PredictionBounds? = nil
    /// An evolved model's row predicted by its ARX base alone: the expression was not finite or
    /// beyond its training range here (`GlucoseModel.Prediction.baseAlone`). Not a CSV column;
    /// `nightly` counts them.
    public var baseAlone = false

    public static let csvHeader = csvHeader(units: .mgdL)

    /// Whether the row is an evolved model's at the clamp (`GlucoseModel.isAtLimit`: 10 or 600 mg/dL).
    public var isAtLimit: Bool { model == ModelKind.ge.rawValue && GlucoseModel.isAtLimit(prediction) }
    /// Whether the row is an evolved model's made by its ARX base alone (`baseAlone` is set on no other).
    public var isByBaseAlone: Bool { model == ModelKind.ge.rawValue && baseAlone }

    /// What `predict` and `nightly` say of a patient's `count` rows predicted by an ARX base alone.
    public static func baseAloneNote(_ patient: PatientID, count: Int) -> String {
        "\(patient): \(Plural.of(count, "prediction")) by the model's ARX base alone: its evolved expression was not finite or "
            + "beyond the range of its training days at those inputs"
    }

    /// What `predict` and `nightly` say of a patient's `count` evolved-model rows at the clamp
    /// (`GlucoseModel.isAtLimit`: 10 or 600 mg/dL).
    public static func atLimitNote(_ patient: PatientID, count: Int, units: GlucoseUnit = .mgdL) -> String {
        let range = GlucoseModel.plausibleRange
        let limits = units == .mgdL ? "10 or 600 mg/dL"
            : "\(PredictionCSV.glucose(range.lowerBound, units, mgdLDecimals: 1)) or \(PredictionCSV.glucose(range.upperBound, units, mgdLDecimals: 1)) mmol/L"
        return "\(patient): \(Plural.of(count, "prediction")) at the limit of what a model may predict (\(limits)): a model "
            + "evaluated beyond its training data; retrain it (glucomodel-train)"
    }

    /// The header of rows in `units`: `prediction_mgdl,reference_mgdl` or `prediction_mmoll,reference_mmoll`.
    public static func csvHeader(units: GlucoseUnit) -> String {
        "patient,issued_at,target_time,horizon_min,model,prediction_\(units.columnSuffix),reference_\(units.columnSuffix)"
    }

    /// The header with the interval columns `lower_80,upper_80,lower_95,upper_95` (in `units`):
    /// what `predict` writes.
    public static func csvHeader(units: GlucoseUnit, intervals: Bool) -> String {
        csvHeader(units: units) + (intervals ? ",lower_80,upper_80,lower_95,upper_95" : "")
    }

    /// The row as CSV in mg/dL (`csvLine(units:)`).
    public var csvLine: String { csvLine(units: .mgdL) }

    /// The row with the interval columns (empty without bounds), like the prediction's decimals.
    public func csvLine(units: GlucoseUnit, intervals: Bool) -> String {
        let line = csvLine(units: units)
        guard intervals else { return line }
        guard let b = bounds else { return line + ",,,," }
        return line + "," + [b.lower80, b.upper80, b.lower95, b.upper95]
            .map { PredictionCSV.glucose($0, units, mgdLDecimals: 1) }.joined(separator: ",")
    }

    /// The row as CSV: times in UTC ISO 8601, the prediction and the reference with one decimal in
    /// mg/dL (`%.1f`, two in mmol/L), the reference empty when not known. (The reference was whole
    /// mg/dL, one decimal in mmol/L: a 3-minute CGM's value on the 5-minute grid, 86.05, read 86,
    /// and coverage recomputed from the file missed the trainer's by half a point.)
    public func csvLine(units: GlucoseUnit) -> String {
        [patient.rawValue, PredictionCSV.iso8601(issuedAt), PredictionCSV.iso8601(targetTime), String(horizonMinutes), model,
         PredictionCSV.glucose(prediction, units, mgdLDecimals: 1), reference.map { PredictionCSV.glucose($0, units, mgdLDecimals: 1) } ?? ""]
            .joined(separator: ",")
    }
}

/// A prediction's 80% and 95% interval (mg/dL).
public struct PredictionBounds: Sendable, Equatable {
    public var lower80: Double
    public var upper80: Double
    public var lower95: Double
    public var upper95: Double
}

/// Applies a patient's models to their data: for every grid step in a period, each horizon's
/// prediction from data up to that step only, with the evolved model and the baselines.
public struct Predictor: Sendable {
    public let models: ModelSet
    /// Models compared in the output besides `ge`.
    public var baselines: [Baseline] = [.arx, .average, .persistence]
    /// A period starting more than this after the newest reading is stale (seconds).
    public var maximumDataAge: TimeInterval = 30 * 60

    public init(models: ModelSet) { self.models = models }

    /// Refuses data the models cannot use: no glucose, or no records of an input a model reads
    /// (`ModelSet.missingInput(in:)`).
    public func check(_ log: PatientLog) throws {
        guard !log.glucose.isEmpty else { throw PredictionError.noGlucose(models.patient) }
        if let missing = models.missingInput(in: log) { throw PredictionError.missingInput(models.patient, missing) }
    }

    /// Predictions for every step from `from` to `to` (inclusive; default: the whole log).
    /// Steps whose inputs are not known at that moment (a glucose gap) get no prediction, and
    /// neither does a model whose value there is not finite.
    public func predict(_ log: PatientLog, from: Date? = nil, to: Date? = nil) throws -> [PredictionRow] {
        var rows: [PredictionRow] = []
        try predict(log, from: from, to: to) { rows += $0 }
        return rows
    }

    /// The same rows, handed to `each` a chunk at a time (`chunkSteps` grid steps of issue
    /// moments, a week by default), in the same order: a prediction over years of history holds a
    /// week of rows, not all of them. The rows of a step depend only on the series, so the chunks
    /// together are exactly `predict(_:from:to:)`'s rows.
    /// - Throws: `PredictionError.nothingToPredict` when the period holds no step of the data, or
    ///   no step with the inputs the models read (a sensor gap), after `each` got only empty chunks.
    public func predict(_ log: PatientLog, from: Date? = nil, to: Date? = nil, chunkSteps: Int = 7 * 288,
                        each: ([PredictionRow]) throws -> Void) throws {
        try check(log)
        let newest = log.glucose.last!.time
        if let from, from.timeIntervalSince(newest) > maximumDataAge {
            throw PredictionError.staleData(models.patient, newest: newest, wanted: from)
        }
        let series = self.series(log, from: from)
        let steps = series.steps(from: from, to: to)
        guard !steps.isEmpty else {
            throw PredictionError.nothingToPredict(models.patient, reason: "the period holds no step of the data")
        }
        var lower = steps.lowerBound, count = 0
        while lower < steps.upperBound {
            let upper = min(steps.upperBound, lower + max(1, chunkSteps))
            let chunk = rows(series, steps: lower..<upper)
            count += chunk.count
            try each(chunk)
            lower = upper
        }
        guard count > 0 else {
            throw PredictionError.nothingToPredict(models.patient, reason: "no step of the period has the recent glucose the models read (a sensor gap?)")
        }
    }

    /// The series predictions from `from` on are made from: the log from the models' memory
    /// before `from` (`ModelSet.memory`), which gives the rows the whole log gives at the cost of
    /// the period rather than of the history before it; the whole log without `from`.
    public func series(_ log: PatientLog, from: Date?) -> PatientSeries {
        PatientSeries(log: from.map { log.since($0.addingTimeInterval(-models.memory)) } ?? log, options: models.seriesOptions)
    }

    /// The rows of the issue moments `steps`, in order of issue moment, horizon and model.
    func rows(_ series: PatientSeries, steps: Range<Int>) -> [PredictionRow] {
        var rows: [PredictionRow] = []
        for h in models.horizons {
            let model = models.models[h]!
            // Adaptive intervals replay the window before each row: its rows are predicted too, not written.
            let back = model.intervals?.adaptation.map { Int((Double(($0.windowMinutes + h) * 60) / series.step).rounded(.up)) } ?? 0
            let table = model.features.table(series, steps: max(0, steps.lowerBound - back)..<steps.upperBound, requireTarget: false)
            let kinds = ([ModelKind.ge] + baselines.map(\.kind)).sorted()
            let evolved = model.predictions(table)
            let values: [[Double]] = kinds.map { kind in
                switch kind {
                case .ge: return evolved.map(\.glucose)
                case .arx: return model.arx.predict(table)
                case .average: return averagePredictions(table, series: series)
                case .persistence: return persistencePredictions(table)
                }
            }
            let current = table.columns[model.features.names.firstIndex(of: "G0")!]
            let first = table.steps.firstIndex { $0 >= steps.lowerBound } ?? table.rowCount
            let halfWidths = model.intervals?.halfWidths(table, series: series, current: current, predictions: evolved.map(\.glucose),
                                                         targets: first..<table.rowCount, horizonMinutes: h)
            for r in first..<table.rowCount {
                let issued = series.time(at: table.steps[r])
                let target = issued.addingTimeInterval(Double(h) * 60)
                let reference = table.targets[r].isFinite ? table.targets[r] : nil
                // A non-finite value (an expression that overflows on these inputs) is no
                // prediction: the row is left out rather than written as nan.
                for (kind, predicted) in zip(kinds, values) where predicted[r].isFinite {
                    var row = PredictionRow(patient: models.patient, issuedAt: issued, targetTime: target,
                                            horizonMinutes: h, model: kind.rawValue, prediction: predicted[r], reference: reference)
                    if kind == .ge { row.baseAlone = evolved[r].baseAlone }
                    if kind == .ge, let halfWidths, current[r].isFinite, !halfWidths[r - first].h80.isNaN {
                        let i = PredictionIntervals.interval(prediction: predicted[r], halfWidths: halfWidths[r - first])
                        row.bounds = PredictionBounds(lower80: i.lower80, upper80: i.upper80, lower95: i.lower95, upper95: i.upper95)
                    }
                    rows.append(row)
                }
            }
        }
        func order(_ row: PredictionRow) -> Int { ModelKind(rawValue: row.model)?.order ?? ModelKind.allCases.count }
        return rows.sorted {
            ($0.issuedAt, $0.horizonMinutes, order($0)) < ($1.issuedAt, $1.horizonMinutes, order($1))
        }
    }
}
