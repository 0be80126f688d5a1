import Foundation
import Testing
@testable import GlucoModel

/// Audit 42: `import-data` into a store file that cannot be written printed SQLite's
/// "SQLite error 8: attempt to write a readonly database - while executing `INSERT INTO
/// import_runs ...`" once per file. Now the import stops at the first write with one error that
/// names the store file and says it is read-only (exit 1, as for other places a command cannot
/// write), the store unchanged; reading a read-only store still works.
///
/// The file is made read-only for real: `chmod 444` for a user, and, as root (whom file modes do
/// not stop), the immutable attribute (`chattr +i`), which SQLite cannot open for writing either.
@Suite(.serialized, .enabled(if: ReadOnlyFile.canMakeReadOnly)) struct StoreReadOnlyTests {
    /// A store holding day 0 of p_a, made read-only, and a file of day 1 to import into it.
    static func readOnlyStore() throws -> (dir: URL, store: URL, day1: URL, bytes: Data) {
        let dir = try PredictFixture.temporaryDirectory()
        let store = dir.appendingPathComponent("cohort.sqlite")
        let day0 = dir.appendingPathComponent("p_a-day0.csv"), day1 = dir.appendingPathComponent("p_a-day1.csv")
        try Data(PredictFixture.csv(PredictFixture.log(PredictFixture.patientA, days: 1)).utf8).write(to: day0)
        try Data(PredictFixture.csv(PredictFixture.log(PredictFixture.patientA, firstDay: 1, days: 1)).utf8).write(to: day1)
        var options = ImportOptions()
        options.timeZone = PredictFixture.utc
        _ = try PatientStore(path: store.path).importFile(day0, importer: LogCSVImporter(), options: options)
        #expect(ReadOnlyFile.setReadOnly(store, true))
        return (dir, store, day1, try Data(contentsOf: store))
    }

    static func cleanUp(_ dir: URL, _ store: URL) {
        ReadOnlyFile.setReadOnly(store, false)
        try? FileManager.default.removeItem(at: dir)
    }

    @Test func importIntoAReadOnlyStoreNamesTheFile() throws {
        let (dir, store, day1, bytes) = try Self.readOnlyStore()
        defer { Self.cleanUp(dir, store) }
        var options = ImportOptions()
        options.timeZone = PredictFixture.utc
        // Reading works.
        let db = try PatientStore(path: store.path)
        #expect(try db.patients() == [PredictFixture.patientA])
        #expect(try db.log(for: PredictFixture.patientA).glucose.count == 288)
        let expected = StoreFileError.readOnly(store.path)
        #expect(expected.description == "\(store.path): the store file is read-only: nothing can be written to it, and it is left unchanged; "
                + "make it writable, or give another store file")
        // One file, and a batch: the same error, thrown (not one file's failure), nothing written.
        #expect(throws: expected) { try db.importFile(day1, importer: LogCSVImporter(), options: options) }
        var committed = 0
        #expect(throws: expected) {
            try db.importFiles([day1, day1]) { PreparedImport(url: $0, importer: LogCSVImporter(), options: options) } committed: { _ in committed += 1 }
        }
        #expect(committed == 0)
        #expect(try Data(contentsOf: store) == bytes)
        #expect(try db.log(for: PredictFixture.patientA).glucose.count == 288)
    }

    /// Hunt Y (stop 54): a read-only copy of a store an earlier build wrote (a backup, a snapshot)
    /// was refused by every reading command as "read-only ... make it writable", as if a write had
    /// been asked for: opening it upgrades its schema. The refusal says so, and how to read it.
    @Test func aReadOnlyStoreOfAnEarlierSchemaSaysTheUpgradeIsTheWrite() throws {
        let dir = try PredictFixture.temporaryDirectory()
        let store = dir.appendingPathComponent("old.sqlite")
        defer { Self.cleanUp(dir, store) }
        let day0 = dir.appendingPathComponent("p_a-day0.csv")
        try Data(PredictFixture.csv(PredictFixture.log(PredictFixture.patientA, days: 1)).utf8).write(to: day0)
        var options = ImportOptions()
        options.timeZone = PredictFixture.utc
        let writable = try PatientStore(path: store.path)
        _ = try writable.importFile(day0, importer: LogCSVImporter(), options: options)
        // As an earlier build left it: its last step not applied.
        try writable.db.write { db in try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v6-scoring-runs'") }
        #expect(ReadOnlyFile.setReadOnly(store, true))
        let bytes = try Data(contentsOf: store)
        #expect(throws: StoreFileError.readOnlyOlderSchema(store.path, steps: ["v6-scoring-runs"])) { try PatientStore(path: store.path) }
        #expect(StoreFileError.readOnlyOlderSchema(store.path, steps: ["v6-scoring-runs"]).description.contains("To read it, read a copy"))
        // As a reading command says it: the store named once, not "cannot be read as a GlucoModel store".
        #expect { try StoreSource(path: store.path).load() } throws: { error in
            let text = "\(error)"
            return text.contains("written by an earlier build") && !text.contains("cannot be read as")
                && text.components(separatedBy: store.path).count == 2
        }
        #expect(try Data(contentsOf: store) == bytes)
    }

    /// As a user runs it: one line naming the store, exit 1, no SQLite message, the store as it was.
    @Test func importDataSaysTheStoreIsReadOnly() throws {
        let (dir, store, day1, bytes) = try Self.readOnlyStore()
        defer { Self.cleanUp(dir, store) }
        let stdout = dir.appendingPathComponent("stdout.txt")
        let r = try ExitCodeTests.run("glucomodel-train", ["import-data", day1.path, day1.path, "--store", store.path, "--time-zone", "UTC"],
                                      stdout: stdout)
        #expect(r.status == 1)
        #expect(r.stderr == "Error: \(StoreFileError.readOnly(store.path))\n", "\(r.stderr)")
        #expect(try String(contentsOf: stdout, encoding: .utf8) == "")
        #expect(try Data(contentsOf: store) == bytes)
        // A reader of the store still works on it.
        let metrics = try ExitCodeTests.run("glucomodel-predict", ["metrics", "--store", store.path, "--time-zone", "UTC"])
        #expect(metrics.status == 0, "\(metrics.stderr)")
    }
}

extension StoreReadOnlyTests {
    /// A night on a read-only store wrote the night's files, then could not record the scoring
    /// state (a warning per patient), so the next night would score them again; with files in the
    /// inbox its first write failed after the night's folder was made. It stops before any work,
    /// naming the store, with an empty inbox and with a file in it (left in the inbox).
    @Test(arguments: [false, true]) func aNightOnAReadOnlyStoreStopsBeforeAnyWork(newFile: Bool) throws {
        let bench = try NightlyBench(patients: [PredictFixture.patientA])
        #expect(try bench.scorer().run().exitCode == 0)
        let newName = "p_a-day5.csv"
        if newFile {
            try bench.addFile(newName, NightlyTests.slice(PredictFixture.log(PredictFixture.patientA, days: 6), days: 5..<6))
        }
        let store = URL(fileURLWithPath: bench.store)
        let before = try bench.files(), bytes = try Data(contentsOf: store)
        #expect(ReadOnlyFile.setReadOnly(store, true))
        defer { Self.cleanUp(bench.dir, store) }
        let outcome = try bench.scorer("2026-01-11").run()
        #expect(outcome.exitCode == 1)
        #expect(outcome.summaryLine.contains("\(StoreFileError.readOnly(bench.store))"), "\(outcome.summaryLine)")
        #expect(outcome.warnings.isEmpty)
        #expect(try bench.files() == before)
        #expect(!FileManager.default.fileExists(atPath: bench.out.appendingPathComponent("2026-01-11").path))
        #expect(try Data(contentsOf: store) == bytes)
        #expect(FileManager.default.fileExists(atPath: bench.inbox.appendingPathComponent(newName).path) == newFile)
    }
}

/// Making a file read-only for this process, for real.
enum ReadOnlyFile {
    static let isRoot = geteuid() == 0

    /// Makes `url` read-only for this process; false when it cannot be (root without chattr).
    @discardableResult
    static func setReadOnly(_ url: URL, _ on: Bool) -> Bool {
        guard isRoot else { return chmod(url.path, on ? 0o444 : 0o644) == 0 }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
        process.arguments = [on ? "+i" : "-i", url.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    static let canMakeReadOnly: Bool = {
        let url = ScratchSpace.root.appendingPathComponent("readonly-probe-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: url.path, contents: Data("x".utf8)) else { return false }
        defer { setReadOnly(url, false); try? FileManager.default.removeItem(at: url) }
        return setReadOnly(url, true) && access(url.path, W_OK) != 0
    }()
}
