import Foundation

/// Reads a Dexcom Clarity CSV export (mg/dL or mmol/L account).
///
/// Columns are found by name in the header (`Timestamp (YYYY-MM-DDThh:mm:ss)`, `Event Type`,
/// `Event Subtype`, `Glucose Value (mg/dL)` or `Glucose Value (mmol/L)`, `Insulin Value (u)`,
/// `Carb Value (grams)`); the glucose unit is the one that column names. Rows:
/// - no timestamp (`FirstName`, `LastName`, `DateOfBirth`, `Device`, `Alert` ...): patient/device
///   preamble, counted as skipped. The `Patient Info` column holds names: it is never read into
///   any output (its values are only used to keep them out of a patient id derived from the file name).
/// - `EGV` -> CGM reading; `Low`/`High` -> censored reading at 40/400 mg/dL (counted as adjusted).
/// - `Calibration` -> finger stick. `Insulin` with subtype `Fast-Acting` -> `Bolus` (rapid),
///   `Long-Acting` -> `BasalInjection`. `Carbs` -> `CarbIntake`. Other event types -> `otherRecords`.
/// Timestamps are local without offset, read in `ImportOptions.timeZone` (see `LocalTimeResolver`).
/// Clarity writes EGV and calibration rows as wide as the header and other rows a field short (no
/// transmitter id), its values quoted or free of commas: a wider row with a value beyond the header
/// or its event type out of place, or a reading, dose or meal with a value in the field after its
/// own (which Clarity leaves empty), has had its fields shifted by a comma (a decimal comma) and is
/// skipped as a malformed row, its insulin kept as skipped.
public struct DexcomClarityImporter: PatientDataImporter {
    public static let formatName = "dexcom-csv"

    public init() {}

    public static func recognizes(head: String) -> Bool {
        guard let first = head.split(whereSeparator: \.isNewline).first else { return false }
        return first.contains("Timestamp (YYYY-MM-DDThh:mm:ss)") && first.contains("Event Type")
            && first.contains("Glucose Value (")
    }

    struct Columns {
        var timestamp = -1, eventType = -1, subtype = -1, patientInfo = -1
        var glucose = -1, insulin = -1, carbs = -1
        var unit = GlucoseUnit.mgdL
        var names: [String] = []
        var count: Int { names.count }
        /// The columns Clarity leaves empty after a reading's, dose's and meal's value (`Insulin
        /// Value`, `Carb Value`, `Duration`) when the header has them there, else -1 (`skipShifted`).
        var afterGlucose = -1, afterInsulin = -1, afterCarbs = -1
    }

    static let timestampField = "Timestamp (YYYY-MM-DDThh:mm:ss)"

    static func columns(_ header: [String], builder: PatientLogBuilder, line: Int) throws -> Columns {
        var c = Columns()
        c.names = header
        for (i, name) in header.enumerated() {
            switch name {
            case _ where name.hasPrefix("Timestamp"): c.timestamp = i
            case "Event Type": c.eventType = i
            case "Event Subtype": c.subtype = i
            case "Patient Info": c.patientInfo = i
            case "Glucose Value (mg/dL)": c.glucose = i; c.unit = .mgdL
            case "Glucose Value (mmol/L)": c.glucose = i; c.unit = .mmolL
            case _ where name.hasPrefix("Insulin Value"): c.insulin = i
            case _ where name.hasPrefix("Carb Value"): c.carbs = i
            default: break
            }
        }
        let next = { (i: Int, prefix: String) in i >= 0 && i + 1 < header.count && header[i + 1].hasPrefix(prefix) ? i + 1 : -1 }
        c.afterGlucose = next(c.glucose, "Insulin Value")
        c.afterInsulin = next(c.insulin, "Carb Value")
        c.afterCarbs = next(c.carbs, "Duration")
        let missing = [("Timestamp (YYYY-MM-DDThh:mm:ss)", c.timestamp), ("Event Type", c.eventType),
                       ("Glucose Value (mg/dL) or Glucose Value (mmol/L)", c.glucose)].filter { $0.1 < 0 }.map(\.0)
        if !missing.isEmpty {
            throw builder.error(line, nil, "not a Dexcom Clarity header: missing column(s) \(missing.joined(separator: ", "))")
        }
        return c
    }

    /// The event types of readings and doses (the others are patient, device and alert rows).
    static let recordTypes = ["EGV", "Calibration", "Insulin", "Carbs"]

    /// Skips a reading, dose or meal row whose value (field `i`) is followed by a column Clarity
    /// leaves empty in such rows (`next`: `Columns.afterGlucose`, `afterInsulin`, `afterCarbs`) that
    /// holds something (`true`), as a malformed row: Clarity writes dose and meal rows a field short
    /// of the header, so a decimal comma (`4,35` U: 4 U, and 35 g) shifts the row without widening it.
    static func skipShifted(_ row: CSVRow, value i: Int, next: Int, _ c: Columns, line: Int, _ b: inout PatientLogBuilder) -> Bool {
        guard next >= 0, !row.isEmpty(next) else { return false }
        b.skip("malformed row", line: line, field: c.names[next],
               "\(row.text(c.eventType)) row holds a value in \(c.names[next]), '\(row.text(next).prefix(20))': a comma (a decimal comma in "
               + "'\(row.text(i).prefix(20)),\(row.text(next).prefix(20))'?) may have shifted its fields; quote values holding commas")
        return true
    }

    /// The insulin record a row whose fields are out of their places may hold: a piece reads
    /// `Insulin` (a long-acting dose when a piece reads so, else a bolus).
    static func insulinKinds(pieces row: CSVRow) -> [RecordKind] {
        let pieces = row.pieces
        return pieces.contains("Insulin") ? [pieces.contains("Long-Acting") ? .basalInjection : .bolus] : []
    }

    /// Whether a field is a word (letters, spaces, `-`), as event types are.
    static func isWord(_ field: ArraySlice<UInt8>) -> Bool {
        !field.isEmpty && field.allSatisfy { ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A || $0 == 0x20 || $0 == 0x2D }
    }

    /// The insulin record a row holds: a dose of unknown subtype counts as a bolus.
    static func insulinKinds(_ row: CSVRow, _ c: Columns) -> [RecordKind] {
        row.equals(c.eventType, "Insulin") ? [row.equals(c.subtype, "Long-Acting") ? .basalInjection : .bolus] : []
    }

    /// The insulin record a malformed row (an unclosed quote, a field too many) may hold: its
    /// event type may read `Insulin` (`CSVRow.mayRead`: at its own place when that holds an event
    /// type, else at any place a comma too many may have moved it to, or in any piece when the
    /// quote took it); a long-acting dose when its subtype may read so, else a bolus, as for a
    /// whole row.
    static func insulinKinds(malformed row: CSVRow, _ c: Columns) -> [RecordKind] {
        guard row.mayRead(c.eventType, "Insulin", known: recordTypes, header: c.count) else { return [] }
        return [row.mayRead(c.subtype, "Long-Acting", known: ["Fast-Acting", "Long-Acting"], header: c.count) ? .basalInjection : .bolus]
    }

    public func importFile(at url: URL, options: ImportOptions) throws -> ImportResult {
        let reader = LineReader(url: url)
        try reader.checkReadable()
        var b = PatientLogBuilder(file: url.lastPathComponent, options: options, duplicates: .uploadWindow)
        var cols: Columns?
        var scrub: [String] = []
        let glucoseField = { (c: Columns) in c.unit == .mgdL ? "Glucose Value (mg/dL)" : "Glucose Value (mmol/L)" }
        var lines = reader.makeIterator()
        var row = CSVRow()
        while let (number, bytes) = lines.nextBytes() {
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x2C }) { continue }
            row.load(bytes)
            guard let c = cols else {
                cols = try Self.columns(row.fields, builder: b, line: number)
                continue
            }
            b.summary.rowsRead += 1
            let mark = b.skipMark
            if b.skipCutLastRow(row, header: c.count, endedInsideLine: lines.endedInsideLine, line: number) {
                if PatientLogBuilder.isWhole(c.eventType, of: row) {
                    b.noteCutInsulin(Self.insulinKinds(row, c), row: row, field: c.timestamp, since: mark,
                                     parse: { TimestampParser.iso8601(bytes: $0) }, at: b.location(number))
                }
                continue
            }
            if row.unterminatedQuote {
                b.skip("unterminated quote", line: number, field: nil, "a quoted field is not closed; expected a closing '\"'")
                b.noteMalformedInsulin(Self.insulinKinds(malformed: row, c), line: number)
                continue
            }
            // Clarity writes no row wider than its header: in a wider one a comma has shifted the
            // fields, when a field beyond the header holds something or the event type is not in its
            // place (a comma in the index). A row that only ends in empty fields (a file whose rows
            // end in commas) is read; a decimal comma after the event type is found by `skipShifted`.
            if row.count > c.count, (c.count..<row.count).contains(where: { !row.isEmpty($0) }) || !Self.isWord(row[c.eventType]) {
                b.skipWideRow(fields: row.count, expected: "the header has \(c.count)", line: number, insulin: Self.insulinKinds(malformed: row, c))
                continue
            }
            if row.isEmpty(c.timestamp) {
                let type = row.text(c.eventType)
                if c.patientInfo >= 0, type == "FirstName" || type == "LastName" {
                    scrub.append(row.text(c.patientInfo))
                }
                if type.isEmpty {
                    b.skip("no timestamp", line: number, field: Self.timestampField,
                           "row has neither a timestamp nor an event type; expected YYYY-MM-DDThh:mm:ss")
                } else if Self.recordTypes.contains(type) {
                    // A reading or dose without its time (a hand-edited file), not a patient or device row.
                    b.skip("no timestamp", line: number, field: Self.timestampField,
                           "\(type) row has no timestamp; expected YYYY-MM-DDThh:mm:ss")
                    b.noteUndatedInsulin(Self.insulinKinds(row, c), amounts: [row.text(c.insulin)], at: b.location(number, Self.timestampField))
                } else {
                    b.skipQuietly("patient/device/alert info row (no timestamp)")
                }
                continue
            }
            let insulin = Self.insulinKinds(row, c)
            guard let written = TimestampParser.iso8601(bytes: row[c.timestamp]) else {
                b.skip("bad timestamp", line: number, field: Self.timestampField,
                       "'\(row.text(c.timestamp).prefix(40))' is not a time; expected YYYY-MM-DDThh:mm:ss")
                // With the event type out of its place (a comma in the index, in a dose row a field
                // short), any piece of the row may be it, and the amount is not known.
                let shifted = Self.isWord(row[c.eventType]) ? nil : Self.insulinKinds(pieces: row)
                b.noteUndatedInsulin(shifted ?? insulin, amounts: shifted == nil ? [row.text(c.insulin)] : [],
                                     at: b.location(number, Self.timestampField))
                continue
            }
            let time = b.instant(written)
            let glucose = row.equals(c.eventType, "EGV") || row.equals(c.eventType, "Calibration")
            guard b.acceptTime(time, line: number, field: Self.timestampField, insulin: insulin, glucose: glucose,
                               amounts: [row.text(c.insulin)]) else { continue }
            if row.equals(c.eventType, "EGV") || row.equals(c.eventType, "Calibration") {
                if Self.skipShifted(row, value: c.glucose, next: c.afterGlucose, c, line: number, &b) { continue }
                let source: GlucoseSource = row.equals(c.eventType, "EGV") ? .cgm : .fingerStick
                if let g = row.number(c.glucose) {
                    if let v = b.glucose(g, text: "", unit: c.unit, line: number, field: glucoseField(c)) {
                        b.add(GlucoseReading(time: time, value: v, source: source), line: number, field: Self.timestampField)
                    }
                } else if let cens = PatientLogBuilder.censoring(row.text(c.glucose)) {
                    b.addCensored(cens, time: time, source: source, at: b.location(number, Self.timestampField))
                } else if row.isEmpty(c.glucose) {
                    b.skip("empty glucose value", line: number, field: glucoseField(c),
                           "\(row.text(c.eventType)) row has no glucose value; expected \(c.unit.rawValue), Low or High")
                } else {
                    _ = b.glucose(nil, text: row.text(c.glucose), unit: c.unit, line: number, field: glucoseField(c))
                }
            } else if row.equals(c.eventType, "Insulin") {
                let fast = row.equals(c.subtype, "Fast-Acting")
                let mark = b.skipMark
                // A dose of unknown subtype counts as a bolus: the insulin on board around it is unknown.
                let skipped = { (b: inout PatientLogBuilder, amounts: [String?]) in
                    b.noteSkippedInsulin(fast || !row.equals(c.subtype, "Long-Acting") ? .bolus : .basalInjection, time: time,
                                         since: mark, amounts: amounts, at: b.location(number, "Insulin Value (u)"))
                }
                if Self.skipShifted(row, value: c.insulin, next: c.afterInsulin, c, line: number, &b) {
                    skipped(&b, [])  // its amount unknown: '0,5' is not a cancelled bolus
                    continue
                }
                guard fast || row.equals(c.subtype, "Long-Acting") else {
                    b.skip("unknown insulin subtype", line: number, field: "Event Subtype",
                           "'\(row.text(c.subtype).prefix(40))' is not an insulin subtype; expected Fast-Acting or Long-Acting")
                    skipped(&b, [row.text(c.insulin)])
                    continue
                }
                guard let u = b.value(row.number(c.insulin), text: row.text(c.insulin), in: ImportLimits.doseUnits, unit: "U",
                                      reason: "insulin out of range", line: number, field: "Insulin Value (u)") else { skipped(&b, [row.text(c.insulin)]); continue }
                if fast {
                    b.add(Bolus(time: time, dose: InsulinUnits(u), kind: .rapid), line: number, field: Self.timestampField)
                } else {
                    b.add(BasalInjection(time: time, dose: InsulinUnits(u)), line: number, field: Self.timestampField)
                }
            } else if row.equals(c.eventType, "Carbs") {
                if Self.skipShifted(row, value: c.carbs, next: c.afterCarbs, c, line: number, &b) { continue }
                guard let g = b.value(row.number(c.carbs), text: row.text(c.carbs), in: ImportLimits.carbGrams, unit: "g",
                                      reason: "carbohydrate out of range", line: number, field: "Carb Value (grams)") else { continue }
                b.add(CarbIntake(time: time, amount: Carbohydrate(grams: g)), line: number, field: Self.timestampField)
            } else if row.isEmpty(c.eventType) {
                b.skip("no event type", line: number, field: "Event Type", "empty event type; expected EGV, Insulin, Carbs, ...")
            } else {
                b.addNotModelled(String(row.text(c.eventType).prefix(40)))
            }
        }
        guard cols != nil else { throw b.error(1, nil, "the file is empty; expected a Dexcom Clarity CSV header") }
        return try b.build(scrub: scrub)
    }
}
