import GRDB
import GRDBSQLite

/// Binds values straight into a prepared statement and steps it, for the store's bulk insert.
///
/// GRDB's `execute(arguments:)` builds and validates a `StatementArguments` array per row, which
/// cost about as much as SQLite itself on large imports; this is the only code in the package that
/// calls the SQLite C API. Texts are copied by SQLite (`SQLITE_TRANSIENT`); a NaN double is bound
/// as NULL by SQLite, so a NOT NULL column rejects it.
struct RecordBinder {
    private let statement: OpaquePointer
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Resets `statement`; its earlier bindings are cleared unless `keepingBindings` (constants bound once).
    init(_ statement: Statement, keepingBindings: Bool = false) {
        self.statement = statement.sqliteStatement
        sqlite3_reset(self.statement)
        if !keepingBindings { sqlite3_clear_bindings(self.statement) }
    }

    func bind(_ text: String?, at index: Int32) {
        guard let text else { sqlite3_bind_null(statement, index); return }
        sqlite3_bind_text(statement, index, text, -1, Self.transient)
    }

    func bind(_ value: Double?, at index: Int32) {
        guard let value else { sqlite3_bind_null(statement, index); return }
        sqlite3_bind_double(statement, index, value)
    }

    func bind(_ value: Int?, at index: Int32) {
        guard let value else { sqlite3_bind_null(statement, index); return }
        sqlite3_bind_int64(statement, index, Int64(value))
    }

    func bind(_ value: Int64, at index: Int32) {
        sqlite3_bind_int64(statement, index, value)
    }

    /// Runs the statement once with the bound values, then resets it (bindings are kept).
    func step(_ db: Database) throws {
        let code = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code),
                                message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
        }
    }
}
