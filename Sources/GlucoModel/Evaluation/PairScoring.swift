import Foundation

/// The result of scoring a CSV of (reference, prediction) pairs.
public struct PairScoreSummary: Sendable {
    public var file: String
    /// Data rows read (header and blank lines excluded).
    public var rows = 0
    /// Rows with an empty reference or prediction: a value not known (`predict` leaves the
    /// reference empty until it is measured); unscored without a warning.
    public var missingRows = 0
    /// Rows whose reference or prediction text was not a number (each also reported as a warning).
    public var unparseableRows = 0
    /// Rows with a value outside the grids' domain or beyond any glucose a device reads
    /// (`PairScoring.plausibleUpperMgdL`; each also reported as a warning).
    public var implausibleRows = 0
    public var clarke = ZoneCounts(grid: .clarke)
    public var parkesType1 = ZoneCounts(grid: .parkesType1)
    public var parkesType2 = ZoneCounts(grid: .parkesType2)
    /// In mg/dL, whatever unit the file is in.
    public var accuracy = AccuracyMetrics()
    /// The unit `report` prints RMSE, MAE and bias in.
    public var units = GlucoseUnit.mgdL

    public init(file: String) { self.file = file }

    /// The text the `score` command prints: RMSE, MAE and bias in `units` (two decimals in mg/dL,
    /// three in mmol/L), MARD in percent (the same in both units).
    public var report: String {
        var lines = ["\(file): \(Plural.of(rows, "row")), \(clarke.scored) scored, \(clarke.unscored) unscored"
            + " (\(missingRows) with a missing value, \(unparseableRows) with unparseable numbers, \(implausibleRows) with implausible values)"]
        for counts in [clarke, parkesType1, parkesType2] { lines.append(counts.summaryLine) }
        func g(_ v: Double) -> String { formatNumber(units.convert(v), decimals: units.decimals(mgdL: 2)) + " " + units.rawValue }
        lines.append("RMSE \(g(accuracy.rmse))  MAE \(g(accuracy.mae))"
            + "  MARD \(formatPercent(accuracy.mard))  bias \(g(accuracy.meanBias))"
            + " (\(Plural.of(accuracy.count, "scored pair")))")
        return lines.joined(separator: "\n")
    }
}

/// Scores a CSV of pairs on the three grids and writes one output row per input row.
///
/// Input: a header naming at least `reference` and `prediction` (any order, case-insensitive,
/// other columns ignored), then one pair per line in the unit given (mg/dL unless told); columns
/// named with their unit, as `predict` writes them (`reference_mgdl`, `prediction_mmoll`), are
/// read in that unit and may stand in for the plain names. An empty field is a missing value;
/// a field that is not a number makes the row unscored with a warning naming file:line and
/// column; a row without enough fields likewise, and a row with too many (a value beyond the
/// header, or wider than most of the file's rows: a decimal comma, `100,5` read as 100 and 5). Output: `reference,prediction,clarke,parkes_type1,parkes_type2`,
/// the two values copied as written, zones empty for unscored rows.
public enum PairScoring {
    public enum ScoringError: Error, CustomStringConvertible {
        case missingColumns(file: String, missing: [String], header: String)
        case ambiguousColumns(file: String, name: String, found: [String])
        case empty(file: String)
        /// Most of a column read in mg/dL (at least 3 values, more than half) is below
        /// `mmolLooking`, as glucose in mmol/L is: the importers' rule for a unit mix-up.
        case otherUnit(file: String, column: String, below: Int, of: Int)

        public var description: String {
            switch self {
            case let .missingColumns(file, missing, header):
                return "\(file):1: the header must name the columns \(missing.joined(separator: " and ")) "
                    + "(found: \(header)); expected e.g. 'reference,prediction'"
            case let .ambiguousColumns(file, name, found):
                return "\(file):1: more than one \(name) column (\(found.joined(separator: ", "))); keep one"
            case let .empty(file):
                return "\(file): the file is empty; expected a header 'reference,prediction' and rows of mg/dL values"
            case let .otherUnit(file, column, below, total):
                return "\(file): \(below) of \(total) \(column) values are below \(Int(PairScoring.mmolLooking)), as glucose in mmol/L is, "
                    + "but the column is read in mg/dL: give --units mmol/L (or name the column \(column)_mmoll); nothing scored"
            }
        }
    }

    public static let outputHeader = "reference,prediction,clarke,parkes_type1,parkes_type2"
    /// The values scored (mg/dL): a reference above 0 and a prediction of 0 or more (the grids'
    /// domain), neither beyond the importers' 1000 mg/dL (`ImportLimits.glucoseMgdL`). Beyond it a
    /// value is a unit mix-up or a fault, and 1e308 would overflow the grids' line tests.
    public static let plausibleUpperMgdL = ImportLimits.glucoseMgdL.upperBound
    /// Below this a value read in mg/dL looks like mmol/L (no sensor reads under 39 mg/dL; the
    /// importers' rule, `MappedCSVImporter`): most of a column so is refused (hunt AD, stop 56:
    /// pairs in mmol/L without `--units` scored as 5.5 mg/dL, Clarke A 100%).
    public static let mmolLooking = 30.0

    /// Streams `input`, calling `writeLine` for each output line (header first) and `warning`
    /// for each bad row. Rows are split and parsed as UTF-8 bytes (`CSVRow`, reused from row to
    /// row); a `String` is made only for each output line and for messages.
    /// - Complexity: O(rows), constant memory.
    /// - Parameter units: the unit of columns named `reference` and `prediction`, and of the report.
    public static func score(csv input: URL, units: GlucoseUnit = .mgdL, writeLine: (String) -> Void,
                             warning: (ImportIssue) -> Void) throws -> PairScoreSummary {
        let reader = LineReader(url: input)
        try reader.checkReadable()
        var lines = reader.makeIterator()
        var summary = PairScoreSummary(file: input.path)
        summary.units = units
        var unitOf: (reference: GlucoseUnit, prediction: GlucoseUnit) = (units, units)
        var accuracy = AccuracyMetrics.Accumulator()
        var columns: (reference: Int, prediction: Int)? = nil
        var headerCount = 0
        // A file whose rows are all one width (an export) shows a decimal comma (`120,5` read as
        // 120 and 5) as a row a field wider, even where the field it adds at the end is empty.
        let rowWidth = reader.commonFieldCount { bytes, _ in bytes.allSatisfy { $0 == 32 || $0 == 9 || $0 == 44 } }
        var row = CSVRow(bytes: EmptyCollection())
        // Per column (reference, prediction): values read, and those that look like mmol/L in mg/dL.
        var values = [0, 0], mmolLike = [0, 0]
        var out: [UInt8] = []
        out.reserveCapacity(64)
        while let (number, bytes) = lines.nextBytes() {
            if bytes.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 44 }) { continue }
            guard let (ri, pi) = columns else {
                let text = String(decoding: bytes, as: UTF8.self)
                let names = CSVRow(text).fields.map { $0.lowercased() }
                func find(_ name: String) throws -> (Int, GlucoseUnit)? {
                    let forms = [(name, units)] + GlucoseUnit.allCases.map { (name + "_" + $0.columnSuffix, $0) }
                    let found = forms.compactMap { form in names.firstIndex(of: form.0).map { ($0, form.1, form.0) } }
                    guard found.count <= 1 else { throw ScoringError.ambiguousColumns(file: input.path, name: name, found: found.map(\.2)) }
                    return found.first.map { ($0.0, $0.1) }
                }
                let r = try find("reference"), p = try find("prediction")
                guard let r, let p else {
                    throw ScoringError.missingColumns(
                        file: input.path, missing: [r == nil ? "reference" : nil, p == nil ? "prediction" : nil].compactMap { $0 },
                        header: text)
                }
                columns = (r.0, p.0)
                headerCount = names.count
                unitOf = (r.1, p.1)
                writeLine(outputHeader)
                continue
            }
            summary.rows += 1
            row.load(bytes)
            var bad = false
            if let expected = row.tooWide(header: headerCount, commonWidth: rowWidth) {
                warning(ImportIssue(.warning, SourceLocation(file: input.path, line: number),
                                    "the row has \(row.count) fields; \(expected) (a decimal comma? quote values holding commas); row not scored"))
                bad = true
            }
            func read(_ index: Int, _ name: String) -> Double? {
                guard index < row.count else {
                    warning(ImportIssue(.warning, SourceLocation(file: input.path, line: number, field: name),
                                        "the row has \(row.count) fields, no \(name) column; row not scored"))
                    bad = true
                    return nil
                }
                if row.isEmpty(index) { return nil }
                if let v = row.double(index) { return v }
                warning(ImportIssue(.warning, SourceLocation(file: input.path, line: number, field: name),
                                    "'\(row.text(index))' is not a number; expected \(name == "reference" ? unitOf.reference.rawValue : unitOf.prediction.rawValue); row not scored"))
                bad = true
                return nil
            }
            let reference = bad ? nil : read(ri, "reference"), prediction = bad ? nil : read(pi, "prediction")
            if bad { summary.unparseableRows += 1 } else if reference == nil || prediction == nil { summary.missingRows += 1 }
            for (value, name, index, unit) in [(reference, "reference", ri, unitOf.reference),
                                               (prediction, "prediction", pi, unitOf.prediction)] where !bad {
                guard let value, case let mgdL = unit.mgdL(value),
                      !(name == "reference" ? mgdL > 0 : mgdL >= 0) || mgdL > plausibleUpperMgdL else { continue }
                let range = (name == "reference" ? "above 0" : "0 or more") + " and at most " + (unit == .mgdL ? "1000 mg/dL" : "55.5 mmol/L")
                warning(ImportIssue(.warning, SourceLocation(file: input.path, line: number, field: name),
                                    "\(row.text(index)) \(unit.rawValue) is not a glucose a device reads (expected \(range))"
                                    + (mgdL > plausibleUpperMgdL ? "; is the column in the other unit?" : "") + "; row not scored"))
                bad = true
                summary.implausibleRows += 1
            }
            for (i, (value, unit)) in [(reference, unitOf.reference), (prediction, unitOf.prediction)].enumerated() where !bad {
                guard let value, unit == .mgdL else { continue }
                values[i] += 1
                if value < mmolLooking { mmolLike[i] += 1 }
            }
            let pair = GlucosePair(reference: reference.map(unitOf.reference.mgdL) ?? .nan,
                                   prediction: prediction.map(unitOf.prediction.mgdL) ?? .nan)
            let zones = pair.isScorable && !bad
                ? (ErrorGrid.clarke.zone(pair), ErrorGrid.parkesType1.zone(pair), ErrorGrid.parkesType2.zone(pair))
                : (nil, nil, nil)
            summary.clarke.add(zones.0)
            summary.parkesType1.add(zones.1)
            summary.parkesType2.add(zones.2)
            accuracy.add(bad ? GlucosePair(reference: .nan, prediction: .nan) : pair)
            out.removeAll(keepingCapacity: true)
            appendCSVField(row[ri], to: &out)
            out.append(UInt8(ascii: ","))
            appendCSVField(row[pi], to: &out)
            for zone in [zones.0, zones.1, zones.2] {
                out.append(UInt8(ascii: ","))
                if let zone { out.append(contentsOf: zone.rawValue.utf8) }
            }
            writeLine(String(decoding: out, as: UTF8.self))
        }
        guard columns != nil else { throw ScoringError.empty(file: input.path) }
        for (i, name) in ["reference", "prediction"].enumerated() where values[i] >= 3 && 2 * mmolLike[i] > values[i] {
            throw ScoringError.otherUnit(file: input.path, column: name, below: mmolLike[i], of: values[i])
        }
        summary.accuracy = accuracy.result
        return summary
    }

    /// Appends a field for CSV output, quoted (quotes doubled) when it holds a comma, quote or line break.
    static func appendCSVField(_ field: ArraySlice<UInt8>, to out: inout [UInt8]) {
        guard field.contains(where: { $0 == 44 || $0 == 34 || $0 == 10 || $0 == 13 }) else {
            out.append(contentsOf: field)
            return
        }
        out.append(34)
        for b in field {
            if b == 34 { out.append(34) }
            out.append(b)
        }
        out.append(34)
    }
}
