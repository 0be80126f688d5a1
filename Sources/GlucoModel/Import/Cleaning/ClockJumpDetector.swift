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
/// Not named: a real gap (a forward jump that does not come back), a newest-first file, a
/// daylight-saving repeat resolved by the time zone, a clock set back for the rest of the file.
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

    private struct Run: Sendable {
        var before: Double
        var start: Double, startLine: SourceLocation
        /// The run's last reading: its time and line (its file and field are the start's).
        var last: Double, lastLineNumber: Int?
        var lastLine: SourceLocation { SourceLocation(file: startLine.file, line: lastLineNumber, field: startLine.field) }

        /// Whether the file's readings ran forward in time before the run (its last step under
        /// `jump`): a short run's own span is too short to tell.
        var forward: Bool

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
    /// Warnings beyond `maxWarnings`, counted only.
    public private(set) var moreWarnings = 0

    public init() {}

    public mutating func note(_ time: Date, _ location: SourceLocation) {
        let t = time.timeIntervalSinceReferenceDate
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
        defer { if step != 0, abs(step) <= Self.jump { forward = step > 0 } }
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

    /// The warnings, with the run ahead at the end of the file if there is one.
    public mutating func finish() -> [ImportIssue] {
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
