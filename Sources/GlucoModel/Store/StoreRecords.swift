import Foundation
import GRDB

/// Mapping between `PatientLog` records and rows of the `records` table.
///
/// | kind | value | subtype | end_time | extra | flag | moment, note |
/// |---|---|---|---|---|---|---|
/// | glucose | mg/dL | source | | | censoring | moment, note |
/// | bolus | U | bolus type | end | carb input g | insulin kind | |
/// | basal, temp_basal | U/h | | end | | | |
/// | basal_injection | U | | | | | |
/// | carbs | g | meal type | | | | |
/// | exercise | intensity | | | minutes | | |
/// | weight, heart_rate | kg, bpm | | | | | |
enum StoreRecords {
    struct Row5 {
        var time: Date, value: Double, subtype = "", end: Date? = nil, extra: Double? = nil
        var flag: String? = nil, moment: String? = nil, note: String? = nil
    }

    /// Inserts every record, skipping those already stored; returns how many were added.
    ///
    /// One prepared statement, its values bound straight into SQLite (no per-row argument arrays).
    /// `source_file` is stored as `''`: the row's `import_run_id` names the file (see `log(for:db:)`).
    static func insert(_ result: ImportResult, runID: Int64, db: Database) throws -> Int {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO records (patient_id, kind, subtype, time, end_time, value, extra, flag, moment, note,
                source_file, source_line, import_run_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', ?, ?)
            ON CONFLICT(patient_id, kind, subtype, time, value) DO NOTHING
            """)
        let patient = result.log.patient.rawValue
        var added = 0
        func put<R: TimedRecord>(_ records: [R], _ row: (R) -> Row5) throws {
            let lines = result.sourceLines[R.kind] ?? []
            let binder = RecordBinder(statement)
            binder.bind(patient, at: 1)
            binder.bind(R.kind.rawValue, at: 2)
            binder.bind(runID, at: 12)
            for (i, r) in records.enumerated() {
                let x = row(r)
                // NaN is bound as NULL and trips NOT NULL: a programmer error upstream, rolled back here.
                binder.bind(x.subtype, at: 3)
                binder.bind(x.time.timeIntervalSince1970, at: 4)
                binder.bind(x.end?.timeIntervalSince1970, at: 5)
                binder.bind(x.value, at: 6)
                binder.bind(x.extra, at: 7)
                binder.bind(x.flag, at: 8)
                binder.bind(x.moment, at: 9)
                binder.bind(x.note, at: 10)
                binder.bind(i < lines.count ? lines[i] : nil, at: 11)
                try binder.step(db)
                added += db.changesCount
            }
        }
        let log = result.log
        try put(log.glucose) { Row5(time: $0.time, value: $0.value.mgdL, subtype: $0.source.rawValue, flag: $0.censoring?.rawValue,
                                    moment: $0.moment?.rawValue, note: $0.note) }
        try put(log.boluses) { Row5(time: $0.time, value: $0.dose.units, subtype: $0.type.rawValue, end: $0.end,
                                    extra: $0.carbInput?.grams, flag: $0.kind.rawValue) }
        try put(log.basalRates) { Row5(time: $0.start, value: $0.rate.unitsPerHour, end: $0.end) }
        try put(log.temporaryBasals) { Row5(time: $0.start, value: $0.rate.unitsPerHour, end: $0.end) }
        try put(log.basalInjections) { Row5(time: $0.time, value: $0.dose.units) }
        try put(log.carbs) { Row5(time: $0.time, value: $0.amount.grams, subtype: $0.mealType.rawValue) }
        try put(log.exercise) { Row5(time: $0.time, value: $0.intensity, extra: $0.durationMinutes) }
        try put(log.weights) { Row5(time: $0.time, value: $0.kilograms) }
        try put(log.heartRate) { Row5(time: $0.time, value: $0.beatsPerMinute) }
        return added
    }

    /// The patient's log from the store. Rows written before per-run file names have their own
    /// `source_file`; newer rows store `''` and take the file of their import run.
    static func log(for patient: PatientID, db: Database) throws -> PatientLog {
        var log = PatientLog(patient: patient)
        if let kind = try String.fetchOne(db, sql: "SELECT insulin_kind FROM patients WHERE id = ?", arguments: [patient.rawValue]) {
            log.insulinKind = InsulinKind(rawValue: kind) ?? .unknown
        }
        for text in try String.fetchAll(db, sql: "SELECT other_records FROM import_runs WHERE patient_id = ?", arguments: [patient.rawValue]) {
            let counts = try JSONDecoder().decode([String: Int].self, from: Data(text.utf8))
            log.otherRecords.merge(counts, uniquingKeysWith: +)
        }
        var files: [Int64: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, file_path FROM import_runs WHERE patient_id = ?", arguments: [patient.rawValue]) {
            files[row["id"]] = row["file_path"]
        }
        var g: [Located<GlucoseReading>] = [], b: [Located<Bolus>] = [], br: [Located<BasalRate>] = []
        var tb: [Located<TemporaryBasal>] = [], bi: [Located<BasalInjection>] = [], c: [Located<CarbIntake>] = []
        var ex: [Located<ExerciseSession>] = [], w: [Located<WeightRecord>] = [], hr: [Located<HeartRateSample>] = []
        let rows = try Row.fetchCursor(db, sql: "SELECT * FROM records WHERE patient_id = ? ORDER BY time, id", arguments: [patient.rawValue])
        while let row = try rows.next() {
            let ownFile: String = row["source_file"]
            let file = ownFile.isEmpty ? files[row["import_run_id"]] ?? "" : ownFile
            let loc = SourceLocation(file: file, line: row["source_line"])
            let time = Date(timeIntervalSince1970: row["time"])
            let end: Date? = (row["end_time"] as Double?).map { Date(timeIntervalSince1970: $0) }
            let value: Double = row["value"]
            let subtype: String = row["subtype"]
            switch RecordKind(rawValue: row["kind"]) {
            case .glucose:
                g.append(Located(GlucoseReading(time: time, value: .mgdL(value), source: GlucoseSource(rawValue: subtype) ?? .cgm,
                                                censoring: (row["flag"] as String?).flatMap(Censoring.init(rawValue:)),
                                                moment: (row["moment"] as String?).flatMap(MealMoment.init(rawValue:)), note: row["note"]), loc))
            case .bolus:
                b.append(Located(Bolus(time: time, end: end, dose: InsulinUnits(value), type: BolusType(rawValue: subtype) ?? .normal,
                                       kind: (row["flag"] as String?).flatMap(InsulinKind.init(rawValue:)) ?? .rapid,
                                       carbInput: (row["extra"] as Double?).map { Carbohydrate(grams: $0) }), loc))
            case .basal: br.append(Located(BasalRate(start: time, end: end, rate: InsulinRate(unitsPerHour: value)), loc))
            case .temporaryBasal:
                tb.append(Located(TemporaryBasal(start: time, end: end ?? time, rate: InsulinRate(unitsPerHour: value)), loc))
            case .basalInjection: bi.append(Located(BasalInjection(time: time, dose: InsulinUnits(value)), loc))
            case .carbs:
                c.append(Located(CarbIntake(time: time, amount: Carbohydrate(grams: value), mealType: MealType(rawValue: subtype) ?? .unspecified), loc))
            case .exercise: ex.append(Located(ExerciseSession(time: time, intensity: value, durationMinutes: row["extra"] ?? 0), loc))
            case .weight: w.append(Located(WeightRecord(time: time, kilograms: value), loc))
            case .heartRate: hr.append(Located(HeartRateSample(time: time, beatsPerMinute: value), loc))
            case nil: continue
            }
        }
        var ignored = ImportSummary(file: "store")
        log.glucose = PatientLogBuilder.clean(g, &ignored).map(\.record)
        log.boluses = PatientLogBuilder.clean(b, &ignored).map(\.record)
        log.basalRates = PatientLogBuilder.clean(br, &ignored).map(\.record)
        log.temporaryBasals = PatientLogBuilder.clean(tb, &ignored).map(\.record)
        log.basalInjections = PatientLogBuilder.clean(bi, &ignored).map(\.record)
        log.carbs = PatientLogBuilder.clean(c, &ignored).map(\.record)
        log.exercise = PatientLogBuilder.clean(ex, &ignored).map(\.record)
        log.weights = PatientLogBuilder.clean(w, &ignored).map(\.record)
        log.heartRate = PatientLogBuilder.clean(hr, &ignored).map(\.record)
        return log
    }
}
