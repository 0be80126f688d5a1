import Foundation

/// Moments given on a command line: ISO 8601 with an offset (`2026-01-05T08:00:00+01:00`,
/// `...Z`), or without one, then local to a time zone (`2026-01-05T08:00`, `2026-01-05`).
public enum TimeArgument {
    public enum ParseError: Error, CustomStringConvertible, Equatable {
        case notISO8601(option: String, text: String)
        case unknownTimeZone(name: String)
        /// A local time the clock shows twice (the repeated hour of a fall-back night), asked for exactly.
        case repeatedLocalTime(option: String, text: String, zone: String, first: String, second: String)
        /// A local time the clock skips (the gap of a spring-forward night), asked for exactly.
        case skippedLocalTime(option: String, text: String, zone: String)

        public var description: String {
            switch self {
            case let .notISO8601(option, text):
                return "\(option): '\(text)' is not an ISO 8601 time; expected e.g. 2026-01-05T08:00, 2026-01-05T08:00:00Z or 2026-01-05"
            case let .unknownTimeZone(name):
                return "unknown time zone '\(name)'; use an IANA name like Europe/Madrid or UTC, or a fixed offset like +01:00 (no daylight saving)"
            case let .repeatedLocalTime(option, text, zone, first, second):
                return "\(option): '\(text)' happens twice in \(zone) (the clock is set back over it that night): "
                    + "give its offset, \(first) (first pass) or \(second) (second pass)"
            case let .skippedLocalTime(option, text, zone):
                return "\(option): '\(text)' does not exist in \(zone) (the clock skips it that night): "
                    + "give a time outside the gap, or an offset"
            }
        }
    }

    /// The time zone `name` names (IANA, e.g. `Europe/Madrid`), or this machine's when `name` is nil.
    /// - Throws: `ParseError.unknownTimeZone`.
    public static func timeZone(named name: String?) throws -> TimeZone {
        guard let name else { return .current }
        if let zone = TimeZone(identifier: name) { return zone }
        // A fixed offset as ISO 8601 writes it (+01:00, -0530, +02), as `UTC+1` already reads.
        let b = Array(name.utf8)
        let digits = b.dropFirst().filter { $0 != UInt8(ascii: ":") }
        if let sign = b.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"),
           [2, 4].contains(digits.count), digits.allSatisfy({ (48...57).contains($0) }),
           b.count == 1 + digits.count || (b.count == 6 && b[3] == UInt8(ascii: ":")) {
            let n = digits.map { Int($0) - 48 }
            let hours = n[0] * 10 + n[1], minutes = digits.count == 4 ? n[2] * 10 + n[3] : 0
            if hours <= 14, minutes < 60, let zone = TimeZone(secondsFromGMT: (sign == UInt8(ascii: "-") ? -1 : 1) * (hours * 3600 + minutes * 60)) {
                return zone
            }
        }
        throw ParseError.unknownTimeZone(name: name)
    }

    /// The instant `text` names; a local time in a daylight-saving gap is shifted forward by the
    /// gap and a repeated hour takes its first pass, as the importers do. With `exact` (a moment
    /// a dose rests on: an hour off changes the insulin on board), such a local time is refused
    /// instead, the message giving the offsets to choose from.
    /// - Throws: `ParseError` naming `option`.
    public static func parse(_ text: String, timeZone: TimeZone, option: String = "time", exact: Bool = false) throws -> Date {
        guard let written = TimestampParser.iso8601(text) else { throw ParseError.notISO8601(option: option, text: text) }
        if let instant = written.instant { return instant }
        var resolver = LocalTimeResolver(timeZone: timeZone)
        if exact {
            switch resolver.classify(written.local) {
            case .unique: break
            case .gap: throw ParseError.skippedLocalTime(option: option, text: text, zone: timeZone.identifier)
            case let .repeated(first, second):
                throw ParseError.repeatedLocalTime(option: option, text: text, zone: timeZone.identifier,
                                                   first: text + timeZone.offsetText(at: first), second: text + timeZone.offsetText(at: second))
            }
        }
        return resolver.resolve(written.local).date
    }
}
