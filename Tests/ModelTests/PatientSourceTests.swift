import Foundation
import Testing
@testable import GlucoModel

/// The two patient sources (export files, a store) give equal data, under one merge rule.
@Suite struct PatientSourceTests {
    static let patient = try! PatientID("p_overlap")
    /// Every fixture with files that overlap in time for one patient (forced to one id).
    static let overlapFixtures: [[String]] = [
        ["ohio/complete.xml", "ohio/overlap.xml"],
        ["ohio/complete.xml", "ohio/complete-copy.xml", "ohio/overlap.xml"],
        ["exports/same_dexcom.csv", "exports/same_nightscout.json"],
        ["exports/nightscout_entries.json", "exports/nightscout_treatments.json", "exports/nightscout_both.json"],
        ["exports/libre_eu_mmol.csv", "exports/libre_us_mgdl.csv"],
        ["csv/log.csv", "ohio/complete.xml", "exports/tidepool.json"],
    ]

    static var options: ImportOptions {
        var o = Fixture.options
        o.patient = patient
        return o
    }

    /// Imports `files` into a new store in the order the files source reads them (sorted paths).
    /// The GlucoModel CSV header of the hand-written files below.
    static let header = "patient,time,event,value,unit,duration,type,moment,note\n"

    /// A new empty folder for a test's files (the caller removes it).
    func scratchFolder(_ name: String) throws -> URL {
        let dir = ScratchSpace.root.appendingPathComponent("glucomodel-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    func store(with files: [URL], options: ImportOptions = PatientSourceTests.options) throws -> String {
        let dir = ScratchSpace.root.appendingPathComponent("glucomodel-source-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("store.sqlite").path
        let store = try PatientStore(path: path)
        for url in files {
            let type = try #require(try ImportFormats.detect(url))
            let importer = ImportFormats.importer(type)
            _ = try store.importFile(url, importer: importer, options: options)
        }
        return path
    }

    @Test func aCopyOfAFileThatFailedIsStillRead() throws {
        // An export renamed to a pseudonymous id beside the original, whose name is no id. Before:
        // the original (sorted first) failed, and the copy was "same content as Jane Doe.csv; not
        // read again", so p_renamed was trained by nobody (a store made of the folder had it).
        let dir = ScratchSpace.root.appendingPathComponent("glucomodel-copy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let export = """
            Index,Timestamp (YYYY-MM-DDThh:mm:ss),Event Type,Event Subtype,Patient Info,Device Info,Source Device ID,Glucose Value (mg/dL),Insulin Value (u),Carb Value (grams),Duration (hh:mm:ss),Glucose Rate of Change (mg/dL/min),Transmitter Time (Long Integer),Transmitter ID
            1,2026-02-01T08:00:00,EGV,,,,iOS G6,110,,,,,,
            2,2026-02-01T08:05:00,EGV,,,,iOS G6,114,,,,,,

            """
        for name in ["Jane Doe.csv", "p_renamed.csv"] { try Data(export.utf8).write(to: dir.appendingPathComponent(name)) }
        let loaded = try ExportFiles(paths: [dir.path], options: Fixture.options).load()
        #expect(loaded.patients.map(\.patient.rawValue) == ["p_renamed"])
        #expect(loaded.patients.first?.log.glucose.map(\.value.mgdL) == [110, 114])
        #expect(loaded.failures.count == 1 && loaded.failures[0].description.contains("Jane Doe.csv"), "\(loaded.failures)")
        // A second copy of the file that was read is still passed over.
        try Data(export.utf8).write(to: dir.appendingPathComponent("q_again.csv"))
        let again = try ExportFiles(paths: [dir.path], options: Fixture.options).load()
        #expect(again.patients.map(\.patient.rawValue) == ["p_renamed"])
        #expect(again.summaries.contains { $0.issues.contains { $0.message.contains("same content as") } })
    }

    @Test(arguments: overlapFixtures)
    func storeAndFilesGiveEqualLogs(_ names: [String]) throws {
        let paths = names.map { Fixture.url($0).path }
        let fromFiles = try ExportFiles(paths: paths, options: Self.options).load()
        #expect(fromFiles.failures.isEmpty)
        let storePath = try store(with: try CohortLoader.files(paths))
        let fromStore = try StoreSource(path: storePath).load()
        #expect(fromFiles.patients.map(\.patient) == [Self.patient])
        #expect(fromStore.patients.map(\.patient) == [Self.patient])
        let a = try #require(fromFiles.patients.first), b = try #require(fromStore.patients.first)
        #expect(a.log == b.log)
        #expect(a.log.recordCount > 0)
        #expect(a.testStart == b.testStart)
    }

    @Test func overlappingOhioFilesByHand() throws {
        // complete.xml keeps 7 readings (08:00 ... 08:35, the first of the two at 08:15); overlap.xml
        // repeats 08:15 = 140 and adds 08:40 = 160: 8 readings, 08:15 once.
        let paths = ["ohio/complete.xml", "ohio/overlap.xml"].map { Fixture.url($0).path }
        let log = try #require(try ExportFiles(paths: paths, options: Self.options).load().patients.first).log
        #expect(log.glucose.count == 8)
        #expect(log.glucose.filter { $0.time == Fixture.date("2026-01-05T08:15:00Z") }.map(\.value.mgdL) == [140])
        #expect(log.glucose.last.map { ($0.time, $0.value.mgdL) }! == (Fixture.date("2026-01-05T08:40:00Z"), 160))
    }

    @Test func twoFilesThatDisagreeSaySoAsTheStoreDoes() throws {
        // Before: train, predict and report read two exports of one patient that disagreed at the
        // same instants without a word, keeping the file whose name sorts first; import-data warned.
        let dir = try scratchFolder("conflict")
        defer { try? FileManager.default.removeItem(at: dir) }
        let header = Self.header
        let a = header + """
            p_overlap,2026-01-05T08:00:00Z,glucose,100,mg/dL,,cgm,,
            p_overlap,2026-01-05T08:05:00Z,glucose,104,mg/dL,,cgm,,
            p_overlap,2026-01-05T08:10:00Z,glucose,108,mg/dL,,cgm,,
            p_overlap,2026-01-05T08:10:00Z,bolus,2,U,,normal,,
            p_overlap,2026-01-05T08:15:00Z,bolus,6.1,U,,normal,,

            """
        // b: the same 08:00 reading, 08:05 and the bolus with other values, 08:10 a finger stick (another
        // event), 08:15 the same bolus as a JavaScript uploader writes 6.1 (one value, not a conflict).
        let b = header + """
            p_overlap,2026-01-05T08:00:00Z,glucose,100,mg/dL,,cgm,,
            p_overlap,2026-01-05T08:05:00Z,glucose,134,mg/dL,,cgm,,
            p_overlap,2026-01-05T08:10:00Z,glucose,120,mg/dL,,finger,,
            p_overlap,2026-01-05T08:10:00Z,bolus,2.5,U,,normal,,
            p_overlap,2026-01-05T08:15:00Z,bolus,6.1000000000000005,U,,normal,,

            """
        // c: another day, no record shared.
        let c = header + "p_overlap,2026-01-06T08:00:00Z,glucose,90,mg/dL,,cgm,,\n"
        for (name, text) in [("a.csv", a), ("b.csv", b), ("c.csv", c)] { try Data(text.utf8).write(to: dir.appendingPathComponent(name)) }
        let loaded = try ExportFiles(paths: [dir.path], options: Self.options).load()
        #expect(loaded.patients.first?.log.glucose.map(\.value.mgdL) == [100, 104, 108, 120, 90])
        let reason = "record differing from one of a file read before (that file's kept)"
        let summaries = Dictionary(uniqueKeysWithValues: loaded.summaries.map { (URL(fileURLWithPath: $0.file).lastPathComponent, $0) })
        #expect(summaries["a.csv"]?.adjusted[reason] == nil && summaries["c.csv"]?.adjusted[reason] == nil)
        let bSummary = try #require(summaries["b.csv"])
        #expect(bSummary.adjusted[reason] == 2)
        let aPath = dir.appendingPathComponent("a.csv").path
        #expect(bSummary.issues.map(\.description) == [
            "\(dir.appendingPathComponent("b.csv").path):3: warning: a file read before (\(aPath)) holds this glucose at the same instant "
                + "with another value (134 here, 104 there); that file's is kept",
            "\(dir.appendingPathComponent("b.csv").path):5: warning: a file read before (\(aPath)) holds this bolus at the same instant "
                + "with another value (2.5 here, 2 there); that file's is kept",
        ])
        // The store, given the same files in the same order, finds the same two.
        let store = try PatientStore(path: try store(with: try CohortLoader.files([dir.path])))
        let runs = try store.importRuns()
        #expect(runs.map { $0.summary.adjusted["record differing from one an earlier import stored (the stored one kept)"] ?? 0 } == [0, 2, 0])
        // The bolus b's file holds with another amount is left out of the insulin on board, as a
        // file's own conflicting duplicate is: kept as skipped insulin, so a dose near it is refused.
        // Before, it was dropped silently and the dose rested on whichever file came first (hunt M, stop 52).
        let bPath = dir.appendingPathComponent("b.csv").path
        let fromFiles = try #require(loaded.patients.first?.log.skippedInsulin)
        #expect(fromFiles == [SkippedInsulin(kind: .bolus, time: Fixture.date("2026-01-05T08:10:00Z"), location: SourceLocation(file: bPath, line: 5),
                                             conflictingAmount: 2.5, keptFrom: "a file read before (\(aPath))")])
        let fromStore = try store.log(for: PatientID("p_overlap")).skippedInsulin
        #expect(fromStore.map(\.conflictingAmount) == [2.5] && fromStore.map(\.keptFrom) == ["an earlier import"])
        #expect(fromStore.map(\.location.line) == [5])
        #expect(loaded.patients.first?.log.boluses.map(\.dose.units) == [2, 6.1])
    }

    /// Two sources of one person's data whose times differ by seconds (LibreView writes them to the
    /// minute, Nightscout to the second; a re-export shifted by a second) are one record per event,
    /// read together or imported into a store in either order: before, every reading, bolus and meal
    /// was there twice (a report's CGM active 0.7%, insulin on board doubled; hunt M, stop 52).
    @Test func anExportToTheMinuteBesideOneToTheSecondIsOneRecordEach() throws {
        let dir = try scratchFolder("twice")
        defer { try? FileManager.default.removeItem(at: dir) }
        let header = Self.header
        // Times to the second: readings at :37, a bolus and a meal at 08:07:45.
        let seconds = header + """
            p_overlap,2026-01-05T08:00:37Z,glucose,100,mg/dL,,cgm,,
            p_overlap,2026-01-05T08:05:37Z,glucose,104,mg/dL,,cgm,,
            p_overlap,2026-01-05T08:07:45Z,bolus,2,U,,normal,,
            p_overlap,2026-01-05T08:07:45Z,carbs,30,g,,,,
            p_overlap,2026-01-05T08:10:37Z,glucose,108,mg/dL,,cgm,,

            """
        // The same to the minute, 37-45 s earlier; and what the other does not hold: a second 2 U
        // bolus 20 s after the first (one stored record stands for one record of another source),
        // a 2.5 U bolus (another value), a reading 3 mg/dL off (another value: two sources' same
        // reading differs by at most 1.4) and one a minute off.
        let minutes = header + """
            p_overlap,2026-01-05T08:00:00Z,glucose,100,mg/dL,,cgm,,
            p_overlap,2026-01-05T08:05:00Z,glucose,104,mg/dL,,cgm,,
            p_overlap,2026-01-05T08:07:00Z,bolus,2,U,,normal,,
            p_overlap,2026-01-05T08:07:00Z,carbs,30,g,,,,
            p_overlap,2026-01-05T08:07:20Z,bolus,2,U,,normal,,
            p_overlap,2026-01-05T08:08:00Z,bolus,2.5,U,,normal,,
            p_overlap,2026-01-05T08:10:00Z,glucose,111,mg/dL,,cgm,,
            p_overlap,2026-01-05T08:11:37Z,glucose,108,mg/dL,,cgm,,

            """
        let a = dir.appendingPathComponent("a-seconds.csv"), b = dir.appendingPathComponent("b-minutes.csv")
        try Data(seconds.utf8).write(to: a)
        try Data(minutes.utf8).write(to: b)
        func t(_ hms: String) -> Date { Fixture.date("2026-01-05T\(hms)Z") }
        let log = try #require(try ExportFiles(paths: [a.path, b.path], options: Self.options).load().patients.first?.log)
        #expect(log.glucose.map { ($0.time, $0.value.mgdL) }.elementsEqual(
            [(t("08:00:37"), 100), (t("08:05:37"), 104), (t("08:10:00"), 111), (t("08:10:37"), 108), (t("08:11:37"), 108)]) { $0 == $1 })
        #expect(log.boluses.map { ($0.time, $0.dose.units) }.elementsEqual(
            [(t("08:07:20"), 2), (t("08:07:45"), 2), (t("08:08:00"), 2.5)]) { $0 == $1 })
        #expect(log.carbs.map(\.time) == [t("08:07:45")])
        // The store keeps the same records, and counts the repeats as already stored.
        let db = try PatientStore(path: try store(with: [a, b]))
        let stored = try db.log(for: Self.patient)
        #expect(stored.glucose == log.glucose && stored.boluses == log.boluses && stored.carbs == log.carbs)
        #expect(try db.importRuns().map(\.recordsAlreadyStored) == [0, 4])
        // Imported the other way round, the minute file's records are kept and the second file's repeats go.
        let storedReversed = try PatientStore(path: try store(with: [b, a])).log(for: Self.patient)
        #expect(storedReversed.glucose.map(\.time) == [t("08:00:00"), t("08:05:00"), t("08:10:00"), t("08:10:37"), t("08:11:37")])
        #expect(storedReversed.boluses.map(\.time) == [t("08:07:00"), t("08:07:20"), t("08:08:00")])
        #expect(storedReversed.carbs.map(\.time) == [t("08:07:00")])
    }

    /// Review, stop 52: a LibreView export in mmol/L (5.5, read back 99.09 mg/dL) beside Nightscout's
    /// 99 mg/dL is one reading; and a bolus two files disagree on names the file that holds the kept
    /// one, not the first file that disagreed about anything.
    @Test func anMmolExportIsOneRecordAndAConflictNamesItsFile() throws {
        let dir = try scratchFolder("mmol")
        defer { try? FileManager.default.removeItem(at: dir) }
        let header = Self.header
        let files = [
            ("a-cgm.csv", "p_overlap,2026-01-05T08:00:00Z,glucose,100,mg/dL,,cgm,,\np_overlap,2026-01-05T08:05:37Z,glucose,99,mg/dL,,cgm,,\n"),
            ("b-pump.csv", "p_overlap,2026-01-05T08:10:00Z,bolus,2,U,,normal,,\n"),
            ("c-other.csv", "p_overlap,2026-01-05T08:00:00Z,glucose,130,mg/dL,,cgm,,\np_overlap,2026-01-05T08:05:00Z,glucose,5.5,mmol/L,,cgm,,\n"
                + "p_overlap,2026-01-05T08:10:00Z,bolus,2.5,U,,normal,,\n"),
        ]
        for (name, rows) in files { try Data((header + rows).utf8).write(to: dir.appendingPathComponent(name)) }
        let log = try #require(try ExportFiles(paths: [dir.path], options: Self.options).load().patients.first?.log)
        #expect(log.glucose.map(\.value.mgdL) == [100, 99])
        let pump = dir.appendingPathComponent("b-pump.csv").path
        #expect(log.skippedInsulin.map(\.keptFrom) == ["a file read before (\(pump))"])
        let stored = try PatientStore(path: try store(with: files.map { dir.appendingPathComponent($0.0) })).log(for: Self.patient)
        #expect(stored.glucose.map(\.value.mgdL) == [100, 99])
    }

    @Test func mergeKeepsTheFirstRecordOfEachEvent() throws {
        let t = Fixture.date("2026-01-05T08:00:00Z"), later = t.addingTimeInterval(300)
        var a = PatientLog(patient: Self.patient), b = PatientLog(patient: Self.patient)
        a.glucose = [GlucoseReading(time: t, value: .mgdL(100)), GlucoseReading(time: later, value: .mgdL(120))]
        b.glucose = [GlucoseReading(time: t, value: .mgdL(110)), GlucoseReading(time: t, value: .mgdL(105), source: .fingerStick)]
        b.insulinKind = .rapid
        let ab = a.merging(b), ba = b.merging(a)
        // One event per (instant, source): the first log's CGM reading at t, b's finger stick, a's later reading.
        #expect(ab.glucose.map(\.value.mgdL) == [100, 105, 120])
        #expect(ba.glucose.map(\.value.mgdL) == [110, 105, 120])
        #expect(ab.insulinKind == .rapid && ba.insulinKind == .rapid)
    }

    /// Before, a folder of daily files was merged one file at a time (quadratic: 1000 daily
    /// exports took a dose ask 46 s). Merging all at once must give what merging one after another
    /// gave: seeded random logs overlapping in time, with events repeated across files (same
    /// instant, other values), out of order, and other kinds.
    @Test func mergingManyLogsAtOnceEqualsMergingThemOneByOne() {
        var rng = SplitMix64(seed: 2026)
        let t0 = Fixture.date("2026-01-05T00:00:00Z")
        func time() -> Date { t0.addingTimeInterval(Double(rng.next() % 200) * 300) }
        let logs = (0..<7).map { i -> PatientLog in
            var log = PatientLog(patient: Self.patient)
            log.glucose = (0..<40).map { _ in
                GlucoseReading(time: time(), value: .mgdL(Double(40 + rng.next() % 300)), source: rng.next() % 5 == 0 ? .fingerStick : .cgm)
            }
            log.boluses = (0..<5).map { _ in Bolus(time: time(), dose: InsulinUnits(Double(rng.next() % 10) + 0.5)) }
            log.carbs = (0..<4).map { _ in CarbIntake(time: time(), amount: Carbohydrate(grams: Double(rng.next() % 80) + 5)) }
            log.otherRecords = ["sleep": i]
            log.insulinKind = i == 3 ? .rapid : i == 5 ? .ultraRapid : .unknown
            return log
        }
        let oneByOne = logs.dropFirst().reduce(PatientLog(patient: Self.patient).merging(logs[0])) { $0.merging($1) }
        let atOnce = PatientLog.merging(logs)
        #expect(atOnce == oneByOne)
        #expect(atOnce.insulinKind == .ultraRapid && atOnce.otherRecords["sleep"] == 21)
        #expect(atOnce.glucose.count < 7 * 40)  // repeated events kept once
    }

    @Test func missingStoreIsAnInputErrorAndIsNotCreated() throws {
        let path = ScratchSpace.root.appendingPathComponent("no-store-\(UUID().uuidString).sqlite").path
        #expect(throws: InputError.self) { try StoreSource(path: path).load() }
        #expect(!FileManager.default.fileExists(atPath: path))
        // An empty file (a backup cut short) is not made a store by reading it (hunt AG, stop 57).
        FileManager.default.createFile(atPath: path, contents: Data())
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect { try StoreSource(path: path).load() } throws: { "\($0)".contains("the store file is empty (0 bytes), not a store") }
        #expect((try FileManager.default.attributesOfItem(atPath: path))[.size] as? Int == 0)
    }

    @Test func aCommandLineNamesFilesOrAStoreNotBoth() throws {
        #expect(try patientSource(paths: ["a.csv"], store: nil, options: Self.options) is ExportFiles)
        #expect(try patientSource(paths: [], store: "s.sqlite", options: Self.options) is StoreSource)
        #expect(throws: InputError.self) { try patientSource(paths: ["a.csv"], store: "s.sqlite", options: Self.options) }
        #expect(throws: InputError.self) { try patientSource(paths: [], store: nil, options: Self.options) }
    }
}

extension PatientSourceTests {
    @Test func onePatientIsReadAlone() throws {
        // Two patients in one store; asking for one reads only that one (and the same from files).
        let paths = ["ohio/complete.xml", "csv/log.csv"].map { Fixture.url($0).path }
        let store = try self.store(with: paths.map { URL(fileURLWithPath: $0) }, options: Fixture.options)
        let id = try PatientID("fx_001")
        let fromStore = try StoreSource(path: store).load(patient: id)
        let fromFiles = try ExportFiles(paths: paths, options: Fixture.options).load(patient: id)
        #expect(fromStore.patients.map(\.patient) == [id])
        #expect(fromFiles.patients.map(\.patient) == [id])
        #expect(fromStore.patients.first?.log == fromFiles.patients.first?.log)
        #expect(try StoreSource(path: store).load().patients.map(\.patient.rawValue) == ["fx_001", "p_csv"])
    }
}
