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

    public init(file: String) { self.file = file }

    /// Rows read but not modelled, over every section.
    public var rowsNotModelled: Int { notModelled.values.reduce(0, +) }

    /// Every row read is accounted for: kept, skipped, or not modelled.
    /// (Adjusted rows are kept, so they are not counted again.)
    public var isBalanced: Bool { rowsRead == recordsKept + rowsSkipped + rowsNotModelled }

    public var warnings: [ImportIssue] { issues.filter { $0.severity == .warning } }

    public var rowsSkipped: Int { skipped.values.reduce(0, +) }

    public mutating func skip(_ reason: String, _ issue: ImportIssue? = nil) {
        skipped[reason, default: 0] += 1
        if let issue { issues.append(issue) }
    }

    public mutating func adjust(_ reason: String) { adjusted[reason, default: 0] += 1 }

    public var description: String {
        var s = "\(file): \(rowsRead) rows read, \(recordsKept) records kept, \(rowsSkipped) skipped"
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
