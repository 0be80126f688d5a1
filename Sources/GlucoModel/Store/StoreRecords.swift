import Foundation
import GRDB

/// One record as the columns of a `records` (or staging) row.
///
/// | kind | value | subtype | end_time | extra | flag | moment, note | part |
/// |---|---|---|---|---|---|---|---|
/// | glucose | mg/dL | source | | | censoring | moment, note | |
/// | bolus | U | bolus type | end | carb input g | insulin kind | | U given at once (dual wave, when stated) |
/// | basal, temp_basal | U/h | | end | | | |
/// | basal_injection | U | | | | | |
/// | carbs | g | meal type | | | | |
/// | exercise | intensity | | | minutes | | |
/// | weight, heart_rate | kg, bpm | | | | | |
struct StoreRow {
    var time: Double, value: Double, subtype = "", end: Double? = nil, extra: Double? = nil
    var flag: String? = nil, moment: String? = nil, note: String? = nil, part: Double? = nil
    /// How many columns a row binds (`StoreRecords.payloadColumns`).
    static let count: Int32 = 9

    /// The row's columns from `time` on, in the order of `StoreRecords.payloadColumns`.
    init(time: Date, value: Double, subtype: String = "", end: Date? = nil, extra: Double? = nil,
         flag: String? = nil, moment: String? = nil, note: String? = nil, part: Double? = nil) {
        self.time = time.timeIntervalSince1970; self.value = value; self.subtype = subtype
        self.end = end?.timeIntervalSince1970; self.extra = extra; self.flag = flag; self.moment = moment; self.note = note
        self.part = part
    }

    /// Reads the payload columns from `row`, selected as `StoreRecords.payloadColumns` from column
    /// `first` on. By index: a lookup by name hashes the name for every column of every row (28%
    /// of a dose ask from a 2-year store).
    init(_ row: Row, from first: Int) {
        time = row[first]; value = row[first + 1]; subtype = row[first + 2]; end = row[first + 3]; extra = row[first + 4]
        flag = row[first + 5]; moment = row[first + 6]; note = row[first + 7]; part = row[first + 8]
    }

    var date: Date { Date(timeIntervalSince1970: time) }
    var endDate: Date? { end.map { Date(timeIntervalSince1970: $0) } }

    /// Binds the payload at `first`, `first + 1`, ... (time, value, subtype, end_time, extra, flag, moment, note, part).
    func bind(_ binder: RecordBinder, from first: Int32) {
        // NaN is bound as NULL and trips NOT NULL: a programmer error upstream, rolled back.
        binder.bind(time, at: first)
        binder.bind(value, at: first + 1)
        binder.bind(subtype, at: first + 2)
        binder.bind(end, at: first + 3)
        binder.bind(extra, at: first + 4)
        binder.bind(flag, at: first + 5)
        binder.bind(moment, at: first + 6)
        binder.bind(note, at: first + 7)
        binder.bind(part, at: first + 8)
    }
}

/// A record the store can write as a `StoreRow` and read back.
protocol StorableRecord: TimedRecord {
    var storeRow: StoreRow { get }
    init(storeRow r: StoreRow)
}

extension GlucoseReading: StorableRecord {
    var storeRow: StoreRow {
        StoreRow(time: time, value: value.mgdL, subtype: source.rawValue, flag: censoring?.rawValue, moment: moment?.rawValue, note: note)
    }
    init(storeRow r: StoreRow) {
        self.init(time: r.date, value: .mgdL(r.value), source: GlucoseSource(rawValue: r.subtype) ?? .cgm,
                  censoring: r.flag.flatMap(Censoring.init(rawValue:)), moment: r.moment.flatMap(MealMoment.init(rawValue:)), note: r.note)
    }
}

extension Bolus: StorableRecord {
    var storeRow: StoreRow {
        StoreRow(time: time, value: dose.units, subtype: type.rawValue, end: end, extra: carbInput?.grams, flag: kind.rawValue,
                 part: immediate?.units)
    }
    init(storeRow r: StoreRow) {
        self.init(time: r.date, end: r.endDate, dose: InsulinUnits(r.value), type: BolusType(rawValue: r.subtype) ?? .normal,
                  kind: r.flag.flatMap(InsulinKind.init(rawValue:)) ?? .rapid, carbInput: r.extra.map { Carbohydrate(grams: $0) },
                  immediate: r.part.map { InsulinUnits($0) })
    }
}

extension BasalRate: StorableRecord {
    var storeRow: StoreRow { StoreRow(time: start, value: rate.unitsPerHour, end: end) }
    init(storeRow r: StoreRow) { self.init(start: r.date, end: r.endDate, rate: InsulinRate(unitsPerHour: r.value)) }
}

extension TemporaryBasal: StorableRecord {
    /// One of 0 minutes (a cancel, `isMarker`) has the subtype `cancel` (v8), so that it and a temp
    /// with a length, at one instant and rate in two files, are two rows, not one already stored.
    var storeRow: StoreRow { StoreRow(time: start, value: rate.unitsPerHour, subtype: isMarker ? Self.markerSubtype : "", end: end) }
    static let markerSubtype = "cancel"
    init(storeRow r: StoreRow) { self.init(start: r.date, end: r.endDate ?? r.date, rate: InsulinRate(unitsPerHour: r.value)) }
}

extension BasalInjection: StorableRecord {
    var storeRow: StoreRow { StoreRow(time: time, value: dose.units) }
    init(storeRow r: StoreRow) { self.init(time: r.date, dose: InsulinUnits(r.value)) }
}

extension CarbIntake: StorableRecord {
    var storeRow: StoreRow { StoreRow(time: time, value: amount.grams, subtype: mealType.rawValue) }
    init(storeRow r: StoreRow) {
        self.init(time: r.date, amount: Carbohydrate(grams: r.value), mealType: MealType(rawValue: r.subtype) ?? .unspecified)
    }
}

extension ExerciseSession: StorableRecord {
    var storeRow: StoreRow { StoreRow(time: time, value: intensity, extra: durationMinutes) }
    init(storeRow r: StoreRow) { self.init(time: r.date, intensity: r.value, durationMinutes: r.extra ?? 0) }
}

extension WeightRecord: StorableRecord {
    var storeRow: StoreRow { StoreRow(time: time, value: kilograms) }
    init(storeRow r: StoreRow) { self.init(time: r.date, kilograms: r.value) }
}

extension HeartRateSample: StorableRecord {
    var storeRow: StoreRow { StoreRow(time: time, value: beatsPerMinute) }
    init(storeRow r: StoreRow) { self.init(time: r.date, beatsPerMinute: r.value) }
}

/// Writing and reading the `records` table (schema v3, see `StoreSchema`).
enum StoreRecords {
    /// The payload columns, in `StoreRow.bind` order.
    static let payloadColumns = "time, value, subtype, end_time, extra, flag, moment, note, part"

    /// Inserts a whole log as it is (an importer that does not stream, e.g. in tests); returns how many were added.
    static func insert(_ result: ImportResult, patient: Int64, runID: Int64, db: Database) throws -> Int {
        var added = 0, seq: Int64 = 0
        func put<R: StorableRecord>(_ records: [R]) throws {
            let inserter = RecordInserter(R.self, db: db, patient: patient, runID: runID)
            var rows: [PendingRecord] = []
            rows.reserveCapacity(records.count)
            for (i, r) in records.enumerated() {
                seq += 1
                rows.append(PendingRecord(row: r.storeRow, seq: seq, line: result.line(of: R.kind, i)))
            }
            added += try inserter.insert(rows[...])
        }
        let log = result.log
        try put(log.glucose); try put(log.boluses); try put(log.basalRates); try put(log.temporaryBasals)
        try put(log.basalInjections); try put(log.carbs); try put(log.exercise); try put(log.weights); try put(log.heartRate)
        return added
    }

    /// The patient's log from the store, each list in time order, combined by the one merge rule
    /// (`PatientLog.firstAtEachInstant`): the record imported first is kept where overlapping files
    /// disagree at one instant. With `start`, the log from `start` on: `PatientLog.since(_:)` of
    /// the whole log, read without the rows before it (the records still acting at `start` and
    /// whether any input was recorded before are looked up, not read).
    static func log(for patient: PatientID, since start: Date? = nil, db: Database) throws -> PatientLog {
        var log = PatientLog(patient: patient)
        guard let row = try Row.fetchOne(db, sql: "SELECT number, insulin_kind FROM patients WHERE id = ?", arguments: [patient.rawValue]) else {
            return log
        }
        let number: Int64 = row["number"]
        log.insulinKind = InsulinKind(rawValue: row["insulin_kind"]) ?? .unknown
        /// Of a run's summary, the insulin records and glucose readings dated ahead its file held and the import skipped.
        struct Skipped: Decodable { var skippedInsulin: [SkippedInsulin]?; var glucoseAhead: GlucoseAhead? }
        var skipped: [SkippedInsulin] = []
        var ahead: [GlucoseAhead?] = []
        // A summary holds the keys only when the import skipped such rows: the others are not decoded.
        for row in try Row.fetchAll(db, sql: """
            SELECT other_records, CASE WHEN instr(summary, '"skippedInsulin"') > 0 OR instr(summary, '"glucoseAhead"') > 0
                                       THEN summary END FROM import_runs
            WHERE patient_id = ? ORDER BY id
            """, arguments: [patient.rawValue]) {
            let counts = try JSONDecoder().decode([String: Int].self, from: Data((row[0] as String).utf8))
            log.otherRecords.merge(counts, uniquingKeysWith: +)
            if let summary = row[1] as String? {
                let run = try JSONDecoder().decode(Skipped.self, from: Data(summary.utf8))
                skipped += run.skippedInsulin ?? []
                ahead.append(run.glucoseAhead)
            }
        }
        log.glucoseAhead = GlucoseAhead.merged(ahead)
        // Passes over the patient's rows in key order (time first), each kind's list in (time, seq) order.
        var lists = RecordLists()
        func read(_ sql: String, _ arguments: StatementArguments) throws {
            let rows = try Row.fetchCursor(db, sql: "SELECT kind, \(payloadColumns) FROM records WHERE \(sql) ORDER BY time, seq",
                                           arguments: arguments)
            while let row = try rows.next() {
                guard let kind = StoreSchema.kind(code: row[0]) else { continue }
                lists.append(kind, StoreRow(row, from: 1))
            }
        }
        var before: Set<PatientLog.RecordInputs> = []
        var historyStart: Date?
        if let start {
            let t = start.timeIntervalSince1970
            let basal = StoreSchema.code(.basal), exercise = StoreSchema.code(.exercise), temporary = StoreSchema.code(.temporaryBasal)
            let lasting = [RecordKind.bolus, .temporaryBasal, .exercise].map { String(StoreSchema.code($0)) }.joined(separator: ",")
            // Before `start`, the candidates `since` chooses from, every record at their instants (so
            // that the merge rule sees what it sees in the whole log): the last basal rate, and the
            // records with an end at or after `start` (a second of slack: `since` decides exactly), and
            // the last temporary basal (one that began later ends a temporary basal).
            try read("""
                patient = ?1 AND kind = \(basal) AND time = (SELECT MAX(time) FROM records WHERE patient = ?1 AND kind = \(basal) AND time < ?2)
                """, [number, t])
            try read("""
                patient = ?1 AND kind IN (\(lasting)) AND time IN (SELECT time FROM records WHERE patient = ?1 AND time < ?2
                    AND (end_time >= ?2 - 1 OR (kind = \(exercise) AND time + extra * 60 >= ?2 - 1)))
                OR patient = ?1 AND kind = \(temporary)
                    AND time = (SELECT MAX(time) FROM records WHERE patient = ?1 AND kind = \(temporary) AND time < ?2)
                """, [number, t])
            try read("patient = ? AND time >= ?", [number, t])
            func recorded(_ kinds: [RecordKind]) throws -> Bool {
                let codes = kinds.map { String(StoreSchema.code($0)) }.joined(separator: ",")
                return try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM records WHERE patient = ? AND time < ? AND kind IN (\(codes)))",
                                         arguments: [number, t]) ?? false
            }
            if try recorded([.basal, .temporaryBasal, .basalInjection]) { before.insert(.basal) }
            if try recorded([.bolus]) { before.insert(.bolus) }
            if !before.isDisjoint(with: [.basal, .bolus]) { before.insert(.insulin) }
            if try recorded([.carbs]) { before.insert(.carbohydrate) }
            // The whole log's first instant (`PatientLog.firstInstant`: weights aside).
            let covering = RecordKind.allCases.filter { $0 != .weight }.map { String(StoreSchema.code($0)) }.joined(separator: ",")
            historyStart = try Double.fetchOne(db, sql: "SELECT time FROM records WHERE patient = ? AND kind IN (\(covering)) ORDER BY time LIMIT 1",
                                               arguments: [number]).map { Date(timeIntervalSince1970: $0) }
        } else {
            try read("patient = ?", [number])
        }
        // A build before v8 kept a cancel beside a temp of another file at its instant as a conflicting
        // duplicate, or two cancels of other rates at one instant: the cancel, stored, is no conflict
        // (`TimedRecord.isMarker`; review BI: such a store refused doses for 6 hours after migrating).
        let cancels = Set(lists.temporaryBasals.filter(\.isMarker).map { "\($0.start.timeIntervalSince1970) \($0.rate.unitsPerHour)" })
        log.skippedInsulin = SkippedInsulin.ordered(cancels.isEmpty ? skipped : skipped.filter { s in
            !(s.kind == .temporaryBasal && s.unreadTime == nil
              && s.conflictingAmount.map { cancels.contains("\(s.time.timeIntervalSince1970) \($0)") } ?? false)
        })
        // Rows come in (time, import order): the merge rule keeps the first import's record of each event.
        func clean<R: StorableRecord>(_ records: [R]) -> [R] { PatientLog.firstAtEachInstant(records) }
        log.glucose = clean(lists.glucose)
        log.boluses = clean(lists.boluses)
        log.basalRates = clean(lists.basalRates)
        log.temporaryBasals = clean(lists.temporaryBasals)
        log.basalInjections = clean(lists.basalInjections)
        log.carbs = clean(lists.carbs)
        log.exercise = clean(lists.exercise)
        log.weights = clean(lists.weights)
        log.heartRate = clean(lists.heartRate)
        log.glucoseAhead = log.glucoseAhead?.unsettled(by: log.glucose)
        guard let start else { return log }
        log = log.since(start)
        log.inputsBefore.formUnion(before)
        log.historyStart = historyStart.flatMap { $0 < start ? $0 : nil }
        return log
    }
}

/// One list per kind of the rows read back from `records`.
private struct RecordLists {
    var glucose: [GlucoseReading] = [], boluses: [Bolus] = [], basalRates: [BasalRate] = []
    var temporaryBasals: [TemporaryBasal] = [], basalInjections: [BasalInjection] = []
    var carbs: [CarbIntake] = [], exercise: [ExerciseSession] = [], weights: [WeightRecord] = []
    var heartRate: [HeartRateSample] = []

    mutating func append(_ kind: RecordKind, _ row: StoreRow) {
        switch kind {
        case .glucose: glucose.append(GlucoseReading(storeRow: row))
        case .bolus: boluses.append(Bolus(storeRow: row))
        case .basal: basalRates.append(BasalRate(storeRow: row))
        case .temporaryBasal: temporaryBasals.append(TemporaryBasal(storeRow: row))
        case .basalInjection: basalInjections.append(BasalInjection(storeRow: row))
        case .carbs: carbs.append(CarbIntake(storeRow: row))
        case .exercise: exercise.append(ExerciseSession(storeRow: row))
        case .weight: weights.append(WeightRecord(storeRow: row))
        case .heartRate: heartRate.append(HeartRateSample(storeRow: row))
        }
    }
}
