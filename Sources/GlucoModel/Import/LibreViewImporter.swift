import Foundation

/// Reads a LibreView CSV export (FreeStyle Libre; mg/dL or mmol/L account).
///
/// Line 1 is a title line (`Glucose Data,Generated on,...`, which may name the patient: it is
/// never read), line 2 the header. Columns are found by name. Record types:
/// - 0 historic (15-min) and 1 scan glucose -> CGM readings. **Both are kept**: they are
///   different measurements (a scan is the current value when the patient scanned; historic is
///   the stored 15-min series), so they overlap in time but are not duplicates. A scan and a
///   historic row with the same value within 30 s are merged as a duplicate (counted).
/// - 2 strip glucose -> finger stick. 3 ketone, 6 notes/events and other types -> `otherRecords`.
/// - 4 insulin: `Rapid-Acting Insulin (units)` (or the sum of `Meal`/`Correction`/`User Change
///   Insulin`) -> `Bolus`; `Long-Acting Insulin (units)` -> `BasalInjection`.
/// - 5 food: `Carbohydrates (grams)`, or `Carbohydrates (servings)` read as 10 g rations (adjusted).
///
/// Dates are `MM-DD-YYYY hh:mm AM` (US locale), `DD-MM-YYYY HH:mm` or `DD-MM-YYYY hh:mm AM`. The
/// order is taken from `ImportOptions.dateOrder`, else from every row's date in a first pass: a
/// second field above 12 means month-first, a first field above 12 day-first (an AM/PM suffix
/// decides nothing: en-AU and en-IN accounts write `13-02-2026 08:00 AM`). A file where no date
/// decides, or where some rows prove day-first and others month-first, is an error asking for the
/// option; a row invalid in the chosen order is skipped with a warning.
/// Rows are not in time order in these exports: they are sorted (counted). LibreView writes every
/// row as wide as the header: a wider one has had its fields shifted by a comma (a decimal comma)
/// and is skipped as a malformed row, its insulin kept as skipped. (A file whose rows all end in
/// empty fields the header does not name is read at that width: `rowWidth`.)
public struct LibreViewImporter: PatientDataImporter {
    public static let formatName = "libreview-csv"

    public init() {}

    public static func recognizes(head: String) -> Bool {
        head.contains("Device Timestamp") && head.contains("Record Type")
    }

    struct Columns {
        var timestamp = -1, recordType = -1, historic = -1, scan = -1, strip = -1
        var rapid = -1, meal = -1, correction = -1, userChange = -1, long = -1
        var carbGrams = -1, carbServings = -1
        var unit = GlucoseUnit.mgdL
        var names: [String] = []
        /// How many fields a row has: the header's count, or more in a file whose rows all end in
        /// empty fields the header does not name (`rowWidth`).
        var width = 0
    }

    static func columns(_ header: [String]) -> Columns {
        var c = Columns()
        c.names = header
        for (i, name) in header.enumerated() {
            if name.hasPrefix("Historic Glucose") || name.hasPrefix("Scan Glucose") || name.hasPrefix("Strip Glucose") {
                c.unit = name.contains("mmol") ? .mmolL : .mgdL
            }
            switch name {
            case "Device Timestamp": c.timestamp = i
            case "Record Type": c.recordType = i
            case _ where name.hasPrefix("Historic Glucose"): c.historic = i
            case _ where name.hasPrefix("Scan Glucose"): c.scan = i
            case _ where name.hasPrefix("Strip Glucose"): c.strip = i
            case "Rapid-Acting Insulin (units)": c.rapid = i
            case "Meal Insulin (units)": c.meal = i
            case "Correction Insulin (units)": c.correction = i
            case "User Change Insulin (units)": c.userChange = i
            case "Long-Acting Insulin (units)": c.long = i
            case "Carbohydrates (grams)": c.carbGrams = i
            case "Carbohydrates (servings)": c.carbServings = i
            default: break
            }
        }
        return c
    }

    /// Finds the header (line 1 or 2) and its columns.
    func header(_ reader: LineReader, _ b: PatientLogBuilder) throws -> (line: Int, columns: Columns) {
        for (number, text) in reader {
            if number > 3 { break }
            let fields = CSVRow(text).fields
            if fields.contains("Device Timestamp") {
                let c = Self.columns(fields)
                let missing = [("Device Timestamp", c.timestamp), ("Record Type", c.recordType)].filter { $0.1 < 0 }.map(\.0)
                if !missing.isEmpty { throw b.error(number, nil, "LibreView header lacks \(missing.joined(separator: ", "))") }
                return (number, c)
            }
        }
        throw b.error(2, nil, "no LibreView header; expected line 2 to start 'Device,Serial Number,Device Timestamp,Record Type,...'")
    }

    /// How many fields the file's rows have: the header's count, unless most of its first rows (more
    /// than half of up to 50) are wider by the same count of fields that are all empty (rows that
    /// end in commas the header does not have: a file written by another tool). A row wider than
    /// this has had its fields shifted by a comma.
    /// A row whose value and the field after it are both digits where LibreView leaves that field
    /// empty for the row's record type (Scan Glucose after a historic reading, Ketone after a strip
    /// reading, Notes after a long-acting dose...) is not counted: its comma is a decimal one, and
    /// a file of such rows (every reading written `5,6`) is not a padded file.
    static func rowWidth(_ reader: LineReader, headerLine: Int, _ c: Columns) -> Int {
        let header = c.names.count
        var lines = reader.makeIterator()
        var row = CSVRow()
        var padded: [Int: Int] = [:], seen = 0
        while seen < 50, let (number, bytes) = lines.nextBytes() {
            guard number > headerLine, !bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x2C }) else { continue }
            row.load(bytes)
            seen += 1
            if !row.unterminatedQuote, row.count > header, (header..<row.count).allSatisfy({ row.isEmpty($0) }), !mayBeSplit(row, c) {
                padded[row.count, default: 0] += 1
            }
        }
        return padded.first { 2 * $0.value > seen }?.key ?? header  // more than half: one width at most
    }

    /// Whether a row's value, for its record type, and the field after it are both digits, where
    /// the header puts a column after the value that LibreView leaves empty in such a row (or, after
    /// a meal or correction part, the next part: then the row is only not counted as padded).
    static func mayBeSplit(_ row: CSVRow, _ c: Columns) -> Bool {
        let values: [Int]
        switch row.text(c.recordType) {
        case "0": values = [c.historic]
        case "1": values = [c.scan]
        case "2": values = [c.strip]
        case "4", "5": values = [c.rapid, c.long, c.meal, c.correction]
        default: return false
        }
        let emptyAfter = ["Scan Glucose", "Non-numeric Rapid-Acting Insulin", "Ketone", "Non-numeric Food", "Notes",
                          "Correction Insulin", "User Change Insulin"]
        return values.contains { v in
            v >= 0 && v + 1 < c.names.count && emptyAfter.contains(where: c.names[v + 1].hasPrefix) && row.holdsDigits(v) && row.holdsDigits(v + 1)
        }
    }

    /// First pass over the date column: the order all rows together prove, or an error asking
    /// for the option (no row proves one, or rows prove both). Stops early only once both are proven.
    func detectOrder(_ reader: LineReader, headerLine: Int, column: Int, _ b: PatientLogBuilder) throws -> DateOrder {
        var evidence = DateOrderEvidence()
        var lines = reader.makeIterator()
        var row = CSVRow()
        while evidence.open, let (number, bytes) = lines.nextBytes() {
            guard number > headerLine else { continue }
            row.load(bytes)
            guard column < row.count, let d = TimestampParser.numericDate(bytes: row[column]) else { continue }
            evidence.add(d, line: number) { row.text(column) }
        }
        return try evidence.order(column: "Device Timestamp") { b.error(nil, "Device Timestamp", $0) }
    }

    /// The insulin records an insulin row (record type 4 or 5) holds: a bolus when a rapid-acting,
    /// meal or correction amount is written, a basal injection when a long-acting one is.
    static func insulinKinds(_ row: CSVRow, _ c: Columns) -> [RecordKind] {
        let type = row.text(c.recordType)
        guard type == "4" || type == "5" else { return [] }
        var kinds: [RecordKind] = []
        if [c.rapid, c.meal, c.correction].contains(where: { !row.isEmpty($0) }) { kinds.append(.bolus) }
        if !row.isEmpty(c.long) { kinds.append(.basalInjection) }
        return kinds
    }

    /// The insulin records a malformed row (an unclosed quote, a field too many) may hold. When its
    /// record type may read 4 or 5 (`CSVRow.mayRead`: at its own place when that holds a record
    /// type, else at any place a comma too many may have moved it to, or in any piece when the
    /// quote took it): a bolus when a rapid-acting, meal or correction amount may be written at
    /// one of its places (`CSVRow.places`) or was lost to the quote, a basal injection likewise
    /// for long-acting.
    static func insulinKinds(malformed row: CSVRow, _ c: Columns) -> [RecordKind] {
        let header = c.width
        let types = (0...6).map(String.init)
        guard ["4", "5"].contains(where: { row.mayRead(c.recordType, $0, known: types, header: header) }) else { return [] }
        let mayHold = { (i: Int) in i >= 0 && row.places(of: i, header: header).contains { !(row.isIntact($0) && row.isEmpty($0)) } }
        var kinds: [RecordKind] = []
        if [c.rapid, c.meal, c.correction].contains(where: mayHold) { kinds.append(.bolus) }
        if mayHold(c.long) { kinds.append(.basalInjection) }
        return kinds
    }

    public func importFile(at url: URL, options: ImportOptions) throws -> ImportResult {
        let reader = LineReader(url: url)
        try reader.checkReadable()
        var b = PatientLogBuilder(file: url.lastPathComponent, options: options, duplicates: .uploadWindow)
        let found = try header(reader, b), headerLine = found.line
        var c = found.columns
        c.width = Self.rowWidth(reader, headerLine: headerLine, c)
        let order = try options.dateOrder ?? detectOrder(reader, headerLine: headerLine, column: c.timestamp, b)
        let glucoseName = { (i: Int) in i >= 0 && i < c.names.count ? c.names[i] : "glucose" }
        var lines = reader.makeIterator()
        var row = CSVRow()
        while let (number, bytes) = lines.nextBytes() {
            guard number > headerLine, !bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x2C }) else { continue }
            b.summary.rowsRead += 1
            row.load(bytes)
            let mark = b.skipMark
            if b.skipCutLastRow(row, header: c.names.count, endedInsideLine: lines.endedInsideLine, line: number) {
                // A cut inside an amount still shows a dose there.
                b.noteCutInsulin(PatientLogBuilder.isWhole(c.recordType, of: row) ? Self.insulinKinds(row, c) : [], row: row,
                                 field: c.timestamp, since: mark,
                                 parse: { TimestampParser.numericDate(bytes: $0)?.local(order).map { WrittenTimestamp(local: $0, utcOffset: nil) } },
                                 at: b.location(number))
                continue
            }
            if row.unterminatedQuote {
                b.skip("unterminated quote", line: number, field: nil, "a quoted field is not closed; expected a closing '\"'")
                b.noteMalformedInsulin(Self.insulinKinds(malformed: row, c), line: number)
                continue
            }
            // LibreView writes every row as wide as its header: a wider one was edited, and a comma
            // (a decimal comma, `1,5` U or `5,6` mmol/L) has shifted its fields.
            if row.count > c.width {
                let expected = c.width == c.names.count ? "the header has \(c.width)" : "the file's rows have \(c.width)"
                b.skipWideRow(fields: row.count, expected: expected, line: number, insulin: Self.insulinKinds(malformed: row, c))
                continue
            }
            let type = row.text(c.recordType)
            let insulin = Self.insulinKinds(row, c)
            // Read only for an insulin row (a String per field: not for every reading).
            let amounts = insulin.isEmpty ? [] : [c.rapid, c.meal, c.correction, c.long].map { row.isEmpty($0) ? nil : row.text($0) }
            guard let written = TimestampParser.numericDate(bytes: row[c.timestamp]), let local = written.local(order) else {
                let shape = order == .monthDayYear ? "MM-DD-YYYY hh:mm AM" : "DD-MM-YYYY HH:mm"
                b.skip("bad timestamp", line: number, field: "Device Timestamp", "'\(row.text(c.timestamp).prefix(40))' is not a date; expected \(shape)")
                b.noteUndatedInsulin(insulin, amounts: amounts, at: b.location(number, "Device Timestamp"))
                continue
            }
            let time = b.instant(local)
            guard b.acceptTime(time, line: number, field: "Device Timestamp", insulin: insulin, amounts: amounts) else { continue }
            let at = b.location(number, "Device Timestamp")
            switch type {
            case "0", "1", "2":
                let column = type == "0" ? c.historic : type == "1" ? c.scan : c.strip
                let source: GlucoseSource = type == "2" ? .fingerStick : .cgm
                if let cens = PatientLogBuilder.censoring(bytes: row[column]) {
                    b.addCensored(cens, time: time, source: source, at: at)
                } else if row.isEmpty(column) {
                    b.skip("empty glucose value", line: number, field: glucoseName(column),
                           "record type \(type) has no glucose value; expected \(c.unit.rawValue)")
                } else if case let v = row.number(column),
                          let g = b.glucose(v, text: v == nil ? row.text(column) : "", unit: c.unit,
                                            line: number, field: glucoseName(column)) {
                    b.add(GlucoseReading(time: time, value: g, source: source), at: at)
                }
            case "4", "5":
                readDoses(row, c, time: time, line: number, &b)
            case "3": b.addNotModelled("LibreView ketone")
            case "6": b.addNotModelled("LibreView notes/events")
            default:
                b.skip("unknown record type", line: number, field: "Record Type",
                       "'\(type.prefix(20))' is not a record type; expected 0-7")
            }
        }
        return try b.build()
    }

    /// Insulin and food cells of a type 4/5 row; a row with none of them is skipped with a warning.
    func readDoses(_ row: CSVRow, _ c: Columns, time: Date, line: Int, _ b: inout PatientLogBuilder) {
        var any = false
        let at = b.location(line, "Device Timestamp")
        func amount(_ i: Int, _ range: ClosedRange<Double>, _ unit: String, _ b: inout PatientLogBuilder) -> Double? {
            guard !row.isEmpty(i) else { return nil }
            any = true
            return b.value(row.number(i), text: row.text(i), in: range, unit: unit,
                           reason: "value out of range", line: line, field: c.names[i])
        }
        var mark = b.skipMark
        if let u = amount(c.rapid, ImportLimits.doseUnits, "U", &b) {
            b.add(Bolus(time: time, dose: InsulinUnits(u), kind: .rapid), at: at)
        } else if row.isEmpty(c.rapid) {
            // Meal, correction and user-change parts (the last may be negative); their total must be a dose.
            let most = ImportLimits.doseUnits.upperBound
            let parts = [c.meal, c.correction, c.userChange].compactMap { amount($0, -most...most, "U", &b) }
            let total = parts.reduce(0, +)
            if !parts.isEmpty, ImportLimits.doseUnits.contains(total) {
                b.add(Bolus(time: time, dose: InsulinUnits(total), kind: .rapid), at: at)
            } else if total > ImportLimits.doseUnits.upperBound {
                b.skip("value out of range", line: line, field: "Meal Insulin (units)",
                       "the bolus's parts add up to \(PatientLogBuilder.format(total)) U, outside the plausible range 0.001...100 for one bolus; skipped")
            }
        }
        b.noteSkippedInsulin(.bolus, time: time, since: mark, amounts: [row.isEmpty(c.rapid) ? nil : row.text(c.rapid)],
                             at: b.location(line, row.isEmpty(c.rapid) ? "Meal Insulin (units)" : "Rapid-Acting Insulin (units)"))
        mark = b.skipMark
        if let u = amount(c.long, ImportLimits.doseUnits, "U", &b) {
            b.add(BasalInjection(time: time, dose: InsulinUnits(u)), at: at)
        }
        b.noteSkippedInsulin(.basalInjection, time: time, since: mark, amounts: [row.isEmpty(c.long) ? nil : row.text(c.long)],
                             at: b.location(line, "Long-Acting Insulin (units)"))
        if let g = amount(c.carbGrams, ImportLimits.carbGrams, "g", &b) {
            b.add(CarbIntake(time: time, amount: Carbohydrate(grams: g)), at: at)
        } else if row.isEmpty(c.carbGrams), let r = amount(c.carbServings, ImportLimits.carbRations, "servings", &b) {
            b.summary.adjust("carbohydrate servings read as 10 g rations")
            b.add(CarbIntake(time: time, amount: Carbohydrate(rations: r)), at: at)
        }
        if !any {
            b.skip("no value", line: line, field: nil, "insulin/food row has no amount; expected units or grams")
        }
    }
}
