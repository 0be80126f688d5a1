import Foundation
import Testing
@testable import GlucoModel

/// An importer that returns a fixed log, to make the store fail half-way on purpose.
struct FixedLogImporter: PatientDataImporter {
    static let formatName = "fixed"
    static func recognizes(head: String) -> Bool { false }
    let log: PatientLog
    init(log: PatientLog) { self.log = log }
    init() { self.init(log: PatientLog(patient: try! PatientID("fixed"))) }
    func importFile(at url: URL, options: ImportOptions) throws -> ImportResult {
        ImportResult(log: log, summary: ImportSummary(file: url.path))
    }

    /// Three good readings of `patient` from `start`, then a NaN, which SQLite stores as NULL and the
    /// NOT NULL column rejects: the insert fails after the patient, the run and 3 records were written.
    static func failingHalfWay(_ patient: String, from start: String) throws -> FixedLogImporter {
        var log = PatientLog(patient: try PatientID(patient))
        log.glucose = (0..<4).map { i in
            GlucoseReading(time: Fixture.date(start).addingTimeInterval(Double(i) * 300), value: .mgdL(i == 3 ? .nan : 100 + Double(i)))
        }
        return FixedLogImporter(log: log)
    }
}

@Suite struct StoreTests {
    let options = Fixture.options

    func freshStore() throws -> (PatientStore, URL) {
        let dir = ScratchSpace.root.appendingPathComponent("glucomodel-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("store.sqlite")
        return (try PatientStore(path: path.path), dir)
    }

    /// Everything observable in the store, to compare before and after.
    func snapshot(_ store: PatientStore) throws -> ([PatientID], [Int64], [RecordKind: Int], [PatientLog]) {
        let patients = try store.patients()
        return (patients, try store.importRuns().map(\.id), try store.recordCounts(), try patients.map { try store.log(for: $0) })
    }

    @Test func importTwiceAddsNothing() throws {
        let (store, _) = try freshStore()
        let url = Fixture.url("ohio/complete.xml")
        let first = try store.importFile(url, importer: OhioXMLImporter(), options: options)
        guard case let .imported(run) = first else { Issue.record("expected a first import"); return }
        #expect(run.recordsAdded == 17 && run.recordsAlreadyStored == 0)
        #expect(run.summary.recordsKept == 17)
        // A new patient: every record is added (the kinds' counts, as the store holds them below).
        #expect(run.recordsAddedByKind == [.glucose: 7, .basal: 2, .temporaryBasal: 1, .bolus: 2, .carbs: 1, .exercise: 1, .heartRate: 2, .weight: 1])
        let before = try snapshot(store)
        // The same bytes under another name: recognized by content hash, nothing read or added.
        let again = try store.importFile(Fixture.url("ohio/complete-copy.xml"), importer: OhioXMLImporter(), options: options)
        guard case let .alreadyImported(previous) = again else { Issue.record("expected alreadyImported"); return }
        #expect(previous.id == run.id)
        let after = try snapshot(store)
        #expect(before.0 == after.0 && before.1 == after.1 && before.2 == after.2 && before.3 == after.3)
        #expect(after.2 == [.glucose: 7, .basal: 2, .temporaryBasal: 1, .bolus: 2, .carbs: 1, .exercise: 1, .heartRate: 2, .weight: 1])
    }

    @Test func logRoundTripsThroughTheStore() throws {
        let (store, _) = try freshStore()
        let url = Fixture.url("ohio/complete.xml")
        let imported = try OhioXMLImporter().importFile(at: url, options: options).log
        _ = try store.importFile(url, importer: OhioXMLImporter(), options: options)
        let csv = Fixture.url("csv/log.csv")
        let csvLog = try LogCSVImporter().importFile(at: csv, options: options).log
        _ = try store.importFile(csv, importer: LogCSVImporter(), options: options)
        #expect(try store.patients().map(\.rawValue) == ["fx_001", "p_csv"])
        #expect(try store.log(for: imported.patient) == imported)
        #expect(try store.log(for: csvLog.patient) == csvLog)
    }

    @Test func overlappingFilesDoNotDuplicate() throws {
        let (store, _) = try freshStore()
        _ = try store.importFile(Fixture.url("ohio/complete.xml"), importer: OhioXMLImporter(), options: options)
        let outcome = try store.importFile(Fixture.url("ohio/overlap.xml"), importer: OhioXMLImporter(), options: options)
        // overlap.xml: CGM 140 at 08:15 and the 45 g breakfast are already stored; CGM 160 at 08:40 is new.
        #expect(outcome.run.recordsAdded == 1 && outcome.run.recordsAlreadyStored == 2)
        // Moved to the stored patient: only the new reading counts as added.
        #expect(outcome.run.recordsAddedByKind == [.glucose: 1])
        #expect(try store.recordCounts()[.glucose] == 8)
        // Named by the options: the same count, found among the patient's rows.
        let (named, _) = try freshStore()
        var options = self.options
        options.patient = try PatientID("fx_001")
        _ = try named.importFile(Fixture.url("ohio/complete.xml"), importer: OhioXMLImporter(), options: options)
        let second = try named.importFile(Fixture.url("ohio/overlap.xml"), importer: OhioXMLImporter(), options: options)
        #expect(second.run.recordsAdded == 1 && second.run.recordsAddedByKind == [.glucose: 1])
        #expect(try store.importRuns().count == 2)
    }

    /// A later file that disagrees with stored records at the same instants is imported, its
    /// differing records named with their lines and both values; the store reads the earlier
    /// import's back. A finger stick beside a CGM reading is no conflict, nor is a repeated record.
    @Test func laterFileDisagreeingWithStoredRecordsIsWarned() throws {
        let (_, dir) = try freshStore()
        func write(_ name: String, _ rows: [String]) throws -> URL {
            let url = dir.appendingPathComponent(name)
            try Data((["patient,time,event,value,unit,duration,type"] + rows).joined(separator: "\n").utf8).write(to: url)
            return url
        }
        let first = try write("a.csv", ["p_conf,2026-01-05T08:00:00Z,glucose,120,mg/dL,,cgm", "p_conf,2026-01-05T08:05:00Z,glucose,125,mg/dL,,cgm",
                                        "p_conf,2026-01-05T08:10:00Z,bolus,4,U,,normal"])
        let second = try write("b.csv", ["p_conf,2026-01-05T08:00:00Z,glucose,118,mg/dL,,cgm", "p_conf,2026-01-05T08:00:00Z,glucose,119,mg/dL,,finger",
                                         "p_conf,2026-01-05T08:05:00Z,glucose,125,mg/dL,,cgm", "p_conf,2026-01-05T08:10:00Z,bolus,4,U,30,square",
                                         "p_conf,2026-01-05T08:15:00Z,glucose,130,mg/dL,,cgm"])
        // The patient found in the file (its rows move to the stored patient), then named by the options.
        var named = options
        named.patient = try PatientID("p_conf")
        for (i, options) in [options, named].enumerated() {
            let store = try PatientStore(path: dir.appendingPathComponent("store-\(i).sqlite").path)
            _ = try store.importFile(first, importer: LogCSVImporter(), options: options)
            let run = try store.importFile(second, importer: LogCSVImporter(), options: options).run
            #expect(run.summary.adjusted["record differing from one an earlier import stored (the stored one kept)"] == 2)
            #expect(run.summary.issues.map(\.location.line) == [2, 5])
            #expect(run.summary.issues[0].message.contains("glucose at the same instant with another value (118 here, 120 stored)"))
            #expect(run.summary.issues[1].message.contains("this bolus"))
            let log = try store.log(for: try PatientID("p_conf"))
            #expect(log.glucose.map(\.value.mgdL) == [120, 119, 125, 130])
            #expect(log.boluses.map(\.type) == [.normal])
        }
    }

    @Test func failureHalfWayLeavesTheStoreAsItWas() throws {
        let (store, dir) = try freshStore()
        _ = try store.importFile(Fixture.url("ohio/complete.xml"), importer: OhioXMLImporter(), options: options)
        let before = try snapshot(store)
        let failing = try FixedLogImporter.failingHalfWay("rollback_1", from: "2026-01-06T00:00:00Z")
        let file = dir.appendingPathComponent("half.csv")
        try Data("anything\n".utf8).write(to: file)
        #expect(throws: (any Error).self) {
            try store.importFile(file, importer: failing, options: options)
        }
        let after = try snapshot(store)
        #expect(before.0 == after.0 && before.1 == after.1 && before.2 == after.2 && before.3 == after.3)
        // A file that cannot be read at all changes nothing either.
        #expect(throws: InputError.self) {
            try store.importFile(Fixture.url("ohio/truncated.xml"), importer: OhioXMLImporter(), options: options)
        }
        let afterTruncated = try snapshot(store)
        #expect(afterTruncated.1 == before.1 && afterTruncated.2 == before.2)
    }

    /// Finding 7: a file whose every row was skipped (here every time is after "now", read in the
    /// wrong zone) was recorded as imported with an empty patient, so the same file with the right
    /// time zone was "already imported". Now it fails with its summary, the store is unchanged,
    /// and the corrected import goes in.
    @Test func fileWithEveryRowSkippedFailsAndCanBeImportedAgain() throws {
        let (store, dir) = try freshStore()
        let file = dir.appendingPathComponent("local.csv")
        try Data("""
            patient,time,event,value,unit
            p_local,2026-01-05T08:00,glucose,120,mg/dL
            p_local,2026-01-05T08:05,glucose,125,mg/dL

            """.utf8).write(to: file)
        // 08:00 in UTC is after "now" (07:00 UTC): every row is future-dated.
        let now = Fixture.date("2026-01-05T07:00:00Z")
        let utc = ImportOptions(timeZone: Fixture.utc, now: now)
        let before = try snapshot(store)
        do {
            _ = try store.importFile(file, importer: LogCSVImporter(), options: utc)
            Issue.record("expected NothingKeptError")
        } catch let error as NothingKeptError {
            #expect(error.summary.keptNothing && error.summary.rowsSkipped == 2 && error.summary.recordsKept == 0)
            #expect(error.summary.issues.first?.location.line == 2)
            #expect(error.description.contains("local.csv") && error.description.contains("no records kept"))
        }
        let after = try snapshot(store)
        #expect(before.0 == after.0 && before.1 == after.1 && before.2 == after.2 && after.0.isEmpty)
        // Read in Tokyo's zone, 08:00 is 23:00 UTC the day before: both rows are kept.
        let tokyo = ImportOptions(timeZone: try #require(TimeZone(identifier: "Asia/Tokyo")), now: now)
        guard case let .imported(run) = try store.importFile(file, importer: LogCSVImporter(), options: tokyo) else {
            Issue.record("expected the corrected file to be imported"); return
        }
        #expect(run.recordsAdded == 2 && run.patient.rawValue == "p_local")
        #expect(try store.importRuns().count == 1)
    }

    /// A GlucoModel CSV holds one patient; a patient given (`--patient pb`) is the id its
    /// patient is read as (a file renamed to another id). Before, every row was read as pb's,
    /// whatever patient it named: a file of two patients stored the other one's boluses as pb's
    /// insulin on board. Now a row naming a second patient is skipped with a warning, as without
    /// `--patient`; and when that second patient is the one given, the file is refused at the
    /// row, nothing stored: which rows are pb's is not known.
    @Test func aPatientGivenReadsTheFilesPatientAndNoOther() throws {
        let (store, dir) = try freshStore()
        func write(_ name: String, _ rows: [String]) throws -> URL {
            let url = dir.appendingPathComponent(name)
            try Data((["patient,time,event,value,unit"] + rows).joined(separator: "\n").utf8).write(to: url)
            return url
        }
        var options = ImportOptions(timeZone: Fixture.utc, now: Fixture.date("2026-01-06T00:00:00Z"))
        options.patient = try PatientID("pb")
        // pb's file: the empty cell is pb's, pa's rows are skipped.
        let own = try write("own.csv", ["pb,2026-01-05T06:00:00Z,glucose,180,mg/dL", "pa,2026-01-05T06:02:00Z,bolus,5,U",
                                        ",2026-01-05T06:05:00Z,glucose,185,mg/dL"])
        let a = try LogCSVImporter().importFile(at: own, options: options)
        #expect(a.log.patient.rawValue == "pb" && a.log.boluses.isEmpty && a.log.glucose.map(\.value.mgdL) == [180, 185])
        #expect(a.summary.skipped == ["other patient": 1] && a.summary.issues.map(\.location.line) == [3])
        // Another id's file read as pb's; a third patient skipped.
        let renamed = try write("renamed.csv", ["pa,2026-01-05T06:00:00Z,glucose,100,mg/dL", "pq,2026-01-05T06:01:00Z,bolus,3,U",
                                                "pa,2026-01-05T06:05:00Z,bolus,2,U"])
        let b = try LogCSVImporter().importFile(at: renamed, options: options)
        #expect(b.log.patient.rawValue == "pb" && b.log.boluses.map(\.dose.units) == [2] && b.summary.skipped == ["other patient": 1])
        // pa's rows, then pb's: refused at pb's first row, nothing stored.
        let two = try write("two.csv", ["pa,2026-01-05T06:00:00Z,glucose,100,mg/dL", "pa,2026-01-05T06:05:00Z,bolus,5,U",
                                        "pb,2026-01-05T06:02:00Z,glucose,180,mg/dL"])
        #expect {
            _ = try store.importFile(two, importer: LogCSVImporter(), options: options)
        } throws: { error in
            guard let e = error as? InputError else { return false }
            return e.issue.location == GlucoModel.SourceLocation(file: two.path, line: 4, field: "patient")
                && e.issue.message.hasPrefix("a row of patient 'pb' after rows of 'pa', which --patient 'pb' reads as theirs")
        }
        #expect(try store.importRuns().isEmpty)
        // Files without --patient are read as before: the second patient's rows are skipped.
        options.patient = nil
        let c = try LogCSVImporter().importFile(at: two, options: options)
        #expect(c.log.patient.rawValue == "pa" && c.summary.skipped == ["other patient": 1])
    }

    /// A file with no rows at all kept nothing but skipped nothing either: an empty import, not a failure.
    @Test func emptyFileIsNoFailure() throws {
        let (store, dir) = try freshStore()
        let file = dir.appendingPathComponent("p_empty.csv")
        try Data("patient,time,event,value,unit\n".utf8).write(to: file)
        var named = options
        named.patient = try PatientID("p_empty")
        let outcome = try store.importFile(file, importer: LogCSVImporter(), options: named)
        guard case .imported = outcome else { Issue.record("expected an import"); return }
        // Nor is a Dexcom export holding only its preamble (rows skipped as expected, quietly).
        let preamble = dir.appendingPathComponent("p_dexcom.csv")
        try Data("""
            Index,Timestamp (YYYY-MM-DDThh:mm:ss),Event Type,Event Subtype,Patient Info,Device Info,Source Device ID,Glucose Value (mg/dL),Insulin Value (u),Carb Value (grams),Duration (hh:mm:ss),Glucose Rate of Change (mg/dL/min),Transmitter Time (Long Integer),Transmitter ID
            1,,FirstName,,Jacinta,,,,,,,,,
            2,,LastName,,Doe,,,,,,,,,

            """.utf8).write(to: preamble)
        guard case let .imported(run) = try store.importFile(preamble, importer: DexcomClarityImporter(), options: named) else {
            Issue.record("expected an import"); return
        }
        #expect(run.summary.rowsSkipped == 2 && run.summary.rowsSkippedForProblems == 0 && !run.summary.keptNothing)
        // An exact duplicate row is dropped quietly whether the file runs oldest or newest first.
        for (name, order) in [("p_dup_up", [0, 0, 5]), ("p_dup_down", [5, 0, 0])] {
            let dup = dir.appendingPathComponent("\(name).csv")
            let rows = order.map { "\(name),2026-01-05T08:\(String(format: "%02d", $0)):00Z,glucose,100,mg/dL" }
            try Data((["patient,time,event,value,unit"] + rows).joined(separator: "\n").utf8).write(to: dup)
            guard case let .imported(run) = try store.importFile(dup, importer: LogCSVImporter(), options: options) else {
                Issue.record("expected an import of \(name)"); continue
            }
            #expect(run.summary.rowsSkipped == 1 && run.summary.rowsSkippedForProblems == 0, "\(name)")
        }
    }

    @Test func sha256MatchesPublishedVectors() {
        // FIPS 180-2 appendix B test vectors.
        var abc = ContentDigest()
        abc.update(Array("abc".utf8))
        #expect(abc.hexDigest() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        var two = ContentDigest()
        two.update(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
        #expect(two.hexDigest() == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        var million = ContentDigest()
        for _ in 0..<1000 { million.update([UInt8](repeating: 0x61, count: 1000)) }
        #expect(million.hexDigest() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
