import Foundation
import GRDB
import Testing
@testable import GlucoModel

/// The store's streaming import gives the records and counts of the in-memory import.
@Suite struct StoreStreamingTests {
    func freshStore() throws -> (PatientStore, URL) {
        let dir = ScratchSpace.root.appendingPathComponent("glucomodel-stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return (try PatientStore(path: dir.appendingPathComponent("store.sqlite").path), dir)
    }

    /// Imports `url` in memory and into a fresh store; both must agree (or both fail, the store left empty).
    func compare(_ url: URL, _ importer: some PatientDataImporter, _ options: ImportOptions) throws {
        let (store, dir) = try freshStore()
        defer { try? FileManager.default.removeItem(at: dir) }
        let memory: ImportResult
        do { memory = try importer.importFile(at: url, options: options) } catch {
            #expect(throws: (any Error).self) { try store.importFile(url, importer: importer, options: options) }
            #expect(try store.importRuns().isEmpty && store.recordCounts().isEmpty, "\(url.lastPathComponent)")
            return
        }
        let run = try store.importFile(url, importer: importer, options: options).run
        let name = url.lastPathComponent
        #expect(try store.log(for: memory.log.patient) == memory.log, "\(name)")
        #expect(run.summary.rowsRead == memory.summary.rowsRead, "\(name)")
        #expect(run.summary.recordsKept == memory.summary.recordsKept, "\(name)")
        #expect(run.summary.skipped == memory.summary.skipped, "\(name)")
        #expect(run.summary.adjusted == memory.summary.adjusted, "\(name)")
        #expect(run.summary.notModelled == memory.summary.notModelled, "\(name)")
        #expect(run.summary.issues == memory.summary.issues, "\(name)")
        #expect(run.recordsAdded == memory.log.recordCount, "\(name)")
    }

    @Test func everyFixtureImportsAsInMemory() throws {
        let exports: [(String, any PatientDataImporter, String)] = [
            ("dexcom_madrid_dst.csv", DexcomClarityImporter(), "Europe/Madrid"), ("dexcom_mmol.csv", DexcomClarityImporter(), "Europe/Madrid"),
            ("same_dexcom.csv", DexcomClarityImporter(), "Europe/Madrid"),
            ("libre_us_mgdl.csv", LibreViewImporter(), "America/New_York"), ("libre_eu_mmol.csv", LibreViewImporter(), "Europe/Madrid"),
            ("libre_ambiguous.csv", LibreViewImporter(), "UTC"),
            ("nightscout_both.json", NightscoutImporter(), "UTC"), ("nightscout_entries.json", NightscoutImporter(), "UTC"),
            ("nightscout_treatments.json", NightscoutImporter(), "UTC"), ("same_nightscout.json", NightscoutImporter(), "UTC"),
            ("tidepool.json", TidepoolImporter(), "UTC"),
        ]
        for (name, importer, zone) in exports {
            try compare(ExportFixtures.url(name), importer, ExportFixtures.options(zone))
        }
        try compare(ExportFixtures.url("libre_ambiguous.csv"), LibreViewImporter(), ExportFixtures.options("UTC", order: .dayMonthYear))
        for name in ["complete.xml", "complete-copy.xml", "overlap.xml", "truncated.xml", "mismatched.xml", "wrong_root.xml"] {
            try compare(Fixture.url("ohio/\(name)"), OhioXMLImporter(), Fixture.options)
        }
        for name in ["log.csv", "no_value_column.csv"] {
            try compare(Fixture.url("csv/\(name)"), LogCSVImporter(), Fixture.options)
        }
    }

    /// A Dexcom export of `rows` EGV rows 5 min apart (values 70...319), in `order`, with every
    /// 10th row written twice: several builder batches (`PatientLogBuilder.batchSize`).
    func writeDexcom(_ url: URL, rows: Int, order: (inout [Int]) -> Void) throws {
        var indices = Array(0..<rows)
        order(&indices)
        let rows = indices.flatMap { i in
            Array(repeating: (index: i, value: 70 + (i * 7) % 250), count: i % 10 == 0 ? 2 : 1)
        }
        try DexcomTestExport.write(url, rows: rows)
    }

    @Test func largeUnorderedAndNewestFirstFilesAsInMemory() throws {
        let dir = ScratchSpace.root.appendingPathComponent("glucomodel-stream-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var options = ExportFixtures.options("UTC")
        options.patient = try PatientID("stream_p")
        let rows = 25_000
        var generator = SystemRandomNumberGenerator()
        let cases: [(String, (inout [Int]) -> Void, String, Int)] = [
            ("ordered.csv", { _ in }, "", 0),
            // Every row of the file: 25 000 readings and every 10th written twice.
            ("newest_first.csv", { $0.reverse() }, "newest-first rows reversed", rows + rows / 10),
            ("shuffled.csv", { $0.shuffle(using: &generator) }, "row out of time order (sorted)", -1),
            // In order but for the last two rows: 24 998 rows went straight into the store before the
            // disorder shows; one row (24 998, after 24 999) is earlier than one before it.
            ("one_late.csv", { $0.swapAt(rows - 1, rows - 2) }, "row out of time order (sorted)", 1),
        ]
        for (name, order, adjustment, count) in cases {
            let url = dir.appendingPathComponent(name)
            try writeDexcom(url, rows: rows, order: order)
            try compare(url, DexcomClarityImporter(), options)
            // Independently of the code: every time is distinct, so the 2 500 repeated rows (every
            // 10th of 25 000) are the only duplicates and 25 000 readings remain.
            let (store, storeDir) = try freshStore()
            defer { try? FileManager.default.removeItem(at: storeDir) }
            let run = try store.importFile(url, importer: DexcomClarityImporter(), options: options).run
            #expect(run.summary.recordsKept == rows && run.summary.skipped["duplicate"] == rows / 10, "\(name)")
            #expect(try store.recordCounts() == [.glucose: rows])
            if count > 0 { #expect(run.summary.adjusted[adjustment] == count, "\(name)") }
            if count < 0 { #expect((run.summary.adjusted[adjustment] ?? 0) > 0, "\(name)") }
            let log = try store.log(for: options.patient!)
            #expect(zip(log.glucose, log.glucose.dropFirst()).allSatisfy { $0.time < $1.time }, "\(name)")
        }
    }

    /// A store written by the v2 schema (as on main before v3: text kinds, AUTOINCREMENT ids, a unique
    /// index) opens with its records intact.
    @Test func migrationFromV2KeepsRecords() throws {
        let dir = ScratchSpace.root.appendingPathComponent("glucomodel-v2-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("store.sqlite").path
        do {
            let queue = try DatabaseQueue(path: path)
            try queue.write { db in
                try db.execute(sql: """
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations VALUES ('v1'), ('v2-scoring-state');
                    CREATE TABLE patients (id TEXT PRIMARY KEY NOT NULL, insulin_kind TEXT NOT NULL DEFAULT 'unknown');
                    CREATE TABLE import_runs (id INTEGER PRIMARY KEY AUTOINCREMENT, patient_id TEXT NOT NULL REFERENCES patients(id),
                        file_path TEXT NOT NULL, content_hash TEXT NOT NULL UNIQUE, format TEXT NOT NULL, started_at DOUBLE NOT NULL,
                        finished_at DOUBLE NOT NULL, records_added INTEGER NOT NULL, records_already_stored INTEGER NOT NULL,
                        other_records TEXT NOT NULL, summary TEXT NOT NULL);
                    CREATE TABLE records (id INTEGER PRIMARY KEY AUTOINCREMENT, patient_id TEXT NOT NULL REFERENCES patients(id),
                        kind TEXT NOT NULL, subtype TEXT NOT NULL, time DOUBLE NOT NULL, end_time DOUBLE, value DOUBLE NOT NULL,
                        extra DOUBLE, flag TEXT, moment TEXT, note TEXT, source_file TEXT NOT NULL, source_line INTEGER,
                        import_run_id INTEGER NOT NULL REFERENCES import_runs(id));
                    CREATE UNIQUE INDEX records_identity ON records(patient_id, kind, subtype, time, value);
                    CREATE TABLE scoring_state (patient_id TEXT PRIMARY KEY NOT NULL REFERENCES patients(id),
                        last_scored_at DOUBLE NOT NULL, updated_at DOUBLE NOT NULL);
                    INSERT INTO patients VALUES ('old_a', 'rapid'), ('old_b', 'unknown');
                    INSERT INTO import_runs VALUES (1, 'old_a', '/a.csv', 'h1', 'glucomodel-csv', 0, 0, 4, 0, '{"sleep":2}', '{"file":"a.csv"}');
                    INSERT INTO import_runs VALUES (2, 'old_b', '/b.csv', 'h2', 'glucomodel-csv', 0, 0, 1, 0, '{}', '{"file":"b.csv"}');
                    INSERT INTO records (patient_id, kind, subtype, time, end_time, value, extra, flag, moment, note, source_file, source_line, import_run_id)
                    VALUES ('old_a', 'glucose', 'cgm', 1000, NULL, 120, NULL, NULL, 'night', 'n', '', 3, 1),
                           ('old_a', 'glucose', 'cgm', 1000, NULL, 130, NULL, NULL, NULL, NULL, '', 4, 1),
                           ('old_a', 'bolus', 'normal', 900, NULL, 2.5, 30, 'rapid', NULL, NULL, '/x.csv', 5, 1),
                           ('old_a', 'temp_basal', '', 500, 800, 0.5, NULL, NULL, NULL, NULL, '', 6, 1),
                           ('old_b', 'heart_rate', '', 700, NULL, 61, NULL, NULL, NULL, NULL, '', 2, 2);
                    INSERT INTO scoring_state VALUES ('old_a', 1000, 5);
                    """)
            }
        }
        let store = try PatientStore(path: path)
        // Expected by hand from the rows above: at t=1000 the two CGM readings conflict and the one
        // inserted first (id 1, 120 mg/dL) is kept, as before the migration.
        var a = PatientLog(patient: try PatientID("old_a"))
        a.insulinKind = .rapid
        a.otherRecords = ["sleep": 2]
        a.glucose = [GlucoseReading(time: Date(timeIntervalSince1970: 1000), value: .mgdL(120), source: .cgm, moment: .night, note: "n")]
        a.boluses = [Bolus(time: Date(timeIntervalSince1970: 900), dose: InsulinUnits(2.5), type: .normal, kind: .rapid,
                           carbInput: Carbohydrate(grams: 30))]
        a.temporaryBasals = [TemporaryBasal(start: Date(timeIntervalSince1970: 500), end: Date(timeIntervalSince1970: 800),
                                            rate: InsulinRate(unitsPerHour: 0.5))]
        #expect(try store.log(for: a.patient) == a)
        var b = PatientLog(patient: try PatientID("old_b"))
        b.heartRate = [HeartRateSample(time: Date(timeIntervalSince1970: 700), beatsPerMinute: 61)]
        #expect(try store.log(for: b.patient) == b)
        #expect(try store.recordCounts() == [.glucose: 2, .bolus: 1, .temporaryBasal: 1, .heartRate: 1])
        #expect(try store.recordCounts(for: b.patient) == [.heartRate: 1])
        #expect(try store.newestGlucoseTime(for: a.patient) == Date(timeIntervalSince1970: 1000))
        #expect(try store.scoringState(for: a.patient)?.lastScoredAt == Date(timeIntervalSince1970: 1000))
        #expect(try store.patients().map(\.rawValue) == ["old_a", "old_b"])
        // A new import after the migration adds a third patient next to them.
        _ = try store.importFile(Fixture.url("ohio/complete.xml"), importer: OhioXMLImporter(), options: Fixture.options)
        #expect(try store.patients().count == 3)
        #expect(try store.log(for: a.patient) == a)
    }
}
