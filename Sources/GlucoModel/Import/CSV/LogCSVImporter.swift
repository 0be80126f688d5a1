import Foundation

/// Reads GlucoModel's own CSV log: one event per row, written by hand or exported from a spreadsheet.
///
/// Header (names in any order, case-insensitive; `time`, `event`, `value` required):
/// `patient,time,event,value,unit,duration,type,moment,note`
///
/// | event | value | unit | duration (min) | type |
/// |---|---|---|---|---|
/// | `glucose` | number, or `Low`/`High`/`LO`/`HI` | `mg/dL` or `mmol/L` (required) | | `cgm` (default) or `finger` |
/// | `bolus` | U | `U` or empty | required for `normal_dual`/`square` | `normal` (default), `normal_dual`, `square` |
/// | `basal` | U/h | `U/h` or empty | optional (else until the next basal) | |
/// | `temp_basal` | U/h (0 = suspended) | `U/h` or empty | required | |
/// | `basal_injection` | U | `U` or empty | | |
/// | `carbs` | amount | `g` (default) or `rations` (10 g) | | meal: `breakfast`, `lunch`, `dinner`, `snack`, `hypo_correction` |
/// | `exercise` | intensity 0-10 | empty | required | |
/// | `weight` | kg | `kg` or empty | | |
/// | `heart_rate` | bpm | `bpm` or empty | | |
///
/// `time` is ISO 8601 (`2026-01-05T08:00`, `2026-01-05 08:00:00`, `2026-01-05T08:00:00+01:00`);
/// without an offset it is local to `ImportOptions.timeZone`. `moment` (glucose) is one of
/// `MealMoment`'s raw values. Blank lines and lines starting with `#` are ignored.
/// One patient per file: the `patient` column (or `ImportOptions.patient`, which wins).
/// A row whose fields a comma too many has shifted (a decimal comma, `1,5` U) is malformed: a
/// value beyond the header, a row wider than most of the file's rows, or digits where no number
/// belongs right after a whole-number value (`LogCSVState.splitDecimal`).
public struct LogCSVImporter: PatientDataImporter {
    public static let formatName = "glucomodel-csv"
    public static let header = "patient,time,event,value,unit,duration,type,moment,note"

    public init() {}

    public static func recognizes(head: String) -> Bool {
        guard let line = firstLine(of: head, where: { !$0.hasPrefix("#") && !$0.isEmpty }) else { return false }
        let names = Set(CSVRow(String(line)).fields.map { $0.lowercased() })
        return names.isSuperset(of: ["time", "event", "value"])
    }

    /// The first non-empty line of `text` that `accept`s, as `split(whereSeparator: \.isNewline)
    /// .first(where: accept)` finds it, reading no further: the whole head was split for its header line, the most of a
    /// small file's format detection.
    static func firstLine(of text: String, where accept: (Substring) -> Bool) -> Substring? {
        var rest = text[...]
        while !rest.isEmpty {
            let end = rest.firstIndex(where: \.isNewline) ?? rest.endIndex
            let line = rest[..<end]
            if !line.isEmpty && accept(line) { return line }
            rest = end == rest.endIndex ? rest[end...] : rest[rest.index(after: end)...]
        }
        return nil
    }

    public func importFile(at url: URL, options: ImportOptions) throws -> ImportResult {
        let state = try LogCSVState.read(url, options: options)
        guard state.columns != nil else {
            throw InputError(SourceLocation(file: url.path, line: 1), "the file has no header; expected \(Self.header)")
        }
        guard let patient = state.patient else {
            if state.builder.summary.rowsRead == 0 {
                throw InputError(SourceLocation(file: url.path), "the file has a header but no rows, and no patient id was given")
            }
            throw state.noPatient(url)
        }
        return try state.builder.build(patient: patient)
    }
}

/// Parsing state for one CSV file.
struct LogCSVState {
    static let known = ["patient", "time", "event", "value", "unit", "duration", "type", "moment", "note"]
    let file: String
    var builder: PatientLogBuilder
    var columns: [String: Int]?
    /// `columns` as positions in `known` order, so a row looks fields up without hashing names.
    var positions: [Int?] = Array(repeating: nil, count: LogCSVState.known.count)
    var columnCount = 0
    /// How many fields the file's rows have when most of them have one count
    /// (`LineReader.commonFieldCount`): a row wider than this and the header is malformed even when
    /// its extra fields are empty.
    var rowWidth: Int?
    /// The column right after `value` when it is one a decimal comma's digits may be hidden in
    /// (not `patient`, `time` or `event`: `splitDecimal`).
    var afterValue: String?
    var patient: PatientID?
    /// The last valid patient text and its id: rows repeat it, and checking it costs more than the rest of a row.
    /// Compared by bytes (`==` would also match canonically equivalent text that `PatientID` rejects).
    var lastPatient: (text: String, id: PatientID)?
    let fixedPatient: Bool
    /// With a patient given (`fixedPatient`), the id the file's rows name first: the file's own patient, read as the given one.
    var fileID: PatientID?

    init(file: String, options: ImportOptions) {
        self.file = file
        builder = PatientLogBuilder(file: file, options: options)
        patient = options.patient
        fixedPatient = options.patient != nil
    }

    /// The most lines a quoted field may span (`read`).
    static let quotedLineLimit = 20

    /// Reads `url` into a state: blank lines and comments (`#` first) skipped, the first other
    /// line the header, every later one a row, until `done` says so after a row.
    static func read(_ url: URL, options: ImportOptions, chunkSize: Int = 1 << 20,
                     until done: (LogCSVState) -> Bool = { _ in false }) throws -> LogCSVState {
        let reader = LineReader(url: url, chunkSize: chunkSize)
        try reader.checkReadable()
        var state = LogCSVState(file: url.path, options: options)
        state.rowWidth = reader.commonFieldCount { bytes, _ in bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) || bytes.first == UInt8(ascii: "#") }
        var lines = reader.makeIterator()
        var row = CSVRow()
        // Lines read past a quote that did not close within `quotedLineLimit` lines: read again as rows.
        var ahead: [(number: Int, bytes: ArraySlice<UInt8>)] = []
        func nextLine() -> (number: Int, bytes: ArraySlice<UInt8>)? { ahead.isEmpty ? lines.nextBytes() : ahead.removeFirst() }
        while let (number, bytes) = nextLine() {
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            // A comment starts with the character `#` (not `#` joined with a following mark).
            if bytes.first == UInt8(ascii: "#"), String(decoding: bytes, as: UTF8.self).hasPrefix("#") { continue }
            if state.columns == nil {
                try state.readHeader(String(decoding: bytes, as: UTF8.self), line: number)
            } else {
                state.builder.summary.rowsRead += 1
                row.load(bytes)
                // A quoted field over several lines (a note cell with a line break, saved by a
                // spreadsheet; RFC 4180): the lines up to its closing quote are the row (hunt W:
                // the row was skipped and the note's next line read as a row of its own). A quote
                // that does not close within the limit is a malformed row, and the lines after it rows.
                if row.unterminatedQuote {
                    var joined = Array(bytes), taken: [(number: Int, bytes: ArraySlice<UInt8>)] = []
                    while row.unterminatedQuote, taken.count < Self.quotedLineLimit, let next = nextLine() {
                        taken.append((next.number, ArraySlice(Array(next.bytes))))
                        joined.append(UInt8(ascii: "\n"))
                        joined.append(contentsOf: next.bytes)
                        row.load(joined)
                    }
                    // Only a whole row: a stray quote closed by another row's quote lines later
                    // would have made its rows one malformed row, wider than the header.
                    if row.unterminatedQuote || row.count > max(state.columnCount, state.rowWidth ?? 0) {
                        row.load(bytes)
                        ahead = taken + ahead
                    } else {
                        state.builder.summary.adjust("quoted field over several lines read as one row")
                    }
                }
                let mark = state.builder.skipMark
                if state.builder.skipCutLastRow(row, header: state.columnCount, endedInsideLine: lines.endedInsideLine && ahead.isEmpty, line: number) {
                    state.noteCutInsulin(row, line: number, since: mark)
                } else {
                    try state.readRow(row, line: number)
                }
                if done(state) { break }
            }
        }
        return state
    }

    mutating func readHeader(_ text: String, line: Int) throws {
        let names = CSVRow(text).fields.map { $0.lowercased() }
        var map: [String: Int] = [:]
        for (i, n) in names.enumerated() {
            guard Self.known.contains(n) else {
                throw InputError(SourceLocation(file: file, line: line, field: n),
                                  "unknown column '\(n)'; expected columns among \(LogCSVImporter.header)")
            }
            guard map[n] == nil else {
                throw InputError(SourceLocation(file: file, line: line, field: n), "column '\(n)' appears twice")
            }
            map[n] = i
        }
        for required in ["time", "event", "value"] where map[required] == nil {
            throw InputError(SourceLocation(file: file, line: line, field: required),
                              "the header has no '\(required)' column; expected \(LogCSVImporter.header)")
        }
        if map["patient"] == nil && !fixedPatient {
            throw InputError(SourceLocation(file: file, line: line, field: "patient"),
                              "the header has no 'patient' column and no patient id was given; add the column or pass the id")
        }
        columns = map
        positions = Self.known.map { map[$0] }
        afterValue = map.first { $0.value == map["value"]! + 1 }.map(\.key).flatMap { ["patient", "time", "event"].contains($0) ? nil : $0 }
        columnCount = names.count
    }

    /// The column of a name in `known` (comparing short names is cheaper than hashing them).
    func position(_ name: String) -> Int? { Self.position(name, positions, columns) }

    static func position(_ name: String, _ positions: [Int?], _ columns: [String: Int]?) -> Int? {
        switch name {
        case "patient": return positions[0]
        case "time": return positions[1]
        case "event": return positions[2]
        case "value": return positions[3]
        case "unit": return positions[4]
        case "duration": return positions[5]
        case "type": return positions[6]
        case "moment": return positions[7]
        case "note": return positions[8]
        default: return columns?[name]
        }
    }

    /// The insulin record an `event` names, if any (the events are the kinds' names).
    static func insulinKind(event: String) -> RecordKind? {
        RecordKind(rawValue: event).flatMap { $0.isInsulin ? $0 : nil }
    }

    /// The insulin records a malformed row may hold: those its pieces name as an event (the
    /// fields may be shifted, so any piece may be the event).
    static func insulinKinds(malformed row: CSVRow) -> [RecordKind] {
        let named = Set(row.pieces.compactMap { insulinKind(event: $0.lowercased()) })
        return RecordKind.allCases.filter(named.contains)
    }

    /// Keeps the insulin record of the file's last row, skipped as cut short, when its time and
    /// event fields are whole (`PatientLogBuilder.noteCutInsulin`).
    mutating func noteCutInsulin(_ row: CSVRow, line: Int, since mark: Int) {
        guard let e = position("event"), PatientLogBuilder.isWhole(e, of: row),
              let kind = Self.insulinKind(event: row.text(e).lowercased()) else { return }
        builder.noteCutInsulin([kind], row: row, field: position("time") ?? -1, since: mark,
                               parse: { TimestampParser.iso8601(bytes: $0) }, at: builder.location(line))
    }

    /// Whether an event reads a duration: a basal, temporary basal or exercise, and a bolus whose
    /// `type` is not `normal` (empty is `normal`).
    static func readsDuration(_ event: String, bolusType: String?) -> Bool {
        switch event {
        case "basal", "temp_basal", "exercise": return true
        case "bolus": return !["normal", nil].contains(bolusType)
        default: return false
        }
    }

    /// Why no row gave the file's patient: the first row's reason where a row named one (an
    /// e-mail, a name, a character an id has not), at its line.
    func noPatient(_ url: URL) -> InputError {
        PatientIDScan.noValidPatient(builder.summary.issues, field: "patient")
            ?? InputError(SourceLocation(file: url.path, field: "patient"), "no row names a patient id. " + PatientIDScan.fixPatient)
    }

    /// Whether the value field and the next hold digits only: a number with a decimal comma, split.
    static func mayBeSplit(_ split: CSVRow, value v: Int?) -> Bool {
        guard let v else { return false }
        return split.holdsDigits(v) && split.holdsDigits(v + 1)
    }

    /// A decimal comma that was not quoted, `1,5` U read as 1 U: a whole-number value followed, in
    /// the column right after it, by digits where no number belongs: `unit`, `type`, `moment`,
    /// `note`, or a `duration` the event does not read. (Where a number does belong, a duration of a
    /// basal, the row is read; a file a spreadsheet saved has the row a field wider, `rowWidth`.)
    /// Returns the column and its field.
    func splitDecimal(_ split: CSVRow, event: String) -> (column: String, field: String)? {
        guard let column = afterValue, let v = positions[3], v + 1 < split.count, Self.mayBeSplit(split, value: v) else { return nil }
        if column == "duration" {
            let type = positions[6].flatMap { $0 < split.count && !split.isEmpty($0) ? split.text($0).lowercased() : nil }
            if Self.readsDuration(event, bolusType: type) { return nil }
        }
        return (column, split.text(v + 1))
    }

    /// Reads one data row (already split); fields become `String`s only when looked at.
    /// - Throws: `InputError` when a patient given (`--patient`) reads another patient's rows as
    ///   theirs and the file then names the given patient too.
    mutating func readRow(_ split: CSVRow, line: Int) throws {
        let file = self.file
        let loc = { (f: String) in SourceLocation(file: file, line: line, field: f) }
        guard !split.unterminatedQuote else {
            builder.skip("malformed row", at: loc("row"), "a quoted field is not closed; expected a closing '\"'")
            return builder.noteMalformedInsulin(Self.insulinKinds(malformed: split), line: line)
        }
        if let expected = split.tooWide(header: columnCount, commonWidth: rowWidth) {
            return builder.skipWideRow(fields: split.count, expected: expected, line: line, field: "row",
                                       insulin: Self.insulinKinds(malformed: split))
        }
        // The field readers look columns up in these copies, not through `self`: a call of
        // `self.position` from them copied the whole reader state (the builder with all it holds)
        // at every call, a sixth of the parse time.
        let positions = self.positions, columns = self.columns
        func field(_ name: String) -> String? {
            guard let i = Self.position(name, positions, columns) else { return nil }
            return i < split.count ? split.text(i) : nil
        }
        func optional(_ name: String) -> String? {
            guard let i = Self.position(name, positions, columns), i < split.count, !split.isEmpty(i) else { return nil }
            return split.text(i)
        }
        // With a patient given (`--patient`), the file's patient (its first id) is read as the one
        // given, and an empty cell is theirs; a row naming another patient is skipped as without it.
        let raw = field("patient") ?? ""
        if !fixedPatient || !raw.allSatisfy(\.isWhitespace) {
            let id: PatientID
            if let last = lastPatient, last.text.utf8.elementsEqual(raw.utf8) {
                id = last.id
            } else {
                let checked: PatientID
                do { checked = try PatientID(raw) } catch {
                    // The reason, not the text: it may be an e-mail or a name.
                    let mark = builder.skipMark
                    builder.skip("bad patient id", at: loc("patient"), "\(error)")
                    // A file holds one patient: an insulin row whose id is garbled is theirs as
                    // likely as not, and its dose was given.
                    if let kind = Self.insulinKind(event: (field("event") ?? "").lowercased()) {
                        let amounts = kind == .bolus || kind == .basalInjection ? [field("value")] : []
                        let time = field("time").flatMap { TimestampParser.iso8601($0) }.map { builder.latestInstant($0) }
                        builder.noteSkippedInsulin([kind], time: time, since: mark, amounts: amounts, at: loc("patient"))
                    }
                    return
                }
                id = checked
                lastPatient = (raw, checked)
            }
            if fixedPatient, let given = patient {
                let own = fileID ?? id
                fileID = own
                if id != own {
                    // Both would be stored as the given patient's: another person's insulin on board.
                    guard id != given else {
                        throw InputError(loc("patient"), "a row of patient '\(id)' after rows of '\(own)', which --patient '\(given)' reads as "
                                         + "theirs: the file holds two patients; split it, or read it as a mapped CSV (--columns), "
                                         + "which keeps only the rows of '\(given)'")
                    }
                    return builder.skip("other patient", at: loc("patient"),
                                        "row for patient '\(id)' in a file of patient '\(own)' (read as '\(given)'); expected one patient per file")
                }
            } else {
                if let patient, patient != id {
                    return builder.skip("other patient", at: loc("patient"),
                                        "row for patient '\(id)' in a file of patient '\(patient)'; expected one patient per file")
                }
                patient = id
            }
        }
        let iso = "ISO 8601, e.g. 2026-01-05T08:00 or 2026-01-05 08:00:00+01:00"
        let event = (field("event") ?? "").lowercased()
        guard let time = builder.time(field("time"), at: loc("time"), expected: iso, parse: { TimestampParser.iso8601($0) }) else {
            // A decimal comma before the time column (`0,5` U) leaves the amount unknown (not the
            // cancelled bolus `0` reads as), and may have moved the event out of its column.
            let shifted = Self.mayBeSplit(split, value: positions[3])
            if let kind = Self.insulinKind(event: event) {
                let amounts = (kind == .bolus || kind == .basalInjection) && !shifted ? [field("value")] : []
                builder.noteUndatedInsulin([kind], amounts: amounts, at: loc("time"))
            } else if shifted {
                builder.noteUndatedInsulin(Self.insulinKinds(malformed: split), at: loc("time"))
            }
            return
        }
        let before = builder.skipMark
        if let (column, fraction) = splitDecimal(split, event: event) {
            builder.skip("malformed row", at: loc(column),
                         "\(event) row: value '\(split.text(positions[3]!).prefix(20))' then '\(fraction.prefix(20))' in the \(column) column: "
                         + "a decimal comma? Write a point, or quote values holding commas")
            // The amount is not known (`0,5` U is a dose, not the cancelled bolus `0` reads as).
            if let kind = Self.insulinKind(event: event) { builder.noteSkippedInsulin(kind, time: time, since: before, at: loc("value")) }
            return
        }
        let unit = optional("unit")?.lowercased()
        func duration(_ range: ClosedRange<Double> = ImportLimits.durationMinutes) -> Double? {
            guard let d = optional("duration") else { return nil }
            return builder.number(d, at: loc("duration"), expected: "duration in minutes", range: range)
        }
        func requireUnit(_ allowed: [String], _ expected: String) -> Bool {
            guard let unit, !allowed.contains(unit) else { return true }
            builder.skip("unknown unit", at: loc("unit"), "unit '\(unit)' does not fit a \(event) row; expected \(expected)")
            return false
        }
        let value = field("value")
        switch event {
        case "glucose":
            let glucoseUnit: GlucoseUnit
            switch unit {
            case "mg/dl": glucoseUnit = .mgdL
            case "mmol/l": glucoseUnit = .mmolL
            default:
                return builder.skip(unit == nil ? "missing unit" : "unknown unit", at: loc("unit"),
                                    "'\(unit ?? "")' is not a glucose unit; expected mg/dL or mmol/L")
            }
            let source: GlucoseSource
            switch optional("type")?.lowercased() ?? "cgm" {
            case "cgm", "sensor": source = .cgm
            case "finger", "finger_stick", "meter", "bg": source = .fingerStick
            case let other:
                return builder.skip("unknown type", at: loc("type"), "glucose type '\(other)' is unknown; expected cgm or finger")
            }
            var moment: MealMoment?
            if let m = optional("moment") {
                guard let parsed = MealMoment(rawValue: m.lowercased()) else {
                    return builder.skip("unknown moment", at: loc("moment"),
                        "moment '\(m)' is unknown; expected one of \(MealMoment.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                moment = parsed
            }
            guard let (v, censoring) = builder.glucose(value, unit: glucoseUnit, at: loc("value")) else { return }
            var note = optional("note")
            if let text = note, text.utf8.count > ImportLimits.noteCharacters, text.count > ImportLimits.noteCharacters {
                // A note is a few words; megabytes in the column would ride along with every later read of the patient.
                note = String(text.prefix(ImportLimits.noteCharacters))
                builder.summary.issues.append(ImportIssue(.warning, loc("note"),
                    "note of \(text.count) characters cut to its first \(ImportLimits.noteCharacters); the reading is kept"))
                builder.summary.adjust("note cut to \(ImportLimits.noteCharacters) characters")
            }
            builder.add(GlucoseReading(time: time, value: v, source: source, censoring: censoring, moment: moment,
                                       note: note), at: loc("time"))
        case "bolus":
            let mark = builder.skipMark
            defer { builder.noteSkippedInsulin(.bolus, time: time, since: mark, amounts: [value], at: loc("value")) }
            guard requireUnit(["u"], "U") else { return }
            let typeText = optional("type")?.lowercased() ?? "normal"
            let type: BolusType
            switch typeText {
            case "normal": type = .normal
            case "normal_dual", "normal dual", "dual": type = .normalDual
            case "square", "square dual", "square_dual", "extended": type = .square
            default:
                return builder.skip("unknown type", at: loc("type"), "bolus type '\(typeText)' is unknown; expected normal, normal_dual or square")
            }
            var end: Date?
            if type != .normal {
                guard optional("duration") != nil else {
                    return builder.skip("missing field", at: loc("duration"), "a \(typeText) bolus needs its duration in minutes")
                }
                guard let d = duration() else { return }
                end = time.addingTimeInterval(d * 60)
            }
            guard let u = builder.number(value, at: loc("value"), expected: "insulin dose in U", range: ImportLimits.doseUnits) else { return }
            builder.add(Bolus(time: time, end: end, dose: InsulinUnits(u), type: type), at: loc("time"))
        case "basal", "temp_basal":
            let mark = builder.skipMark
            defer { builder.noteSkippedInsulin(event == "basal" ? .basal : .temporaryBasal, time: time, since: mark, at: loc("value")) }
            guard requireUnit(["u/h"], "U/h") else { return }
            var end: Date?
            if optional("duration") != nil {
                guard let d = duration() else { return }
                end = time.addingTimeInterval(d * 60)
            } else if event == "temp_basal" {
                return builder.skip("missing field", at: loc("duration"), "a temp_basal row needs its duration in minutes")
            }
            guard let r = builder.number(value, at: loc("value"), expected: "rate in U/h", range: ImportLimits.basalUnitsPerHour) else { return }
            let rate = InsulinRate(unitsPerHour: r)
            if event == "basal" {
                builder.add(BasalRate(start: time, end: end, rate: rate), at: loc("time"))
            } else if let end {
                builder.add(TemporaryBasal(start: time, end: end, rate: rate), at: loc("time"))
            }
        case "basal_injection":
            let mark = builder.skipMark
            defer { builder.noteSkippedInsulin(.basalInjection, time: time, since: mark, amounts: [value], at: loc("value")) }
            guard requireUnit(["u"], "U"),
                  let u = builder.number(value, at: loc("value"), expected: "insulin dose in U", range: ImportLimits.doseUnits) else { return }
            builder.add(BasalInjection(time: time, dose: InsulinUnits(u)), at: loc("time"))
        case "carbs":
            guard requireUnit(["g", "rations", "ration"], "g or rations"),
                  let amount = builder.number(value, at: loc("value"), expected: "carbohydrate in \(unit ?? "g")",
                                              range: unit?.hasPrefix("ration") == true ? ImportLimits.carbRations : ImportLimits.carbGrams) else { return }
            let carbs = unit?.hasPrefix("ration") == true ? Carbohydrate(rations: amount) : Carbohydrate(grams: amount)
            builder.add(CarbIntake(time: time, amount: carbs, mealType: OhioXMLHandler.mealType(optional("type"))), at: loc("time"))
        case "exercise":
            guard optional("duration") != nil else {
                return builder.skip("missing field", at: loc("duration"), "an exercise row needs its duration in minutes")
            }
            guard let d = duration(ImportLimits.exerciseMinutes),
                  let i = builder.number(value, at: loc("value"), expected: "exercise intensity 0-10", range: ImportLimits.exerciseIntensity)
            else { return }
            builder.add(ExerciseSession(time: time, intensity: i, durationMinutes: d), at: loc("time"))
        case "weight":
            guard requireUnit(["kg"], "kg"),
                  let kg = builder.number(value, at: loc("value"), expected: "weight in kg", range: ImportLimits.weightKilograms) else { return }
            builder.add(WeightRecord(time: time, kilograms: kg), at: loc("time"))
        case "heart_rate":
            guard requireUnit(["bpm"], "bpm"),
                  let b = builder.number(value, at: loc("value"), expected: "heart rate in bpm", range: ImportLimits.heartRateBPM) else { return }
            builder.add(HeartRateSample(time: time, beatsPerMinute: b), at: loc("time"))
        default:
            builder.skip("unknown event", at: loc("event"),
                         "event '\(event)' is unknown; expected glucose, bolus, basal, temp_basal, basal_injection, carbs, exercise, weight or heart_rate")
            // A comma too many before the event column (a decimal comma) moves an insulin event to the right.
            for kind in Self.insulinKinds(malformed: split) { builder.noteSkippedInsulin(kind, time: time, since: before, at: loc("event")) }
        }
    }
}
