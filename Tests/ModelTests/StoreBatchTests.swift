import Foundation
import GRDB
import Testing
@testable import GlucoModel

/// `PatientStore.importFiles`: several files per transaction, each still all or nothing, with the
/// results and the store of one transaction per file (`importFile`).
@Suite struct StoreBatchTests {
    let options = Fixture.options

    func freshStore() throws -> (PatientStore, URL) {
        let dir = ScratchSpace.root.appendingPathComponent("glucomodel-batch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return (try PatientStore(path: dir.appendingPathComponent("store.sqlite").path), dir)
    }

    /// A file's result, comparable across runs (the run's times zeroed).
    enum Outcome: Equatable {
        case imported(ImportRun), already(Int64), failed(String)

        init(_ result: Result<StoreImportOutcome, any Error>) {
            switch result {
            case var .success(.imported(run)):
                run.startedAt = Date(timeIntervalSince1970: 0)
                run.finishedAt = run.startedAt
                self = .imported(run)
            case let .success(.alreadyImported(run)): self = .already(run.id)
            case let .failure(error as NothingKeptError): self = .failed("nothing kept: \(error.summary)")
            case let .failure(error): self = .failed("\(error)")
            }
        }

        var isFailure: Bool { if case .failed = self { return true } else { return false } }
    }

    /// Everything the store holds, sorted, without the runs' times (and the summaries decoded:
    /// their JSON's key order is not stable).
    struct Dump: Equatable {
        var records: [[DatabaseValue]], runs: [ImportRun], patients: [[DatabaseValue]], sequence: [[DatabaseValue]]
    }

    func dump(_ store: PatientStore) throws -> Dump {
        let rows = { (sql: String) in try store.db.read { db in try Row.fetchAll(db, sql: sql).map { Array($0.databaseValues) } } }
        let runs = try store.importRuns().map { run -> ImportRun in
            var run = run
            run.startedAt = Date(timeIntervalSince1970: 0)
            run.finishedAt = run.startedAt
            return run
        }
        return Dump(records: try rows("SELECT * FROM records ORDER BY patient, kind, subtype, time, value, seq"),
                    runs: runs, patients: try rows("SELECT * FROM patients ORDER BY id"),
                    sequence: try rows("SELECT * FROM sqlite_sequence ORDER BY name"))
    }

    /// The format of `url` as import-data detects it (a file in none fails).
    func prepare(_ url: URL) throws -> PreparedImport {
        try PreparedImport(url: url, format: nil, options: options)
    }

    /// One transaction per file, as import-data did before batches.
    func importOneByOne<Item>(_ store: PatientStore, _ items: [Item], _ prepare: (Item) throws -> PreparedImport) -> [Outcome] {
        items.map { item in
            Outcome(Result {
                let file = try prepare(item)
                return try store.importFile(file.url, importer: file.importer, options: file.options)
            })
        }
    }

    /// `importFiles`; returns the results and the size of each committed batch.
    func importBatched<Item>(_ store: PatientStore, _ items: [Item], limits: ImportBatchLimits = .standard,
                             afterFile: ((Int) throws -> Void)? = nil,
                             _ prepare: (Item) throws -> PreparedImport) throws -> (outcomes: [Outcome], batches: [Int]) {
        var outcomes: [Outcome] = [], batches: [Int] = []
        try store.importFiles(items, limits: limits, prepare: prepare, afterFile: afterFile) { results in
            batches.append(results.count)
            outcomes += results.map { Outcome($0.result) }
        }
        return (outcomes, batches)
    }

    // MARK: generated files

    static let header = "patient,time,event,value,unit,duration,type,note\n"

    /// A GlucoModel CSV of `patient`'s day `day` (from 2026-01-01 UTC): readings every 5 minutes
    /// (some missing, some repeated), a basal rate, meals with boluses; sometimes out of order.
    /// `shift` moves every glucose value (a conflicting re-send of the same day).
    static func day(_ r: inout SplitMix64, patient: String, day: Int, days: Int = 1, shift: Int = 0) -> String {
        let start = Fixture.date("2026-01-01T00:00:00Z").addingTimeInterval(Double(day) * 86400)
        let format = ISO8601DateFormatter()
        var rows: [String] = []
        for d in 0..<days {
            let t0 = start.addingTimeInterval(Double(d) * 86400)
            rows.append("\(patient),\(format.string(from: t0)),basal,\(String(format: "%.2f", Double.random(in: 0.6...1.0, using: &r))),U/h,,,")
            for step in 0..<288 where Int.random(in: 0..<20, using: &r) != 0 {
                let value = 100 + (step * 7 + day * 13) % 150 + shift
                let row = "\(patient),\(format.string(from: t0.addingTimeInterval(Double(step) * 300))),glucose,\(value),mg/dL,,cgm,"
                rows.append(row)
                if Int.random(in: 0..<50, using: &r) == 0 { rows.append(row) }
            }
            for hour in [7, 12, 19] {
                let t = format.string(from: t0.addingTimeInterval(Double(hour) * 3600 + Double(Int.random(in: 0..<12, using: &r)) * 300))
                rows.append("\(patient),\(t),carbs,\(Int.random(in: 20...80, using: &r)),g,,,")
                rows.append("\(patient),\(t),bolus,\(String(format: "%.1f", Double.random(in: 1...8, using: &r))),U,,normal,")
            }
        }
        if Int.random(in: 0..<4, using: &r) == 0 { rows.shuffle(using: &r) } else { rows.sort { $0.split(separator: ",")[1] < $1.split(separator: ",")[1] } }
        return header + rows.joined(separator: "\n") + "\n"
    }

    /// `count` files in `dir` of three patients' days, with repeats (the same bytes again), re-sent
    /// days with other values, two-day files over stored days, files whose every row fails and
    /// files in no format.
    static func files(_ r: inout SplitMix64, count: Int, in dir: URL) throws -> [URL] {
        var urls: [URL] = []
        var written: [(String, String)] = []
        for i in 0..<count {
            let patient = "bp\(Int.random(in: 0..<3, using: &r))"
            let dayNumber = Int.random(in: 0..<12, using: &r)
            let text: String
            switch Int.random(in: 0..<12, using: &r) {
            case 0 where !written.isEmpty: text = written[Int.random(in: 0..<written.count, using: &r)].1
            case 1: text = day(&r, patient: patient, day: dayNumber, shift: 9)
            case 2: text = day(&r, patient: patient, day: dayNumber, days: 2)
            case 3: text = header + "\(patient),1767225600,glucose,120,mg/dL,,cgm,\n\(patient),1767225900,glucose,121,mg/dL,,cgm,\n"
            case 4: text = "not a data file \(i)\n"
            default: text = day(&r, patient: patient, day: dayNumber)
            }
            let url = dir.appendingPathComponent(String(format: "f%03d.csv", i))
            try Data(text.utf8).write(to: url)
            written.append((url.path, text))
            urls.append(url)
        }
        return urls
    }

    // MARK: tests

    /// A batch whose middle files fail (one after it wrote rows, one with every row skipped, one in
    /// no format) stores the others and nothing of the failed ones, with the results of one
    /// transaction per file.
    @Test func failingFilesInTheMiddleOfABatch() throws {
        let dir = ScratchSpace.root.appendingPathComponent("glucomodel-batch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        var r = SplitMix64(seed: 7)
        let good = try (0..<3).map { i -> URL in
            let url = dir.appendingPathComponent("good\(i).csv")
            try Data(Self.day(&r, patient: "bp0", day: i).utf8).write(to: url)
            return url
        }
        // The file fails after its patient, run and three records were written.
        let failing = try FixedLogImporter.failingHalfWay("half_way", from: "2026-01-01T06:00:00Z")
        let half = dir.appendingPathComponent("half.csv")
        try Data("anything\n".utf8).write(to: half)
        let skipped = dir.appendingPathComponent("skipped.csv")
        try Data((Self.header + "bp0,1767225600,glucose,120,mg/dL,,cgm,\n").utf8).write(to: skipped)
        let noFormat = dir.appendingPathComponent("noformat.csv")
        try Data("hello\n".utf8).write(to: noFormat)
        let items = [good[0], half, good[1], skipped, noFormat, good[2]]
        let prepare = { (url: URL) throws -> PreparedImport in
            url == half ? PreparedImport(url: url, importer: failing, options: options) : try self.prepare(url)
        }
        let (batched, _) = try freshStore()
        let (single, _) = try freshStore()
        let result = try importBatched(batched, items, prepare)
        let expected = importOneByOne(single, items, prepare)
        #expect(result.batches == [6])
        #expect(result.outcomes == expected)
        #expect(result.outcomes.map(\.isFailure) == [false, true, false, true, true, false])
        let (batchedDump, singleDump) = (try dump(batched), try dump(single))
        #expect(batchedDump == singleDump)
        #expect(try batched.patients().map(\.rawValue) == ["bp0"])
        #expect(try batched.importRuns().map(\.filePath) == [good[0].path, good[1].path, good[2].path])
        let failedRows = try batched.db.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM records WHERE import_run_id NOT IN (SELECT id FROM import_runs)")
        }
        #expect(failedRows == 0)
        // The run ids are those of one transaction per file (a failed file's run row is rolled back).
        #expect(try batched.importRuns().map(\.id) == [1, 2, 3])
    }

    /// A file imported with a format its content is not (`import-data --format ohio-xml` on a
    /// GlucoModel CSV) fails saying so, as every other reader does: import-data chose its importer
    /// itself and said only "malformed XML: the document is empty" (hunt N, stop 52).
    @Test func aNamedFormatTheContentIsNotSaysSo() throws {
        let (store, dir) = try freshStore()
        var r = SplitMix64(seed: 3)
        let csv = dir.appendingPathComponent("day.csv")
        try Data(Self.day(&r, patient: "bp0", day: 0).utf8).write(to: csv)
        var outcomes: [Outcome] = [], prepared = 0
        try store.importFiles([csv, csv]) { url in
            prepared += 1
            return try PreparedImport(url: url, format: prepared == 1 ? "ohio-xml" : nil, options: options)
        } committed: { results in
            outcomes += results.map { Outcome($0.1) }
        }
        guard case let .failed(message) = outcomes.first else { Issue.record("\(outcomes)"); return }
        #expect(message.contains("the file's content is glucomodel-csv's, not ohio-xml's"), "\(message)")
        #expect(outcomes.count == 2 && !outcomes[1].isFailure)
        #expect(throws: InputError.self) { try PreparedImport(url: csv, format: "dexcom", options: options) }
    }

    /// A run stopped inside a batch (as a kill would) leaves the store as the last committed batch
    /// left it and reports nothing of the stopped batch; running the same files again gives the
    /// store of an uninterrupted run.
    @Test(arguments: [1, 2, 3, 100])
    func stoppedBatchRollsBackAndARerunCompletes(batchFiles: Int) throws {
        struct Kill: Error {}
        let (reference, dir) = try freshStore()
        var r = SplitMix64(seed: 11)
        let urls = try Self.files(&r, count: 14, in: dir)
        let limits = ImportBatchLimits(files: batchFiles, seconds: 1000)
        _ = try importBatched(reference, urls, limits: limits, prepare)

        let (store, _) = try freshStore()
        _ = try importBatched(store, Array(urls[..<4]), limits: limits, prepare)
        let killAt = 9  // stopped after the sixth file of the second run (urls[9])
        var committedFiles = 0
        #expect(throws: Kill.self) {
            try store.importFiles(Array(urls[4...]), limits: limits, prepare: prepare, afterFile: { i in
                if i == killAt - 4 { throw Kill() }
            }) { results in committedFiles += results.count }
        }
        // Only the batches committed before the stop are stored: whole batches of `batchFiles`.
        let expectedCommitted = (killAt - 4) / batchFiles * batchFiles
        #expect(committedFiles == expectedCommitted)
        let (partial, _) = try freshStore()
        _ = try importBatched(partial, Array(urls[..<(4 + expectedCommitted)]), limits: .eachFile, prepare)
        let (storeDump, partialDump) = (try dump(store), try dump(partial))
        #expect(storeDump == partialDump)

        // The re-run: the committed files are already imported, the rest go in.
        let rerun = try importBatched(store, urls, limits: limits, prepare)
        #expect(rerun.outcomes.count == urls.count)
        let (rerunDump, referenceDump) = (try dump(store), try dump(reference))
        #expect(rerunDump == referenceDump)
    }

    /// On random files (repeats, conflicts, overlaps, failures), batches of any size give the results
    /// and the store of one transaction per file.
    @Test(arguments: [(UInt64(1), 1), (2, 3), (3, 7), (4, 100), (5, 2)])
    func batchesEqualOneFileAtATime(seed: UInt64, batchFiles: Int) throws {
        let (batched, dir) = try freshStore()
        let (single, _) = try freshStore()
        var r = SplitMix64(seed: seed)
        let urls = try Self.files(&r, count: 30, in: dir)
        let result = try importBatched(batched, urls, limits: ImportBatchLimits(files: batchFiles, seconds: 1000), prepare)
        let expected = importOneByOne(single, urls, prepare)
        #expect(result.outcomes == expected)
        #expect(result.batches.allSatisfy { $0 <= batchFiles } && result.batches.reduce(0, +) == urls.count)
        #expect(result.batches.count == (urls.count + batchFiles - 1) / batchFiles)
        let (batchedDump, singleDump) = (try dump(batched), try dump(single))
        #expect(batchedDump == singleDump)
        // The generated set has every case.
        #expect(expected.contains { if case .already = $0 { return true } else { return false } })
        #expect(expected.contains { $0.isFailure })
        #expect(expected.contains { if case let .imported(run) = $0 { return run.recordsAlreadyStored > 0 } else { return false } })
    }

    /// A batch ends once its time is up (checked after each file): with 0 seconds every file is a
    /// batch of its own.
    @Test func batchEndsWhenItsTimeIsUp() throws {
        let (store, dir) = try freshStore()
        var r = SplitMix64(seed: 3)
        let urls = try Self.files(&r, count: 5, in: dir)
        let result = try importBatched(store, urls, limits: ImportBatchLimits(files: 100, seconds: 0), prepare)
        #expect(result.batches == [1, 1, 1, 1, 1])
    }
}
