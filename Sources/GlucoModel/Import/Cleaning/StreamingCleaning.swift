import Foundation

/// The order of one kind's records, learnt one record at a time in file order (O(1) memory apart
/// from one entry per identity), and the order cleaning must use:
/// - `.asRead`: the records are already in time order;
/// - `.reversed`: under `.uploadWindow`, a list of more than two records, wholly newest-first
///   (never increasing) with at least one row out of order, is read backwards (its rows counted as
///   `newest-first rows reversed`);
/// - `.sorted`: otherwise a stable sort by time (file order kept among equal times); rows earlier
///   than the latest one before them are counted: per identity under `.sameInstant`
///   (`<kind> rows out of time order (sorted)`), over the whole list under `.uploadWindow`
///   (`row out of time order (sorted)`).
///
/// CGM readings noted with their location (`note(_:)` of a `Located`) also go through a
/// `ClockJumpDetector`, whose warnings `finish` adds to the summary (the rows are kept as written).
public struct TimeOrderTracker: Sendable {
    public enum Order: Sendable { case asRead, reversed, sorted }

    let perIdentity: Bool
    private var latest: [String: Date] = [:]
    private var latestAll = Date.distantPast
    private var previous = Date.distantPast
    private var last: Date?
    private var nonIncreasing = true
    public private(set) var count = 0
    public private(set) var outOfOrder = 0
    /// Whether some record came earlier in time than one before it in the file.
    public private(set) var needsSort = false

    private var clock = ClockJumpDetector()

    public init(policy: DuplicatePolicy) { perIdentity = policy == .sameInstant }

    /// `note(item.record)`, and a CGM reading's time and location to the clock-jump check.
    public mutating func note<R: TimedRecord>(_ item: Located<R>) {
        note(item.record)
        if R.kind == .glucose, let g = item.record as? GlucoseReading, g.source == .cgm {
            clock.note(g.time, item.location)
        }
    }

    public mutating func note<R: TimedRecord>(_ record: R) {
        let t = record.time
        count += 1
        if t < previous { needsSort = true } else { previous = t }
        if let last, t > last { nonIncreasing = false }
        last = t
        if perIdentity {
            let key = record.identity
            if let l = latest[key], t < l { outOfOrder += 1 } else { latest[key] = t }
        } else if count > 1, t < latestAll {
            outOfOrder += 1
        } else {
            latestAll = t
        }
    }

    /// The order to clean in, with the adjustments counted in `summary`.
    public mutating func finish(_ kind: RecordKind, _ summary: inout ImportSummary) -> Order {
        // Named by the summary's file name: a Clarity export's names are already scrubbed from it.
        summary.issues += clock.finish().map { issue in
            var issue = issue
            issue.location.file = summary.file
            return issue
        }
        if !perIdentity, outOfOrder > 0, count > 2, nonIncreasing {
            summary.adjusted["newest-first rows reversed", default: 0] += count
            return .reversed
        }
        if outOfOrder > 0 {
            let reason = perIdentity ? "\(kind.rawValue) rows out of time order (sorted)" : "row out of time order (sorted)"
            summary.adjusted[reason, default: 0] += outOfOrder
        }
        return needsSort ? .sorted : .asRead
    }
}

/// Duplicate removal over one kind's records in time order (see `DuplicatePolicy`), one record at
/// a time: it keeps only the records that can still match a later one (those at the current
/// instant under `.sameInstant`, those within `ImportLimits.duplicateWindow` under `.uploadWindow`).
public struct DuplicateFilter<R: TimedRecord>: Sendable {
    let policy: DuplicatePolicy
    let window: TimeInterval
    private var groupTime = Date.distantPast
    private var firsts: [String: Located<R>] = [:]
    private var recent: [Located<R>] = []
    private var head = 0

    public init(policy: DuplicatePolicy) {
        self.policy = policy
        window = [.glucose, .bolus, .basalInjection, .carbs].contains(R.kind) ? ImportLimits.duplicateWindow : 0
    }

    /// Whether `item` (not earlier than any record offered before) is kept; a dropped one is counted in `summary`.
    public mutating func keep(_ item: Located<R>, _ summary: inout ImportSummary) -> Bool {
        switch policy {
        case .sameInstant: return keepSameInstant(item, &summary)
        case .uploadWindow: return keepUploadWindow(item, &summary)
        }
    }

    private mutating func keepSameInstant(_ item: Located<R>, _ summary: inout ImportSummary) -> Bool {
        if item.record.time != groupTime {
            groupTime = item.record.time
            firsts.removeAll(keepingCapacity: true)
        }
        let key = item.record.identity
        guard let first = firsts[key] else {
            firsts[key] = item
            return true
        }
        if first.record == item.record {
            summary.skipQuietly("exact duplicate")
        } else {
            Self.skipConflicting(item, first, &summary)
        }
        return false
    }

    /// `item` dropped for `first`, a record of the same event at the same instant with another value,
    /// or of the same value given another way. A bolus or temporary basal dropped so is kept as
    /// `SkippedInsulin` (`conflictingAmount`): two boluses given together and written at one instant
    /// (a meal bolus and a correction, or 1 U at once and 1 U over an hour) would otherwise leave
    /// one out of the insulin on board, and a dose near it would stack on it. Its `end` is the later
    /// of the two's: which was given is unknown until then. One written twice with
    /// another detail (`PatientLog.sameUpload`: a bolus's carbohydrate input) is not.
    static func skipConflicting(_ item: Located<R>, _ first: Located<R>, _ summary: inout ImportSummary) {
        // Of one value, the records differ in another field (a temp's end, a bolus's type): said so,
        // not "value 0.0 instead of 0.0" (review BH, stop 61).
        let value = item.record.canonicalValue, firstValue = first.record.canonicalValue
        let writtenTwice = PatientLog.sameUpload(first.record, item.record)
        let differing = value != firstValue ? "but with value \(value) instead of \(firstValue)"
            : writtenTwice ? "of the same value (\(value)), written twice with another detail (a carbohydrate input)"
            : "of the same value (\(value)) but given another way (a type, an end)"
        summary.skip("conflicting duplicate", ImportIssue(.warning, item.location,
            "\(R.kind.rawValue) at the same time as \(first.location) \(differing); kept the first (\(first.location)), dropped this one"))
        if R.kind == .bolus || R.kind == .temporaryBasal, !writtenTwice {
            summary.skippedInsulin = (summary.skippedInsulin ?? []) + [SkippedInsulin(
                kind: R.kind, time: item.record.time, location: item.location, conflictingAmount: item.record.canonicalValue,
                end: item.record.deliveryEnd(with: first.record))]
        }
    }

    private mutating func keepUploadWindow(_ item: Located<R>, _ summary: inout ImportSummary) -> Bool {
        let t = item.record.time
        while head < recent.count, t.timeIntervalSince(recent[head].record.time) > window { head += 1 }
        if head > 64, head * 2 > recent.count {
            recent.removeFirst(head)
            head = 0
        }
        for j in stride(from: recent.count - 1, through: head, by: -1)
        where PatientLog.sameUpload(recent[j].record, item.record) {
            summary.skipQuietly("duplicate")
            return false
        }
        // The same event at the same instant with another value (a clock set back over readings
        // already taken, overlapping exports that disagree): a patient's log keeps the first
        // (`PatientLog.merging`, the store), so the import keeps it too, and says so.
        if let first = recent[head...].last(where: { $0.record.time == t && $0.record.identity == item.record.identity }) {
            Self.skipConflicting(item, first, &summary)
            return false
        }
        recent.append(item)
        return true
    }
}
