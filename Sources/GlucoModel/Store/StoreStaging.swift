import Foundation
import GRDB

/// Puts one file's records into the store as they are read, in bounded memory, with the same
/// result as cleaning the whole log in memory (`PatientLogBuilder.clean`).
///
/// Every record goes, in file order, into a TEMP staging table (`stage`, one row per record, its
/// `seq` the rowid). While a kind's records arrive in time order (the usual case), `DuplicateFilter`
/// runs on them at once and marks the dropped ones; at the end such a kind is copied into `records`
/// by one `INSERT ... SELECT` in SQLite. A kind that turned out of order (`TimeOrderTracker`) is read
/// back `ORDER BY time, seq` (or `seq DESC` for a newest-first file) and filtered afresh, its early
/// counts discarded. Everything runs inside the file's transaction on the writing connection.
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

    init(db: Database, policy: DuplicatePolicy) throws {
        self.db = db
        try db.execute(sql: """
            DROP TABLE IF EXISTS temp.stage;
            CREATE TEMP TABLE stage (seq INTEGER PRIMARY KEY, kind INTEGER NOT NULL, dropped INTEGER NOT NULL,
                \(StoreRecords.payloadColumns.replacingOccurrences(of: "time, value,", with: "time REAL NOT NULL, value REAL NOT NULL,")),
                line INTEGER, file INTEGER NOT NULL, field INTEGER);
            """)
        staged = try db.makeStatement(sql: """
            INSERT INTO temp.stage (seq, kind, dropped, \(StoreRecords.payloadColumns), line, file, field)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        glucose = KindStager(policy); boluses = KindStager(policy); basalRates = KindStager(policy)
        temporaryBasals = KindStager(policy); basalInjections = KindStager(policy); carbs = KindStager(policy)
        exercise = KindStager(policy); weights = KindStager(policy); heartRate = KindStager(policy)
        kinds = [glucose, boluses, basalRates, temporaryBasals, basalInjections, carbs, exercise, weights, heartRate]
    }

    /// Stages a batch (each list in file order, after those of earlier batches).
    func stage(_ batch: RecordBatch) throws {
        try glucose.stage(batch.glucose, self); try boluses.stage(batch.boluses, self)
        try basalRates.stage(batch.basalRates, self); try temporaryBasals.stage(batch.temporaryBasals, self)
        try basalInjections.stage(batch.basalInjections, self); try carbs.stage(batch.carbs, self)
        try exercise.stage(batch.exercise, self); try weights.stage(batch.weights, self); try heartRate.stage(batch.heartRate, self)
    }

    /// A small number for a file or field name (few distinct per file), so the stage does not repeat texts.
    func code(_ text: String) -> Int64 {
        if let c = strings[text] { return c }
        stringList.append(text)
        strings[text] = Int64(stringList.count - 1)
        return Int64(stringList.count - 1)
    }

    func text(_ code: Int64?) -> String? { code.flatMap { $0 >= 0 && $0 < stringList.count ? stringList[Int($0)] : nil } }

    func insert<R: StorableRecord>(_ item: Located<R>, dropped: Bool) throws {
        let binder = RecordBinder(staged)
        seq += 1
        binder.bind(seq, at: 1)
        binder.bind(Int64(StoreSchema.code(R.kind)), at: 2)
        binder.bind(Int64(dropped ? 1 : 0), at: 3)
        item.record.storeRow.bind(binder, from: 4)
        binder.bind(item.location.line, at: 12)
        binder.bind(code(item.location.file), at: 13)
        binder.bind(item.location.field.map { Int(code($0)) }, at: 14)
        try binder.step(db)
    }

    /// Moves the staged records into `records` for `patient` (run `runID`), adds the cleaning counts
    /// to `summary` (in kind order, as `PatientLogBuilder.build` does); returns (kept, added).
    func finish(patient: Int64, runID: Int64, _ summary: inout ImportSummary) throws -> (kept: Int, added: Int) {
        var kept = 0, added = 0
        var inOrder: [Int] = []
        var next = seq
        for k in kinds {
            let (n, asRead) = try k.finish(self, patient: patient, runID: runID, nextSeq: &next, &summary, added: &added)
            kept += n
            if asRead { inOrder.append(StoreSchema.code(k.kind)) }
        }
        if !inOrder.isEmpty {
            try db.execute(sql: """
                INSERT INTO records (patient, kind, \(StoreRecords.payloadColumns), seq, source_line, import_run_id)
                SELECT ?, kind, \(StoreRecords.payloadColumns), ? + seq, line, ? FROM temp.stage
                WHERE dropped = 0 AND kind IN (\(inOrder.map(String.init).joined(separator: ","))) ORDER BY seq
                ON CONFLICT DO NOTHING
                """, arguments: [patient, runID << 32, runID])
            added += db.changesCount
        }
        try db.execute(sql: "DROP TABLE temp.stage")
        return (kept, added)
    }
}

protocol KindStaging: AnyObject {
    var kind: RecordKind { get }
    /// Cleans the kind's staged records; returns how many are kept and whether they are in file
    /// order (then the caller copies the undropped ones); otherwise they are inserted here.
    func finish(_ stager: StoreStager, patient: Int64, runID: Int64, nextSeq: inout Int64,
                _ summary: inout ImportSummary, added: inout Int) throws -> (kept: Int, asRead: Bool)
}

/// One kind's ordering statistics and its duplicate filter while the records come in time order.
final class KindStager<R: StorableRecord>: KindStaging {
    let policy: DuplicatePolicy
    var tracker: TimeOrderTracker
    var filter: DuplicateFilter<R>
    /// The filter's counts while the kind is in order (discarded if it turns out not to be).
    var early = ImportSummary(file: "")
    var keptEarly = 0

    init(_ policy: DuplicatePolicy) {
        self.policy = policy
        tracker = TimeOrderTracker(policy: policy)
        filter = DuplicateFilter(policy: policy)
    }

    var kind: RecordKind { R.kind }

    func stage(_ items: [Located<R>], _ stager: StoreStager) throws {
        for item in items {
            tracker.note(item.record)
            var dropped = false
            if !tracker.needsSort {
                dropped = !filter.keep(item, &early)
                if !dropped { keptEarly += 1 }
            }
            try stager.insert(item, dropped: dropped)
        }
    }

    func finish(_ stager: StoreStager, patient: Int64, runID: Int64, nextSeq: inout Int64,
                _ summary: inout ImportSummary, added: inout Int) throws -> (kept: Int, asRead: Bool) {
        guard tracker.count > 0 else { return (0, false) }
        let order = tracker.finish(R.kind, &summary)
        if order == .asRead {
            for (reason, n) in early.skipped { summary.skipped[reason, default: 0] += n }
            summary.issues += early.issues
            return (keptEarly, true)
        }
        let db = stager.db
        let insert = try StoreRecords.insertStatement(db)
        let binder = RecordBinder(insert)
        binder.bind(patient, at: 1)
        binder.bind(Int64(StoreSchema.code(R.kind)), at: 2)
        binder.bind(runID, at: 13)
        var filter = DuplicateFilter<R>(policy: policy)
        var kept = 0
        var pending: [(StoreRow, Int?)] = []
        func flush() throws {
            for (row, line) in pending {
                row.bind(binder, from: 3)
                nextSeq += 1
                binder.bind((runID << 32) + nextSeq, at: 11)
                binder.bind(line, at: 12)
                try binder.step(db)
                added += db.changesCount
            }
            pending.removeAll(keepingCapacity: true)
        }
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
                let storeRow = StoreRow(row)
                let location = SourceLocation(file: stager.text(row["file"]) ?? "", line: row["line"], field: stager.text(row["field"]))
                if filter.keep(Located(R(storeRow: storeRow), location), &summary) {
                    kept += 1
                    pending.append((storeRow, row["line"]))
                }
            }
            try flush()
        }
        return (kept, false)
    }
}
