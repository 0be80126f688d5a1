import Foundation

/// A wall-clock date and time as written in an export, with an optional UTC offset.
///
/// Parsing is hand-written (no `DateFormatter`): exports hold hundreds of thousands of
/// timestamps, and the accepted layouts are few and fixed.
public struct LocalDateTime: Hashable, Sendable {
    public var year, month, day, hour, minute: Int
    public var second: Double
    /// Offset from UTC in seconds when the text carried one (`Z`, `+01:00`, `-0500`).
    public var utcOffset: Int?

    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Double = 0, utcOffset: Int? = nil) {
        self.year = year; self.month = month; self.day = day
        self.hour = hour; self.minute = minute; self.second = second; self.utcOffset = utcOffset
    }

    /// Parses `dd-mm-YYYY HH:MM:SS` (OhioT1DM), no offset.
    public static func parseDayMonthYear(_ text: String) -> LocalDateTime? {
        var s = Scanner5(text)
        guard let d = s.int(digits: 1...2), s.skip("-"), let m = s.int(digits: 1...2), s.skip("-"),
              let y = s.int(digits: 4...4), s.skip(" ") || s.skip("T"),
              let hh = s.int(digits: 1...2), s.skip(":"), let mm = s.int(digits: 2...2) else { return nil }
        var sec = 0.0
        if s.skip(":") {
            guard let ss = s.int(digits: 2...2) else { return nil }
            sec = Double(ss)
        }
        guard s.atEnd else { return nil }
        return LocalDateTime(year: y, month: m, day: d, hour: hh, minute: mm, second: sec).validated()
    }

    /// Parses ISO 8601 `YYYY-MM-DD[(T| )HH:MM[:SS[.fff]]][Z|±HH[:MM]]`.
    public static func parseISO8601(_ text: String) -> LocalDateTime? {
        var s = Scanner5(text)
        guard let y = s.int(digits: 4...4), s.skip("-"), let m = s.int(digits: 2...2), s.skip("-"),
              let d = s.int(digits: 2...2) else { return nil }
        var value = LocalDateTime(year: y, month: m, day: d)
        if s.atEnd { return value.validated() }
        guard s.skip("T") || s.skip(" "), let hh = s.int(digits: 2...2), s.skip(":"),
              let mm = s.int(digits: 2...2) else { return nil }
        value.hour = hh; value.minute = mm
        if s.skip(":") {
            guard let ss = s.int(digits: 2...2) else { return nil }
            value.second = Double(ss)
            if s.skip(".") || s.skip(",") {
                guard let (frac, n) = s.fraction() else { return nil }
                value.second += Double(frac) / pow(10, Double(n))
            }
        }
        if s.skip("Z") || s.skip("z") {
            value.utcOffset = 0
        } else if let sign = s.sign() {
            guard let oh = s.int(digits: 2...2) else { return nil }
            var om = 0
            if s.skip(":") {
                guard let v = s.int(digits: 2...2) else { return nil }
                om = v
            } else if let v = s.int(digits: 2...2) {
                om = v
            }
            guard oh <= 18, om < 60 else { return nil }
            value.utcOffset = sign * (oh * 3600 + om * 60)
        }
        guard s.atEnd else { return nil }
        return value.validated()
    }

    private func validated() -> LocalDateTime? {
        guard (1...12).contains(month), day >= 1, day <= LocalDateTime.daysIn(month: month, year: year),
              (0...23).contains(hour), (0...59).contains(minute), second >= 0, second < 61 else { return nil }
        return self
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Seconds since 1970-01-01 00:00 if this wall-clock time were UTC
    /// (days-from-civil, H. Hinnant's algorithm).
    var secondsAsIfUTC: Double {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return Double(days * 86_400 + hour * 3600 + minute * 60) + second
    }

    /// The instant: with the text's own offset when it had one, else in `timeZone`.
    /// A wall-clock time repeated by a daylight-saving change maps to its later
    /// (standard-time) instance; one skipped by the change maps one hour later.
    public func date(in timeZone: TimeZone) -> Date {
        let asUTC = secondsAsIfUTC
        if let utcOffset { return Date(timeIntervalSince1970: asUTC - Double(utcOffset)) }
        let guess = Date(timeIntervalSince1970: asUTC - Double(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: asUTC))))
        let offset = timeZone.secondsFromGMT(for: guess)
        return Date(timeIntervalSince1970: asUTC - Double(offset))
    }
}

/// A tiny cursor over ASCII text for the timestamp parsers.
private struct Scanner5 {
    let bytes: [UInt8]
    var i = 0
    init(_ text: String) { bytes = Array(text.utf8) }

    var atEnd: Bool { i == bytes.count }

    mutating func skip(_ c: Character) -> Bool {
        guard i < bytes.count, let a = c.asciiValue, bytes[i] == a else { return false }
        i += 1
        return true
    }

    mutating func int(digits: ClosedRange<Int>) -> Int? {
        var n = 0, v = 0
        while i < bytes.count, n < digits.upperBound, bytes[i] >= 48, bytes[i] <= 57 {
            v = v * 10 + Int(bytes[i] - 48); i += 1; n += 1
        }
        return n >= digits.lowerBound ? v : nil
    }

    mutating func fraction() -> (Int, Int)? {
        var n = 0, v = 0
        while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 {
            if n < 9 { v = v * 10 + Int(bytes[i] - 48); n += 1 }
            i += 1
        }
        return n > 0 ? (v, n) : nil
    }

    mutating func sign() -> Int? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }
}
