import Foundation
import GRDB

/// Why a file cannot be used as a store. Each is found before anything is written to it.
public enum StoreFileError: Error, Equatable, CustomStringConvertible {
    /// The file exists and is not an SQLite database.
    case notSQLite(String)
    /// An SQLite database with tables that are not a GlucoModel store's.
    case foreignDatabase(String, tables: [String])
    /// A GlucoModel store upgraded by a newer build: its schema has steps this build does not know.
    case newerSchema(String, unknown: [String])

    public var description: String {
        switch self {
        case let .notSQLite(p):
            return "\(p): not a GlucoModel store (not an SQLite database); give a new file name or an existing store"
        case let .foreignDatabase(p, tables):
            return "\(p): an SQLite database of another application (tables \(tables.prefix(5).joined(separator: ", "))); "
                + "it is left untouched: give a new file name for the store"
        case let .newerSchema(p, unknown):
            return "\(p): the store's schema is newer than this build knows (\(unknown.joined(separator: ", "))); "
                + "it is left untouched: use the GlucoModel build that wrote it"
        }
    }
}

/// The checks a store file passes before it is opened for writing.
enum StoreFileCheck {
    /// SQLite's file header (https://www.sqlite.org/fileformat.html, section 1.3.1).
    static let header = Array("SQLite format 3\0".utf8)
    /// Tables of a GlucoModel store (any schema version) and those SQLite and GRDB add.
    static let knownTables: Set<String> = ["patients", "import_runs", "records", "scoring_state", "grdb_migrations", "sqlite_sequence"]

    /// A missing or empty file is a new store; otherwise it must start with SQLite's header.
    static func checkHeader(_ path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { return }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: header.count)) ?? Data()
        guard head.isEmpty || Array(head) == header else { throw StoreFileError.notSQLite(path) }
    }

    /// Read-only look at an open database: its tables must all be ours, and every applied
    /// migration one this build registers.
    static func checkSchema(_ db: Database, path: String, known migrations: [String]) throws {
        let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        let foreign = tables.filter { !knownTables.contains($0) }
        if !foreign.isEmpty || (!tables.isEmpty && !tables.contains("grdb_migrations")) {
            throw StoreFileError.foreignDatabase(path, tables: foreign.isEmpty ? tables : foreign)
        }
        guard tables.contains("grdb_migrations") else { return }
        let applied = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
        let unknown = applied.filter { !migrations.contains($0) }
        if !unknown.isEmpty { throw StoreFileError.newerSchema(path, unknown: unknown) }
    }
}
