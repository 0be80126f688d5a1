import Foundation
import GRDB
import Testing
@testable import GlucoModel

/// `import-data --forget`: a file imported with a wrong `--time-zone` or `--patient` was in the store
/// for good ("already imported" by its content). Forgetting it leaves the store as if it had never
/// been imported, so it can be imported again with the right options.
@Suite struct StoreForgetTests {
    let dir: URL
    let store: PatientStore

    init() throws {
        dir = ScratchSpace.root.appendingPathComponent("glucomodel-forget-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        store = try PatientStore(path: dir.appendingPathComponent("store.sqlite").path)
    }

    func write(_ name: String, _ rows: [String], header: String = "patient,time,event,value,unit") throws -> URL {
        let url = dir.appendingPathComponent(name)
        try Data(([header] + rows).joined(separator: "\n").utf8).write(to: url)
        return url
    }

    func options(patient: String? = nil, zone: String = "UTC") throws -> ImportOptions {
        var o = ImportOptions(timeZone: TimeZone(identifier: zone)!, now: Fixture.date("2026-02-01T00:00:00Z"))
        o.patient = try patient.map(PatientID.init)
        return o
    }

    /// Everything a later job reads: patients, runs' files, record counts and each patient's log.
    func snapshot(_ store: PatientStore) throws -> [String] {
        let patients = try store.patients()
        return try [patients.map(\.rawValue).joined(separator: ","), store.importRuns().map(\.filePath).joined(separator: ","),
                    "\(store.recordCounts().sorted { $0.key.rawValue < $1.key.rawValue })"]
            + patients.map { "\(try store.log(for: $0))" }
    }

    /// A local-time export imported in the wrong zone, then forgotten and imported in the right one:
    /// the store is the one a right first import makes, and the wrong patient is gone.
    @Test func aFileImportedWithWrongOptionsCanBeImportedAgain() throws {
        let file = try write("local.csv", ["p1,2026-01-05 08:00,glucose,120,mg/dL", "p1,2026-01-05 08:05,bolus,4,U",
                                           "p1,2026-01-05 08:10,carbs,40,g"])
        let right = try PatientStore(path: dir.appendingPathComponent("right.sqlite").path)
        _ = try right.importFile(file, importer: LogCSVImporter(), options: options(patient: "p_right", zone: "Europe/Madrid"))
        // Wrong twice: UTC instead of Madrid, and another id.
        _ = try store.importFile(file, importer: LogCSVImporter(), options: options(patient: "p_wrong"))
        let again = try store.importFile(file, importer: LogCSVImporter(), options: options(patient: "p_right", zone: "Europe/Madrid"))
        guard case .alreadyImported = again else { Issue.record("the store knows the file by content"); return }
        let forgotten = try store.forgetImports(of: [file])
        #expect(forgotten.map(\.recordsRemoved) == [3] && forgotten.map(\.patientRemoved) == [true])
        #expect(forgotten[0].line == "\(file.path): forgot import run 1 (patient p_wrong): 3 records removed; patient p_wrong removed (nothing else stored for it)")
        #expect(try store.patients().isEmpty && store.importRuns().isEmpty && store.recordCounts().isEmpty)
        guard case .imported = try store.importFile(file, importer: LogCSVImporter(), options: options(patient: "p_right", zone: "Europe/Madrid")) else {
            Issue.record("imported again"); return
        }
        #expect(try snapshot(store) == snapshot(right))
        // 08:00 in Madrid (UTC+1 in January) is 07:00 UTC.
        #expect(try store.log(for: PatientID("p_right")).glucose.map(\.time) == [Fixture.date("2026-01-05T07:00:00Z")])
    }

    /// A later overlapping file found records already stored: they are the first file's, so the first
    /// alone cannot be forgotten (nothing changes); the later one can, and then the first; or both at once.
    @Test func overlappingImportsAreForgottenNewestFirst() throws {
        let a = try write("a.csv", ["p1,2026-01-05T08:00:00Z,glucose,120,mg/dL", "p1,2026-01-05T08:05:00Z,glucose,125,mg/dL"])
        let b = try write("b.csv", ["p1,2026-01-05T08:05:00Z,glucose,125,mg/dL", "p1,2026-01-05T08:10:00Z,glucose,130,mg/dL"])
        let c = try write("c.csv", ["p2,2026-01-05T08:00:00Z,glucose,99,mg/dL"])
        let onlyA = try PatientStore(path: dir.appendingPathComponent("only-a.sqlite").path)
        _ = try onlyA.importFile(a, importer: LogCSVImporter(), options: options())
        _ = try onlyA.importFile(c, importer: LogCSVImporter(), options: options())
        for file in [a, b, c] { _ = try store.importFile(file, importer: LogCSVImporter(), options: options()) }
        let before = try snapshot(store)
        #expect(throws: ForgetImportError.laterImportsShareRecords(a.path, [b.path])) { try store.forgetImports(of: [a]) }
        #expect(try snapshot(store) == before)
        // A file never imported: refused, nothing changed, even beside one that could be forgotten.
        let never = try write("never.csv", ["p1,2026-01-06T08:00:00Z,glucose,100,mg/dL"])
        #expect(throws: ForgetImportError.notImported(never.path)) { try store.forgetImports(of: [b, never]) }
        #expect(try snapshot(store) == before)
        // b added one record (130); its 125 was a's.
        let forgotten = try store.forgetImports(of: [b])
        #expect(forgotten.map(\.recordsRemoved) == [1] && forgotten.map(\.patientRemoved) == [false])
        // p2's run comes after a's but is another patient's: no bar.
        #expect(try snapshot(store).dropFirst(2) == snapshot(onlyA).dropFirst(2))
        #expect(try store.log(for: PatientID("p1")).glucose.map(\.value.mgdL) == [120, 125])
        // Both at once, in any order.
        _ = try store.importFile(b, importer: LogCSVImporter(), options: options())
        let both = try store.forgetImports(of: [a, b])
        #expect(both.map(\.run.filePath) == [a.path, b.path] && both.map(\.recordsRemoved) == [2, 1])
        #expect(both.map(\.patientRemoved) == [false, true])
        #expect(try store.patients() == [PatientID("p2")])
    }

    /// A patient nightly has scored keeps its state while other imports remain (said in the line);
    /// its last import takes the state with it.
    @Test func aScoredPatientKeepsItsStateWhileItHasOtherImports() throws {
        let a = try write("a.csv", ["p1,2026-01-05T08:00:00Z,glucose,120,mg/dL"])
        let b = try write("b.csv", ["p1,2026-01-06T08:00:00Z,glucose,120,mg/dL"])
        for file in [a, b] { _ = try store.importFile(file, importer: LogCSVImporter(), options: options()) }
        let p1 = try PatientID("p1")
        try store.advanceScoring(for: p1, to: Fixture.date("2026-01-06T08:00:00Z"))
        let first = try store.forgetImports(of: [b])
        #expect(first.map(\.scoringStateKept) == [true])
        #expect(first[0].line.hasSuffix("1 record removed; its nightly scoring state is kept (nights already written stay as they are)"))
        #expect(try store.scoringState(for: p1) != nil)
        #expect(try store.forgetImports(of: [a]).map(\.patientRemoved) == [true])
        #expect(try store.scoringState(for: p1) == nil && store.patients().isEmpty)
    }
}

/// A reader meeting another process's write (an import committing holds SQLite's exclusive lock)
/// failed at once with "database is locked"; it now waits (`PatientStore.busyTimeout`).
@Suite struct StoreBusyTests {
    @Test func aReaderWaitsForAWriterToCommit() throws {
        let dir = ScratchSpace.root.appendingPathComponent("glucomodel-busy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("s.sqlite").path
        let file = dir.appendingPathComponent("a.csv")
        try Data("patient,time,event,value,unit\np1,2026-01-05T08:00:00Z,glucose,120,mg/dL\n".utf8).write(to: file)
        _ = try PatientStore(path: path).importFile(file, importer: LogCSVImporter(),
                                                    options: ImportOptions(timeZone: Fixture.utc, now: Fixture.date("2026-02-01T00:00:00Z")))
        let writer = try DatabaseQueue(path: path)
        let held = DispatchSemaphore(value: 0)
        let committed = LockedDate()
        DispatchQueue.global().async {
            try? writer.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN EXCLUSIVE")
                held.signal()
                Thread.sleep(forTimeInterval: 1)
                committed.set(Date())
                try db.execute(sql: "COMMIT")
            }
        }
        held.wait()
        // The reader waited for the writer: it ends after the commit (hunt T, stop 53: timed from
        // before the writer's thread started, a slow start made the wait look longer than it was).
        #expect(try PatientStore(path: path).patients() == [PatientID("p1")])
        let done = Date()
        #expect(committed.value.map { done >= $0 } == true)
    }
}

/// A date set on one thread and read on another.
final class LockedDate: @unchecked Sendable {
    private let lock = NSLock()
    private var date: Date?
    func set(_ d: Date) { lock.withLock { date = d } }
    var value: Date? { lock.withLock { date } }
}
