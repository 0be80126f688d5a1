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
/// one. The patient, kind and run are integer literals in the statement (SQLite evaluates them once
/// per statement, not per row); each row binds its payload, source line and `seq` (`run << 32` plus
/// its `seq` in the file): 10 values.
final class RecordInserter {
    static let rowsPerStatement = 256
    /// Parameters a row binds: its payload, `source_line` and `seq`.
    private static let perRow: Int32 = StoreRow.count + 2

    let db: Database
    let patient: Int64, kind: Int64, runID: Int64
    private var statements: [Int: Statement] = [:]
    private let texts = TextArena()

    init<R: StorableRecord>(_ type: R.Type, db: Database, patient: Int64, runID: Int64) {
        self.db = db
        self.patient = patient
        kind = Int64(StoreSchema.code(R.kind))
        self.runID = runID
    }

    /// The statement inserting `count` rows (prepared once per count).
    private func statement(rows count: Int) throws -> Statement {
        if let s = statements[count] { return s }
        // Anonymous `?`: SQLite numbers them in order (row i's from 10 i + 1), as `?NNN` would, but
        // `?NNN` parameters go into a list that SQLite searches for each one while compiling:
        // quadratic, 2560 of them took about 10 ms per statement (the most of a small file's import).
        let row = "(\(patient), \(kind), " + Array(repeating: "?", count: Int(Self.perRow)).joined(separator: ", ") + ", \(runID))"
        let rows = Array(repeating: row, count: count)
        let s = try db.makeStatement(sql: """
            INSERT INTO records (patient, kind, \(StoreRecords.payloadColumns), source_line, seq, import_run_id)
            VALUES \(rows.joined(separator: ", "))
            ON CONFLICT DO NOTHING
            """)
        statements[count] = s
        return s
    }

    /// Inserts `rows` in order; returns how many were added (a row already stored is skipped).
    func insert(_ rows: ArraySlice<PendingRecord>) throws -> Int {
        try insert(count: rows.count) { binder, i, first in
            let r = rows[rows.startIndex + i]
            r.row.bind(binder, from: first)
            binder.bind(r.line, at: first + StoreRow.count)
            return r.seq
        }
    }

    /// Inserts `count` rows in order, `bindRow(binder, i, first)` binding row `i`'s payload and source
    /// line from parameter `first` on (9 values) and returning its `seq`; returns how many were added.
    func insert(count total: Int, _ bindRow: (RecordBinder, Int, Int32) -> Int64) throws -> Int {
        var added = 0
        var start = 0
        while start < total {
            let count = min(Self.rowsPerStatement, total - start)
            texts.reset()
            let binder = RecordBinder(try statement(rows: count), keepingBindings: true, arena: texts)
            for i in 0..<count {
                let first = 1 + Self.perRow * Int32(i)
                binder.bind((runID << 32) + bindRow(binder, start + i, first), at: first + StoreRow.count + 1)
            }
            try binder.step(db)
            added += db.changesCount
            start += count
        }
        return added
    }
}
