import Foundation
@testable import GlucoModel

enum Fixture {
    static func url(_ path: String) -> URL {
        Bundle.module.resourceURL!.appendingPathComponent("Fixtures").appendingPathComponent(path)
    }

    static let utc = TimeZone(identifier: "UTC")!
    /// The fixtures are dated 2026-01-05; "now" for the tests is 2027-01-01 UTC.
    static let options = ImportOptions(timeZone: utc, now: date("2027-01-01T00:00:00Z"))

    /// An instant from ISO 8601 text with an offset, parsed by Foundation (independent of the code under test).
    static func date(_ iso: String) -> Date {
        let f = ISO8601DateFormatter()
        return f.date(from: iso)!
    }
}
