import Foundation
import GRDB
import GRDBSQLite

/// One import of one file, as the store remembers it.
public struct ImportRun: Sendable, Hashable {
    public var id: Int64
    public var patient: PatientID
    public var filePath: String
    /// SHA-256 of the file's bytes (hex): the same content is never imported twice.
    public var contentHash: String
    public var format: String
    public var startedAt: Date
    public var finishedAt: Date
    public var recordsAdded: Int
    /// Records of this file already in the store from an overlapping file (not duplicated).
    public var recordsAlreadyStored: Int
    public var summary: ImportSummary
    /// `recordsAdded` per kind, for an import made now (nil for a run read back from the store).
    public var recordsAddedByKind: [RecordKind: Int]? = nil
    /// For a file imported again: the insulin records its import skipped, now kept with the run
    /// because a build before they were kept had stored none (`keepingSkippedInsulin`); nil otherwise.
    public var skippedInsulinKeptNow: Int? = nil
    /// For a file imported again whose run an earlier build stored without its skipped insulin: the
    /// file no longer reads as it was imported (another `--time-zone`, say), so they are not kept.
    public var skippedInsulinUnread = false

    /// For a file whose content this run stored, imported again at `now`: the rows the run skipped as
    /// dated after its time, when that was over an hour before `now` (some of them may be past now,
    /// and are read only by forgetting the run and importing the file again: a machine clock behind
    /// when it ran; hunt AG, stop 57). The sentence to say, or nil.
    public func futureRowsNote(now: Date, forget: String) -> String? {
        guard let rows = summary.skipped["future-dated"], rows > 0, now.timeIntervalSince(startedAt) > 3600 else { return nil }
        return "its import at \(startedAt.iso8601) skipped \(Plural.of(rows, "row")) dated after that time (was the machine's "
            + "clock behind?); those now past are read by forgetting that import (\(forget)) and importing the file again"
    }

    /// What `import-data` prints under the file's summary: `patient p_017: 1 record added, 0 already stored`.
    public var storedLine: String {
        "patient \(patient): \(Plural.of(recordsAdded, "record")) added, \(recordsAlreadyStored) already stored"
    }
}

/// A file with rows dated after the machine's clock while the clock is more than
/// `PatientStore.clockTolerance` behind the store's newest import: not imported (rolled back), as a
/// boot before the network set the clock would have it (hunt AG, stop 57: stored, the file counted as
/// imported and the rows after the wrong clock were never read; the next nights said "0 warnings").
/// A clock behind a store stamped by a clock ahead costs nothing while no file has such rows.
public struct ClockBehindError: Error, CustomStringConvertible {
    public var now: Date, newest: Date, rows: Int
    public var description: String {
        "\(Plural.of(rows, "row")) dated after this machine's clock (\(now.iso8601)), which is behind the store's newest import "
            + "(\(newest.iso8601)): is the clock set? Not imported (stored, the file would count as imported and those rows "
            + "never be read); import it again once the clock is right"
    }
}

/// What importing a file into the store did.
public enum StoreImportOutcome: Sendable {
    /// The file was read and its new records stored in one transaction.
    case imported(ImportRun)
    /// A file with the same content was imported before (that run is given); nothing was added.
    case alreadyImported(ImportRun)

    public var run: ImportRun {
        switch self {
        case let .imported(r), let .alreadyImported(r): return r
        }
    }
}

/// The embedded store: one SQLite file (GRDB) holding patients, import runs and records.
///
/// Each file's import is one transaction: it is stored entirely or not at all. Re-importing a file
/// with the same content adds nothing; records of overlapping files (same patient, kind, subtype,
/// time, value) are stored once.
public struct PatientStore: Sendable {
    let db: DatabaseQueue

    /// Opens (or creates) the store at `path` and brings its schema up to date.
    /// - Throws: `StoreFileError` (nothing written) for a file that is not SQLite, another
    ///   application's database, or a store with a newer schema than this build knows.
    public init(path: String) throws {
        try StoreFileCheck.checkHeader(path)
        // Another process writing (an import committing) holds SQLite's lock for a moment: wait for
        // it rather than fail at once with "database is locked". Writers also take `<store>.lock`.
        var configuration = Configuration()
        configuration.busyMode = .timeout(Self.busyTimeout)
        db = try DatabaseQueue(path: path, configuration: configuration)
        let migrator = StoreSchema.migrator
        try db.read { db in try StoreFileCheck.checkSchema(db, path: path, known: migrator.migrations) }
        // A store that cannot be written is read as it is (only a new store, or an older schema,
        // needs writing here; an older schema read-only is refused as such).
        let applied = try db.read { db in try migrator.appliedIdentifiers(db) }
        let steps = migrator.migrations.filter { !applied.contains($0) }
        let readOnly = (try? db.read { db in sqlite3_db_readonly(db.sqliteConnection, "main") == 1 }) ?? false
        if readOnly, !steps.isEmpty, !applied.isEmpty { throw StoreFileError.readOnlyOlderSchema(path, steps: steps) }
        try StoreFileError.refusingReadOnly(path) {
            try db.writeWithoutTransaction { db in
                // A new store's pages are 16 KiB (SQLite's default is 4 KiB): fewer page splits and
                // B-tree levels for the bulk inserts. Only possible before the first table is created.
                if try Int.fetchOne(db, sql: "PRAGMA page_count") == 0 { try db.execute(sql: "PRAGMA page_size = 16384") }
            }
            try migrator.migrate(db)
        }
    }

    /// How long a command waits for another process's write (seconds) before SQLite's "database is locked".
    public static let busyTimeout: TimeInterval = 30

    /// Throws `StoreFileError.readOnly` when SQLite opened the store for reading only (a file,
    /// mount or attribute that refuses writing), which every write would then meet: for a command
    /// that writes to check before any work. File modes cannot tell (root opens a 444 file for
    /// writing, and may); SQLite's own open can.
    public func requireWritable() throws(StoreFileError) {
        let readOnly = (try? db.read { db in sqlite3_db_readonly(db.sqliteConnection, "main") == 1 }) ?? false
        if readOnly { throw .readOnly(db.path) }
    }

    /// Imports `url` with `importer`, unless a file with the same content was imported before.
    ///
    /// Streams: the importer runs on its own thread and its builder hands records over in batches
    /// (`BatchPipe`, at most a few batches held); this thread stages them in SQLite and cleans them
    /// (`StoreStager`), all in one transaction, so memory does not grow with the file. The records and
    /// summary are those of `importer.importFile(at:options:)` in memory. An importer that does not
    /// use `PatientLogBuilder` has its returned log stored as it is.
    /// - Throws: `InputError` when the file cannot be read, `NothingKeptError` when rows were skipped
    ///   and none kept (a failed file, with its summary), or a database error (the transaction is
    ///   rolled back). In every case the store is unchanged.
    public func importFile(_ url: URL, importer: some PatientDataImporter, options: ImportOptions) throws -> StoreImportOutcome {
        try Self.bulkWrite(db) { db in try importOne(url, importer: importer, options: options, db: db) }
    }

    /// Imports one file on the writing connection `db`: in a transaction of its own when none is
    /// open (`importFile`), else in a savepoint within the open one (`importFiles`, a batch). Either
    /// is rolled back when this throws, so the file is stored entirely or not at all.
    func importOne(_ url: URL, importer: some PatientDataImporter, options: ImportOptions, db: Database) throws -> StoreImportOutcome {
        let started = Date()
        let newest = try Double.fetchOne(db, sql: "SELECT MAX(finished_at) FROM import_runs").map(Date.init(timeIntervalSince1970:))
        let cannotRead = { (error: any Error) in
            InputError(SourceLocation(file: url.path), "cannot read the file (\(error.localizedDescription))")
        }
        // The content hash: computed first only when an earlier run has the same size and first MiB
        // (a re-import stays cheap), else on its own thread during the import and checked at the end.
        let fingerprint: FileFingerprint
        do { fingerprint = try FileFingerprint(of: url) } catch { throw cannotRead(error) }
        let hasher: BackgroundFileHash
        if try Self.hasRun(like: fingerprint, db) {
            let hash: String
            do { hash = try ContentDigest.hexDigest(ofFile: url) } catch { throw cannotRead(error) }
            if let previous = try Self.run(hash: hash, db) {
                return .alreadyImported(try keepingSkippedInsulin(of: previous, url: url, importer: importer, options: options, db: db))
            }
            hasher = BackgroundFileHash(known: hash)
        } else {
            hasher = BackgroundFileHash(url)
        }
        defer { hasher.cancel() }
        let format = type(of: importer).formatName
        var run: ImportRun?
        do {
            try db.inSavepoint {
                run = try importRecords(url, importer: importer, options: options, format: format, started: started, db: db) { db in
                    let hash: String
                    do { hash = try hasher.value() } catch { throw cannotRead(error) }
                    if let previous = try Self.run(hash: hash, db) { throw ContentStoredBefore(run: previous) }
                    return (hash, fingerprint)
                }
                if let newest, let rows = run?.summary.skipped["future-dated"], rows > 0,
                   options.now < newest.addingTimeInterval(-Self.clockTolerance) {
                    throw ClockBehindError(now: options.now, newest: newest, rows: rows)
                }
                return .commit
            }
        } catch let stored as ContentStoredBefore {
            return .alreadyImported(try keepingSkippedInsulin(of: stored.run, url: url, importer: importer, options: options, db: db))
        }
        guard let run else { throw DatabaseError(message: "import returned no run") }
        return .imported(run)
    }

    /// `previous`, the run that stored the file's content, with the insulin records its import
    /// skipped. A build before they were kept (stop 43) stored none: `skippedInsulin` absent though
    /// rows were skipped for problems, and a dose could not see a bolus the import had refused
    /// (hunt Y: 4.15 U an hour after a 4.35 U bolus typed 435). Importing the file again reads them
    /// and keeps them with the run (an empty list: none); records are not touched.
    ///
    /// The file is read as it was imported: at the import's moment (a row then in the future is
    /// skipped again), and only kept when it reads as the run stored it, its first and last record
    /// at the same instants (another `--time-zone` moves them; review). Otherwise the run is left
    /// as it is, and `skippedInsulinUnread` says so. Records an import skipped for differing from
    /// stored ones are the store's, not the file's: not found again.
    func keepingSkippedInsulin(of previous: ImportRun, url: URL, importer: some PatientDataImporter, options: ImportOptions,
                               db: Database) throws -> ImportRun {
        guard previous.summary.skippedInsulin == nil, previous.summary.rowsSkippedForProblems > 0 else { return previous }
        var run = previous
        var asImported = options
        asImported.now = previous.startedAt
        asImported.recordSink = nil
        let stored = try Row.fetchOne(db, sql: "SELECT MIN(time), MAX(time) FROM records WHERE import_run_id = ?", arguments: [previous.id])
        let first: Double? = stored?[0], last: Double? = stored?[1]
        let fresh = try? importer.importFile(at: url, options: asImported)
        let times = fresh.map { Self.recordTimes($0.log) } ?? []
        guard let fresh, fresh.log.patient == previous.patient, [first, last].allSatisfy({ $0.map(times.contains) ?? true }) else {
            run.skippedInsulinUnread = true
            return run
        }
        run.summary.skippedInsulin = fresh.summary.skippedInsulin ?? []
        run.skippedInsulinKeptNow = run.summary.skippedInsulin?.count
        try db.execute(sql: "UPDATE import_runs SET summary = ? WHERE id = ?",
                       arguments: [String(decoding: try JSONEncoder().encode(run.summary), as: UTF8.self), run.id])
        return run
    }

    /// Every record's time of `log` (seconds since 1970, as the store keeps them).
    static func recordTimes(_ log: PatientLog) -> Set<Double> {
        var times = Set<Double>()
        for t in log.glucose.map(\.time) + log.boluses.map(\.time) + log.basalRates.map(\.start) + log.temporaryBasals.map(\.start)
            + log.basalInjections.map(\.time) + log.carbs.map(\.time) + log.exercise.map(\.time) + log.weights.map(\.time)
            + log.heartRate.map(\.time) { times.insert(t.timeIntervalSince1970) }
        return times
    }

    /// Thrown inside the import's transaction to roll it back when the file's content turns out to
    /// have been imported before (a run without a fingerprint, stored before schema v4).
    struct ContentStoredBefore: Error { var run: ImportRun }

    /// Whether an import run has `fingerprint` (the same size and first MiB).
    static func hasRun(like fingerprint: FileFingerprint, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM import_runs WHERE content_size = ? AND head_hash = ?)",
                          arguments: [fingerprint.size, fingerprint.headHash]) ?? false
    }

    /// The import run of the content with SHA-256 `hash`, if any.
    static func run(hash: String, _ db: Database) throws -> ImportRun? {
        try Row.fetchOne(db, sql: "SELECT * FROM import_runs WHERE content_hash = ?", arguments: [hash]).map(run(from:))
    }

    /// Imports the file's records inside the transaction; `contentHash` gives the file's hash once
    /// the records are in (or throws to roll back).
    private func importRecords(_ url: URL, importer: some PatientDataImporter, options: ImportOptions, format: String, started: Date,
                               db: Database, contentHash: (Database) throws -> (String, FileFingerprint)) throws -> ImportRun {
        // The run row first: its id numbers the records. The patient is known once the importer
        // is done; records go in under the option's patient's number, or a new number. Its content
        // hash is a unique placeholder until the end.
        try db.execute(sql: """
            INSERT INTO import_runs (patient_id, file_path, content_hash, format, started_at, finished_at,
                records_added, records_already_stored, other_records, summary)
            VALUES ('', ?, ?, ?, ?, ?, 0, 0, '{}', '{}')
            """, arguments: [url.path, "pending \(UUID().uuidString)", format, started.timeIntervalSince1970,
                             started.timeIntervalSince1970])
        let runID = db.lastInsertedRowID
        let provisional = try options.patient.flatMap { try Self.patientNumber($0, db) }
            ?? Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(number), 0) + 1 FROM patients") ?? 1
        // What the named patient held before this file (its rows go in among them): the span in which
        // the file's records can meet stored ones.
        let namedSpan = try Self.span(of: provisional, db)
        let pipe = BatchPipe()
        pipe.start(importer, url: url, options: options)
        var stager: StoreStager?
        do {
            while let batch = pipe.next() {
                if stager == nil { stager = try StoreStager(db: db, policy: batch.duplicates, patient: provisional, runID: runID) }
                try stager?.stage(batch)
            }
        } catch {
            pipe.cancel()
            _ = pipe.outcome()
            throw error
        }
        var result = try pipe.outcome().get()
        let patient = result.log.patient.rawValue
        var kept: Int, added: Int
        var addedByKind: [RecordKind: Int] = [:]
        if pipe.closedByBuilder {
            (kept, added) = try stager?.finish(&result.summary) ?? (0, 0)
            result.summary.recordsKept = kept
        } else {
            (kept, added) = (result.log.recordCount, try StoreRecords.insert(result, patient: provisional, runID: runID, db: db))
        }
        // Thrown inside the transaction, which rolls back: no run row (the file can be imported
        // again once its options are fixed) and no empty patient.
        if result.summary.keptNothing(kept) {
            result.summary.recordsKept = 0
            throw NothingKeptError(summary: result.summary)
        }
        if let number = try Self.patientNumber(result.log.patient, db) {
            if number != provisional {
                // An existing patient the options did not name: the records move to its number. The
                // rows added come back (`RETURNING`): counted per kind, and those within what the
                // patient held before looked up for a stored record of the same event with another value.
                let span = try Self.span(of: number, db)
                var conflicts = StoredConflicts()
                let stored = try db.makeStatement(sql: """
                    SELECT value, end_time FROM records WHERE patient = ?1 AND time = ?2 AND kind = ?3 AND import_run_id != ?4
                        AND (kind != \(StoreSchema.code(.glucose)) OR subtype = ?5) AND (abs(value - ?6) > ?7 OR subtype != ?5)
                        AND \(Self.noMarker("records")) LIMIT 1
                    """)
                let moved = try Row.fetchCursor(db, sql: """
                    INSERT INTO records (patient, kind, subtype, time, value, seq, end_time, extra, flag, moment, note,
                                         source_file, source_line, import_run_id, part)
                    SELECT ?, kind, subtype, time, value, seq, end_time, extra, flag, moment, note,
                        source_file, source_line, import_run_id, part FROM records WHERE patient = ? AND import_run_id = ?
                        ORDER BY time, kind, subtype, value
                    ON CONFLICT DO NOTHING
                    RETURNING kind, time, subtype, value, source_line, \(Self.noMarker("records")), end_time
                    """, arguments: [number, provisional, runID])
                added = 0
                while let row = try moved.next() {
                    added += 1
                    let code: Int = row[0], time: Double = row[1]
                    guard let kind = StoreSchema.kind(code: code) else { continue }
                    addedByKind[kind, default: 0] += 1
                    guard let span, span.contains(time), row[5] as Bool,
                          let match = try Row.fetchOne(stored, arguments: [number, time, code, runID, row[2] as String, row[3] as Double,
                                                                           StoredConflicts.tolerance]) else { continue }
                    let ends = [row[6] as Double?, match[1] as Double?].compactMap { $0 }
                    conflicts.note(kind, time: time, line: row[4], here: row[3], stored: match[0], end: ends.max())
                }
                conflicts.report(into: &result.summary, file: result.summary.shown(url.path))
                try db.execute(sql: "DELETE FROM records WHERE patient = ? AND import_run_id = ?", arguments: [provisional, runID])
                for (kind, n) in try Self.dropUploadedTwice(db, patient: number, within: span, runID: runID) {
                    addedByKind[kind, default: 0] -= n
                    added -= n
                }
            } else {
                try Self.storedConflicts(db, patient: number, within: namedSpan, runID: runID).report(into: &result.summary, file: result.summary.shown(url.path))
                for (_, n) in try Self.dropUploadedTwice(db, patient: number, within: namedSpan, runID: runID) { added -= n }
                addedByKind = try Self.countByKind(db, sql: "SELECT kind, COUNT(*) FROM records WHERE patient = ? AND import_run_id = ? GROUP BY kind",
                                                   [number, runID])
            }
        } else {
            try db.execute(sql: "INSERT INTO patients (id, insulin_kind, number) VALUES (?, ?, ?)",
                           arguments: [patient, InsulinKind.unknown.rawValue, provisional])
            // A new patient: its rows are this run's.
            addedByKind = try Self.countByKind(db, sql: "SELECT kind, COUNT(*) FROM records WHERE patient = ? GROUP BY kind", [provisional])
        }
        if result.log.insulinKind != .unknown {
            try db.execute(sql: "UPDATE patients SET insulin_kind = ? WHERE id = ?", arguments: [result.log.insulinKind.rawValue, patient])
        }
        let (hash, fingerprint) = try contentHash(db)
        let finished = Date()
        // Rows skipped for problems, none of them insulin: said (an empty list), so that a run from
        // a build that kept no skipped insulin can be told from it (`keepingSkippedInsulin`).
        if result.summary.skippedInsulin == nil, result.summary.rowsSkippedForProblems > 0 { result.summary.skippedInsulin = [] }
        let summaryJSON = String(decoding: try JSONEncoder().encode(result.summary), as: UTF8.self)
        let otherJSON = String(decoding: try JSONEncoder().encode(result.log.otherRecords), as: UTF8.self)
        try db.execute(sql: """
            UPDATE import_runs SET patient_id = ?, finished_at = ?, records_added = ?, records_already_stored = ?,
                other_records = ?, summary = ?, content_hash = ?, content_size = ?, head_hash = ? WHERE id = ?
            """, arguments: [patient, finished.timeIntervalSince1970, added, kept - added, otherJSON, summaryJSON,
                             hash, fingerprint.size, fingerprint.headHash, runID])
        return ImportRun(id: runID, patient: result.log.patient, filePath: url.path, contentHash: hash, format: format,
                         startedAt: started, finishedAt: finished, recordsAdded: added,
                         recordsAlreadyStored: kept - added, summary: result.summary, recordsAddedByKind: addedByKind)
    }

    /// SQL true unless `table`'s row is a marker (`TimedRecord.isMarker`: a temporary basal of 0
    /// minutes), which is no event's value: a cancel and a temp at its instant do not conflict.
    static func noMarker(_ table: String) -> String {
        "NOT (\(table).kind = \(StoreSchema.code(.temporaryBasal)) AND IFNULL(\(table).end_time, \(table).time) <= \(table).time)"
    }

    /// The records of run `runID`, inserted among patient number `patient`'s (the options named
    /// it), that an earlier import stored at the same instant with another value (the same event by
    /// `TimedRecord.identity`: for glucose, the same source). Only rows within `span`, what the
    /// patient held before, are looked at.
    static func storedConflicts(_ db: Database, patient: Int64, within span: ClosedRange<Double>?, runID: Int64) throws -> StoredConflicts {
        var conflicts = StoredConflicts()
        guard let span else { return conflicts }
        // `+r.time`: the span is a filter, not a key range, so that SQLite still finds each stored
        // record by its exact time (it carried the range over to `m` and scanned it: quadratic).
        let rows = try Row.fetchCursor(db, sql: """
            SELECT r.kind, r.time, r.source_line, r.value, m.value, r.subtype, max(IFNULL(r.end_time, r.time), IFNULL(m.end_time, m.time)) FROM records r
            JOIN records m ON m.patient = ?1 AND m.time = r.time AND m.kind = r.kind
            WHERE r.patient = ?1 AND r.import_run_id = ?2 AND +r.time BETWEEN ?3 AND ?4 AND m.import_run_id != ?2
                AND (r.kind != \(StoreSchema.code(.glucose)) OR m.subtype = r.subtype)
                AND (abs(m.value - r.value) > ?5 OR m.subtype != r.subtype) AND \(noMarker("r")) AND \(noMarker("m"))
            """, arguments: [patient, runID, span.lowerBound, span.upperBound, StoredConflicts.tolerance])
        var seen: Set<String> = []
        while let row = try rows.next() {
            let code: Int = row[0], time: Double = row[1]
            guard let kind = StoreSchema.kind(code: code), seen.insert("\(code) \(time) \(row[5] as String) \(row[3] as Double)").inserted else { continue }
            conflicts.note(kind, time: time, line: row[2], here: row[3], stored: row[4], end: row[6])
        }
        return conflicts
    }

    /// Deletes the rows run `runID` added to patient number `patient` that repeat another import's
    /// record a few seconds off: the same kind and value (`PatientLog.sameUpload`) less than
    /// `PatientLog.sourceWindow` apart, not at the same instant (an export whose times are to the
    /// minute beside one to the second, a re-export shifted by a second). Within one file such a
    /// pair is one upload; between imports both were stored, and a clinic importing a Libre's
    /// LibreView and Nightscout exports had every reading, bolus and meal twice (hunt M, stop 52).
    /// One to one: a stored record stands for one row of the run, the nearest in time; glucose,
    /// boluses, basal injections and meals, as a file's upload window has them. Only rows within
    /// `span` (what the patient held before), widened by the window, are looked at.
    /// - Returns: the rows deleted, per kind (they count as already stored).
    static func dropUploadedTwice(_ db: Database, patient: Int64, within span: ClosedRange<Double>?, runID: Int64) throws -> [RecordKind: Int] {
        guard let span else { return [:] }
        let w = PatientLog.sourceWindow
        let g = StoreSchema.code(.glucose), b = StoreSchema.code(.bolus)
        let kinds = PatientLog.uploadWindowKinds.map { String(StoreSchema.code($0)) }.joined(separator: ",")
        let rows = try Row.fetchAll(db, sql: """
            SELECT r.kind, r.subtype, r.time, r.value, m.kind, m.subtype, m.time, m.value FROM records r
            JOIN records m ON m.patient = ?1 AND m.time > r.time - ?5 AND m.time < r.time + ?5 AND m.kind = r.kind
            WHERE r.patient = ?1 AND r.import_run_id = ?2 AND +r.time BETWEEN ?3 AND ?4 AND r.kind IN (\(kinds))
                AND m.import_run_id != ?2 AND m.time != r.time
                AND abs(m.value - r.value) < CASE WHEN r.kind = \(g) THEN ?6 ELSE 1e-9 END
                AND (r.kind NOT IN (\(g), \(b)) OR m.subtype = r.subtype) AND (r.kind != \(g) OR m.flag IS r.flag)
            ORDER BY r.time, r.kind, r.subtype, r.value, abs(m.time - r.time), m.time
            """, arguments: [patient, runID, span.lowerBound - w, span.upperBound + w, w, PatientLog.sourceGlucoseTolerance])
        /// A row's key: kind, subtype, time, value.
        func key(_ row: Row, _ i: Int) -> [DatabaseValue] { (i..<i + 4).map { row[$0] as DatabaseValue } }
        var used: Set<[DatabaseValue]> = [], dropped: [[DatabaseValue]] = []
        var last: [DatabaseValue]?
        for row in rows {
            let r = key(row, 0), m = key(row, 4)
            guard r != last, !used.contains(m) else { continue }
            used.insert(m)
            dropped.append(r)
            last = r
        }
        var counts: [RecordKind: Int] = [:]
        let delete = try db.makeStatement(sql: "DELETE FROM records WHERE patient = ? AND kind = ? AND subtype = ? AND time = ? AND value = ?")
        for r in dropped {
            try delete.execute(arguments: StatementArguments([patient.databaseValue] + r))
            if let code = Int.fromDatabaseValue(r[0]), let kind = StoreSchema.kind(code: code) { counts[kind, default: 0] += 1 }
        }
        return counts
    }

    /// The first and last record time of patient number `patient` (two seeks of the key), nil
    /// without records.
    static func span(of patient: Int64, _ db: Database) throws -> ClosedRange<Double>? {
        guard let first = try Double.fetchOne(db, sql: "SELECT MIN(time) FROM records WHERE patient = ?", arguments: [patient]),
              let last = try Double.fetchOne(db, sql: "SELECT MAX(time) FROM records WHERE patient = ?", arguments: [patient]) else { return nil }
        return first...last
    }

    /// `kind, count` rows of `sql` as a dictionary.
    static func countByKind(_ db: Database, sql: String, _ arguments: StatementArguments) throws -> [RecordKind: Int] {
        var out: [RecordKind: Int] = [:]
        for row in try Row.fetchAll(db, sql: sql, arguments: arguments) {
            if let kind = StoreSchema.kind(code: row[0]) { out[kind] = row[1] }
        }
        return out
    }

    /// The number (`patients.number`) of a stored patient, or nil.
    static func patientNumber(_ patient: PatientID, _ db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT number FROM patients WHERE id = ?", arguments: [patient.rawValue])
    }

    /// Runs `body` in one transaction with foreign-key checks off and a larger page cache, for bulk
    /// inserts. The import inserts the patient and run rows before the records that reference them,
    /// so the references hold by construction; checking them per row cost about a tenth of the insert.
    /// Both settings are per connection and restored afterwards (a killed process leaves nothing behind).
    static func bulkWrite<T>(_ queue: DatabaseQueue, _ body: (Database) throws -> T) throws -> T {
        try bulkConnection(queue) { db in
            var value: T?
            try db.inTransaction {
                value = try body(db)
                return .commit
            }
            guard let value else { throw DatabaseError(message: "bulk write returned nothing") }
            return value
        }
    }

    /// Runs `body` on the writing connection with the bulk settings of `bulkWrite`, outside any
    /// transaction (`body` opens its own: a batch of files opens one per batch).
    /// - Throws: `StoreFileError.readOnly` when SQLite cannot write the store (what `body` began is
    ///   rolled back).
    static func bulkConnection<T>(_ queue: DatabaseQueue, _ body: (Database) throws -> T) throws -> T {
        try StoreFileError.refusingReadOnly(queue.path) {
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA foreign_keys = OFF; PRAGMA cache_size = -32768")
                defer { try? db.execute(sql: "PRAGMA foreign_keys = ON; PRAGMA cache_size = -2000") }
                return try body(db)
            }
        }
    }

    /// Every patient in the store, sorted.
    public func patients() throws -> [PatientID] {
        try db.read { db in try String.fetchAll(db, sql: "SELECT id FROM patients ORDER BY id") }.map { try PatientID($0) }
    }

    /// How far the machine's clock may be behind the store's newest import before a file with rows
    /// dated after the clock is kept out (`ClockBehindError`).
    public static let clockTolerance: TimeInterval = 3600

    /// Every import run, oldest first.
    public func importRuns() throws -> [ImportRun] {
        try db.read { db in try Row.fetchAll(db, sql: "SELECT * FROM import_runs ORDER BY id") }.map(Self.run(from:))
    }

    /// How many records the store holds, per kind (for all patients, or one).
    public func recordCounts(for patient: PatientID? = nil) throws -> [RecordKind: Int] {
        try db.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT kind, COUNT(*) AS n FROM records
                WHERE ?1 IS NULL OR patient = (SELECT number FROM patients WHERE id = ?1) GROUP BY kind
                """, arguments: [patient?.rawValue])
            var out: [RecordKind: Int] = [:]
            for row in rows { if let k = StoreSchema.kind(code: row["kind"]) { out[k] = row["n"] } }
            return out
        }
    }

    /// The patient's log reassembled from every import, each list sorted by time. Where overlapping
    /// files disagree at the same instant (same kind and subtype, different value), the record imported
    /// first is kept, as within a file.
    public func log(for patient: PatientID) throws -> PatientLog {
        try db.read { db in try StoreRecords.log(for: patient, db: db) }
    }

    /// The patient's log from `start` on (`PatientLog.since(_:)` of `log(for:)`), reading only the
    /// rows from `start` on and the few earlier ones still acting then: a job on the last days of
    /// a long history costs the days, not the history.
    public func log(for patient: PatientID, since start: Date) throws -> PatientLog {
        try db.read { db in try StoreRecords.log(for: patient, since: start, db: db) }
    }

    /// `log(for:since:)` for a job at `moment`, or the whole log when that window holds no glucose
    /// reading at or before `moment` (the job then sees how old the newest reading before it is).
    public func log(for patient: PatientID, since start: Date, readingBy moment: Date) throws -> PatientLog {
        let log = try log(for: patient, since: start)
        guard let first = log.glucose.first, first.time <= moment else { return try self.log(for: patient) }
        return log
    }

    /// The time of the earliest record import run `run` added (nil when it added none: a record
    /// already stored by an earlier import belongs to that import).
    public func firstRecordTime(ofRun run: Int64) throws -> Date? {
        try db.read { db in
            try Double.fetchOne(db, sql: "SELECT MIN(time) FROM records WHERE import_run_id = ?", arguments: [run])
        }.map { Date(timeIntervalSince1970: $0) }
    }

    static func run(from row: Row) throws -> ImportRun {
        let summaryText: String = row["summary"]
        return ImportRun(id: row["id"], patient: try PatientID(row["patient_id"]), filePath: row["file_path"],
                         contentHash: row["content_hash"], format: row["format"],
                         startedAt: Date(timeIntervalSince1970: row["started_at"]),
                         finishedAt: Date(timeIntervalSince1970: row["finished_at"]),
                         recordsAdded: row["records_added"], recordsAlreadyStored: row["records_already_stored"],
                         summary: try JSONDecoder().decode(ImportSummary.self, from: Data(summaryText.utf8)))
    }
}

/// The records of one import that an earlier import stored at the same instant with another value:
/// the store reads the earlier one back (`PatientLog.firstAtEachInstant`), so the file's is not used.
/// Values within `tolerance` are one value (a JavaScript uploader writes 6.1 U as 6.1000000000000005).
struct StoredConflicts {
    static let tolerance = 1e-9
    var count = 0
    /// The first three by time.
    var examples: [(kind: RecordKind, time: Double, line: Int?, here: Double, stored: Double, from: String?)] = []
    /// Every bolus and temporary basal among them: the file's amount is left out of the insulin on
    /// board, as a file's own conflicting duplicate is (`DuplicateFilter.skipConflicting`), so each is
    /// kept as `SkippedInsulin` and a dose within its action is refused (hunt M, stop 52: the
    /// corrected re-export of a pump's file, 7.4 U where the first said 5.4, was dosed on the 5.4).
    var insulin: [(kind: RecordKind, time: Double, line: Int?, amount: Double, from: String?, end: Double?)] = []

    /// `from`: the file the kept record came from, when files are read together (nil in the store);
    /// `end`: the later of the two records' ends (`TimedRecord.deliveryEnd`): which was given is
    /// unknown until then.
    mutating func note(_ kind: RecordKind, time: Double, line: Int?, here: Double, stored: Double, from: String? = nil, end: Double? = nil) {
        count += 1
        if kind == .bolus || kind == .temporaryBasal { insulin.append((kind, time, line, here, from, end.flatMap { $0 > time ? $0 : nil })) }
        examples.append((kind, time, line, here, stored, from))
        examples.sort { ($0.time, $0.line ?? 0) < ($1.time, $1.line ?? 0) }
        if examples.count > 3 { examples.removeLast() }
    }

    /// Counted in `summary.adjusted` and warned with the first three lines, both values given.
    /// `earlier` names where the kept record is (`an earlier import stored`, the store; `a file read
    /// before (a.csv) holds`, files read together), `there` its value's place, `kept` the record kept,
    /// `whose` the kept record's source in the adjusted count, `keptFrom` in a skipped bolus's.
    func report(into summary: inout ImportSummary, file: String, earlier: String = "an earlier import stored",
                there: String = "stored", kept: String = "the stored one", whose: String = "an earlier import stored",
                keptFrom: String = "an earlier import") {
        guard count > 0 else { return }
        summary.adjusted["record differing from one \(whose) (\(kept) kept)", default: 0] += count
        if !insulin.isEmpty {
            summary.skippedInsulin = (summary.skippedInsulin ?? []) + skippedInsulin(file: file, keptFrom: keptFrom)
        }
        for e in examples {
            // Of one value, given another way (a bolus's type, a temp's end): said so, not "another value (2 here, 2 stored)".
            let differs = abs(e.here - e.stored) > Self.tolerance
                ? "with another value (\(String(format: "%g", e.here)) here, \(String(format: "%g", e.stored)) \(there))"
                : "with the same value (\(String(format: "%g", e.here))) given another way (a type, an end)"
            summary.issues.append(ImportIssue(.warning, SourceLocation(file: file, line: e.line),
                "\(e.from.map { "a file read before (\($0)) holds" } ?? earlier) this \(e.kind.rawValue) at the same instant \(differs); \(kept) is kept"))
        }
    }

    /// The insulin records among them as skipped insulin of `file`, the kept one's source `keptFrom`.
    func skippedInsulin(file: String, keptFrom: String) -> [SkippedInsulin] {
        insulin.map { SkippedInsulin(kind: $0.kind, time: Date(timeIntervalSince1970: $0.time), location: SourceLocation(file: file, line: $0.line),
                                     conflictingAmount: $0.amount, keptFrom: $0.from.map { "a file read before (\($0))" } ?? keptFrom,
                                     end: $0.end.map(Date.init(timeIntervalSince1970:))) }
    }
}
