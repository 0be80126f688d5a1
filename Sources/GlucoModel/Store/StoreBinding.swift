import GRDB
import GRDBSQLite

/// Binds values straight into a prepared statement and steps it, for the store's bulk insert.
///
/// GRDB's `execute(arguments:)` builds and validates a `StatementArguments` array per row, which
/// cost about as much as SQLite itself on large imports; this is the only code in the package that
/// binds or steps through the SQLite C API (`PatientStore` asks it one question besides:
/// `sqlite3_db_readonly`). Texts are copied by SQLite (`SQLITE_TRANSIENT`); a NaN double is bound
/// as NULL by SQLite, so a NOT NULL column rejects it.
struct RecordBinder {
    private let statement: OpaquePointer
    private let arena: TextArena?
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Resets `statement`; its earlier bindings are cleared unless `keepingBindings` (every parameter
    /// is bound again). Texts are copied into `arena` if given (see `TextArena`).
    init(_ statement: Statement, keepingBindings: Bool = false, arena: TextArena? = nil) {
        self.statement = statement.sqliteStatement
        self.arena = arena
        sqlite3_reset(self.statement)
        if !keepingBindings { sqlite3_clear_bindings(self.statement) }
    }

    func bind(_ text: String?, at index: Int32) {
        guard let text else { sqlite3_bind_null(statement, index); return }
        if let (bytes, count) = arena?.copy(text) {
            sqlite3_bind_text(statement, index, bytes, count, nil)  // SQLITE_STATIC: the arena outlives the step
        } else {
            sqlite3_bind_text(statement, index, text, -1, Self.transient)
        }
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

/// Memory that texts bound to a statement are copied into, so that SQLite uses them in place
/// (`SQLITE_STATIC`) instead of allocating and freeing its own copy of each: SQLite only reads them
/// while the statement steps. The owner `reset()`s it before binding the next statement's values.
final class TextArena {
    private let base: UnsafeMutablePointer<CChar>
    private let capacity: Int
    private var used = 0

    init(capacity: Int = 1 << 16) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit { base.deallocate() }

    func reset() { used = 0 }

    /// `text`'s UTF-8 copied into the arena (a non-null pointer even when empty, and its length), or
    /// nil when it does not fit.
    func copy(_ text: String) -> (UnsafePointer<CChar>, Int32)? {
        var text = text
        return text.withUTF8 { utf8 in
            guard used + utf8.count <= capacity else { return nil }
            let start = base + used
            if let source = utf8.baseAddress { UnsafeMutableRawPointer(start).copyMemory(from: source, byteCount: utf8.count) }
            used += utf8.count
            return (UnsafePointer(start), Int32(utf8.count))
        }
    }
}
