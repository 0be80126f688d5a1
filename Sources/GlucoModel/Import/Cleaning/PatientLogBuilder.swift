import Foundation

/// A record with where it was read, so later checks can name the line.
public struct Located<Record: Sendable>: Sendable {
    public var record: Record
    public var location: SourceLocation
    public init(_ record: Record, _ location: SourceLocation) { self.record = record; self.location = location }
}

/// Collects the records one import reads and applies the rules every importer shares:
/// times read in `options.timeZone` with daylight-saving cases resolved by `LocalTimeResolver`;
/// rows dated after `options.now` or before `ImportLimits.earliest` skipped; values checked against
/// `ImportLimits`; at the end every list sorted by time and de-duplicated (`DuplicatePolicy`).
/// Every decision is counted in the `ImportSummary`; skipped rows also get a warning naming the
/// file, line and field (the first `maxIssuesPerReason` per reason, so memory stays bounded on a
/// file full of bad rows; the counts are always exact). Used by all six importers.
public struct PatientLogBuilder: Sendable {
    public static let maxIssuesPerReason = 100
    /// Records per batch sent to `options.recordSink`.
    public static let batchSize = 10_000

    /// The file name used in every `SourceLocation`.
    public var file: String
    public var options: ImportOptions
    public var summary: ImportSummary
    public var otherRecords: [String: Int] = [:]
    public var insulinKind: InsulinKind = .unknown
    public var duplicates: DuplicatePolicy
    var resolver: LocalTimeResolver
    private var issuesPerReason: [String: Int] = [:]

    var glucose: [Located<GlucoseReading>] = []
    var boluses: [Located<Bolus>] = []
    var basalRates: [Located<BasalRate>] = []
    var temporaryBasals: [Located<TemporaryBasal>] = []
    var basalInjections: [Located<BasalInjection>] = []
    var carbs: [Located<CarbIntake>] = []
    var exercise: [Located<ExerciseSession>] = []
    var weights: [Located<WeightRecord>] = []
    var heartRate: [Located<HeartRateSample>] = []
    /// Where records go in batches (`options.recordSink`); temporary basals stay here until `build`
    /// (importers amend them after reading, e.g. Nightscout's cancels).
    let sink: (any RecordSink)?
    private var pending = 0
    private var earliest: Date?
    /// Glucose numbers read, and those that look like the other unit: below 30 read as mg/dL (a
    /// mmol/L value), above 35 read as mmol/L (a mg/dL value). `build` refuses a file where most do.
    var glucoseNumbers = 0, mmolLookingMgdL = 0, mgdLLookingMmol = 0

    public init(file: String, options: ImportOptions, duplicates: DuplicatePolicy = .sameInstant) {
        self.file = file
        self.options = options
        self.duplicates = duplicates
        summary = ImportSummary(file: file)
        resolver = LocalTimeResolver(timeZone: options.timeZone)
        sink = options.recordSink
    }

    public func location(_ line: Int?, _ field: String? = nil) -> SourceLocation {
        SourceLocation(file: file, line: line, field: field)
    }

    public func error(_ line: Int?, _ field: String?, _ message: String) -> InputError {
        InputError(location(line, field), message)
    }

    /// Records a skipped row with a warning: `reason` is the summary key, `message` says what was expected.
    public mutating func skip(_ reason: String, at location: SourceLocation, _ message: String) {
        let n = issuesPerReason[reason, default: 0]
        issuesPerReason[reason] = n + 1
        if n < Self.maxIssuesPerReason {
            summary.skip(reason, ImportIssue(.warning, location, message))
        } else {
            summary.skip(reason)
        }
    }

    public mutating func skip(_ reason: String, line: Int?, field: String?, _ message: String) {
        skip(reason, at: location(line, field), message)
    }

    /// Skips a row silently apart from the count (expected rows such as a preamble).
    public mutating func skipQuietly(_ reason: String) { summary.skipQuietly(reason) }

    /// Counts a row of a section or kind that is read but not modelled (never an error).
    public mutating func addNotModelled(_ kind: String) {
        otherRecords[kind, default: 0] += 1
        summary.notModelled[kind, default: 0] += 1
    }

    /// A wall-clock time read in `options.timeZone`, daylight-saving cases counted as adjusted.
    public mutating func instant(_ local: WallClockTime) -> Date {
        let r = resolver.resolve(local)
        if let reason = r.adjustment { summary.adjust(reason) }
        return r.date
    }

    /// The instant of a written timestamp: its own offset when it has one, else `instant(_:)` of its wall-clock time.
    public mutating func instant(_ written: WrittenTimestamp) -> Date {
        written.instant ?? instant(written.local)
    }

    /// Whether a time can be kept: not after `options.now` and not before `ImportLimits.earliest`
    /// (else the row is skipped as `future-dated` or `dated before 1990`, with a warning).
    public mutating func acceptTime(_ date: Date, at location: SourceLocation) -> Bool {
        if date > options.now {
            skip("future-dated", at: location,
                 "time \(date.iso8601) is after the import time; expected a past date; skipped")
            return false
        }
        if date < ImportLimits.earliest {
            skip("dated before 1990", at: location, "time is before 1990; expected a recent date; skipped")
            return false
        }
        return true
    }

    public mutating func acceptTime(_ date: Date, line: Int?, field: String?) -> Bool {
        acceptTime(date, at: location(line, field))
    }

    /// Adds a record whose time `acceptTime` accepts (else it is skipped with a warning).
    public mutating func add<R: TimedRecord>(_ record: R, at location: SourceLocation) {
        guard acceptTime(record.time, at: location) else { return }
        switch record {
        case let r as GlucoseReading: glucose.append(Located(r, location))
        case let r as Bolus: boluses.append(Located(r, location))
        case let r as BasalRate: basalRates.append(Located(r, location))
        case let r as TemporaryBasal: temporaryBasals.append(Located(r, location))
        case let r as BasalInjection: basalInjections.append(Located(r, location))
        case let r as CarbIntake: carbs.append(Located(r, location))
        case let r as ExerciseSession: exercise.append(Located(r, location))
        case let r as WeightRecord: weights.append(Located(r, location))
        case let r as HeartRateSample: heartRate.append(Located(r, location))
        default: preconditionFailure("unknown record type \(R.self)")
        }
        if R.kind != .weight, earliest.map({ record.time < $0 }) ?? true { earliest = record.time }
        guard sink != nil, R.kind != .temporaryBasal else { return }
        pending += 1
        if pending >= Self.batchSize { flush(includingTemporaryBasals: false) }
    }

    /// Sends the records held to the sink (all but temporary basals unless told) and forgets them.
    mutating func flush(includingTemporaryBasals: Bool) {
        guard let sink else { return }
        var batch = RecordBatch()
        batch.duplicates = duplicates
        swap(&batch.glucose, &glucose); swap(&batch.boluses, &boluses); swap(&batch.basalRates, &basalRates)
        swap(&batch.basalInjections, &basalInjections); swap(&batch.carbs, &carbs); swap(&batch.exercise, &exercise)
        swap(&batch.weights, &weights); swap(&batch.heartRate, &heartRate)
        if includingTemporaryBasals { swap(&batch.temporaryBasals, &temporaryBasals) }
        pending = 0
        if batch.count > 0 { sink.receive(batch) }
    }

    public mutating func add<R: TimedRecord>(_ record: R, line: Int?, field: String?) {
        add(record, at: location(line, field))
    }

    /// Adds a censored reading at the sensor limit (40 or 400 mg/dL), counted as adjusted.
    public mutating func addCensored(_ c: Censoring, time: Date, source: GlucoseSource, at location: SourceLocation) {
        let value = c == .belowRange ? Censoring.lowLimit : Censoring.highLimit
        summary.adjust(c == .belowRange ? "censored Low kept at 40 mg/dL" : "censored High kept at 400 mg/dL")
        add(GlucoseReading(time: time, value: value, source: source, censoring: c), at: location)
    }

    /// Sorts, removes duplicates (`duplicates`), and returns the log of `patient` with the final summary.
    /// With a `RecordSink`, the records go to the sink instead (see `RecordSink.close()`).
    /// - Throws: `InputError` when most glucose values look like the other unit (`unitMixUp`): a
    ///   file of mmol/L values read as mg/dL would train, dose and report on nonsense.
    public func build(patient: PatientID) throws -> ImportResult {
        if let mixUp = unitMixUp() { throw mixUp }
        if let sink {
            var rest = self
            rest.flush(includingTemporaryBasals: true)
            sink.close()
            var log = PatientLog(patient: patient)
            log.otherRecords = otherRecords
            log.insulinKind = insulinKind
            return ImportResult(log: log, summary: summary)
        }
        var summary = self.summary
        var log = PatientLog(patient: patient)
        var lines: [RecordKind: [Int?]] = [:]
        let policy = duplicates
        func take<R: TimedRecord>(_ items: [Located<R>]) -> [R] {
            let kept = Self.clean(items, &summary, policy: policy)
            lines[R.kind] = kept.map(\.location.line)
            return kept.map(\.record)
        }
        log.glucose = take(glucose)
        log.boluses = take(boluses)
        log.basalRates = take(basalRates)
        log.temporaryBasals = take(temporaryBasals)
        log.basalInjections = take(basalInjections)
        log.carbs = take(carbs)
        log.exercise = take(exercise)
        log.weights = take(weights)
        log.heartRate = take(heartRate)
        log.otherRecords = otherRecords
        log.insulinKind = insulinKind
        summary.recordsKept = log.recordCount
        return ImportResult(log: log, summary: summary, sourceLines: lines)
    }

    /// Counts a glucose number read in `unit` for the unit check of `build`.
    mutating func countGlucose(_ v: Double, unit: GlucoseUnit) {
        glucoseNumbers += 1
        if unit == .mgdL, v < 30 { mmolLookingMgdL += 1 }
        if unit == .mmolL, v > 35 { mgdLLookingMmol += 1 }
    }

    /// The error for a file whose glucose numbers mostly look like the other unit (at least 3
    /// numbers, more than half of them), or nil.
    func unitMixUp() -> InputError? {
        guard glucoseNumbers >= 3 else { return nil }
        let (count, read, other, test) = mmolLookingMgdL >= mgdLLookingMmol
            ? (mmolLookingMgdL, "mg/dL", "mmol/L", "below 30") : (mgdLLookingMmol, "mmol/L", "mg/dL", "above 35")
        guard count * 2 > glucoseNumbers else { return nil }
        return InputError(SourceLocation(file: file),
                          "\(count) of \(glucoseNumbers) glucose values are \(test), as \(other) values are, but they are read as \(read): "
                          + "a unit mix-up; nothing of the file is used (give glucose in \(read), or mark the unit as \(other) where the format has a unit)")
    }

    /// The earliest time among the records added so far (weights aside), also those sent to a sink.
    public var firstRecordTime: Date? { earliest }
}
