import Foundation
import GrammarEvolution

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
    public static let currentVersion = 1

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
    /// only when this matches.
    public var settings: String
    public var training: TrainingWindow
    public var metrics: [SplitMetrics]

    /// Predictions are clamped to this range (mg/dL): a value outside it is certainly wrong,
    /// and clamping only moves it towards any real glucose.
    public static let plausibleRange = 10.0...600.0

    /// Predicts from one feature row (values in `features.names` order).
    public func predict(row: [Double]) -> Double {
        let baseValue = base == .arx ? arx.predict(row: row) : 0
        var value = baseValue + intercept
        if slope != 0 { value += slope * program.evaluate { column, _ in row[column] } }
        return GlucoseModel.clamp(value)
    }

    static func clamp(_ value: Double) -> Double {
        value.isNaN ? value : min(max(value, plausibleRange.lowerBound), plausibleRange.upperBound)
    }

    /// The variables the model reads (its expression and, with an ARX base, every feature).
    public var inputsUsed: Set<String> {
        var used = Set(program.columnsUsed.map { features.names[$0] })
        if base == .arx { used.formUnion(zip(arx.featureNames, arx.coefficients).filter { $0.1 != 0 }.map(\.0)) }
        return used
    }

    /// Predicts every row of a feature table built with `features`.
    public func predict(_ table: FeatureTable) -> [Double] {
        precondition(table.names == features.names, "model and feature table disagree on the features")
        var row = [Double](repeating: 0, count: table.columns.count)
        return (0..<table.rowCount).map { r in
            for j in row.indices { row[j] = table.columns[j][r] }
            return predict(row: row)
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
}

extension GlucoseModel {
    /// Writes the model as pretty JSON, atomically (a reader never sees half a file).
    public func write(to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try GlucoseModel.encoder.encode(self).write(to: url, options: .atomic)
    }

    /// Reads a model file, checking its schema and version.
    public static func read(from url: URL) throws -> GlucoseModel {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw ModelFileError.unreadable(url.path)
        }
        struct Header: Decodable { var schema: String?; var version: Int? }
        guard let header = try? JSONDecoder().decode(Header.self, from: data), header.schema == schema else {
            throw ModelFileError.notAModel(url.path)
        }
        guard header.version == currentVersion else {
            throw ModelFileError.unsupportedVersion(url.path, header.version ?? -1)
        }
        do { return try decoder.decode(GlucoseModel.self, from: data) } catch {
            throw ModelFileError.malformed(url.path, "\(error)")
        }
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

    public var description: String {
        switch self {
        case let .unreadable(p): return "\(p): cannot read the model file"
        case let .notAModel(p): return "\(p): not a GlucoModel model file (schema \"\(GlucoseModel.schema)\" expected)"
        case let .unsupportedVersion(p, v):
            return "\(p): model file version \(v); this toolkit reads version \(GlucoseModel.currentVersion)"
        case let .malformed(p, why): return "\(p): malformed model file: \(why)"
        }
    }
}
