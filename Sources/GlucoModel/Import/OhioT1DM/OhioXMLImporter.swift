import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads OhioT1DM XML (`<patient id weight insulin_type>` with sections of `<event .../>`).
///
/// Modelled sections: `glucose_level` (CGM) and `finger_stick` -> `GlucoseReading`; `basal` ->
/// `BasalRate` (from `ts` until the next basal); `temp_basal` -> `TemporaryBasal`; `bolus` -> `Bolus`;
/// `meal` -> `CarbIntake`; `exercise` -> `ExerciseSession`; `basis_heart_rate` -> `HeartRateSample`;
/// the patient's `weight` (0 = unknown) -> `WeightRecord` at the file's first record time.
/// Every other section (sleep, work, stressors, hypo_event, illness, basis_gsr, ...) is read and
/// counted in `otherRecords`. Times `dd-mm-YYYY HH:MM:SS` are local, in `ImportOptions.timeZone`.
///
/// The parser streams (SAX): memory does not grow with the file. Malformed or truncated XML
/// throws `InputError` with the file and line the parser stopped at.
public struct OhioXMLImporter: PatientDataImporter {
    public static let formatName = "ohio-xml"

    public init() {}

    /// A file with a `<patient>` element and OhioT1DM sections, or whose root element is
    /// `<patient ...>` (an export with no sections, or `<patient id="..."/>`: read, so that the
    /// message says it holds no records rather than that its format is unknown).
    public static func recognizes(head: String) -> Bool {
        head.contains("<patient") && (head.contains("<glucose_level") || head.contains("<event") || rootIsPatient(head))
    }

    /// Whether the first element, after a byte-order mark, an XML declaration and comments, is `<patient`.
    static func rootIsPatient(_ head: String) -> Bool {
        var rest = Substring(head)
        if rest.first == "\u{FEFF}" { rest = rest.dropFirst() }
        while true {
            rest = rest.drop { $0.isWhitespace }
            if rest.hasPrefix("<?"), let end = rest.range(of: "?>") {
                rest = rest[end.upperBound...]
            } else if rest.hasPrefix("<!--"), let end = rest.range(of: "-->") {
                rest = rest[end.upperBound...]
            } else {
                break
            }
        }
        guard rest.hasPrefix("<patient") else { return false }
        let next = rest.dropFirst("<patient".count).first
        return next == nil || next == "/" || next == ">" || next!.isWhitespace
    }

    public func importFile(at url: URL, options: ImportOptions) throws -> ImportResult {
        try LineReader(url: url).checkReadable()
        do {
            if let line = try UTF8Check.firstInvalidLine(in: url) {
                throw InputError(SourceLocation(file: url.path, line: line),
                                  "bytes that are not UTF-8 text; expected an OhioT1DM XML file in UTF-8")
            }
        } catch let error as InputError { throw error } catch {
            throw InputError(SourceLocation(file: url.path), "cannot read the file (\(error.localizedDescription))")
        }
        // By its path: a URL under a working folder deeper than about 1 KB gave the parser no stream
        // (a crash in _CFStreamOpen), and a long absolute one read as a truncated file (hunt P).
        guard let stream = InputStream(fileAtPath: url.path) else {
            throw InputError(SourceLocation(file: url.path), "cannot open the file")
        }
        let parser = XMLParser(stream: stream)
        let handler = OhioXMLHandler(file: url.path, options: options)
        parser.delegate = handler
        let ok = parser.parse()
        if let error = handler.fatalError { throw error }
        if !ok || parser.parserError != nil || handler.firstErrorLine != nil || !handler.sawPatientEnd {
            let line = handler.firstErrorLine ?? parser.lineNumber
            let code = handler.firstErrorCode ?? (parser.parserError as NSError?)?.code
            let what = code.map(Self.describe) ?? "the document ends before </patient>"
            throw InputError(SourceLocation(file: url.path, line: line > 0 ? line : nil),
                              "malformed XML: \(what); expected a complete OhioT1DM <patient> document (truncated file?)")
        }
        return try handler.finish()
    }
}

extension OhioXMLImporter {
    /// A readable name for libxml2's most common error codes.
    static func describe(_ code: Int) -> String {
        switch code {
        case 4: return "the document is empty"
        case 5: return "the document ends early"
        case 38, 39, 40, 41: return "an attribute is not closed"
        case 65, 73: return "a tag is not closed"
        case 76: return "a closing tag does not match its opening tag"
        case 85: return "a closing tag is missing"
        case 9: return "an invalid character"
        case 26, 27: return "an entity that is not declared"
        case 28, 29, 30: return "an external or unparsed entity, which an export never holds and is not read"
        case 89: return "an entity that refers to itself or expands without end, which is not read"
        default: return "XML error \(code)"
        }
    }
}

/// The SAX delegate: tracks the current section and turns each `<event>` into a record.
final class OhioXMLHandler: NSObject, XMLParserDelegate {
    let file: String
    var builder: PatientLogBuilder
    var patientID: PatientID?
    var weight: (kg: Double, line: Int)?
    var section: String?
    var depth = 0
    var sawPatientEnd = false
    var fatalError: InputError?
    /// Where the parser first reported a problem (later `lineNumber` may be the end of the file).
    var firstErrorLine: Int?
    var firstErrorCode: Int?
    /// A dual-wave bolus's part (`normal dual` or `square dual`) waiting for the other part at its
    /// `ts_begin` on the next event: the two are one bolus (`readBolus`).
    var pendingDual: (bolus: Bolus, immediatePart: Bool, begin: String, location: SourceLocation)?

    init(file: String, options: ImportOptions) {
        self.file = file
        builder = PatientLogBuilder(file: file, options: options)
        builder.endsFollowStart = false  // its records write their own ts_end
        patientID = options.patient
    }

    func fail(_ parser: XMLParser, _ line: Int, _ message: String) {
        if fatalError == nil { fatalError = InputError(SourceLocation(file: file, line: line), message) }
        parser.abortParsing()
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        depth += 1
        let line = parser.lineNumber
        switch depth {
        case 1:
            guard name == "patient" else {
                return fail(parser, line, "the root element is <\(name)>; expected <patient> (OhioT1DM XML)")
            }
            readPatient(attributes, line: line, parser)
        case 2:
            section = name
            // Each section is in its own time order (glucose, then boluses, ...).
            builder.startStream()
        case 3 where name == "event":
            builder.summary.rowsRead += 1
            readEvent(attributes, line: line)
        default:
            builder.summary.rowsRead += 1
            builder.skip("unexpected element", at: SourceLocation(file: file, line: line, field: name),
                         "<\(name)> is not expected here; expected <event .../> inside a section")
        }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if depth == 1 { sawPatientEnd = true }
        if depth == 2 { keepPendingDual(); section = nil }
        depth -= 1
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        if firstErrorLine == nil {
            firstErrorLine = parser.lineNumber
            firstErrorCode = (parseError as NSError).code
        }
    }

    func readPatient(_ a: [String: String], line: Int, _ parser: XMLParser) {
        if patientID == nil {
            guard let raw = a["id"] else {
                return fail(parser, line, "<patient> has no id attribute; pass the patient id in the options")
            }
            do { patientID = try PatientID(raw) } catch {
                return fail(parser, line, "\(error)")
            }
        }
        if let w = a["weight"] {
            let loc = SourceLocation(file: file, line: line, field: "weight")
            if let kg = NumberText.read(w), kg == 0 {
                // 0 means unknown in OhioT1DM: nothing to keep, nothing to report.
            } else {
                builder.summary.rowsRead += 1
                if let kg = builder.number(w, at: loc, expected: "body weight in kg (0 = unknown)", range: ImportLimits.weightKilograms) {
                    weight = (kg, line)
                }
            }
        }
        if let t = a["insulin_type"]?.lowercased() {
            builder.insulinKind = t.contains("ultra") ? .ultraRapid : t.contains("rapid") ? .rapid
                : t.contains("long") ? .longActing : .unknown
        }
    }

    func readEvent(_ a: [String: String], line: Int) {
        guard let section else { return }
        // A dual-wave part whose other part is not this event stands alone, added before this
        // event's time is read (its own row's, for a repeated hour).
        if let p = pendingDual, !(section == "bolus" && a["ts_begin"] == p.begin && Self.dualPart(a["type"]) == !p.immediatePart) {
            keepPendingDual()
        }
        func loc(_ field: String) -> SourceLocation { SourceLocation(file: file, line: line, field: field) }
        let ohioTime = "dd-mm-YYYY HH:MM:SS"
        func time(_ field: String) -> Date? {
            builder.time(a[field], at: loc(field), expected: ohioTime, parse: { TimestampParser.dayMonthYear($0) })
        }
        switch section {
        case "glucose_level", "finger_stick":
            guard let t = time("ts"), let (v, censoring) = builder.glucose(a["value"], unit: .mgdL, at: loc("value")) else { return }
            builder.add(GlucoseReading(time: t, value: v, source: section == "finger_stick" ? .fingerStick : .cgm,
                                       censoring: censoring), at: loc("ts"))
        case "basal":
            guard let t = time("ts") else { return builder.noteUndatedInsulin([.basal], at: loc("ts")) }
            let mark = builder.skipMark
            defer { builder.noteSkippedInsulin(.basal, time: t, since: mark, at: loc("value")) }
            guard let r = builder.number(a["value"], at: loc("value"), expected: "basal rate in U/h",
                                         range: ImportLimits.basalUnitsPerHour) else { return }
            builder.add(BasalRate(start: t, rate: InsulinRate(unitsPerHour: r)), at: loc("ts"))
        case "temp_basal":
            guard let start = time("ts_begin") else {
                return builder.noteUndatedInsulin([.temporaryBasal], notAfter: end(a), at: loc("ts_begin"))
            }
            let mark = builder.skipMark
            defer { builder.noteSkippedInsulin(.temporaryBasal, time: start, since: mark, at: loc("value")) }
            guard let end = time("ts_end"),
                  let r = builder.number(a["value"], at: loc("value"), expected: "temporary basal rate in U/h (0 = suspended)",
                                         range: ImportLimits.basalUnitsPerHour) else { return }
            guard end >= start else {
                return builder.skip("end before start", at: loc("ts_end"), "ts_end is before ts_begin; expected an end at or after the start")
            }
            builder.add(TemporaryBasal(start: start, end: end, rate: InsulinRate(unitsPerHour: r)), at: loc("ts_begin"))
        case "bolus":
            readBolus(a, line: line, time: time)
        case "meal":
            guard let t = time("ts"),
                  let g = builder.number(a["carbs"], at: loc("carbs"), expected: "carbohydrates in g", range: ImportLimits.carbGrams)
            else { return }
            builder.add(CarbIntake(time: t, amount: Carbohydrate(grams: g), mealType: Self.mealType(a["type"])), at: loc("ts"))
        case "exercise":
            guard let t = time("ts"),
                  let i = builder.number(a["intensity"], at: loc("intensity"), expected: "intensity 0-10 (0 = at rest)",
                                         range: ImportLimits.exerciseIntensity),
                  let d = builder.number(a["duration"], at: loc("duration"), expected: "duration in minutes",
                                         range: ImportLimits.exerciseMinutes) else { return }
            builder.add(ExerciseSession(time: t, intensity: i, durationMinutes: d), at: loc("ts"))
        case "basis_heart_rate":
            guard let t = time("ts"),
                  let v = builder.number(a["value"], at: loc("value"), expected: "heart rate in beats per minute",
                                         range: ImportLimits.heartRateBPM) else { return }
            builder.add(HeartRateSample(time: t, beatsPerMinute: v), at: loc("ts"))
        default:
            builder.addNotModelled(section)
        }
    }

    /// The latest `ts_end` can be, when it reads (for a row whose `ts_begin` does not: it began by then).
    func end(_ a: [String: String]) -> Date? {
        guard let text = a["ts_end"], let written = TimestampParser.dayMonthYear(text) else { return nil }
        return builder.latestInstant(written)
    }

    func readBolus(_ a: [String: String], line: Int, time: (String) -> Date?) {
        let file = self.file
        let loc = { (f: String) in SourceLocation(file: file, line: line, field: f) }
        guard let start = time("ts_begin") else {
            return builder.noteUndatedInsulin([.bolus], amounts: [a["dose"]], notAfter: end(a), at: loc("ts_begin"))
        }
        let mark = builder.skipMark
        defer { builder.noteSkippedInsulin(.bolus, time: start, since: mark, amounts: [a["dose"]], at: loc("dose")) }
        guard let end = time("ts_end"),
              let dose = builder.number(a["dose"], at: loc("dose"), expected: "insulin dose in U", range: ImportLimits.doseUnits)
        else { return }
        let typeText = (a["type"] ?? "normal").lowercased()
        let type: BolusType
        switch typeText {
        case "normal": type = .normal
        case "normal dual", "normal_dual", "dual": type = .normalDual
        case "square dual", "square", "square_dual": type = .square
        default:
            return builder.skip("unknown bolus type", at: loc("type"),
                                "bolus type '\(typeText)' is unknown; expected normal, normal dual or square dual")
        }
        guard end >= start else {
            return builder.skip("end before start", at: loc("ts_end"), "ts_end is before ts_begin; expected an end at or after the start")
        }
        var carbInput: Carbohydrate?
        if let c = a["bwz_carb_input"], !c.trimmingSpaces().isEmpty {
            if let g = NumberText.read(c), g == 0 || ImportLimits.carbGrams.contains(g) {
                if g > 0 { carbInput = Carbohydrate(grams: g) }  // 0 g: no carbohydrate entered
            } else {
                builder.summary.issues.append(ImportIssue(.warning, loc("bwz_carb_input"),
                    "'\(c)' is not a carbohydrate amount in g (0 or up to 500); the bolus is kept without it"))
                builder.summary.adjust("bolus kept without its bad bwz_carb_input")
            }
        }
        let kind: InsulinKind = builder.insulinKind == .ultraRapid ? .ultraRapid : .rapid
        let bolus = Bolus(time: start, end: end == start ? nil : end, dose: InsulinUnits(dose), type: type,
                          kind: kind, carbInput: carbInput)
        // A dual-wave bolus written as its two parts at one ts_begin, as a Medtronic pump's CareLink
        // export writes it ("Dual (normal part)", "Dual (square part)"): one bolus of both. Read
        // apart they were one record's conflicting duplicate: the second dropped, 2 U of a 4 U
        // bolus left out of insulin on board (review BR, stop 63).
        if let immediatePart = Self.dualPart(typeText), let begin = a["ts_begin"] {
            if let p = pendingDual, p.begin == begin, p.immediatePart != immediatePart {
                pendingDual = nil
                let (now, spread) = immediatePart ? (bolus, p.bolus) : (p.bolus, bolus)
                let joined: Bolus
                if spread.dose.units == 0 {
                    joined = Bolus(time: start, dose: now.dose, kind: kind, carbInput: now.carbInput ?? spread.carbInput)
                } else if now.dose.units == 0 {
                    joined = Bolus(time: start, end: spread.end, dose: spread.dose, type: .square, kind: kind,
                                   carbInput: now.carbInput ?? spread.carbInput)
                } else {
                    joined = Bolus(time: start, end: spread.end, dose: InsulinUnits(now.dose.units + spread.dose.units), type: .normalDual,
                                   kind: kind, carbInput: now.carbInput ?? spread.carbInput, immediate: now.dose)
                }
                return builder.add(joined, at: p.location)
            }
            pendingDual = (bolus, immediatePart, begin, loc("ts_begin"))
            return
        }
        builder.add(bolus, at: loc("ts_begin"))
    }

    /// Whether `type` names a dual-wave bolus's part: true for its immediate part (`normal dual`),
    /// false for its spread part (`square dual`), nil for anything else (`dual`, a whole dual-wave
    /// bolus; `square`, a square-wave one).
    static func dualPart(_ type: String?) -> Bool? {
        switch type?.lowercased() {
        case "normal dual", "normal_dual": true
        case "square dual", "square_dual": false
        default: nil
        }
    }

    /// The dual-wave part waiting for its other part, added as it was read before parts were joined
    /// (a `normal dual` alone as a dual-wave bolus of its dose, a `square dual` as a square one).
    func keepPendingDual() {
        guard let p = pendingDual else { return }
        pendingDual = nil
        builder.add(p.bolus, at: p.location)
    }

    static func mealType(_ text: String?) -> MealType {
        switch text?.lowercased() {
        case "breakfast": return .breakfast
        case "lunch": return .lunch
        case "dinner": return .dinner
        case "snack": return .snack
        case "hypocorrection", "hypo correction", "hypo_correction": return .hypoCorrection
        default: return .unspecified
        }
    }

    func finish() throws -> ImportResult {
        keepPendingDual()
        guard let patientID else {
            throw InputError(SourceLocation(file: file), "no <patient> element; expected an OhioT1DM XML document")
        }
        if let weight {
            // OhioT1DM gives one weight per patient, undated: it is placed at the first record,
            // after the last section's rows are ended (its time is no row's).
            builder.startStream()
            let time = builder.firstRecordTime ?? builder.options.now
            builder.add(WeightRecord(time: time, kilograms: weight.kg),
                        at: SourceLocation(file: file, line: weight.line, field: "weight"))
        }
        return try builder.build(patient: patientID)
    }
}
