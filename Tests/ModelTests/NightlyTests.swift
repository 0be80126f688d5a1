import Foundation
import GrammarEvolution
import Testing
import GRDB
@testable import GlucoModel

/// A store, an inbox, models and an output folder in a fresh temporary directory.
struct NightlyBench {
    let dir: URL
    let inbox: URL
    let models: URL
    let out: URL
    var store: String { dir.appendingPathComponent("store.sqlite").path }
    static let night = "2026-01-10"
    static let patients = ["p_a", "p_b", "p_c"].map { try! PatientID($0) }

    /// Three patients with 5 days each (p_b 60 mg/dL lower, so its predictions go low), and models for all.
    init(patients: [PatientID] = NightlyBench.patients, modelsFor: [PatientID]? = nil) throws {
        dir = try PredictFixture.temporaryDirectory()
        inbox = dir.appendingPathComponent("inbox")
        out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        models = try PredictFixture.modelsFolder(for: modelsFor ?? patients, in: dir)
        for (i, p) in patients.enumerated() {
            try addFile("\(p.rawValue)-days0-4.csv", PredictFixture.log(p, days: 5, offset: i == 1 ? -60 : 0))
        }
    }

    func addFile(_ name: String, _ log: PatientLog) throws {
        try Data(PredictFixture.csv(log).utf8).write(to: inbox.appendingPathComponent(name))
    }

    func scorer(_ night: String = NightlyBench.night) -> NightlyScorer {
        var settings = NightlySettings(storePath: store, inbox: inbox, modelsFolder: models, output: out, night: night,
                                       importOptions: ImportOptions(timeZone: PredictFixture.utc, now: Fixture.date("2027-01-01T00:00:00Z")))
        settings.thresholds = AlertThresholds(low: 70, high: 250)
        // The inbox files are written a moment before: quarantined at once, not left to settle.
        settings.settleTime = 0
        return NightlyScorer(settings: settings)
    }

    /// Every file under the output folder, by relative path.
    func files() throws -> [String: Data] {
        var out: [String: Data] = [:]
        let e = FileManager.default.enumerator(at: self.out, includingPropertiesForKeys: [.isRegularFileKey])
        let base = self.out.standardizedFileURL.path
        while let url = e?.nextObject() as? URL {
            guard (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true else { continue }
            out[String(url.standardizedFileURL.path.dropFirst(base.count))] = try Data(contentsOf: url)
        }
        return out
    }

    func states() throws -> [PatientID: Date] {
        Dictionary(uniqueKeysWithValues: try PatientStore(path: store).scoringStates().map { ($0.patient, $0.lastScoredAt) })
    }
}

struct Interrupted: Error {}

@Suite struct NightlyTests {
    @Test func rerunAddsNothing() throws {
        let bench = try NightlyBench()
        let first = try bench.scorer().run()
        #expect(first.exitCode == 0 && first.warnings.isEmpty)
        #expect(first.patientsScored == 3)
        // 5 days of readings each: 3 * 1440 imported and scored.
        #expect(first.readingsImported == 3 * 1440 && first.readingsScored == 3 * 1440)
        // Without --settings nor --settings-check-on, no empty dose-audit/ nor settings-check/ folder.
        let night = bench.out.appendingPathComponent(NightlyBench.night)
        #expect(try FileManager.default.contentsOfDirectory(atPath: night.path).sorted()
                == ["alerts", "alerts.csv", "predictions", "predictions.csv", "summary.json"])
        let files = try bench.files()
        let states = try bench.states()
        // Each patient is scored up to its newest reading: day 0 + 5 days - 5 min.
        let newest = PredictFixture.day0.addingTimeInterval(5 * 86_400 - 300)
        #expect(states == Dictionary(uniqueKeysWithValues: NightlyBench.patients.map { ($0, newest) }))
        let second = try bench.scorer().run()
        #expect(second.exitCode == 0)
        #expect(second.patientsScored == 0 && second.patientsUpToDate == 3)
        #expect(second.readingsImported == 0 && second.predictions == 0 && second.alerts == 0)
        #expect(try bench.files() == files)
        #expect(try bench.states() == states)
        // The combined file is the per-patient files under one header.
        let combined = String(decoding: files["/\(NightlyBench.night)/predictions.csv"]!, as: UTF8.self)
        let lines = combined.split(separator: "\n")
        #expect(lines.first.map(String.init) == PredictionRow.csvHeader)
        #expect(lines.count - 1 == first.predictions)
        let perPatient = NightlyBench.patients.map { String(decoding: files["/\(NightlyBench.night)/predictions/\($0.rawValue).csv"]!, as: UTF8.self) }
        #expect(perPatient.map { $0.split(separator: "\n").count - 1 }.reduce(0, +) == first.predictions)
    }

    /// Stop 58: a pump's export through a column mapping reached the store only by import-data; the
    /// nightly quarantined it ("none of the known formats"). With `--columns`, an inbox file whose
    /// header has the mapped columns is read with them, and the others as their content says: the
    /// night is the one with every file in GlucoModel CSV.
    @Test func anInboxFileWithTheMappedColumnsIsReadWithThem() throws {
        let reference = try NightlyBench()
        let expected = try reference.scorer().run()
        let bench = try NightlyBench()
        let p = NightlyBench.patients[2]
        let log = PredictFixture.log(p, days: 5, offset: 0)
        try FileManager.default.removeItem(at: bench.inbox.appendingPathComponent("\(p.rawValue)-days0-4.csv"))
        // The same log in a pump export's own layout: a reading, bolus and meal per row, times in UTC.
        var rows = ["Timestamp,Sensor Glucose (mg/dL),Bolus Volume Delivered (U),BWZ Carb Input (grams),Basal Rate (U/h)"]
        let times = Set(log.glucose.map(\.time) + log.boluses.map(\.time) + log.carbs.map(\.time) + log.basalRates.map(\.start)).sorted()
        let glucose = Dictionary(log.glucose.map { ($0.time, $0.value.mgdL) }, uniquingKeysWith: { a, _ in a })
        let boluses = Dictionary(log.boluses.map { ($0.time, $0.dose.units) }, uniquingKeysWith: +)
        let carbs = Dictionary(log.carbs.map { ($0.time, $0.amount.grams) }, uniquingKeysWith: +)
        let basal = Dictionary(log.basalRates.map { ($0.start, $0.rate.unitsPerHour) }, uniquingKeysWith: { a, _ in a })
        func text(_ v: Double?) -> String { v.map { String($0) } ?? "" }
        for t in times {
            rows.append("\(t.iso8601(in: PredictFixture.utc)),\(text(glucose[t])),\(text(boluses[t])),\(text(carbs[t])),\(text(basal[t]))")
        }
        try Data((rows.joined(separator: "\n") + "\n").utf8).write(to: bench.inbox.appendingPathComponent("\(p.rawValue).csv"))
        var scorer = bench.scorer()
        scorer.settings.importOptions.columns = try CSVColumnMapping(
            parsing: "time=Timestamp,glucose=Sensor Glucose (mg/dL),bolus=Bolus Volume Delivered (U),carbs=BWZ Carb Input (grams),basal=Basal Rate (U/h)")
        let night = try scorer.run()
        #expect(night.exitCode == 0 && night.warnings.isEmpty, "\(night.warnings)")
        #expect(night.patientsScored == 3 && night.readingsImported == expected.readingsImported && night.predictions == expected.predictions)
        #expect(try bench.states() == reference.states())
        // Without the mapping the file is quarantined, as before.
        let unmapped = try NightlyBench()
        try FileManager.default.removeItem(at: unmapped.inbox.appendingPathComponent("\(p.rawValue)-days0-4.csv"))
        try Data((rows.joined(separator: "\n") + "\n").utf8).write(to: unmapped.inbox.appendingPathComponent("\(p.rawValue).csv"))
        let quarantined = try unmapped.scorer().run()
        #expect(quarantined.exitCode == 2 && quarantined.warnings.contains { $0.contains("none of the known formats") }, "\(quarantined.warnings)")
    }

    @Test func alertsAreEpisodesOfTheModelPredictionsOutsideTheThresholds() throws {
        let bench = try NightlyBench()
        let outcome = try bench.scorer().run()
        let files = try bench.files()
        // Independently, from predictions.csv: per patient and horizon, runs of `ge` rows whose
        // printed prediction is < 70 (or > 250) with target times 5 minutes apart. The file holds
        // one decimal, so a printed 70.0 or 250.0 may lie on either side: for a patient and horizon
        // with such rows, the alerts must equal the episodes of one of the readings of them.
        let predictions = String(decoding: files["/\(NightlyBench.night)/predictions.csv"]!, as: UTF8.self)
        var rows: [(key: String, issued: String, target: Date, kind: String?, otherKind: String??)] = []
        for line in predictions.split(separator: "\n").dropFirst() {
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard f[4] == "ge", let value = Double(f[5]), let target = TimestampParser.iso8601(Substring(f[2]))?.instant else { continue }
            let kind: String? = value < 70 ? "low" : value > 250 ? "high" : nil
            let other: String?? = value == 70 ? .some("low") : value == 250 ? .some("high") : .none
            rows.append(("\(f[0])|\(f[3])", f[1], target, kind, other))
        }
        func episodes(_ key: String, _ kinds: [String?], _ mine: [(key: String, issued: String, target: Date, kind: String?, otherKind: String??)]) -> [String] {
            var out: [String] = []
            var previous: (Date, String?)?
            let parts = key.split(separator: "|")
            for (r, kind) in zip(mine, kinds) {
                if let k = kind, !(previous.map { $0.1 == k && r.target.timeIntervalSince($0.0) <= 301 } ?? false) {
                    out.append("\(parts[0]),\(r.issued),\(k),\(parts[1])")
                }
                previous = (r.target, kind)
            }
            return out.sorted()
        }
        let alerts = String(decoding: files["/\(NightlyBench.night)/alerts.csv"]!, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(alerts.first == AlertEpisode.csvHeader)
        let found = alerts.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        var expectedKinds = Set<String>()
        var boundaryRows = 0
        for key in Set(rows.map(\.key)).sorted() {
            let mine = rows.filter { $0.key == key }.sorted { $0.target < $1.target }
            let mineFound = found.filter { "\($0[0])|\($0[3])" == key }.map { "\($0[0]),\($0[1]),\($0[2]),\($0[3])" }.sorted()
            let ambiguous = mine.indices.filter { mine[$0].otherKind != nil }
            boundaryRows += ambiguous.count
            #expect(ambiguous.count <= 12, "too many printed-boundary rows to enumerate for \(key)")
            var matches = false
            for assignment in 0..<(1 << min(ambiguous.count, 12)) where !matches {
                var kinds = mine.map(\.kind)
                for (bit, i) in ambiguous.enumerated() where assignment & (1 << bit) != 0 { kinds[i] = mine[i].otherKind! }
                let expected = episodes(key, kinds, mine)
                if expected == mineFound { matches = true; expected.forEach { expectedKinds.insert($0.split(separator: ",")[2].description) } }
            }
            #expect(matches, "alerts of \(key) are the episodes of its predictions")
        }
        #expect(outcome.alerts == found.count)
        // The thresholds are in every row and in the summary line; far fewer episodes than predictions beyond them.
        #expect(found.allSatisfy { ($0[2] == "low" && $0[4] == "70.0") || ($0[2] == "high" && $0[4] == "250.0") })
        #expect(outcome.summaryLine.contains("alert episodes (low < 70.0, high > 250.0 mg/dL)"))
        #expect(rows.count(where: { $0.kind != nil }) > 2 * found.count)
        // The synthetic data reaches ~290 mg/dL for p_a and ~40 mg/dL for p_b: both kinds occur.
        #expect(expectedKinds == ["low", "high"], "boundary rows: \(boundaryRows)")
    }

    /// A night of a thousand patients printed nothing until its summary (107 s in the audit).
    /// With the interval at 0 every file and patient after the first is announced.
    @Test func aLongNightSaysHowFarItIs() throws {
        let bench = try NightlyBench()
        var scorer = bench.scorer()
        scorer.progressInterval = 0
        var lines: [String] = []
        _ = try scorer.run(message: { lines.append($0) })
        let files = try FileManager.default.contentsOfDirectory(atPath: bench.inbox.path).count
        let progress = lines.filter { $0.hasPrefix("scored ") || $0.hasPrefix("read ") }
        let patients = try PatientStore(path: bench.store).patients().count
        #expect(progress.filter { $0.hasPrefix("scored ") }.map { $0.prefix { $0 != "(" } }
                == (1..<patients).map { "scored \($0) of \(patients) patients " }, "\(lines)")
        #expect(progress.filter { $0.hasPrefix("read ") }.count == max(0, files - 1))
        // At the default interval a night of the bench (well under 10 s) prints none.
        var quiet: [String] = []
        _ = try (try NightlyBench()).scorer().run(message: { quiet.append($0) })
        #expect(!quiet.contains { $0.hasPrefix("scored ") })
    }

    /// Scores a night of the bench with p_a's 30-minute model replaced by `expression` (intercept 0,
    /// slope 1) on `base`: the outcome, its messages, predictions.csv's rows split into fields, and
    /// every output file.
    static func scoreWithWildModel(_ expression: String, base: ModelBase, range: ClosedRange<Double>? = nil) throws
        -> (outcome: NightlyOutcome, lines: [String], rows: [[String]], files: [String: Data]) {
        let bench = try NightlyBench()
        var wild = PredictFixture.models.first { $0.horizonMinutes == 30 }!
        wild.patient = PredictFixture.patientA
        wild.base = base
        (wild.intercept, wild.slope) = (0, 1)
        wild.expression = expression
        wild.program = try Program(infix: wild.expression, variables: VariableNames(wild.features.names))
        wild.evolvedRange = range
        try wild.write(to: bench.models.appendingPathComponent(GlucoseModel.relativePath(patient: wild.patient, horizonMinutes: 30)))
        var lines: [String] = []
        let outcome = try bench.scorer().run(message: { lines.append($0) })
        let files = try bench.files()
        let rows = String(decoding: files["/\(NightlyBench.night)/predictions.csv"]!, as: UTF8.self)
            .split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        return (outcome, lines, rows, files)
    }

    /// An older model file whose expression explodes beyond its training data (an exponential of
    /// glucose scaled to almost nothing) predicts the clamp, 10 mg/dL, where glucose is high: the
    /// night flags the patient (not a warning), and alerts are still raised on those predictions.
    @Test func predictionsAtTheModelsLimitAreFlagged() throws {
        // -0.005 mg/dL at 248, -825 at 260
        let (outcome, lines, rows, files) = try Self.scoreWithWildModel("G0 - 1e-110 * exp(G0)", base: .none)
        #expect(outcome.exitCode == 0 && outcome.warnings.isEmpty)
        // Independently, from predictions.csv: p_a's 30-minute `ge` rows printed as 10.0.
        let clamped = rows.count { $0[0] == "p_a" && $0[3] == "30" && $0[4] == "ge" && $0[5] == "10.0" }
        #expect(clamped > 0)
        #expect(rows.count { $0[4] == "ge" && ($0[5] == "10.0" || $0[5] == "600.0") } == clamped)
        #expect(outcome.modelLimits.map(\.patient) == [PredictFixture.patientA] && outcome.modelLimits.first?.predictions == clamped)
        #expect(outcome.summaryLine.contains("predictions at a model's limit in p_a (\(clamped))"))
        #expect(lines.contains { $0.hasPrefix("p_a: \(clamped) predictions at the limit of what a model may predict") })
        // Alerts still raised on them: a low episode of p_a at 30 minutes reaching 10 mg/dL.
        let alerts = String(decoding: files["/\(NightlyBench.night)/alerts.csv"]!, as: UTF8.self)
        #expect(alerts.split(separator: "\n").contains { $0.hasPrefix("p_a,") && $0.contains(",low,30,") && $0.contains(",10.0,") })
        // The models of the other patients are the fixture's: nothing flagged for them.
        let plain = try NightlyBench().scorer().run()
        #expect(plain.modelLimits.isEmpty && !plain.summaryLine.contains("model's limit"))
    }

    /// The same exploding term in an ARX-based model with the range of its training days
    /// (`GlucoseModel.evolvedRange`): beyond it, the night's predictions are the ARX's, counted and
    /// named, and no prediction reaches the limit.
    @Test func predictionsByTheBaseAloneAreCountedAndNamed() throws {
        // 0.4 to 2.5 mg/dL up to 250, -825 at 260; the range 0...3 is used from -3 to 6.
        let (outcome, lines, rows, _) = try Self.scoreWithWildModel("0.01 * G0 - 1e-110 * exp(G0)", base: .arx, range: 0...3)
        #expect(outcome.exitCode == 0 && outcome.warnings.isEmpty)
        // Independently, from predictions.csv: p_a's 30-minute rows where `ge` prints as `arx` does
        // (elsewhere they differ by 0.01 G0, at least 0.4 mg/dL).
        var values: [String: [String: String]] = [:]
        for r in rows where r[0] == "p_a" && r[3] == "30" { values[r[1], default: [:]][r[4]] = r[5] }
        let same = values.values.count { $0["ge"] != nil && $0["ge"] == $0["arx"] }
        #expect(same > 0 && same < values.count)
        #expect(outcome.baseAlone.map(\.patient) == [PredictFixture.patientA] && outcome.baseAlone.first?.predictions == same)
        #expect(outcome.summaryLine.contains("predictions by ARX alone in p_a (\(same))"))
        #expect(lines.contains { $0.hasPrefix("p_a: \(same) predictions by the model's ARX base alone") })
        #expect(outcome.modelLimits.isEmpty)
        #expect(try NightlyBench().scorer().run().baseAlone.isEmpty)
    }

    /// An uninterrupted night, and the same night stopped right after p_b's files are written, before
    /// its state advances.
    static func interruptedAfterPatientB() throws -> (reference: NightlyBench, bench: NightlyBench) {
        let reference = try NightlyBench()
        #expect(try reference.scorer().run().exitCode == 0)
        let bench = try NightlyBench()
        var scorer = bench.scorer()
        scorer.afterPatientFiles = { if $0.rawValue == "p_b" { throw Interrupted() } }
        #expect(throws: Interrupted.self) { try scorer.run() }
        return (reference, bench)
    }

    @Test func interruptedRunCompletesWithTheSameOutput() throws {
        // Stop right after the second patient's files are written, before its state advances:
        // p_a is done, p_b has files but no state, p_c is untouched, no combined files yet.
        let (reference, bench) = try Self.interruptedAfterPatientB()
        #expect(try bench.states().keys.map(\.rawValue) == ["p_a"])
        #expect(try bench.files()["/\(NightlyBench.night)/predictions/p_b.csv"] != nil)
        // A leftover temporary file, as a run killed inside a write would leave.
        try Data("half".utf8).write(to: bench.out.appendingPathComponent("\(NightlyBench.night)/predictions/.p_c.csv.partial"))
        // and one of a process that has ended (2147483646: no such process); a running process's
        // (the test's parent) is another night's writing into this folder, and is left to it.
        let dead = bench.out.appendingPathComponent("\(NightlyBench.night)/predictions/.p_c.csv.2147483646.partial")
        let running = bench.out.appendingPathComponent("\(NightlyBench.night)/alerts/.p_c.csv.\(getppid()).partial")
        try Data("half".utf8).write(to: dead)
        try Data("half".utf8).write(to: running)
        for url in [dead, running] {  // untouched for an hour (another machine's may be fresher)
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: url.path)
        }
        let resumed = try bench.scorer().run()
        #expect(resumed.exitCode == 0 && resumed.patientsScored == 2 && resumed.patientsUpToDate == 1)
        #expect(FileManager.default.fileExists(atPath: running.path) && !FileManager.default.fileExists(atPath: dead.path))
        try FileManager.default.removeItem(at: running)
        #expect(try bench.files() == reference.files())
        #expect(try bench.states() == reference.states())
    }

    /// Hunt AU: a night killed mid-scoring, then the next night run (not the same night again): the
    /// killed night's predictions.csv, alerts.csv and summary.json were never written, and p_b, whose
    /// file was in place but whose state had not advanced, was scored again into the next night, its
    /// rows in both. The next run now completes the interrupted night first, before its inbox.
    @Test func anInterruptedNightIsCompletedByTheNextNightsRun() throws {
        let (reference, bench) = try Self.interruptedAfterPatientB()
        let night = bench.out.appendingPathComponent(NightlyBench.night)
        let marker = NightFolder.unfinishedMarker(store: bench.store)
        #expect(marker.hasPrefix(".unfinished-") && FileManager.default.fileExists(atPath: night.appendingPathComponent(marker).path))
        // Another store's mark is another file (the review: one shared file, taken and removed by the other store's run).
        #expect(NightFolder.unfinishedMarker(store: bench.dir.appendingPathComponent("other.sqlite").path) != marker)
        #expect(NightFolder.unfinished(in: bench.out, store: bench.store) == [NightlyBench.night])
        // Another store's runs sharing the output folder leave it to this store's.
        #expect(NightFolder.unfinished(in: bench.out, store: bench.dir.appendingPathComponent("other.sqlite").path).isEmpty)
        // The next night, with a new day for p_a in the inbox, run in the other unit: the interrupted
        // night is completed in its own (the review: completed in the running night's, it failed, and
        // the run went on to score p_b again).
        try bench.addFile("p_a-day5.csv", PredictFixture.log(PredictFixture.patientA, firstDay: 5, days: 1))
        var lines: [String] = []
        var nextScorer = bench.scorer("2026-01-11")
        nextScorer.settings.units = .mmolL
        let next = try nextScorer.run { lines.append($0) }
        #expect(next.exitCode == 2 && next.warnings.contains { $0.hasPrefix("night \(NightlyBench.night) was interrupted (killed or stopped) and has been completed by this run: 2 patients scored") },
                "\(next.warnings)")
        #expect(lines.contains("nightly: night \(NightlyBench.night) was interrupted; completing it first"))
        // The interrupted night's files are those of an uninterrupted run: combined files and all.
        let files = try bench.files(), expected = try reference.files()
        for (path, data) in expected where path.hasPrefix("/\(NightlyBench.night)/") {
            #expect(files[path] == data, "\(path)")
        }
        #expect(files["/\(NightlyBench.night)/\(marker)"] == nil)
        // The next night holds p_a's new day alone: nobody's rows twice.
        #expect(next.patientsScored == 1 && next.predictions == 288 * 2 * 4)
        #expect(files["/2026-01-11/predictions/p_b.csv"] == nil && files["/2026-01-11/\(marker)"] == nil)
        #expect(NightFolder.unfinished(in: bench.out, store: bench.store).isEmpty)
    }

    /// An interrupted night that cannot be completed (its files in a header no unit writes) stops the
    /// next run, naming it, before that run reads its inbox or scores anyone (the review of stop 59:
    /// it went on, and a patient's rows were in both nights).
    @Test func anInterruptedNightThatCannotBeCompletedStopsTheNextRun() throws {
        let bench = try NightlyBench()
        let night = bench.out.appendingPathComponent(NightlyBench.night)
        let folder = NightFolder(root: night)
        try folder.create()
        try folder.markUnfinished(store: bench.store)
        try Data("a,b,c\n1,2,3\n".utf8).write(to: night.appendingPathComponent("predictions/p_a.csv"))
        let next = try bench.scorer("2026-01-11").run()
        #expect(next.exitCode == 1 && next.patientsScored == 0 && next.filesImported == 0)
        guard case let .interruptedNight(label, _)? = next.failure else { Issue.record("\(String(describing: next.failure))"); return }
        #expect(label == NightlyBench.night && next.summaryLine.contains("Settle that and run this night again: the run completes night \(NightlyBench.night) first"))
        // A folder with no patient's file yet has no unit of its own: the running one's.
        #expect(NightFolder(root: bench.out.appendingPathComponent("2026-01-12")).units() == nil)
        #expect(!FileManager.default.fileExists(atPath: bench.out.appendingPathComponent("2026-01-11").path))
    }

    @Test func newDataIsScoredOnceAndAppended() throws {
        let bench = try NightlyBench(patients: [PredictFixture.patientA])
        let first = try bench.scorer().run()
        let cut = try bench.states()[PredictFixture.patientA]!
        // Day 5 arrives the same night: only issue moments after the last scored reading are added.
        try bench.addFile("p_a-day5.csv", PredictFixture.log(PredictFixture.patientA, firstDay: 5, days: 1))
        let second = try bench.scorer().run()
        #expect(second.readingsImported == 288 && second.readingsScored == 288)
        let text = String(decoding: try bench.files()["/\(NightlyBench.night)/predictions/p_a.csv"]!, as: UTF8.self)
        let rows = text.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(rows.count == first.predictions + second.predictions)
        let formatter = ISO8601DateFormatter()
        let issued = rows.map { formatter.date(from: String($0[1]))! }
        #expect(issued.filter { $0 > cut }.count == second.predictions)
        // 288 new steps (the 5-minute steps of day 5), 2 horizons, 4 models each.
        #expect(second.predictions == 288 * 2 * 4)
    }

    /// A bench for p_a and p_b (p_b 60 mg/dL lower, so it has lows) whose inbox holds `logs`
    /// instead of the bench's 5 days.
    static func bench(_ logs: [PatientLog]) throws -> NightlyBench {
        let bench = try NightlyBench(patients: [PredictFixture.patientA, try PatientID("p_b")])
        for name in try FileManager.default.contentsOfDirectory(atPath: bench.inbox.path) {
            try FileManager.default.removeItem(at: bench.inbox.appendingPathComponent(name))
        }
        for (i, log) in logs.enumerated() { try bench.addFile("\(log.patient.rawValue)-\(i).csv", log) }
        return bench
    }

    /// Six days of p_a and p_b (p_b with lows) scored by one audited run: the reference the
    /// tests of several runs of a night compare with.
    static func sixDaysInOneRun() throws -> (full: [PatientLog], patients: [PatientID], once: NightlyBench, single: NightlyOutcome) {
        let pB = try PatientID("p_b")
        let full = [PredictFixture.log(PredictFixture.patientA, days: 6), PredictFixture.log(pB, days: 6, offset: -60)]
        let patients = [PredictFixture.patientA, pB]
        let once = try Self.bench(full)
        let single = try once.auditingScorer(patients).run()
        #expect(single.exitCode == 0)
        return (full, patients, once, single)
    }

    /// Finding 4 (audit of nightly): a second run of the night appended to the patient's files,
    /// so a low episode spanning the runs became two alert rows, rows issued in the last hour
    /// before the first run's newest reading kept an empty reference for ever, and `confirmed` was
    /// never revisited. Now a later run of the night rewrites the patient's files of the night from
    /// where the night started: two runs (and an interrupted one, resumed) leave every file of the
    /// night as one run over the same data does.
    @Test func severalRunsOfTheNightEqualOneRun() throws {
        let (full, patients, once, single) = try Self.sixDaysInOneRun()
        let pB = patients[1]
        let reference = try once.files()
        // Cut the data in the middle of one of p_b's low episodes (12 or more predictions, one issue
        // moment 5 minutes after the other), 15 minutes after its first alert.
        let alerts = String(decoding: try #require(reference["/\(NightlyBench.night)/alerts/p_b.csv"]), as: UTF8.self)
        let rows: [[String]] = alerts.split(separator: "\n").dropFirst().map { $0.split(separator: ",").map(String.init) }
        let episode = try #require(rows.first { (r: [String]) in r[2] == "low" && (Int(r[7]) ?? 0) >= 12 && r[1] > "2026-01-06" })
        let cut = try #require(TimestampParser.iso8601(Substring(episode[1]))?.instant).addingTimeInterval(15 * 60)
        for interrupt in [false, true] {
            let twice = try Self.bench(full.map { $0.recorded(through: cut) })
            let first = try twice.auditingScorer(patients).run()
            #expect(first.exitCode == 0)
            // Before: the rows issued in the last hour before the cut had no reference (never filled in).
            let early = String(decoding: try #require(twice.files()["/\(NightlyBench.night)/predictions/p_a.csv"]), as: UTF8.self)
            #expect(early.split(separator: "\n").last?.hasSuffix(",") == true)
            for (i, log) in full.enumerated() { try twice.addFile("\(log.patient.rawValue)-later-\(i).csv", log) }
            var second = try twice.auditingScorer(patients)
            if interrupt {
                // Stopped after p_b's files are written, before its state advances: the next run finishes.
                second.afterPatientFiles = { (p: PatientID) in if p == pB { throw Interrupted() } }
                #expect(throws: Interrupted.self) { try second.run() }
                second.afterPatientFiles = nil
            }
            let last = try second.run()
            #expect(last.exitCode == 0)
            #expect(try twice.files() == reference, "interrupted: \(interrupt)")
            #expect(try twice.states() == once.states())
            if !interrupt {
                // The summary line counts each run's new predictions: together, the single run's.
                #expect(first.predictions + last.predictions == single.predictions)
            }
        }
    }

    /// `log`'s records from `days` (whole days from `PredictFixture.day0`): one delivery of a feed.
    static func slice(_ log: PatientLog, days: Range<Int>) -> PatientLog {
        let start = PredictFixture.day0.addingTimeInterval(Double(days.lowerBound) * 86_400)
        let end = PredictFixture.day0.addingTimeInterval(Double(days.upperBound) * 86_400)
        var out = PatientLog(patient: log.patient)
        out.glucose = log.glucose.filter { $0.time >= start && $0.time < end }
        out.carbs = log.carbs.filter { $0.time >= start && $0.time < end }
        out.boluses = log.boluses.filter { $0.time >= start && $0.time < end }
        out.basalRates = log.basalRates.filter { $0.start >= start && $0.start < end }
        return out
    }

    /// Audit 38, finding 1: files delivered in another order than time (the newer days first, or a
    /// delayed upload filling a gap) were imported by the night's second run and never scored: every
    /// reading was older than the state, so the patient counted as up to date, and the night lost
    /// the first days' predictions, alerts and dose audits without a warning. Now records imported
    /// since the state are news in its night: two polls leave every file of the night as one run
    /// over the same data does. Finding 4: the runs' counts add up to the one run's.
    @Test(arguments: [[0..<3, 4..<6], [3..<6]])
    func filesDeliveredOutOfOrderEqualOneRun(firstPoll: [Range<Int>]) throws {
        let (full, patients, once, single) = try Self.sixDaysInOneRun()
        let secondPoll = [0..<6].flatMap { all in all.filter { day in !firstPoll.contains { $0.contains(day) } } }
        let twice = try Self.bench(full.flatMap { log in firstPoll.map { Self.slice(log, days: $0) } })
        let first = try twice.auditingScorer(patients).run()
        for log in full { try twice.addFile("\(log.patient.rawValue)-late.csv", Self.slice(log, days: secondPoll.min()!..<secondPoll.max()! + 1)) }
        let second = try twice.auditingScorer(patients).run()
        #expect(first.exitCode == 0 && second.exitCode == 0)
        #expect(second.patientsScored == 2 && second.readingsImported == secondPoll.count * 288 * 2)
        #expect(try twice.files() == once.files(), "first poll: days \(firstPoll)")
        #expect(try twice.states() == once.states())
        #expect(first.readingsScored + second.readingsScored == single.readingsScored)
        #expect(first.predictions + second.predictions == single.predictions)
        // Audit 42: the alert episodes likewise. The second poll's episodes in the days it filled
        // (all before the state) were not counted: the predictions' count took the rows beyond
        // the earlier runs', the alerts' only episodes the predictions after the state reach.
        // The single run's count is the rows of its alert files, counted here from the files.
        let alertRows = try once.files().filter { $0.key.contains("/alerts/") }
            .map { String(decoding: $0.value, as: UTF8.self).split(separator: "\n").count - 1 }.reduce(0, +)
        #expect(single.alerts == alertRows && alertRows > 0)
        #expect(second.alerts > 0, "first poll: days \(firstPoll)")
        #expect(first.alerts + second.alerts == single.alerts, "first poll: days \(firstPoll)")
        // A third poll with nothing new touches nothing.
        let third = try twice.auditingScorer(patients).run()
        #expect(third.patientsScored == 0 && third.patientsUpToDate == 2 && third.predictions == 0 && third.alerts == 0)
    }

    /// A night whose patient another night has advanced since (its label given again) keeps its
    /// rows and adds the new ones: nothing of the other night is scored into it again.
    @Test func aNightRunAgainAfterAnotherNightOnlyAddsTheNewRows() throws {
        let bench = try NightlyBench(patients: [PredictFixture.patientA])
        _ = try bench.scorer("2026-01-10").run()
        try bench.addFile("p_a-day5.csv", PredictFixture.log(PredictFixture.patientA, firstDay: 5, days: 1))
        _ = try bench.scorer("2026-01-11").run()
        let before = try bench.files()
        try bench.addFile("p_a-day6.csv", PredictFixture.log(PredictFixture.patientA, firstDay: 6, days: 1))
        let third = try bench.scorer("2026-01-10").run()
        #expect(third.exitCode == 0 && third.predictions == 288 * 2 * 4)
        let after = try bench.files()
        func issued(_ files: [String: Data], _ night: String) -> [String] {
            String(decoding: files["/\(night)/predictions/p_a.csv"]!, as: UTF8.self).split(separator: "\n").dropFirst()
                .map { String($0.split(separator: ",")[1]) }
        }
        #expect(after["/2026-01-11/predictions/p_a.csv"] == before["/2026-01-11/predictions/p_a.csv"])
        let old = issued(before, "2026-01-10"), new = issued(after, "2026-01-10")
        #expect(Array(new.prefix(old.count)) == old && new.count == old.count + third.predictions)
        #expect(Set(new).isDisjoint(with: issued(after, "2026-01-11")))
        #expect(new.last!.hasPrefix("2026-01-11T23:55"))
    }

    @Test func lockKeepsASecondRunOut() throws {
        let bench = try NightlyBench(patients: [PredictFixture.patientA])
        let held = try StoreLock(storePath: bench.store)
        let busy = try bench.scorer().run()
        #expect(busy.exitCode == 75 && busy.status == .locked)
        #expect(busy.summaryLine.contains("is locked: another run is using this store"))
        #expect(try bench.files().isEmpty)
        held.release()
        #expect(try bench.scorer().run().exitCode == 0)
        // The store named through a symbolic link takes the same lock (each spelling had its own,
        // and two writers ran at once; hunt J, stop 52).
        let link = URL(fileURLWithPath: bench.store).deletingLastPathComponent().appendingPathComponent("current.sqlite").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: bench.store)
        let viaLink = try StoreLock(storePath: link)
        #expect(viaLink.path == StoreLock.resolved(bench.store) + ".lock")
        #expect(throws: StoreLock.LockError.self) { try StoreLock(storePath: bench.store) }
        #expect(try bench.scorer().run().exitCode == 75)
        viaLink.release()
    }

    @Test func patientWithoutModelAndBadFileAreWarnings() throws {
        let noModel = try PatientID("p_nomodel")
        let bench = try NightlyBench(patients: [PredictFixture.patientA, noModel], modelsFor: [PredictFixture.patientA])
        try Data("this is not an export\n".utf8).write(to: bench.inbox.appendingPathComponent("junk.csv"))
        let outcome = try bench.scorer().run()
        #expect(outcome.exitCode == 2 && outcome.status == .partial)
        #expect(outcome.patientsScored == 1)
        #expect(outcome.warnings.count == 2)
        #expect(outcome.warnings.contains { $0.hasPrefix("import failed: ") && $0.contains("junk.csv") })
        #expect(outcome.warnings.contains("p_nomodel: no trained model in \(bench.models.path); not scored"))
        // The bad file left the inbox for the quarantine, with its reason, and is reported once.
        let quarantined = bench.out.appendingPathComponent("quarantine/junk.csv")
        #expect(outcome.filesQuarantined == 1)
        #expect(FileManager.default.fileExists(atPath: quarantined.path))
        #expect(!FileManager.default.fileExists(atPath: bench.inbox.appendingPathComponent("junk.csv").path))
        let reason = try String(contentsOf: URL(fileURLWithPath: quarantined.path + ".reason.txt"), encoding: .utf8)
        #expect(reason.contains("none of the known formats"))
        let again = try bench.scorer().run()
        #expect(!again.warnings.contains { $0.contains("junk.csv") })
    }

    /// Dexcom Clarity names each export after the day it was made (`Clarity_Export_<names>_2026-01-07_020000.csv`):
    /// from the file name, each night's export was a new patient. With patient folders a file in
    /// `<inbox>/<id>/` is that patient's, whatever its name; a folder whose name is no id is refused,
    /// naming it (the file quarantined); files directly in the inbox name their patient as before.
    @Test func patientFoldersNameThePatientOfDatedExports() throws {
        let bench = try NightlyBench(patients: [PredictFixture.patientA])
        let folder = bench.inbox.appendingPathComponent("p_b/2026")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try DexcomTestExport.write(folder.appendingPathComponent("Clarity_Export_2026-01-07_020000.csv"), rows: (0..<12).map { ($0, 100 + $0) })
        try DexcomTestExport.write(folder.appendingPathComponent("Clarity_Export_2026-01-08_020000.csv"), rows: (10..<30).map { ($0, 100 + $0) })
        let bad = bench.inbox.appendingPathComponent("not an id")
        try FileManager.default.createDirectory(at: bad, withIntermediateDirectories: true)
        try DexcomTestExport.write(bad.appendingPathComponent("Clarity_Export_2026-01-08_020000.csv"), rows: [(0, 90)])
        var scorer = bench.scorer()
        scorer.settings.patientFolders = true
        let outcome = try scorer.run()
        let store = try PatientStore(path: bench.store)
        #expect(try store.patients() == [PredictFixture.patientA, try PatientID("p_b")])
        let pb = try store.log(for: try PatientID("p_b"))
        #expect(pb.glucose.count == 30)   // rows 0-29; 10 and 11 were in both files
        #expect(outcome.filesQuarantined == 1)
        let warning = try #require(outcome.warnings.first { $0.contains("not an id") })
        #expect(warning.contains("the inbox folder 'not an id' names no patient"), "\(warning)")
        // Without the flag each export is a patient of its own name.
        let plain = try NightlyBench(patients: [PredictFixture.patientA])
        try DexcomTestExport.write(plain.inbox.appendingPathComponent("p_b/Clarity_Export_2026-01-07_020000.csv"),
                                   rows: (0..<12).map { ($0, 100 + $0) }, creatingFolder: true)
        _ = try plain.scorer().run()
        #expect(try PatientStore(path: plain.store).patients().map(\.rawValue) == ["Clarity_Export_2026-01-07_020000", "p_a"])
    }

    /// A file given as the inbox or the models folder: "does not exist", after the store and its lock
    /// file were made. Now "is a file, not a folder", and nothing is made.
    @Test func aFileGivenForAFolderIsNamedAndLeavesNothing() throws {
        let bench = try NightlyBench(patients: [PredictFixture.patientA])
        let file = bench.inbox.appendingPathComponent("p_a-days0-4.csv")
        for inboxGiven in [true, false] {
            let store = bench.dir.appendingPathComponent("new-\(inboxGiven).sqlite").path
            let settings = NightlySettings(storePath: store, inbox: inboxGiven ? file : bench.inbox, modelsFolder: inboxGiven ? bench.models : file,
                                           output: bench.out, night: NightlyBench.night, importOptions: ImportOptions(timeZone: PredictFixture.utc))
            let outcome = try NightlyScorer(settings: settings).run()
            #expect(outcome.failure == .notAFolder(inboxGiven ? "inbox" : "models", file.path))
            #expect(outcome.failure?.description == "the \(inboxGiven ? "inbox" : "models") folder \(file.path) is a file, not a folder")
            #expect(!FileManager.default.fileExists(atPath: store) && !FileManager.default.fileExists(atPath: store + ".lock"))
        }
    }

    /// A Nightscout JSON still being written when the night ran read as truncated and was moved to the
    /// quarantine, where its writer finished it: a whole, valid file never imported, and later nights
    /// exited 0. A file that fails within `settleTime` of its last change stays in the inbox (a
    /// warning) and imports once whole; one that still fails after it is quarantined.
    @Test func aFileStillBeingWrittenStaysInTheInbox() throws {
        let bench = try NightlyBench(patients: [PredictFixture.patientA])
        let file = bench.inbox.appendingPathComponent("ns.json")
        let whole = try Data(contentsOf: Fixture.url("exports/nightscout_entries.json"))
        try whole.prefix(whole.count / 2).write(to: file)
        var scorer = bench.scorer()
        scorer.settings.settleTime = 600
        let first = try scorer.run()
        #expect(first.filesQuarantined == 0 && FileManager.default.fileExists(atPath: file.path))
        let warning = try #require(first.warnings.first { $0.contains("ns.json") })
        #expect(warning.hasPrefix("not imported: ") && warning.contains("may still be being written: left in the inbox for the next run"), "\(warning)")
        // Finished: imported the next time.
        try whole.write(to: file)
        let second = try scorer.run()
        #expect(second.filesImported == 1 && second.filesQuarantined == 0)
        #expect(try PatientStore(path: bench.store).patients().map(\.rawValue).contains("ns"))
        // Cut short and left so past the settle time: quarantined.
        let stale = bench.inbox.appendingPathComponent("stale.json")
        try whole.prefix(whole.count / 2).write(to: stale)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-601)], ofItemAtPath: stale.path)
        let third = try scorer.run()
        #expect(third.filesQuarantined == 1 && !FileManager.default.fileExists(atPath: stale.path))
        // 15 minutes ahead (a file server's clock running fast): still being written. A day ahead: not
        // (hunt AG, stop 57: "changed 0 s ago" every night until then).
        let ahead = bench.inbox.appendingPathComponent("ahead.json")
        try whole.prefix(whole.count / 2).write(to: ahead)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(900)], ofItemAtPath: ahead.path)
        #expect(try scorer.run().filesQuarantined == 0 && FileManager.default.fileExists(atPath: ahead.path))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(86_400)], ofItemAtPath: ahead.path)
        let fourth = try scorer.run()
        #expect(fourth.filesQuarantined == 1 && !FileManager.default.fileExists(atPath: ahead.path))
    }

    /// Hunt AG (stop 57): a night run with the machine's clock days behind (a boot before the network
    /// set it) kept each export to the wrong clock's day, skipping the rest as future-dated, and the
    /// next nights, the clock right, read the same content as imported: rows lost with "0 warnings".
    /// Now a file with rows after a clock more than an hour behind the store's newest import is not
    /// imported (it stays in the inbox, a warning); a file without such rows is, whatever the clock.
    @Test func aFileWithRowsAfterAClockBehindTheStoreStaysInTheInbox() throws {
        let bench = try NightlyBench(patients: [PredictFixture.patientA])
        #expect(try bench.scorer().run().failure == nil)  // imported now: the store's newest import is today's
        var scorer = bench.scorer()
        // The machine's clock on day 7 of the fixture's January: months behind that import.
        scorer.settings.importOptions.now = PredictFixture.day0.addingTimeInterval(7.5 * 86_400)
        let past = bench.inbox.appendingPathComponent("days5-6.csv")
        try Data(PredictFixture.csv(PredictFixture.log(PredictFixture.patientA, firstDay: 5, days: 2)).utf8).write(to: past)
        let ahead = bench.inbox.appendingPathComponent("days5-9.csv")
        try Data(PredictFixture.csv(PredictFixture.log(PredictFixture.patientA, firstDay: 5, days: 5)).utf8).write(to: ahead)
        let night = try scorer.run()
        #expect(night.filesImported == 1 && night.filesQuarantined == 0, "\(night.warnings)")
        let warning = try #require(night.warnings.first { $0.contains("days5-9.csv") }, "\(night.warnings)")
        #expect(warning.contains("dated after this machine's clock (\(scorer.settings.importOptions.now.iso8601)), which is behind the "
                                 + "store's newest import") && warning.contains("the file stays in the inbox"), "\(warning)")
        #expect(FileManager.default.fileExists(atPath: ahead.path))
        #expect(try PatientStore(path: bench.store).importRuns().map { URL(fileURLWithPath: $0.filePath).lastPathComponent }.contains("days5-6.csv"))
        // The clock right: imported whole.
        let right = try bench.scorer().run()
        #expect(right.filesImported == 1 && right.warnings.isEmpty, "\(right.warnings)")
    }

    /// Hunt AG (stop 57): on a new store the clock check has nothing to go by. A file whose import
    /// skipped rows dated after its time, read again over an hour later, says so and how to read them.
    @Test func rowsSkippedAsFutureDatedAreNamedWhenTheFileIsReadAgain() throws {
        let bench = try NightlyBench(patients: [PredictFixture.patientA])
        var scorer = bench.scorer()
        // The machine's clock on the third of the file's five days.
        scorer.settings.importOptions.now = PredictFixture.day0.addingTimeInterval(2.5 * 86_400)
        let first = try scorer.run()
        #expect(first.filesImported == 1 && first.warnings.contains { $0.contains("future-dated") }, "\(first.warnings)")
        // Read again at once: nothing to say; over an hour after that import: the rows and the way to read them.
        #expect(try scorer.run().warnings.isEmpty)
        let db = try DatabaseQueue(path: bench.store)
        try db.write { try $0.execute(sql: "UPDATE import_runs SET started_at = started_at - 7200") }
        let later = try scorer.run()
        let note = try #require(later.warnings.first, "\(later.warnings)")
        // Every row of the file's last 2.5 days: 720 readings and the boluses and meals among them.
        let skipped = try #require(try PatientStore(path: bench.store).importRuns().first?.summary.skipped["future-dated"])
        #expect(skipped > 720 && note.contains("skipped \(skipped) rows dated after that time"), "\(note)")
        #expect(note.contains("p_a-days0-4.csv: its import at ") && note.contains("rows dated after that time (was the machine's clock behind?)")
                && note.contains("glucomodel-train import-data --forget \(bench.inbox.path)/p_a-days0-4.csv --store \(bench.store)"), "\(later.warnings)")
    }

    /// Finding 7: an inbox file whose every row was skipped was recorded as imported (never to be
    /// read again) with an empty patient. Now it is a failed file: quarantined with its summary and
    /// first warnings as the reason, no run and no patient stored.
    @Test func inboxFileWithEveryRowSkippedIsQuarantined() throws {
        let bench = try NightlyBench(patients: [PredictFixture.patientA])
        try Data("patient,time,event,value,unit\np_e,1768435200,glucose,120,mg/dL\n".utf8)
            .write(to: bench.inbox.appendingPathComponent("epoch.csv"))
        let outcome = try bench.scorer().run()
        #expect(outcome.exitCode == 2 && outcome.filesQuarantined == 1 && outcome.patientsScored == 1)
        let warning = try #require(outcome.warnings.first { $0.contains("epoch.csv") })
        #expect(warning.hasPrefix("import failed: ") && warning.contains("no records kept"))
        #expect(warning.contains("1 row read, 0 records kept, 1 skipped (1 bad time)"))
        #expect(warning.contains("epoch.csv:2 [time]: warning: '1768435200' is not a valid time"))
        let reason = try String(contentsOf: bench.out.appendingPathComponent("quarantine/epoch.csv.reason.txt"), encoding: .utf8)
        #expect(reason.contains("no records kept") && reason.contains("epoch.csv:2 [time]"))
        let store = try PatientStore(path: bench.store)
        #expect(try store.patients() == [PredictFixture.patientA] && store.importRuns().count == 1)
    }

    /// Finding 8: a CSV holding two patients in the inbox: nightly said "0 warnings" and exited 0,
    /// and the second patient's rows never reached the store (the file's hash recorded, so they
    /// never would). Now rows the import skipped are a warning of the night, with the summary line
    /// and first warnings as `import-data` prints them, on stderr and in summary.json: exit 2.
    @Test func rowsSkippedByTheImportAreWarnings() throws {
        let bench = try NightlyBench(patients: [PredictFixture.patientA])
        let file = bench.inbox.appendingPathComponent("p_a-days0-4.csv")
        let other = PredictFixture.csv(PredictFixture.log(try PatientID("p_other"), days: 1)).split(separator: "\n").dropFirst()
        let firstOther = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").count + 1
        try Data((try String(contentsOf: file, encoding: .utf8) + other.joined(separator: "\n") + "\n").utf8).write(to: file)
        var messages: [String] = []
        let outcome = try bench.scorer().run { messages.append($0) }
        #expect(outcome.exitCode == 2 && outcome.status == .partial && outcome.patientsScored == 1)
        #expect(outcome.warnings.count == 1)
        let warning = try #require(outcome.warnings.first)
        #expect(warning.contains("p_a-days0-4.csv: ") && warning.contains("skipped (\(other.count) other patient)"), "\(warning)")
        #expect(warning.contains("p_a-days0-4.csv:\(firstOther) [patient]: warning: row for patient 'p_other'"), "\(warning)")
        #expect(warning.contains("more warnings"))
        #expect(messages.contains("warning: " + warning))
        let summary = String(decoding: try #require(bench.files()["/\(NightlyBench.night)/summary.json"]), as: UTF8.self)
        #expect(summary.contains("other patient)") && summary.contains("[patient]: warning: row for patient 'p_other'"))
    }

    /// Rows skipped as expected (exact copies of a kept row, a Dexcom export's preamble) lose nothing:
    /// counted, but no warning of the night; an inbox export with only its preamble is no failure.
    @Test func exactDuplicateRowsAreNoWarning() throws {
        let bench = try NightlyBench(patients: [PredictFixture.patientA])
        let file = bench.inbox.appendingPathComponent("p_a-days0-4.csv")
        let text = try String(contentsOf: file, encoding: .utf8)
        let copy = try #require(text.split(separator: "\n").dropFirst().first)
        try Data((text + copy + "\n").utf8).write(to: file)
        let outcome = try bench.scorer().run()
        #expect(outcome.exitCode == 0 && outcome.warnings.isEmpty && outcome.patientsScored == 1)
    }

    /// Finding 12: a rerun of the night rewrote summary.json with "warnings": [], losing the record
    /// of the file the first run quarantined. The night's warnings are kept: a rerun with nothing new
    /// leaves every file byte for byte, and a later run's new warning is added once.
    @Test func rerunKeepsTheNightsWarnings() throws {
        let noModel = try PatientID("p_nomodel")
        let bench = try NightlyBench(patients: [PredictFixture.patientA, noModel], modelsFor: [PredictFixture.patientA])
        try Data("this is not an export\n".utf8).write(to: bench.inbox.appendingPathComponent("junk.csv"))
        let first = try bench.scorer().run()
        #expect(first.exitCode == 2 && first.warnings.count == 2)
        let files = try bench.files()
        let summaryPath = "/\(NightlyBench.night)/summary.json"
        let summary = String(decoding: try #require(files[summaryPath]), as: UTF8.self)
        #expect(summary.contains("junk.csv") && summary.contains("p_nomodel: no trained model"))
        let second = try bench.scorer().run()
        #expect(second.warnings == ["p_nomodel: no trained model in \(bench.models.path); not scored"])
        #expect(try bench.files() == files)
        // A new bad file the same night: added after the night's earlier warnings.
        try Data("not \"an\" export either\n".utf8).write(to: bench.inbox.appendingPathComponent("junk2.csv"))
        _ = try bench.scorer().run()
        let third = String(decoding: try #require(bench.files()[summaryPath]), as: UTF8.self)
        let warnings = try #require(third.split(separator: "\n").first { $0.contains("\"warnings\"") })
        let junk = try #require(warnings.range(of: "junk.csv")), junk2 = try #require(warnings.range(of: "junk2.csv"))
        #expect(junk.lowerBound < junk2.lowerBound)
        #expect(warnings.components(separatedBy: "p_nomodel: no trained model").count == 2)
    }

    /// Audit 38, finding 3: a run killed while scoring, after its import had moved a bad file to
    /// quarantine, left no record of it: the rerun found the file gone, and the night's summary had
    /// no warnings. The import's warnings are in the summary before any patient is scored.
    @Test func aRunKilledWhileScoringKeepsTheImportsWarnings() throws {
        let bench = try NightlyBench(patients: [PredictFixture.patientA])
        try Data("this is not an export\n".utf8).write(to: bench.inbox.appendingPathComponent("junk.csv"))
        var scorer = bench.scorer()
        scorer.afterPatientFiles = { _ in throw Interrupted() }
        #expect(throws: Interrupted.self) { try scorer.run() }
        let summaryPath = "/\(NightlyBench.night)/summary.json"
        let killed = String(decoding: try #require(bench.files()[summaryPath]), as: UTF8.self)
        #expect(killed.contains("junk.csv") && killed.contains("quarantine"))
        let rerun = try bench.scorer().run()
        #expect(rerun.patientsScored == 1 && rerun.warnings.isEmpty)
        let summary = String(decoding: try #require(bench.files()[summaryPath]), as: UTF8.self)
        #expect(summary.contains("junk.csv") && summary.contains("\"predictions\": \(rerun.predictions)"))
    }

    /// Issue #12: a named pipe in the inbox blocked the run forever while holding the lock.
    @Test func namedPipeInTheInboxIsSkipped() throws {
        let bench = try NightlyBench(patients: [PredictFixture.patientA])
        let pipe = bench.inbox.appendingPathComponent("pipe.csv").path
        #expect(mkfifo(pipe, 0o600) == 0)
        try FileManager.default.createDirectory(at: bench.inbox.appendingPathComponent("folder.csv"), withIntermediateDirectories: true)
        let outcome = try bench.scorer().run()
        #expect(outcome.exitCode == 0 && outcome.patientsScored == 1 && outcome.warnings.isEmpty)
        #expect(FileManager.default.fileExists(atPath: pipe))
        #expect(throws: InputError.self) { try CohortLoader.files([pipe]) }
    }

    @Test func exitCodes() {
        var outcome = NightlyOutcome()
        #expect(outcome.exitCode == 0)              // nothing to do is all done
        outcome.patientsScored = 2
        #expect(outcome.exitCode == 0)
        outcome.warnings = ["p_x: no glucose readings"]
        #expect(outcome.exitCode == 2)              // partial: some work done, something skipped
        outcome.patientsScored = 0
        #expect(outcome.exitCode == 1)              // only failures: nothing could be done
        outcome.filesImported = 1
        #expect(outcome.exitCode == 2)              // a file was imported: something was done
        outcome.failure = .unusableStore("s", "not SQLite")
        #expect(outcome.exitCode == 1)
        outcome.failure = .busy("locked")
        #expect(outcome.exitCode == 75)
        #expect(NightlySettings.isNightLabel("2026-01-10") && !NightlySettings.isNightLabel("2026-13-10")
            && !NightlySettings.isNightLabel("2026-01-10T05:00"))
    }
}

@Suite struct NightlyDoseAuditTests {
    @Test func patientsWithSettingsGetADoseAudit() throws {
        let bench = try NightlyBench()
        let settings = bench.dir.appendingPathComponent("settings")
        try FileManager.default.createDirectory(at: settings, withIntermediateDirectories: true)
        func write(_ p: String, isf: Double) throws {
            let text = """
                {"patient": "\(p)", "carbRatio": 12, "insulinSensitivity": \(isf), "target": 110,
                 "suspendThreshold": 70, "maxBolus": 10}
                """
            try Data(text.utf8).write(to: settings.appendingPathComponent("\(p).json"))
        }
        try write("p_a", isf: 50)
        try write("p_c", isf: 900)  // outside the plausible 10-500 mg/dL/U
        var scorer = bench.scorer()
        scorer.auditor = DoseAudit.nightlyAuditor(settingsFolder: settings)
        let outcome = try scorer.run()
        let files = try bench.files()
        let audit = try #require(files["/\(NightlyBench.night)/dose-audit/p_a.csv"])
        let lines = String(decoding: audit, as: UTF8.self).split(separator: "\n")
        #expect(lines.first.map(String.init) == DoseAuditRow.csvHeader)
        // Three meals a day with boluses, and the night's period covers at least one day of them.
        #expect(lines.count > 3)
        #expect(files["/\(NightlyBench.night)/dose-audit/p_b.csv"] == nil)
        #expect(files["/\(NightlyBench.night)/dose-audit/p_c.csv"] == nil)
        #expect(outcome.exitCode == 2)  // partial: p_c's settings were refused
        #expect(outcome.warnings.contains { $0.contains("p_c") && $0.contains("insulinSensitivity") })
    }
}

extension NightlyDoseAuditTests {
    /// Audit 39 (docs): a settings file with an implausible setting stopped its patient's scoring,
    /// not only its audit: the night's prediction and alert files were written but the scoring
    /// state never advanced, the summary line left the patient out, and every later night scored
    /// its whole history again into that night's folder. Now it is a warning naming the file and
    /// the setting, and the patient is scored, night after night, as a run without --settings scores it.
    @Test func aBadSettingsFileStopsTheAuditNotTheScoring() throws {
        let p = [PredictFixture.patientA]
        let bad = try NightlyBench(patients: p), plain = try NightlyBench(patients: p)
        let folder = try bad.settingsFolder(for: p)
        let file = folder.appendingPathComponent("p_a.json")
        let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
        try Data(text.replacingOccurrences(of: "\"carbRatio\": 12", with: "\"carbRatio\": 200").utf8).write(to: file)
        func scorer(_ bench: NightlyBench, _ night: String) -> NightlyScorer {
            var scorer = bench.scorer(night)
            if bench.dir == bad.dir {
                scorer.auditor = DoseAudit.nightlyAuditor(settingsFolder: folder)
                scorer.settingsChecker = SettingsEstimator.nightlyChecker(settingsFolder: folder, timeZone: PredictFixture.utc)
            }
            return scorer
        }
        let nights = ["2026-01-10", "2026-01-11"]
        // Night 1: days 0-4; night 2: day 5 comes in.
        var outcomes: [[NightlyOutcome]] = [[], []]
        var states: [[PatientID: Date]] = [[:], [:]]
        for (i, bench) in [bad, plain].enumerated() {
            outcomes[i].append(try scorer(bench, nights[0]).run())
            states[i] = try bench.states()
            try bench.addFile("p_a-day5.csv", PredictFixture.log(PredictFixture.patientA, firstDay: 5, days: 1))
            outcomes[i].append(try scorer(bench, nights[1]).run())
        }
        // Scored up to the newest reading each night: day 0 + 5 days - 5 min, then + 6 days - 5 min.
        let night1End = PredictFixture.day0.addingTimeInterval(5 * 86_400 - 300)
        #expect(states[0] == [PredictFixture.patientA: night1End] && states[1] == states[0])
        #expect(try bad.states() == [PredictFixture.patientA: night1End.addingTimeInterval(86_400)])
        for (b, p) in zip(outcomes[0], outcomes[1]) {
            #expect(b.patientsScored == 1 && b.predictions == p.predictions && b.readingsScored == p.readingsScored
                && b.alerts == p.alerts)
            // Done with warnings (2): one for the audit, one for the settings check, each naming the file and the setting.
            #expect(b.exitCode == 2 && p.exitCode == 0)
            #expect(b.warnings.count == 2 && b.warnings.allSatisfy { $0.hasPrefix("p_a: no ") && $0.contains("p_a.json") && $0.contains("'carbRatio' = 200") })
        }
        let badFiles = try bad.files(), plainFiles = try plain.files()
        for night in nights {
            for kind in ["predictions", "alerts"] {
                let path = "/\(night)/\(kind)/p_a.csv"
                #expect(badFiles[path] != nil && badFiles[path] == plainFiles[path], "\(path)")
            }
            #expect(badFiles["/\(night)/dose-audit/p_a.csv"] == nil && badFiles["/\(night)/settings-check/p_a.csv"] == nil)
        }
        // Night 2 holds day 5's 288 issue moments only, from the step after night 1's state (it held
        // the whole history again).
        let night2 = String(decoding: try #require(badFiles["/\(nights[1])/predictions/p_a.csv"]), as: UTF8.self)
            .split(separator: "\n").dropFirst()
        let issued = Set(night2.map { String($0.split(separator: ",")[1]) })
        #expect(issued.min() == PredictionCSV.iso8601(night1End.addingTimeInterval(300)) && issued.count == 288)
    }
}

extension NightlyBench {
    /// A settings folder with a plausible settings file for each of `patients`.
    func settingsFolder(for patients: [PatientID]) throws -> URL {
        let folder = dir.appendingPathComponent("settings")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for p in patients {
            let text = """
                {"patient": "\(p.rawValue)", "carbRatio": 12, "insulinSensitivity": 50, "target": 110,
                 "suspendThreshold": 70, "maxBolus": 10}
                """
            try Data(text.utf8).write(to: folder.appendingPathComponent("\(p.rawValue).json"))
        }
        return folder
    }

    /// `scorer(night)` with the dose auditor of `settingsFolder(for:)`.
    func auditingScorer(_ patients: [PatientID], night: String = NightlyBench.night) throws -> NightlyScorer {
        var scorer = self.scorer(night)
        scorer.auditor = DoseAudit.nightlyAuditor(settingsFolder: try settingsFolder(for: patients))
        return scorer
    }
}

extension NightlyDoseAuditTests {
    /// Finding 1 (audit of nightly): a second run of the night with new data rewrote
    /// dose-audit/<patient>.csv with the new boluses alone, losing the earlier runs' rows. Now the
    /// file after two runs holds what one run over the same data writes: no row lost, none twice.
    @Test func secondRunOfTheNightKeepsTheEarlierAuditRows() throws {
        let p = [PredictFixture.patientA]
        let twice = try NightlyBench(patients: p)
        #expect(try twice.auditingScorer(p).run().exitCode == 0)
        let path = "/\(NightlyBench.night)/dose-audit/p_a.csv"
        let first = String(decoding: try #require(twice.files()[path]), as: UTF8.self).split(separator: "\n")
        try twice.addFile("p_a-day5.csv", PredictFixture.log(PredictFixture.patientA, firstDay: 5, days: 1))
        #expect(try twice.auditingScorer(p).run().exitCode == 0)
        let after = String(decoding: try #require(twice.files()[path]), as: UTF8.self).split(separator: "\n")
        let once = try NightlyBench(patients: p)
        try once.addFile("p_a-day5.csv", PredictFixture.log(PredictFixture.patientA, firstDay: 5, days: 1))
        #expect(try once.auditingScorer(p).run().exitCode == 0)
        let single = String(decoding: try #require(once.files()[path]), as: UTF8.self).split(separator: "\n")
        // Three meal boluses a day: the first run's rows are kept, day 5's three added once.
        #expect(first.count > 4 && after.count == first.count + 3)
        #expect(Array(after.prefix(first.count)) == first)
        #expect(after == single)
    }
}

@Suite struct NightlySettingsCheckTests {
    @Test func weekdaysOfNightLabels() {
        // 2026-01-12 was a Monday; 2026-01-18 a Sunday.
        #expect(Weekday.monday.matches(night: "2026-01-12") && !Weekday.tuesday.matches(night: "2026-01-12"))
        #expect(Weekday.sunday.matches(night: "2026-01-18") && Weekday.saturday.matches(night: "2026-01-17"))
        #expect(!Weekday.monday.matches(night: "not-a-night"))
    }

    /// On the check's night, a patient with a settings file gets the `settings` CSV of their stored log; others none.
    @Test func checkNightWritesTheSettingsTableForPatientsWithSettings() throws {
        let bench = try NightlyBench()
        let settingsFolder = bench.dir.appendingPathComponent("settings")
        try FileManager.default.createDirectory(at: settingsFolder, withIntermediateDirectories: true)
        var s = KnownPerson().settings
        s.patient = try PatientID("p_a")
        try Data(try s.jsonText().utf8).write(to: settingsFolder.appendingPathComponent("p_a.json"))
        var scorer = bench.scorer()
        scorer.settingsChecker = SettingsEstimator.nightlyChecker(settingsFolder: settingsFolder, timeZone: PredictFixture.utc)
        #expect(try scorer.run().exitCode == 0)
        let files = try bench.files()
        let text = try #require(files["/\(NightlyBench.night)/settings-check/p_a.csv"]).map { Character(UnicodeScalar($0)) }
        let lines = String(text).split(separator: "\n").map(String.init)
        #expect(lines.first == SettingsEstimate.csvHeader)
        #expect(lines.dropFirst().map { $0.split(separator: ",")[1] } == ["carbRatio", "insulinSensitivity", "basal 00:00-06:00",
                                                                       "basal 06:00-12:00", "basal 12:00-18:00", "basal 18:00-24:00"])
        // The same table `settings` prints for the patient's five stored days.
        let log = try PatientStore(path: bench.store).log(for: try PatientID("p_a"))
        let direct = SettingsEstimator.estimate(log: log, settings: try s.checked(for: try PatientID("p_a")).get(), timeZone: PredictFixture.utc)
        #expect(Array(lines.dropFirst()) == direct.csvLines)
        #expect(files["/\(NightlyBench.night)/settings-check/p_b.csv"] == nil)
        // Any other night: none.
        let other = try NightlyBench()
        _ = try other.scorer().run()
        #expect(try other.files().keys.allSatisfy { !$0.contains("settings-check/") })
        // Hunt AU: a patient with nothing new on the check's night (its upload late) got no check,
        // silently. The night after a night that scored everything: every patient is up to date.
        let late = try NightlyBench()
        _ = try late.scorer().run()
        var checkNight = late.scorer("2026-01-11")
        checkNight.settingsChecker = scorer.settingsChecker
        try FileManager.default.copyItem(at: settingsFolder.appendingPathComponent("p_a.json"),
                                         to: late.dir.appendingPathComponent("p_a.json"))
        checkNight.settingsChecker = SettingsEstimator.nightlyChecker(settingsFolder: late.dir, timeZone: PredictFixture.utc)
        let quiet = try checkNight.run()
        #expect(quiet.exitCode == 0 && quiet.patientsScored == 0 && quiet.patientsUpToDate == 3)
        let checked = try late.files()["/2026-01-11/settings-check/p_a.csv"].map { String(decoding: $0, as: UTF8.self) }
        #expect(checked?.split(separator: "\n").dropFirst().map(String.init) == direct.csvLines)
        // Not from data older than the check reads: months later, none (the review: February's check
        // again every Monday).
        var months = late.scorer("2026-03-02")
        months.settingsChecker = checkNight.settingsChecker
        months.settingsCheckDay = .monday
        #expect(try months.run().exitCode == 0)
        #expect(try late.files()["/2026-03-02/settings-check/p_a.csv"] == nil)
        // The day is the night's: a Tuesday gets none.
        var tuesday = late.scorer("2026-01-13")
        tuesday.settingsChecker = checkNight.settingsChecker
        tuesday.settingsCheckDay = .monday
        _ = try tuesday.run()
        #expect(try late.files()["/2026-01-13/settings-check/p_a.csv"] == nil)
    }
}
