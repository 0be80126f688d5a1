import Foundation

/// Glucose readings an import skipped for a time after the import's (`future-dated`): a CGM whose
/// clock runs ahead (a receiver not set back at the end of summer time). The readings kept were
/// then taken earlier than their times say, and the newest of them looks fresh where it is not
/// (hunt AB, stop 55: a clock an hour ahead left the reading of an hour before, the peak after
/// lunch, as "now", and the formula dosed 1.3 U more on it). A dose near them is refused
/// (`DoseGuards.glucoseAheadRefusal`). Only their span is kept: a clock a year ahead skips every row.
public struct GlucoseAhead: Hashable, Sendable, Codable {
    /// The earliest and latest time written on a skipped reading, and how many there were.
    public var earliest: Date
    public var latest: Date
    public var count: Int

    public init(earliest: Date, latest: Date, count: Int) {
        self.earliest = earliest; self.latest = latest; self.count = count
    }

    /// One reading dated `time`.
    public init(_ time: Date) { self.init(earliest: time, latest: time, count: 1) }

    /// The span of both.
    public func merged(_ other: GlucoseAhead) -> GlucoseAhead {
        GlucoseAhead(earliest: min(earliest, other.earliest), latest: max(latest, other.latest), count: count + other.count)
    }

    /// The span of every one of `list`; nil for none.
    public static func merged(_ list: [GlucoseAhead?]) -> GlucoseAhead? {
        list.compactMap { $0 }.reduce(nil) { $0?.merged($1) ?? $1 }
    }
}
