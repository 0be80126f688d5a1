/// A zone of an error grid, from A (clinically accurate) to E (dangerous). Ordered by severity.
public enum ErrorGridZone: String, CaseIterable, Comparable, Sendable, Codable, CustomStringConvertible {
    case a = "A", b = "B", c = "C", d = "D", e = "E"

    public var description: String { rawValue }
    var severity: Int {
        switch self {
        case .a: return 0
        case .b: return 1
        case .c: return 2
        case .d: return 3
        case .e: return 4
        }
    }
    public static func < (l: ErrorGridZone, r: ErrorGridZone) -> Bool { l.severity < r.severity }
}

/// The error grids this project scores predictions on (Clarke et al., Diabetes Care 1987;
/// Parkes et al., Diabetes Care 2000, with the vertices of Pfützner et al. 2013).
public enum ErrorGrid: String, CaseIterable, Sendable, Codable, CustomStringConvertible {
    case clarke
    case parkesType1 = "parkes_type1"
    case parkesType2 = "parkes_type2"

    public var description: String {
        switch self {
        case .clarke: return "Clarke"
        case .parkesType1: return "Parkes type 1"
        case .parkesType2: return "Parkes type 2"
        }
    }

    /// The zone of one pair, or nil when the pair is outside the grid's domain and is not scored:
    /// a non-finite value, `reference <= 0` or `prediction < 0` (mg/dL). A point's zone depends
    /// on that point only.
    public func zone(reference: Double, prediction: Double) -> ErrorGridZone? {
        guard GlucosePair.isScorable(reference: reference, prediction: prediction) else { return nil }
        let p = ExactPoint(x: reference, y: prediction)
        switch self {
        case .clarke: return ClarkeErrorGrid.zone(p)
        case .parkesType1: return ParkesErrorGrid.type1.zone(p)
        case .parkesType2: return ParkesErrorGrid.type2.zone(p)
        }
    }

    public func zone(_ pair: GlucosePair) -> ErrorGridZone? {
        zone(reference: pair.reference, prediction: pair.prediction)
    }

    public func zone(reference: GlucoseValue, prediction: GlucoseValue) -> ErrorGridZone? {
        zone(reference: reference.mgdL, prediction: prediction.mgdL)
    }
}

/// A measured (reference) glucose and a predicted or estimated one, both in mg/dL.
public struct GlucosePair: Hashable, Sendable, Codable {
    /// Measured glucose, mg/dL.
    public var reference: Double
    /// Predicted glucose, mg/dL.
    public var prediction: Double

    public init(reference: Double, prediction: Double) {
        self.reference = reference; self.prediction = prediction
    }

    public init(reference: GlucoseValue, prediction: GlucoseValue) {
        self.init(reference: reference.mgdL, prediction: prediction.mgdL)
    }

    /// Whether a pair is inside the grids' domain: both finite, reference > 0, prediction >= 0.
    /// Pairs outside it (missing, NaN, infinite, negative) are counted apart as unscored.
    public static func isScorable(reference: Double, prediction: Double) -> Bool {
        reference.isFinite && prediction.isFinite && reference > 0 && prediction >= 0
    }

    public var isScorable: Bool { GlucosePair.isScorable(reference: reference, prediction: prediction) }
}

/// The Clarke error grid (Clarke et al., Diabetes Care 1987), with the project's exact rules.
///
/// Tested in this order, all inequalities inclusive, the first that holds gives the zone:
/// 1. A: `(x <= 70 and y <= 70)` or `4x <= 5y <= 6x` (within 20%).
/// 2. E: `(x <= 70 and y >= 180)` or `(x >= 180 and y <= 70)`.
/// 3. C: `(x >= 70 and y >= x + 110)` or `(130 <= x <= 180 and 5y <= 7x - 910)`.
/// 4. D: `70 <= y <= 180 and (x <= 70 or x >= 240)`.
/// 5. B: everything else.
/// `x` is the reference, `y` the prediction; line tests are exact (see `ExactPoint`).
public enum ClarkeErrorGrid {
    public static func zone(reference: Double, prediction: Double) -> ErrorGridZone? {
        ErrorGrid.clarke.zone(reference: reference, prediction: prediction)
    }

    static func zone(_ p: ExactPoint) -> ErrorGridZone {
        let x = p.x, y = p.y
        // sign(4x - 5y) <= 0 and sign(5y - 6x) <= 0
        if (x <= 70 && y <= 70) || (p.sign(4, -5, 0) <= 0 && p.sign(-6, 5, 0) <= 0) { return .a }
        if (x <= 70 && y >= 180) || (x >= 180 && y <= 70) { return .e }
        // y - x - 110 >= 0; 5y - 7x + 910 <= 0
        if (x >= 70 && p.sign(-1, 1, -110) >= 0) || (x >= 130 && x <= 180 && p.sign(-7, 5, 910) <= 0) {
            return .c
        }
        if y >= 70 && y <= 180 && (x <= 70 || x >= 240) { return .d }
        return .b
    }
}
