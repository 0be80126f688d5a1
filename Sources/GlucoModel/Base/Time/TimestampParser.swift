import Foundation

/// A timestamp as written in a file: a wall-clock time, and the UTC offset if the text had one.
public struct WrittenTimestamp: Hashable, Sendable {
    public var local: WallClockTime
    /// Seconds east of UTC (`Z` = 0), or nil when the text had no zone.
    public var utcOffset: Int?

    /// The instant, when the text carried its own offset.
    public var instant: Date? {
        utcOffset.map { Date(timeIntervalSince1970: local.wallSeconds - Double($0)) }
    }
}

/// Numeric day/month/year fields of a date whose order is not yet known (`03-04-2026 10:15 PM`).
public struct AmbiguousDate: Hashable, Sendable {
    public var first: Int, second: Int, year: Int
    public var hour: Int, minute: Int, second_: Int
    /// true/false when an AM/PM suffix was present (PM = true), nil for a 24-hour clock.
    public var pm: Bool?

    /// The order these fields prove on their own: a field > 12 cannot be a month. An AM/PM
    /// suffix proves nothing: day-first locales write a 12-hour clock too (en-AU, en-IN:
    /// `13-02-2026 08:00 AM`), so `03-04-2026 10:00 AM` is open (`DateOrderEvidence` decides a file).
    public var impliedOrder: DateOrder? {
        if first > 12 && second <= 12 { return .dayMonthYear }
        if second > 12 && first <= 12 { return .monthDayYear }
        return nil
    }

    /// The wall-clock time under an order, or nil when the fields are not a valid date in it.
    public func local(_ order: DateOrder) -> WallClockTime? {
        let (m, d) = order == .monthDayYear ? (first, second) : (second, first)
        var h = hour
        if let pm {
            guard (1...12).contains(hour) else { return nil }
            h = hour % 12 + (pm ? 12 : 0)
        }
        return WallClockTime(year: year, month: m, day: d, hour: h, minute: minute, second: second_)
    }
}

/// Small, allocation-free parsers for the timestamp shapes the exports use.
public enum TimestampParser {
    /// ISO 8601 `YYYY-MM-DD[T| ]hh:mm[:ss[.fff]][Z|±hh[:mm]|±hhmm]`; a date alone is midnight.
    public static func iso8601<S: StringProtocol>(_ text: S) -> WrittenTimestamp? {
        iso8601(bytes: ArraySlice(Array(text.utf8)))
    }

    /// `iso8601(_:)` over UTF-8 bytes, without making a `String`.
    public static func iso8601(bytes: ArraySlice<UInt8>) -> WrittenTimestamp? {
        var c = Cursor(bytes)
        c.skipSpaces()
        guard let y = c.digits(exactly: 4), c.eat("-"), let mo = c.digits(exactly: 2), c.eat("-"),
              let d = c.digits(exactly: 2) else { return nil }
        var h = 0, mi = 0, s = 0, frac = 0.0
        if c.eat("T") || c.eat(" ") || c.eat("t") {
            guard let hh = c.digits(exactly: 2), c.eat(":"), let mm = c.digits(exactly: 2) else { return nil }
            h = hh; mi = mm
            if c.eat(":") {
                guard let ss = c.digits(exactly: 2) else { return nil }
                s = ss
                if c.eat(".") || c.eat(",") {
                    var scale = 0.1
                    var any = false
                    while let digit = c.digit() { frac += Double(digit) * scale; scale /= 10; any = true }
                    guard any else { return nil }
                    if frac >= 1 { frac = 0.999_999 }
                }
            }
        }
        var offset: Int? = nil
        if c.eat("Z") || c.eat("z") {
            offset = 0
        } else if let sign = c.peek, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            c.index += 1
            guard let oh = c.digits(exactly: 2), oh <= 18 else { return nil }
            var om = 0
            if c.eat(":") {
                guard let m = c.digits(exactly: 2) else { return nil }
                om = m
            } else if let m = c.digits(exactly: 2) { om = m }
            guard om < 60 else { return nil }
            offset = (sign == UInt8(ascii: "-") ? -1 : 1) * (oh * 3600 + om * 60)
        }
        c.skipSpaces()
        guard c.atEnd, let local = WallClockTime(year: y, month: mo, day: d, hour: h, minute: mi, second: s, fraction: frac)
        else { return nil }
        return WrittenTimestamp(local: local, utcOffset: offset)
    }

    /// `NN-NN-YYYY hh:mm[:ss][ AM|PM]` with `-`, `/` or `.` between date fields (LibreView and
    /// other locale-dependent exports). The day/month order is left to the caller.
    public static func numericDate<S: StringProtocol>(_ text: S) -> AmbiguousDate? {
        numericDate(bytes: ArraySlice(Array(text.utf8)))
    }

    /// `numericDate(_:)` over UTF-8 bytes.
    public static func numericDate(bytes: ArraySlice<UInt8>) -> AmbiguousDate? {
        numericDate(bytes: bytes, separators: [UInt8(ascii: "-"), UInt8(ascii: "/"), UInt8(ascii: ".")], meridiem: true)
    }

    /// `dd-mm-YYYY HH:MM[:SS]` (OhioT1DM): day first, `-` between date fields, 24-hour clock, no zone.
    public static func dayMonthYear<S: StringProtocol>(_ text: S) -> WrittenTimestamp? {
        guard let fields = numericDate(bytes: ArraySlice(Array(text.utf8)), separators: [UInt8(ascii: "-")], meridiem: false),
              let local = fields.local(.dayMonthYear) else { return nil }
        return WrittenTimestamp(local: local, utcOffset: nil)
    }

    private static func numericDate(bytes: ArraySlice<UInt8>, separators: [UInt8], meridiem: Bool) -> AmbiguousDate? {
        var c = Cursor(bytes)
        c.skipSpaces()
        guard let a = c.digits(min: 1, max: 2), let sep = c.peek, separators.contains(sep) else { return nil }
        c.index += 1
        guard let b = c.digits(min: 1, max: 2), c.eat(sep), let y = c.digits(exactly: 4) else { return nil }
        guard c.eat(" ") || c.eat("T") else { return nil }
        c.skipSpaces()
        guard let h = c.digits(min: 1, max: 2), c.eat(":"), let mi = c.digits(exactly: 2) else { return nil }
        var s = 0
        if c.eat(":") {
            guard let ss = c.digits(exactly: 2) else { return nil }
            s = ss
        }
        c.skipSpaces()
        var pm: Bool? = nil
        if meridiem, let f = c.peek {
            switch f | 0x20 {
            case UInt8(ascii: "a"): pm = false
            case UInt8(ascii: "p"): pm = true
            default: return nil
            }
            c.index += 1
            guard let m = c.peek, m | 0x20 == UInt8(ascii: "m") else { return nil }
            c.index += 1
            c.skipSpaces()
        }
        guard c.atEnd, (0...23).contains(h), (0...59).contains(mi), (0...59).contains(s) else { return nil }
        return AmbiguousDate(first: a, second: b, year: y, hour: h, minute: mi, second_: s, pm: pm)
    }

    /// `hh:mm:ss` or `mm:ss` durations (Dexcom `Duration (hh:mm:ss)`), in minutes (seconds / 60).
    public static func durationMinutes<S: StringProtocol>(_ text: S) -> Double? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count) else { return nil }
        var total = 0.0
        for p in parts {
            guard let v = Int(p.trimmingCharacters(in: .whitespaces)), v >= 0, v < 100_000 else { return nil }
            total = total * 60 + Double(v)
        }
        return total / 60
    }

    struct Cursor {
        let bytes: ArraySlice<UInt8>
        var index: Int
        init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes; index = bytes.startIndex }
        var atEnd: Bool { index >= bytes.endIndex }
        var peek: UInt8? { index < bytes.endIndex ? bytes[index] : nil }
        mutating func eat(_ ch: Unicode.Scalar) -> Bool { eat(UInt8(ascii: ch)) }
        mutating func eat(_ b: UInt8) -> Bool {
            guard peek == b else { return false }
            index += 1
            return true
        }
        mutating func skipSpaces() { while let p = peek, p == 0x20 || p == 0x09 { index += 1 } }
        mutating func digit() -> Int? {
            guard let p = peek, p >= 0x30, p <= 0x39 else { return nil }
            index += 1
            return Int(p - 0x30)
        }
        mutating func digits(exactly n: Int) -> Int? { digits(min: n, max: n) }
        mutating func digits(min lo: Int, max hi: Int) -> Int? {
            var v = 0, count = 0
            while count < hi, let d = digit() { v = v * 10 + d; count += 1 }
            return count >= lo ? v : nil
        }
    }
}
