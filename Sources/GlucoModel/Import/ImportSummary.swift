import Foundation

/// The end-of-import account: rows read, kept, skipped and why. Nothing is dropped silently.
public struct ImportSummary: Hashable, Sendable, Codable, CustomStringConvertible {
    public var file: String
    public var rowsRead = 0
    public var recordsKept = 0
    /// Reason -> rows skipped for it (e.g. "duplicate", "future-dated", "out of range").
    public var skipped: [String: Int] = [:]
    /// Reason -> rows kept but adjusted (e.g. "censored Low kept at 40 mg/dL").
    public var adjusted: [String: Int] = [:]
    /// Section or record kind -> rows read but not modelled (e.g. OhioT1DM `sleep`). Not errors.
    public var notModelled: [String: Int] = [:]
    public var issues: [ImportIssue] = []
    /// Of `skipped`, the rows skipped as expected, without a warning (`skipQuietly`: a preamble,
    /// copies of a kept row, another patient's rows the patient option leaves out), by reason.
    /// Nil when there were none, and in summaries stored before it was counted.
    public var skippedQuietly: [String: Int]?
    /// Of the skipped rows, the insulin records with a readable time (`SkippedInsulin`), every one
    /// (the warnings stop at the first 100 of a reason; a dose near any of these is refused). Nil
    /// when there were none, and in summaries stored before they were kept.
    public var skippedInsulin: [SkippedInsulin]?
    /// Of the skipped rows, the glucose readings dated after the import's time (`GlucoseAhead`).
    /// Nil when there were none, and in summaries stored before they were kept.
    public var glucoseAhead: GlucoseAhead?

    public init(file: String) { self.file = file }

    /// `path`, the file read, as this summary names it: with the names its import took out of the
    /// file's name (a Clarity or LibreView export named after the person) out of the path's last
    /// part too. Other paths as they are.
    public func shown(_ path: String) -> String {
        let url = URL(fileURLWithPath: path), name = URL(fileURLWithPath: file).lastPathComponent
        guard !name.isEmpty, url.lastPathComponent != name else { return path }
        return url.deletingLastPathComponent().appendingPathComponent(name).path
    }

    /// Rows read but not modelled, over every section.
    public var rowsNotModelled: Int { notModelled.values.reduce(0, +) }

    /// Every row read is accounted for: kept, skipped, or not modelled.
    /// (Adjusted rows are kept, so they are not counted again.)
    public var isBalanced: Bool { rowsRead == recordsKept + rowsSkipped + rowsNotModelled }

    public var warnings: [ImportIssue] { issues.filter { $0.severity == .warning } }

    public var rowsSkipped: Int { skipped.values.reduce(0, +) }

    /// Rows skipped for a problem, with warnings (every skip but `skippedQuietly`): data the
    /// file holds that is not kept.
    public var rowsSkippedForProblems: Int { rowsSkipped - (skippedQuietly?.values.reduce(0, +) ?? 0) }

    public mutating func skip(_ reason: String, _ issue: ImportIssue? = nil) {
        skipped[reason, default: 0] += 1
        if let issue { issues.append(issue) }
    }

    /// Records a row skipped as expected (see `skippedQuietly`): counted, no warning.
    public mutating func skipQuietly(_ reason: String) {
        skip(reason)
        var quiet = skippedQuietly ?? [:]
        quiet[reason, default: 0] += 1
        skippedQuietly = quiet
    }

    public mutating func adjust(_ reason: String) { adjusted[reason, default: 0] += 1 }

    /// Adds `other`'s skipped rows (quiet ones still quiet) and warnings.
    mutating func addSkips(of other: ImportSummary) {
        for (reason, n) in other.skipped { skipped[reason, default: 0] += n }
        if let more = other.skippedQuietly {
            skippedQuietly = (skippedQuietly ?? [:]).merging(more, uniquingKeysWith: +)
        }
        if let more = other.skippedInsulin { skippedInsulin = (skippedInsulin ?? []) + more }
        glucoseAhead = GlucoseAhead.merged([glucoseAhead, other.glucoseAhead])
        issues += other.issues
    }

    /// Rows were skipped for a problem and none was kept: the file's times, format or patient were
    /// read wrongly (epoch seconds in a time column, another time zone, only another patient's
    /// rows), so the import failed rather than found an empty file. A file with no rows, or only
    /// rows skipped as expected (a Dexcom export's preamble), is not this.
    public var keptNothing: Bool { keptNothing(recordsKept) }

    /// `keptNothing` for `kept` records: also a file of only rows of another patient than the one
    /// asked for (`otherPatientRow`, skipped quietly: in a file of several, the expected rest).
    public func keptNothing(_ kept: Int) -> Bool {
        kept == 0 && (rowsSkippedForProblems > 0 || skipped[Self.otherPatientRow, default: 0] > 0)
    }

    /// The reason of the rows of a patient other than the one an import is for (`--patient`).
    public static let otherPatientRow = "row of another patient"

    /// The warnings for people, one line each: the first `limit` (all when nil), then
    /// `... and N more warnings` followed by `more` when some were left out. Every command that
    /// shows an import's warnings prints these lines, so they read the same everywhere.
    public func warningLines(limit: Int?, more: String = "") -> [String] {
        let shown = limit.map { Array(issues.prefix(max(0, $0))) } ?? issues
        var lines = shown.map(\.description)
        // The builder keeps the first `PatientLogBuilder.maxIssuesPerReason` warnings of a reason;
        // the summary line counts every row.
        let capped = rowsSkippedForProblems > issues.count ? " (the first of each kind; the summary line counts every row)" : ""
        if shown.count < issues.count { lines.append("... and \(Plural.of(issues.count - shown.count, "more warning"))" + capped + more) }
        if let insulin = insulinLine { lines.insert(insulin, at: 0) }
        return lines
    }

    /// The line that heads the warnings when insulin records were skipped (`skippedInsulin`): what
    /// that does to doses, which the row warnings alone do not say.
    var insulinLine: String? {
        guard let skipped = skippedInsulin, !skipped.isEmpty else { return nil }
        // A JSON export on one line: its records' places, not line 1 each time.
        let records = skipped.allSatisfy { $0.location.record != nil }
        let lines = records ? skipped.compactMap(\.location.record) : skipped.compactMap(\.location.line)
        let shown = lines.prefix(5).map(String.init).joined(separator: ", ") + (lines.count > 5 ? ", ..." : "")
        let noun = (records ? "record" : "line") + (lines.count == 1 ? "" : "s")
        return ImportIssue(.warning, SourceLocation(file: file),
                           "\(Plural.of(skipped.count, "insulin record")) skipped\(lines.isEmpty ? "" : " (\(noun) \(shown))"): "
                           + "a dose asked for within the insulin's action after one is refused until it is corrected (the refusal says how)").description
    }

    /// The summary line, then the first `warnings` warning lines indented under it (as
    /// `import-data` prints them): what a command that imports as a side line shows of a file.
    public func report(warnings limit: Int) -> String {
        ([description] + warningLines(limit: limit).map { "  " + $0 }).joined(separator: "\n")
    }

    public var description: String {
        var s = "\(file): \(Plural.of(rowsRead, "row")) read, \(Plural.of(recordsKept, "record")) kept, \(rowsSkipped) skipped"
        let reasons = skipped.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
        if !reasons.isEmpty { s += " (" + reasons.joined(separator: ", ") + ")" }
        let adj = adjusted.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
        if !adj.isEmpty { s += "; adjusted: " + adj.joined(separator: ", ") }
        let other = notModelled.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
        if !other.isEmpty { s += "; not modelled: " + other.joined(separator: ", ") }
        // The file name and the not-modelled kinds come from outside: printable only.
        return TerminalText.escaped(s)
    }
}

/// The result of importing one file.
public struct ImportResult: Sendable {
    public var log: PatientLog
    public var summary: ImportSummary
    /// For each kind, the source line of each record in the log's list of that kind (same order),
    /// when the importer tracked them (`PatientLogBuilder` does); the store keeps them with the records.
    public var sourceLines: [RecordKind: [Int?]]
    public init(log: PatientLog, summary: ImportSummary, sourceLines: [RecordKind: [Int?]] = [:]) {
        self.log = log; self.summary = summary; self.sourceLines = sourceLines
    }

    /// The source line of record `index` of `kind`, if known.
    public func line(of kind: RecordKind, _ index: Int) -> Int? {
        guard let lines = sourceLines[kind], index < lines.count else { return nil }
        return lines[index]
    }
}

/// An import that kept nothing while it skipped rows (`ImportSummary.keptNothing`): a failed
/// file. The store records no run and no patient for it, so the same file imports once its
/// options (time zone, format, patient) are fixed; the summary carries the warnings that say why.
public struct NothingKeptError: Error, Sendable, CustomStringConvertible {
    public var summary: ImportSummary

    public init(summary: ImportSummary) { self.summary = summary }

    /// The failure as every reader's error, naming the file.
    public var error: InputError {
        let reasons = summary.skipped.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        return InputError(SourceLocation(file: summary.file),
                          "no records kept: \(Plural.of(summary.rowsSkipped, "row")) skipped (\(reasons)) and none kept; nothing imported. "
                            + "Fix the file or the options (time zone, format, patient) as the warnings say, and import it again")
    }

    public var description: String { error.description }
}
