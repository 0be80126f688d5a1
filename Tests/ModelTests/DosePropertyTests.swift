import Foundation
import Testing
@testable import GlucoModel

/// Random but plausible dosing inputs (`DosePropGen`): a pump user's last 24-30 h.
enum DosePropGen {
    struct Case {
        var log: PatientLog
        var at: Date
        var settings: DoseSettings
        var carbs: Double
        /// Hand-made models (`DoseFixture.model`) for this patient, or nil.
        var models: ModelSet?
        var traits: [String]
        /// Where the basal programme's and the settings' times are local.
        var timeZone: TimeZone
        /// When the carbohydrates were eaten, if before `at` (`--carbs-time`), or nil.
        var carbsTime: Date?
        /// How far the models' predictions move, at most, for a change of 1 mg/dL in every glucose
        /// reading: the sum of the magnitudes of their glucose coefficients (1 without models, and
        /// for the effects alone, which start from the glucose now).
        var glucoseGain: Double = 1
    }

    static let epoch = Fixture.date("2026-01-05T00:00:00Z")

    /// A case: CGM every 5 minutes (a random phase, a smooth random walk within 60-350 mg/dL,
    /// whole mg/dL), a basal programme of 1-4 rates logged at each change, temporary basals and
    /// suspensions, 3-5 meals a day with their boluses (±20% of the carb ratio's), optionally a
    /// correction bolus within the last hour; `at` 0-4 minutes after the newest reading.
    /// Every time is a whole second, so that a CSV written with ISO 8601 seconds holds it exactly.
    static func make(_ r: inout SplitMix64, index: Int) -> Case {
        var traits: [String] = []
        let patient = try! PatientID("dprop_\(index)")
        // January to mid-April: the spring's clock changes of New York (8 March) and Madrid (29 March) among them.
        let zone = TimeZone(identifier: ["UTC", "Europe/Madrid", "America/New_York"][Int.random(in: 0..<3, using: &r)])!
        if zone.identifier != "UTC" { traits.append(zone.identifier) }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let lastReading = epoch.addingTimeInterval(Double(Int.random(in: 0..<(100 * 86400), using: &r)))
        let at = lastReading.addingTimeInterval(Double(Int.random(in: 0...240, using: &r)))
        let span = Double(Int.random(in: 24...30, using: &r)) * 3600
        let start = at.addingTimeInterval(-span)
        var log = PatientLog(patient: patient)

        // CGM: backwards from the newest reading, then in time order.
        let steps = Int(lastReading.timeIntervalSince(start) / 300)
        // A walk pulled to a level of the case's (one in four: low, 70-100, where the suspend checks decide).
        let level = Int.random(in: 0..<4, using: &r) == 0 ? Double.random(in: 70...100, using: &r) : Double.random(in: 100...200, using: &r)
        var g = Double.random(in: 80...250, using: &r), v = 0.0
        var values: [Double] = []
        for _ in 0...steps {
            v = 0.85 * v + Double.random(in: -2.5...2.5, using: &r) + 0.01 * (level - g)
            g += v
            if g < 60 { g = 120 - g; v = abs(v) }
            if g > 350 { g = 700 - g; v = -abs(v) }
            values.append(g.rounded())
        }
        log.glucose = (0...steps).reversed().map { k in
            GlucoseReading(time: lastReading.addingTimeInterval(-Double(k) * 300), value: .mgdL(values[steps - k]))
        }

        // Basal programme: 1-4 entries at whole or half hours, local time (the pump's clock), logged at each change.
        let count = Int.random(in: 1...4, using: &r)
        var starts = Set([0])
        while starts.count < count { starts.insert(Int.random(in: 1...47, using: &r) * 30) }
        let programme: [(minute: Int, rate: Double)] = starts.sorted().map { ($0, Double(Int.random(in: 6...40, using: &r)) * 0.05) }
        func rate(atMinuteOfDay m: Int) -> Double { programme.last { $0.minute <= m }!.rate }
        let startMinute = calendar.component(.hour, from: start) * 60 + calendar.component(.minute, from: start)
        var basal = [BasalRate(start: start, rate: InsulinRate(unitsPerHour: rate(atMinuteOfDay: startMinute)))]
        var day = calendar.startOfDay(for: start)
        while day <= at {
            for e in programme where programme.count > 1 {
                let t = calendar.date(bySettingHour: e.minute / 60, minute: e.minute % 60, second: 0, of: day)!
                if t > start, t <= at { basal.append(BasalRate(start: t, rate: InsulinRate(unitsPerHour: e.rate))) }
            }
            day = calendar.date(byAdding: .day, value: 1, to: day)!
        }
        log.basalRates = basal.sorted { $0.start < $1.start }

        // Temporary basals and suspensions, not overlapping; one may still run at `at`.
        var cursor = start.addingTimeInterval(Double(Int.random(in: 0...600, using: &r)) * 60)
        for _ in 0..<Int.random(in: 0...4, using: &r) {
            let minutes = Double(Int.random(in: 6...24, using: &r) * 5)
            guard cursor < at else { break }
            let rate = Int.random(in: 0..<3, using: &r) == 0 ? 0 : Double(Int.random(in: 0...60, using: &r)) * 0.05
            log.temporaryBasals.append(TemporaryBasal(start: cursor, end: cursor.addingTimeInterval(minutes * 60),
                                                      rate: InsulinRate(unitsPerHour: rate)))
            cursor = cursor.addingTimeInterval((minutes + Double(Int.random(in: 60...600, using: &r))) * 60)
        }
        if log.temporaryBasals.contains(where: { $0.rate.unitsPerHour == 0 }) { traits.append("suspension") }

        // Meals with their boluses, by a "true" carb ratio.
        let icr = Double(Int.random(in: 50...250, using: &r)) / 10
        var mealTime = start.addingTimeInterval(Double(Int.random(in: 30...240, using: &r)) * 60)
        while mealTime < at {
            let grams = Double(Int.random(in: 3...20, using: &r) * 5)
            let bolusTime = mealTime.addingTimeInterval(-Double(Int.random(in: 0...15, using: &r)) * 60)
            let dose = ((grams / icr * Double.random(in: 0.8...1.2, using: &r)) * 20).rounded() / 20
            log.carbs.append(CarbIntake(time: mealTime, amount: Carbohydrate(grams: grams)))
            if dose > 0 {
                log.boluses.append(Bolus(time: bolusTime, dose: InsulinUnits(dose),
                                         carbInput: Bool.random(using: &r) ? Carbohydrate(grams: grams) : nil))
            }
            mealTime = mealTime.addingTimeInterval(Double(Int.random(in: 240...420, using: &r)) * 60)
        }
        if Bool.random(using: &r) {
            traits.append("correction in the last hour")
            let t = at.addingTimeInterval(-Double(Int.random(in: 5...60, using: &r)) * 60)
            log.boluses.append(Bolus(time: t, dose: InsulinUnits(Double(Int.random(in: 10...60, using: &r)) * 0.05)))
        }
        if log.boluses.isEmpty { log.boluses.append(Bolus(time: start.addingTimeInterval(600), dose: InsulinUnits(2))) }
        log.boluses.sort { $0.time < $1.time }

        // Settings: ICR 5-25, ISF 20-120, target 90-130, suspend 65-80 (65 and 66 are below
        // Loop's guardrail of 67 and refused as `settings`), max bolus 5-20, increment 0.05/0.1/0.5.
        var settings = DoseSettings(patient: patient, carbRatio: Double(Int.random(in: 50...250, using: &r)) / 10,
                                    insulinSensitivity: Double(Int.random(in: 20...120, using: &r)),
                                    target: Double(Int.random(in: 90...130, using: &r)),
                                    suspendThreshold: Double(Int.random(in: 65...80, using: &r)),
                                    maxBolus: Double(Int.random(in: 10...40, using: &r)) / 2,
                                    bolusIncrement: [0.05, 0.1, 0.5][Int.random(in: 0..<3, using: &r)])
        if Int.random(in: 0..<4, using: &r) == 0 {
            settings.insulinDurationMinutes = [300, 360, 420, 480][Int.random(in: 0..<4, using: &r)]
            settings.insulinPeakMinutes = [55, 65, 75][Int.random(in: 0..<3, using: &r)]
        }
        if Bool.random(using: &r) {
            // The pump's programme, or (one in four) each rate 10% off: a file somewhat out of date.
            let scale = Int.random(in: 0..<4, using: &r) == 0 ? [0.9, 1.1][Int.random(in: 0..<2, using: &r)] : 1
            settings.basalSchedule = programme.map {
                BasalSchedule.Entry(start: String(format: "%02d:%02d", $0.minute / 60, $0.minute % 60), unitsPerHour: $0.rate * scale)
            }
            traits.append(scale == 1 ? "settings schedule" : "settings schedule ×\(scale)")
        }
        if Int.random(in: 0..<3, using: &r) == 0 {
            settings.maxInsulinOnBoard = Double(Int.random(in: 2...15, using: &r))
            traits.append("max IOB")
        }
        let carbs = Double(Int.random(in: 0...30, using: &r) * 5)
        // One in four: the carbohydrates were eaten 5-120 minutes before the ask (dosing.md step 9).
        var carbsTime: Date?
        if carbs > 0, Int.random(in: 0..<4, using: &r) == 0 {
            carbsTime = at.addingTimeInterval(-Double(Int.random(in: 5...120, using: &r)) * 60)
            traits.append("carbs eaten before")
        }

        // Hand-made models for half the cases: flat, momentum, or insulin and carbohydrates with
        // their physiological signs (insulin lowers, carbohydrates raise).
        var models: ModelSet?
        var gain = 1.0
        if Bool.random(using: &r) {
            let kind = Int.random(in: 0..<3, using: &r)
            let list = [30, 60].map { h -> GlucoseModel in
                let k = Double(h) / 30
                let expression = ["G0", "G0 + \(2 * k) * (G0 - G1)", "G0 - \(30 * k) * INS + \(3 * k) * CARB"][kind]
                var m = DoseFixture.model(expression, horizon: h, features: FeatureSet(horizonMinutes: h))
                m.patient = patient
                return m
            }
            models = ModelSet(patient: patient, models: Dictionary(uniqueKeysWithValues: list.map { ($0.horizonMinutes, $0) }))
            traits.append(["flat models", "momentum models", "INS/CARB models"][kind])
            gain = kind == 1 ? 1 + 2 * 2 * 60 / 30 : 1  // the 60-minute momentum model: 5 G0 - 4 G1
        }
        return Case(log: log, at: at, settings: settings, carbs: carbs, models: models, traits: traits, timeZone: zone,
                    carbsTime: carbsTime, glucoseGain: gain)
    }

    /// The log as GlucoModel CSV with `Z` times; glucose in mg/dL, or in mmol/L with `mmolDigits`
    /// decimals (nil: the shortest text that reads back as the same double).
    static func csv(_ log: PatientLog, mmol: Bool = false, mmolDigits: Int? = nil) -> String {
        guard mmol else { return LogCSVText.of(log) }
        return LogCSVText.of(log) { g in
            let x = g.mgdL / GlucoseValue.mgdLPerMmolL
            return (mmolDigits.map { String(format: "%.\($0)f", x) } ?? "\(x)", "mmol/L")
        }
    }
}

/// Properties of `DoseAdvisor.suggest` on `DosePropGen`'s random plausible inputs (seed
/// `GLUCOMODEL_DOSEPROP_SEED`, default 2026; cases `GLUCOMODEL_DOSEPROP_CASES`, default 80).
/// Each case is run with `.formula` and `.model`, without models (the effects-only curve: the
/// formula is suggested, `model_unavailable`) and, for half the cases, with hand-made models.
///
/// P1 every decision's units finite, within [0, maxBolus], a multiple of the increment; the text
///    report and the JSON without nan/inf.
/// P2 10 g more carbohydrate never gives a smaller dose.
/// P3 a bolus added 30 minutes before `at` never gives a larger dose.
/// P4 the log and `at` shifted by whole days give the same decision.
/// P5 the log written as GlucoModel CSV (`Z` times) and imported, and imported into a store and
///    read back (`PatientStore.log(for:since:)`), give the same decision as the log in memory.
/// P6 the same file in mmol/L gives the same decision as in mg/dL: exactly, when the mmol/L
///    values are written with every digit (they read back as the whole mg/dL they were made
///    from: `GlucoseValue(mmolL:)`); with one decimal, as a meter shows them, within the
///    rounding: glucose moves by at most 0.05 mmol/L = 0.901 mg/dL, so (the formula) the dose by
///    at most 0.901/ISF U plus one increment of the rounding down, and the decision kind changes
///    only where the glucose now, or the lowest point of the curve with no bolus, is within
///    0.901 mg/dL of the suspend threshold; with models, the curve's lowest point within
///    0.901 mg/dL times the models' glucose gain (`Case.glucoseGain`: a momentum model
///    `5 G0 - 4 G1` moves by up to 9 × 0.901 mg/dL when every reading moves by 0.901).
@Suite struct DosePropertyTests {
    static let environment = ProcessInfo.processInfo.environment
    static let seed = environment["GLUCOMODEL_DOSEPROP_SEED"].flatMap { UInt64($0) } ?? 2026
    static let cases = environment["GLUCOMODEL_DOSEPROP_CASES"].flatMap { Int($0) } ?? 80

    static func generator(_ i: Int) -> SplitMix64 { SplitMix64(seed: seed &* 0x2545_F491_4F6C_DD1D &+ UInt64(i)) }

    static func suggest(_ c: DosePropGen.Case, log: PatientLog? = nil, carbs: Double? = nil, at: Date? = nil,
                        models: ModelSet?, method: DoseMethod) -> DoseSuggestion {
        let shift = (at ?? c.at).timeIntervalSince(c.at)
        return DoseAdvisor.suggest(log: log ?? c.log, carbs: carbs ?? c.carbs, carbsTime: c.carbsTime.map { $0 + shift }, at: at ?? c.at,
                                   settings: c.settings, models: models, method: method, timeZone: c.timeZone)
    }

    /// What must be equal between two suggestions of the same decision: kind, units, both doses,
    /// reason codes, and net IOB (to 1e-9 U).
    static func difference(_ a: DoseSuggestion, _ b: DoseSuggestion) -> String? {
        func show(_ s: DoseSuggestion) -> String {
            "\(s.decision.kind) \(s.decision.units.map { "\($0)" } ?? "-") U (model \(s.modelDose.map { "\($0)" } ?? "-"), "
                + "formula \(s.standard.map { "\($0.dose)" } ?? "-"), IOB \(s.insulinOnBoard.map { "\($0)" } ?? "-")) \(s.reasonCodes)"
        }
        let same = a.decision.kind == b.decision.kind && a.decision.units == b.decision.units && a.modelDose == b.modelDose
            && a.standard?.dose == b.standard?.dose && a.reasonCodes == b.reasonCodes
            && abs((a.insulinOnBoard ?? 0) - (b.insulinOnBoard ?? 0)) <= 1e-9
        return same ? nil : "\(show(a)) vs \(show(b))"
    }

    /// P1 for one suggestion.
    static func checkP1(_ s: DoseSuggestion, settings: DoseSettings) -> String? {
        if let u = s.decision.units {
            let increment = settings.bolusIncrement!, steps = u / increment
            guard u.isFinite, u >= 0, u <= settings.maxBolus!, abs(steps - steps.rounded()) < 1e-6 else {
                return "P1: \(u) U (max \(settings.maxBolus!), increment \(increment))"
            }
        }
        for units in [GlucoseUnit.mgdL, .mmolL] {
            let text = s.report(units: units) + ((try? s.json(units: units)) ?? "JSON failed")
            if PropertyTests.nonFinite(text) || text.hasSuffix("JSON failed") { return "P1: non-finite or no JSON in \(units.rawValue)" }
        }
        return nil
    }

    /// Whether one suggestion is the model-based dose and the other the formula's because the
    /// models were unavailable for it (`model_unavailable`: dosing.md step 5, e.g. a model
    /// predicting 10 mg/dL, the limit of what a model may predict, is "beyond its training data"
    /// and the formula's dose is suggested instead). The two doses are then different rules, not
    /// one rule at two inputs: P2 and P3 are not asked of such a pair (the pairs are counted).
    /// Only with models and `.model`; never without models, where both are the formula's.
    static func basisChanged(_ a: DoseSuggestion, _ b: DoseSuggestion) -> Bool {
        a.method == .model && a.reasonCodes.contains("model_unavailable") != b.reasonCodes.contains("model_unavailable")
    }

    /// The minimum of the curve with no bolus (nil without a curve).
    static func lowestAtZero(_ s: DoseSuggestion) -> Double? {
        guard let curve = s.curve else { return nil }
        return curve.minutes.map { curve.glucose(bolus: InsulinUnits(0), atMinute: $0).mgdL }.min()
    }

    @Test func properties() throws {
        let folder = temporaryFolder("doseprop")
        let store = try PatientStore(path: folder.appendingPathComponent("s.sqlite").path)
        var failures: [String] = []
        var tally: [String: Int] = [:]
        let started = Date()
        // GLUCOMODEL_DOSEPROP_ONLY=N replays case N alone.
        let only = Self.environment["GLUCOMODEL_DOSEPROP_ONLY"].flatMap { Int($0) }
        for i in only.map({ [$0] }) ?? Array(0..<Self.cases) {
            var r = Self.generator(i)
            let c = DosePropGen.make(&r, index: i)
            let shiftDays = [-3, -1, 1, 2, 7][Int.random(in: 0..<5, using: &r)]
            let addedBolus = Double(Int.random(in: 1...100, using: &r)) * 0.05
            func fail(_ text: String) { failures.append("case \(i) \(c.traits): \(text)") }

            // The CSV (mg/dL and mmol/L) and the store, read once per case.
            let options = ImportOptions(timeZone: .gmt, now: c.at.addingTimeInterval(3600))
            var imported: [(String, PatientLog)] = []
            for (name, text) in [("csv", DosePropGen.csv(c.log)), ("mmol", DosePropGen.csv(c.log, mmol: true)),
                                 ("mmol1", DosePropGen.csv(c.log, mmol: true, mmolDigits: 1))] {
                let url = folder.appendingPathComponent("\(c.log.patient.rawValue)_\(name).csv")
                try Data(text.utf8).write(to: url)
                imported.append((name, try LogCSVImporter().importFile(at: url, options: options).log))
                if name == "csv" {
                    _ = try store.importFile(url, importer: LogCSVImporter(), options: options)
                    imported.append(("store", try store.log(for: c.log.patient, since: c.at.addingTimeInterval(-DoseAdvisor.memory))))
                }
            }

            // GLUCOMODEL_DOSEPROP_DUMP=DIR: each case's CSV, settings and the formula's JSON without
            // models (`case_N.*`), for scripts/doseprop-cli.sh to compare with `glucomodel-predict dose`.
            if let dump = Self.environment["GLUCOMODEL_DOSEPROP_DUMP"] {
                let dir = URL(fileURLWithPath: dump)
                try Data(DosePropGen.csv(c.log).utf8).write(to: dir.appendingPathComponent("case_\(i).csv"))
                try Data(c.settings.jsonText().utf8).write(to: dir.appendingPathComponent("case_\(i).settings.json"))
                let expected = Self.suggest(c, models: nil, method: .formula)
                let f = ISO8601DateFormatter()
                let args = "--patient \(c.log.patient.rawValue) --carbs \(c.carbs) --at \(f.string(from: c.at)) --time-zone \(c.timeZone.identifier)"
                    + (c.carbsTime.map { " --carbs-time \(f.string(from: $0))" } ?? "")
                try Data(args.utf8).write(to: dir.appendingPathComponent("case_\(i).args"))
                try Data(expected.json().utf8).write(to: dir.appendingPathComponent("case_\(i).expected.json"))
            }

            var shifted = c.log
            let shift = Double(shiftDays) * 86400
            shifted.glucose = shifted.glucose.map { var x = $0; x.time += shift; return x }
            shifted.boluses = shifted.boluses.map { var x = $0; x.time += shift; return x }
            shifted.carbs = shifted.carbs.map { var x = $0; x.time += shift; return x }
            shifted.basalRates = shifted.basalRates.map { var x = $0; x.start += shift; return x }
            shifted.temporaryBasals = shifted.temporaryBasals.map { var x = $0; x.start += shift; x.end += shift; return x }
            var withBolus = c.log
            withBolus.boluses.append(Bolus(time: c.at.addingTimeInterval(-1800), dose: InsulinUnits(addedBolus)))
            withBolus.boluses.sort { $0.time < $1.time }

            for models in c.models == nil ? [nil] : [nil, c.models] {
                for method in DoseMethod.allCases {
                    let label = "\(method.rawValue) \(models == nil ? "no models" : "models")"
                    let base = Self.suggest(c, models: models, method: method)
                    tally["\(base.decision.kind) \(label)", default: 0] += 1
                    for code in base.reasonCodes { tally["  reason \(code)", default: 0] += 1 }
                    if let f = Self.checkP1(base, settings: c.settings) { fail("\(label) \(f)") }

                    // P2
                    let more = Self.suggest(c, carbs: c.carbs + 10, models: models, method: method)
                    if let f = Self.checkP1(more, settings: c.settings) { fail("\(label) +10 g \(f)") }
                    if Self.basisChanged(base, more) {
                        tally["excluded P2: model_unavailable in one", default: 0] += 1
                    } else if let u0 = base.decision.units, let u1 = more.decision.units, u1 < u0 {
                        fail("\(label) P2: \(c.carbs) g \(u0) U, \(c.carbs + 10) g \(u1) U (\(base.reasonCodes) -> \(more.reasonCodes))")
                    }
                    // P3
                    let after = Self.suggest(c, log: withBolus, models: models, method: method)
                    if let f = Self.checkP1(after, settings: c.settings) { fail("\(label) +bolus \(f)") }
                    if Self.basisChanged(base, after) {
                        tally["excluded P3: model_unavailable in one", default: 0] += 1
                    } else if let u0 = base.decision.units, let u1 = after.decision.units, u1 > u0 {
                        fail("\(label) P3: \(u0) U, with \(addedBolus) U 30 min before \(u1) U (\(base.reasons.map(\.message)) -> \(after.reasons.map(\.message)))")
                    }
                    // P4
                    // The basal schedule's times are local wall-clock times (dosing.md step 3): across a
                    // change of the clock (the spring's, here) a shift by whole days of 24 h moves the schedule
                    // against the records by an hour. Compared only where the zone's offset is the same over
                    // both windows read (`DoseAdvisor.memory` before `at`, and the shifted one).
                    let ends = [c.at.addingTimeInterval(-DoseAdvisor.memory), c.at]
                    let offsets = Set((ends + ends.map { $0 + shift }).map { c.timeZone.secondsFromGMT(for: $0) })
                    if offsets.count > 1 {
                        tally["excluded P4: a clock change in the windows", default: 0] += 1
                    } else {
                        let moved = Self.suggest(c, log: shifted, at: c.at.addingTimeInterval(shift), models: models, method: method)
                        if let d = Self.difference(base, moved) { fail("\(label) P4 (\(shiftDays) days): \(d)") }
                    }
                    // P7: a settings schedule equal to the pump's programme in the data counts as the programme.
                    if c.traits.contains("settings schedule") {
                        var dataOnly = c
                        dataOnly.settings.basalSchedule = nil
                        let programme = Self.suggest(dataOnly, models: models, method: method)
                        if let d = Self.difference(base, programme) { fail("\(label) P7 settings schedule = programme: \(d)") }
                    }
                    // P5, P6
                    for (name, log) in imported {
                        let s = Self.suggest(c, log: log, models: models, method: method)
                        if let f = Self.checkP1(s, settings: c.settings) { fail("\(label) \(name) \(f)") }
                        if name != "mmol1" {
                            if let d = Self.difference(base, s) { fail("\(label) \(name == "mmol" ? "P6" : "P5") \(name): \(d)") }
                            continue
                        }
                        // One decimal of mmol/L: within the rounding (see the suite's comment).
                        let delta = 0.05 * GlucoseValue.mgdLPerMmolL + 1e-9
                        if base.decision.kind == s.decision.kind {
                            if let u0 = base.decision.units, let u1 = s.decision.units, method == .formula,
                               abs(u1 - u0) > delta / c.settings.insulinSensitivity! + c.settings.bolusIncrement! + 1e-9 {
                                fail("\(label) P6 mmol/L to 0.1: \(u0) U vs \(u1) U")
                            }
                        } else {
                            // The models read every rounded reading: their predictions move by up to the gain times it.
                            let threshold = c.settings.suspendThreshold!, reach = delta * (models == nil ? 1 : c.glucoseGain)
                            let near = [base.glucose, s.glucose].compactMap { $0 }.contains { abs($0 - threshold) <= delta }
                                || [Self.lowestAtZero(base), Self.lowestAtZero(s)].compactMap { $0 }.contains { abs($0 - threshold) <= reach }
                            if !near { fail("\(label) P6 mmol/L to 0.1: \(Self.difference(base, s) ?? "")") }
                        }
                    }
                }
            }
        }
        print("dose properties: seed \(Self.seed), \(Self.cases) cases, \(failures.count) failures, "
              + String(format: "%.1f s", Date().timeIntervalSince(started)))
        for (k, n) in tally.sorted(by: { $0.key < $1.key }) { print("  \(k): \(n)") }
        #expect(failures.isEmpty, "seed \(Self.seed): \(failures.count) failures\n\(failures.prefix(30).joined(separator: "\n"))")
    }
}
