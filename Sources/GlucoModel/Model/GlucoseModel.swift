import Foundation
import GrammarEvolution
import LinearAlgebra

/// A trained personal glucose model for one patient and one horizon, as saved to disk.
///
/// Prediction: `y = base(x) + intercept + slope * f(x)`, where `base` is the ARX model
/// fitted on the same training rows (when `base == .arx`, else 0), `f` the evolved
/// expression and `intercept`, `slope` its linear scaling (least squares on the training
/// rows), clamped to `plausibleRange`. With `slope == 0` the model is its base alone:
/// evolution found nothing better on the validation days, and `selection` says so.
/// The ARX model is always kept: it is also the `arx` baseline predictions are compared with.
public struct GlucoseModel: Codable, Equatable, Sendable {
    public static let schema = "glucomodel.model"
    /// Version 2: programs are flat token arrays (`[1.5, "x0", "mul"]`), no compiler-made
    /// `_0` keys. Version 1 files (the same fields, programs as `{"instructions": [...]}`) are read.
    public static let currentVersion = 2
    public static let readableVersions = 1...currentVersion

    public var schema: String = GlucoseModel.schema
    public var version: Int = GlucoseModel.currentVersion
    public var patient: PatientID
    public var horizonMinutes: Int
    public var features: FeatureSet
    public var base: ModelBase
    public var arx: ARXModel
    /// The evolved expression, readable infix over `features.names`.
    public var expression: String
    /// The same expression compiled (postfix); the infix is for people, this is what runs.
    public var program: Program
    public var intercept: Double
    public var slope: Double
    public var selection: String
    public var grammar: GrammarReference
    public var seed: UInt64
    public var evolution: EvolutionParameters
    public var fitness: TrainingFitness
    /// `TrainingOptions.fingerprint` of the run that made it: a resumed run reuses the model
    /// only when this matches, and `data` too.
    public var settings: String
    public var training: TrainingWindow
    public var metrics: [SplitMetrics]
    /// Split-conformal 80% and 95% intervals calibrated on the validation days
    /// (`PredictionIntervals`); absent in files written before them, or when the validation days
    /// held too few rows.
    public var intervals: PredictionIntervals? = nil
    /// How many independent searches the model is the mean of (`TrainingOptions.ensemble`), each
    /// with its share of `evolution.populationSize`; absent for one search (and in older files).
    public var searches: Int? = nil
    /// The smallest and largest value of the evolved part (`intercept + slope * expression`) on the
    /// rows the model was trained and selected on (its training and validation days); absent in
    /// files written before it and for a model without an evolved expression. Where the evolved
    /// part is not finite, or lies beyond this range by more than the range's own width, an ARX
    /// based model predicts by its base alone (`prediction(row:)`).
    public var evolvedRange: ClosedRange<Double>? = nil
    /// A fingerprint of the rows the model was fitted, chosen and scored on: every feature value and
    /// target, and the split (`PatientTrainer.dataFingerprint`). A run into the same folder reuses
    /// the model only when its data give the same (not: an export that gained days since, a file
    /// corrected or added); absent in files written before it, which are trained again.
    public var data: String? = nil
    /// The kinds of record the training data held none of (`PatientLog.RecordInputs`: "insulin",
    /// "carbohydrate", "basal", "bolus"): the model was fitted with those inputs at zero, so data
    /// without them is data like its own (a CGM-only export). "basal" and "bolus" are written only
    /// beside other insulin records; no insulin at all implies neither. Absent when it had every
    /// kind, and in older files (which a log without basal or bolus records is then refused by).
    public var absentRecords: [String]? = nil
    /// The signals the training data held none of (`PatientLog.RecordInputs.isSignal`:
    /// "heart_rate", "exercise"), empty when it had both; absent in files written before stop 56,
    /// whose signals are read as they come. The model was fitted with those inputs at zero, and
    /// reads them so (`asTrained`); one trained with heart rate refuses data without any.
    public var absentSignals: [String]? = nil

    /// Whether the training data held no records of `kind` (`absentRecords`).
    public func trainedWithout(_ kind: PatientLog.RecordInputs) -> Bool {
        if kind.isSignal { return absentSignals?.contains(kind.rawValue) ?? false }
        let absent = absentRecords ?? []
        return absent.contains(kind.rawValue) || (kind.isPartOfInsulin && absent.contains(PatientLog.RecordInputs.insulin.rawValue))
            || (kind.isPartOfBasal && absent.contains(PatientLog.RecordInputs.basal.rawValue))
    }

    /// `row` (in `features`' column order) with the inputs of every kind of record the training
    /// data held none of (`trainedWithout`) at zero, as the model was fitted: a model fitted on a
    /// CGM-only export never weighed an insulin or carbohydrate input, and any weight its
    /// expression gives one was fitted on zeros. The dose adds those records' effects by the
    /// settings' curves instead (`DoseAdvisor.withUnseenEffects`).
    public func asTrained(_ row: [Double]) -> [Double] {
        let unseen = unseenColumns
        guard !unseen.isEmpty else { return row }
        var out = row
        for j in unseen where j < out.count { out[j] = 0 }
        return out
    }

    /// The columns of `features` that `asTrained` sets to zero.
    var unseenColumns: [Int] {
        var unseen = Set<String>()
        for kind in [PatientLog.RecordInputs.insulin, .carbohydrate, .heartRate, .exercise] where trainedWithout(kind) {
            unseen.formUnion(features.inputs(of: kind))
        }
        return features.names.indices.filter { unseen.contains(features.names[$0]) }
    }

    /// Predictions are clamped to this range (mg/dL): a value outside it is certainly wrong,
    /// and clamping only moves it towards any real glucose.
    public static let plausibleRange = 10.0...600.0

    /// One prediction, and whether it is the ARX base's alone.
    public struct Prediction: Sendable, Equatable {
        /// mg/dL, clamped to `plausibleRange`; NaN where a model without an ARX base is NaN.
        public var glucose: Double
        /// The evolved part was left out: not finite here, or beyond `evolvedRange` by more than its
        /// width. The expression is then read where it was never fitted (`x / (G2 - G9)` on a flat
        /// sensor line, an `exp` of a value beyond its data), and its value is no evidence.
        public var baseAlone: Bool
    }

    /// Predicts from one feature row (values in `features.names` order).
    public func predict(row: [Double]) -> Double { prediction(row: row).glucose }

    /// Predicts from one feature row (values in `features.names` order), with the ARX base alone
    /// where the evolved part is not finite or beyond `evolvedRange` by more than its width. A model
    /// without an ARX base has nothing to fall back on: its value there is kept as it was (clamped,
    /// or NaN when not finite), as files written before `evolvedRange` are read.
    public func prediction(row: [Double]) -> Prediction {
        let baseValue = base == .arx ? arx.predict(row: row) : 0
        guard slope != 0 else { return Prediction(glucose: GlucoseModel.clamp(baseValue + intercept), baseAlone: false) }
        let term = scaledExpression(row)
        if base == .arx, !admits(intercept + term) { return Prediction(glucose: GlucoseModel.clamp(baseValue), baseAlone: true) }
        return Prediction(glucose: GlucoseModel.clamp(baseValue + intercept + term), baseAlone: false)
    }

    /// `slope * expression` on one row (the evolved part without its intercept).
    private func scaledExpression(_ row: [Double]) -> Double { slope * program.evaluate { column, _ in row[column] } }

    /// Whether a value of the evolved part is within reach of what it was fitted on: finite, and
    /// within `evolvedRange` widened by its own width each side (any finite value without one).
    func admits(_ evolved: Double) -> Bool {
        guard evolved.isFinite else { return false }
        guard let range = evolvedRange else { return true }
        let width = range.upperBound - range.lowerBound
        return range.lowerBound - width <= evolved && evolved <= range.upperBound + width
    }

    /// The range of the evolved part over `rows` of `table` (built with `features`): what
    /// `evolvedRange` records for the training and validation rows. Nil without an evolved part or
    /// a finite value.
    public func evolvedValues(_ table: FeatureTable, rows: [Range<Int>]) -> ClosedRange<Double>? {
        precondition(table.names == features.names, "model and feature table disagree on the features")
        guard slope != 0 else { return nil }
        var low = Double.infinity, high = -Double.infinity
        var row = [Double](repeating: 0, count: table.columns.count)
        for range in rows {
            for r in range {
                for j in row.indices { row[j] = table.columns[j][r] }
                let v = intercept + scaledExpression(row)
                guard v.isFinite else { continue }
                low = min(low, v); high = max(high, v)
            }
        }
        return low <= high ? low...high : nil
    }

    static func clamp(_ value: Double) -> Double {
        value.isNaN ? value : min(max(value, plausibleRange.lowerBound), plausibleRange.upperBound)
    }

    /// Whether a (clamped) prediction is at the edge of `plausibleRange`: the model's expression
    /// went beyond anything its training days held (an older model file with an exponential of
    /// glucose, say). Such a prediction is no basis for insulin (`DoseAdvisor`) and is flagged by
    /// `nightly`.
    public static func isAtLimit(_ prediction: Double) -> Bool {
        prediction.isFinite && !(plausibleRange.lowerBound < prediction && prediction < plausibleRange.upperBound)
    }

    /// Whether the least-squares part's weights keep `FeatureSet.weightSigns`: no carbohydrate
    /// column with a negative weight, no insulin column with a positive one. Models trained with
    /// `--curves single` (the default) or `multi-free` may not.
    /// A model without an ARX base (`--base none`) is judged by the fit it was seeded with, which it
    /// keeps in `arx`: the search starts from that fit, and often ends at it (hunt X).
    public var weightsKeepTheirSigns: Bool {
        zip(features.weightSigns, arx.coefficients).allSatisfy { $0.admits($1) }
    }

    /// Why the model's trajectory may not anchor a dose (`DoseAdvisor`), or nil when it may:
    /// - it reads the curves at several speeds with weights that break their signs (`--curves
    ///   multi-free`). Free, those trade a meal against its insulin across ten columns and
    ///   predicted falls from 470 mg/dL after a meal eaten without insulin. Single-curve models
    ///   may, held or free: the default's free ones are the models the closed-loop trials dosed with;
    /// - its ARX was fitted with another ridge than the default (`--arx-ridge`): closer on average,
    ///   such models dosed worse in the closed-loop check (docs/accuracy.md, "The ARX's ridge").
    /// With `--base none` both are read from the seeded fit (`weightsKeepTheirSigns`): its expression
    /// is that fit, or evolved from it.
    public var doseAnchorProblem: String? {
        if !(features.carbCurves.isEmpty && features.insulinCurves.isEmpty), !weightsKeepTheirSigns {
            return "lets a meal lower glucose or insulin raise it (trained with --curves multi-free)"
        }
        if arx.ridge != ARXModel.defaultRidge {
            return "was trained with --arx-ridge \(ARXRidge.fixed(arx.ridge).text), whose dose advice the closed-loop trial has not borne out"
        }
        return nil
    }

    /// Whether the model's trajectory may anchor a dose (`doseAnchorProblem` is nil).
    public var mayAnchorADose: Bool { doseAnchorProblem == nil }

    /// The variables the model reads (its expression and, with an ARX base, every feature).
    public var inputsUsed: Set<String> {
        var used = Set(program.columnsUsed.map { features.names[$0] })
        if base == .arx { used.formUnion(zip(arx.featureNames, arx.coefficients).filter { $0.1 != 0 }.map(\.0)) }
        return used
    }

    /// Predicts every row of a feature table built with `features`.
    public func predict(_ table: FeatureTable) -> [Double] { predictions(table).map(\.glucose) }

    /// Every row's prediction of a feature table built with `features`, with `baseAlone`. Inputs
    /// the training data held no records of are read as zero, as the model was fitted (`asTrained`):
    /// `predict`, `report` and `nightly` give a model trained on a CGM-only export the
    /// predictions `dose` anchors on, not its expression's weights on inputs it never saw.
    public func predictions(_ table: FeatureTable) -> [Prediction] {
        precondition(table.names == features.names, "model and feature table disagree on the features")
        var row = [Double](repeating: 0, count: table.columns.count)
        let unseen = unseenColumns
        return (0..<table.rowCount).map { r in
            for j in row.indices { row[j] = table.columns[j][r] }
            for j in unseen where j < row.count { row[j] = 0 }
            return prediction(row: row)
        }
    }
}

/// Which grammar produced a model.
public struct GrammarReference: Codable, Hashable, Sendable {
    public var name: String
    /// Hex digest of the grammar text (FNV-1a 64), so a model can be traced to its grammar.
    public var hash: String
}

/// The periods a model was trained, selected and tested on.
public struct TrainingWindow: Codable, Hashable, Sendable {
    public var trainFrom: Date
    public var trainTo: Date
    public var validationFrom: Date
    public var validationTo: Date
    public var testFrom: Date?
    public var testTo: Date?
}

/// Accuracy of one model on one split, as in `results.csv`.
public struct SplitMetrics: Codable, Hashable, Sendable {
    public var model: String
    public var split: String
    public var n: Int
    public var rmse: Double
    public var mae: Double
    public var mard: Double
    public var clarkeA: Double
    public var clarkeAB: Double
    public var parkesA: Double
    public var parkesAB: Double
    /// Measured coverage (%) and mean width (mg/dL) of the model's 80% and 95% intervals on
    /// this split (the evolved model's rows of a model with `intervals` only).
    public var coverage80: Double? = nil
    public var coverage95: Double? = nil
    public var width80: Double? = nil
    public var width95: Double? = nil
    /// Their mean interval score (mg/dL; `IntervalScore.intervalScore80`).
    public var intervalScore80: Double? = nil
    public var intervalScore95: Double? = nil
    /// The same coverage within each band of the glucose at the moment of prediction (rows, and
    /// the 80% and 95% coverage): below 70, 70-180, from 180 mg/dL; nil for a band without rows.
    public var rowsBelow70: Int? = nil
    public var coverage80Below70: Double? = nil
    public var coverage95Below70: Double? = nil
    public var rows70To180: Int? = nil
    public var coverage80In70To180: Double? = nil
    public var coverage95In70To180: Double? = nil
    public var rowsFrom180: Int? = nil
    public var coverage80From180: Double? = nil
    public var coverage95From180: Double? = nil
    /// The predictions as a hypoglycaemia alarm "below 70 mg/dL within the horizon"
    /// (`HypoAlarmScore`): sensitivity and specificity (fractions), median lead time (minutes),
    /// false alarms per day; nil where not defined (no low on the split, no detected event).
    public var alarmSensitivity: Double? = nil
    public var alarmSpecificity: Double? = nil
    public var alarmLeadMinutes: Double? = nil
    public var falseAlarmsPerDay: Double? = nil
    /// The same alarm on the lower bound of the 80% interval (docs/accuracy.md: an alert when the
    /// lower bound is below 70), for the evolved model's rows of a model with intervals.
    public var lower80AlarmSensitivity: Double? = nil
    public var lower80AlarmSpecificity: Double? = nil
    public var lower80AlarmLeadMinutes: Double? = nil
    public var lower80FalseAlarmsPerDay: Double? = nil

    /// Adds an alarm score on the predictions, or on the 80% lower bound (undefined values stay nil).
    mutating func record(_ alarm: HypoAlarmScore, lowerBound: Bool = false) {
        func v(_ x: Double) -> Double? { x.isFinite ? x : nil }
        if lowerBound {
            lower80AlarmSensitivity = v(alarm.sensitivity); lower80AlarmSpecificity = v(alarm.specificity)
            lower80AlarmLeadMinutes = v(alarm.medianLeadMinutes); lower80FalseAlarmsPerDay = v(alarm.falseAlarmsPerDay)
        } else {
            alarmSensitivity = v(alarm.sensitivity); alarmSpecificity = v(alarm.specificity)
            alarmLeadMinutes = v(alarm.medianLeadMinutes); falseAlarmsPerDay = v(alarm.falseAlarmsPerDay)
        }
    }

    /// Adds an interval score (nil: nothing scored, the fields stay empty).
    mutating func record(_ score: IntervalScore?) {
        guard let score, score.n > 0 else { return }
        coverage80 = score.coverage80; coverage95 = score.coverage95
        width80 = score.width80; width95 = score.width95
        intervalScore80 = score.intervalScore80; intervalScore95 = score.intervalScore95
        func band(_ i: Int) -> (Int?, Double?, Double?) {
            guard i < score.bands.count, score.bands[i].n > 0 else { return (nil, nil, nil) }
            return (score.bands[i].n, score.bands[i].coverage80, score.bands[i].coverage95)
        }
        (rowsBelow70, coverage80Below70, coverage95Below70) = band(0)
        (rows70To180, coverage80In70To180, coverage95In70To180) = band(1)
        (rowsFrom180, coverage80From180, coverage95From180) = band(2)
    }
}

extension GlucoseModel {
    /// Writes the model as pretty JSON, atomically (a reader never sees half a file).
    public func write(to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try AtomicTextFile.write(GlucoseModel.encoder.encode(self), to: url)
    }

    /// Reads a model file, checking its schema and version, and validating every field.
    public static func read(from url: URL) throws -> GlucoseModel {
        // A file far beyond any the trainer writes (tens of KB; the validation scores of a long
        // history a few MB) is refused before it is read: a 50 MB one took 1.1 GB to decode (hunt R).
        var info = stat()
        if stat(url.path, &info) == 0, Int(info.st_size) > maximumFileBytes {  // stat follows a symbolic link
            throw ModelFileError.malformed(url.path, "\(info.st_size) bytes, larger than any model file the trainer writes "
                + "(the most read is \(maximumFileBytes) bytes, 16 MB)")
        }
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw ModelFileError.unreadable(url.path)
        }
        return try decode(data, path: url.path)
    }

    /// The largest model file read (bytes).
    public static let maximumFileBytes = 16 << 20

    /// Decodes and validates the bytes of a model file; `path` names it in errors.
    /// - Throws: `ModelFileError` only.
    public static func decode(_ data: Data, path: String) throws -> GlucoseModel {
        if let syntax = JSONSyntax.problem(in: Array(data)) {
            throw ModelFileError.malformed(path, "not valid JSON at line \(syntax.line), column \(syntax.column): \(syntax.message)")
        }
        // The top level read by the toolkit's own parser: the schema and version, and no key twice
        // (a decoder keeps one of two without a word).
        guard let members = try? JSONParser.members(Array(data)),
              members.contains(where: { $0.key == "schema" && $0.value == .string(schema) }) else {
            throw ModelFileError.notAModel(path)
        }
        var seen: [String: Int] = [:]
        for (key, line, _) in members {
            if let first = seen[key] {
                throw ModelFileError.invalidField(path, field: key, reason: "given twice (lines \(first) and \(line))")
            }
            seen[key] = line
        }
        guard case let .number(number)? = members.last(where: { $0.key == "version" })?.value,
              let version = Int(exactly: number) else {
            let found = members.last { $0.key == "version" }?.value.brief ?? "nothing"
            throw ModelFileError.invalidField(path, field: "version", reason: "\(found); expected a version number")
        }
        guard readableVersions.contains(version) else { throw ModelFileError.unsupportedVersion(path, version) }
        let model: GlucoseModel
        do { model = try decoder.decode(GlucoseModel.self, from: data) } catch {
            if case let .dataCorrupted(c)? = error as? DecodingError, c.codingPath.isEmpty {
                // A text field saved in another encoding (Latin-1 from an editor) was blamed on a number.
                if let line = UTF8Check.firstInvalidLine(in: Array(data)) {
                    throw ModelFileError.malformed(path, "line \(line): a byte that is not UTF-8 text (saved in another encoding?): "
                        + "save the file as UTF-8, or retrain the model")
                }
                if let found = unholdableNumber(in: data) { throw ModelFileError.malformed(path, found) }
            }
            throw ModelFileError.malformed(path, ModelFileError.describe(error))
        }
        return try model.validated(path: path)
    }

    /// The number a decoder refused without saying which (Foundation on Linux gives no field for
    /// a fraction in a whole-number field), found by writing 0 over the candidates (a fraction, an
    /// exponent, a whole number beyond 64 bits, or a negative one) from the end of the text back until it decodes
    /// or fails otherwise: the last one written over is then the first in the file the decoder
    /// could not hold. Nil when no candidate explains the error. Only for an error: one decode per
    /// candidate.
    static func unholdableNumber(in data: Data) -> String? {
        var bytes = Array(data)
        for token in JSONSyntax.numbers(in: bytes).reversed() {
            let text = String(decoding: bytes[token.bytes], as: UTF8.self)
            guard let v = Double(text), text.contains(where: { ".eE".contains($0) }) || abs(v) >= 9.2e18 || v < 0 else { continue }
            bytes.replaceSubrange(token.bytes, with: [UInt8(ascii: "0")])  // the tokens before keep their places
            do {
                _ = try decoder.decode(GlucoseModel.self, from: Data(bytes))
            } catch let DecodingError.dataCorrupted(c) where c.codingPath.isEmpty {
                continue
            } catch {}
            let what = v != v.rounded() ? "\(text) is a fraction where a whole number belongs"
                : abs(v) >= 9.2e18 ? "\(text) is beyond the range of a whole number"
                : v < 0 && !text.contains(where: { ".eE".contains($0) }) ? "\(text) is negative where a whole number from 0 belongs (as seed)"
                : "\(text) is a whole number written in a form its field does not read (write it as digits only)"
            return "line \(token.line), column \(token.column): " + (token.key.map { "field \($0): " } ?? "") + what
        }
        return nil
    }

    static var encoder: JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys]
        e.dateEncodingStrategy = .iso8601
        e.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return e
    }

    static var decoder: JSONDecoder {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .iso8601
        d.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return d
    }

    /// The file name of a patient's model for a horizon inside a models folder.
    public static func relativePath(patient: PatientID, horizonMinutes: Int) -> String {
        "\(patient.rawValue)/h\(String(format: "%03d", horizonMinutes)).json"
    }
}

/// A model file that cannot be used.
public enum ModelFileError: Error, CustomStringConvertible, Equatable {
    case unreadable(String)
    case notAModel(String)
    case unsupportedVersion(String, Int)
    case malformed(String, String)
    /// A field whose value no prediction can be made from: file, field, why.
    case invalidField(String, field: String, reason: String)

    public var description: String {
        switch self {
        case let .unreadable(p): return "\(p): cannot read the model file"
        case let .notAModel(p): return "\(p): not a GlucoModel model file (schema \"\(GlucoseModel.schema)\" expected)"
        case let .unsupportedVersion(p, v):
            return "\(p): model file version \(v); this toolkit reads versions \(GlucoseModel.readableVersions.lowerBound)-\(GlucoseModel.currentVersion): retrain the model with this version (glucomodel-train --retrain)"
        case let .malformed(p, why): return "\(p): malformed model file: \(why)"
        case let .invalidField(p, field, why): return "\(p): invalid model file: field \(field): \(why)"
        }
    }

    /// A decoding error as the path of the field and what was wrong, without Swift's internals.
    static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case let .keyNotFound(key, c)?: return "field \((c.codingPath + [key]).fieldPath) is missing"
        case let .typeMismatch(type, c)?: return "field \(c.codingPath.fieldPath): \(DecodingText.wrongType(type, c))"
        case let .valueNotFound(_, c)?: return "field \(c.codingPath.fieldPath) is null"
        case let .dataCorrupted(c)?:
            // The text passed the syntax check, so the decoder refused a number its field cannot
            // hold; Foundation on Linux says neither which nor where.
            if c.codingPath.isEmpty {
                return "a number its field cannot hold: a fraction where a whole number belongs (as horizonMinutes or lags), or beyond the range of a Double (as 1e-400)"
            }
            // A range written [5, 1] (Swift: "Cannot initialize ClosedRange<Double> with a lowerBound (5.0) greater than upperBound (1.0)").
            if c.debugDescription.contains("ClosedRange") {
                return "field \(c.codingPath.fieldPath): a range [low, high] whose low is above its high"
            }
            if c.debugDescription.contains("ISO8601") {
                return "field \(c.codingPath.fieldPath): expected a time such as \"2026-01-05T00:00:00Z\" (ISO 8601)"
            }
            return "field \(c.codingPath.fieldPath): \(c.debugDescription)"
        default: return "\(error)"
        }
    }
}
