import Foundation
import GRDB
import Testing
@testable import GlucoModel

/// Issue #12: a file that is not a GlucoModel store is refused, named, and left untouched.
@Suite struct StoreFileCheckTests {
    static func tables(_ path: String) throws -> [String] {
        try DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        }
    }

    @Test func refusesAFileThatIsNotSQLite() throws {
        let path = temporaryFolder("store-check").appendingPathComponent("notes.txt").path
        let bytes = Data("patient,time\np1,2026-01-05\n".utf8)
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(throws: StoreFileError.notSQLite(path)) { try PatientStore(path: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }

    @Test func refusesAnotherApplicationsDatabase() throws {
        let path = temporaryFolder("store-check").appendingPathComponent("contacts.sqlite").path
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "CREATE TABLE contacts (name TEXT, phone TEXT)")
        }
        #expect(throws: StoreFileError.foreignDatabase(path, tables: ["contacts"])) { try PatientStore(path: path) }
        #expect(try Self.tables(path) == ["contacts"])
    }

    @Test func refusesANewerSchemaAndWritesNothing() throws {
        let path = temporaryFolder("store-check").appendingPathComponent("store.sqlite").path
        _ = try PatientStore(path: path)
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9-from-the-future')")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: StoreFileError.newerSchema(path, unknown: ["v9-from-the-future"])) { try PatientStore(path: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        let message = StoreFileError.newerSchema(path, unknown: ["v9-from-the-future"]).description
        #expect(message.hasPrefix(path) && message.contains("newer"))
    }

    @Test func newAndEmptyFilesAreNewStores() throws {
        let folder = temporaryFolder("store-check")
        _ = try PatientStore(path: folder.appendingPathComponent("new.sqlite").path)
        let empty = folder.appendingPathComponent("empty.sqlite").path
        try #require(FileManager.default.createFile(atPath: empty, contents: Data()))
        _ = try PatientStore(path: empty)
        _ = try PatientStore(path: empty)  // and reopened
        #expect(try Self.tables(empty).contains("records"))
    }
}
