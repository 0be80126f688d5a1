import Foundation

/// An insulin record the source held that the import skipped: its amount was not a number, out of
/// range (a 1000 U or -3 U bolus), or another of its fields, or its time, could not be read, or
/// its row could not be split into fields (`wholeRow`).
/// The insulin was most likely given, in an amount nobody knows, so the insulin on board around
/// it is unknown: a dose near it is refused (`DoseGuards.skippedInsulinRefusal`). A record of
/// 0 U (a cancelled bolus) is no dose and is not one of these.
public struct SkippedInsulin: Hashable, Sendable, Codable {
    /// `.bolus`, `.basal`, `.temporaryBasal` or `.basalInjection`.
    public var kind: RecordKind
    public var time: Date
    /// Where the record was read (the field that failed, when one did).
    public var location: SourceLocation
    /// Skipped for its time, after the import's: the device's clock runs ahead (a pump not set
    /// back at the end of summer time), so the dose given minutes ago is dated later than now.
    public var datedAfterImport: Bool
    /// Set when the record's time could not be read: `time` is then the earliest it can be, and
    /// this says the latest (`UndatedInsulinBounds`). Nil when `time` was read.
    public var unreadTime: UnreadTime?
    /// Set when the record was read whole and dropped for another of its kind at the same instant
    /// with another amount (a `conflicting duplicate`, the first in the file kept): its amount (U, or
    /// U/h for a temporary basal). Two boluses given together, or one written twice with a
    /// correction? The kept one does not say, so the insulin on board is unknown.
    public var conflictingAmount: Double?
    /// Set when the record kept at that instant came from another source than this record's file:
    /// where it is ("an earlier import", "a file read before (a.csv)"). Nil for one file's own two.
    public var keptFrom: String?
    /// Set for a bolus whose amount could not be read when its file held a bolus read whole at the
    /// same instant (2 U and "abc" at 08:00; an OhioT1DM dual-wave bolus's part): that one is not
    /// the corrected copy a kept bolus within `ImportLimits.duplicateWindow` stands for, and does not
    /// settle it (`PatientLog.holdsRecord`). Nil otherwise, and in records stored before stop 63.
    public var besideKept: Bool?
    /// The record's end, when it delivers after its start (a temporary basal, a square or dual-wave
    /// bolus's extended part): its insulin acts for the insulin's duration after that, and a dose is
    /// refused until then (`DoseGuards.skippedInsulinRefusal`; review BT, stop 63: a 240-minute temp
    /// dropped beside a 10-minute one was refused only until 6 hours after its start). Nil for insulin
    /// given at once or whose end is unknown, and in records stored before stop 63.
    public var end: Date?

    /// The bounds of a time that could not be read, from the rows around the record.
    public struct UnreadTime: Hashable, Sendable, Codable {
        /// The latest the record can be.
        public var latest: Date
        /// Whether the bounds are the times of the rows just before and after it, in a file in time
        /// order: no other row of that file is strictly between them, so a kept record of the kind
        /// there came from another import (the same dose, read). Otherwise they are the file's
        /// earliest time and the import's (a file out of order), or one side is open (the file's
        /// first or last row) and is 1990 or the import's time.
        public var betweenRows: Bool

        public init(latest: Date, betweenRows: Bool) { self.latest = latest; self.betweenRows = betweenRows }
    }

    public init(kind: RecordKind, time: Date, location: SourceLocation, datedAfterImport: Bool = false,
                unreadTime: UnreadTime? = nil, conflictingAmount: Double? = nil, keptFrom: String? = nil, besideKept: Bool? = nil,
                end: Date? = nil) {
        self.kind = kind; self.time = time; self.location = location; self.datedAfterImport = datedAfterImport
        self.unreadTime = unreadTime; self.conflictingAmount = conflictingAmount; self.keptFrom = keptFrom
        self.besideKept = besideKept; self.end = end
    }

    /// The latest the record can be: `time`, or `unreadTime.latest` when its time was not read.
    public var latest: Date { unreadTime?.latest ?? time }

    /// The latest its insulin is delivered: `end` when later than `latest`.
    public var deliveredUntil: Date { max(latest, end ?? latest) }

    /// The field a record's location names when its whole row could not be read (an unclosed
    /// quote, a comma too many: `PatientLogBuilder.noteMalformedInsulin`).
    public static let wholeRow = "row"

    /// Whether the record's row could not be split into fields, so nothing of it was read but
    /// that it may be insulin.
    public var rowUnread: Bool { unreadTime != nil && location.field == Self.wholeRow }
}

extension SkippedInsulin {
    /// `records` in time order, one per kind and source place.
    static func ordered(_ records: [SkippedInsulin]) -> [SkippedInsulin] {
        var seen = Set<SkippedInsulin>()
        return records.filter { seen.insert($0).inserted }.sorted { $0.time < $1.time }
    }
}

extension SkippedInsulin {
    /// The record's kind in words, and its plural: "bolus", "basal rate", ...
    public var noun: (one: String, many: String) {
        switch kind {
        case .basal: ("basal rate", "basal rates")
        case .temporaryBasal: ("temporary basal", "temporary basals")
        case .basalInjection: ("basal injection", "basal injections")
        default: ("bolus", "boluses")
        }
    }
}
