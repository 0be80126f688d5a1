import Foundation

/// Finds a CGM whose clock was set wrong, from its readings in file order, in O(1) memory (apart
/// from at most `maxWarnings` warnings). The readings are kept as written; this only names them.
///
/// - **Jump and back**: a reading more than `jump` (30 min) away from the reading before it in the
///   file starts a run (a clock set an hour wrong at a daylight-saving change, or a few hours on a
///   journey, as well as a day or a year); a later reading that jumps back, the other way and again by more than
///   `jump`, ends it when it continues the readings before the run: it is at least the run's own
///   span (less `slack`, 1 h) on from the reading before the run, in the direction the run went
///   (the device kept recording while its clock was wrong), and at most its span plus `offLimit`
///   (a day) on. A run of at least `minRows` (3) readings gets a warning with its lines
///   and the clock's offset, `((first of run - before run) - (after run - last of run)) / 2`
///   (the two jumps, less the reading spacing). A block of rows merely out of order (files
///   exported in pieces) does not continue where it left off, so it is not named.
/// - **Ahead at the end**: the last readings of the file, from one dated more than `ahead`
///   (30 days) after every reading before it, with none after that comes back, get a warning
///   with their lines: they would be taken as the patient's newest days.
///
/// - **Set back**: in a file running forward, a reading more than `jump` before the one before it
///   (at most `farthestZoneChange`) that never comes back, to a time the readings since the last jump (or the file's start) have
///   written already, with at least `minRows` readings from it, more of which fall on an instant
///   of the readings before with another value than with the same (the device kept recording on a
///   clock set back: a phone carried west across time zones, its records stamped on the new clock;
///   two overlapping exports joined repeat the same values). The times between the two are written twice, on two
///   clocks: a warning, and the span in `setBacks`, which the import keeps as insulin of unknown
///   time (`SkippedInsulin.clockSetBack`): a dose within it, or within the insulin's action after
///   it, is refused. (Stop 60, hunt BA: a Dexcom export across a flight from Madrid to New York, asked
///   at 13:30 New York, dosed 4.50 U on a reading 6 hours old and left out the 10 U given on the
///   plane; 1.50 U was right.)
///
/// Not named: a real gap (a forward jump that does not come back), a newest-first file, a
/// daylight-saving repeat resolved by the time zone, a file exported in pieces out of order (an
/// older block after a newer one, jumping to before the newer one began), a set back to before a
/// gap of more than `jump` in the readings before it.
public struct ClockJumpDetector: Sendable {
    /// Past the spacing of any CGM (5 to 15 minutes) and a missed reading or two; a forward step
    /// this long that does not come back is a gap, not named.
    public static let jump: TimeInterval = 30 * 60
    public static let slack: TimeInterval = 3600
    /// The readings after the run may come at most this much later than the run's span says
    /// (the device off around the time its clock was set).
    public static let offLimit: TimeInterval = 86_400
    /// A run of fewer readings is not named (rows merely out of order, one stray row).
    public static let minRows = 3
    public static let ahead: TimeInterval = 30 * 86_400
    public static let maxWarnings = 20
    /// The most a clock set to another time zone goes back (UTC+14 to UTC-12): a jump back farther is
    /// rows of another kind or source listed after the rest (a LibreView export's scans after its
    /// historic readings), not a clock set back.
    public static let farthestZoneChange: TimeInterval = 26 * 3600

    private struct Run: Sendable {
        var before: Double
        var start: Double, startLine: SourceLocation
        /// The run's last reading: its time and line (its file and field are the start's).
        var last: Double, lastLineNumber: Int?
        var lastLine: SourceLocation { SourceLocation(file: startLine.file, line: lastLineNumber, field: startLine.field) }

        /// Whether the file's readings ran forward in time before the run (its last step under
        /// `jump`): a short run's own span is too short to tell.
        var forward: Bool

        /// The readings' spacing when the run began (a set back's offset is the jump plus one).
        var spacing: Double = 300

        init(before: Double, start: Double, startLine: SourceLocation, forward: Bool = true) {
            self.before = before; self.start = start; self.startLine = startLine; self.forward = forward
            last = start; lastLineNumber = startLine.line
        }
        var rows = 1
    }

    /// Whether the last step under `jump` went forward in time (true until one is seen).
    private var forward = true

    /// The previous reading's time (only times are kept per reading: no string is copied).
    private var last: Double?
    private var latest = -Double.infinity
    private var run: Run?
    /// The run dated `ahead` past every reading before it, and that latest time before it.
    private var aheadRun: Run?
    public private(set) var warnings: [ImportIssue] = []

    /// A span of times written twice, on a clock set back for the rest of the file: from `earliest`
    /// (the first reading after the jump back) to `latest` (the reading before it).
    public struct SetBack: Sendable, Equatable {
        public var earliest: Date, latest: Date
        public var location: SourceLocation
    }
    /// The clocks set back (`finish`).
    public private(set) var setBacks: [SetBack] = []
    /// The jump back being followed: a set back, unless a jump forward brings the readings back.
    private var setBack: Run?
    /// The last step forward under `jump`: the readings' spacing.
    private var spacing: Double = 300
    /// The first reading since the last jump (the file's first at the start): a jump back to within
    /// the readings since is to times written already; one to before them, an older piece of export.
    private var blockStart = -Double.infinity
    /// The values of the readings of the last `farthestZoneChange` before a jump back, by time; and
    /// how many readings after it fell on one of those instants with the same value, or another.
    /// Two exports that overlap, joined, repeat their readings (the same values); a clock set back
    /// writes other readings at the same instants (its own, hours later).
    private var recent: [Double: Double] = [:]
    private var recentOrder: [Double] = []
    private var recentHead = 0
    private var sameValues = 0, otherValues = 0

    private mutating func remember(_ t: Double, _ value: Double?) {
        guard setBack == nil, let value else { return }
        recent[t] = value
        recentOrder.append(t)
        while recentHead < recentOrder.count, recentOrder[recentHead] < t - Self.farthestZoneChange {
            recent[recentOrder[recentHead]] = nil
            recentHead += 1
        }
        if recentHead > 4096, recentHead * 2 > recentOrder.count {
            recentOrder.removeFirst(recentHead)
            recentHead = 0
        }
    }

    private mutating func compare(_ t: Double, _ value: Double?) {
        guard let value, let before = recent[t] else { return }
        if abs(before - value) < 0.5 { sameValues += 1 } else { otherValues += 1 }
    }
    /// Warnings beyond `maxWarnings`, counted only.
    public private(set) var moreWarnings = 0

    public init() {}

    public mutating func note(_ time: Date, _ location: SourceLocation, value: Double? = nil) {
        let t = time.timeIntervalSinceReferenceDate
        defer { remember(t, value) }
        defer {
            last = t
            latest = max(latest, t)
        }
        if t > latest + Self.ahead, latest > -Double.infinity {
            aheadRun = Run(before: latest, start: t, startLine: location)
        } else if aheadRun != nil {
            if t > aheadRun!.before + Self.ahead {
                aheadRun!.rows += 1
                aheadRun!.last = t; aheadRun!.lastLineNumber = location.line
            } else {
                aheadRun = nil
            }
        }
        guard let last else { return }
        let step = t - last
        defer {
            if step != 0, abs(step) <= Self.jump { forward = step > 0 }
            if step > 0, step <= Self.jump { spacing = step }
            if abs(step) > Self.jump { blockStart = t }
        }
        if step < -Self.jump, step >= -Self.farthestZoneChange, forward, setBack == nil, t >= blockStart {
            setBack = Run(before: last, start: t, startLine: location)
            setBack!.spacing = spacing
            compare(t, value)
        } else if let r = setBack {
            // Back to where the readings before the jump would have got to: a jump and back (named
            // below), not a clock set back. A jump ahead that is not (a gap after the change) keeps it.
            let span = r.last - r.start, on = t - r.before
            if step > Self.jump, on >= span - Self.slack, on <= span + Self.offLimit {
                setBack = nil
            } else {
                setBack!.rows += 1
                setBack!.last = max(r.last, t); setBack!.lastLineNumber = location.line
                compare(t, value)
            }
        }
        if let r = run {
            let jumpIn = r.start - r.before
            if abs(step) > Self.jump, (step > 0) != (jumpIn > 0) {
                // The readings after the run go on from those before it, the way the file runs (the
                // run's own way, or the file's before it when the run is too short to tell).
                let span = r.last - r.start, on = t - r.before
                let continues = abs(on) >= abs(span) - Self.slack && abs(on) <= abs(span) + Self.offLimit
                    && (on > 0) == (abs(span) <= Self.slack ? r.forward : span > 0)
                if continues && r.rows >= Self.minRows {
                    add(jumpBack: r, offset: (jumpIn - step) / 2)
                    run = nil
                    if setBack?.start == t { setBack = nil }  // the back of a jump and back
                    return
                }
            }
            if abs(step) > Self.jump {
                run = Run(before: last, start: t, startLine: location, forward: forward)
            } else {
                // In place: a run (a real gap that never comes back) can last to the end of the file.
                run!.rows += 1
                run!.last = t; run!.lastLineNumber = location.line
            }
        } else if abs(step) > Self.jump {
            run = Run(before: last, start: t, startLine: location, forward: forward)
        }
    }

    /// The warnings, with the run ahead at the end of the file and the clock set back if there are.
    public mutating func finish() -> [ImportIssue] {
        if let r = setBack, r.rows >= Self.minRows, otherValues > sameValues {
            let earliest = Date(timeIntervalSinceReferenceDate: r.start), latest = Date(timeIntervalSinceReferenceDate: r.before)
            setBacks.append(SetBack(earliest: earliest, latest: latest, location: r.startLine))
            append(ImportIssue(.warning, r.startLine,
                "the device clock seems to have been set back by \(Self.duration(r.before - r.start + r.spacing, signed: false)) "
                + "from \(Self.lines(r.startLine, r.startLine)) on (a phone carried across time zones?): the times from "
                + "\(earliest.iso8601) to \(latest.iso8601) are written twice, on two clocks, so the glucose and the insulin then "
                + "are not known and a dose within them or the insulin's action after them is refused; export the days "
                + "before and after the change apart, or correct the clock's rows"))
        }
        setBack = nil
        if let r = aheadRun {
            aheadRun = nil
            append(ImportIssue(.warning, r.startLine,
                "the last \(r.rows) CGM \(r.rows == 1 ? "reading" : "readings") (\(Self.lines(r.startLine, r.lastLine))) "
                + "\(r.rows == 1 ? "is" : "are") dated \(Self.duration(r.start - r.before, signed: false)) after every reading before "
                + "them, with none after: the device clock seems to have been set ahead; their times are as written "
                + "(they would be the patient's newest days: correct the clock's rows or remove them)"))
        }
        if moreWarnings > 0 {
            let first = warnings.first?.location ?? SourceLocation(file: "")
            warnings.append(ImportIssue(.warning, SourceLocation(file: first.file),
                "... and \(Plural.of(moreWarnings, "more device clock jump"))"))
            moreWarnings = 0
        }
        return warnings
    }

    private mutating func add(jumpBack r: Run, offset: Double) {
        append(ImportIssue(.warning, r.startLine,
            "the device clock seems to have jumped by \(Self.duration(offset)) for \(r.rows) CGM "
            + "\(r.rows == 1 ? "reading" : "readings") (\(Self.lines(r.startLine, r.lastLine))) and back; "
            + "their times are as written"))
    }

    private mutating func append(_ issue: ImportIssue) {
        if warnings.count < Self.maxWarnings { warnings.append(issue) } else { moreWarnings += 1 }
    }

    /// "lines 12-83", "line 12", or the locations when the file has no lines.
    static func lines(_ a: SourceLocation, _ b: SourceLocation) -> String {
        switch (a.line, b.line) {
        case let (x?, y?): return x == y ? "line \(x)" : "lines \(x)-\(y)"
        default: return a == b ? "\(a)" : "\(a) to \(b)"
        }
    }

    /// To the minute, signed unless `signed` is false: "-23 h 58 min", "+365 d 0 h 0 min", "+45 min".
    static func duration(_ seconds: Double, signed: Bool = true) -> String {
        let minutes = Int((abs(seconds) / 60).rounded())
        let d = minutes / 1440, h = minutes / 60 % 24, m = minutes % 60
        let sign = signed ? (seconds < 0 ? "-" : "+") : ""
        if d > 0 { return "\(sign)\(d) d \(h) h \(m) min" }
        if h > 0 { return "\(sign)\(h) h \(m) min" }
        return "\(sign)\(m) min"
    }
}
