import Foundation

/// Glucose readings an import skipped for a time after the import's (`future-dated`): a CGM whose
/// clock runs ahead (a receiver not set back at the end of summer time). The readings kept were
/// then taken earlier than their times say, and the newest of them looks fresh where it is not
/// (hunt AB, stop 55: a clock an hour ahead left the reading of an hour before, the peak after
/// lunch, as "now", and the formula dosed 1.3 U more on it). A dose near them is refused
/// (`DoseGuards.glucoseAheadRefusal`). Only their times are kept, and only those up to `reach`
/// after the import's: a garbled date years ahead is a typo, not a clock (its row is skipped with
/// a warning), and kept it would have refused every dose until then (the review of stop 55).
public struct GlucoseAhead: Hashable, Sendable, Codable {
    /// The times written on the skipped readings, ascending, each once.
    public private(set) var times: [Date]

    /// How far after the import's time a reading's time is kept: a day.
    public static let reach: TimeInterval = 24 * 3600

    public init(_ times: [Date]) { self.times = Array(Set(times)).sorted() }

    /// `time` added (in place: a file's times, mostly ascending, stay linear).
    public mutating func add(_ time: Date) {
        guard let last = times.last, time <= last else { times.append(time); return }
        if !times.contains(time) { times.append(time); times.sort() }
    }

    /// Both lists' times.
    public func merged(_ other: GlucoseAhead) -> GlucoseAhead { GlucoseAhead(times + other.times) }

    /// Every one of `list`'s times; nil for none.
    public static func merged(_ list: [GlucoseAhead?]) -> GlucoseAhead? {
        let all = list.compactMap { $0 }.flatMap(\.times)
        return all.isEmpty ? nil : GlucoseAhead(all)
    }

    /// The times with no glucose reading of `readings` (ascending) within `PatientLog.sourceWindow`:
    /// a reading read later, once the time was past (the next export, or another file of the same
    /// data), settles its time (the second review of stop 55: kept for good, a clock a minute fast
    /// gave each import a time, and a store's replays and audits were refused near them).
    public func unsettled(by readings: [GlucoseReading]) -> GlucoseAhead? {
        let window = PatientLog.sourceWindow
        let left = times.filter { t in
            let first = PatientLog.firstIndex(readings, atOrAfter: t.addingTimeInterval(-window))
            return !(first < readings.count && readings[first].time <= t.addingTimeInterval(window))
        }
        return left.isEmpty ? nil : GlucoseAhead(left)
    }

    enum CodingKeys: String, CodingKey { case times }

    /// Lenient: a summary whose key holds another shape (written while it was being built) reads as none,
    /// so that the store's log is still read.
    public init(from decoder: any Decoder) throws {
        let c = try? decoder.container(keyedBy: CodingKeys.self)
        self.init((try? c?.decodeIfPresent([Date].self, forKey: .times)) ?? [])
    }

    /// The times from `start` (exclusive) through `end`.
    public func times(after start: Date, through end: Date) -> [Date] { times.filter { $0 > start && $0 <= end } }
}
