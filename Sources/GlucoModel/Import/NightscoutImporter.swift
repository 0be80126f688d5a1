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
///   `Bolus`, `carbs` > 0 -> `CarbIntake` (`Snack Bolus` -> snack, `Carb Correction` -> hypo
///   correction); `Combo Bolus` with `duration` min -> a dual bolus ending then, of
///   `enteredinsulin` U (the total; Nightscout's careportal writes the part given at once in
///   `insulin`, AndroidAPS's extended bolus none), else `insulin` + `relative` U/h over the
///   duration, else `insulin`; with nothing given at once, a square bolus;
///   `Temp Basal` with `duration` (min) and `absolute` or `rate` (U/h) -> `TemporaryBasal`, ended
///   early by a later temp basal or a cancel (`duration` 0, counted in `otherRecords`); a `rate`
///   that is its own `percent` + 100 with no `absolute` (AndroidAPS builds of about 2021 wrote a
///   percentage temp so) is a percentage, not U/h: skipped; `Suspend Pump` to the next
///   `Resume Pump` (Loop's) -> `TemporaryBasal` at 0 U/h, a suspension without a resume skipped;
///   the units of a long-acting insulin named in `insulinInjections` (xDrip+'s pens) -> `BasalInjection`;
///   `BG Check` with `glucose` and `units` -> finger stick; anything else is counted by `eventType`.
public struct NightscoutImporter: PatientDataImporter {
    public static let formatName = "nightscout-json"

    public init() {}

    public static func recognizes(head: String) -> Bool {
        guard let first = head.first(where: { !$0.isWhitespace && $0 != "\u{FEFF}" }), first == "[" || first == "{" else { return false }
        return head.contains("\"sgv\"") || head.contains("\"mbg\"") || head.contains("\"eventType\"")
            || head.contains("\"entries\"") || head.contains("\"treatments\"")
    }

    /// Loop's pump suspensions and resumptions, paired in time order once the file is read (the
    /// Nightscout API returns treatments newest first: paired in file order, every suspension of such
    /// a file read as without a resume; review AZ of stop 60).
    struct Suspensions {
        var events: [(time: PatientLogBuilder.HeldTime, suspend: Bool, line: Int)] = []

        /// Each suspension to the next resumption as 0 U/h; one repeated at its instant is one; one
        /// with no resumption after it (another suspension first, or none) is skipped insulin.
        func add(to b: inout PatientLogBuilder) {
            guard !events.isEmpty else { return }
            b.startStream()  // rows of a repeated hour decided, so each event's time is its row's
            let timed = events.map { (time: b.time(of: $0.time), suspend: $0.suspend, line: $0.line) }
            let sorted = timed.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
            var open: (time: Date, line: Int)?
            var unended: [(time: Date, line: Int)] = []
            for event in sorted {
                if event.suspend {
                    if let o = open {
                        if o.time == event.time { b.addNotModelled("Nightscout Suspend Pump repeated"); continue }
                        unended.append(o)
                    }
                    open = (event.time, event.line)
                } else if let o = open {
                    b.add(TemporaryBasal(start: o.time, end: event.time, rate: InsulinRate(unitsPerHour: 0)), line: o.line, field: "created_at")
                    open = nil
                } else {
                    b.addNotModelled("Nightscout Resume Pump")
                }
            }
            if let open { unended.append(open) }
            for suspend in unended {
                let mark = b.skipMark
                b.skip("suspension without resume", line: suspend.line, field: "eventType",
                       "Suspend Pump has no later Resume Pump: how long the pump delivered nothing is not known "
                       + "(an export of the same days that holds both, imported too, settles it)")
                b.noteSkippedInsulin(.temporaryBasal, time: suspend.time, since: mark, at: b.location(suspend.line, "eventType"))
            }
        }
    }

    public func importFile(at url: URL, options: ImportOptions) throws -> ImportResult {
        var b = PatientLogBuilder(file: url.lastPathComponent, options: options, duplicates: .uploadWindow)
        var suspensions = Suspensions()
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
            case "treatments"?: treatment(record, line: element.line, &b, &suspensions)
            case nil:
                if record["eventType"] != nil {
                    treatment(record, line: element.line, &b, &suspensions)
                } else {
                    entry(record, line: element.line, &b)
                }
            case let key?:
                b.addNotModelled("Nightscout \(key.prefix(40))")
            }
        }
        b.record = nil
        suspensions.add(to: &b)
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
        if type == "Suspend Pump" { return [.temporaryBasal] }
        let keys = type == "Combo Bolus" ? ["insulin", "enteredinsulin"] : ["insulin"]
        return keys.contains { r[$0].map { $0 != .null } ?? false } ? [.bolus] : []
    }

    /// A field's value, nil when absent or null (`"absolute": null` beside a `rate` is no absolute).
    static func given(_ r: JSONValue, _ key: String) -> JSONValue? {
        guard let v = r[key], v != .null else { return nil }
        return v
    }

    func treatment(_ r: JSONValue, line: Int, _ b: inout PatientLogBuilder,
                   _ suspensions: inout Suspensions) {
        let type = r["eventType"]?.string ?? ""
        let kinds = Self.insulinKinds(r, type: type)
        let amounts = type == "Temp Basal" || type == "Suspend Pump" ? [] : [(Self.given(r, "enteredinsulin") ?? r["insulin"])?.text]
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
            if d == 0 { return b.cancelTemporaryBasal(at: t, location: b.location(line, "created_at"), as: "Nightscout Temp Basal cancel") }
            guard let rateValue = Self.given(r, "absolute") ?? Self.given(r, "rate") else {
                b.skip("temp basal without rate", line: line, field: "absolute",
                       "Temp Basal has no absolute or rate; expected U/h (percent-only temp basals cannot be resolved without the profile)")
                return
            }
            // AndroidAPS builds of about 2021 wrote a percentage temp as `rate` = the percentage and
            // `percent` = it - 100, with no `absolute`: 40% read as 40 U/h put 36 U on board (hunt AX).
            // (0% is 0 U/h either way: AndroidAPS's loop on a percent pump writes `rate` 0, `percent` -100.)
            if Self.given(r, "absolute") == nil, let p = Self.given(r, "percent")?.numeric, let v = rateValue.numeric, v != 0,
               abs(v - (p + 100)) < 0.01 {
                b.skip("temp basal in percent", line: line, field: "rate",
                       "Temp Basal rate \(trimmedNumber(v)) is its percentage of the basal (percent \(trimmedNumber(p))), not U/h; "
                       + "percent-only temp basals cannot be resolved without the profile")
                return
            }
            guard let rate = b.value(rateValue.numeric, text: rateValue.text, in: ImportLimits.basalUnitsPerHour, unit: "U/h",
                                     reason: "value out of range", line: line, field: "absolute") else { return }
            b.add(TemporaryBasal(start: t, end: t.addingTimeInterval(d * 60), rate: InsulinRate(unitsPerHour: rate)), line: line, field: "created_at")
            return
        }
        // Loop uploads a pump suspension as `Suspend Pump`, then `Resume Pump`, with no temp basal
        // for it: read as not modelled, the scheduled basal counted as given (hunt AX: net insulin on
        // board 0.10 U where -1.56 U was right, and a dose 1.65 U too low).
        if type == "Suspend Pump" || type == "Resume Pump" {
            suspensions.events.append((b.hold(t), type == "Suspend Pump", line))
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
        let insulin: Double?, combo: (now: Double?, end: Date)?
        if type == "Combo Bolus" {
            (insulin, combo) = comboBolus(r, time: t, line: line, &b)
        } else {
            (insulin, combo) = (amount(r, "insulin", ImportLimits.doseUnits, "U", line: line, &b), nil)
        }
        b.noteSkippedInsulin(.bolus, time: t, since: mark, at: b.location(line, type == "Combo Bolus" ? "enteredinsulin" : "insulin"))
        let carbs = amount(r, "carbs", ImportLimits.carbGrams, "g", line: line, &b)
        // xDrip+ names a pen's insulin in `insulinInjections`: a long-acting dose is the basal of a
        // person on pens, not a bolus (hunt BA: 16 U of Tresiba read as rapid insulin on board, and
        // a breakfast got "no insulin, watch for a low" where 5 U was right).
        var rapid = insulin
        if let insulin, let longActing = Self.longActingUnits(r), longActing > 0 {
            b.add(BasalInjection(time: t, dose: InsulinUnits(min(longActing, insulin))), line: line, field: "created_at")
            rapid = insulin - longActing > 1e-9 ? insulin - longActing : nil
        }
        if let insulin = rapid {
            var bolus = Bolus(time: t, dose: InsulinUnits(insulin), kind: .rapid, carbInput: carbs.map { Carbohydrate(grams: $0) })
            if let combo {
                bolus.type = combo.now == 0 ? .square : .normalDual
                bolus.end = combo.end
                // The part given at once, where the record says it apart from the total.
                if let now = combo.now, now > 0 { bolus.immediate = InsulinUnits(now) }
            }
            b.add(bolus, line: line, field: "created_at")
        }
        if let carbs {
            let meal: MealType = type == "Snack Bolus" ? .snack : type == "Carb Correction" ? .hypoCorrection : .unspecified
            b.add(CarbIntake(time: t, amount: Carbohydrate(grams: carbs), mealType: meal), line: line, field: "created_at")
        }
        let hadAmount = ["insulin", "enteredinsulin", "carbs"].contains { k in r[k].map { $0 != .null && $0.numeric != 0 } ?? false }
        if insulin == nil && carbs == nil && !hadAmount {
            b.addNotModelled(type.isEmpty ? "Nightscout treatment without eventType" : "Nightscout \(type.prefix(40))")
        }
    }

    /// Long-acting insulin names (glargine, degludec, detemir, icodec and NPH brands, and words saying so), as
    /// an uploader writes them in `insulinInjections`.
    static let longActingNames = ["lantus", "toujeo", "tresiba", "levemir", "abasaglar", "basaglar", "semglee", "rezvoglar",
                                  "glargin", "degludec", "detemir", "insulatard", "protaphane", "humulin n", "humulin i",
                                  "novolin n", "nph", "isophane", "optisulin", "lusduna", "ultratard", "awiqli", "icodec",
                                  "long-acting", "long acting", "basal"]

    /// The long-acting units of a treatment's `insulinInjections` (xDrip+'s: a JSON text, or an array,
    /// of `{"insulin": name, "units": n}`), nil when it has none or cannot be read.
    static func longActingUnits(_ r: JSONValue) -> Double? {
        guard let field = given(r, "insulinInjections") else { return nil }
        var list = field
        if case let .string(text) = field {
            guard let parsed = try? JSONParser.parse(Array(text.utf8)) else { return nil }
            list = parsed
        }
        guard case let .array(items) = list else { return nil }
        let units = items.compactMap { item -> Double? in
            guard let name = item["insulin"]?.string?.lowercased(), longActingNames.contains(where: { name.contains($0) }),
                  let n = item["units"]?.numeric, n.isFinite, n > 0 else { return nil }
            return n
        }
        return units.isEmpty ? nil : units.reduce(0, +)
    }

    /// A `Combo Bolus`'s whole dose and, when it has a duration, the part given at once (nil when the
    /// record does not say) and the end of the rest. Nightscout's careportal writes `enteredinsulin` (the total), `insulin` (the
    /// part given at once: `enteredinsulin` × `splitNow` %) and `relative` (the rest's U/h);
    /// AndroidAPS's extended bolus has `enteredinsulin` and `relative`, and no `insulin` or 0. Read
    /// as `insulin` alone, a careportal dual of 1 + 5 U put 1 U on board, and an extended bolus
    /// none (hunt AX: 4.30 U suggested where 0.65 U was right). An uploader that writes the total
    /// in `insulin`, with neither of the others, is read as before.
    func comboBolus(_ r: JSONValue, time t: Date, line: Int, _ b: inout PatientLogBuilder) -> (Double?, (now: Double?, end: Date)?) {
        let duration = r["duration"]?.numeric.flatMap { $0 > 0 && ImportLimits.durationMinutes.contains($0) ? $0 : nil }
        let given = Self.given(r, "insulin")
        let now = given == nil || given?.numeric == 0 ? 0 : amount(r, "insulin", ImportLimits.doseUnits, "U", line: line, &b)
        guard let now else { return (nil, nil) }
        var total = now
        // 0 in either is none (a careportal split of 100/0 writes `relative` 0).
        let entered = Self.given(r, "enteredinsulin").flatMap { $0.numeric == 0 ? nil : $0 }
        let relative = Self.given(r, "relative").flatMap { $0.numeric == 0 ? nil : $0 }
        let parted = entered != nil || relative != nil
        if entered != nil {
            guard let entered = amount(r, "enteredinsulin", ImportLimits.doseUnits, "U", line: line, &b) else { return (nil, nil) }
            guard entered + 1e-9 >= now else {
                b.skip("combo bolus parts", line: line, field: "enteredinsulin",
                       "Combo Bolus of \(trimmedNumber(entered)) U in all, less than its \(trimmedNumber(now)) U given at once (insulin)")
                return (nil, nil)
            }
            total = entered
        } else if relative != nil {
            guard let rate = amount(r, "relative", ImportLimits.basalUnitsPerHour, "U/h", line: line, &b) else { return (nil, nil) }
            guard let duration else {
                b.skip("combo bolus without duration", line: line, field: "duration",
                       "Combo Bolus extends \(trimmedNumber(rate)) U/h with duration \(r["duration"]?.brief ?? "missing"); expected minutes, 1-10080")
                return (nil, nil)
            }
            total = now + rate * duration / 60
        }
        guard total > 0 else { return (nil, nil) }
        // All of it given at once (a careportal split of 100/0): a bolus, not a dual one.
        if parted, total - now < 1e-9 { return (total, nil) }
        // The total alone in `insulin`: a dual bolus of it, when it has a duration, its split not said.
        if !parted { return (total, duration.map { (nil, t.addingTimeInterval($0 * 60)) }) }
        guard let duration else {
            // Some of it extended, and no time to spread it over.
            b.skip("combo bolus without duration", line: line, field: "duration",
                   "Combo Bolus of \(trimmedNumber(total)) U, \(trimmedNumber(total - now)) U of it extended, with duration "
                   + "\(r["duration"]?.brief ?? "missing"); expected minutes, 1-10080")
            return (nil, nil)
        }
        guard ImportLimits.doseUnits.contains(total) else {
            b.skip("value out of range", line: line, field: "enteredinsulin",
                   "Combo Bolus of \(trimmedNumber(total)) U; expected \(trimmedNumber(ImportLimits.doseUnits.lowerBound))-\(trimmedNumber(ImportLimits.doseUnits.upperBound)) U")
            return (nil, nil)
        }
        return (total, (now, t.addingTimeInterval(duration * 60)))
    }
}
