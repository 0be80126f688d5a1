import Foundation

/// Reads the CSV export of another tool through a column mapping (`ImportOptions.columns`,
/// `CSVColumnMapping`): e.g. GluPredKit's `date,id,CGM,insulin,carbs` with
/// `time=date,patient=id,glucose=CGM,bolus=insulin,carbs=carbs`. Never detected from content:
/// chosen by the format name `csv` with a mapping.
///
/// - Header: the first line that is not blank and does not start with `#`. Mapped columns are found
///   by name (exact, else ignoring case); other columns are ignored. A mapped column missing from the
///   header is an error naming it and listing the header.
/// - Rows: "wide" (one row may hold a CGM reading, a bolus, a meal and a basal rate at once). An
///   empty cell, or `nan`/`NA`/`null`/`None`, is no value (never 0). A bolus or meal of 0 is no
///   record (such exports write 0 in every row); a basal rate of 0 U/h is a suspension. A basal
///   rate is recorded where it changes (from this row's time until the next change). A row with
///   no value at all is counted as skipped without a warning. A row wider than the header with a
///   value beyond it, or wider than most of the file's rows (`LineReader.commonFieldCount`), is
///   malformed: a decimal comma that was not quoted (`4,35` U read as 4 U and 35 g of the next cell).
/// - Glucose (`glucose`, `finger`) in `CSVColumnMapping.glucoseUnit`; `Low`/`High` are censored
///   readings. When most glucose values look like the other unit (below 30 read as mg/dL, above 35
///   read as mmol/L) the file is refused: a unit mix-up would otherwise train on nonsense.
/// - Time: ISO 8601 (`2026-01-05 08:00:00`, with or without an offset; without one, local to
///   `ImportOptions.timeZone`), numeric dates `DD-MM-YYYY hh:mm[:ss]` / `MM-DD-YYYY hh:mm AM`
///   (the order from `ImportOptions.dateOrder`, else from every row's date as for LibreView), or seconds
///   (or milliseconds) since 1970 UTC.
/// - Patient: `ImportOptions.patient`, else the `patient` column, else the file name. With a
///   patient column and `ImportOptions.patient`, only that patient's rows are read. A file may hold
///   several patients (`importPatients`); `importFile` (the store, one patient per import) refuses
///   a file with a second patient at the line where it appears.
public struct MappedCSVImporter: PatientDataImporter {
    public static let formatName = "csv"

    public init() {}

    /// Never: a mapped CSV has no signature; it is read only when named with a mapping.
    public static func recognizes(head: String) -> Bool { false }

    /// Whether the header in `head` has every column `mapping` names (a byte order mark before it
    /// aside, as the importer reads it: Excel's "CSV UTF-8" was quarantined by the nightly; review AN).
    public static func recognizes(head: String, mapping: CSVColumnMapping) -> Bool {
        let head = head.hasPrefix("\u{FEFF}") ? String(head.dropFirst()) : head
        guard let line = head.split(whereSeparator: \.isNewline).first(where: { !$0.hasPrefix("#") && !$0.allSatisfy(\.isWhitespace) })
        else { return false }
        if case .success = mapping.positions(in: CSVRow(String(line)).fields) { return true }
        return false
    }

    public func importFile(at url: URL, options: ImportOptions) throws -> ImportResult {
        var reader = try MappedCSVReader(url: url, options: options, onePatient: true)
        return try reader.read()[0]
    }

    /// Every patient of the file, one result each, in the order they first appear.
    public func importPatients(at url: URL, options: ImportOptions) throws -> [ImportResult] {
        var options = options
        options.recordSink = nil  // one sink cannot take several patients' records
        var reader = try MappedCSVReader(url: url, options: options, onePatient: false)
        return try reader.read()
    }
}

/// One pass over a mapped CSV file.
struct MappedCSVReader {
    typealias Field = CSVColumnMapping.Field

    /// A patient's records so far.
    struct Patient {
        var builder: PatientLogBuilder
        /// The last basal rate recorded and its time: a rate is recorded only where it changes.
        var lastBasal: (time: Date, rate: Double)?
        /// Every basal rate read, in file order (`lastBasal` keeps only the last): the programme a
        /// percentage temporary basal follows.
        var basalChanges: [(time: PatientLogBuilder.HeldTime, rate: Double)] = []
        /// Temporary basals in percent, resolved against `basalChanges` once the file is read
        /// (`resolvePercentTemporaryBasals`).
        var percentTemporaryBasals: [PercentTemporaryBasal] = []
        /// A dual-wave bolus's part read on its own row (`bolus_type`), waiting for the other part.
        var pendingDual: DualPart?
    }

    /// A temporary basal of `percent` % of the programmed rate, held in the builder's temporary
    /// basals at `index` (its times moved there if its row was in a repeated hour) until resolved.
    struct PercentTemporaryBasal {
        var index: Int
        var percent: Double
        var rateLocation: SourceLocation
    }

    /// One part of a dual-wave bolus written a row each (CareLink's `Dual (normal part)` and `Dual (square part)`).
    struct DualPart {
        var time: Date
        var square: Bool
        var units: Double
        var minutes: Double
        var location: SourceLocation
    }

    /// What a `bolus_type` cell says the row's bolus is.
    enum BolusPart: Equatable { case normal, square, dualNormal, dualSquare }

    let url: URL
    let file: String
    let options: ImportOptions
    let mapping: CSVColumnMapping
    let onePatient: Bool
    var positions: [Field: Int] = [:]
    var names: [Field: String] = [:]
    var columnCount = 0
    /// How many fields the file's rows have when most of them have one count
    /// (`LineReader.commonFieldCount`): a wider row is malformed even when its extra fields are empty.
    var rowWidth: Int?
    var headerLine = 0
    var patients: [Patient] = []
    /// An empty builder, the place of the patient whose row is being read (`readRow`).
    let vacant: PatientLogBuilder
    var index: [PatientID: Int] = [:]
    /// Rows skipped before any patient was known (a bad id on the first rows), added to the first patient's summary.
    var orphans: PatientLogBuilder
    var lastPatient: (text: String, id: PatientID)?
    var dateOrder: DateOrder?
    /// Glucose numbers read, and how many of them look like the other unit.
    var glucoseNumbers = 0, otherUnitLooking = 0

    static let missingWords: Set<String> = ["nan", "na", "n/a", "null", "none"]
    static let timeShapes = "ISO 8601 (2026-01-05 08:00:00, offset optional), DD-MM-YYYY hh:mm, MM-DD-YYYY hh:mm AM, or seconds since 1970"

    init(url: URL, options: ImportOptions, onePatient: Bool) throws {
        guard let mapping = options.columns else {
            throw InputError(SourceLocation(file: url.path),
                             "the csv format needs a column mapping, e.g. time=date,glucose=CGM,bolus=insulin,carbs=carbs (the columns option)")
        }
        self.url = url
        file = url.path
        self.options = options
        self.mapping = mapping
        self.onePatient = onePatient
        dateOrder = options.dateOrder
        orphans = PatientLogBuilder(file: url.path, options: options)
        vacant = orphans
        if options.patient != nil || mapping[.patient] == nil {
            patients = [Patient(builder: PatientLogBuilder(file: url.path, options: options))]
        }
    }

    mutating func read() throws -> [ImportResult] {
        let reader = LineReader(url: url)
        try reader.checkReadable()
        rowWidth = reader.commonFieldCount { bytes, afterHeader in
            bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x2C }) || !afterHeader && bytes.first == UInt8(ascii: "#")
        }
        var lines = reader.makeIterator()
        var row = CSVRow()
        while let (number, bytes) = lines.nextBytes() {
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x2C }) { continue }
            if headerLine == 0 {
                if bytes.first == UInt8(ascii: "#") { continue }
                try readHeader(CSVRow(bytes: bytes).fields, line: number)
                continue
            }
            row.load(bytes)
            if repeatsHeader(row) {
                // Two exports joined, or a section under a header of the same layout (CareLink): its
                // cells read as a bolus and a basal of unreadable time, and every dose was refused
                // (hunt AI, stop 57).
                skipRow("repeated header", line: number, field: nil, "the line repeats the header (two exports joined, or a "
                        + "section of the same layout): skipped")
                continue
            }
            if PatientLogBuilder.mayBeCut(row, header: columnCount, endedInsideLine: lines.endedInsideLine) {
                let message = PatientLogBuilder.cutLastRowMessage(fields: row.count, header: columnCount)
                if let p = cutRowPatient(row) {
                    patients[p].builder.summary.rowsRead += 1
                    let mark = patients[p].builder.skipMark
                    patients[p].builder.skip(PatientLogBuilder.cutLastRow, line: number, field: nil, message)
                    noteCutInsulin(row, line: number, patient: p, since: mark)
                } else {
                    skipRow(PatientLogBuilder.cutLastRow, line: number, field: nil, message)
                }
                continue
            }
            try readRow(row, line: number)
        }
        guard headerLine > 0 else {
            throw InputError(SourceLocation(file: file, line: 1), "the file is empty; expected a header naming the columns \(mapping.text)")
        }
        if glucoseNumbers >= 3, otherUnitLooking * 2 > glucoseNumbers {
            let field = names[.glucose] ?? names[.finger]
            let (now, other, test) = mapping.glucoseUnit == .mgdL ? ("mg/dL", "mmol/L", "below 30") : ("mmol/L", "mg/dL", "above 35")
            throw InputError(SourceLocation(file: file, field: field),
                             "\(otherUnitLooking) of \(glucoseNumbers) glucose values are \(test), as \(other) values are: the column is read "
                             + "as \(now); set the glucose units to \(other) if that is the file's unit")
        }
        if patients.isEmpty {
            throw PatientIDScan.noValidPatient(orphans.summary.issues, field: names[.patient])
                ?? InputError(SourceLocation(file: file, field: names[.patient]),
                              orphans.summary.rowsRead == 0 ? "the file has a header but no rows" : "no row names a valid patient id")
        }
        var results: [ImportResult] = []
        for (i, patient) in patients.enumerated() {
            var patient = patient
            Self.keepLoneDual(&patient)
            Self.resolvePercentTemporaryBasals(&patient)
            var builder = patient.builder
            if i == 0 { builder.summary.absorb(orphans.summary) }
            results.append(try builder.build())
        }
        return results
    }

    mutating func readHeader(_ header: [String], line: Int) throws {
        switch mapping.positions(in: header) {
        case let .failure(problem): throw InputError(SourceLocation(file: file, line: line), problem.description)
        case let .success(found): positions = found
        }
        for (field, i) in positions { names[field] = header[i] }
        columnCount = header.count
        headerLine = line
    }

    /// Field `i`'s text, a decimal comma read as a point. A cell holding a comma was quoted (`"6,2"`,
    /// as a spreadsheet in a decimal-comma locale saves a comma-separated file), so the comma
    /// separates no fields: refused, a Diasend sheet kept only its whole readings, a biased tenth
    /// (hunt AI, stop 57). Only with one or two digits after it: three are thousands (`1,000`).
    static func numberText(_ row: CSVRow, _ i: Int) -> String {
        let text = row.text(i)
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[1].count), parts[1].allSatisfy({ ("0"..."9").contains($0) }),
              let whole = parts[0].last, ("0"..."9").contains(whole) else { return text }
        return parts[0] + "." + parts[1]
    }

    /// The row's time as written: the time column, with the clock column after a space when one is
    /// mapped (`2026/01/05` and `08:15:00`), and a year-first date with slashes (CareLink's
    /// `2026/01/05`) read as ISO 8601's dashes.
    func timeBytes(_ row: CSVRow) -> ArraySlice<UInt8> {
        guard let column = positions[.time], column < row.count else { return [] }
        let date = row[column]
        let digit = { (b: UInt8) in (48...57).contains(b) }
        let slash = UInt8(ascii: "/"), s = date.startIndex
        let yearFirst = date.count >= 10 && date[s..<s + 4].allSatisfy(digit) && date[s + 4] == slash && date[s + 7] == slash
        // Copied only when it changes (most mappings read the column as it is).
        guard yearFirst || positions[.clock] != nil else { return date }
        var out = Array(date)
        if yearFirst { out[4] = UInt8(ascii: "-"); out[7] = UInt8(ascii: "-") }
        if let clock = positions[.clock], clock < row.count, !row[clock].isEmpty {
            out.append(UInt8(ascii: " "))
            out.append(contentsOf: row[clock])
        }
        return out[...]
    }

    /// Whether every mapped cell of `row` is its column's name in the header (letter case aside).
    func repeatsHeader(_ row: CSVRow) -> Bool {
        !positions.isEmpty && positions.allSatisfy { field, i in
            i < row.count && names[field].map { row.text(i).caseInsensitiveCompare($0) == .orderedSame } == true
        }
    }

    static func isMissing(_ field: ArraySlice<UInt8>) -> Bool {
        field.isEmpty || (field.count <= 4 && missingWords.contains(String(decoding: field, as: UTF8.self).lowercased()))
    }

    /// The patient a row belongs to (its index in `patients`), or nil when the row is skipped.
    mutating func patientIndex(_ row: CSVRow, line: Int) throws -> Int? {
        guard let column = positions[.patient] else { return 0 }
        let name = names[.patient]!
        let raw = row.text(column)
        let id: PatientID
        if let last = lastPatient, last.text.utf8.elementsEqual(raw.utf8) {
            id = last.id
        } else {
            let empty = Self.isMissing(row[column])
            let checked: PatientID
            do {
                guard !empty else { throw PatientID.InvalidID.empty }
                checked = try PatientID(raw)
            } catch {
                // The reason, not the text: it may be an e-mail or a name.
                skipRow(empty ? "missing patient id" : "bad patient id", line: line, field: name,
                        empty ? "the patient cell is empty; expected a pseudonymous id" : "\(error)", insulin: unplacedInsulin(row))
                return nil
            }
            id = checked
            lastPatient = (raw, checked)
        }
        if let fixed = options.patient {
            guard id == fixed else {
                patients[0].builder.summary.rowsRead += 1
                patients[0].builder.skipQuietly(ImportSummary.otherPatientRow)
                return nil
            }
            return 0
        }
        if let i = index[id] { return i }
        if onePatient, let first = index.first?.key {
            throw InputError(SourceLocation(file: file, line: line, field: name),
                             "a second patient '\(id)' (the file began with '\(first)'): one import reads one patient; "
                             + "split the file by its \(name) column, or read it as data files (train, predict), which take several")
        }
        var builder = PatientLogBuilder(file: file, options: options)
        builder.options.patient = id
        index[id] = patients.count
        patients.append(Patient(builder: builder))
        return patients.count - 1
    }

    /// Skips a row whose patient is unknown, in the summary of the patient of the rows before it
    /// (or, before any patient, in `orphans`, the first patient's). `insulin`: the insulin the row
    /// holds (`unplacedInsulin`), kept as `SkippedInsulin` for that patient: its dose was given to
    /// someone, and most likely to the patient of the rows around it.
    mutating func skipRow(_ reason: String, line: Int, field: String?, _ message: String,
                          insulin: UnplacedInsulin = UnplacedInsulin()) {
        func place(_ b: inout PatientLogBuilder) {
            b.summary.rowsRead += 1
            let mark = b.skipMark
            b.skip(reason, line: line, field: field, message)
            guard !insulin.kinds.isEmpty else { return }
            b.noteSkippedInsulin(insulin.kinds, time: insulin.epoch ?? insulin.written.map { b.latestInstant($0) }, since: mark,
                                 at: b.location(line, field))
        }
        if let last = lastPatient, let i = index[last.id] ?? (patients.isEmpty ? nil : 0) {
            place(&patients[i].builder)
        } else if !patients.isEmpty {
            place(&patients[0].builder)
        } else {
            place(&orphans)
        }
    }

    /// The insulin a row whose patient cannot be read holds (each bolus or basal column that holds
    /// a dose, `holdsNoDose`), and its time when it reads as ISO 8601, as a day/month date of the
    /// file's known order, or as seconds since 1970 (nil otherwise: the dose is kept undated).
    func unplacedInsulin(_ row: CSVRow) -> UnplacedInsulin {
        let kinds = Self.kinds(Self.insulinFields.filter { field, _ in
            guard let i = positions[field], i < row.count else { return false }
            return !Self.holdsNoDose(field, row, i)
        })
        guard !kinds.isEmpty, let column = positions[.time], column < row.count else { return UnplacedInsulin(kinds: kinds) }
        let f = timeBytes(row)
        let written = Self.writtenTime(f, order: dateOrder)
        return UnplacedInsulin(kinds: kinds, written: written, epoch: written == nil ? Self.epochTime(f) : nil)
    }

    /// A time field as written: ISO 8601, or a day/month date once the file's `order` is known
    /// (nil before: it reads only then). Seconds since 1970 are `epochTime`.
    static func writtenTime(_ f: ArraySlice<UInt8>, order: DateOrder?) -> WrittenTimestamp? {
        TimestampParser.iso8601(bytes: f)
            ?? order.flatMap { TimestampParser.numericDate(bytes: f)?.local($0) }.map { WrittenTimestamp(local: $0, utcOffset: nil) }
    }

    /// See `unplacedInsulin`.
    struct UnplacedInsulin {
        var kinds: [RecordKind] = []
        var written: WrittenTimestamp?
        var epoch: Date?
    }

    mutating func readRow(_ row: CSVRow, line: Int) throws {
        guard let p = try patientIndex(row, line: line) else { return }
        // The patient is moved out for the row, its place left empty: while both held it, each
        // record appended copied the patient's whole list (20,000 rows of a 1-minute CGM read in 7.4
        // s, 10,000 in 1.8; hunt BN, stop 63).
        var patient = patients[p]
        patients[p] = Patient(builder: vacant)
        defer { patients[p] = patient }
        // A dual-wave bolus's part waits for the other on the next row only.
        let dualPart = isDualPart(row)
        if patient.pendingDual != nil, !dualPart { Self.keepLoneDual(&patient) }
        patient.builder.summary.rowsRead += 1
        if row.unterminatedQuote {
            patient.builder.skip("malformed row", line: line, field: nil, "a quoted field is not closed; expected a closing '\"'")
            return patient.builder.noteMalformedInsulin(insulinKinds(malformed: row), line: line)
        }
        if let expected = row.tooWide(header: columnCount, commonWidth: rowWidth) {
            return patient.builder.skipWideRow(fields: row.count, expected: expected, line: line, insulin: insulinKinds(malformed: row))
        }
        // A bolus, an extended part, a long-acting injection or a meal of 0 is no value: such exports write 0 in every row
        // without one. But a dual-wave bolus's part of 0 U is: its other part waits for it.
        // So is a temporary basal of 0 U/h with no duration or one of 0 minutes: an export that writes
        // 0 in empty cells has it in every row (read as cancels, each row ended the temporary basal
        // before it; review AM, stop 58).
        let minutesCell = positions[.tempBasalMinutes].flatMap { i in i < row.count && !Self.isMissing(row[i]) ? row.text(i) : nil }
        let present = CSVColumnMapping.measurements.filter { field in
            guard let i = positions[field], !Self.isMissing(row[i]) else { return false }
            if field == .bolus, dualPart { return true }
            if field == .tempBasal, row.number(i) == 0 { return minutesCell.map { Self.minutes($0) != 0 } ?? false }
            return [.bolus, .bolusExtended, .carbs, .basalInjection].contains(field) ? row.number(i) != 0 : true
        }
        // A temporary basal of 0 minutes with its rate empty: a cancel, as Nightscout's treatments
        // write it (it ended nothing, and a suspension cancelled after 10 minutes counted for 2
        // hours); or of 0 U/h with its type given, as a Medtronic pump writes it (0, Insulin Units,
        // 0:00:00: a zero-filled export leaves the type empty; review AN, stop 58).
        let typed = positions[.tempBasalType].map { $0 < row.count && !Self.isMissing(row[$0]) } == true
        let cancel = positions[.tempBasal].map { $0 >= row.count || Self.isMissing(row[$0]) || (typed && row.number($0) == 0) } == true
            && minutesCell.map { Self.minutes($0) == 0 } == true
        guard !present.isEmpty || cancel else {
            // Narrower than the header, with no time where the header has it: a section under a
            // header of its own (t:connect), whose rows went without a word (hunt AI, stop 57). A
            // trimmed row (its time, and the empty cells after it cut off) stays quiet.
            let time = timeBytes(row)
            if row.count < columnCount, TimestampParser.iso8601(bytes: time) == nil, TimestampParser.numericDate(bytes: time) == nil,
               Self.epochTime(time) == nil, (0..<row.count).contains(where: { !Self.isMissing(row[$0]) }) {
                return patient.builder.skip("row narrower than the header", line: line, field: nil,
                                            "the row has \(row.count) fields where the header has \(columnCount), and none of the mapped "
                                            + "columns: a section under another header? Split the file by section and import each with its own columns")
            }
            return patient.builder.skipQuietly("row with no values")
        }
        let insulin = Self.kinds(Self.insulinFields.filter { present.contains($0.field) })
        guard let time = try readTime(row, line: line, &patient.builder, insulin: insulin,
                                      glucose: present.contains(.glucose) || present.contains(.finger)) else { return }
        let at = patient.builder.location(line, names[.time])
        for field in present {
            let i = positions[field]!
            let loc = patient.builder.location(line, names[field])
            switch field {
            case .glucose, .finger:
                if let v = row.number(i) {
                    glucoseNumbers += 1
                    if mapping.glucoseUnit == .mgdL ? v < 30 : v > 35 { otherUnitLooking += 1 }
                }
                guard let (value, censoring) = patient.builder.glucose(Self.numberText(row, i), unit: mapping.glucoseUnit, at: loc) else { continue }
                patient.builder.add(GlucoseReading(time: time, value: value, source: field == .glucose ? .cgm : .fingerStick,
                                                   censoring: censoring), at: at)
            case .bolus:
                // With an extended part on the row, the two are one bolus (`readExtendedBolus`).
                if present.contains(.bolusExtended) { continue }
                if positions[.bolusType] != nil {
                    readTypedBolus(row, line: line, time: time, &patient)
                    continue
                }
                let mark = patient.builder.skipMark
                guard let u = patient.builder.number(Self.numberText(row, i), at: loc, expected: "bolus insulin in U", range: ImportLimits.doseUnits)
                else {
                    patient.builder.noteSkippedInsulin(.bolus, time: time, since: mark, amounts: [row.text(i)], at: loc)
                    continue
                }
                patient.builder.add(Bolus(time: time, dose: InsulinUnits(u), kind: .rapid), at: at)
            case .basalInjection:
                // A pen's long-acting dose: mapped as `basal`, 18 U read as 18 U/h (hunt BA).
                let mark = patient.builder.skipMark
                guard let u = patient.builder.number(Self.numberText(row, i), at: loc, expected: "long-acting insulin in U",
                                                     range: ImportLimits.doseUnits)
                else {
                    patient.builder.noteSkippedInsulin(.basalInjection, time: time, since: mark, amounts: [row.text(i)], at: loc)
                    continue
                }
                patient.builder.add(BasalInjection(time: time, dose: InsulinUnits(u)), at: at)
            case .bolusExtended:
                readExtendedBolus(row, line: line, time: time, now: present.contains(.bolus) ? positions[.bolus] : nil, &patient.builder)
            case .tempBasal:
                readTemporaryBasal(row, line: line, time: time, &patient)
            case .carbs:
                let unit = mapping.carbUnit
                let expected = unit == .grams ? "carbohydrates in g" : "carbohydrates in \(unit.rawValue) of \(Int(unit.grams)) g"
                let range = (ImportLimits.carbGrams.lowerBound / unit.grams)...(ImportLimits.carbGrams.upperBound / unit.grams)
                guard let amount = patient.builder.number(Self.numberText(row, i), at: loc, expected: expected, range: range)
                else { continue }
                patient.builder.add(CarbIntake(time: time, amount: Carbohydrate(grams: amount * unit.grams)), at: at)
            case .basal:
                let mark = patient.builder.skipMark
                guard let r = patient.builder.number(Self.numberText(row, i), at: loc, expected: "basal rate in U/h", range: ImportLimits.basalUnitsPerHour)
                else {
                    patient.builder.noteSkippedInsulin(.basal, time: time, since: mark, at: loc)
                    continue
                }
                // A pen's long-acting units mapped as a pump's rate: 18 U read as 18 U/h, 432 U a day (hunt BA).
                if r > Self.highestUntypedTemporaryRate {
                    patient.builder.skip("out of range", at: loc, "a basal rate of \(trimmedNumber(r)) U/h is above "
                                         + "\(Int(Self.highestUntypedTemporaryRate)) U/h: a long-acting injection's units? Map that column as basal_injection")
                    patient.builder.noteSkippedInsulin(.basal, time: time, since: mark, at: loc)
                    continue
                }
                if let last = patient.lastBasal, last.rate == r, last.time <= time { continue }
                patient.lastBasal = (time, r)
                patient.basalChanges.append((patient.builder.hold(time), r))
                patient.builder.add(BasalRate(start: time, rate: InsulinRate(unitsPerHour: r)), at: at)
            case .time, .clock, .patient, .bolusMinutes, .tempBasalMinutes, .bolusType, .tempBasalType:
                continue
            }
        }
        if cancel { patient.builder.cancelTemporaryBasal(at: time, location: at) }
    }

    /// A square or dual-wave bolus: the row's `bolus_extended` units spread over `bolus_minutes`,
    /// after the `bolus` column's units given at once (column `now`, when it holds a dose): one
    /// `Bolus` of both (`normalDual`, its part given at once stated, or `square`). Skipped with a
    /// warning, and kept as skipped insulin, when a part or the duration
    /// cannot be read.
    func readExtendedBolus(_ row: CSVRow, line: Int, time: Date, now: Int?, _ b: inout PatientLogBuilder) {
        let mark = b.skipMark
        let extended = positions[.bolusExtended]!
        defer {
            b.noteSkippedInsulin(.bolus, time: time, since: mark, amounts: [now.map { row.text($0) }, row.text(extended)],
                                 at: b.location(line, names[.bolusExtended]))
        }
        var first = 0.0
        if let now {
            guard let u = b.number(Self.numberText(row, now), at: b.location(line, names[.bolus]), expected: "bolus insulin in U",
                                   range: ImportLimits.bolusPartUnits) else { return }
            first = u
        }
        guard let spread = b.number(Self.numberText(row, extended), at: b.location(line, names[.bolusExtended]),
                                    expected: "the extended part of a bolus in U", range: ImportLimits.bolusPartUnits),
              let minutes = duration(row, .bolusMinutes, line: line, of: "an extended bolus", &b) else { return }
        guard ImportLimits.doseUnits.contains(first + spread) else {
            return b.skip("out of range", at: b.location(line, names[.bolusExtended]),
                          "the bolus's parts add up to \(first + spread) U; expected \(ImportLimits.doseUnits.lowerBound)-\(ImportLimits.doseUnits.upperBound) U")
        }
        b.add(Bolus(time: time, end: time.addingTimeInterval(minutes * 60), dose: InsulinUnits(first + spread),
                    type: first > 0 ? .normalDual : .square, immediate: first > 0 ? InsulinUnits(first) : nil),
              at: b.location(line, names[.time]))
    }

    /// A temporary basal rate of `temp_basal` U/h (0: a suspension), or, with `temp_basal_type`
    /// saying Percent, that percentage of the `basal` rate in force (read before it in the file),
    /// for `temp_basal_minutes`. A rate of 0 with no duration is no record (a wide export writes 0 in
    /// rows without one); another rate without a duration, a type that is not known (or empty, for a
    /// rate that is not 0), or a percentage with no basal rate before it, is skipped with a warning
    /// and kept as skipped insulin. A duration of 0 ends the temporary basal running then (Nightscout
    /// and loops cancel so; `endTemporaryBasals`), as does the next one.
    func readTemporaryBasal(_ row: CSVRow, line: Int, time: Date, _ patient: inout Patient) {
        let mark = patient.builder.skipMark
        let column = positions[.tempBasal]!
        let loc = patient.builder.location(line, names[.tempBasal])
        var noInsulin = false  // a suspension or a cancel skipped: no insulin was missed
        defer { if !noInsulin { patient.builder.noteSkippedInsulin(.temporaryBasal, time: time, since: mark, at: loc) } }
        var percent = false
        if let typed = positions[.tempBasalType], row.number(column) != 0 {
            let text = typed < row.count ? row.text(typed).trimmingSpaces() : ""
            let lower = text.lowercased()
            if lower.contains("percent") || lower.contains("%") {
                percent = true
            } else if !["unit", "absolute", "u/h", "rate", "insulin"].contains(where: { lower.contains($0) }) {
                return patient.builder.skip("unknown type", at: patient.builder.location(line, names[.tempBasalType]),
                                            "temporary basal type '\(text.prefix(30))' is not known; expected Percent or Insulin Units (U/h)")
            }
        }
        let expected = percent ? "a temporary basal in percent of the basal rate" : "a temporary basal rate in U/h (a percentage needs temp_basal_type)"
        guard let value = patient.builder.number(Self.numberText(row, column), at: loc, expected: expected,
                                                 range: percent ? 0...1_000 : ImportLimits.basalUnitsPerHour) else { return }
        if value == 0, let d = positions[.tempBasalMinutes], d >= row.count || Self.isMissing(row[d]) {
            noInsulin = true
            return patient.builder.skipQuietly("temporary basal of 0 U/h without a duration")
        }
        noInsulin = value == 0
        guard let minutes = duration(row, .tempBasalMinutes, line: line, of: "a temporary basal", &patient.builder) else { return }
        guard minutes > 0 else {
            noInsulin = true
            // 0 U/h for 0 minutes is what an export that writes 0 in empty cells has in every row:
            // read as a cancel, each row ended the temporary basal before it (the review of stop 58).
            // A cancel leaves the rate empty (Nightscout's) or gives one.
            guard value != 0 else { return patient.builder.skipQuietly("temporary basal of 0 U/h for 0 minutes") }
            return patient.builder.cancelTemporaryBasal(at: time, location: patient.builder.location(line, names[.time]))
        }
        // Without a type column a percentage reads as U/h (a 30% temporary basal as 30 U/h: 26.8 U on
        // board and a predicted 10 mg/dL; the review of stop 58): a rate above 15 U/h is taken for one.
        if positions[.tempBasalType] == nil, value > Self.highestUntypedTemporaryRate {
            return patient.builder.skip("out of range", at: loc, "a temporary basal of \(trimmedNumber(value)) U/h is above "
                                        + "\(Int(Self.highestUntypedTemporaryRate)) U/h: a percentage? Map the column saying so as temp_basal_type")
        }
        let end = time.addingTimeInterval(minutes * 60)
        if percent {
            // Resolved once the whole file is read: a percentage follows the programme's changes
            // while it runs (hunt AX: a 200% temp across a dawn step from 0.5 to 2.0 U/h, taken as 1.0
            // U/h throughout, put -1.81 U on board where +3.76 U was right, and 6.75 U was suggested
            // where 1.15 U was right), and a file written newest first has its programme after it.
            let index = patient.builder.temporaryBasals.count
            patient.builder.add(TemporaryBasal(start: time, end: end, rate: InsulinRate(unitsPerHour: .nan)),
                                at: patient.builder.location(line, names[.time]))
            if patient.builder.temporaryBasals.count > index {
                patient.percentTemporaryBasals.append(PercentTemporaryBasal(index: index, percent: value, rateLocation: loc))
            }
            return
        }
        patient.builder.add(TemporaryBasal(start: time, end: end, rate: InsulinRate(unitsPerHour: value)),
                            at: patient.builder.location(line, names[.time]))
    }

    /// Adds the patient's percentage temporary basals, each as the rates it gave: its percentage of
    /// every basal rate in force while it ran (the file's `basal` rows, whatever their order), up to
    /// its end, a cancel or the next temporary basal. One without a rate in force at its start, or
    /// giving more than a pump's rate, is skipped insulin.
    static func resolvePercentTemporaryBasals(_ patient: inout Patient) {
        guard !patient.percentTemporaryBasals.isEmpty else { return }
        // Rows in a repeated hour are decided first, so that each held temp, basal rate and cancel has its own time.
        patient.builder.startStream()
        let held = patient.percentTemporaryBasals.map { patient.builder.temporaryBasals[$0.index] }
        let heldIndices = Set(patient.percentTemporaryBasals.map(\.index))
        patient.builder.temporaryBasals = patient.builder.temporaryBasals.enumerated().filter { !heldIndices.contains($0.offset) }.map(\.element)
        // Sorted by time; of two rows at one time, the first in the file, as the merge keeps it.
        var programme: [(time: Date, rate: Double)] = []
        let builder = patient.builder
        let changesRead = patient.basalChanges.map { (time: builder.time(of: $0.time), rate: $0.rate) }
        for change in changesRead.enumerated().sorted(by: { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }).map(\.element)
        where programme.last?.time != change.time {
            programme.append(change)
        }
        let changes = programme.map(\.time)
        let stops = (builder.cancels.map { builder.time(of: $0.time) } + (patient.builder.temporaryBasals + held).map(\.record.start)).sorted()
        /// The index of the first of `times` (sorted) after `t`.
        func firstAfter(_ t: Date, in times: [Date]) -> Int { PatientLog.firstIndex(times) { $0 > t } }
        func rate(at t: Date) -> Double? {
            let i = firstAfter(t, in: changes)
            return i == 0 ? nil : programme[i - 1].rate
        }
        for (pending, located) in zip(patient.percentTemporaryBasals, held) {
            let temp = (start: located.record.start, end: located.record.end, percent: pending.percent,
                        location: located.location, rateLocation: pending.rateLocation)
            let mark = patient.builder.skipMark
            defer { patient.builder.noteSkippedInsulin(.temporaryBasal, time: temp.start, since: mark, at: temp.rateLocation) }
            guard rate(at: temp.start) != nil else {
                patient.builder.skip("missing field", at: temp.rateLocation, "a temporary basal of \(trimmedNumber(temp.percent))% needs the basal "
                                     + "rate it is a percentage of: map the basal column (U/h), with a row at or before its start")
                continue
            }
            let stop = firstAfter(temp.start, in: stops)
            let end = stop < stops.count ? min(stops[stop], temp.end) : temp.end
            if end < temp.end { patient.builder.summary.adjust("temporary basal ended early by a cancel or the next temp basal") }
            var bounds = [temp.start]
            var next = firstAfter(temp.start, in: changes)
            while next < changes.count, changes[next] < end { bounds.append(changes[next]); next += 1 }
            bounds.append(end)
            var segments: [TemporaryBasal] = []
            for (from, to) in zip(bounds, bounds.dropFirst()) where from < to {
                let programmed = rate(at: from)!
                let given = programmed * temp.percent / 100
                guard ImportLimits.basalUnitsPerHour.contains(given) else {
                    patient.builder.skip("out of range", at: temp.rateLocation, "\(trimmedNumber(temp.percent))% of \(trimmedNumber(programmed)) U/h is "
                                         + "\(trimmedNumber(given)) U/h; expected 0-\(Int(ImportLimits.basalUnitsPerHour.upperBound))")
                    segments = []
                    break
                }
                if let last = segments.last, last.rate.unitsPerHour == given {
                    segments[segments.count - 1].end = to
                } else {
                    segments.append(TemporaryBasal(start: from, end: to, rate: InsulinRate(unitsPerHour: given)))
                }
            }
            for segment in segments { patient.builder.add(segment, at: temp.location) }
        }
    }

    /// The highest temporary basal rate read without a `temp_basal_type` column: above it, the value
    /// is more likely a percentage than U/h (a pump's maximum basal is rarely above 10 U/h). Also the
    /// highest `basal` rate: above it, more likely a pen's long-acting units.
    static let highestUntypedTemporaryRate = 15.0

    /// The kind of bolus a `bolus_type` cell names: `Normal` (or empty), `Square` (`Extended`), `Dual
    /// (normal part)` / `Dual (square part)` (also `Combo`, `Multiwave`); nil when it names none.
    static func bolusPart(_ text: String) -> BolusPart? {
        let t = text.trimmingSpaces().lowercased()
        if ["dual", "combo", "multiwave", "multi-wave"].contains(where: { t.contains($0) }) {
            return t.contains("square") || t.contains("extended") ? .dualSquare : t.contains("normal") ? .dualNormal : nil
        }
        if t.contains("square") || t.contains("extended") { return .square }
        return t.isEmpty || t.contains("normal") || t == "standard" ? .normal : nil
    }

    /// Whether `row` holds a dual-wave bolus's part (`bolus_type`).
    func isDualPart(_ row: CSVRow) -> Bool {
        guard let typed = positions[.bolusType], typed < row.count, let part = Self.bolusPart(row.text(typed)) else { return false }
        return part == .dualNormal || part == .dualSquare
    }

    /// The row's bolus as its `bolus_type` says: normal, square over `bolus_minutes`, or a dual-wave
    /// bolus's part, joined with the other part when it is on the next row at the same time (one
    /// `normalDual` bolus of both, as `bolus_extended` reads one row of both), else kept as skipped
    /// insulin (`keepLoneDual`).
    func readTypedBolus(_ row: CSVRow, line: Int, time: Date, _ patient: inout Patient) {
        let column = positions[.bolus]!
        let loc = patient.builder.location(line, names[.bolus])
        let mark = patient.builder.skipMark
        defer { patient.builder.noteSkippedInsulin(.bolus, time: time, since: mark, amounts: [row.text(column)], at: loc) }
        let typed = positions[.bolusType]!
        let text = typed < row.count ? row.text(typed) : ""
        guard let part = Self.bolusPart(text) else {
            return patient.builder.skip("unknown type", at: patient.builder.location(line, names[.bolusType]),
                                        "bolus type '\(text.prefix(30))' is not known; expected Normal, Square, Dual (normal part) or Dual (square part)")
        }
        let square = part == .square || part == .dualSquare, dual = part == .dualNormal || part == .dualSquare
        // A dual-wave bolus's part may be 0 U (a square part that delivered nothing).
        guard let units = patient.builder.number(Self.numberText(row, column), at: loc, expected: "bolus insulin in U",
                                                 range: dual ? ImportLimits.bolusPartUnits : ImportLimits.doseUnits) else { return }
        var minutes = 0.0
        if square, units > 0 {
            guard let m = duration(row, .bolusMinutes, line: line, of: "a square bolus", &patient.builder) else { return }
            minutes = m
        }
        let at = patient.builder.location(line, names[.time])
        switch part {
        case .normal:
            patient.builder.add(Bolus(time: time, dose: InsulinUnits(units)), at: at)
        case .square:
            patient.builder.add(Bolus(time: time, end: time.addingTimeInterval(minutes * 60), dose: InsulinUnits(units), type: .square), at: at)
        case .dualNormal, .dualSquare:
            let this = DualPart(time: time, square: square, units: units, minutes: minutes,
                                location: patient.builder.location(line, names[.bolusType]))
            if let other = patient.pendingDual, other.time == time, other.square != square {
                let (spread, now) = square ? (this, other) : (other, this)
                patient.pendingDual = nil
                let end = time.addingTimeInterval(spread.minutes * 60)
                // A part of 0 U leaves the other alone: a normal bolus, or a square one.
                if spread.units == 0, now.units > 0 {
                    patient.builder.add(Bolus(time: time, dose: InsulinUnits(now.units)), at: at)
                } else if now.units == 0, spread.units > 0 {
                    patient.builder.add(Bolus(time: time, end: end, dose: InsulinUnits(spread.units), type: .square), at: at)
                } else if now.units + spread.units > 0 {
                    patient.builder.add(Bolus(time: time, end: end, dose: InsulinUnits(this.units + other.units), type: .normalDual,
                                              immediate: InsulinUnits(now.units)), at: at)
                }
            } else {
                Self.keepLoneDual(&patient)
                patient.pendingDual = this
            }
        }
    }

    /// The dual-wave part waiting for its other part, which did not come: skipped with a warning and
    /// kept as skipped insulin (the other part was most likely given, in an amount nobody knows). Not
    /// stored alone: a file read while it is written, ending between the parts, would store a
    /// bolus that the whole file's joined one then conflicts with.
    static func keepLoneDual(_ patient: inout Patient) {
        guard let part = patient.pendingDual else { return }
        patient.pendingDual = nil
        let mark = patient.builder.skipMark
        let (this, other) = part.square ? ("square", "normal") : ("normal", "square")
        patient.builder.skip("lone dual-wave part", at: part.location,
                             "a dual-wave bolus's \(this) part (\(trimmedNumber(part.units)) U) without its \(other) part on the row "
                             + "next to it at the same time: kept as insulin given in an amount not known")
        patient.builder.noteSkippedInsulin(.bolus, time: part.time, since: mark, at: part.location)
    }

    /// The duration in `field`'s column in minutes: a number of minutes, or `h:mm` / `h:mm:ss`
    /// (CareLink's `0:30:00`); nil, the row skipped with a warning, when it is empty or cannot be read.
    func duration(_ row: CSVRow, _ field: Field, line: Int, of what: String, _ b: inout PatientLogBuilder) -> Double? {
        let loc = b.location(line, names[field])
        let i = positions[field]!
        let text = i < row.count ? row.text(i) : ""
        let expected = "the duration of \(what) in minutes or as h:mm:ss"
        guard text.contains(":") else {
            return b.number(i < row.count ? Self.numberText(row, i) : nil, at: loc, expected: expected, range: ImportLimits.durationMinutes)
        }
        guard let minutes = Self.clockMinutes(text) else {
            b.skip("not a number", at: loc, "'\(text.prefix(20))' is not \(expected)")
            return nil
        }
        guard ImportLimits.durationMinutes.contains(minutes) else {
            b.skip("out of range", at: loc, "'\(text.prefix(20))' is longer than 7 days; expected \(expected)")
            return nil
        }
        return minutes
    }

    /// `h:mm` or `h:mm:ss` in minutes; nil when the text is not that.
    static func clockMinutes(_ text: String) -> Double? {
        let parts = text.trimmingSpaces().split(separator: ":", omittingEmptySubsequences: false)
        let numbers = parts.map { part in part.count <= 4 && !part.isEmpty && part.allSatisfy({ ("0"..."9").contains($0) }) ? Int(part) : nil }
        guard (2...3).contains(parts.count), numbers.allSatisfy({ $0 != nil }), numbers.dropFirst().allSatisfy({ $0! < 60 }),
              parts.dropFirst().allSatisfy({ $0.count == 2 }) else { return nil }
        return Double(numbers[0]!) * 60 + Double(numbers[1]!) + (parts.count == 3 ? Double(numbers[2]!) / 60 : 0)
    }

    /// A duration cell in minutes (a number, or `h:mm[:ss]`); nil when it reads as neither.
    static func minutes(_ text: String) -> Double? {
        text.contains(":") ? clockMinutes(text) : NumberText.read(bytes: text.trimmingSpaces().utf8)
    }

    /// The patient of the file's last row, cut short: the one its whole patient field names, when
    /// already read (the only one, without a patient column). Nil otherwise (`skipRow` places it).
    func cutRowPatient(_ row: CSVRow) -> Int? {
        guard let column = positions[.patient] else { return patients.isEmpty ? nil : 0 }
        guard PatientLogBuilder.isWhole(column, of: row), let id = try? PatientID(row.text(column)) else { return nil }
        if let fixed = options.patient { return id == fixed ? 0 : nil }
        return index[id]
    }

    /// Keeps the insulin of the file's last row, skipped as cut short, as `SkippedInsulin`: each
    /// bolus or basal column that holds an amount (a cut inside it still shows a dose; a bolus of 0
    /// in a whole field is none), at the row's time when its time fields are whole and read, else
    /// bounded by the rows around it. A column the cut left out counts for nothing: most rows of a
    /// wide export hold no dose. A day/month date reads only once the file's order is known.
    mutating func noteCutInsulin(_ row: CSVRow, line: Int, patient p: Int, since mark: Int) {
        let kinds = Self.kinds(Self.insulinFields.filter { field, _ in
            guard let i = positions[field], !Self.isMissing(row[i]) else { return false }
            return !(PatientLogBuilder.isWhole(i, of: row) && Self.holdsNoDose(field, row, i))
        })
        guard let column = positions[.time], !kinds.isEmpty else { return }
        let at = patients[p].builder.location(line)
        // The time is whole when its columns are (the date and, mapped, the time of day: read as the
        // date alone, a cut row of a CareLink export kept no insulin, and the next dose went ahead;
        // the review of stop 58). A time that is cut, or does not read, bounds the dose by the rows around it.
        let whole = PatientLogBuilder.isWhole(column, of: row) && positions[.clock].map { PatientLogBuilder.isWhole($0, of: row) } ?? true
        let f = timeBytes(row)
        let time = whole ? Self.writtenTime(f, order: dateOrder).map { patients[p].builder.latestInstant($0) } ?? Self.epochTime(f) : nil
        patients[p].builder.noteSkippedInsulin(kinds, time: time, since: mark, at: at)
    }

    /// The insulin records a malformed row may hold: the mapping's bolus and basal columns, each
    /// unless it is whole (before an unclosed quote) and `holdsNoDose`. A comma too many may have
    /// shifted any field, so then every insulin column may hold a dose.
    func insulinKinds(malformed row: CSVRow) -> [RecordKind] {
        Self.kinds(Self.insulinFields.filter { field, _ in
            guard let i = positions[field] else { return false }
            return !(row.unterminatedQuote && row.isIntact(i) && Self.holdsNoDose(field, row, i))
        })
    }

    /// The record kinds of `fields`, each once (a bolus and its extended part are one bolus).
    static func kinds(_ fields: [(field: Field, kind: RecordKind)]) -> [RecordKind] {
        var seen: [RecordKind] = []
        for (_, kind) in fields where !seen.contains(kind) { seen.append(kind) }
        return seen
    }

    /// The mapping's insulin columns, and the record each holds.
    static let insulinFields: [(field: Field, kind: RecordKind)] = [(.bolus, .bolus), (.basal, .basal), (.bolusExtended, .bolus),
                                                                     (.tempBasal, .temporaryBasal)]

    /// Whether field `i`, of an insulin column, holds no dose: empty, or a bolus of 0 (as `readRow`
    /// reads it: such exports write 0 in every row without one; a basal rate of 0 is a rate).
    static func holdsNoDose(_ field: Field, _ row: CSVRow, _ i: Int) -> Bool {
        isMissing(row[i]) || ((field == .bolus || field == .bolusExtended) && row.number(i) == 0)
    }

    /// The row's time, or nil (row skipped with a warning).
    /// - Throws: `InputError` when dates are numeric, no order is set and none of them decides it.
    /// A row of `insulin` records dated after the import is kept as `SkippedInsulin` (`acceptTime`),
    /// and one whose time cannot be read is too, bounded by the rows around it (`noteUndatedInsulin`).
    mutating func readTime(_ row: CSVRow, line: Int, _ b: inout PatientLogBuilder, insulin: [RecordKind] = [], glucose: Bool = false) throws -> Date? {
        let column = positions[.time]!
        let name = names[.time]!
        let f = timeBytes(row)
        if row[column].isEmpty {
            b.skip("empty value", line: line, field: name, "the time is empty; expected \(Self.timeShapes)")
            b.noteUndatedInsulin(insulin, at: b.location(line, name))
            return nil
        }
        // A date alone (no clock column mapped) put every row at midnight (hunt AI, stop 57).
        if positions[.clock] == nil, !f.contains(UInt8(ascii: ":")), f.count <= 10,
           TimestampParser.iso8601(bytes: f) != nil || TimestampParser.numericDate(bytes: f) != nil {
            b.skip("date without time", line: line, field: name, "'\(String(decoding: f.prefix(40), as: UTF8.self))' is a date without a "
                   + "time of day; map the column holding the time of day as clock=COLUMN")
            b.noteUndatedInsulin(insulin, at: b.location(line, name))
            return nil
        }
        let time: Date
        if let written = TimestampParser.iso8601(bytes: f) {
            time = b.instant(written)
        } else if let numeric = TimestampParser.numericDate(bytes: f) {
            let order = try dateOrder ?? detectOrder(column: column, b)
            dateOrder = order
            guard let local = numeric.local(order) else {
                let shape = order == .monthDayYear ? "MM-DD-YYYY hh:mm" : "DD-MM-YYYY hh:mm"
                b.skip("bad time", line: line, field: name, "'\(String(decoding: f.prefix(40), as: UTF8.self))' is not a valid date in the order \(shape)")
                b.noteUndatedInsulin(insulin, at: b.location(line, name))
                return nil
            }
            time = b.instant(local)
        } else if let epoch = Self.epochTime(f) {
            time = epoch
        } else {
            b.skip("bad time", line: line, field: name, "'\(String(decoding: f.prefix(40), as: UTF8.self))' is not a time; expected \(Self.timeShapes)")
            b.noteUndatedInsulin(insulin, at: b.location(line, name))
            return nil
        }
        return b.acceptTime(time, line: line, field: name, insulin: insulin, glucose: glucose) ? time : nil
    }

    /// A time written as seconds (10 digits today) or milliseconds (13) since 1970, UTC.
    static func epochTime(_ f: ArraySlice<UInt8>) -> Date? {
        guard let seconds = NumberText.read(bytes: f), seconds >= 1e8, seconds < 1e14 else { return nil }
        return Date(timeIntervalSince1970: seconds >= 1e11 ? seconds / 1000 : seconds)
    }

    /// The day/month order all the file's numeric dates together prove (a second pass over the
    /// time column, every patient's rows), or an error asking for the option.
    func detectOrder(column: Int, _ b: PatientLogBuilder) throws -> DateOrder {
        var row = CSVRow()
        var lines = LineReader(url: url).makeIterator()
        var evidence = DateOrderEvidence()
        while evidence.open, let (number, bytes) = lines.nextBytes() {
            guard number > headerLine else { continue }
            // The time's field alone, unless a quote comes first (`CSVRow.unquotedField`) or the time of
            // day is in a column of its own (a date alone is no `numericDate`).
            if positions[.clock] == nil, let field = CSVRow.unquotedField(column, of: bytes) {
                guard let d = TimestampParser.numericDate(bytes: field) else { continue }
                evidence.add(d, line: number) { String(decoding: field, as: UTF8.self) }
                continue
            }
            row.load(bytes)
            let time = timeBytes(row)
            guard let d = TimestampParser.numericDate(bytes: time) else { continue }
            evidence.add(d, line: number) { String(decoding: time, as: UTF8.self) }
        }
        return try evidence.order(column: "time", undecided: options.undecidedDateOrder) { b.error(nil, names[.time], $0) }
    }
}

extension ImportSummary {
    /// Adds another summary's counts and issues of the same file (rows read before a patient was known).
    mutating func absorb(_ other: ImportSummary) {
        rowsRead += other.rowsRead
        for (k, v) in other.skipped { skipped[k, default: 0] += v }
        for (k, v) in other.adjusted { adjusted[k, default: 0] += v }
        for (k, v) in other.notModelled { notModelled[k, default: 0] += v }
        if let more = other.skippedQuietly { skippedQuietly = (skippedQuietly ?? [:]).merging(more, uniquingKeysWith: +) }
        if let more = other.skippedInsulin { skippedInsulin = more + (skippedInsulin ?? []) }
        issues = other.issues + issues
    }
}
