import Foundation

/// ISO 8601 UTC text of a moment (`2026-01-05T08:00:00Z`), as every file the toolkit writes uses.
extension Date {
    var iso8601: String { ISO8601DateFormatter.shared.string(from: self) }
}

extension ISO8601DateFormatter {
    /// A shared UTC formatter. `ISO8601DateFormatter` is thread-safe for formatting.
    nonisolated(unsafe) static let shared: ISO8601DateFormatter = {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f
    }()
}
