import Foundation

/// Reads a Tidepool JSON export: an array of typed records, streamed one at a time.
///
/// Times are `time` (UTC ISO 8601); a `time` without zone is read with `timezoneOffset` (min)
/// if present, else `ImportOptions.timeZone`.
/// - `cbg` -> CGM, `smbg` -> finger stick; `value` in mmol/L (`GlucoseValue(mmolL:)`,
///   1 mmol/L = 18.01559 mg/dL) unless `units` is `mg/dL`.
/// - `bolus`: subType `normal` or `automated` (`normal` U), `square`/`extended` (`extended` U over `duration` ms),
///   `dual/square` or `combo` (`normal` + `extended`, ending after `duration`).
/// - `basal`: `deliveryType` `scheduled` -> `BasalRate` ending after `duration` ms;
///   `temp` and `automated` -> `TemporaryBasal` (`rate` U/h); `suspend` -> `TemporaryBasal` at 0 U/h;
///   the scheduled rate such a record `suppressed` (directly, or under the temp it suppressed) ->
///   `BasalRate` for the same time, as Tidepool cuts its `scheduled` records where one runs.
/// - `food`: `nutrition.carbohydrate.net` g. `physicalActivity`: `duration` {`value`, `units`: `hours`,
///   `minutes` (also when absent), `seconds` or `milliseconds`; another unit is skipped as unknown}
///   and `reportedIntensity` low/medium/high, mapped onto the 1-10 scale as 3/5/8 (the middle of
///   the thirds of the scale); no intensity -> 5, counted as adjusted.
/// - any other `type` (`wizard`, `deviceEvent`, `pumpSettings`, `upload`, ...) is counted.
public struct TidepoolImporter: PatientDataImporter {
    public static let formatName = "tidepool-json"

    public init() {}

    static let knownTypes = ["cbg", "smbg", "bolus", "basal", "food", "physicalActivity", "wizard", "upload",
                             "deviceEvent", "pumpSettings", "cgmSettings", "bloodKetone", "cpeptide"]

    public static func recognizes(head: String) -> Bool {
        guard let first = head.first(where: { !$0.isWhitespace && $0 != "\u{FEFF}" }), first == "[" else { return false }
        let compact = head.replacingOccurrences(of: " ", with: "")
        return knownTypes.contains { compact.contains("\"type\":\"\($0)\"") }
    }

    /// The `scheduled` records' spans, and the scheduled rates that temp, automated and suspend
    /// basals `suppressed`: added once the file is read, where no scheduled record covers them.
    struct Programme {
        var scheduled: [(start: PatientLogBuilder.HeldTime, duration: TimeInterval?, rate: Double)] = []
        var suppressed: [(start: PatientLogBuilder.HeldTime, duration: TimeInterval, rate: Double, line: Int)] = []

        /// The suppressed rates no scheduled record covers, as `BasalRate`s. Tidepool ends its
        /// `scheduled` records where a temp begins, and a loop user's programme had holes (hunt AX);
        /// but a scheduled record may run through the temp (its `duration` to its end, or none: in
        /// force until the next): added then, a rate there cut that record short at the temp's start,
        /// and nothing was programmed after the temp (review AZ, stop 60). One without a duration
        /// covers a temp of its own rate only: a loop's hours of automated basal after it cross the
        /// schedule's changes, which only their suppressed rates say (review BD: 0.75 U off).
        func add(to b: inout PatientLogBuilder) {
            guard !suppressed.isEmpty else { return }
            b.startStream()  // rows of a repeated hour decided, so each span starts where its row's records went
            let spans = scheduled.map { record in
                let start = b.time(of: record.start)
                return (start: start, end: record.duration.map(start.addingTimeInterval), rate: record.rate)
            }.sorted { $0.start < $1.start }
            for held in suppressed {
                let start = b.time(of: held.start)
                let s = (start: start, end: start.addingTimeInterval(held.duration), rate: held.rate, line: held.line)
                // The last scheduled record starting at or before the temp, in force to its end, or the next one's start.
                let low = PatientLog.firstIndex(spans) { $0.start > s.start }
                if low > 0 {
                    let covering = spans[low - 1]
                    let next = low < spans.count ? spans[low].start : Date.distantFuture
                    if let end = covering.end, min(end, next) >= s.end { continue }
                    if covering.end == nil, next >= s.end, abs(covering.rate - s.rate) < 1e-9 { continue }
                }
                b.add(BasalRate(start: s.start, end: s.end, rate: InsulinRate(unitsPerHour: s.rate)), line: s.line, field: "time")
            }
        }
    }

    public func importFile(at url: URL, options: ImportOptions) throws -> ImportResult {
        var b = PatientLogBuilder(file: url.lastPathComponent, options: options, duplicates: .uploadWindow)
        var programme = Programme()
        let stream = JSONElementStream(url: url)
        let packed = stream.isPacked()
        try stream.forEach { element in
            if packed { b.record = element.index }
            guard let r = b.read(element) else { return }
            guard case .object = r, let type = r["type"]?.string else {
                b.skip("record without type", line: element.line, field: "type", "found \(r.brief) without a 'type'; expected a typed Tidepool record")
                return
            }
            record(r, type: type, line: element.line, &b, &programme)
        }
        b.record = nil
        programme.add(to: &b)
        return try b.build()
    }

    func time(_ r: JSONValue, line: Int, _ b: inout PatientLogBuilder) -> Date? {
        guard case let .string(s)? = r["time"], let w = TimestampParser.iso8601(s) else {
            let found = r["time"].map { "time is \($0.brief)" } ?? "the field is missing"
            b.skip("no time", line: line, field: "time", "\(found); expected ISO 8601 UTC, e.g. 2026-03-01T08:00:00.000Z")
            return nil
        }
        if let instant = w.instant { return instant }
        if let offset = r["timezoneOffset"]?.number, abs(offset) <= 18 * 60 {
            return Date(timeIntervalSince1970: w.local.wallSeconds - offset * 60)
        }
        return b.instant(w.local)
    }

    func number(_ r: JSONValue, _ key: String, _ range: ClosedRange<Double>, _ unit: String, line: Int, _ b: inout PatientLogBuilder) -> Double? {
        let v = r[key], n = v?.number
        return b.value(n, text: n == nil ? v?.text : "", in: range, unit: unit, reason: "value out of range", line: line, field: key)
    }

    /// `duration` in ms, as minutes.
    func durationMinutes(_ r: JSONValue, line: Int, _ b: inout PatientLogBuilder) -> Double? {
        guard let ms = number(r, "duration", 0...(ImportLimits.durationMinutes.upperBound * 60_000), "ms", line: line, &b) else { return nil }
        return ms / 60_000
    }

    static let handled = ["cbg", "smbg", "bolus", "basal", "food", "physicalActivity"]

    func record(_ r: JSONValue, type: String, line: Int, _ b: inout PatientLogBuilder, _ programme: inout Programme) {
        guard Self.handled.contains(type) else { b.addNotModelled("Tidepool \(type.prefix(40))"); return }
        let insulin: [RecordKind] = type == "bolus" ? [.bolus]
            : type == "basal" ? [r["deliveryType"]?.string == "scheduled" ? .basal : .temporaryBasal] : []
        let amounts = type == "bolus" ? [r["normal"]?.text, r["extended"]?.text] : []
        guard let t = time(r, line: line, &b) else { return b.noteUndatedInsulin(insulin, amounts: amounts, at: b.location(line, "time")) }
        guard b.acceptTime(t, line: line, field: "time", insulin: insulin, glucose: type == "cbg" || type == "smbg", amounts: amounts) else { return }
        switch type {
        case "cbg", "smbg":
            let unit: GlucoseUnit = Self.isMilligrams(r["units"]?.string) ? .mgdL : .mmolL
            let v = r["value"], n = v?.number
            if let g = b.glucose(n, text: n == nil ? v?.text : "", unit: unit, line: line, field: "value") {
                b.add(GlucoseReading(time: t, value: g, source: type == "cbg" ? .cgm : .fingerStick), line: line, field: "time")
            }
        case "bolus":
            let mark = b.skipMark
            bolus(r, time: t, line: line, &b)
            b.noteSkippedInsulin(.bolus, time: t, since: mark, amounts: amounts,
                                 at: b.location(line, r["normal"] == nil && r["extended"] != nil ? "extended" : "normal"))
        case "basal":
            let mark = b.skipMark
            basal(r, time: t, line: line, &b, &programme)
            b.noteSkippedInsulin(insulin[0], time: t, since: mark, at: b.location(line, "rate"))
        case "food":
            let net = r["nutrition"]?["carbohydrate"]?["net"]
            if let g = b.value(net?.number, text: net?.text, in: ImportLimits.carbGrams, unit: "g",
                               reason: "value out of range", line: line, field: "nutrition.carbohydrate.net") {
                b.add(CarbIntake(time: t, amount: Carbohydrate(grams: g)), line: line, field: "time")
            }
        default: activity(r, time: t, line: line, &b)
        }
    }

    /// Whether `units` lowercased starts with `mg` (`mg/dL`); nil (absent) is mmol/L. Read from the
    /// bytes (no lowercased copy) unless a non-ASCII byte follows, which could join the `g` into
    /// another character.
    static func isMilligrams(_ units: String?) -> Bool {
        guard let units else { return false }
        var bytes = units.utf8.makeIterator()
        guard let m = bytes.next(), let g = bytes.next(), m | 0x20 == UInt8(ascii: "m"), g | 0x20 == UInt8(ascii: "g") else { return false }
        if let next = bytes.next(), next >= 0x80 { return units.lowercased().hasPrefix("mg") }
        return true
    }

    func bolus(_ r: JSONValue, time t: Date, line: Int, _ b: inout PatientLogBuilder) {
        let sub = r["subType"]?.string ?? "normal"
        switch sub {
        case "normal", "automated":
            // `automated`: a pump's automatic correction (Control-IQ), its amount in `normal`. Read as
            // unknown, each was skipped insulin, and every dose within 6 hours of one was refused.
            guard let u = number(r, "normal", ImportLimits.doseUnits, "U", line: line, &b) else { return }
            b.add(Bolus(time: t, dose: InsulinUnits(u), type: .normal), line: line, field: "time")
        case "square", "extended", "dual/square", "dual", "combo":
            let dual = sub.hasPrefix("dual") || sub == "combo"
            let now = dual ? number(r, "normal", ImportLimits.bolusPartUnits, "U", line: line, &b) : 0
            guard let now, let ext = number(r, "extended", ImportLimits.bolusPartUnits, "U", line: line, &b),
                  let minutes = durationMinutes(r, line: line, &b) else { return }
            guard ImportLimits.doseUnits.contains(now + ext) else {
                b.skip("bolus of 0 U", line: line, field: "extended", "bolus delivered \(now + ext) U; expected a positive dose")
                return
            }
            b.add(Bolus(time: t, end: t.addingTimeInterval(minutes * 60), dose: InsulinUnits(now + ext),
                        type: dual ? .normalDual : .square, immediate: dual ? InsulinUnits(now) : nil), line: line, field: "time")
        default:
            b.skip("unknown bolus subType", line: line, field: "subType", "'\(sub.prefix(40))'; expected normal, automated, square, dual/square or combo")
        }
    }

    func basal(_ r: JSONValue, time t: Date, line: Int, _ b: inout PatientLogBuilder, _ programme: inout Programme) {
        let delivery = r["deliveryType"]?.string ?? ""
        switch delivery {
        case "scheduled":
            guard let rate = number(r, "rate", ImportLimits.basalUnitsPerHour, "U/h", line: line, &b) else { return }
            var duration: TimeInterval? = nil
            if r["duration"] != nil {
                guard let m = durationMinutes(r, line: line, &b) else { return }
                duration = m * 60
            }
            b.add(BasalRate(start: t, end: duration.map(t.addingTimeInterval), rate: InsulinRate(unitsPerHour: rate)), line: line, field: "time")
            programme.scheduled.append((b.hold(t), duration, rate))
        case "temp", "automated", "suspend":
            let rate = delivery == "suspend" ? 0 : number(r, "rate", ImportLimits.basalUnitsPerHour, "U/h", line: line, &b)
            guard let rate, let m = durationMinutes(r, line: line, &b) else { return }
            let end = t.addingTimeInterval(m * 60)
            b.add(TemporaryBasal(start: t, end: end, rate: InsulinRate(unitsPerHour: rate)), line: line, field: "time")
            // Tidepool ends its `scheduled` records where a temp, automated or suspend basal starts,
            // and keeps the scheduled rate in the record's `suppressed`. Without it the programme had
            // holes wherever a loop ran: the whole temp rate counted as insulin on board (2.68 U where
            // 0.27 U was right), or every dose was refused for a schedule "mismatch" (hunt AX).
            if let scheduled = Self.suppressedSchedule(r), m > 0 {
                let v = scheduled["rate"], n = v?.number
                guard let programmed = b.value(n, text: n == nil ? v?.text : "", in: ImportLimits.basalUnitsPerHour, unit: "U/h",
                                               reason: "value out of range", line: line, field: "suppressed.rate") else { return }
                programme.suppressed.append((b.hold(t), m * 60, programmed, line))
            }
        default:
            b.skip("unknown basal deliveryType", line: line, field: "deliveryType",
                   "'\(delivery.prefix(40))'; expected scheduled, temp, automated or suspend")
        }
    }

    /// The `scheduled` basal a temp, automated or suspend record suppressed: its `suppressed`, or
    /// that one's (a suspension of a temp basal suppresses the temp, which suppressed the schedule).
    static func suppressedSchedule(_ r: JSONValue) -> JSONValue? {
        var record = r
        for _ in 0..<4 {
            guard let inner = record["suppressed"], case .object = inner else { return nil }
            if inner["deliveryType"]?.string == "scheduled" { return inner }
            record = inner
        }
        return nil
    }

    func activity(_ r: JSONValue, time t: Date, line: Int, _ b: inout PatientLogBuilder) {
        let d = r["duration"]
        // Tidepool's units (platform `data/types/common`): hours, minutes, seconds, milliseconds.
        // Another was read as minutes: 45 minutes in milliseconds, 2700000, was skipped as out of range.
        let scale: Double
        let units = d?["units"]
        switch units.map({ $0.string?.lowercased() }) ?? "minutes" {
        case "milliseconds"?: scale = 1.0 / 60_000
        case "seconds"?: scale = 1.0 / 60
        case "minutes"?: scale = 1
        case "hours"?: scale = 60
        default:
            b.skip("unknown unit", line: line, field: "duration.units",
                   "\(units?.brief ?? "") is not a duration unit; expected hours, minutes, seconds or milliseconds")
            return
        }
        let raw = d?["value"]?.number ?? d?.number
        guard let minutes = b.value(raw.map { $0 * scale }, text: (d?["value"] ?? d)?.text, in: ImportLimits.exerciseMinutes, unit: "min",
                                    reason: "value out of range", line: line, field: "duration.value") else { return }
        let intensity: Double
        switch r["reportedIntensity"]?.string?.lowercased() {
        case "low"?: intensity = 3
        case "medium"?: intensity = 5
        case "high"?: intensity = 8
        default:
            b.summary.adjust("exercise intensity not reported (5 of 10 assumed)")
            intensity = 5
        }
        b.add(ExerciseSession(time: t, intensity: intensity, durationMinutes: minutes), line: line, field: "time")
    }
}
