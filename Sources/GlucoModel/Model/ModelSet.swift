import Foundation

/// A patient's trained models, one per horizon, as the trainer wrote them.
public struct ModelSet: Sendable {
    public var patient: PatientID
    /// Horizon (minutes) -> model, sorted by horizon when listed.
    public var models: [Int: GlucoseModel]

    public var horizons: [Int] { models.keys.sorted() }

    /// The folder holding `<patient>/h030.json`...: `folder` itself, or its `models` subfolder
    /// (so both the trainer's `--out` folder and its `models/` work).
    public static func modelsRoot(_ folder: URL) -> URL {
        let sub = folder.appendingPathComponent("models")
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: sub.path, isDirectory: &isDir) && isDir.boolValue ? sub : folder
    }

    /// Loads a patient's models from a models folder, optionally only some horizons.
    /// - Throws: `PredictionError.noModel` when the patient has none; `ModelFileError` for a bad file.
    public static func load(_ folder: URL, patient: PatientID, horizons: [Int]? = nil) throws -> ModelSet {
        let dir = modelsRoot(folder).appendingPathComponent(patient.rawValue)
        var models: [Int: GlucoseModel] = [:], found: [Int: URL] = [:]
        for url in modelFiles(in: dir) {
            let model = try GlucoseModel.read(from: url)
            guard model.patient == patient else {
                throw ModelFileError.malformed(url.path, "model belongs to patient \(model.patient), not \(patient)")
            }
            // A horizon edited by hand in `h030.json` (to 1440, say) made the 30-minute model's
            // predictions read as 24 hours ahead, and a dose rest on them: the name is the horizon
            // the trainer wrote.
            if let named = horizon(named: url.lastPathComponent), named != model.horizonMinutes {
                throw ModelFileError.invalidField(url.path, field: "horizonMinutes", reason: "\(model.horizonMinutes), but the file is "
                    + "the \(named)-minute model's (\(url.lastPathComponent)): a model is trained for its horizon, and an edited "
                    + "horizon predicts another time with the same coefficients; train that horizon (--horizons)")
            }
            // Two files of one horizon (a kept copy `h030.orig.json`, a file copied over another):
            // the later in name order replaced the other without a word, the edited file or the copy.
            if let other = found[model.horizonMinutes] {
                throw ModelFileError.invalidField(url.path, field: "horizonMinutes", reason: "\(model.horizonMinutes), the horizon of "
                    + "\(other.lastPathComponent) too; a patient has one model file per horizon: move the other out of the folder")
            }
            found[model.horizonMinutes] = url
            if horizons == nil || horizons!.contains(model.horizonMinutes) { models[model.horizonMinutes] = model }
        }
        guard !found.isEmpty else { throw PredictionError.noModel(patient, folder: dir.path) }
        if let horizons, let missing = horizons.first(where: { models[$0] == nil }) {
            throw PredictionError.noModelForHorizon(patient, horizon: missing, available: found.keys.sorted())
        }
        return ModelSet(patient: patient, models: models)
    }

    /// The horizon a model file's name gives (`h030.json`: 30), if it has the trainer's form.
    static func horizon(named name: String) -> Int? {
        guard name.hasPrefix("h"), name.hasSuffix(".json") else { return nil }
        let digits = name.dropFirst().dropLast(5)
        return !digits.isEmpty && digits.allSatisfy(\.isASCII) && digits.allSatisfy(\.isNumber) ? Int(digits) : nil
    }

    /// The model files of one patient's folder (`h030.json`...), in name order; none when it
    /// cannot be listed.
    static func modelFiles(in dir: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { $0.hasSuffix(".json") && $0.hasPrefix("h") }.sorted().map { dir.appendingPathComponent($0) }
    }

    /// Every model file in a models folder (`<patient>/h030.json`...), as `load` finds them.
    public static func files(in folder: URL) -> [String] {
        let root = modelsRoot(folder)
        return patients(in: folder).flatMap { modelFiles(in: root.appendingPathComponent($0.rawValue)).map(\.path) }
    }

    /// The patients that have a model folder.
    public static func patients(in folder: URL) -> [PatientID] {
        let root = modelsRoot(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return names.compactMap { try? PatientID($0) }.sorted()
    }

    /// How far before a moment of prediction the models' inputs reach back into the records: the
    /// longest of the glucose lags (and the 2-hour average baseline) with a filled gap before them,
    /// the series' insulin and carbohydrate curves, and every look-ahead curve, plus a step; with
    /// adaptive intervals, further back by their window and horizon (the rows they replay). A
    /// prediction at `t` from `PatientLog.since(_:)` of `t - memory` or earlier is the prediction
    /// from the whole log.
    public var memory: TimeInterval {
        let options = seriesOptions
        var reach = max(options.insulinModel.durationMinutes * 60, PatientSeries.horizon(options.carbModel) * 60)
        for model in models.values {
            let f = model.features
            let glucose = Double(max(f.glucoseLags, Baseline.averageWindowMinutes / f.stepMinutes)) * Double(f.stepMinutes) * 60
            reach = max(reach, glucose + options.maxFilledGap)
            for insulin in [f.insulin] + f.insulinCurves { reach = max(reach, insulin.durationMinutes * 60) }
            for carbs in [f.carbs] + f.carbCurves { reach = max(reach, Double(FeatureSet.carbKernelMinutes(carbs)) * 60) }
        }
        // Adaptive intervals replay the predictions of a window (and a horizon) before a moment.
        let replay = models.map { h, model in model.intervals?.adaptation.map { Double(($0.windowMinutes + h) * 60) } ?? 0 }.max() ?? 0
        return replay + reach + 2 * options.step
    }

    /// The first input a model reads whose kind of record the log holds none of (`PatientLog.has`),
    /// unless the model's training data held none either (`GlucoseModel.trainedWithout`): a model
    /// fitted with insulin reads a CGM-only export's missing boluses as no insulin at all, one
    /// fitted with a pump's basal reads an export of boluses alone as no basal, and one fitted with
    /// boluses reads the pump's basal alone as no bolus. Nil when the log
    /// holds every input the models read. `Predictor.check` refuses such data and `DoseAdvisor`
    /// gives no model-based dose on it.
    public func missingInput(in log: PatientLog) -> MissingInput? {
        for h in horizons {
            let model = models[h]!, used = model.inputsUsed
            for kind in PatientLog.RecordInputs.allCases where !log.has(kind) && !model.trainedWithout(kind) {
                // Signals only where the file lists them, and heart rate alone: no exercise is a value.
                if kind.isSignal, model.absentSignals == nil || kind == .exercise { continue }
                // A pump's data has no injections, a pen's no rates: `.basal` judges basal missing.
                if kind.isPartOfBasal { continue }
                if let input = model.features.inputs(of: kind).first(where: used.contains) {
                    return MissingInput(horizon: h, input: input, records: kind, fileMaySayNothing: model.data == nil && (kind == .basal || kind == .bolus))
                }
            }
            // The other kind of basal than its training data's (a switch between pump and pens):
            // only where the file names it absent (older files say nothing of it).
            for kind in [PatientLog.RecordInputs.basalRate, .basalInjection]
            where log.has(kind) && model.absentRecords?.contains(kind.rawValue) == true {
                if let input = model.features.insulinInputs.first(where: used.contains) {
                    return MissingInput(horizon: h, input: input, records: kind, unseen: true)
                }
            }
        }
        return nil
    }

    /// Series options matching the models (their insulin and carbohydrate curves and grid step).
    public var seriesOptions: SeriesOptions {
        let any = models[horizons[0]]!
        return SeriesOptions(step: Double(any.features.stepMinutes) * 60,
                             insulinModel: any.features.insulin, carbModel: any.features.carbs)
    }
}

/// An input a patient's model reads that the data holds no records for (`ModelSet.missingInput(in:)`).
public struct MissingInput: Sendable, Equatable, CustomStringConvertible {
    public var horizon: Int
    /// The feature the model reads (`IOB`, `INS`, `COB`...).
    public var input: String
    public var records: PatientLog.RecordInputs
    /// The model file is older than its record of basal and bolus records (it has no `data`
    /// fingerprint either): absent, they may have been absent from its training data too (hunt Y:
    /// a pen user's models, refused after an upgrade on the data they were trained on).
    public var fileMaySayNothing = false
    /// The data holds `records`, a kind of basal its training data had none of (`basal_rate`,
    /// `basal_injection`): the input reads insulin the model never saw.
    public var unseen = false

    public init(horizon: Int, input: String, records: PatientLog.RecordInputs, fileMaySayNothing: Bool = false, unseen: Bool = false) {
        self.horizon = horizon; self.input = input; self.records = records; self.fileMaySayNothing = fileMaySayNothing
        self.unseen = unseen
    }

    public var description: String {
        let had = fileMaySayNothing && (records == .basal || records == .bolus)
            ? ", which its training data had, or its model file is from a build that did not record whether they had them: "
                + "are they in another file? If it was trained on data like this, train it again (glucomodel-train into the same --out)"
            : ", which its training data had: are they in another file?"
        if unseen {
            let (now, then) = records == .basalInjection
                ? ("long-acting injections", "a pump's basal rates") : ("a pump's basal rates", "long-acting injections")
            return "the \(horizon)-minute model uses \(input), but the data has \(now), which its training data had none of (it had "
                + "\(then)): the model reads them as insulin it never saw (an injection as a rapid-acting dose), so its predictions "
                + "and doses would be wrong. Train it again on data since the change (glucomodel-train into the same --out)"
        }
        if records == .heartRate {
            return "the \(horizon)-minute model uses \(input), but the data has no heart-rate records, which its training data "
                + "had (read as none, a step's heart rate is 0): was the watch not worn, or its export not added? Without it, "
                + "train the model again on data without heart rate"
        }
        return "the \(horizon)-minute model uses \(input), but the data has no \(records.rawValue) records"
            + (records == .basal ? " (basal rates or long-acting injections)" + had : records == .bolus ? had : "")
    }
}

/// Why a patient gets no predictions (never a wrong number instead).
public enum PredictionError: Error, CustomStringConvertible, Equatable {
    case noModel(PatientID, folder: String)
    /// Models exist (`available`, their horizons), but none for `horizon`.
    case noModelForHorizon(PatientID, horizon: Int, available: [Int] = [])
    /// The model reads an input the data has no records for.
    case missingInput(PatientID, MissingInput)
    case noGlucose(PatientID)
    /// The newest reading is older than allowed at the moment predictions are wanted for.
    case staleData(PatientID, newest: Date, wanted: Date)
    case nothingToPredict(PatientID, reason: String)
    /// The data holds no patient with this id: the ids it does hold are listed.
    case unknownPatient(PatientID, found: [PatientID], in: String)

    public var description: String {
        switch self {
        case let .noModel(p, folder): return "\(p): no trained model (looked in \(folder))"
        case let .noModelForHorizon(p, h, available):
            return "\(p): no model for the \(h)-minute horizon"
                + (available.isEmpty ? "" : " (models for \(available.map(String.init).joined(separator: ", ")) minutes)")
        case let .missingInput(p, missing): return "\(p): \(missing)"
        case let .noGlucose(p): return "\(p): no glucose readings"
        case let .staleData(p, newest, wanted):
            return "\(p): newest glucose reading is from \(newest.iso8601), too old to predict at \(wanted.iso8601)"
        case let .nothingToPredict(p, reason): return "\(p): nothing to predict: \(reason)"
        case let .unknownPatient(p, found, source):
            let list = found.isEmpty ? "none" : found.sorted().prefix(20).map(\.rawValue).joined(separator: ", ")
                + (found.count > 20 ? " and \(found.count - 20) more" : "")
            return "no data for patient \(p) in \(source); patients found: \(list)"
        }
    }
}

extension ReadFiles {
    /// The model files of a models folder (`ModelSet.files(in:)`), which no output may replace.
    public mutating func add(modelsIn folder: URL) { add(ModelSet.files(in: folder), role: "the model file") }
}
