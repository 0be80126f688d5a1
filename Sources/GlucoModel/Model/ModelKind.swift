/// The predictors every horizon is scored with: the evolved model and the standard baselines.
///
/// The raw value is the name written in files (`model` columns of `results.csv` and the
/// prediction CSVs, `model` fields of a model file's metrics); `allCases` is the order files
/// list them in.
public enum ModelKind: String, CaseIterable, Codable, Sendable, Comparable {
    /// The evolved expression on top of its ARX base (`GlucoseModel.predict`).
    case ge
    /// Least squares on the same features (`ARXModel`).
    case arx
    /// The mean of the readings in the last 2 hours.
    case average
    /// The last known glucose.
    case persistence

    /// The name a report shows.
    public var displayName: String {
        switch self {
        case .ge: return "GE (evolved)"
        case .arx: return "ARX"
        case .average: return "Average"
        case .persistence: return "Persistence"
        }
    }

    /// Position in `allCases`: the order of the rows of a file.
    public var order: Int {
        switch self {
        case .ge: return 0
        case .arx: return 1
        case .average: return 2
        case .persistence: return 3
        }
    }

    public static func < (a: ModelKind, b: ModelKind) -> Bool { a.order < b.order }
}

extension Baseline {
    /// This baseline as a model kind.
    public var kind: ModelKind {
        switch self {
        case .persistence: return .persistence
        case .average: return .average
        case .arx: return .arx
        }
    }
}
