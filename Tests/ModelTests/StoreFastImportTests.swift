import Foundation
import GRDB
import Testing
@testable import GlucoModel

/// The fast import path: content hashed during the import (fingerprint pre-check), records inserted
/// several per statement, and what they must not change.
@Suite struct StoreFastImportTests {
    func tempDir() throws -> URL {
        let dir = ScratchSpace.root.appendingPathComponent("glucomodel-fast-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A Dexcom export of EGV rows `indices` (row i at 2010-01-01 + 5i min, i + 100 mg/dL), in that order.
    func writeDexcom(_ url: URL, _ indices: [Int], lastValue: Int? = nil) throws {
        let rows = indices.enumerated().map { n, i in
            (index: i, value: n == indices.count - 1 ? lastValue ?? 100 + i % 200 : 100 + i % 200)
        }
        try DexcomTestExport.write(url, rows: rows)
    }

    func options() throws -> ImportOptions {
        var options = ExportFixtures.options("UTC")
        options.patient = try PatientID("fast_p")
        return options
    }

    /// A run stored without a fingerprint (as before schema v4) is still found by the full hash at the
    /// end of the import: the import is rolled back and reported as already imported.
    @Test func runWithoutFingerprintIsFoundAtTheEnd() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("store.sqlite").path
        let url = dir.appendingPathComponent("a.csv")
        try writeDexcom(url, Array(0..<500))
        let store = try PatientStore(path: path)
        guard case let .imported(first) = try store.importFile(url, importer: DexcomClarityImporter(), options: options()) else {
            Issue.record("expected a first import"); return
        }
        #expect(first.recordsAdded == 500)
        try DatabaseQueue(path: path).write { db in try db.execute(sql: "UPDATE import_runs SET content_size = NULL, head_hash = NULL") }
        let again = try store.importFile(url, importer: DexcomClarityImporter(), options: options())
        guard case let .alreadyImported(previous) = again else { Issue.record("expected alreadyImported"); return }
        #expect(previous.id == first.id)
        #expect(try store.importRuns().count == 1)
        #expect(try store.recordCounts() == [.glucose: 500])
    }

    /// Two files of the same size and the same first MiB but different last rows are two contents:
    /// the second is hashed in full before its import and imported.
    @Test func sameFingerprintOtherContentIsImported() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try PatientStore(path: dir.appendingPathComponent("store.sqlite").path)
        // 30 000 rows of about 43 bytes: about 1.3 MB, more than the 1 MiB head. The last row's value
        // 150 or 151 (same length) differs: same size and head, another content.
        let (a, b) = (dir.appendingPathComponent("a.csv"), dir.appendingPathComponent("b.csv"))
        try writeDexcom(a, Array(0..<30_000), lastValue: 150)
        try writeDexcom(b, Array(0..<30_000), lastValue: 151)
        #expect(try FileFingerprint(of: a) == FileFingerprint(of: b))
        #expect(try FileManager.default.attributesOfItem(atPath: a.path)[.size] as? Int ?? 0 > FileFingerprint.headBytes)
        let first = try store.importFile(a, importer: DexcomClarityImporter(), options: options())
        let second = try store.importFile(b, importer: DexcomClarityImporter(), options: options())
        guard case .imported = first, case let .imported(run) = second else { Issue.record("expected two imports"); return }
        // Row 29 999 differs in value: a new identity (time, value); the 29 999 others are stored already.
        #expect(run.recordsAdded == 1 && run.recordsAlreadyStored == 29_999)
        #expect(try store.importRuns().count == 2)
        guard case .alreadyImported = try store.importFile(b, importer: DexcomClarityImporter(), options: options()) else {
            Issue.record("expected alreadyImported"); return
        }
    }

    /// A file overlapping a stored one whose rows turn out of order only at its end: its early rows were
    /// inserted straight away, some statements adding only part of their rows (the overlap), and must
    /// all come back for sorting. The result is the union of both files.
    @Test func overlappingFileOutOfOrderAtItsEnd() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try PatientStore(path: dir.appendingPathComponent("store.sqlite").path)
        let (a, b, union) = (dir.appendingPathComponent("a.csv"), dir.appendingPathComponent("b.csv"), dir.appendingPathComponent("u.csv"))
        try writeDexcom(a, Array(0..<3_000))
        var late = Array(2_000..<5_000)
        late.swapAt(late.count - 1, late.count - 2)
        try writeDexcom(b, late)
        try writeDexcom(union, Array(0..<5_000))
        _ = try store.importFile(a, importer: DexcomClarityImporter(), options: options())
        let run = try store.importFile(b, importer: DexcomClarityImporter(), options: options()).run
        // By hand: b holds rows 2 000...4 999; 2 000...2 999 are a's rows (same time and value).
        #expect(run.summary.recordsKept == 3_000)
        #expect(run.recordsAdded == 2_000 && run.recordsAlreadyStored == 1_000)
        #expect(run.summary.adjusted["row out of time order (sorted)"] == 1)
        #expect(try store.recordCounts() == [.glucose: 5_000])
        let expected = try DexcomClarityImporter().importFile(at: union, options: options()).log
        #expect(try store.log(for: options().patient!).glucose == expected.glucose)
    }
}
