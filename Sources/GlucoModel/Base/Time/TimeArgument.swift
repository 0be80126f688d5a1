import Foundation

/// Moments given on a command line: ISO 8601 with an offset (`2026-01-05T08:00:00+01:00`,
/// `...Z`), or without one, then local to a time zone (`2026-01-05T08:00`, `2026-01-05`).
public enum TimeArgument {
    public enum ParseError: Error, CustomStringConvertible, Equatable {
        case notISO8601(option: String, text: String)
        case unknownTimeZone(name: String)

        public var description: String {
            switch self {
            case let .notISO8601(option, text):
                return "\(option): '\(text)' is not an ISO 8601 time; expected e.g. 2026-01-05T08:00, 2026-01-05T08:00:00Z or 2026-01-05"
            case let .unknownTimeZone(name):
                return "unknown time zone '\(name)'; use an IANA name like Europe/Madrid or UTC"
            }
        }
    }

    /// The time zone `name` names (IANA, e.g. `Europe/Madrid`), or this machine's when `name` is nil.
    /// - Throws: `ParseError.unknownTimeZone`.
    public static func timeZone(named name: String?) throws -> TimeZone {
        guard let name else { return .current }
        guard let zone = TimeZone(identifier: name) else { throw ParseError.unknownTimeZone(name: name) }
        return zone
    }

    /// The instant `text` names; a local time in a daylight-saving gap is shifted forward by the
    /// gap and a repeated hour takes its first pass, as the importers do.
    /// - Throws: `ParseError.notISO8601` naming `option`.
    public static func parse(_ text: String, timeZone: TimeZone, option: String = "time") throws -> Date {
        guard let written = TimestampParser.iso8601(text) else { throw ParseError.notISO8601(option: option, text: text) }
        if let instant = written.instant { return instant }
        var resolver = LocalTimeResolver(timeZone: timeZone)
        return resolver.resolve(written.local).date
    }
}
