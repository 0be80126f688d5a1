import Foundation
import GlucoModel
import Testing

/// SplitMix64 (Steele, Lea & Flood 2014): a tiny seeded generator, so every fuzz case can be replayed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Mutations of valid exports: truncation, byte flips/inserts/deletes/duplications, line
/// duplication/deletion/swaps, splices of hostile tokens, and wholly random bytes.
enum Mutator {
    static let tokens: [String] = [
        ",", "\"", "\n", "\r\n", "{", "}", "[", "]", ":", "\\", "\\u", "\u{FEFF}", "Low", "High", "NaN", "nan", "inf",
        "-1", "0", "1e309", "-0", "99999999999999999999", "1e-320", "2026-10-25T02:30:00", "2026-03-29T02:30:00",
        "13-13-2026 25:61", "02-30-2026 12:00 PM", "null", "true", "\"sgv\"", "\"eventType\"", "\"type\": \"cbg\"",
        "\"date\": 1e20", "\"duration\": -5", "É", "\u{0}", String(repeating: "9", count: 400), String(repeating: "[", count: 200),
    ]

    static func mutate(_ input: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var b = input
        for _ in 0..<Int.random(in: 1...4, using: &rng) {
            let n = b.count
            switch Int.random(in: 0..<9, using: &rng) {
            case 0: if n > 0 { b = Array(b[..<Int.random(in: 0..<n, using: &rng)]) }
            case 1: if n > 0 { b[Int.random(in: 0..<n, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
            case 2: b.insert(UInt8.random(in: 0...255, using: &rng), at: Int.random(in: 0...n, using: &rng))
            case 3:
                if n > 1 {
                    let i = Int.random(in: 0..<n, using: &rng)
                    b.removeSubrange(i..<min(n, i + Int.random(in: 1...16, using: &rng)))
                }
            case 4:
                if n > 1 {
                    let i = Int.random(in: 0..<n, using: &rng)
                    let piece = b[i..<min(n, i + Int.random(in: 1...64, using: &rng))]
                    b.insert(contentsOf: piece, at: Int.random(in: 0...n, using: &rng))
                }
            case 5, 6:
                var lines = b.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
                guard lines.count > 1 else { continue }
                let i = Int.random(in: 0..<lines.count, using: &rng), j = Int.random(in: 0..<lines.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: lines.insert(lines[i], at: j)
                case 1: lines.remove(at: i)
                default: lines.swapAt(i, j)
                }
                b = Array(lines.joined(separator: [0x0A]))
            case 7:
                let t = Array(tokens[Int.random(in: 0..<tokens.count, using: &rng)].utf8)
                let i = Int.random(in: 0...n, using: &rng)
                if n > 0, Bool.random(using: &rng) {
                    b.replaceSubrange(i..<min(n, i + Int.random(in: 1...8, using: &rng)), with: t)
                } else {
                    b.insert(contentsOf: t, at: i)
                }
            default:
                b = (0..<Int.random(in: 0...512, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            }
        }
        return b
    }
}

/// Runs an importer over mutated fixtures and checks every outcome is a clean result or an `InputError`.
struct FuzzRun {
    var cases = 0, results = 0, errors = 0
    var slowest: TimeInterval = 0
    var failures: [String] = []

    static var casesPerImporter: Int { ProcessInfo.processInfo.environment["GLUCOMODEL_FUZZ_CASES"].flatMap(Int.init) ?? 300 }
    static var secondsPerImporter: Double {
        ProcessInfo.processInfo.environment["GLUCOMODEL_FUZZ_SECONDS"].flatMap(Double.init) ?? 4
    }

    mutating func run(_ importer: any PatientDataImporter, fixtures: [String], ext: String, seed: UInt64) throws {
        let dir = ScratchSpace.root.appendingPathComponent("fuzz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let inputs = try fixtures.map { try [UInt8](Data(contentsOf: Self.fixtureURL($0))) }
        // Every 10th case also goes through the store's streaming import, which must agree.
        let store = try PatientStore(path: dir.appendingPathComponent("fuzz.sqlite").path)
        var rng = SplitMix64(seed: seed)
        var options = ExportFixtures.options("Europe/Madrid")
        if importer is MappedCSVImporter {
            options.columns = fixtures[0].hasPrefix("pump") ? ImportMappedCSVTests.pumpMapping
                : fixtures[0].hasPrefix("carelink") ? ImportMappedCSVTests.careLinkMapping : ImportMappedCSVTests.mapping
        }
        let start = Date()
        let file = dir.appendingPathComponent("fuzz-case.\(ext)")
        while cases < FuzzRun.casesPerImporter, Date().timeIntervalSince(start) < FuzzRun.secondsPerImporter {
            let source = inputs[cases % inputs.count]
            let bytes: [UInt8]
            switch cases % 5 {
            case 0:
                // Truncation: every prefix in turn when the budget covers them, else sampled cut points.
                let cut = FuzzRun.casesPerImporter / 5 > source.count * inputs.count
                    ? (cases / 5 / inputs.count) % (source.count + 1) : Int.random(in: 0...source.count, using: &rng)
                bytes = Array(source[..<cut])
            default: bytes = Mutator.mutate(source, &rng)
            }
            try Data(bytes).write(to: file)
            let t0 = Date()
            var inMemory: ImportResult?
            do {
                let r = try importer.importFile(at: file, options: options)
                let problems = cleanlinessProblems(r)
                if !problems.isEmpty {
                    failures.append("case \(cases) (seed \(seed)): \(problems.joined(separator: "; ")) input: \(String(decoding: bytes.prefix(300), as: UTF8.self))")
                }
                inMemory = r
                results += 1
            } catch is InputError {
                errors += 1
            } catch {
                failures.append("case \(cases) (seed \(seed)): threw \(type(of: error)) not InputError: \(error)")
            }
            if cases % 10 == 0, let problem = storeDisagreement(store, importer, file, options, inMemory) {
                failures.append("case \(cases) (seed \(seed)), store import: \(problem) input: \(String(decoding: bytes.prefix(300), as: UTF8.self))")
            }
            slowest = max(slowest, Date().timeIntervalSince(t0))
            cases += 1
        }
    }
}

extension FuzzRun {
    /// A fixture by name: `exports/` unless the name has its folder (`csv/log.csv`, `ohio/complete.xml`).
    static func fixtureURL(_ name: String) -> URL {
        guard name.contains("/") else { return ExportFixtures.url(name) }
        guard let base = Bundle.module.resourceURL else { preconditionFailure("test bundle has no resources") }
        return base.appendingPathComponent("Fixtures/\(name)")
    }

    /// Imports `file` into `store` and says how it disagrees with the in-memory import (nil = agrees):
    /// a file the importer rejects must be rejected with an `InputError` and leave the record counts
    /// as they were; an accepted file must store or find every record the in-memory import kept.
    func storeDisagreement(_ store: PatientStore, _ importer: any PatientDataImporter, _ file: URL,
                           _ options: ImportOptions, _ inMemory: ImportResult?) -> String? {
        do {
            let before = try store.recordCounts()
            do {
                let outcome = try store.importFile(file, importer: importer, options: options)
                guard let expected = inMemory else { return "stored a file the importer rejects" }
                guard case let .imported(run) = outcome else { return nil }  // same content as an earlier case
                let stored = run.recordsAdded + run.recordsAlreadyStored
                return stored == expected.summary.recordsKept
                    ? nil : "\(stored) records stored or found, \(expected.summary.recordsKept) kept in memory"
            } catch is InputError {
                if inMemory != nil { return "rejected a file the importer accepts" }
                return try store.recordCounts() == before ? nil : "a rejected file changed the record counts"
            } catch let nothing as NothingKeptError {
                // Rows skipped for a problem and none kept: a failed file, not an empty import.
                guard let expected = inMemory, expected.summary.keptNothing, nothing.summary.keptNothing else {
                    return "kept nothing in the store but not in memory: \(nothing)"
                }
                return try store.recordCounts() == before ? nil : "a file that kept nothing changed the record counts"
            }
        } catch {
            return "threw \(type(of: error)): \(error)"
        }
    }
}

@Suite("Fuzzing every importer", .serialized)
struct FuzzImportTests {
    static let targets: [(String, any PatientDataImporter, [String], String)] = [
        ("dexcom", DexcomClarityImporter(), ["dexcom_madrid_dst.csv", "dexcom_mmol.csv", "same_dexcom.csv"], "csv"),
        ("libre", LibreViewImporter(), ["libre_us_mgdl.csv", "libre_eu_mmol.csv", "libre_ambiguous.csv"], "csv"),
        ("nightscout", NightscoutImporter(), ["nightscout_entries.json", "nightscout_treatments.json", "nightscout_both.json",
                                              "same_nightscout.json"], "json"),
        ("tidepool", TidepoolImporter(), ["tidepool.json"], "json"),
        ("glucomodel-csv", LogCSVImporter(), ["csv/log.csv"], "csv"),
        ("ohio-xml", OhioXMLImporter(), ["ohio/complete.xml", "ohio/overlap.xml"], "xml"),
        ("mapped-csv", MappedCSVImporter(), ["glupredkit.csv"], "csv"),
        ("mapped-csv-pump", MappedCSVImporter(), ["pump_extended.csv"], "csv"),
        ("mapped-csv-carelink", MappedCSVImporter(), ["carelink_pump.csv"], "csv"),
    ]

    @Test(arguments: 0..<9)
    func mutatedInputsGiveCleanResultsOrImportErrors(target: Int) throws {
        let (name, importer, fixtures, ext) = FuzzImportTests.targets[target]
        let seed = ProcessInfo.processInfo.environment["GLUCOMODEL_FUZZ_SEED"].flatMap(UInt64.init) ?? 0x5EED_0000 + UInt64(target)
        var run = FuzzRun()
        try run.run(importer, fixtures: fixtures, ext: ext, seed: seed)
        print("fuzz \(name): \(run.cases) cases, \(run.results) results, \(run.errors) import errors, slowest case \(String(format: "%.3f", run.slowest)) s, \(run.failures.count) failures")
        #expect(run.cases >= min(50, FuzzRun.casesPerImporter))
        #expect(run.slowest < 5, "a case took \(run.slowest) s: a hang?")
        #expect(run.failures.isEmpty, "\(run.failures.prefix(5).joined(separator: "\n"))")
    }
}

/// A file read while it is still being written (an inbox polled during an upload) ends inside a
/// row. Whatever the byte it ends at, what is read must be records the whole file holds: a value
/// cut short (106 mg/dL to 10, 9.1 U to 9) must never be read as a value.
@Suite("A CSV file cut short at every byte")
struct CutFileTests {
    static let cases: [(any PatientDataImporter, String, ImportOptions)] = [
        (DexcomClarityImporter(), "same_dexcom.csv", ExportFixtures.options("UTC")),
        (DexcomClarityImporter(), "dexcom_mmol.csv", ExportFixtures.options("Europe/Madrid")),
        (LibreViewImporter(), "libre_us_mgdl.csv", ExportFixtures.options("America/New_York")),
        (MappedCSVImporter(), "glupredkit.csv", ImportMappedCSVTests.options()),
        (LogCSVImporter(), "csv/log.csv", ExportFixtures.options("UTC")),
        (MappedCSVImporter(), "pump_extended.csv", ImportMappedCSVTests.options(ImportMappedCSVTests.pumpMapping, zone: "UTC")),
        (MappedCSVImporter(), "carelink_pump.csv", ImportMappedCSVTests.options(ImportMappedCSVTests.careLinkMapping, zone: "UTC")),
    ]

    /// The records of a log that a cut can only lose (a glucose note cut short is still its reading;
    /// a temporary basal's end, which the next one or a cancel after the cut brings forward, aside).
    static func records(_ log: PatientLog) -> (glucose: [GlucoseReading], boluses: [Bolus], carbs: [CarbIntake], other: [String]) {
        (log.glucose.map { var g = $0; g.note = nil; return g }, log.boluses, log.carbs,
         log.basalInjections.map { "\($0)" } + log.exercise.map { "\($0)" } + log.temporaryBasals.map { "temp \($0.start) \($0.rate)" })
    }

    @Test(arguments: 0..<7)
    func everyPrefixReadsOnlyRecordsOfTheWholeFile(index: Int) throws {
        let (importer, name, options) = Self.cases[index]
        let bytes = try Data(contentsOf: FuzzRun.fixtureURL(name))
        #expect(bytes.last == 0x0A)
        let whole = Self.records(try importer.importFile(at: FuzzRun.fixtureURL(name), options: options).log)
        let dir = ScratchSpace.root.appendingPathComponent("cut-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent((name as NSString).lastPathComponent)
        var read = 0, cutRows = 0
        for length in 1..<bytes.count {
            try bytes.prefix(length).write(to: url)
            guard let result = try? importer.importFile(at: url, options: options) else { continue }
            read += 1
            cutRows += result.summary.skipped[PatientLogBuilder.cutLastRow] ?? 0
            let part = Self.records(result.log)
            #expect(part.glucose.allSatisfy(whole.glucose.contains), "\(name) cut at byte \(length): \(part.glucose.filter { !whole.glucose.contains($0) })")
            #expect(part.boluses.allSatisfy(whole.boluses.contains), "\(name) cut at byte \(length): \(part.boluses.filter { !whole.boluses.contains($0) })")
            #expect(part.carbs.allSatisfy(whole.carbs.contains), "\(name) cut at byte \(length): \(part.carbs.filter { !whole.carbs.contains($0) })")
            #expect(part.other.allSatisfy(whole.other.contains), "\(name) cut at byte \(length)")
        }
        // Most prefixes end inside a data row and still read the rows before it.
        #expect(read > bytes.count / 2 && cutRows > 0, "\(name): \(read) of \(bytes.count) prefixes read, \(cutRows) rows left out as cut")
    }

    /// The reproducer of the nightly audit: a Clarity export cut inside its last reading (106 to
    /// 10) and a row cut inside an insulin dose (9.1 to 9). Each is left out with a warning naming
    /// its line; complete, the same file reads both, and a complete last row without a line break
    /// (its last field not a number) is read.
    @Test func dexcomCutInsideAValueIsLeftOutWithAWarning() throws {
        let header = "Index,Timestamp (YYYY-MM-DDThh:mm:ss),Event Type,Event Subtype,Patient Info,Device Info,Source Device ID,"
            + "Glucose Value (mg/dL),Insulin Value (u),Carb Value (grams),Duration (hh:mm:ss),Glucose Rate of Change (mg/dL/min),"
            + "Transmitter Time (Long Integer),Transmitter ID"
        let rows = ["1,2026-10-21T08:05:00,EGV,,,,Android G6,104,,,,,,", "2,2026-10-21T08:10:00,EGV,,,,Android G6,106,,,,,,",
                    "3,2026-10-21T08:12:00,Insulin,Fast-Acting,,,Android G6,,9.1,,,,,"]
        let dir = ScratchSpace.root.appendingPathComponent("cut-dexcom-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("child.csv")
        let read = { (text: String) in
            try Data(text.utf8).write(to: url)
            return try DexcomClarityImporter().importFile(at: url, options: ExportFixtures.options("UTC"))
        }
        let glucose = try read(([header] + rows.prefix(2)).joined(separator: "\n").replacingOccurrences(of: ",106,,,,,,", with: ",10"))
        #expect(glucose.log.glucose.map(\.value.mgdL) == [104])
        #expect(glucose.summary.skipped == [PatientLogBuilder.cutLastRow: 1])
        #expect(glucose.summary.issues.first?.location == SourceLocation(file: "child.csv", line: 3))
        let insulin = try read(([header] + rows).joined(separator: "\n").replacingOccurrences(of: ",9.1,,,,,", with: ",9"))
        #expect(insulin.log.boluses.isEmpty && insulin.summary.skipped == [PatientLogBuilder.cutLastRow: 1])
        let whole = try read(([header] + rows).joined(separator: "\n"))
        #expect(whole.log.glucose.map(\.value.mgdL) == [104, 106] && whole.log.boluses.map(\.dose.units) == [9.1])
        #expect(whole.summary.skipped.isEmpty)
    }
}
