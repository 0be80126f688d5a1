import Foundation
import GRDB
import Testing
@testable import GlucoModel
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An import killed with SIGKILL half-way must leave a store that opens and holds only whole files.
///
/// Runs the built `glucomodel-train import-data` in a child process: a small Dexcom Clarity file is
/// imported whole first, then a large one is started and killed once its write transaction is under
/// way (a `-journal` file exists, or the `-wal` file has grown). The store must then open and hold
/// exactly the small file's records and run.
@Suite("Store: import killed mid-way")
struct StoreKillTests {
    /// The `glucomodel-train` executable beside the test bundle (`swift test` builds every product).
    static var executable: URL? {
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for dir in [products, products.deletingLastPathComponent()] {
            let url = dir.appendingPathComponent("glucomodel-train")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }

    /// A Dexcom Clarity export with `rows` EGV rows every 5 minutes from `start` (all kept: values
    /// 70...319 mg/dL, distinct times), written as the export does (header, one preamble row).
    static func writeDexcom(_ url: URL, rows: Int, start: Date) throws {
        var text = "Index,Timestamp (YYYY-MM-DDThh:mm:ss),Event Type,Event Subtype,Patient Info,Device Info,Source Device ID,"
            + "Glucose Value (mg/dL),Insulin Value (u),Carb Value (grams),Duration (hh:mm:ss),"
            + "Glucose Rate of Change (mg/dL/min),Transmitter Time (Long Integer),Transmitter ID\n"
            + "1,,FirstName,,Someone,,,,,,,,,\n"
        text.reserveCapacity(rows * 90 + 400)
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "UTC")
        format.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        for i in 0..<rows {
            let time = format.string(from: start.addingTimeInterval(Double(i) * 300))
            text += "\(i + 2),\(time),EGV,,,,iOS G6,\(70 + (i * 7) % 250),,,,\(Double(i % 9 - 4) / 2),\(1000 + i * 300),8ABCDE\n"
        }
        try Data(text.utf8).write(to: url)
    }

    static func fileSize(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1
    }

    enum Outcome { case killed, finished(Int32) }

    /// Starts the import of `file`, waits until its write transaction is under way, then SIGKILLs it.
    static func importAndKill(_ exe: URL, file: URL, store: String) throws -> Outcome {
        let process = Process()
        process.executableURL = exe
        process.arguments = ["import-data", file.path, "--store", store, "--patient", "kill_p", "--time-zone", "UTC"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let walBefore = max(fileSize(store + "-wal"), 0)
        try process.run()
        let deadline = Date().addingTimeInterval(300)
        while process.isRunning && Date() < deadline {
            let writing = fileSize(store + "-journal") >= 0 || fileSize(store + "-wal") > walBefore + 64 * 1024
            if writing {
                usleep(20_000)
                if process.isRunning {
                    kill(process.processIdentifier, SIGKILL)
                    process.waitUntilExit()
                    return process.terminationReason == .uncaughtSignal ? .killed : .finished(process.terminationStatus)
                }
                break
            }
            usleep(2_000)
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return .finished(process.terminationStatus)
    }

    // Skipped, and shown as skipped, when no glucomodel-train sits beside the test binary (`swift build` first).
    @Test(.enabled(if: StoreKillTests.executable != nil)) func killedImportLeavesOnlyWholeFiles() throws {
        let exe = try #require(Self.executable)
        let day = 86_400.0
        let first0 = Date(timeIntervalSince1970: 1_262_304_000)   // 2010-01-01T00:00Z
        let big0 = first0.addingTimeInterval(400 * day)          // no overlap with the first file
        var rows = 150_000                                        // ~13 MB; doubled while the import outruns the kill
        for attempt in 1...3 {
            let dir = ScratchSpace.root.appendingPathComponent("glucomodel-kill-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let store = dir.appendingPathComponent("store.sqlite").path
            let small = dir.appendingPathComponent("small.csv"), big = dir.appendingPathComponent("big.csv")
            try Self.writeDexcom(small, rows: 12, start: first0)
            try Self.writeDexcom(big, rows: rows, start: big0)

            let whole = Process()
            whole.executableURL = exe
            whole.arguments = ["import-data", small.path, "--store", store, "--patient", "kill_p", "--time-zone", "UTC"]
            whole.standardOutput = FileHandle.nullDevice
            try whole.run()
            whole.waitUntilExit()
            try #require(whole.terminationStatus == 0)

            let outcome = try Self.importAndKill(exe, file: big, store: store)
            // The store must open (recovering the hot journal or WAL) and be intact.
            let reopened = try PatientStore(path: store)
            let check = try reopened.db.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
            #expect(check == ["ok"])
            let runs = try reopened.importRuns()
            let counts = try reopened.recordCounts()
            switch outcome {
            case .killed:
                // Nothing of the killed file: one run (the small file), its 12 readings only.
                #expect(runs.map(\.filePath) == [small.path])
                #expect(counts == [.glucose: 12])
                #expect(try reopened.log(for: PatientID("kill_p")).glucose.count == 12)
                return
            case let .finished(status):
                // The import outran the kill: then the big file must be there whole (12 + rows readings).
                #expect(status == 0)
                #expect(runs.map(\.filePath) == [small.path, big.path])
                #expect(counts == [.glucose: 12 + rows])
                print("StoreKillTests: attempt \(attempt) finished before the kill (\(rows) rows); retrying with a larger file")
                rows *= 2
            }
        }
        // Three imports that all outran the kill tested no recovery from one (hunt T, stop 53). Said,
        // not failed: whether a kill lands first depends on the machine's speed, and a test that
        // fails by it would be flaky.
        print("StoreKillTests: the import finished before every kill; the kill recovery was not exercised on this machine")
    }

    /// Runs `import-data` on `files` into `store` to the end; returns its exit status and output.
    static func importAll(_ exe: URL, files: [URL], store: String) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = exe
        process.arguments = ["import-data"] + files.map(\.path) + ["--store", store, "--patient", "kill_b", "--time-zone", "UTC"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    /// Many small files are committed in batches: killed once a first batch is committed and the
    /// next is under way, the store holds whole files, a first part of the list in order, and
    /// running the same import again ends with the store of an uninterrupted import.
    @Test(.enabled(if: StoreKillTests.executable != nil)) func killedBatchLeavesWholeFilesAndARerunCompletes() throws {
        let exe = try #require(Self.executable)
        var count = 250
        for attempt in 1...3 {
            let dir = ScratchSpace.root.appendingPathComponent("glucomodel-killb-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let start = Date(timeIntervalSince1970: 1_262_304_000)
            let files = try (0..<count).map { i -> URL in
                let url = dir.appendingPathComponent(String(format: "day%04d.csv", i))
                try Self.writeDexcom(url, rows: 24, start: start.addingTimeInterval(Double(i) * 86_400))
                return url
            }
            let store = dir.appendingPathComponent("store.sqlite").path
            _ = try PatientStore(path: store)  // created and migrated: the next journal is the import's
            let process = Process()
            process.executableURL = exe
            process.arguments = ["import-data"] + files.map(\.path) + ["--store", store, "--patient", "kill_b", "--time-zone", "UTC"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            var killed = false
            let deadline = Date().addingTimeInterval(300)
            // The store file is written at a commit (the batches here fit SQLite's page cache): once
            // it has grown past its size when the first batch began, and a journal is there again,
            // the second batch is under way. (Not read with SQLite: a reader can make a commit busy.)
            var sizeAtFirstBatch: Int?
            while process.isRunning && Date() < deadline {
                let journal = Self.fileSize(store + "-journal") >= 0
                if journal, sizeAtFirstBatch == nil { sizeAtFirstBatch = Self.fileSize(store) }
                if journal, let size = sizeAtFirstBatch, Self.fileSize(store) > size {
                    usleep(30_000)
                    if process.isRunning {
                        kill(process.processIdentifier, SIGKILL)
                        killed = true
                    }
                    break
                }
                usleep(5_000)
            }
            process.waitUntilExit()
            guard killed, process.terminationReason == .uncaughtSignal else {
                print("StoreKillTests: attempt \(attempt) finished before the kill (\(count) files); retrying with more")
                count *= 2
                continue
            }
            let reopened = try PatientStore(path: store)
            #expect(try reopened.db.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") } == ["ok"])
            let runs = try reopened.importRuns()
            // Whole files, the first ones in order, and not all of them (none if the kill came
            // while the first batch was still committing).
            #expect(runs.count < count)
            if runs.isEmpty { print("StoreKillTests: the kill came before the first batch was committed") }
            #expect(runs.map(\.filePath) == files.prefix(runs.count).map(\.path))
            #expect(runs.allSatisfy { $0.recordsAdded == 24 })
            #expect(try reopened.recordCounts() == [.glucose: 24 * runs.count])

            let (status, output) = try Self.importAll(exe, files: files, store: store)
            #expect(status == 0)
            #expect(output.components(separatedBy: ": already imported (same content as run").count - 1 == runs.count)
            let reference = dir.appendingPathComponent("reference.sqlite").path
            #expect(try Self.importAll(exe, files: files, store: reference).0 == 0)
            let dump = { (path: String) in
                try DatabaseQueue(path: path).read { db in
                    (try Row.fetchAll(db, sql: "SELECT * FROM records ORDER BY patient, kind, subtype, time, value, seq").map { Array($0.databaseValues) },
                     try Row.fetchAll(db, sql: "SELECT id, patient_id, file_path, content_hash, records_added, records_already_stored FROM import_runs ORDER BY id")
                        .map { Array($0.databaseValues) })
                }
            }
            let (records, runRows) = try dump(store), (referenceRecords, referenceRuns) = try dump(reference)
            #expect(records == referenceRecords)
            #expect(runRows == referenceRuns)
            return
        }
        Issue.record("the import finished before every kill")
    }
}
