import Foundation

/// Day/month order for formats whose dates are ambiguous (LibreView, hand-written CSV).
public enum DateOrder: String, Sendable, Codable, CaseIterable {
    case dayMonthYear = "dmy"
    case monthDayYear = "mdy"
}

/// Settings shared by every importer.
public struct ImportOptions: Sendable {
    /// The patient the data belongs to, for formats whose files do not say (or to override them).
    public var patient: PatientID?
    /// Time zone for local times without an offset.
    public var timeZone: TimeZone
    /// Rows dated after this moment are future-dated: skipped with a warning.
    public var now: Date
    /// Forces a day/month order instead of detecting it from the data.
    public var dateOrder: DateOrder?

    public init(patient: PatientID? = nil, timeZone: TimeZone = .current, now: Date = Date(), dateOrder: DateOrder? = nil) {
        self.patient = patient; self.timeZone = timeZone; self.now = now; self.dateOrder = dateOrder
    }
}

/// A reader for one export format. Implementations stream the file (bounded memory),
/// report every skipped or adjusted row in the summary, and throw `ImportError` only when
/// the file as a whole cannot be read.
public protocol PatientDataImporter: Sendable {
    /// A short name for `--format` and messages, e.g. `ohio-xml`.
    static var formatName: String { get }
    /// Whether the start of a file (its first few KiB, decoded as UTF-8) looks like this format.
    static func recognizes(head: String) -> Bool
    /// A reader with default settings (the registry creates importers from their types).
    init()
    func importFile(at url: URL, options: ImportOptions) throws -> ImportResult
}
