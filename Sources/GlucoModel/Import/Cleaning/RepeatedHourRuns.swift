import Foundation

/// Which pass of a repeated daylight-saving hour (fall back: 02:00-02:59 happens twice) each local
/// time of one stream of rows is, decided per run of consecutive rows in that hour from the run
/// and its neighbours, not row by row: so a newest-first file, a file that starts inside the
/// second pass and a section read after another get their instants right.
///
/// A *stream* is a sequence of rows in one time order: a CSV file's rows, one OhioT1DM section.
/// A *run* is the rows of the stream, one after another, whose local times fall in the same
/// repeated hour. Rows outside it (unique local times) give the stream's direction (oldest or
/// newest first, by majority of consecutive pairs) and the run's neighbours. A run read in time
/// order (reversed when the stream is newest-first):
/// - with one jump back on the wall clock (02:55 then 02:00): first pass before it, second after;
/// - with none: the pass under which it continues a neighbour (a row at most `attachGap` before
///   its first or after its last row) when only one pass does (a file that starts at 02:05 of the
///   second pass, followed by 03:00, is the second pass); otherwise nothing in the file tells: the
///   first pass, with a warning;
/// - with more than one (rows shuffled inside the hour): first pass up to the first jump, second
///   after, with a warning.
struct RepeatedHourRuns {
    /// A row (one local time read) in a repeated hour, and the records made from it.
    struct Entry {
        var wall: Double
        var first: Date
        var second: Date
        var records: [(kind: RecordKind, index: Int)] = []
        var location: SourceLocation?
    }

    /// The passes of one run, in the order its rows were read.
    struct Decision {
        var run: Int
        var entries: [Entry]
        var isSecond: [Bool]
        /// Why the file did not settle the run (the rows then take the first pass), or nil.
        var doubt: Doubt?
    }

    enum Doubt: Equatable { case onePassNoNeighbour, shuffled }

    /// How close a neighbour must be to continue a run (a CGM's interval is at most 15 minutes).
    static let attachGap: TimeInterval = 20 * 60

    private(set) var open: [Entry] = []
    /// Numbers the runs of the import, so a row's records find their run once it is decided.
    private(set) var run = 0
    private var window: Double?
    private var before: Date?
    private var lastUnique: Date?
    private var ascending = 0, descending = 0

    var hasOpenRun: Bool { !open.isEmpty }

    /// A row with a unique local time (or one shifted out of a gap) at `date`: closes the open run.
    mutating func unique(_ date: Date) -> Decision? {
        if let last = lastUnique {
            if date > last { ascending += 1 } else if date < last { descending += 1 }
        }
        let decision = close(next: date)
        lastUnique = date
        return decision
    }

    /// A row in the repeated hour identified by `window`; returns the decision on a run it ends
    /// (a row of another repeated hour), and the new entry's run and index in it.
    mutating func repeated(_ entry: Entry, window: Double) -> (Decision?, (run: Int, entry: Int)) {
        var decision: Decision?
        if window != self.window { decision = close(next: nil) }
        if open.isEmpty { before = lastUnique; self.window = window; run += 1 }
        open.append(entry)
        return (decision, (run, open.count - 1))
    }

    mutating func attach(_ kind: RecordKind, index: Int, location: SourceLocation, to entry: Int) {
        guard open.indices.contains(entry) else { return }
        open[entry].records.append((kind, index))
        if open[entry].location == nil { open[entry].location = location }
    }

    /// The end of the stream: decides the open run; the next stream starts afresh.
    mutating func endStream() -> Decision? {
        let decision = close(next: nil)
        self = RepeatedHourRuns(run: run)
        return decision
    }

    init(run: Int = 0) { self.run = run }

    private mutating func close(next: Date?) -> Decision? {
        guard !open.isEmpty else { return nil }
        defer { open = []; window = nil; before = nil }
        var decision = Self.decide(open, before: before, after: next, newestFirst: descending > ascending)
        decision.run = run
        return decision
    }

    /// The passes of `entries` (in file order), `before` and `after` the unique rows next to the
    /// run in file order.
    static func decide(_ entries: [Entry], before: Date?, after: Date?, newestFirst: Bool) -> Decision {
        let n = entries.count
        let order = newestFirst ? Array((0..<n).reversed()) : Array(0..<n)
        let (earlier, later) = newestFirst ? (after, before) : (before, after)
        var isSecond = [Bool](repeating: false, count: n)
        let jumps = (1..<max(n, 1)).filter { entries[order[$0]].wall < entries[order[$0 - 1]].wall }
        if let k = jumps.first {
            for i in k..<n { isSecond[order[i]] = true }
            return Decision(run: 0, entries: entries, isSecond: isSecond, doubt: jumps.count > 1 ? .shuffled : nil)
        }
        func continues(_ start: Date, _ end: Date) -> Bool {
            if let e = earlier, start >= e, start.timeIntervalSince(e) <= attachGap { return true }
            if let l = later, l >= end, l.timeIntervalSince(end) <= attachGap { return true }
            return false
        }
        let firstRow = entries[order[0]], lastRow = entries[order[n - 1]]
        let asFirst = continues(firstRow.first, lastRow.first)
        let asSecond = continues(firstRow.second, lastRow.second)
        if asSecond && !asFirst {
            return Decision(run: 0, entries: entries, isSecond: [Bool](repeating: true, count: n), doubt: nil)
        }
        return Decision(run: 0, entries: entries, isSecond: isSecond, doubt: asFirst && !asSecond ? nil : .onePassNoNeighbour)
    }
}

extension TimedRecord {
    /// The record with each of its instants equal to `from` (time, start, end) moved to `to`; with
    /// `endFollowsStart` (an end made from the start and a duration, not read from the file), an end
    /// moves with a start that moves (a temporary basal of 2 h at 02:10 in the second pass kept its
    /// end of the first: it ran 1 h, and one of 40 minutes ended before it began; review AZ, stop 60).
    func moving(_ from: Date, to: Date, endFollowsStart: Bool = false) -> Self {
        func m(_ d: Date) -> Date { d == from ? to : d }
        func mo(_ d: Date?) -> Date? { d.map(m) }
        func end(_ d: Date?, start: Date) -> Date? {
            endFollowsStart && start == from ? d.map { $0.addingTimeInterval(to.timeIntervalSince(from)) } : mo(d)
        }
        func same(_ r: some TimedRecord) -> Self { r as? Self ?? self }
        switch self {
        case var r as GlucoseReading: r.time = m(r.time); return same(r)
        case var r as Bolus: r.end = end(r.end, start: r.time); r.time = m(r.time); return same(r)
        case var r as BasalRate: r.end = end(r.end, start: r.start); r.start = m(r.start); return same(r)
        case var r as TemporaryBasal: r.end = end(r.end, start: r.start)!; r.start = m(r.start); return same(r)
        case var r as BasalInjection: r.time = m(r.time); return same(r)
        case var r as CarbIntake: r.time = m(r.time); return same(r)
        case var r as ExerciseSession: r.time = m(r.time); return same(r)
        case var r as WeightRecord: r.time = m(r.time); return same(r)
        case var r as HeartRateSample: r.time = m(r.time); return same(r)
        default: return self
        }
    }
}
