import Foundation

/// A wall-clock date and time with no zone, as exports write it (`2026-03-29 02:30`).
///
/// Fields are checked on construction (month 1-12, day valid for the month, hour 0-23,
/// minute and second 0-59), so a value of this type always names a real calendar moment.
public struct WallClockTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let year: Int, month: Int, day: Int
    public let hour: Int, minute: Int, second: Int
    /// Fraction of a second, 0 ..< 1.
    public let fraction: Double

    public init?(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, fraction: Double = 0) {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1,
              day <= WallClockTime.daysInMonth(year: year, month: month),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
              fraction >= 0, fraction < 1 else { return nil }
        self.year = year; self.month = month; self.day = day
        self.hour = hour; self.minute = minute; self.second = min(second, 59); self.fraction = fraction
    }

    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Seconds since 1970-01-01 00:00 *as if this wall-clock time were UTC*.
    ///
    /// Days from the civil date by H. Hinnant's `days_from_civil` algorithm
    /// (http://howardhinnant.github.io/date_algorithms.html), exact for the proleptic Gregorian calendar.
    public var wallSeconds: Double {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return Double(days * 86_400 + hour * 3_600 + minute * 60 + second) + fraction
    }

    public static func < (a: WallClockTime, b: WallClockTime) -> Bool { a.wallSeconds < b.wallSeconds }

    public var description: String {
        func p(_ v: Int, _ w: Int = 2) -> String { String(repeating: "0", count: max(0, w - String(v).count)) + String(v) }
        return "\(p(year, 4))-\(p(month))-\(p(day)) \(p(hour)):\(p(minute)):\(p(second))"
    }
}
