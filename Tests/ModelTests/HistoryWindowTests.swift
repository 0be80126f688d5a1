import Foundation
import GrammarEvolution
import Testing
@testable import GlucoModel

/// Logs with every kind of record that acts over time, for the window tests: the synthetic
/// patient's meals, boluses and glucose, plus basal-rate changes (some ending early), temporary
/// basals (some lasting two days), extended boluses, exercise, basal injections, heart rate and
/// weights, and gaps in the glucose.
enum WindowFixture {
    static func log(_ r: inout SplitMix64, days: Int, id: String = "win_p") -> PatientLog {
        var log = SyntheticCohort.patient(id, days: days, seed: r.next(), noise: 5)
        let start = SyntheticCohort.start
        func at(_ minute: Int) -> Date { start.addingTimeInterval(Double(minute) * 60) }
        let span = days * 1440
        func minute() -> Int { Int.random(in: 0..<span, using: &r) / 5 * 5 }
        log.basalRates = (0..<Int.random(in: 1...8, using: &r)).map { _ in minute() }.sorted().map { m in
            let ends = Int.random(in: 0..<3, using: &r) == 0
            return BasalRate(start: at(m), end: ends ? at(m + Int.random(in: 30...600, using: &r)) : nil,
                             rate: InsulinRate(unitsPerHour: Double(Int.random(in: 0...20, using: &r)) / 10))
        }
        log.temporaryBasals = (0..<Int.random(in: 0...6, using: &r)).map { _ in minute() }.sorted().map { m in
            let minutes = Int.random(in: 0..<4, using: &r) == 0 ? Int.random(in: 600...2880, using: &r) : Int.random(in: 15...240, using: &r)
            return TemporaryBasal(start: at(m), end: at(m + minutes), rate: InsulinRate(unitsPerHour: Double(Int.random(in: 0...30, using: &r)) / 10))
        }
        for i in log.boluses.indices where Int.random(in: 0..<4, using: &r) == 0 {
            log.boluses[i].type = Bool.random(using: &r) ? .normalDual : .square
            log.boluses[i].end = log.boluses[i].time.addingTimeInterval(Double(Int.random(in: 30...480, using: &r)) * 60)
        }
        log.exercise = (0..<Int.random(in: 0...4, using: &r)).map { _ in minute() }.sorted().map { m in
            ExerciseSession(time: at(m), intensity: Double(Int.random(in: 1...10, using: &r)), durationMinutes: Double(Int.random(in: 10...300, using: &r)))
        }
        log.basalInjections = (0..<Int.random(in: 0...3, using: &r)).map { _ in minute() }.sorted().map {
            BasalInjection(time: at($0), dose: InsulinUnits(Double(Int.random(in: 5...30, using: &r))))
        }
        log.heartRate = stride(from: 0, to: span, by: 15).filter { _ in Bool.random(using: &r) }.map {
            HeartRateSample(time: at($0), beatsPerMinute: Double(Int.random(in: 55...150, using: &r)))
        }
        log.weights = [WeightRecord(time: at(minute()), kilograms: 70)]
        for _ in 0..<Int.random(in: 0...4, using: &r) where !log.glucose.isEmpty {
            let from = Int.random(in: 0..<log.glucose.count, using: &r)
            log.glucose.removeSubrange(from..<min(log.glucose.count, from + Int.random(in: 1...150, using: &r)))
        }
        return log
    }

    /// The log as GlucoModel CSV, every kind of record (`LogCSVImporter`'s table).
    static func csv(_ log: PatientLog) -> String { LogCSVText.of(log) }

    /// Models for 30 and 60 minutes of random expressions over every feature (the extra curves
    /// too, for half the cases), on an ARX of random weights.
    static func models(_ r: inout SplitMix64, patient: PatientID) -> ModelSet {
        let multi = Bool.random(using: &r)
        let list = [30, 60].map { h -> GlucoseModel in
            var f = FeatureSet(horizonMinutes: h)
            if multi { (f.carbCurves, f.insulinCurves) = FeatureSet.multiSpeed(insulin: f.insulin, carbs: f.carbs) }
            let leaves = f.names
            var expression = PropertyGen.expression(&r)
            expression = "(\(expression)) + \(leaves[Int.random(in: 0..<leaves.count, using: &r)]) * 0.1"
            var model = DoseFixture.model(expression, horizon: h, features: f)
            model.patient = patient
            model.base = .arx
            model.arx = ARXModel(featureNames: f.names, intercept: 5,
                                 coefficients: f.names.map { _ in Double(Int.random(in: -100...100, using: &r)) / 100 }, ridge: ARXModel.defaultRidge)
            // Adaptive intervals with a window of hours and a large step: a cut log must hold the
            // rows they replay (`ModelSet.memory`).
            let g = (0..<60).map { 50 + Double($0) * 4 }, errors = g.map { _ in Double(Int.random(in: -30...30, using: &r)) }
            let scales = [PredictionIntervals.Scale(scale: 8, rows: 60, pooled: false), .init(scale: 12, rows: 60, pooled: false),
                          .init(scale: 20, rows: 60, pooled: false)]
            model.intervals = PredictionIntervals(current: g, predictions: g, references: zip(g, errors).map(+), scales: scales)
            model.intervals?.adaptation = IntervalAdaptation(
                windowMinutes: Int.random(in: 600...1440, using: &r), gamma80: 0.05, gamma95: 0.02,
                scores: PredictionIntervals.scaledScores(current: g, predictions: g, references: zip(g, errors).map(+), scales: scales).sorted())
            return model
        }
        return ModelSet(patient: patient, models: Dictionary(uniqueKeysWithValues: list.map { ($0.horizonMinutes, $0) }))
    }
}

/// `PatientLog.since(_:)` and the store's windowed read: a job reading a day of a long history
/// gets what it would from the whole log (nightly, `dose --store`).
@Suite struct HistoryWindowTests {
    static let t0 = Fixture.date("2026-03-01T00:00:00Z")
    static func at(_ hours: Double) -> Date { t0.addingTimeInterval(hours * 3600) }

    /// Worked by hand: what still acts at 07:30 is kept, what is over is dropped.
    @Test func sinceKeepsWhatStillActsAtTheStart() throws {
        var log = PatientLog(patient: try PatientID("win_hand"))
        log.glucose = stride(from: 0.0, through: 10, by: 0.5).map { GlucoseReading(time: Self.at($0), value: .mgdL(100 + $0)) }
        log.basalRates = [BasalRate(start: Self.at(0), rate: InsulinRate(unitsPerHour: 1)),
                          BasalRate(start: Self.at(6), end: Self.at(7), rate: InsulinRate(unitsPerHour: 0.8)),
                          BasalRate(start: Self.at(9), rate: InsulinRate(unitsPerHour: 0.6))]
        log.temporaryBasals = [TemporaryBasal(start: Self.at(5), end: Self.at(9), rate: InsulinRate(unitsPerHour: 0)),
                               TemporaryBasal(start: Self.at(5), end: Self.at(6), rate: InsulinRate(unitsPerHour: 2))]
        log.boluses = [Bolus(time: Self.at(5), dose: InsulinUnits(3)),
                       Bolus(time: Self.at(5.5), end: Self.at(8.5), dose: InsulinUnits(4), type: .square),
                       Bolus(time: Self.at(8), dose: InsulinUnits(1))]
        log.exercise = [ExerciseSession(time: Self.at(5.75), intensity: 5, durationMinutes: 60),
                        ExerciseSession(time: Self.at(7), intensity: 3, durationMinutes: 60)]
        log.carbs = [CarbIntake(time: Self.at(5), amount: Carbohydrate(grams: 40))]
        let cut = log.since(Self.at(7.5))
        #expect(cut.glucose.map(\.time) == stride(from: 7.5, through: 10, by: 0.5).map(Self.at))
        // The 06:00 rate (ended at 07:00) stands at 07:30 and delivers nothing; 09:00's is kept.
        #expect(cut.basalRates == [BasalRate(start: Self.at(7.5), end: Self.at(7.5), rate: InsulinRate(unitsPerHour: 0.8)),
                                   BasalRate(start: Self.at(9), rate: InsulinRate(unitsPerHour: 0.6))])
        #expect(cut.temporaryBasals == [log.temporaryBasals[0]])
        // A temporary basal begun at 06:00 ends the one running since 05:00: at 07:30 none runs.
        var replaced = log
        replaced.temporaryBasals = [log.temporaryBasals[0], TemporaryBasal(start: Self.at(6), end: Self.at(6.5), rate: InsulinRate(unitsPerHour: 2))]
        #expect(replaced.since(Self.at(7.5)).temporaryBasals.isEmpty)
        #expect(replaced.since(Self.at(6.25)).temporaryBasals == [replaced.temporaryBasals[1]])
        #expect(cut.boluses == [log.boluses[1], log.boluses[2]])
        #expect(cut.exercise == [log.exercise[1]])
        #expect(cut.carbs.isEmpty && cut.has(.carbohydrate) && cut.has(.insulin))
        #expect(cut.inputsBefore == [.insulin, .carbohydrate, .basal, .bolus])
        // Without a rate before the start, none is made up; a log without earlier inputs has none before.
        let early = log.since(Self.at(-1))
        #expect(early == log)
        // The 00:00 rate in force at 03:00 begins there, open-ended as it was.
        #expect(log.since(Self.at(3)).basalRates.first == BasalRate(start: Self.at(3), rate: InsulinRate(unitsPerHour: 1)))
    }

    /// On random logs and models, predictions from `since(t - memory)` are those from the whole
    /// log, row for row; a window of two hours changes them (the test can tell).
    @Test func predictionsFromTheWindowAreTheWholeLogs() throws {
        var r = SplitMix64(seed: 2026_11_27)
        var shortWindowDiffered = 0, adapted = 0
        for i in 0..<10 {
            let log = WindowFixture.log(&r, days: Int.random(in: 4...6, using: &r))
            let models = WindowFixture.models(&r, patient: log.patient)
            let cut = log.glucose[Int.random(in: (log.glucose.count / 2)..<log.glucose.count, using: &r)].time
            func rows(_ l: PatientLog) -> String {
                do { return try Predictor(models: models).predict(l, from: cut).map { $0.csvLine(units: .mgdL, intervals: true) }.joined(separator: "\n") }
                catch { return "\(error)" }
            }
            // The whole log's series, uncut (`predict` cuts the log itself when given `from`).
            let wholeRows = try Predictor(models: models).predict(log).filter { $0.issuedAt >= cut }
            let whole = wholeRows.map { $0.csvLine(units: .mgdL, intervals: true) }.joined(separator: "\n")
            #expect(!whole.isEmpty)
            // The adaptive intervals move: more than one half-width per horizon and band (unclamped).
            let widths = Set(wholeRows.compactMap { row in
                row.bounds.flatMap { $0.upper80 < 600 && $0.lower80 > 10 ? "\(row.horizonMinutes) \($0.upper80 - row.prediction)" : nil }
            })
            if widths.count > 6 { adapted += 1 }
            #expect(rows(log) == whole, "case \(i)")
            #expect(rows(log.since(cut.addingTimeInterval(-models.memory))) == whole, "case \(i)")
            if rows(log.since(cut.addingTimeInterval(-7200))) != whole { shortWindowDiffered += 1 }
        }
        #expect(shortWindowDiffered >= 5 && adapted >= 5, "\(shortWindowDiffered) \(adapted)")
    }

    /// Hunt AJ (stop 58): `window(from:before:)`, the cut an audit makes once per meal, is
    /// `since(start)` without the records at or after `end`, on random logs (extended boluses,
    /// temporary basals up to two days, exercise, basal rates that end) and random windows.
    @Test func theWindowIsSinceCutAtItsEnd() {
        var r = SplitMix64(seed: 58)
        for i in 0..<40 {
            // 12 days: a window after the 9th begins later than `reach` after the first records, which it cuts.
            let log = WindowFixture.log(&r, days: 12)
            let span = 12 * 86_400.0
            let start = SyntheticCohort.start.addingTimeInterval(Double.random(in: -3600...span, using: &r))
            let end = start.addingTimeInterval(Double.random(in: 0...(2 * 86_400), using: &r))
            #expect(log.window(from: start, before: end) == log.since(start).before(end), "case \(i)")
        }
        // What the import lets last is within the window's reach.
        #expect(PatientLog.reach >= max(ImportLimits.durationMinutes.upperBound, ImportLimits.exerciseMinutes.upperBound) * 60)
    }

    /// A dose suggestion and a dose audit from `DoseAdvisor.history` are those from the whole log.
    @Test func dosesFromTheWindowAreTheWholeLogs() throws {
        var r = SplitMix64(seed: 77)
        var settings = DoseFixture.settings()
        for i in 0..<8 {
            var log = WindowFixture.log(&r, days: 4)
            log.patient = DoseFixture.patient
            let models = WindowFixture.models(&r, patient: DoseFixture.patient)
            settings.basalSchedule = Bool.random(using: &r) ? nil : [.init(start: "00:00", unitsPerHour: 0.8), .init(start: "06:00", unitsPerHour: 1.1)]
            let checked = try settings.checked(for: DoseFixture.patient).get()
            let at = log.glucose[Int.random(in: (log.glucose.count / 2)..<log.glucose.count, using: &r)].time.addingTimeInterval(60)
            func suggestion(_ l: PatientLog) throws -> String {
                try DoseAdvisor.suggest(log: l, carbs: 45, at: at, settings: checked, models: models).json()
            }
            let whole = try suggestion(log.recorded(through: at))
            #expect(try suggestion(DoseAdvisor.history(log, at: at)) == whole, "case \(i)")
            let audit = { (l: PatientLog) in
                DoseAudit.run(log: l, models: models, settings: checked, period: DateInterval(start: at, end: at.addingTimeInterval(86_400)))
                    .map { $0.csvLine(units: .mgdL) }
            }
            #expect(audit(log.since(at.addingTimeInterval(-DoseAdvisor.memory))) == audit(log), "case \(i)")
        }
    }

    /// Settings for the estimate tests: random ratios, insulin curves up to the settings' 24-hour
    /// limit, with or without a basal schedule.
    static func estimateSettings(_ r: inout SplitMix64, patient: PatientID) throws -> CheckedDoseSettings {
        let duration = [180.0, 300, 360, 480, 1440][Int.random(in: 0..<5, using: &r)]
        let schedule: [BasalSchedule.Entry]? = Bool.random(using: &r) ? nil
            : [.init(start: "00:00", unitsPerHour: 0.7), .init(start: "05:30", unitsPerHour: 1.1), .init(start: "21:00", unitsPerHour: 0.9)]
        return try DoseSettings(patient: patient, carbRatio: Double(Int.random(in: 6...20, using: &r)),
                                insulinSensitivity: Double(Int.random(in: 20...80, using: &r)), target: 110, suspendThreshold: 70,
                                maxBolus: 15, bolusIncrement: 0.05, insulinPeakMinutes: Double(Int.random(in: 45...90, using: &r)),
                                insulinDurationMinutes: duration, basalSchedule: schedule).checked(for: patient).get()
    }

    /// The settings estimate's 30-minute windows (their figures, kinds, blocks, scheduled rates and
    /// bootstrap days) from the log cut at `SettingsEstimator.memory` before the first of them are
    /// the whole log's, and so is the estimate: an estimate over the last weeks of a long history
    /// costs the weeks. A cut two hours before the first window differs (the test can tell).
    @Test func settingsEstimateFromTheWindowIsTheWholeLogs() throws {
        var r = SplitMix64(seed: 2026_11_28)
        let utc = TimeZone(identifier: "UTC")!, zone = TimeZone(identifier: "Europe/Madrid")!
        var shortCutDiffered = 0, cases = 0
        for i in 0..<8 {
            var log = WindowFixture.log(&r, days: Int.random(in: 12...20, using: &r))
            // Start the history off the half hour, so that a window grid begun at the cut would fall elsewhere.
            log.glucose.removeFirst(Int.random(in: 1...5, using: &r))
            let settings = try Self.estimateSettings(&r, patient: log.patient)
            let timeZone = Bool.random(using: &r) ? utc : zone
            for days in [2, 5, 9] {
                cases += 1
                let since = log.glucose.last!.time.addingTimeInterval(-Double(days) * 86_400)
                let reach = SettingsEstimator.memory(insulinDurationMinutes: settings.insulin.durationMinutes)
                let whole = SettingsEstimator.windows(log: log, settings: settings, timeZone: timeZone, carbModel: .standard, since: since)
                let cut = SettingsEstimator.windows(log: log.since(since.addingTimeInterval(-reach)), settings: settings, timeZone: timeZone,
                                                    carbModel: .standard, since: since)
                #expect(whole.count > 20, "case \(i), \(days) days")
                #expect(cut == whole, "case \(i), \(days) days")
                let short = SettingsEstimator.windows(log: log.since(since.addingTimeInterval(-7200)), settings: settings, timeZone: timeZone,
                                                      carbModel: .standard, since: since)
                if short != whole { shortCutDiffered += 1 }
                // The whole estimate (its bootstrap and refits cost a few seconds in a debug build): once a log.
                guard days == 5 else { continue }
                func text(_ e: SettingsEstimate) -> String { e.report + "\n" + e.csvLines.joined(separator: "\n") }
                let uncut = SettingsEstimator.estimate(log: log, settings: settings, timeZone: timeZone, carbModel: .standard, days: days, cut: false)
                #expect(text(SettingsEstimator.estimate(log: log, settings: settings, timeZone: timeZone, days: days)) == text(uncut),
                        "case \(i), \(days) days")
            }
        }
        #expect(shortCutDiffered >= cases / 2)
    }

    /// A pump running 0.1 U/h over the schedule absorbs 0.05 U in every 30-minute window once the
    /// insulin curve is full: the correction threshold, give or take the last bit of the window's
    /// sums. Every such window is a correction window, from the whole log and from any cut of it
    /// (found by a differential test: which side of the threshold these fell on hung on rounding,
    /// and so on records weeks before).
    @Test func windowsAtTheCorrectionThresholdReachIt() throws {
        var log = PatientLog(patient: try PatientID("tie"))
        let t0 = Self.t0.addingTimeInterval(7 * 60)
        log.glucose = (0..<(3 * 288)).map { i in
            GlucoseReading(time: t0.addingTimeInterval(Double(i) * 300), value: .mgdL(120 + 20 * sin(Double(i) / 9)), source: .cgm)
        }
        log.basalRates = [BasalRate(start: t0, rate: InsulinRate(unitsPerHour: 0.9))]
        let settings = try DoseSettings(patient: log.patient, carbRatio: 10, insulinSensitivity: 40, target: 110, suspendThreshold: 70,
                                        maxBolus: 10, bolusIncrement: 0.05, insulinPeakMinutes: 75, insulinDurationMinutes: 180,
                                        basalSchedule: [.init(start: "00:00", unitsPerHour: 0.8)]).checked(for: log.patient).get()
        let utc = TimeZone(identifier: "UTC")!
        let steady = t0.addingTimeInterval(20 * 3600)
        let windows = SettingsEstimator.windows(log: log, settings: settings, timeZone: utc, carbModel: .standard, since: steady)
        #expect(windows.count > 100)
        #expect(windows.allSatisfy { abs($0.insulinAbsorbed - 0.05) < 1e-12 })
        #expect(windows.allSatisfy { $0.kind == .correction })
        let memory = SettingsEstimator.memory(insulinDurationMinutes: 180)
        for hours in [0.0, 0.6, 2.5, 7.9] {
            #expect(SettingsEstimator.windows(log: log.since(steady.addingTimeInterval(-memory - hours * 3600)), settings: settings, timeZone: utc,
                                              carbModel: .standard, since: steady) == windows, "cut \(hours) h before")
        }
    }

    /// `settings --store` reads `SettingsEstimator.lookback(days:)` before the newest reading: the
    /// estimate from the store's window is the one from the store's whole log.
    @Test func settingsEstimateFromTheStoreWindowIsTheWholeLogs() throws {
        var r = SplitMix64(seed: 515)
        let dir = try PredictFixture.temporaryDirectory()
        let path = dir.appendingPathComponent("s.sqlite").path
        let store = try PatientStore(path: path)
        for i in 0..<4 {
            var log = WindowFixture.log(&r, days: Int.random(in: 10...16, using: &r), id: "est_\(i)")
            log.glucose.removeFirst(Int.random(in: 1...5, using: &r))
            let url = dir.appendingPathComponent("est_\(i).csv")
            try WindowFixture.csv(log).write(to: url, atomically: true, encoding: .utf8)
            _ = try store.importFile(url, importer: LogCSVImporter(), options: ImportOptions(timeZone: PredictFixture.utc))
            let settings = try Self.estimateSettings(&r, patient: log.patient)
            let whole = try store.log(for: log.patient)
            for days in [3, 7] {
                let source = StoreSource(path: path, window: HistoryWindow(lookback: SettingsEstimator.lookback(days: days)))
                let windowed = try #require(try source.load(patient: log.patient).data(for: log.patient)).log
                #expect(windowed.glucose.count < whole.glucose.count)
                #expect(windowed.historyStart == whole.firstInstant)
                func text(_ l: PatientLog) -> String {
                    let e = SettingsEstimator.estimate(log: l, settings: settings, timeZone: PredictFixture.utc, carbModel: .standard, days: days, cut: false)
                    return e.report + "\n" + e.csvLines.joined(separator: "\n")
                }
                #expect(text(windowed) == text(whole), "patient \(i), \(days) days")
            }
        }
    }

    /// The store's windowed read (a few earlier rows looked up, not read) is `since` of its whole
    /// log, merge rule included: two overlapping files that disagree at some instants.
    @Test func storeReadsTheWindowAsTheLogCutsIt() throws {
        var r = SplitMix64(seed: 5)
        let dir = try PredictFixture.temporaryDirectory()
        let store = try PatientStore(path: dir.appendingPathComponent("s.sqlite").path)
        for i in 0..<3 {
            let log = WindowFixture.log(&r, days: 5, id: "win_\(i)")
            var other = log
            other.glucose = other.glucose.map { var g = $0; g.value = .mgdL(g.value.mgdL + 1); return g }.filter { _ in Bool.random(using: &r) }
            other.temporaryBasals = other.temporaryBasals.map { var t = $0; t.end = t.end.addingTimeInterval(3600); return t }
            for (n, l) in [log, other].enumerated() {
                let url = dir.appendingPathComponent("win_\(i)_\(n).csv")
                try Data(WindowFixture.csv(l).utf8).write(to: url)
                _ = try store.importFile(url, importer: LogCSVImporter(), options: ImportOptions(timeZone: PredictFixture.utc))
            }
            let whole = try store.log(for: log.patient)
            #expect(whole.temporaryBasals.count >= log.temporaryBasals.count)
            // Random starts, and starts a minute before and at the end of records that last, and
            // a minute after a basal rate's start.
            var starts = (0..<6).map { _ in SyntheticCohort.start.addingTimeInterval(Double(Int.random(in: -60...(6 * 1440), using: &r)) * 60) }
            let ends = whole.temporaryBasals.map(\.end) + whole.boluses.compactMap(\.end)
                + whole.exercise.map { $0.time.addingTimeInterval($0.durationMinutes * 60) }
            starts += ends.flatMap { [$0.addingTimeInterval(-60), $0] } + whole.basalRates.map { $0.start.addingTimeInterval(60) }
            for start in starts {
                #expect(try store.log(for: log.patient, since: start) == whole.since(start), "patient \(i), \(start)")
            }
        }
    }
}

extension HistoryWindowTests {
    /// The records of `log` that start in `[from, to)`: one day's export.
    static func slice(_ log: PatientLog, _ from: Date, _ to: Date) -> PatientLog {
        var out = log
        func keep<R: TimedRecord>(_ list: [R]) -> [R] { list.filter { $0.time >= from && $0.time < to } }
        out.glucose = keep(log.glucose); out.boluses = keep(log.boluses); out.basalRates = keep(log.basalRates)
        out.temporaryBasals = keep(log.temporaryBasals); out.basalInjections = keep(log.basalInjections)
        out.carbs = keep(log.carbs); out.exercise = keep(log.exercise); out.weights = keep(log.weights)
        out.heartRate = keep(log.heartRate)
        return out
    }

    /// Nine nights, a day of busy records arriving each: every file of every night (predictions,
    /// alerts, dose audits, settings checks on three nights) is the one a run reading each
    /// patient's whole history writes, and the later nights did read a window (the history the
    /// night reads starts days after the log).
    @Test func nightsReadingAWindowWriteWhatTheWholeHistoryWrites() throws {
        var r = SplitMix64(seed: 9)
        let patients = [PredictFixture.patientA, try PatientID("p_b")]
        let logs = patients.map { p in var l = WindowFixture.log(&r, days: 10); l.patient = p; return l }
        let windowed = try NightlyBench(patients: patients), whole = try NightlyBench(patients: patients)
        for bench in [windowed, whole] {
            // The logs hold every kind of record, long-acting injections beside a pump's rates: models
            // that say nothing of the kinds of basal (a file before stop 56) read both, as this test's
            // history always has; pump-trained ones would refuse the injections.
            for p in patients {
                for h in [30, 60] {
                    let url = bench.models.appendingPathComponent(GlucoseModel.relativePath(patient: p, horizonMinutes: h))
                    var model = try GlucoseModel.read(from: url)
                    model.absentRecords = model.absentRecords?.filter { !["basal_rate", "basal_injection"].contains($0) }
                    if model.absentRecords?.isEmpty == true { model.absentRecords = nil }
                    try model.write(to: url)
                }
            }
            for name in try FileManager.default.contentsOfDirectory(atPath: bench.inbox.path) {
                try FileManager.default.removeItem(at: bench.inbox.appendingPathComponent(name))
            }
        }
        for night in 2..<10 {
            let from = night == 2 ? Date.distantPast : SyntheticCohort.start.addingTimeInterval(Double(night) * 86_400)
            let to = SyntheticCohort.start.addingTimeInterval(Double(night + 1) * 86_400)
            let label = String(format: "2026-01-%02d", 5 + night)
            for bench in [windowed, whole] {
                for log in logs {
                    try Data(WindowFixture.csv(Self.slice(log, from, to)).utf8)
                        .write(to: bench.inbox.appendingPathComponent("\(log.patient.rawValue)-\(night).csv"))
                }
                var scorer = try bench.auditingScorer(patients, night: label)
                if [4, 7, 9].contains(night) {
                    scorer.settingsChecker = SettingsEstimator.nightlyChecker(settingsFolder: try bench.settingsFolder(for: patients),
                                                                             timeZone: PredictFixture.utc)
                }
                // A margin reaching before the history: every night reads all of it.
                if bench.dir == whole.dir { scorer.historyMargin = 100 * 365 * 86_400 }
                #expect(try scorer.run().exitCode == 0, "night \(label)")
            }
        }
        let files = try windowed.files()
        #expect(files.count > 40)
        #expect(files.keys.filter { $0.contains("settings") }.count == 6)
        #expect(try files == whole.files())
        let store = try PatientStore(path: windowed.store)
        let models = try ModelSet.load(windowed.models, patient: patients[0])
        let read = try windowed.scorer().history(of: patients[0], store: store, state: store.scoringState(for: patients[0]), models: models)
        #expect(read.glucose.first!.time > logs[0].glucose.first!.time.addingTimeInterval(5 * 86_400))
    }
}

extension HistoryWindowTests {
    /// Predictions handed over in chunks of issue moments (as `predict` writes them) are the
    /// rows of one call, in the same order, whatever the chunk's size; no chunk holds more moments
    /// than asked.
    @Test func predictionsInChunksAreTheWholeRows() throws {
        var r = SplitMix64(seed: 31)
        for i in 0..<6 {
            let log = WindowFixture.log(&r, days: Int.random(in: 3...5, using: &r))
            var models = WindowFixture.models(&r, patient: log.patient)
            if i % 2 == 1 {
                // The trained models (intervals and all) on this patient's data.
                // (As a file before stop 56, saying nothing of the kinds of basal: the log has both.)
                models = ModelSet(patient: log.patient, models: Dictionary(uniqueKeysWithValues: PredictFixture.models.map {
                    var m = $0; m.patient = log.patient; m.absentRecords = nil; return ($0.horizonMinutes, m)
                }))
            }
            let predictor = Predictor(models: models)
            let whole = try predictor.predict(log)
            #expect(whole.count > 1000)
            for size in [1, 7, 288, 100_000] {
                var chunks: [[PredictionRow]] = []
                try predictor.predict(log, chunkSteps: size) { chunks.append($0) }
                #expect(Array(chunks.joined()) == whole, "case \(i), chunks of \(size)")
                #expect(chunks.allSatisfy { Set($0.map(\.issuedAt)).count <= size })
                if size == 288 { #expect(chunks.count >= 3) }
            }
        }
    }
}

extension HistoryWindowTests {
    /// `glucoseKnownAt` of a range (what a chunk's feature table reads) is that range of the
    /// whole series' values, computed here by one backward pass as the definition says.
    @Test func glucoseKnownAtOfARangeIsTheWholeSeriesSlice() throws {
        var r = SplitMix64(seed: 12)
        for _ in 0..<5 {
            var log = WindowFixture.log(&r, days: 2)
            for _ in 0..<10 {
                // Short gaps too, which the series fills.
                let from = Int.random(in: 0..<(log.glucose.count - 6), using: &r)
                log.glucose.removeSubrange(from..<(from + Int.random(in: 1...5, using: &r)))
            }
            let series = PatientSeries(log: log)
            var reference = [Int](repeating: .max, count: series.count), next = Int.max
            for i in stride(from: series.count - 1, through: 0, by: -1) {
                switch series.glucoseFlags[i] {
                case .measured: next = i; reference[i] = i
                case .filled: reference[i] = next
                case .missing: next = .max
                }
            }
            let filled = series.glucoseFlags.contains(.filled)
            #expect(filled)
            #expect(series.glucoseKnownAt == reference)
            for _ in 0..<50 {
                let a = Int.random(in: 0...series.count, using: &r), b = Int.random(in: a...series.count, using: &r)
                #expect(series.glucoseKnownAt(a..<b) == Array(reference[a..<b]))
            }
        }
    }
}
