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
    /// Whether the records' ends are their start plus a duration (every format but OhioT1DM's, which
    /// writes `ts_end`): an end then moves with its start out of a repeated daylight-saving hour.
    public var endsFollowStart = true
    /// The record being read in a JSON export written on one line (`SourceLocation.record`), which
    /// its locations name; nil otherwise.
    public var record: Int?
    var resolver: LocalTimeResolver
    /// Rows of the stream in a repeated daylight-saving hour, decided per run (`RepeatedHourRuns`).
    var repeats = RepeatedHourRuns()
    /// The entries of `repeats` made by the row being read (its records attach to them).
    private var rowRepeats: [(run: Int, entry: Int, first: Date)] = []
    private var rowHasRecords = false
    /// Runs decided while a row was being read: applied once its records are added.
    private var decided: [RepeatedHourRuns.Decision] = []
    /// The runs with rows put in a repeated hour's second pass: per row of the run, its instant
    /// there, or nil for a row of the first pass (`time(of:)`).
    private var secondPasses: [Int: [Date?]] = [:]
    /// Temporary basals' cancels (`cancelTemporaryBasal(at:location:)`), until `endTemporaryBasals`.
    private(set) var cancels: [(time: HeldTime, location: SourceLocation)] = []
    private var issuesPerReason: [String: Int] = [:]
    /// Insulin rows whose time could not be read, bounded by the times around them.
    private var undated = UndatedInsulinBounds()

    var glucose: [Located<GlucoseReading>] = []
    var boluses: [Located<Bolus>] = []
    /// The instants of the boluses read whole (`SkippedInsulin.besideKept`).
    var bolusInstants: Set<Date> = []
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
        SourceLocation(file: file, line: line, field: field, record: record)
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

    /// Skips the file's last row when the file ends inside it (`LineReader.Iterator.endedInsideLine`:
    /// no line break after it) and the row may have been cut short there: it has fewer fields than
    /// the header, or its last field is a number (106 mg/dL cut to 10 reads as a number). A file
    /// still being written, or cut short, ends so. The whole file, once delivered, is another file
    /// and is read in full. (A GlucoModel CSV row may leave out its trailing fields, but not as the
    /// last line of a file without a final line break: cut inside `rations`, `4,` would read as 4 g.)
    /// Returns whether the row was skipped.
    public mutating func skipCutLastRow(_ row: CSVRow, header: Int, endedInsideLine: Bool, line: Int) -> Bool {
        guard Self.mayBeCut(row, header: header, endedInsideLine: endedInsideLine) else { return false }
        skip(Self.cutLastRow, line: line, field: nil, Self.cutLastRowMessage(fields: row.count, header: header))
        return true
    }

    /// Whether `row`, the file's last with no line break after it, may have been cut short there
    /// (`skipCutLastRow`).
    static func mayBeCut(_ row: CSVRow, header: Int, endedInsideLine: Bool) -> Bool {
        endedInsideLine && row.count > 0 && (row.count < header || row.number(row.count - 1) != nil)
    }

    static func cutLastRowMessage(fields: Int, header: Int) -> String {
        "the file ends inside this row (no line break after it, "
            + (fields < header ? "\(fields) of the header's \(header) fields" : "a number last") + "): it may be cut short "
            + "(a file still being written, or truncated), so it is left out; end the file with a line break if it is complete"
    }

    public static let cutLastRow = "last row cut short"

    /// Keeps the insulin record of a row `skipCutLastRow` skipped (`kinds`, read from whole
    /// fields) as `SkippedInsulin` when its time field `field` is whole too (not the row's last,
    /// which the cut may have shortened) and reads (`parse`; a repeated hour's second pass): the
    /// newest dose of a file still being written, in an amount the cut may have shortened.
    public mutating func noteCutInsulin(_ kinds: [RecordKind], row: CSVRow, field: Int, since mark: Int,
                                        parse: (ArraySlice<UInt8>) -> WrittenTimestamp?, at location: SourceLocation) {
        guard !kinds.isEmpty, Self.isWhole(field, of: row), let written = parse(row[field]) else { return }
        let time = latestInstant(written)
        for kind in kinds { noteSkippedInsulin(kind, time: time, since: mark, at: location) }
    }

    /// Whether field `i` of a row the file ends inside is whole: not its last (the cut may have shortened that).
    public static func isWhole(_ i: Int, of row: CSVRow) -> Bool { i >= 0 && i < row.count - 1 }

    /// The rows skipped so far: taken before an insulin row is read, for `noteSkippedInsulin`.
    public var skipMark: Int { summary.rowsSkipped }

    /// Keeps an insulin record of `kind` dated `time` as a `SkippedInsulin` when its row was
    /// skipped since `mark` (`skipMark`, taken before the row was read) and its time is one an
    /// import keeps (not in the future, not before 1990). `amounts` are the row's amount fields as
    /// written: when each reads as 0 the record is no dose (a cancelled bolus) and is not kept.
    /// Call it once the row is read, whichever way it ended (a `defer` does).
    public mutating func noteSkippedInsulin(_ kind: RecordKind, time: Date, since mark: Int, amounts: [String?] = [],
                                            at location: SourceLocation) {
        guard summary.rowsSkipped > mark, time <= options.now, time >= ImportLimits.earliest, !Self.allZero(amounts) else { return }
        keep(SkippedInsulin(kind: kind, time: time, location: location))
    }

    /// Keeps the insulin records of a row skipped for another field than its time (its patient
    /// id) at `time`, or, when its time could not be read (nil), bounded by the rows around it
    /// (`noteUndatedInsulin`).
    public mutating func noteSkippedInsulin(_ kinds: [RecordKind], time: Date?, since mark: Int, amounts: [String?] = [],
                                            at location: SourceLocation) {
        guard let time else { return noteUndatedInsulin(kinds, amounts: amounts, at: location) }
        for kind in kinds { noteSkippedInsulin(kind, time: time, since: mark, amounts: amounts, at: location) }
    }

    /// Keeps an insulin row whose time could not be read (`kinds`: its records' kinds; `amounts`:
    /// its amount fields as written) as `SkippedInsulin`, its time bounded by the rows read before
    /// and after it (`UndatedInsulinBounds`): its dose may have been given minutes before a dose is
    /// asked for. Call it where the row is skipped for its time. Amounts that all read as 0 are no
    /// dose, and are not kept. `notAfter`: a time of the row itself that it cannot be after (the
    /// end of a bolus or temporary basal whose start could not be read, `latestInstant`).
    public mutating func noteUndatedInsulin(_ kinds: [RecordKind], amounts: @autoclosure () -> [String?] = [], notAfter: Date? = nil,
                                            at location: SourceLocation) {
        guard !kinds.isEmpty, !Self.allZero(amounts()) else { return }
        undated.note(kinds, notAfter: notAfter, at: location)
    }

    /// Keeps the insulin a malformed row (skipped: an unclosed quote, a comma too many) may hold
    /// as `SkippedInsulin` whose time could not be read, bounded by the rows around it like
    /// `noteUndatedInsulin`: its fields cannot be told apart, so neither its time nor its amount
    /// can be trusted, but a dose typed with a decimal comma (`bolus,1,5`) was still given.
    /// `kinds`: what the row's whole fields or its `CSVRow.pieces` say it may hold. Its location
    /// names the field `SkippedInsulin.wholeRow`.
    public mutating func noteMalformedInsulin(_ kinds: [RecordKind], line: Int) {
        noteUndatedInsulin(kinds, at: location(line, SkippedInsulin.wholeRow))
    }

    /// Skips a row of `fields` fields, more than its file's rows have (`expected`, e.g. "the header
    /// has 10"), as a malformed row: a comma in a value that is not quoted (a decimal comma) has
    /// shifted its fields. Keeps the insulin it may hold (`kinds`, `noteMalformedInsulin`).
    public mutating func skipWideRow(fields: Int, expected: String, line: Int, field: String? = nil, insulin kinds: [RecordKind]) {
        skip("malformed row", at: location(line, field), "the row has \(fields) fields; \(expected) (quote values holding commas)")
        noteMalformedInsulin(kinds, line: line)
    }

    /// The latest instant a written time can be (the second pass of a repeated daylight-saving
    /// hour), counted nowhere: a bound, not a record's time.
    public mutating func latestInstant(_ written: WrittenTimestamp) -> Date {
        if let instant = written.instant { return instant }
        switch resolver.classify(written.local) {
        case let .unique(date), let .gap(date): return date
        case let .repeated(_, second): return second
        }
    }

    /// Starts a run of rows in their own time order (a Nightscout export's treatments after its
    /// entries) for `noteUndatedInsulin`: the insulin rows whose time could not be read so far
    /// are bounded by the times of the run before.
    public mutating func startTimeOrder() {
        for skipped in undated.end(now: options.now) { keep(skipped) }
    }

    /// Whether amounts were given and each reads as 0 (a cancelled bolus: no dose).
    static func allZero(_ amounts: [String?]) -> Bool {
        let texts = amounts.compactMap { $0 }
        return !texts.isEmpty && texts.allSatisfy { NumberText.read(bytes: $0.trimmingSpaces().utf8) == 0 }
    }

    private mutating func keep(_ skipped: SkippedInsulin) {
        var list = summary.skippedInsulin.take() ?? []  // appended in place: a file of bad rows stays linear
        list.append(skipped)
        summary.skippedInsulin = list
    }

    /// Skips a row silently apart from the count (expected rows such as a preamble).
    public mutating func skipQuietly(_ reason: String) { summary.skipQuietly(reason) }

    /// Counts a row of a section or kind that is read but not modelled (never an error).
    public mutating func addNotModelled(_ kind: String) {
        otherRecords[kind, default: 0] += 1
        summary.notModelled[kind, default: 0] += 1
    }

    /// A wall-clock time read in `options.timeZone`, daylight-saving cases counted as adjusted.
    /// A time in a repeated hour is returned as its first pass and moved (with the records made
    /// from its row) when its run is decided (`RepeatedHourRuns`).
    public mutating func instant(_ local: WallClockTime) -> Date {
        if rowHasRecords {
            rowRepeats.removeAll(); rowHasRecords = false
            applyDecided()
        }
        switch resolver.classify(local) {
        case let .unique(date):
            decide(repeats.unique(date))
            return date
        case let .gap(date):
            summary.adjust(LocalTimeResolver.gapReason)
            decide(repeats.unique(date))
            return date
        case let .repeated(first, second):
            // The window is identified by the transition that ends the first pass.
            let window = options.timeZone.nextDaylightSavingTimeTransition(after: first)?.timeIntervalSince1970
                ?? (first.timeIntervalSince1970 / 86_400).rounded(.down)
            let (decision, entry) = repeats.repeated(.init(wall: local.wallSeconds, first: first, second: second), window: window)
            decide(decision)
            rowRepeats.append((entry.run, entry.entry, first))
            return first
        }
    }

    /// Starts a new stream of rows in their own time order (an OhioT1DM section): the repeated
    /// hour's rows of the one before are decided without it, and its insulin rows whose time
    /// could not be read are bounded by its own times.
    public mutating func startStream() {
        startTimeOrder()
        decide(repeats.endStream())
        applyDecided()
        rowRepeats.removeAll(); rowHasRecords = false
    }

    /// A row's instant an importer holds past the row, for records it adds once every row is read
    /// (a cancel, a suspension paired with its resumption, a programme that temps are filled from):
    /// `time(of:)` gives it where the row's records went, in the repeated hour's second pass when the
    /// run was decided so (review BD, stop 60: such records kept the first pass, an hour early).
    public struct HeldTime: Sendable, Equatable {
        /// The instant `instant(_:)` returned for the row.
        public let read: Date
        /// The row's run and place in it in a repeated hour; run 0 for a time outside one.
        let run: Int, entry: Int
    }

    /// `date`, an instant read for the row being read (by `instant(_:)`, or with its own offset), held past the row.
    public func hold(_ date: Date) -> HeldTime {
        guard let last = rowRepeats.last(where: { $0.first == date }) else { return HeldTime(read: date, run: 0, entry: 0) }
        return HeldTime(read: date, run: last.run, entry: last.entry)
    }

    /// The instant of a held row time once its repeated hour is decided (after `startStream()`,
    /// which every importer calls when its rows are read; before, the time as read).
    public func time(of held: HeldTime) -> Date {
        guard held.run > 0, let passes = secondPasses[held.run], passes.indices.contains(held.entry),
              let second = passes[held.entry] else { return held.read }
        return second
    }

    private mutating func decide(_ decision: RepeatedHourRuns.Decision?) {
        if let decision { decided.append(decision) }
    }

    private mutating func applyDecided() {
        for decision in decided { apply(decision) }
        decided.removeAll()
    }

    /// Moves the records of the rows a decision puts in the second pass, counts every row, and
    /// warns once per run the file does not settle.
    private mutating func apply(_ decision: RepeatedHourRuns.Decision) {
        if decision.isSecond.contains(true) {
            secondPasses[decision.run] = zip(decision.entries, decision.isSecond).map { $1 ? $0.second : nil }
        }
        for (entry, second) in zip(decision.entries, decision.isSecond) {
            summary.adjust(second ? LocalTimeResolver.repeatSecondReason : LocalTimeResolver.repeatFirstReason)
            guard second else { continue }
            for ref in entry.records { move(ref.kind, ref.index, from: entry.first, to: entry.second) }
        }
        guard let doubt = decision.doubt else { return }
        summary.adjust(LocalTimeResolver.repeatUnsettledReason)
        let lines = decision.entries.compactMap(\.location?.line)
        let located = decision.entries.first { $0.location != nil }?.location ?? location(nil)
        let n = decision.entries.count
        let rows = n == 1 ? "1 row" : "\(n) rows"
        let span = lines.isEmpty ? "" : lines.count == 1 ? " (line \(lines[0]))" : " (lines \(lines.min()!)-\(lines.max()!))"
        let what = doubt == .shuffled
            ? "not in time order inside the hour; read as the first pass up to the first jump back on the clock, the second after"
            : "the file does not tell which pass (one pass only, and no row next to \(n == 1 ? "it" : "them")); read as the first pass (the earlier instant\(n == 1 ? "" : "s"), from \(decision.entries[0].first.iso8601))"
        summary.issues.append(ImportIssue(.warning, located,
            "local time in the repeated daylight-saving hour of \(options.timeZone.identifier), \(rows)\(span): \(what). "
            + "Times written with their UTC offset are never ambiguous"))
    }

    private mutating func move(_ kind: RecordKind, _ i: Int, from: Date, to: Date) {
        let follows = endsFollowStart
        switch kind {
        case .glucose: glucose[i].record = glucose[i].record.moving(from, to: to)
        case .bolus: boluses[i].record = boluses[i].record.moving(from, to: to, endFollowsStart: follows)
        case .basal: basalRates[i].record = basalRates[i].record.moving(from, to: to, endFollowsStart: follows)
        case .temporaryBasal: temporaryBasals[i].record = temporaryBasals[i].record.moving(from, to: to, endFollowsStart: follows)
        case .basalInjection: basalInjections[i].record = basalInjections[i].record.moving(from, to: to)
        case .carbs: carbs[i].record = carbs[i].record.moving(from, to: to)
        case .exercise: exercise[i].record = exercise[i].record.moving(from, to: to)
        case .weight: weights[i].record = weights[i].record.moving(from, to: to)
        case .heartRate: heartRate[i].record = heartRate[i].record.moving(from, to: to)
        }
    }

    /// The instant of a written timestamp: its own offset when it has one, else `instant(_:)` of its wall-clock time.
    public mutating func instant(_ written: WrittenTimestamp) -> Date {
        written.instant ?? instant(written.local)
    }

    /// Whether a time can be kept: not after `options.now` and not before `ImportLimits.earliest`
    /// (else the row is skipped as `future-dated` or `dated before 1990`, with a warning).
    /// A row of insulin records (`insulin`: their kinds; `amounts`: the amounts as written, read only then) dated
    /// after the import time is kept as `SkippedInsulin` too (`datedAfterImport`), but for amounts
    /// that all read as 0 (no dose): a device whose clock runs ahead writes its latest doses so. A
    /// glucose reading (`glucose`) so dated is counted in `ImportSummary.glucoseAhead`.
    public mutating func acceptTime(_ date: Date, at location: SourceLocation, insulin: [RecordKind] = [], glucose: Bool = false,
                                    amounts: @autoclosure () -> [String?] = []) -> Bool {
        if date > options.now {
            skip("future-dated", at: location,
                 "time \(date.iso8601) is after the import time; expected a past date; skipped")
            if glucose, date.timeIntervalSince(options.now) <= GlucoseAhead.reach {
                var ahead = summary.glucoseAhead.take() ?? GlucoseAhead([])  // added in place
                ahead.add(date)
                summary.glucoseAhead = ahead
            }
            if !insulin.isEmpty, !Self.allZero(amounts()) {
                for kind in insulin { keep(SkippedInsulin(kind: kind, time: date, location: location, datedAfterImport: true)) }
            }
            return false
        }
        if date < ImportLimits.earliest {
            skip("dated before 1990", at: location, "time is before 1990; expected a recent date; skipped")
            return false
        }
        undated.read(date)
        return true
    }

    public mutating func acceptTime(_ date: Date, line: Int?, field: String?, insulin: [RecordKind] = [], glucose: Bool = false,
                                    amounts: @autoclosure () -> [String?] = []) -> Bool {
        acceptTime(date, at: location(line, field), insulin: insulin, glucose: glucose, amounts: amounts())
    }

    /// Adds a record whose time `acceptTime` accepts (else it is skipped with a warning).
    public mutating func add<R: TimedRecord>(_ record: R, at location: SourceLocation) {
        guard acceptTime(record.time, at: location, insulin: R.kind.isInsulin ? [R.kind] : [], glucose: R.kind == .glucose) else { return }
        switch record {
        case let r as GlucoseReading: glucose.append(Located(r, location))
        case let r as Bolus:
            boluses.append(Located(r, location))
            bolusInstants.insert(r.time)
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
        undated.record(R.kind)
        if !rowRepeats.isEmpty {
            let index = count(R.kind) - 1
            for (run, entry, _) in rowRepeats {
                if run == repeats.run {
                    repeats.attach(R.kind, index: index, location: location, to: entry)
                } else if let d = decided.firstIndex(where: { $0.run == run }), decided[d].entries.indices.contains(entry) {
                    decided[d].entries[entry].records.append((R.kind, index))
                    if decided[d].entries[entry].location == nil { decided[d].entries[entry].location = location }
                }
            }
        }
        // The row is read: the next `instant` starts another row and applies what was decided.
        rowHasRecords = true
        guard sink != nil, R.kind != .temporaryBasal else { return }
        pending += 1
        // Records of an undecided run stay until it is decided (a run is an hour of rows).
        if pending >= Self.batchSize, !repeats.hasOpenRun, decided.isEmpty { flush(includingTemporaryBasals: false) }
    }

    /// A cancel of the temporary basal running at `date`, the instant of the row being read
    /// (Nightscout's and a mapped CSV's temporary basal of 0 minutes; `location` its row): it ends
    /// that one (`endTemporaryBasals`), in this file only: it is no record, counted as `kind` in
    /// the records not modelled.
    public mutating func cancelTemporaryBasal(at date: Date, location: SourceLocation,
                                              as kind: String = "temporary basal of 0 minutes (ends the one running)") {
        cancels.append((hold(date), location))
        addNotModelled(kind)
    }

    /// A temporary basal ends at the first cancel (`cancelTemporaryBasal(at:location:)`) or the
    /// next temporary basal after its start, if that comes before its planned end (counted as
    /// adjusted), as a pump ends it. A GlucoModel CSV's or OhioT1DM's temporary basal of 0 minutes
    /// is such a next one, kept as a record so that it ends a temp another file holds; one at the
    /// start of another temp of the file (or of another of 0 minutes) is that temp's start and
    /// dropped: a loop writes its cancel at the instant of its next temp, and the two were
    /// conflicting duplicates, one of them dropped and doses refused for 6 hours (hunt AX, stop 60).
    /// Temporary basals are held to the end of the file (`flush`); `build` calls this, and keeps
    /// them in the file's order (the import counts rows out of time order). It decides the last
    /// repeated hour first (`startStream()`), so temps and cancels there are at their instants.
    public mutating func endTemporaryBasals() {
        guard !temporaryBasals.isEmpty else { return }
        startStream()
        var dropped = Set<Int>()
        var starts: [Date: Int] = [:]  // each instant's temp that is kept: one with a length first, else the first
        for (i, t) in temporaryBasals.enumerated() {
            guard let k = starts[t.record.start] else { starts[t.record.start] = i; continue }
            let kept = temporaryBasals[k].record
            if t.record.isMarker {
                dropped.insert(i)
            } else if kept.isMarker {
                dropped.insert(k)
                starts[t.record.start] = i
            }
        }
        for _ in dropped { summary.skipQuietly("temporary basal of 0 minutes at the start of another") }
        let order = temporaryBasals.indices.filter { !dropped.contains($0) }.sorted { temporaryBasals[$0].record.start < temporaryBasals[$1].record.start }
        let stops = (cancels.map { time(of: $0.time) } + order.map { temporaryBasals[$0].record.start }).sorted()
        var j = 0
        for i in order {
            let temp = temporaryBasals[i].record
            while j < stops.count, stops[j] <= temp.start { j += 1 }
            guard j < stops.count, stops[j] < temp.end else { continue }
            temporaryBasals[i].record.end = stops[j]
            summary.adjust("temporary basal ended early by a cancel or the next temp basal")
        }
        temporaryBasals = temporaryBasals.indices.filter { !dropped.contains($0) }.map { temporaryBasals[$0] }
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

    private func count(_ kind: RecordKind) -> Int {
        switch kind {
        case .glucose: glucose.count
        case .bolus: boluses.count
        case .basal: basalRates.count
        case .temporaryBasal: temporaryBasals.count
        case .basalInjection: basalInjections.count
        case .carbs: carbs.count
        case .exercise: exercise.count
        case .weight: weights.count
        case .heartRate: heartRate.count
        }
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
        var decided = self
        decided.endTemporaryBasals()
        decided.startStream()
        return try decided.buildDecided(patient: patient)
    }

    private func buildDecided(patient: PatientID) throws -> ImportResult {
        if let mixUp = unitMixUp() { throw mixUp }
        var summary = self.summary
        summary.skippedInsulin = summary.skippedInsulin.map { list in
            list.map { skipped in
                var s = skipped
                if s.kind == .bolus, s.unreadTime == nil, s.conflictingAmount == nil, bolusInstants.contains(s.time) { s.besideKept = true }
                return s
            }
        }
        if let sink {
            var rest = self
            rest.flush(includingTemporaryBasals: true)
            sink.close()
            var log = PatientLog(patient: patient)
            log.otherRecords = otherRecords
            log.insulinKind = insulinKind
            log.skippedInsulin = SkippedInsulin.ordered(summary.skippedInsulin ?? [])
            log.glucoseAhead = summary.glucoseAhead
            return ImportResult(log: log, summary: summary)
        }
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
        log.skippedInsulin = SkippedInsulin.ordered(summary.skippedInsulin ?? [])
        log.glucoseAhead = summary.glucoseAhead
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
