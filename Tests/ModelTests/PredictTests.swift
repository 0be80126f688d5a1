import Foundation
import GrammarEvolution
import Testing
@testable import GlucoModel

/// Synthetic patients and tiny trained models shared by the prediction and nightly tests.
enum PredictFixture {
    static let utc = TimeZone(identifier: "UTC")!
    /// Day 0 of the synthetic data, 2026-01-05T00:00:00Z.
    static let day0 = Date(timeIntervalSince1970: 1_767_571_200)
    static let patientA = try! PatientID("p_a")

    /// `days` days of 5-minute readings from `day0 + firstDay` days: a daily sine (150 +- 70 mg/dL,
    /// shifted by `offset`), a bump after each meal and a little deterministic noise, whole mg/dL;
    /// three meals a day with their boluses and a constant basal rate.
    static func log(_ patient: PatientID, firstDay: Int = 0, days: Int, offset: Double = 0, insulin: Bool = true) -> PatientLog {
        var log = PatientLog(patient: patient)
        let meals: [(minute: Double, grams: Double, units: Double)] = [(420, 50, 5), (750, 70, 7), (1140, 60, 6)]
        var seed: UInt64 = 12_345 &+ UInt64(firstDay)
        for day in firstDay..<(firstDay + days) {
            let start = day0.addingTimeInterval(Double(day) * 86_400)
            for step in 0..<288 {
                let minute = Double(step * 5)
                var g = 150 + offset + 70 * sin(2 * Double.pi * (minute - 360) / 1440)
                for meal in meals where minute > meal.minute {
                    let x = (minute - meal.minute) / 60
                    g += 60 * x * exp(1 - x)
                }
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                g += Double(seed >> 61) - 3.5
                log.glucose.append(GlucoseReading(time: start.addingTimeInterval(minute * 60), value: .mgdL(max(40, g.rounded()))))
            }
            for meal in meals {
                let time = start.addingTimeInterval(meal.minute * 60)
                log.carbs.append(CarbIntake(time: time, amount: Carbohydrate(grams: meal.grams)))
                if insulin { log.boluses.append(Bolus(time: time, dose: InsulinUnits(meal.units))) }
            }
            if insulin { log.basalRates.append(BasalRate(start: start, end: start.addingTimeInterval(86_400), rate: InsulinRate(unitsPerHour: 0.8))) }
        }
        return log
    }

    /// The log as GlucoModel CSV (`LogCSVImporter`).
    static func csv(_ log: PatientLog) -> String { LogCSVText.of(log) }

    /// Models for horizons 30 and 60 trained on 4 days of patient A (population 20, 3 generations).
    static let models: [GlucoseModel] = {
        var evolution = TrainingOptions.defaultEvolution
        evolution.populationSize = 20
        evolution.generations = 3
        var options = TrainingOptions(grammar: try! GrammarSource.bundled("glucose-directed"), evolution: evolution)
        options.horizons = [30, 60]
        let grammar = try! Grammar(text: options.grammar.text, source: options.grammar.name)
        let data = PatientData(patient: PredictFixture.patientA, log: PredictFixture.log(PredictFixture.patientA, days: 4), testStart: nil, files: [])
        let trainer = try! PatientTrainer(data: data, options: options, grammar: grammar)
        return options.horizons.map { try! trainer.train(horizon: $0).model }
    }()

    /// A models folder holding copies of the trained models for each of `patients`.
    static func modelsFolder(for patients: [PatientID], in dir: URL) throws -> URL {
        let folder = dir.appendingPathComponent("models")
        for patient in patients {
            for var model in models {
                model.patient = patient
                try model.write(to: folder.appendingPathComponent(GlucoseModel.relativePath(patient: patient, horizonMinutes: model.horizonMinutes)))
            }
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func temporaryDirectory() throws -> URL {
        let dir = ScratchSpace.root.appendingPathComponent("glucomodel-predict-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static func modelSet(_ patient: PatientID = patientA) -> ModelSet {
        ModelSet(patient: patient, models: Dictionary(uniqueKeysWithValues: models.map { m in
            var m = m
            m.patient = patient
            return (m.horizonMinutes, m)
        }))
    }
}

@Suite struct PredictTests {
    @Test func predictionsUseNoFutureData() throws {
        let predictor = Predictor(models: PredictFixture.modelSet())
        let log = PredictFixture.log(PredictFixture.patientA, days: 5)
        let before = try predictor.predict(log)
        // Issue moment 4 days + 12 h after day 0. Change what happens after it: a reading 10 min
        // later raised by 80 mg/dL, a new reading 2.5 min later, a bolus 10 min later.
        let cut = PredictFixture.day0.addingTimeInterval(4.5 * 86_400)
        var altered = log
        let i = altered.glucose.firstIndex { $0.time == cut.addingTimeInterval(600) }!
        altered.glucose[i].value = .mgdL(altered.glucose[i].value.mgdL + 80)
        altered.glucose.insert(GlucoseReading(time: cut.addingTimeInterval(150), value: .mgdL(300)), at: i - 1)
        altered.boluses.append(Bolus(time: cut.addingTimeInterval(600), dose: InsulinUnits(10)))
        let after = try predictor.predict(altered)
        // Everything issued at or before the cut is the same, except the reference (the later
        // measurement, which is not an input). The rows after it must differ somewhere, or the
        // alteration proved nothing.
        func issued(_ rows: [PredictionRow], upTo: Bool) -> [PredictionRow] {
            rows.filter { upTo ? $0.issuedAt <= cut : $0.issuedAt > cut }.map { var r = $0; r.reference = nil; return r }
        }
        let early = issued(before, upTo: true)
        #expect(early == issued(after, upTo: true))
        #expect(early.contains { $0.issuedAt == cut })
        #expect(issued(before, upTo: false) != issued(after, upTo: false))
    }

    @Test func patientWithoutModelIsSkippedWithMessage() throws {
        let dir = try PredictFixture.temporaryDirectory()
        let folder = try PredictFixture.modelsFolder(for: [PredictFixture.patientA], in: dir)
        let other = try PatientID("p_nomodel")
        let run = PredictionRun(modelsFolder: folder)
        let results = run.predict([PatientData(patient: other, log: PredictFixture.log(other, days: 1), testStart: nil, files: []),
                                   PatientData(patient: PredictFixture.patientA, log: PredictFixture.log(PredictFixture.patientA, days: 1),
                                               testStart: nil, files: [])])
        #expect(results.count == 2)
        guard case let .skipped(p, reason) = results.first(where: { $0.patient == other }) else {
            Issue.record("a patient without a model must be skipped"); return
        }
        #expect(p == other)
        #expect(reason == "p_nomodel: no trained model (looked in \(folder.path)/p_nomodel)")
        guard case let .predicted(_, rows) = results.first(where: { $0.patient == PredictFixture.patientA }) else {
            Issue.record("the other patient goes on"); return
        }
        #expect(!rows.isEmpty)
    }

    /// Before: a horizon no model has, asked for alone, read "no trained model (looked in ...)"
    /// beside the patient's 30- and 60-minute models.
    @Test func aHorizonWithoutAModelIsNamedWithTheOnesThatExist() throws {
        let dir = try PredictFixture.temporaryDirectory()
        let folder = try PredictFixture.modelsFolder(for: [PredictFixture.patientA], in: dir)
        for asked in [[90], [30, 90]] {
            #expect(throws: PredictionError.noModelForHorizon(PredictFixture.patientA, horizon: 90, available: [30, 60])) {
                try ModelSet.load(folder, patient: PredictFixture.patientA, horizons: asked)
            }
        }
        #expect(PredictionError.noModelForHorizon(PredictFixture.patientA, horizon: 90, available: [30, 60]).description
                == "\(PredictFixture.patientA): no model for the 90-minute horizon (models for 30, 60 minutes)")
    }

    /// Audit 46: a second file of one horizon (a copy kept as `h030.orig.json` before editing
    /// `h030.json`, or `h060.json` copied over `h030.json`) was loaded silently and the later in name
    /// order won: the edit was ignored, or the 30-minute predictions were gone, with exit 0.
    @Test func twoModelFilesOfOneHorizonAreRefusedNamingBoth() throws {
        let dir = try PredictFixture.temporaryDirectory()
        let folder = try PredictFixture.modelsFolder(for: [PredictFixture.patientA], in: dir)
        let patientFolder = folder.appendingPathComponent(PredictFixture.patientA.rawValue)
        let edited = patientFolder.appendingPathComponent("h030.json"), copy = patientFolder.appendingPathComponent("h030.orig.json")
        try FileManager.default.copyItem(at: edited, to: copy)
        #expect(throws: ModelFileError.invalidField(copy.path, field: "horizonMinutes", reason: "30, the horizon of h030.json too; "
                                                    + "a patient has one model file per horizon: move the other out of the folder")) {
            try ModelSet.load(folder, patient: PredictFixture.patientA)
        }
        try FileManager.default.removeItem(at: copy)
        #expect(try ModelSet.load(folder, patient: PredictFixture.patientA).horizons == [30, 60])
        try FileManager.default.removeItem(at: edited)
        try FileManager.default.copyItem(at: patientFolder.appendingPathComponent("h060.json"), to: edited)
        #expect(throws: ModelFileError.self) { try ModelSet.load(folder, patient: PredictFixture.patientA) }
    }

    /// Hunt R (stop 53): both `horizonMinutes` of `h030.json` edited to 1440 were read without a
    /// word: `predict` wrote the 30-minute model's output as 24 hours ahead, and `dose` added a
    /// "1440 min" row and moved a dose from 6.60 to 10.85 U. The name is the trainer's horizon.
    @Test func aHorizonEditedAgainstTheFileNameIsRefused() throws {
        let dir = try PredictFixture.temporaryDirectory()
        let folder = try PredictFixture.modelsFolder(for: [PredictFixture.patientA], in: dir)
        let file = folder.appendingPathComponent(PredictFixture.patientA.rawValue).appendingPathComponent("h030.json")
        var model = try GlucoseModel.read(from: file)
        model.horizonMinutes = 1440
        model.features.horizonMinutes = 1440
        try model.write(to: file)
        #expect(throws: ModelFileError.invalidField(file.path, field: "horizonMinutes", reason: "1440, but the file is the 30-minute "
            + "model's (h030.json): a model is trained for its horizon, and an edited horizon predicts another time with the same "
            + "coefficients; train that horizon (--horizons)")) {
            try ModelSet.load(folder, patient: PredictFixture.patientA)
        }
        #expect(ModelSet.horizon(named: "h030.json") == 30 && ModelSet.horizon(named: "h1440.json") == 1440)
        #expect(ModelSet.horizon(named: "h030.orig.json") == nil && ModelSet.horizon(named: "h.json") == nil)
    }

    @Test func modelReadingInsulinRefusesDataWithoutInsulin() throws {
        let models = PredictFixture.modelSet()
        // An ARX base reads every feature whose coefficient is not zero; insulin varied in training.
        // The first insulin input the model reads is named (IOB, unless its weight was held at 0).
        let model = models.models[30]!
        let input = try #require(model.features.insulinInputs.first(where: model.inputsUsed.contains))
        let log = PredictFixture.log(PredictFixture.patientA, days: 1, insulin: false)
        #expect(throws: PredictionError.missingInput(PredictFixture.patientA, MissingInput(horizon: 30, input: input, records: .insulin))) {
            try Predictor(models: models).predict(log)
        }
        #expect(PredictionError.missingInput(PredictFixture.patientA, MissingInput(horizon: 30, input: "IOB", records: .insulin)).description
            == "p_a: the 30-minute model uses IOB, but the data has no insulin records")
    }

    /// Before: a model trained on a CGM-only export was refused on that same export ("the
    /// 30-minute model uses IA, but the data has no insulin records").
    @Test func aModelTrainedWithoutInsulinOrMealsPredictsOnDataWithoutThem() throws {
        var log = PredictFixture.log(PredictFixture.patientA, days: 4, insulin: false)
        log.carbs = []
        #expect(!log.has(.insulin) && !log.has(.carbohydrate))
        var evolution = TrainingOptions.defaultEvolution
        evolution.populationSize = 20
        evolution.generations = 3
        var options = TrainingOptions(grammar: try GrammarSource.bundled("glucose-directed"), evolution: evolution)
        options.horizons = [30]
        let grammar = try Grammar(text: options.grammar.text, source: options.grammar.name)
        let data = PatientData(patient: PredictFixture.patientA, log: log, testStart: nil, files: [])
        var model = try PatientTrainer(data: data, options: options, grammar: grammar).train(horizon: 30).model
        #expect(model.absentRecords == ["insulin", "carbohydrate"])
        let set = ModelSet(patient: PredictFixture.patientA, models: [30: model])
        #expect(!(try Predictor(models: set).predict(log)).isEmpty)
        // The field reads back, and a kind it does not know is refused by name.
        let url = temporaryFolder("absent-records").appendingPathComponent("h030.json")
        try model.write(to: url)
        #expect(try GlucoseModel.read(from: url).absentRecords == ["insulin", "carbohydrate"])
        model.absentRecords = ["meals"]
        try model.write(to: url)
        #expect(throws: ModelFileError.invalidField(url.path, field: "absentRecords", reason: "'meals'; expected insulin, carbohydrate, basal, bolus, basal_rate or basal_injection")) {
            try GlucoseModel.read(from: url)
        }
        // Trained with both (a pump's: rates, no injections), a model still refuses data without
        // one of them (the test above), and lists the kind of basal it never saw.
        #expect(PredictFixture.models[0].absentRecords == ["basal_injection"])
        // Trained on boluses alone, the file says so; and predicts on such data.
        var bolusesAlone = PredictFixture.log(PredictFixture.patientA, days: 4)
        bolusesAlone.basalRates = []
        let trained = try PatientTrainer(data: PatientData(patient: PredictFixture.patientA, log: bolusesAlone, testStart: nil, files: []),
                                         options: options, grammar: grammar).train(horizon: 30).model
        #expect(trained.absentRecords == ["basal"])  // neither kind of basal: "basal" says it
        // The first model above, trained without insulin at all, lists neither basal nor bolus.
        #expect(!(try Predictor(models: ModelSet(patient: PredictFixture.patientA, models: [30: trained])).predict(bolusesAlone)).isEmpty)
    }

    /// Hunt AE (stop 56): a pump-trained model after a switch to pens read each long-acting
    /// injection as a rapid-acting bolus: 30-minute RMSE 12.2 -> 39.6 mg/dL, 126 predicted lows for
    /// 14, and 1.5-1.9 times the dose by day, without a word. The data's other kind of basal is
    /// refused now, naming it; older files (which say nothing of it) read it as before.
    @Test func aModelTrainedOnAPumpRefusesLongActingInjections() throws {
        let models = PredictFixture.modelSet()
        let model = models.models[30]!
        let input = try #require(model.features.insulinInputs.first(where: model.inputsUsed.contains))
        var pens = PredictFixture.log(PredictFixture.patientA, days: 1)
        let first = try #require(pens.glucose.first?.time)
        pens.basalRates = []
        pens.temporaryBasals = []
        pens.basalInjections = [BasalInjection(time: first.addingTimeInterval(3600), dose: InsulinUnits(15.6))]
        #expect(pens.has(.basal) && pens.has(.basalInjection) && !pens.has(.basalRate))
        let unseen = MissingInput(horizon: 30, input: input, records: .basalInjection, unseen: true)
        #expect(throws: PredictionError.missingInput(PredictFixture.patientA, unseen)) { try Predictor(models: models).predict(pens) }
        #expect(unseen.description.hasSuffix("but the data has long-acting injections, which its training data had none of (it had "
            + "a pump's basal rates): the model reads them as insulin it never saw (an injection as a rapid-acting dose), so its "
            + "predictions and doses would be wrong. Train it again on data since the change (glucomodel-train into the same --out)"))
        // A day of a pump failure, an injection beside the rates: still insulin it never saw.
        var both = PredictFixture.log(PredictFixture.patientA, days: 1)
        both.basalInjections = pens.basalInjections
        #expect(models.missingInput(in: both) == unseen)
        // The pump's own data, and an older file that says nothing of the kinds of basal: as before.
        #expect(models.missingInput(in: PredictFixture.log(PredictFixture.patientA, days: 1)) == nil)
        var older = models
        for h in older.horizons { older.models[h]!.absentRecords = nil }
        #expect(older.missingInput(in: pens) == nil)
        // The reverse: a pen-trained model (no rates) on a pump's data.
        var penTrained = models
        for h in penTrained.horizons { penTrained.models[h]!.absentRecords = ["basal_rate"] }
        #expect(penTrained.missingInput(in: pens) == nil)
        #expect(penTrained.missingInput(in: PredictFixture.log(PredictFixture.patientA, days: 1))?.records == .basalRate)
    }

    /// Before: an export of boluses alone (the pump's basal in another file) was read as no basal
    /// by models trained with it: the bundled adolescent_003's predicted 22 mg/dL high at 30
    /// minutes and 52 at 120, and `dose` gave 1 U more for 50 g, without a word.
    @Test func aModelTrainedWithBasalRefusesDataWithBolusesAlone() throws {
        let models = PredictFixture.modelSet()
        let model = models.models[30]!
        let input = try #require(model.features.insulinInputs.first(where: model.inputsUsed.contains))
        var log = PredictFixture.log(PredictFixture.patientA, days: 1)
        log.basalRates = []
        #expect(log.has(.insulin) && !log.has(.basal))
        let missing = MissingInput(horizon: 30, input: input, records: .basal)
        #expect(throws: PredictionError.missingInput(PredictFixture.patientA, missing)) { try Predictor(models: models).predict(log) }
        #expect(missing.description.hasSuffix("but the data has no basal records (basal rates or long-acting injections), "
            + "which its training data had: are they in another file?"))
        // A model file from before basal and bolus records were recorded (no `data` either) cannot
        // say its training data had them: a pen user's models were refused after an upgrade on the
        // data they were trained on, and told to look for another file (hunt Y). Still refused, said so.
        var older = models
        for h in older.horizons { older.models[h]!.data = nil }
        let unsure = try #require(older.missingInput(in: log))
        #expect(unsure.fileMaySayNothing && unsure.records == .basal)
        #expect(unsure.description.hasSuffix("or its model file is from a build that did not record whether they had them: "
            + "are they in another file? If it was trained on data like this, train it again (glucomodel-train into the same --out)"))
        var noCarbs = log
        noCarbs.carbs = []
        #expect(older.missingInput(in: noCarbs).map { $0.records == .carbohydrate && !$0.fileMaySayNothing } ?? true)
        // A temporary basal or a long-acting injection is basal insulin recorded.
        var temporary = log
        temporary.temporaryBasals = [TemporaryBasal(start: log.glucose[0].time, end: log.glucose[12].time, rate: InsulinRate(unitsPerHour: 0))]
        #expect(models.missingInput(in: temporary) == nil)
        // An injection is basal recorded too: not missing, but insulin these pump-trained models never
        // saw (aModelTrainedOnAPumpRefusesLongActingInjections).
        var pens = log
        pens.basalInjections = [BasalInjection(time: log.glucose[0].time, dose: InsulinUnits(20))]
        #expect(models.missingInput(in: pens).map { $0.unseen && $0.records == .basalInjection } == true)
        // A window after the basal records still has them (before it).
        let whole = PredictFixture.log(PredictFixture.patientA, days: 2)
        var late = whole
        late.basalRates = [whole.basalRates[0]]
        #expect(late.since(whole.glucose[400].time).basalRates.count == 1 && late.since(whole.glucose[400].time).has(.basal))
        var ended = whole
        ended.basalRates = [BasalRate(start: whole.glucose[0].time, end: whole.glucose[10].time, rate: InsulinRate(unitsPerHour: 0.8))]
        #expect(ended.since(whole.glucose[400].time).has(.basal))
        // Trained on boluses alone, a model reads such data as its own; trained without any
        // insulin, no basal goes without saying.
        var bolusesAlone = models
        bolusesAlone.models[30]!.absentRecords = ["basal"]
        bolusesAlone.models[60]?.absentRecords = ["basal"]
        #expect(bolusesAlone.missingInput(in: log) == nil)
        var noInsulin = model
        noInsulin.absentRecords = ["insulin"]
        #expect(noInsulin.trainedWithout(.basal) && noInsulin.trainedWithout(.bolus) && !model.trainedWithout(.basal))
        // The pump's basal alone (boluses in another file): refused likewise.
        var basalAlone = PredictFixture.log(PredictFixture.patientA, days: 1)
        basalAlone.boluses = []
        #expect(throws: PredictionError.missingInput(PredictFixture.patientA, MissingInput(horizon: 30, input: input, records: .bolus))) {
            try Predictor(models: models).predict(basalAlone)
        }
        #expect(MissingInput(horizon: 30, input: "IOB", records: .bolus).description
            == "the 30-minute model uses IOB, but the data has no bolus records, which its training data had: are they in another file?")
        #expect(whole.since(whole.glucose[400].time).inputsBefore.contains(.bolus))
    }

    @Test func staleDataIsRefused() throws {
        let log = PredictFixture.log(PredictFixture.patientA, days: 1)
        let newest = log.glucose.last!.time
        let wanted = newest.addingTimeInterval(3600)
        #expect(throws: PredictionError.staleData(PredictFixture.patientA, newest: newest, wanted: wanted)) {
            try Predictor(models: PredictFixture.modelSet()).predict(log, from: wanted)
        }
    }

    /// A period inside a sensor gap: its steps are on the data's grid but none has a recent
    /// reading. Before, `predict` wrote a header and "0 predictions for 1 of 1 patient", exit 0;
    /// now the patient is skipped with the reason, as for a period outside the data. A period
    /// from inside the gap to 3 hours after it predicts steps after it (once the models' lags are read).
    @Test func aPeriodInsideASensorGapHasNothingToPredict() throws {
        var log = PredictFixture.log(PredictFixture.patientA, days: 3)
        let gap = DateInterval(start: PredictFixture.day0.addingTimeInterval(86_400), duration: 86_400)
        log.glucose.removeAll { gap.contains($0.time) && $0.time != gap.end }
        let predictor = Predictor(models: PredictFixture.modelSet())
        let from = gap.start.addingTimeInterval(12 * 3600)
        #expect(throws: PredictionError.nothingToPredict(PredictFixture.patientA,
                                                         reason: "no step of the period has the recent glucose the models read (a sensor gap?)")) {
            try predictor.predict(log, from: from, to: from.addingTimeInterval(3600))
        }
        let after = try predictor.predict(log, from: gap.end.addingTimeInterval(-1800), to: gap.end.addingTimeInterval(3 * 3600))
        #expect(!after.isEmpty && after.allSatisfy { $0.issuedAt >= gap.end })
    }

    @Test func fastFormattingMatchesFoundation() {
        // Reference text from Foundation's printf and ISO8601DateFormatter, including exact binary
        // ties (0.25 -> "0.2", 2.5 -> "2") and near-ties (0.15 is 0.1499999... -> "0.1").
        let values = [0.0, -0.0, 0.25, 0.35, 0.15, 2.5, 3.5, 99.95, 100.05, -0.04, -1.25, 123.456, 599.99, 10, 1e15, .nan]
        for v in values {
            #expect(PredictionCSV.fixed(v, decimals: 1) == String(format: "%.1f", v), "value \(v)")
            #expect(PredictionCSV.fixed(v, decimals: 0) == String(format: "%.0f", v), "value \(v)")
            #expect(PredictionCSV.fixed(v, decimals: 2) == String(format: "%.2f", v), "value \(v)")
            #expect(PredictionCSV.fixed(v, decimals: 3) == String(format: "%.3f", v), "value \(v)")
        }
        var x = 0.013
        while x < 700 {
            #expect(PredictionCSV.fixed(x, decimals: 1) == String(format: "%.1f", x))
            #expect(PredictionCSV.fixed(x / 18.01559, decimals: 2) == String(format: "%.2f", x / 18.01559))
            x += 0.731
        }
        let formatter = ISO8601DateFormatter()
        for t in [0.0, 951_782_400, 1_767_571_200, 1_709_164_799, 4_102_444_800, 1_767_571_200.5, -86_400] {
            let d = Date(timeIntervalSince1970: t)
            #expect(PredictionCSV.iso8601(d) == formatter.string(from: d), "time \(t)")
        }
    }

    @Test func timeArguments() throws {
        let madrid = TimeZone(identifier: "Europe/Madrid")!
        // Madrid is UTC+1 in January: 08:00 local = 07:00Z.
        #expect(try TimeArgument.parse("2026-01-05T08:00", timeZone: madrid) == Fixture.date("2026-01-05T07:00:00Z"))
        #expect(try TimeArgument.parse("2026-01-05T08:00:00+02:00", timeZone: madrid) == Fixture.date("2026-01-05T06:00:00Z"))
        #expect(try TimeArgument.parse("2026-01-05", timeZone: PredictFixture.utc) == Fixture.date("2026-01-05T00:00:00Z"))
        #expect(throws: TimeArgument.ParseError.notISO8601(option: "--from", text: "yesterday")) {
            try TimeArgument.parse("yesterday", timeZone: madrid, option: "--from")
        }
        #expect(try TimeArgument.timeZone(named: "Europe/Madrid") == madrid)
        #expect(try TimeArgument.timeZone(named: nil) == TimeZone.current)
        #expect(throws: TimeArgument.ParseError.unknownTimeZone(name: "Mars/Base")) { try TimeArgument.timeZone(named: "Mars/Base") }
        // Hunt C: `UTC+1` was read and `+01:00` refused. Fixed offsets as ISO 8601 writes them:
        for (name, seconds) in [("+01:00", 3600), ("-05:30", -19_800), ("+0545", 20_700), ("+02", 7200), ("-00:00", 0)] {
            #expect(try TimeArgument.timeZone(named: name).secondsFromGMT(for: Date(timeIntervalSince1970: 0)) == seconds, "\(name)")
        }
        for bad in ["+1", "+01:0", "+25:00", "+01:60", "01:00", "+01-00", "++01:00"] {
            #expect(throws: TimeArgument.ParseError.unknownTimeZone(name: bad)) { try TimeArgument.timeZone(named: bad) }
        }
    }

    /// A dose's moment in the repeated hour of a fall-back night (Madrid, 25 Oct 2026: 02:30 is
    /// 00:30Z in CEST and 01:30Z in CET) or in a spring-forward gap (29 Mar 2026, 02:00-03:00 does
    /// not exist) is refused with the offsets to choose from; a range's end keeps the importers'
    /// rule (first pass; shifted forward by the gap). The offered forms name the two instants.
    @Test func exactMomentsInDaylightSavingChangesAreRefused() throws {
        let madrid = TimeZone(identifier: "Europe/Madrid")!
        #expect(throws: TimeArgument.ParseError.repeatedLocalTime(option: "--at", text: "2026-10-25T02:30", zone: "Europe/Madrid",
                                                                  first: "2026-10-25T02:30+02:00", second: "2026-10-25T02:30+01:00")) {
            try TimeArgument.parse("2026-10-25T02:30", timeZone: madrid, option: "--at", exact: true)
        }
        #expect(try TimeArgument.parse("2026-10-25T02:30+02:00", timeZone: madrid, exact: true) == Fixture.date("2026-10-25T00:30:00Z"))
        #expect(try TimeArgument.parse("2026-10-25T02:30+01:00", timeZone: madrid, exact: true) == Fixture.date("2026-10-25T01:30:00Z"))
        #expect(try TimeArgument.parse("2026-10-25T02:30", timeZone: madrid) == Fixture.date("2026-10-25T00:30:00Z"))
        #expect(throws: TimeArgument.ParseError.skippedLocalTime(option: "--carbs-time", text: "2026-03-29 02:30", zone: "Europe/Madrid")) {
            try TimeArgument.parse("2026-03-29 02:30", timeZone: madrid, option: "--carbs-time", exact: true)
        }
        #expect(try TimeArgument.parse("2026-03-29 02:30", timeZone: madrid) == Fixture.date("2026-03-29T01:30:00Z"))
        // Either side of the changes is unique and accepted.
        #expect(try TimeArgument.parse("2026-10-25T03:00", timeZone: madrid, exact: true) == Fixture.date("2026-10-25T02:00:00Z"))
        #expect(try TimeArgument.parse("2026-03-29T03:00", timeZone: madrid, exact: true) == Fixture.date("2026-03-29T01:00:00Z"))
        let text = TimeArgument.ParseError.repeatedLocalTime(option: "--at", text: "2026-10-25T02:30", zone: "Europe/Madrid",
                                                             first: "2026-10-25T02:30+02:00", second: "2026-10-25T02:30+01:00").description
        #expect(text.contains("happens twice in Europe/Madrid") && text.contains("2026-10-25T02:30+01:00 (second pass)"))
        // Lord Howe's clock moves 30 minutes (hunt AH, stop 57: "the clock skips that hour").
        let howe = TimeArgument.ParseError.skippedLocalTime(option: "--at", text: "2026-10-04T02:10", zone: "Australia/Lord_Howe")
        #expect(howe.description.contains("(the clock skips it that night)") && !howe.description.contains("hour"))
        #expect(throws: howe) { try TimeArgument.parse("2026-10-04T02:10", timeZone: TimeZone(identifier: "Australia/Lord_Howe")!, option: "--at", exact: true) }
    }
}
