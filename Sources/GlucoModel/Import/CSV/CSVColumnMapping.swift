import Foundation

/// Which column of another tool's CSV export holds which field, for `MappedCSVImporter`
/// (`--format csv --columns time=date,glucose=CGM,bolus=insulin,carbs=carbs,patient=id`).
///
/// Fields: `time` (required), `clock` (the time of day, for exports that write the date and the
/// time in two columns: CareLink, xDrip+), `patient`, `glucose` (CGM readings), `finger`
/// (finger-stick glucose), `bolus` (U), `carbs` (in `carbUnit`), `basal` (a basal rate in U/h),
/// `basal_injection` (long-acting insulin injected, U: a person on pens),
/// `bolus_extended` (U spread over `bolus_minutes`: a square or dual-wave bolus's extended part),
/// `bolus_type` (what the `bolus` column's units are: normal, square over `bolus_minutes`, or a
/// dual-wave bolus's part, CareLink's layout), `temp_basal` (a temporary basal in U/h, 0 =
/// suspended, for `temp_basal_minutes`; 0 minutes ends the one running), `temp_basal_type` (whether
/// `temp_basal` is U/h or a percentage of the `basal` rate); at least one of the measurement
/// fields. A field that qualifies another comes with it (`requirements`).
/// Glucose and finger sticks are in `glucoseUnit` (mg/dL unless told).
public struct CSVColumnMapping: Sendable, Hashable {
    /// A field the toolkit reads from a mapped column.
    public enum Field: String, CaseIterable, Sendable, Comparable {
        case time, clock, patient, glucose, finger, bolus, carbs, basal
        case basalInjection = "basal_injection"
        case bolusExtended = "bolus_extended", bolusMinutes = "bolus_minutes", bolusType = "bolus_type"
        case tempBasal = "temp_basal", tempBasalMinutes = "temp_basal_minutes", tempBasalType = "temp_basal_type"

        public static func < (a: Field, b: Field) -> Bool {
            allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
        }

        /// What the column holds, for messages.
        var holds: String {
            switch self {
            case .time: return "the time of the row"
            case .clock: return "the time of day of the row, whose date is in the time column"
            case .patient: return "a pseudonymous patient id"
            case .glucose: return "CGM glucose"
            case .finger: return "finger-stick glucose"
            case .bolus: return "bolus insulin in U"
            case .carbs: return "carbohydrates"
            case .basal: return "a basal rate in U/h"
            case .basalInjection: return "long-acting insulin injected, in U"
            case .bolusExtended: return "the extended part of a bolus in U"
            case .bolusMinutes: return "how long the extended part of a bolus runs"
            case .tempBasal: return "a temporary basal rate in U/h"
            case .tempBasalMinutes: return "how long a temporary basal runs"
            case .bolusType: return "the kind of bolus: normal, square, or a dual-wave bolus's part"
            case .tempBasalType: return "whether a temporary basal is in U/h or a percentage"
            }
        }
    }

    /// The unit of the `carbs` column: grams, or portions of a fixed weight (`--carb-units`).
    public enum CarbUnit: String, CaseIterable, Sendable, Hashable {
        case grams = "g"
        /// Rations of 10 g (Spain's raciones; the KE and CP of other countries).
        case rations
        /// Exchanges of 15 g (the United States' carb choices).
        case exchanges

        /// Grams per unit.
        public var grams: Double {
            switch self {
            case .grams: return 1
            case .rations: return Carbohydrate.gramsPerRation
            case .exchanges: return 15
            }
        }

        /// The unit `name` names (letter case aside; `grams`, `ration` and `exchange` too), or nil.
        public init?(name: String) {
            switch name.lowercased() {
            case "g", "grams", "gram": self = .grams
            case "rations", "ration": self = .rations
            case "exchanges", "exchange": self = .exchanges
            default: return nil
            }
        }

        /// What `--carb-units` takes, for messages.
        public static let expected = "g, rations (10 g) or exchanges (15 g)"
    }

    /// Why a mapping is refused; the message says what is expected.
    public struct Problem: Error, Hashable, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Column name per field.
    public private(set) var columns: [Field: String]
    /// The unit of the `glucose` and `finger` columns.
    public var glucoseUnit: GlucoseUnit
    /// The unit of the `carbs` column.
    public var carbUnit: CarbUnit

    /// Fields whose columns are measurements (a mapping needs one of them).
    public static let measurements: [Field] = [.glucose, .finger, .bolus, .carbs, .basal, .basalInjection, .bolusExtended, .tempBasal]

    /// The fields each field needs beside it (a measurement with a duration, a type with what it types).
    public static let requirements: [(field: Field, needs: [Field])] = [
        (.bolusExtended, [.bolusMinutes]), (.bolusType, [.bolus, .bolusMinutes]), (.tempBasal, [.tempBasalMinutes]),
        (.tempBasalMinutes, [.tempBasal]), (.tempBasalType, [.tempBasal]),
    ]

    /// - Throws: `Problem` when `time` or every measurement is missing, a column name is empty,
    ///   one column is mapped to two fields, or a measurement with a duration comes without it (or the reverse).
    public init(columns: [Field: String], glucoseUnit: GlucoseUnit = .mgdL, carbUnit: CarbUnit = .grams) throws(Problem) {
        var trimmed: [Field: String] = [:]
        for (field, name) in columns {
            let t = name.trimmingCharacters(in: .whitespaces)
            guard !t.isEmpty else { throw Problem(description: "'\(field.rawValue)' names no column; expected \(field.rawValue)=COLUMN") }
            trimmed[field] = t
        }
        guard trimmed[.time] != nil else {
            throw Problem(description: "no time column; expected time=COLUMN (e.g. time=date)")
        }
        guard Self.measurements.contains(where: { trimmed[$0] != nil }) else {
            throw Problem(description: "no measurement column; map at least one of "
                          + Self.measurements.map(\.rawValue).joined(separator: ", ") + " (e.g. glucose=CGM)")
        }
        for (given, needs) in Self.requirements where trimmed[given] != nil {
            if let missing = needs.first(where: { trimmed[$0] == nil }) {
                throw Problem(description: "'\(given.rawValue)' needs '\(missing.rawValue)' (\(missing.holds)); expected \(missing.rawValue)=COLUMN too")
            }
        }
        if trimmed[.bolusType] != nil, trimmed[.bolusExtended] != nil {
            throw Problem(description: "'bolus_type' and 'bolus_extended' are two layouts of an extended bolus (a part per row, "
                          + "or both parts on one row); map one of them")
        }
        if trimmed[.bolusMinutes] != nil, trimmed[.bolusExtended] == nil, trimmed[.bolusType] == nil {
            throw Problem(description: "'bolus_minutes' goes with 'bolus_extended' or 'bolus_type' (what the duration is of); "
                          + "expected bolus_extended=COLUMN or bolus_type=COLUMN too")
        }
        let byName = Dictionary(grouping: trimmed.keys.sorted()) { trimmed[$0]! }
        if let (name, fields) = byName.sorted(by: { $0.key < $1.key }).first(where: { $0.value.count > 1 }) {
            throw Problem(description: "column '\(name)' is mapped to \(fields.map(\.rawValue).joined(separator: " and ")); a column holds one field")
        }
        self.columns = trimmed
        self.glucoseUnit = glucoseUnit
        self.carbUnit = carbUnit
    }

    /// Reads the command-line form `field=column,field=column,...` (spaces around names ignored;
    /// a column name cannot hold `,`).
    /// - Throws: `Problem` naming the part that is wrong.
    public init(parsing text: String, glucoseUnit: GlucoseUnit = .mgdL, carbUnit: CarbUnit = .grams) throws(Problem) {
        var columns: [Field: String] = [:]
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = pair[0].trimmingCharacters(in: .whitespaces)
            guard pair.count == 2 else {
                throw Problem(description: "'\(part)' is not field=column; expected e.g. time=date,glucose=CGM")
            }
            guard let field = Field(rawValue: name.lowercased()) else {
                throw Problem(description: "unknown field '\(name)'; expected one of \(Field.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            guard columns[field] == nil else { throw Problem(description: "field '\(field.rawValue)' is given twice") }
            columns[field] = String(pair[1])
        }
        try self.init(columns: columns, glucoseUnit: glucoseUnit, carbUnit: carbUnit)
    }

    /// The command-line form, fields in `Field` order: `time=date,patient=id,glucose=CGM`.
    public var text: String {
        columns.keys.sorted().map { "\($0.rawValue)=\(columns[$0]!)" }.joined(separator: ",")
    }

    public subscript(field: Field) -> String? { columns[field] }

    /// Each mapped field's position in `header`: the column of exactly that name, else the one
    /// column whose name matches ignoring case.
    /// - Returns: the positions, or the fields whose column is missing (or ambiguous) with why.
    public func positions(in header: [String]) -> Result<[Field: Int], Problem> {
        var found: [Field: Int] = [:]
        var missing: [String] = []
        for field in columns.keys.sorted() {
            let name = columns[field]!
            if let i = header.firstIndex(of: name), header.lastIndex(of: name) == i {
                found[field] = i
                continue
            }
            let folded = header.indices.filter { header[$0].lowercased() == name.lowercased() }
            if header.contains(name) || folded.count > 1 {
                missing.append("'\(name)' (\(field.rawValue)) appears more than once")
            } else if let i = folded.first {
                found[field] = i
            } else {
                missing.append("'\(name)' (\(field.rawValue))")
            }
        }
        guard missing.isEmpty else {
            // None found: the line is likely no header but a preamble above it, which may name the
            // person (Glooko's first line): not quoted (hunt AI, stop 57). One field holding semicolons
            // is a file separated by them.
            if found.isEmpty {
                let why = header.count == 1 && header[0].contains(";")
                    ? "its fields are separated by semicolons, and the csv format reads commas: save the file comma-separated"
                    : "is a preamble above the header (a name, a device, a date range)? Start such lines with '#' or remove them"
                return .failure(Problem(description: "the first line read as the header has none of the mapped columns "
                                        + "\(missing.joined(separator: ", ")): \(why)"))
            }
            let shown = header.prefix(30).map { "'\($0)'" }.joined(separator: ", ") + (header.count > 30 ? ", ..." : "")
            return .failure(Problem(description: "the header has no column \(missing.joined(separator: ", ")); its columns are \(shown)"))
        }
        return .success(found)
    }
}
