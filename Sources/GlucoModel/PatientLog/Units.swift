/// A blood glucose concentration. Stored in mg/dL; mmol/L converts with the molar
/// mass of glucose (180.1559 g/mol: 1 mmol/L = 18.01559 mg/dL), both ways. mmol/L read in is
/// rounded to a millionth of a mg/dL, far below any meter's resolution, so that a value an export
/// converted from whole mg/dL comes back whole: Tidepool stores every reading in mmol/L, and its
/// 400 mg/dL (22.2029919...) would otherwise read back as 399.99999999999994, below the sensor's
/// ceiling, and one reading in ten would differ in its last bit from the same reading in mg/dL.
public struct GlucoseValue: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public static let mgdLPerMmolL = 18.01559

    public let mgdL: Double

    public init(mgdL: Double) { self.mgdL = mgdL }
    public init(mmolL: Double) {
        let mgdL = mmolL * GlucoseValue.mgdLPerMmolL
        // An implausible magnitude (refused later) keeps the plain product.
        self.mgdL = abs(mgdL) < 1e9 ? (mgdL * 1e6).rounded() / 1e6 : mgdL
    }

    public static func mgdL(_ v: Double) -> GlucoseValue { GlucoseValue(mgdL: v) }
    public static func mmolL(_ v: Double) -> GlucoseValue { GlucoseValue(mmolL: v) }

    public var mmolL: Double { mgdL / GlucoseValue.mgdLPerMmolL }

    public static func < (a: GlucoseValue, b: GlucoseValue) -> Bool { a.mgdL < b.mgdL }
    public var description: String { "\(mgdL) mg/dL" }
}

/// Units of glucose concentration found in exports.
public enum GlucoseUnit: String, Sendable, Codable, CaseIterable {
    case mgdL = "mg/dL"
    case mmolL = "mmol/L"

    public func value(_ number: Double) -> GlucoseValue {
        switch self {
        case .mgdL: return .mgdL(number)
        case .mmolL: return .mmolL(number)
        }
    }
}

/// An amount of insulin in international units (U).
public struct InsulinUnits: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let units: Double
    public init(_ units: Double) { self.units = units }
    public static func < (a: InsulinUnits, b: InsulinUnits) -> Bool { a.units < b.units }
    public var description: String { "\(units) U" }
}

/// A basal rate in units per hour.
public struct InsulinRate: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let unitsPerHour: Double
    public init(unitsPerHour: Double) { self.unitsPerHour = unitsPerHour }
    public static func < (a: InsulinRate, b: InsulinRate) -> Bool { a.unitsPerHour < b.unitsPerHour }
    public var description: String { "\(unitsPerHour) U/h" }
}

/// An amount of carbohydrate in grams. Spanish practice counts "rations" of 10 g.
public struct Carbohydrate: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public static let gramsPerRation = 10.0

    public let grams: Double
    public init(grams: Double) { self.grams = grams }
    public init(rations: Double) { self.grams = rations * Carbohydrate.gramsPerRation }

    public var rations: Double { grams / Carbohydrate.gramsPerRation }
    public static func < (a: Carbohydrate, b: Carbohydrate) -> Bool { a.grams < b.grams }
    public var description: String { "\(grams) g" }
}
