import Foundation

/// The ranges imported values must fall in; anything outside is skipped with a warning naming
/// the row, never clamped or turned into 0.
public enum ExportLimits {
    /// Glucose the body can hold (mg/dL); sensors report 40-400 (Dexcom) or 40-500 (Libre).
    public static let glucoseMgdL: ClosedRange<Double> = 10...1_000
    /// One bolus or injection (U); 0 is "no dose", not a record.
    public static let doseUnits: ClosedRange<Double> = 0.001...100
    /// A basal rate (U/h); 0 = suspended.
    public static let basalUnitsPerHour: ClosedRange<Double> = 0...50
    /// One meal (g); 0 is "no carbohydrate", not a record.
    public static let carbGrams: ClosedRange<Double> = 0.001...1_000
    /// Durations of temporary basals, extended boluses and exercise (min): up to a week.
    public static let durationMinutes: ClosedRange<Double> = 0...(7 * 24 * 60)
    /// Exercise intensity on the 1-10 scale.
    public static let intensity: ClosedRange<Double> = 0...10
    /// No CGM data predates this (first CGMs were approved in 1999).
    public static let earliest = Date(timeIntervalSince1970: 631_152_000)  // 1990-01-01T00:00Z
    /// Two readings (or doses) with the same value this close are one record uploaded twice.
    public static let duplicateWindow: TimeInterval = 30
}

/// Collects the records of one import, checks times and values, and at the end sorts,
/// de-duplicates and accounts for every row in the summary. Shared by the export importers.
struct LogBuilder {
    static let maxIssuesPerReason = 100

    let url: URL
    let options: ImportOptions
    var summary: ImportSummary
    var log: PatientLog
    var resolver: LocalTimeResolver
    private var issuesPerReason: [String: Int] = [:]

    init(url: URL, options: ImportOptions) {
        self.url = url
        self.options = options
        summary = ImportSummary(file: url.lastPathComponent)
        log = PatientLog(patient: LogBuilder.fallbackPatient)
        resolver = LocalTimeResolver(timeZone: options.timeZone)
    }

    static var fallbackPatient: PatientID {
        do { return try PatientID("patient") } catch { preconditionFailure("'patient' is a valid id") }
    }

    func location(_ line: Int?, _ field: String? = nil) -> SourceLocation {
        SourceLocation(file: url.lastPathComponent, line: line, field: field)
    }

    func error(_ line: Int?, _ field: String?, _ message: String) -> ImportError {
        ImportError(location(line, field), message)
    }

    /// Skips a row for `reason`, keeping a warning (the first `maxIssuesPerReason` per reason, so
    /// memory stays bounded on a file full of bad rows; the count is always exact).
    mutating func skip(_ reason: String, line: Int?, field: String?, _ message: String) {
        let n = issuesPerReason[reason, default: 0]
        issuesPerReason[reason] = n + 1
        if n < LogBuilder.maxIssuesPerReason {
            summary.skip(reason, ImportIssue(.warning, location(line, field), message))
        } else {
            summary.skip(reason)
        }
    }

    /// Skips a row silently apart from the count (expected rows such as a preamble).
    mutating func skipQuietly(_ reason: String) { summary.skip(reason) }

    mutating func countOther(_ kind: String) { log.otherRecords[kind, default: 0] += 1 }

    /// A wall-clock time read in `options.timeZone`, DST cases counted.
    mutating func instant(_ local: WallClockTime) -> Date {
        let r = resolver.resolve(local)
        if let reason = r.adjustment { summary.adjust(reason) }
        return r.date
    }

    /// Whether a time can be kept: after 1990 and not after `options.now`.
    mutating func acceptTime(_ date: Date, line: Int?, field: String?) -> Bool {
        if date > options.now {
            skip("future-dated", line: line, field: field,
                 "time \(date) is after the import time; expected a past date")
            return false
        }
        if date < ExportLimits.earliest {
            skip("dated before 1990", line: line, field: field, "time is before 1990; expected a recent date")
            return false
        }
        return true
    }

    /// A number in `range`, else a warning naming the field and the range.
    mutating func value(_ v: Double?, text: String, in range: ClosedRange<Double>, unit: String,
                        reason: String, line: Int?, field: String) -> Double? {
        guard let v else {
            skip("not a number", line: line, field: field, "'\(text.prefix(40))' is not a number; expected \(unit)")
            return nil
        }
        guard range.contains(v) else {
            skip(reason, line: line, field: field,
                 "\(v) \(unit) is outside \(range.lowerBound)...\(range.upperBound) \(unit)")
            return nil
        }
        return v
    }

    mutating func glucose(_ v: Double?, text: String, unit: GlucoseUnit, line: Int?, field: String) -> GlucoseValue? {
        guard let v else {
            skip("not a number", line: line, field: field, "'\(text.prefix(40))' is not a number; expected \(unit.rawValue)")
            return nil
        }
        let g = unit.value(v)
        guard ExportLimits.glucoseMgdL.contains(g.mgdL) else {
            skip("glucose out of range", line: line, field: field,
                 "\(v) \(unit.rawValue) is outside 10...1000 mg/dL")
            return nil
        }
        return g
    }

    /// `Low`/`LO` and `High`/`HI` text: a censored reading at the sensor limit.
    static func censoring<S: StringProtocol>(_ text: S) -> Censoring? {
        switch text.lowercased() {
        case "low", "lo": return .belowRange
        case "high", "hi": return .aboveRange
        default: return nil
        }
    }

    /// Adds a censored reading at the sensor limit, counted as adjusted.
    mutating func addCensored(_ c: Censoring, time: Date, source: GlucoseSource) {
        switch c {
        case .belowRange:
            summary.adjust("censored Low kept at 40 mg/dL")
            log.glucose.append(GlucoseReading(time: time, value: Censoring.lowLimit, source: source, censoring: c))
        case .aboveRange:
            summary.adjust("censored High kept at 400 mg/dL")
            log.glucose.append(GlucoseReading(time: time, value: Censoring.highLimit, source: source, censoring: c))
        }
    }

    /// Sorts and de-duplicates every list, sets the patient, and totals the summary.
    /// - Parameter scrub: text that must not appear in a derived patient id (names read from a preamble).
    mutating func finish(scrub: [String] = []) -> ImportResult {
        log.glucose = ordered(log.glucose, { $0.time }) {
            $0.source == $1.source && $0.censoring == $1.censoring && abs($0.value.mgdL - $1.value.mgdL) < 1e-6
        }
        log.boluses = ordered(log.boluses, { $0.time }) { $0.type == $1.type && abs($0.dose.units - $1.dose.units) < 1e-9 }
        log.basalInjections = ordered(log.basalInjections, { $0.time }) { abs($0.dose.units - $1.dose.units) < 1e-9 }
        log.carbs = ordered(log.carbs, { $0.time }) { abs($0.amount.grams - $1.amount.grams) < 1e-9 }
        log.basalRates = ordered(log.basalRates, { $0.start }, window: 0) { $0 == $1 }
        log.temporaryBasals = ordered(log.temporaryBasals, { $0.start }, window: 0) { $0 == $1 }
        log.exercise = ordered(log.exercise, { $0.time }, window: 0) { $0 == $1 }
        log.patient = patientID(scrub: scrub)
        let names = scrub.filter { $0.count >= 2 }
        if !names.isEmpty {
            // Clarity names its files after the patient: keep the names out of the summary too.
            func clean(_ s: String) -> String {
                names.reduce(s) { $0.replacingOccurrences(of: $1, with: "", options: .caseInsensitive) }
            }
            summary.file = clean(summary.file)
            for i in summary.issues.indices { summary.issues[i].location.file = clean(summary.issues[i].location.file) }
        }
        summary.recordsKept = log.glucose.count + log.boluses.count + log.basalRates.count
            + log.temporaryBasals.count + log.basalInjections.count + log.carbs.count
            + log.exercise.count + log.weights.count + log.heartRate.count
        return ImportResult(log: log, summary: summary)
    }

    /// Sorts by time (stable), counting records that were out of order (a file wholly newest-first
    /// is reversed instead, counted once), then drops records equal to an earlier one within
    /// `window` seconds, counting them as duplicates.
    private mutating func ordered<T>(_ items: [T], _ time: (T) -> Date, window: TimeInterval = ExportLimits.duplicateWindow,
                                     same: (T, T) -> Bool) -> [T] {
        guard !items.isEmpty else { return items }
        var items = items
        func outOfOrder(_ list: [T]) -> Int {
            var maxSoFar = Date.distantPast, n = 0
            for x in list { if time(x) < maxSoFar { n += 1 } else { maxSoFar = time(x) } }
            return n
        }
        var late = outOfOrder(items)
        if late > 0, items.count > 2 {
            let reversed = Array(items.reversed())
            let lateReversed = outOfOrder(reversed)
            if lateReversed == 0 {
                items = reversed
                late = lateReversed
                summary.adjust("newest-first rows reversed")
            }
        }
        if late > 0 {
            summary.adjusted["row out of time order (sorted)", default: 0] += late
            items = items.enumerated().sorted {
                (time($0.element), $0.offset) < (time($1.element), $1.offset)
            }.map(\.element)
        }
        var kept: [T] = []
        kept.reserveCapacity(items.count)
        for x in items {
            let t = time(x)
            var duplicate = false
            var j = kept.count - 1
            while j >= 0, t.timeIntervalSince(time(kept[j])) <= window {
                if same(kept[j], x) { duplicate = true; break }
                j -= 1
            }
            if duplicate { summary.skip("duplicate") } else { kept.append(x) }
        }
        return kept
    }

    /// `options.patient`, else the file name stem with every character outside `[A-Za-z0-9._-]`
    /// replaced by `_` and any scrubbed text (names from a preamble) removed.
    private mutating func patientID(scrub: [String]) -> PatientID {
        if let p = options.patient { return p }
        var stem = url.deletingPathExtension().lastPathComponent
        for word in scrub where word.count >= 2 {
            stem = stem.replacingOccurrences(of: word, with: "", options: .caseInsensitive)
        }
        var cleaned = String(stem.unicodeScalars.map { s -> Character in
            s.isASCII && (CharacterSet.alphanumerics.contains(s) || "-_.".unicodeScalars.contains(s)) ? Character(s) : "_"
        })
        while cleaned.contains("__") { cleaned = cleaned.replacingOccurrences(of: "__", with: "_") }
        cleaned = String(cleaned.trimmingCharacters(in: CharacterSet(charactersIn: "_.")).prefix(64))
        let id = (try? PatientID(cleaned)) ?? LogBuilder.fallbackPatient
        summary.issues.append(ImportIssue(.warning, location(nil, nil),
            "the file does not name a pseudonymous patient; using id '\(id)' from the file name (set the patient option to choose one)"))
        return id
    }
}
