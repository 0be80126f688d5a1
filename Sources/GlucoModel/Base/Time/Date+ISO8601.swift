import Foundation

/// ISO 8601 UTC text of a moment (`2026-01-05T08:00:00Z`), as every file the toolkit writes uses.
extension Date {
    var iso8601: String { ISO8601DateFormatter.shared.string(from: self) }

    /// ISO 8601 text of the moment on `zone`'s clock, with its offset (`2026-10-22T19:20:00+02:00`;
    /// `Z` for UTC): what a person in that zone reads, and what a time option reads back.
    public func iso8601(in zone: TimeZone) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        f.timeZone = zone
        return f.string(from: self)
    }
}

extension TimeZone {
    /// The zone's offset from UTC at `date` as ISO 8601 writes it: `+02:00`, `-05:30`.
    public func offsetText(at date: Date) -> String {
        let seconds = secondsFromGMT(for: date)
        return String(format: "%@%02d:%02d", seconds < 0 ? "-" : "+", abs(seconds) / 3600, abs(seconds) % 3600 / 60)
    }
}

extension ISO8601DateFormatter {
    /// A shared UTC formatter. `ISO8601DateFormatter` is thread-safe for formatting.
    nonisolated(unsafe) static let shared: ISO8601DateFormatter = {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f
    }()
}
