import Foundation

/// Settings shared by every importer.
public struct ImportOptions: Sendable {
    /// The patient the data belongs to, for formats whose files do not say (or to override them).
    public var patient: PatientID?
    /// Time zone for local times without an offset.
    public var timeZone: TimeZone
    /// Rows dated after this moment are future-dated: skipped with a warning.
    public var now: Date
    /// Forces a day/month order instead of detecting it from the data.
    public var dateOrder: DateOrder?
    /// The order of a file whose dates prove neither (every day 1-12), detected first: nightly's
    /// `--date-order`, over an inbox of many patients' exports, whose other files decide by their
    /// own dates (forced on them, a day-first export of days 10-15 was stored as October).
    public var undecidedDateOrder: DateOrder?
    /// Where a `PatientLogBuilder` made with these options spills its records in batches instead of
    /// keeping them (the store's streaming import); nil keeps the whole log in memory.
    public var recordSink: (any RecordSink)?
    /// The column mapping of a mapped CSV (`MappedCSVImporter`, format `csv`): which column holds
    /// which field, and the glucose unit. Other formats ignore it.
    public var columns: CSVColumnMapping?

    public init(patient: PatientID? = nil, timeZone: TimeZone = .current, now: Date = Date(), dateOrder: DateOrder? = nil) {
        self.patient = patient; self.timeZone = timeZone; self.now = now; self.dateOrder = dateOrder
    }
}

/// A reader for one export format. Implementations stream the file (bounded memory),
/// report every skipped or adjusted row in the summary, and throw `InputError` only when
/// the file as a whole cannot be read.
public protocol PatientDataImporter: Sendable {
    /// A short name for `--format` and messages, e.g. `ohio-xml`.
    static var formatName: String { get }
    /// Whether the start of a file (its first few KiB, decoded as UTF-8) looks like this format.
    static func recognizes(head: String) -> Bool
    /// A reader with default settings (the registry creates importers from their types).
    init()
    func importFile(at url: URL, options: ImportOptions) throws -> ImportResult
    /// Every patient of a file, one result each: a format that names one patient per file reads
    /// exactly one (`importFile`, the default); a mapped CSV with a patient column may hold several.
    func importPatients(at url: URL, options: ImportOptions) throws -> [ImportResult]
}

extension PatientDataImporter {
    public func importPatients(at url: URL, options: ImportOptions) throws -> [ImportResult] {
        [try importFile(at: url, options: options)]
    }
}

/// A batch of records as a builder read them, each list in file order (see `RecordSink`).
public struct RecordBatch: Sendable {
    public var glucose: [Located<GlucoseReading>] = []
    public var boluses: [Located<Bolus>] = []
    public var basalRates: [Located<BasalRate>] = []
    public var temporaryBasals: [Located<TemporaryBasal>] = []
    public var basalInjections: [Located<BasalInjection>] = []
    public var carbs: [Located<CarbIntake>] = []
    public var exercise: [Located<ExerciseSession>] = []
    public var weights: [Located<WeightRecord>] = []
    public var heartRate: [Located<HeartRateSample>] = []
    /// How the builder that sent the batch recognises duplicates.
    public var duplicates: DuplicatePolicy = .sameInstant
    public init() {}

    public var count: Int {
        glucose.count + boluses.count + basalRates.count + temporaryBasals.count + basalInjections.count
            + carbs.count + exercise.count + weights.count + heartRate.count
    }
}

/// Receives the records a `PatientLogBuilder` reads, in batches, instead of the builder keeping
/// them: the builder sends a batch every `PatientLogBuilder.batchSize` records and the rest when it
/// builds, then calls `close()`. Batches arrive in file order; the receiver sorts and cleans (the
/// store does it through SQLite with `TimeOrderTracker` and `DuplicateFilter`, as `clean` does in memory).
public protocol RecordSink: AnyObject, Sendable {
    func receive(_ batch: RecordBatch)
    /// The builder built its result (whose log then holds no records, only patient, insulin kind and
    /// other records; its summary lacks the cleaning counts, which the receiver adds).
    func close()
}
