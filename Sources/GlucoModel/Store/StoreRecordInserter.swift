import GRDB

/// One row waiting to go into `records`: its payload, its `seq` within the file and its source line.
struct PendingRecord {
    var row: StoreRow
    var seq: Int64
    var line: Int?
}

/// Inserts one kind's records of one run into `records` several rows per statement.
///
/// A prepared `INSERT ... VALUES (...), (...), ... ON CONFLICT DO NOTHING` of `rowsPerStatement`
/// rows (and one for the remainder) runs the rows in order exactly as that many single-row
/// statements would, but SQLite steps, resets and re-seeks its B-tree cursor once per statement,
/// not per row: in the usual import (rows in key order) each row is appended next to the previous
/// one. The patient, kind and run are bound once (`?1`, `?2`, `?3`); each row binds its own payload,
/// `seq` (`run << 32` plus its `seq`) and source line (10 values).
final class RecordInserter {
    static let rowsPerStatement = 64
    private static let perRow: Int32 = 10

    let db: Database
    let patient: Int64, kind: Int64, runID: Int64
    private var statements: [Int: Statement] = [:]

    init<R: StorableRecord>(_ type: R.Type, db: Database, patient: Int64, runID: Int64) {
        self.db = db
        self.patient = patient
        kind = Int64(StoreSchema.code(R.kind))
        self.runID = runID
    }

    /// The statement inserting `count` rows (prepared once per count, constants bound once).
    private func statement(rows count: Int) throws -> Statement {
        if let s = statements[count] { return s }
        let rows = (0..<count).map { i -> String in
            let first = 4 + Int(Self.perRow) * i
            let params = (0..<Int(Self.perRow)).map { "?\(first + $0)" }
            // Column order: time, value, subtype, end_time, extra, flag, moment, note, seq, source_line.
            return "(?1, ?2, \(params[0...7].joined(separator: ", ")), (?3 << 32) + \(params[8]), \(params[9]), ?3)"
        }
        let s = try db.makeStatement(sql: """
            INSERT INTO records (patient, kind, \(StoreRecords.payloadColumns), seq, source_line, import_run_id)
            VALUES \(rows.joined(separator: ", "))
            ON CONFLICT DO NOTHING
            """)
        let binder = RecordBinder(s)
        binder.bind(patient, at: 1)
        binder.bind(kind, at: 2)
        binder.bind(runID, at: 3)
        statements[count] = s
        return s
    }

    /// Inserts `rows` in order; returns how many were added (a row already stored is skipped).
    func insert(_ rows: ArraySlice<PendingRecord>) throws -> Int {
        try insert(count: rows.count) { binder, i, first in
            let r = rows[rows.startIndex + i]
            r.row.bind(binder, from: first)
            binder.bind(r.seq, at: first + 8)
            binder.bind(r.line, at: first + 9)
        }
    }

    /// Inserts `count` rows in order, `bindRow(binder, i, first)` binding row `i`'s 10 values from
    /// parameter `first` on (payload, `seq`, source line); returns how many were added.
    func insert(count total: Int, _ bindRow: (RecordBinder, Int, Int32) -> Void) throws -> Int {
        var added = 0
        var start = 0
        while start < total {
            let count = min(Self.rowsPerStatement, total - start)
            let binder = RecordBinder(try statement(rows: count), keepingBindings: true)
            for i in 0..<count { bindRow(binder, start + i, 4 + Self.perRow * Int32(i)) }
            try binder.step(db)
            added += db.changesCount
            start += count
        }
        return added
    }
}
