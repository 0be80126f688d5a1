import Foundation
import GRDB

/// Puts one file's records into the store as they are read, in bounded memory, with the same
/// result as cleaning the whole log in memory (`PatientLogBuilder.clean`).
///
/// Every record goes, in file order, into a TEMP staging table (`stage`, one row per record, its
/// `seq` the rowid). While a kind's records arrive in time order (the usual case), `DuplicateFilter`
/// runs on them at once and the kept ones are inserted into `records` straight away (for the
/// patient number given, under this run). A kind that turns out of order (`TimeOrderTracker`) has
/// those rows deleted again and is read back from the stage `ORDER BY time, seq` (or `seq DESC` for
/// a newest-first file) and filtered afresh, its early counts discarded. Everything runs inside the
/// file's transaction on the writing connection.
final class StoreStager {
    let db: Database
    private var strings: [String: Int64] = [:]
    private var stringList: [String] = []
    private var seq: Int64 = 0
    private let staged: Statement
    private var kinds: [any KindStaging] = []
    let glucose: KindStager<GlucoseReading>, boluses: KindStager<Bolus>, basalRates: KindStager<BasalRate>
    let temporaryBasals: KindStager<TemporaryBasal>, basalInjections: KindStager<BasalInjection>, carbs: KindStager<CarbIntake>
    let exercise: KindStager<ExerciseSession>, weights: KindStager<WeightRecord>, heartRate: KindStager<HeartRateSample>

    let patient: Int64, runID: Int64
    /// Rows added to `records` so far.
    var added = 0

    init(db: Database, policy: DuplicatePolicy, patient: Int64, runID: Int64) throws {
        self.db = db
        self.patient = patient
        self.runID = runID
        try db.execute(sql: """
            DROP TABLE IF EXISTS temp.stage;
            CREATE TEMP TABLE stage (seq INTEGER PRIMARY KEY, kind INTEGER NOT NULL, dropped INTEGER NOT NULL,
                \(StoreRecords.payloadColumns.replacingOccurrences(of: "time, value,", with: "time REAL NOT NULL, value REAL NOT NULL,")),
                line INTEGER, file INTEGER NOT NULL, field INTEGER);
            """)
        staged = try db.makeStatement(sql: """
            INSERT INTO temp.stage (seq, kind, dropped, \(StoreRecords.payloadColumns), line, file, field)
            VALUES (?, ?, ?, \(Array(repeating: "?", count: Int(StoreRow.count)).joined(separator: ", ")), ?, ?, ?)
            """)
        let into = (db: db, patient: patient, runID: runID)
        glucose = KindStager(policy, into); boluses = KindStager(policy, into); basalRates = KindStager(policy, into)
        temporaryBasals = KindStager(policy, into); basalInjections = KindStager(policy, into); carbs = KindStager(policy, into)
        exercise = KindStager(policy, into); weights = KindStager(policy, into); heartRate = KindStager(policy, into)
        kinds = [glucose, boluses, basalRates, temporaryBasals, basalInjections, carbs, exercise, weights, heartRate]
    }

    /// Stages a batch (each list in file order, after those of earlier batches).
    func stage(_ batch: RecordBatch) throws {
        try glucose.stage(batch.glucose, self); try boluses.stage(batch.boluses, self)
        try basalRates.stage(batch.basalRates, self); try temporaryBasals.stage(batch.temporaryBasals, self)
        try basalInjections.stage(batch.basalInjections, self); try carbs.stage(batch.carbs, self)
        try exercise.stage(batch.exercise, self); try weights.stage(batch.weights, self); try heartRate.stage(batch.heartRate, self)
    }

    private var lastFile = "", lastFileCode: Int64 = -1, lastField = "", lastFieldCode: Int64 = -1

    /// `code(_:)` of a file name, remembering the last one (it rarely changes within a file).
    func fileCode(_ text: String) -> Int64 {
        if lastFileCode < 0 || text != lastFile { (lastFile, lastFileCode) = (text, code(text)) }
        return lastFileCode
    }

    /// `code(_:)` of a field name, remembering the last one.
    func fieldCode(_ text: String) -> Int64 {
        if lastFieldCode < 0 || text != lastField { (lastField, lastFieldCode) = (text, code(text)) }
        return lastFieldCode
    }

    /// A small number for a file or field name (few distinct per file), so the stage does not repeat texts.
    func code(_ text: String) -> Int64 {
        if let c = strings[text] { return c }
        stringList.append(text)
        strings[text] = Int64(stringList.count - 1)
        return Int64(stringList.count - 1)
    }

    func text(_ code: Int64?) -> String? { code.flatMap { $0 >= 0 && $0 < stringList.count ? stringList[Int($0)] : nil } }

    /// Numbers the next `count` records in file order (their `seq` in the stage, whether staged or
    /// not); returns the first number.
    func advance(by count: Int) -> Int64 {
        seq += Int64(count)
        return seq - Int64(count) + 1
    }

    func insert<R: StorableRecord>(_ item: Located<R>, seq: Int64, dropped: Bool) throws {
        let binder = RecordBinder(staged)
        binder.bind(seq, at: 1)
        binder.bind(Int64(StoreSchema.code(R.kind)), at: 2)
        binder.bind(Int64(dropped ? 1 : 0), at: 3)
        item.record.storeRow.bind(binder, from: 4)
        binder.bind(item.location.line, at: 4 + StoreRow.count)
        binder.bind(fileCode(item.location.file), at: 5 + StoreRow.count)
        binder.bind(item.location.field.map { Int(fieldCode($0)) }, at: 6 + StoreRow.count)
        try binder.step(db)
    }

    /// Finishes every kind: adds the cleaning counts to `summary` (in kind order, as
    /// `PatientLogBuilder.build` does); returns how many records are kept and how many were added.
    func finish(_ summary: inout ImportSummary) throws -> (kept: Int, added: Int) {
        var kept = 0
        var next = seq
        for k in kinds { kept += try k.finish(self, nextSeq: &next, &summary) }
        try db.execute(sql: "DROP TABLE temp.stage")
        return (kept, added)
    }
}

protocol KindStaging: AnyObject {
    var kind: RecordKind { get }
    /// Cleans the kind's staged records unless they came in order; returns how many are kept.
    func finish(_ stager: StoreStager, nextSeq: inout Int64, _ summary: inout ImportSummary) throws -> Int
}

/// One kind's ordering statistics and its duplicate filter while the records come in time order.
final class KindStager<R: StorableRecord>: KindStaging {
    let policy: DuplicatePolicy
    /// Inserts the kind's records into `records`, several per statement.
    let inserter: RecordInserter
    var reading: KindReading<R>

    init(_ policy: DuplicatePolicy, _ into: (db: Database, patient: Int64, runID: Int64)) {
        self.policy = policy
        reading = KindReading(policy: policy)
        inserter = RecordInserter(R.self, db: into.db, patient: into.patient, runID: into.runID)
    }

    var kind: RecordKind { R.kind }

    func stage(_ items: [Located<R>], _ stager: StoreStager) throws {
        try reading.stage(items, first: stager.advance(by: items.count), stager, inserter)
    }

    func finish(_ stager: StoreStager, nextSeq: inout Int64, _ summary: inout ImportSummary) throws -> Int {
        guard reading.tracker.count > 0 else { return 0 }
        let order = reading.tracker.finish(R.kind, &summary)  // adds the clock-jump warnings
        if order == .asRead {
            summary.addSkips(of: reading.early)
            return reading.keptEarly
        }
        let db = stager.db
        let (patient, runID) = (stager.patient, stager.runID)
        if let u = reading.uniform, reading.uniformUpTo > 0 {
            // The records inserted straight away and not staged come back to the stage first (those
            // staged as well, from a statement that did not add all its rows, are there already).
            try db.execute(sql: """
                INSERT OR IGNORE INTO temp.stage (seq, kind, dropped, \(StoreRecords.payloadColumns), line, file, field)
                SELECT seq - ?1, kind, 0, \(StoreRecords.payloadColumns), source_line, ?2, ?3 FROM records
                WHERE patient = ?4 AND kind = ?5 AND import_run_id = ?6 AND seq - ?1 <= ?7
                """, arguments: [runID << 32, stager.code(u.file), u.field.map(stager.code), patient,
                                 StoreSchema.code(R.kind), runID, reading.uniformUpTo])
        }
        try db.execute(sql: "DELETE FROM records WHERE patient = ? AND kind = ? AND import_run_id = ?",
                       arguments: [patient, StoreSchema.code(R.kind), runID])
        stager.added -= db.changesCount
        var filter = DuplicateFilter<R>(policy: policy)
        var kept = 0
        var pending: [PendingRecord] = []
        // An index over this kind's staged rows in cleaning order (one external sort), then read in
        // slices after the last row seen: no cursor stays open across the inserts into `records`.
        let descending = order == .reversed
        let code = StoreSchema.code(R.kind)
        try db.execute(sql: "CREATE INDEX temp.stage_order_\(code) ON stage(time, seq\(descending ? " DESC" : "")) WHERE kind = \(code)")
        var after: (time: Double, seq: Int64) = (-.greatestFiniteMagnitude, descending ? .max : .min)
        while true {
            let rows = try Row.fetchAll(db, sql: """
                SELECT seq, \(StoreRecords.payloadColumns), line, file, field FROM temp.stage
                WHERE kind = \(code) AND (time > ?1 OR (time = ?1 AND seq \(descending ? "<" : ">") ?2))
                ORDER BY time, seq\(descending ? " DESC" : "") LIMIT ?3
                """, arguments: [after.time, after.seq, PatientLogBuilder.batchSize])
            guard let last = rows.last else { break }
            after = (last["time"], last["seq"])
            for row in rows {
                let storeRow = StoreRow(row, from: 1)
                let location = SourceLocation(file: stager.text(row["file"]) ?? "", line: row["line"], field: stager.text(row["field"]))
                if filter.keep(Located(R(storeRow: storeRow), location), &summary) {
                    kept += 1
                    nextSeq += 1
                    pending.append(PendingRecord(row: storeRow, seq: nextSeq, line: row["line"]))
                }
            }
            stager.added += try inserter.insert(pending[...])
            pending.removeAll(keepingCapacity: true)
        }
        return kept
    }
}

/// One kind's state while its records are read (see `KindStager`): a struct, so that the loop over a
/// batch holds one exclusive access to it instead of checking one at every use of a class property.
struct KindReading<R: StorableRecord> {
    var tracker: TimeOrderTracker
    var filter: DuplicateFilter<R>
    /// The filter's counts while the kind is in order (discarded if it turns out not to be).
    var early = ImportSummary(file: "")
    var keptEarly = 0
    /// While every record kept so far has one file and field (`uniform`), records inserted straight
    /// into `records` are not staged: they can be copied back with that location (up to `uniformUpTo`).
    /// A statement that did not add all its rows (some were stored already) has all its rows staged.
    var uniform: (file: String, field: String?)?
    var isUniform = true
    var uniformUpTo: Int64 = 0
    /// Kept records of the batch not yet inserted (at most `RecordInserter.rowsPerStatement`): their
    /// index in the batch, `seq`, and whether the kind was still `uniform` when each was read.
    private var waiting: [(index: Int, seq: Int64, uniform: Bool)] = []

    init(policy: DuplicatePolicy) {
        tracker = TimeOrderTracker(policy: policy)
        filter = DuplicateFilter(policy: policy)
        waiting.reserveCapacity(RecordInserter.rowsPerStatement)
    }

    /// Reads a batch of the kind's records, numbered from `first` in file order: stages those the
    /// kind's order or the filter set aside, inserts the others into `records`.
    mutating func stage(_ items: [Located<R>], first: Int64, _ stager: StoreStager, _ inserter: RecordInserter) throws {
        for (index, item) in items.enumerated() {
            tracker.note(item)
            let seq = first + Int64(index)
            guard !tracker.needsSort else {
                try stager.insert(item, seq: seq, dropped: false)
                continue
            }
            guard filter.keep(item, &early) else {
                try stager.insert(item, seq: seq, dropped: true)
                continue
            }
            keptEarly += 1
            if isUniform {
                if let u = uniform {
                    isUniform = u.file == item.location.file && u.field == item.location.field
                } else {
                    uniform = (item.location.file, item.location.field)
                }
            }
            waiting.append((index, seq, isUniform))
            if waiting.count == RecordInserter.rowsPerStatement { try insertWaiting(items, stager, inserter) }
        }
        try insertWaiting(items, stager, inserter)
    }

    /// Inserts the waiting records into `records` in one statement; stages those that must be.
    private mutating func insertWaiting(_ items: [Located<R>], _ stager: StoreStager, _ inserter: RecordInserter) throws {
        guard !waiting.isEmpty else { return }
        let added = try inserter.insert(count: waiting.count) { [waiting] binder, i, first in
            let w = waiting[i]
            items[w.index].record.storeRow.bind(binder, from: first)
            binder.bind(items[w.index].location.line, at: first + StoreRow.count)
            return w.seq
        }
        stager.added += added
        let allAdded = added == waiting.count
        for w in waiting {
            if allAdded && w.uniform {
                uniformUpTo = w.seq
            } else {
                try stager.insert(items[w.index], seq: w.seq, dropped: false)
            }
        }
        waiting.removeAll(keepingCapacity: true)
    }
}
