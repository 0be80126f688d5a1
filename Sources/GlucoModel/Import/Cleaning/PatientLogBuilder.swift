import Foundation

/// A record with where it was read, so later checks can name the line.
public struct Located<Record: Sendable>: Sendable {
    public var record: Record
    public var location: SourceLocation
    public init(_ record: Record, _ location: SourceLocation) { self.record = record; self.location = location }
}

/// Collects the records an importer reads, then applies the rules every importer shares:
/// future-dated rows skipped, rows sorted by time, exact duplicates dropped, conflicting
/// duplicates (same time and identity, different values) kept once (the first in the file).
/// Every decision is counted in the `ImportSummary`; conflicts and future rows also get a warning.
public struct PatientLogBuilder: Sendable {
    public var file: String
    public var options: ImportOptions
    public var summary: ImportSummary
    public var otherRecords: [String: Int] = [:]
    public var insulinKind: InsulinKind = .unknown

    var glucose: [Located<GlucoseReading>] = []
    var boluses: [Located<Bolus>] = []
    var basalRates: [Located<BasalRate>] = []
    var temporaryBasals: [Located<TemporaryBasal>] = []
    var basalInjections: [Located<BasalInjection>] = []
    var carbs: [Located<CarbIntake>] = []
    var exercise: [Located<ExerciseSession>] = []
    var weights: [Located<WeightRecord>] = []
    var heartRate: [Located<HeartRateSample>] = []

    public init(file: String, options: ImportOptions) {
        self.file = file
        self.options = options
        summary = ImportSummary(file: file)
    }

    /// Adds a record unless it is dated after `options.now` (then: skipped, with a warning).
    public mutating func add<R: TimedRecord>(_ record: R, at location: SourceLocation) {
        guard record.time <= options.now else {
            summary.skip("future-dated", ImportIssue(.warning, location,
                "\(R.kind.rawValue) dated \(ISO8601DateFormatter().string(from: record.time)) is after the import time; skipped"))
            return
        }
        switch record {
        case let r as GlucoseReading: glucose.append(Located(r, location))
        case let r as Bolus: boluses.append(Located(r, location))
        case let r as BasalRate: basalRates.append(Located(r, location))
        case let r as TemporaryBasal: temporaryBasals.append(Located(r, location))
        case let r as BasalInjection: basalInjections.append(Located(r, location))
        case let r as CarbIntake: carbs.append(Located(r, location))
        case let r as ExerciseSession: exercise.append(Located(r, location))
        case let r as WeightRecord: weights.append(Located(r, location))
        case let r as HeartRateSample: heartRate.append(Located(r, location))
        default: preconditionFailure("unknown record type \(R.self)")
        }
    }

    /// Counts a row of a section or kind that is read but not modelled (never an error).
    public mutating func addNotModelled(_ section: String) {
        otherRecords[section, default: 0] += 1
        summary.notModelled[section, default: 0] += 1
    }

    /// Records a skipped row with a warning: `reason` is the summary key, `message` says what was expected.
    public mutating func skip(_ reason: String, at location: SourceLocation, _ message: String) {
        summary.skip(reason, ImportIssue(.warning, location, message))
    }

    /// Sorts, removes duplicates, and returns the log with the final summary.
    public func build(patient: PatientID) -> ImportResult {
        var summary = self.summary
        var log = PatientLog(patient: patient)
        var lines: [RecordKind: [Int?]] = [:]
        func take<R: TimedRecord>(_ items: [Located<R>]) -> [R] {
            let kept = Self.clean(items, &summary)
            lines[R.kind] = kept.map(\.location.line)
            return kept.map(\.record)
        }
        log.glucose = take(glucose)
        log.boluses = take(boluses)
        log.basalRates = take(basalRates)
        log.temporaryBasals = take(temporaryBasals)
        log.basalInjections = take(basalInjections)
        log.carbs = take(carbs)
        log.exercise = take(exercise)
        log.weights = take(weights)
        log.heartRate = take(heartRate)
        log.otherRecords = otherRecords
        log.insulinKind = insulinKind
        summary.recordsKept = log.recordCount
        return ImportResult(log: log, summary: summary, sourceLines: lines)
    }

    /// Stable sort by time, then duplicate removal within each instant.
    /// - Complexity: O(n log n); O(n) when the input is already sorted.
    public static func clean<R: TimedRecord>(_ items: [Located<R>], _ summary: inout ImportSummary) -> [Located<R>] {
        var sorted = items
        // Order is judged per identity: OhioT1DM lists finger sticks after all CGM readings, which is not disorder.
        var latest: [String: Date] = [:]
        var outOfOrder = 0
        var needsSort = false
        var previous = Date.distantPast
        for item in items {
            let t = item.record.time
            if t < previous { needsSort = true }
            previous = t
            if let l = latest[item.record.identity], t < l { outOfOrder += 1 } else { latest[item.record.identity] = t }
        }
        if outOfOrder > 0 {
            summary.adjusted["\(R.kind.rawValue) rows out of time order (sorted)", default: 0] += outOfOrder
        }
        if needsSort {
            // Enumerated sort keeps file order among equal times, so "first in the file" stays first.
            sorted = items.enumerated().sorted { a, b in
                a.element.record.time != b.element.record.time
                    ? a.element.record.time < b.element.record.time : a.offset < b.offset
            }.map(\.element)
        }
        var result: [Located<R>] = []
        result.reserveCapacity(sorted.count)
        var groupTime = Date.distantPast
        var kept: [String: Located<R>] = [:]
        for item in sorted {
            if item.record.time != groupTime {
                groupTime = item.record.time
                kept.removeAll(keepingCapacity: true)
            }
            let key = item.record.identity
            if let first = kept[key] {
                if first.record == item.record {
                    summary.skip("exact duplicate")
                } else {
                    summary.skip("conflicting duplicate", ImportIssue(.warning, item.location,
                        "\(R.kind.rawValue) at the same time as \(first.location) but with value \(item.record.canonicalValue) "
                        + "instead of \(first.record.canonicalValue); kept the first (\(first.location)), dropped this one"))
                }
                continue
            }
            kept[key] = item
            result.append(item)
        }
        return result
    }
}

extension PatientLogBuilder {
    /// The earliest time among the records added so far.
    public var firstRecordTime: Date? {
        [glucose.map(\.record.time).min(), boluses.map(\.record.time).min(), basalRates.map(\.record.time).min(),
         temporaryBasals.map(\.record.time).min(), carbs.map(\.record.time).min(), exercise.map(\.record.time).min(),
         heartRate.map(\.record.time).min(), basalInjections.map(\.record.time).min()].compactMap { $0 }.min()
    }
}
