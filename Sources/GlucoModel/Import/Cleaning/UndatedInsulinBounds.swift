import Foundation

/// Bounds the time of insulin rows whose time could not be read by the rows around them, so a dose
/// near such a row can be refused (`SkippedInsulin.unreadTime`).
///
/// In a stream of rows in time order, a row lies between the times of the rows read just before and
/// after it. A stream counts as in time order when every time read is at or after the one before
/// (or every one at or before it: exports run either way) and its records' kinds interleave (a
/// kind comes again after another) or are all one kind (an OhioT1DM section). Times in order alone
/// are not enough: a file grouped by kind whose first groups are a basal rate at midnight and the
/// bolus in question, then the day's CGM from midnight, reads in order, but the bolus may be of any
/// hour. The file's first row is bounded below by 1990 (`ImportLimits.earliest`), its last above
/// by the import's time (a bolus typed last may be the newest). A stream not in time order (times
/// going both ways: rows grouped by kind, a shuffled file, a device clock set back, a repeated
/// daylight-saving hour) bounds nothing: such a row may be from the stream's earliest time to the
/// import's. An importer's stream is its file, or one OhioT1DM section, or a Nightscout export's
/// entries and then its treatments (`PatientLogBuilder.startTimeOrder`).
struct UndatedInsulinBounds: Sendable {
    private struct Row: Sendable {
        var kind: RecordKind
        var location: SourceLocation
        var before: Date?
        var after: Date?
        var notAfter: Date?
    }

    private var rows: [Row] = []
    /// `rows[waiting...]` have no time read after them yet.
    private var waiting = 0
    private var last: Date?
    private var earliest: Date?
    private var rises = 0, falls = 0
    /// The kinds of the records read, and the runs of one kind they come in.
    private var kinds: Set<RecordKind> = []
    private var lastKind: RecordKind?
    private var runs = 0

    /// An insulin row of `kinds` whose time could not be read, at `location`; `notAfter`: a time
    /// the row itself sets as its latest (the end of a bolus or temporary basal whose start is unread).
    mutating func note(_ kinds: [RecordKind], notAfter: Date? = nil, at location: SourceLocation) {
        for kind in kinds {
            rows.append(Row(kind: kind, location: location, before: last, notAfter: notAfter))
            record(kind)
        }
    }

    /// A record of `kind` read, in the order of the rows.
    mutating func record(_ kind: RecordKind) {
        guard kind != lastKind else { return }
        lastKind = kind
        runs += 1
        kinds.insert(kind)
    }

    /// A time read, in the order of the rows.
    mutating func read(_ time: Date) {
        if let last {
            if time > last { rises += 1 } else if time < last { falls += 1 }
        }
        last = time
        if earliest.map({ time < $0 }) ?? true { earliest = time }
        while waiting < rows.count {
            rows[waiting].after = time
            waiting += 1
        }
    }

    /// Ends the stream: its rows as skipped insulin with their bounds (`now`: the import's time).
    mutating func end(now: Date) -> [SkippedInsulin] {
        defer { self = Self() }
        let ordered = (rises == 0 || falls == 0) && (runs > kinds.count || kinds.count == 1)
        return rows.map { row in
            let (from, to): (Date?, Date?)
            switch (rises, falls) {
            case (_, 0) where ordered: (from, to) = (row.before, row.after)
            case (0, _) where ordered: (from, to) = (row.after, row.before)
            default: (from, to) = (earliest, nil)
            }
            var earliest = from ?? ImportLimits.earliest, latest = to ?? max(now, earliest)
            var betweenRows = ordered && from != nil && to != nil
            // Its own end, when sooner: the bounds are then no longer both rows' times.
            if let end = row.notAfter, end < latest { latest = end; earliest = min(earliest, end); betweenRows = false }
            return SkippedInsulin(kind: row.kind, time: earliest, location: row.location,
                                  unreadTime: .init(latest: latest, betweenRows: betweenRows))
        }
    }
}
