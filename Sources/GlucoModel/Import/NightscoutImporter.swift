import Foundation

/// Reads a Nightscout JSON export: an array of `entries`, an array of `treatments`, or an object
/// holding both (`{"entries": [...], "treatments": [...]}`; other members such as `devicestatus`
/// are counted in `otherRecords`). Streamed element by element (`JSONElementStream`).
///
/// - entries: `sgv` -> CGM reading, `mbg` -> finger stick (mg/dL, Nightscout's storage unit);
///   time from `date` (epoch ms), else `dateString`/`sysTime` (ISO 8601). `cal` and other types
///   are counted. The same reading uploaded by two devices (same value within 30 s) is kept once
///   and counted as `duplicate`.
/// - treatments (time from `created_at`, else `timestamp`/`date`/`mills`): `insulin` > 0 ->
///   `Bolus` (`Combo Bolus` with `duration` min -> dual bolus ending then), `carbs` > 0 ->
///   `CarbIntake` (`Snack Bolus` -> snack, `Carb Correction` -> hypo correction);
///   `Temp Basal` with `duration` (min) and `absolute` or `rate` (U/h) -> `TemporaryBasal`, ended
///   early by a later temp basal or a cancel (`duration` 0, counted in `otherRecords`);
///   `BG Check` with `glucose` and `units` -> finger stick; anything else is counted by `eventType`.
public struct NightscoutImporter: PatientDataImporter {
    public static let formatName = "nightscout-json"

    public init() {}

    public static func recognizes(head: String) -> Bool {
        guard let first = head.first(where: { !$0.isWhitespace && $0 != "\u{FEFF}" }), first == "[" || first == "{" else { return false }
        return head.contains("\"sgv\"") || head.contains("\"mbg\"") || head.contains("\"eventType\"")
            || head.contains("\"entries\"") || head.contains("\"treatments\"")
    }

    public func importFile(at url: URL, options: ImportOptions) throws -> ImportResult {
        var b = PatientLogBuilder(file: url.lastPathComponent, options: options, duplicates: .uploadWindow)
        var cancels: [Date] = []
        var container: String?
        let stream = JSONElementStream(url: url)
        let packed = stream.isPacked()
        try stream.forEach { element in
            if packed { b.record = element.index }
            // Entries and treatments are each in their own time order.
            if element.container != container { b.startTimeOrder(); container = element.container }
            guard let record = b.read(element) else { return }
            guard case .object = record else {
                b.skip("not an object", line: element.line, field: nil, "found \(record.brief); expected an entry or treatment object")
                return
            }
            switch element.container {
            case "entries"?: entry(record, line: element.line, &b)
            case "treatments"?: treatment(record, line: element.line, &b, &cancels)
            case nil:
                if record["eventType"] != nil { treatment(record, line: element.line, &b, &cancels) } else { entry(record, line: element.line, &b) }
            case let key?:
                b.addNotModelled("Nightscout \(key.prefix(40))")
            }
        }
        b.record = nil
        b.endTemporaryBasals(at: cancels)
        return try b.build()
    }

    // Time keys, made once (array literals in the per-record calls were an allocation per record).
    static let entryMsKeys = ["date"], entryIsoKeys = ["dateString", "sysTime"]
    static let treatmentMsKeys = ["date", "mills"], treatmentIsoKeys = ["created_at", "timestamp"]

    /// The record's time: epoch milliseconds in `msKeys`, else ISO 8601 text in `isoKeys`.
    func time(_ r: JSONValue, msKeys: [String], isoKeys: [String], line: Int, _ b: inout PatientLogBuilder) -> Date? {
        for key in msKeys {
            guard let v = r[key] else { continue }
            if let ms = v.number {
                guard abs(ms) < 1e15 else { break }
                return Date(timeIntervalSince1970: ms / 1000)
            }
            if case let .string(s) = v, let w = TimestampParser.iso8601(s) { return b.instant(w) }
        }
        for key in isoKeys {
            guard case let .string(s)? = r[key] else { continue }
            if let w = TimestampParser.iso8601(s) { return b.instant(w) }
            if let ms = CSVRow.number(s), abs(ms) < 1e15 { return Date(timeIntervalSince1970: ms / 1000) }
        }
        let names = (msKeys + isoKeys).joined(separator: "/")
        b.skip("no time", line: line, field: names, "no readable time; expected \(names) as epoch ms or ISO 8601")
        return nil
    }

    func entry(_ r: JSONValue, line: Int, _ b: inout PatientLogBuilder) {
        let type = r["type"]?.string ?? (r["sgv"] != nil ? "sgv" : r["mbg"] != nil ? "mbg" : "")
        guard type == "sgv" || type == "mbg" else {
            b.addNotModelled(type.isEmpty ? "Nightscout entry without type" : "Nightscout \(type.prefix(40))")
            return
        }
        guard let t = time(r, msKeys: Self.entryMsKeys, isoKeys: Self.entryIsoKeys, line: line, &b),
              b.acceptTime(t, line: line, field: "date", glucose: true) else { return }
        guard let raw = r[type] else {
            b.skip("no glucose value", line: line, field: type, "\(type) entry has no '\(type)' value; expected mg/dL")
            return
        }
        if case let .string(s) = raw, let c = PatientLogBuilder.censoring(s) {
            b.addCensored(c, time: t, source: type == "sgv" ? .cgm : .fingerStick, at: b.location(line, "date"))
            return
        }
        // `text` (number formatting) only for the message of a value that is not a number.
        let g0 = raw.numeric
        if let g = b.glucose(g0, text: g0 == nil ? raw.text : "", unit: .mgdL, line: line, field: type) {
            b.add(GlucoseReading(time: t, value: g, source: type == "sgv" ? .cgm : .fingerStick), line: line, field: "date")
        }
    }

    /// A positive amount in `key`, nil when absent, null or 0 (no dose), a warning when malformed.
    func amount(_ r: JSONValue, _ key: String, _ range: ClosedRange<Double>, _ unit: String, line: Int, _ b: inout PatientLogBuilder) -> Double? {
        guard let v = r[key], v != .null else { return nil }
        let n = v.numeric
        if n == 0 { return nil }
        return b.value(n, text: n == nil ? v.text : "", in: range, unit: unit, reason: "value out of range", line: line, field: key)
    }

    /// The insulin records a treatment holds: a temporary basal (not a cancel), or a bolus when it has insulin.
    static func insulinKinds(_ r: JSONValue, type: String) -> [RecordKind] {
        if type == "Temp Basal" { return r["duration"]?.numeric == 0 ? [] : [.temporaryBasal] }
        guard let insulin = r["insulin"], insulin != .null else { return [] }
        return [.bolus]
    }

    func treatment(_ r: JSONValue, line: Int, _ b: inout PatientLogBuilder, _ cancels: inout [Date]) {
        let type = r["eventType"]?.string ?? ""
        let kinds = Self.insulinKinds(r, type: type), amounts = type == "Temp Basal" ? [] : [r["insulin"]?.text]
        guard let t = time(r, msKeys: Self.treatmentMsKeys, isoKeys: Self.treatmentIsoKeys, line: line, &b) else {
            return b.noteUndatedInsulin(kinds, amounts: amounts, at: b.location(line, "created_at"))
        }
        guard b.acceptTime(t, line: line, field: "created_at", insulin: kinds, glucose: type == "BG Check" && r["glucose"] != nil,
                           amounts: amounts) else { return }
        if type == "Temp Basal" {
            let mark = b.skipMark
            defer { b.noteSkippedInsulin(.temporaryBasal, time: t, since: mark, at: b.location(line, "absolute")) }
            guard let d = r["duration"]?.numeric, ImportLimits.durationMinutes.contains(d) else {
                b.skip("temp basal without duration", line: line, field: "duration",
                       "Temp Basal has duration \(r["duration"]?.brief ?? "missing"); expected minutes, 0-10080")
                return
            }
            if d == 0 { b.addNotModelled("Nightscout Temp Basal cancel"); cancels.append(t); return }
            guard let rateValue = r["absolute"] ?? r["rate"] else {
                b.skip("temp basal without rate", line: line, field: "absolute",
                       "Temp Basal has no absolute or rate; expected U/h (percent-only temp basals cannot be resolved without the profile)")
                return
            }
            guard let rate = b.value(rateValue.numeric, text: rateValue.text, in: ImportLimits.basalUnitsPerHour, unit: "U/h",
                                     reason: "value out of range", line: line, field: "absolute") else { return }
            b.add(TemporaryBasal(start: t, end: t.addingTimeInterval(d * 60), rate: InsulinRate(unitsPerHour: rate)), line: line, field: "created_at")
            return
        }
        if type == "BG Check", let gv = r["glucose"] {
            let units = (r["units"]?.string ?? "mg/dl").lowercased()
            let unit: GlucoseUnit = units.hasPrefix("mmol") ? .mmolL : .mgdL
            if let g = b.glucose(gv.numeric, text: gv.text, unit: unit, line: line, field: "glucose") {
                b.add(GlucoseReading(time: t, value: g, source: .fingerStick), line: line, field: "created_at")
            }
            return
        }
        let mark = b.skipMark
        let insulin = amount(r, "insulin", ImportLimits.doseUnits, "U", line: line, &b)
        b.noteSkippedInsulin(.bolus, time: t, since: mark, at: b.location(line, "insulin"))
        let carbs = amount(r, "carbs", ImportLimits.carbGrams, "g", line: line, &b)
        if let insulin {
            var bolus = Bolus(time: t, dose: InsulinUnits(insulin), kind: .rapid, carbInput: carbs.map { Carbohydrate(grams: $0) })
            if type == "Combo Bolus", let d = r["duration"]?.numeric, d > 0, ImportLimits.durationMinutes.contains(d) {
                bolus.type = .normalDual
                bolus.end = t.addingTimeInterval(d * 60)
            }
            b.add(bolus, line: line, field: "created_at")
        }
        if let carbs {
            let meal: MealType = type == "Snack Bolus" ? .snack : type == "Carb Correction" ? .hypoCorrection : .unspecified
            b.add(CarbIntake(time: t, amount: Carbohydrate(grams: carbs), mealType: meal), line: line, field: "created_at")
        }
        let hadAmount = ["insulin", "carbs"].contains { k in r[k].map { $0 != .null && $0.numeric != 0 } ?? false }
        if insulin == nil && carbs == nil && !hadAmount {
            b.addNotModelled(type.isEmpty ? "Nightscout treatment without eventType" : "Nightscout \(type.prefix(40))")
        }
    }
}
