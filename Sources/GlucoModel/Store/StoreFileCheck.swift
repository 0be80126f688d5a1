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
    /// A folder where the store file is expected.
    case folder(String)
    /// A new store in a folder that does not exist (the folder is given).
    case noFolder(String, String)
    /// A new store in a folder this process may not write in (the folder and the reason).
    case cannotCreate(String, String, String)
    /// A store SQLite opened for reading only (a read-only file, file system or attribute): found
    /// at the first write, which SQLite refuses (`SQLITE_READONLY`), so the store is unchanged.
    case readOnly(String)
    /// A read-only store of an earlier build, whose schema this build must upgrade (a write) before
    /// it can read it (a backup or snapshot kept from before an upgrade; hunt Y).
    case readOnlyOlderSchema(String, steps: [String])

    public var description: String { "\(path): \(reason)" }

    /// The store file the error is about.
    public var path: String {
        switch self {
        case let .notSQLite(p), let .foreignDatabase(p, _), let .newerSchema(p, _), let .folder(p), let .noFolder(p, _),
             let .cannotCreate(p, _, _), let .readOnly(p), let .readOnlyOlderSchema(p, _): return p
        }
    }

    /// Why, without the path (for a message that names the file in its own place).
    public var reason: String {
        switch self {
        case .notSQLite:
            return "not a GlucoModel store (not an SQLite database); give a new file name or an existing store"
        case let .foreignDatabase(_, tables):
            return "an SQLite database of another application (tables \(tables.prefix(5).joined(separator: ", "))); "
                + "it is left untouched: give a new file name for the store"
        case let .newerSchema(_, unknown):
            return "the store's schema is newer than this build knows (\(unknown.joined(separator: ", "))); "
                + "it is left untouched: use the GlucoModel build that wrote it"
        case .folder:
            return "a folder, not a store file; give the store's file name (a new one makes a new store)"
        case let .noFolder(_, folder):
            return "the folder \(folder) does not exist; make it, or give the store in a folder that does"
        case let .cannotCreate(_, folder, why):
            return "cannot make the store in \(folder): \(why)"
        case .readOnly:
            return "the store file is read-only: nothing can be written to it, and it is left unchanged; "
                + "make it writable, or give another store file"
        case let .readOnlyOlderSchema(_, steps):
            return "the store was written by an earlier build and is read-only: this build upgrades a store's schema when it opens it "
                + "(\(steps.joined(separator: ", "))), which is a write; it is left unchanged. To read it, read a copy (cp it to a writable file: "
                + "the copy is upgraded, the original stays as it is); to import into it, make it writable"
        }
    }

    /// `body`, with SQLite's refusal to write (`SQLITE_READONLY` and its extended codes) turned
    /// into `readOnly(path)`. Permissions cannot tell beforehand: root may open a file of mode 444
    /// for writing, and an immutable file or a read-only mount refuses whatever the mode says.
    static func refusingReadOnly<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as DatabaseError where isReadOnly(error) {
            throw readOnly(path)
        }
    }

    static func isReadOnly(_ error: any Error) -> Bool {
        (error as? DatabaseError)?.resultCode == .SQLITE_READONLY
    }
}

/// The checks a store file passes before it is opened for writing.
enum StoreFileCheck {
    /// SQLite's file header (https://www.sqlite.org/fileformat.html, section 1.3.1).
    static let header = Array("SQLite format 3\0".utf8)
    /// Tables of a GlucoModel store (any schema version) and those SQLite and GRDB add.
    static let knownTables: Set<String> = ["patients", "import_runs", "records", "scoring_state", "grdb_migrations", "sqlite_sequence"]

    /// A missing or empty file is a new store (in a folder that exists); otherwise it must start
    /// with SQLite's header.
    static func checkHeader(_ path: String) throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
            if isFolder.boolValue { throw StoreFileError.folder(path) }
        } else {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                throw StoreFileError.noFolder(path, folder)
            }
            if access(folder, W_OK | X_OK) != 0 { throw StoreFileError.cannotCreate(path, folder, String(cString: strerror(errno))) }
        }
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
