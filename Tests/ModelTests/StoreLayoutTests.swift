import Foundation
import GRDB
import Testing
@testable import GlucoModel

/// How records are laid out in the store since the bulk-insert rework.
@Suite struct StoreLayoutTests {
    @Test func fileIsNamedOncePerRunAndOldRowsStillRead() throws {
        let dir = ScratchSpace.root.appendingPathComponent("glucomodel-layout-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try PatientStore(path: dir.appendingPathComponent("store.sqlite").path)
        let url = Fixture.url("ohio/complete.xml")
        let imported = try OhioXMLImporter().importFile(at: url, options: Fixture.options).log
        _ = try store.importFile(url, importer: OhioXMLImporter(), options: Fixture.options)
        // complete.xml holds 17 records (see StoreTests.importTwiceAddsNothing): none repeats the
        // path, every one reaches it through its import run.
        let (blank, viaRun) = try store.db.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM records WHERE source_file = ''") ?? -1,
             try String.fetchAll(db, sql: """
                SELECT DISTINCT i.file_path FROM records r JOIN import_runs i ON i.id = r.import_run_id
                """))
        }
        #expect(blank == 17)
        #expect(viaRun == [url.path])
        // Rows written by earlier versions carry their own path: they read back the same.
        try store.db.write { db in try db.execute(sql: "UPDATE records SET source_file = ?", arguments: ["/old/path.xml"]) }
        #expect(try store.log(for: imported.patient) == imported)
    }
}
