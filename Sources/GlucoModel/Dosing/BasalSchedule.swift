import Foundation

/// A pump's basal schedule: rates by time of day, repeating every day (dosing.md, "Insulin on
/// board for dosing is net of the scheduled basal"). The settings file writes it as
///
/// ```json
/// "basalSchedule": [{"start": "00:00", "unitsPerHour": 0.85}, {"start": "06:00", "unitsPerHour": 1.0}]
/// ```
///
/// with local times of day (`HH:mm`), the first at 00:00, strictly increasing, rates 0-50 U/h.
public struct BasalSchedule: Hashable, Sendable, Codable {
    /// One entry as the settings file writes it.
    public struct Entry: Hashable, Sendable, Codable {
        public var start: String
        public var unitsPerHour: Double
        public init(start: String, unitsPerHour: Double) { self.start = start; self.unitsPerHour = unitsPerHour }

        /// `00:00 0.8, 06:00 1.05 U/h`, or `none` for no schedule.
        public static func describe(_ entries: [Entry]?) -> String {
            guard let entries, !entries.isEmpty else { return "none" }
            return entries.map { "\($0.start) \(String(format: "%g", $0.unitsPerHour))" }.joined(separator: ", ") + " U/h"
        }
    }

    /// Minutes after local midnight at which each rate starts, and the rate.
    public let starts: [Int]
    public let rates: [InsulinRate]

    /// Checks the entries: a problem is a sentence naming the entry.
    public init(_ entries: [Entry]) throws(BasalScheduleProblem) {
        guard !entries.isEmpty else { throw BasalScheduleProblem("basalSchedule is empty") }
        var starts: [Int] = [], rates: [InsulinRate] = []
        for (i, e) in entries.enumerated() {
            let parts = e.start.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
                  let h = Int(parts[0]), let m = Int(parts[1]), h < 24, m < 60 else {
                throw BasalScheduleProblem("basalSchedule[\(i)].start '\(e.start)': expected a time of day HH:mm")
            }
            let minute = h * 60 + m
            if i == 0, minute != 0 { throw BasalScheduleProblem("basalSchedule[0].start must be 00:00") }
            if let last = starts.last, minute <= last {
                throw BasalScheduleProblem("basalSchedule[\(i)].start \(e.start) is not after the entry before it")
            }
            guard e.unitsPerHour.isFinite, ImportLimits.basalUnitsPerHour.contains(e.unitsPerHour) else {
                throw BasalScheduleProblem("basalSchedule[\(i)].unitsPerHour \(e.unitsPerHour) is outside 0-50 U/h")
            }
            starts.append(minute)
            rates.append(InsulinRate(unitsPerHour: e.unitsPerHour))
        }
        self.starts = starts
        self.rates = rates
    }

    /// The programmed rate at `date`, in `timeZone`'s local time of day.
    public func rate(at date: Date, timeZone: TimeZone) -> InsulinRate {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.hour, .minute], from: date)
        let minute = (c.hour ?? 0) * 60 + (c.minute ?? 0)
        return rates[(starts.lastIndex { $0 <= minute }) ?? 0]
    }

    /// The first instant the wall clock of `resolver`'s zone reads `wall` or later, as `rate(at:)`
    /// reads the clock: in a daylight-saving gap, the end of the gap (an entry at 02:00 on Lord
    /// Howe's spring-forward day, 02:00 -> 02:30, starts at 02:30; one at 02:45 in Chatham's, 02:45
    /// -> 03:45, at 03:45); in a repeated hour, its first pass. Foundation's
    /// `date(bySettingHour:minute:second:of:)` gave the next day's 02:00 in Lord Howe's gap and
    /// 04:00 in Chatham's (hunt AH, stop 57: the day's 02:00 entry missing, the 00:00 rate read
    /// as scheduled until 08:00, and a dose 0.60 U too high).
    static func firstInstant(of wall: WallClockTime, _ resolver: LocalTimeResolver) -> Date {
        switch resolver.resolution(of: wall) {
        case let .unique(t): return t
        case let .repeated(first, _): return first
        case let .gap(shifted):
            // Read with the offset before the gap: the gap's end is within its length before.
            let before = wall.wallSeconds - shifted.timeIntervalSince1970
            let length = Double(resolver.timeZone.secondsFromGMT(for: shifted)) - before
            guard length > 0, let end = resolver.timeZone.nextDaylightSavingTimeTransition(after: shifted.addingTimeInterval(-length - 1)),
                  end <= shifted else { return shifted }
            return end
        }
    }

    /// The schedule laid out as basal records from `start` to `end` (one per entry per local day,
    /// the first starting at `start`), so the series grid spreads it exactly as it spreads a pump's
    /// logged basal.
    public func basalRates(from start: Date, to end: Date, timeZone: TimeZone) -> [BasalRate] {
        guard start < end else { return [] }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        var day = calendar.startOfDay(for: start)
        var out: [BasalRate] = []
        let resolver = LocalTimeResolver(timeZone: timeZone)
        while day < end {
            let date = calendar.dateComponents([.year, .month, .day], from: day)
            for (k, minute) in starts.enumerated() {
                // Entries are placed on the wall clock, so a daylight-saving day keeps its times.
                guard let y = date.year, let mo = date.month, let d = date.day,
                      let wall = WallClockTime(year: y, month: mo, day: d, hour: minute / 60, minute: minute % 60) else { continue }
                out.append(BasalRate(start: Self.firstInstant(of: wall, resolver), rate: rates[k]))
            }
            guard let next = calendar.date(byAdding: .day, value: 1, to: day) else { break }
            day = next
        }
        // A clock set back repeats its last hour (or however long): from that moment the schedule
        // runs again by the wall clock, as `rate(at:)` reads it.
        var transition = timeZone.nextDaylightSavingTimeTransition(after: calendar.startOfDay(for: start))
        var repeated = false
        while let x = transition, x < end {
            let back = timeZone.secondsFromGMT(for: x.addingTimeInterval(-1)) - timeZone.secondsFromGMT(for: x)
            if back > 0 {
                repeated = true
                out.append(BasalRate(start: x, rate: rate(at: x, timeZone: timeZone)))
                let c = calendar.dateComponents([.hour, .minute], from: x)
                let local = (c.hour ?? 0) * 60 + (c.minute ?? 0)
                for (k, minute) in starts.enumerated() where minute > local && minute < local + back / 60 {
                    out.append(BasalRate(start: x.addingTimeInterval(Double(minute - local) * 60), rate: rates[k]))
                }
            }
            transition = timeZone.nextDaylightSavingTimeTransition(after: x)
        }
        if repeated { out.sort { $0.start < $1.start } }
        // Keep the record in force at `start` and every later one before `end`.
        let firstInForce = out.lastIndex { $0.start <= start } ?? 0
        var kept = Array(out[firstInForce...].filter { $0.start < end })
        if let first = kept.first, first.start < start { kept[0].start = start }
        return kept
    }
}

/// Why a basal schedule cannot be used.
public struct BasalScheduleProblem: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
