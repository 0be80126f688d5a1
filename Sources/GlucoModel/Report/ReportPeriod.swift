import Foundation

/// The period a report covers, and why one cannot be made.
public enum ReportPeriod {
    /// The consensus report length (Battelino et al. 2019): 14 days.
    public static let defaultDays = 14
    /// The longest period a report covers: ten years. Its work grows with the period's days, not
    /// the data's (`--from 1990-01-01 --to 9999-12-31` ran for ten minutes; hunt H, stop 51).
    public static let maximumDays = 3_660

    /// The period of a report: from `from` to `to` when given; otherwise the last `days` days
    /// of the log's glucose readings (ending one reading interval, 5 min, after the newest
    /// reading), never starting before the first reading.
    /// - Throws: `ReportError.noGlucose` for a log without readings; `ReportError.emptyPeriod`
    ///   when `from` is not before `to`.
    public static func resolve(log: PatientLog, from: Date? = nil, to: Date? = nil,
                               days: Int = defaultDays) throws -> DateInterval {
        guard let first = log.glucose.first?.time, let last = log.glucose.last?.time else {
            throw ReportError.noGlucose(log.patient)
        }
        let end = to ?? last.addingTimeInterval(GlucoseSeries.defaultInterval)
        let start = from ?? max(first, end.addingTimeInterval(-Double(max(1, days)) * 86_400))
        guard start < end else { throw ReportError.emptyPeriod(log.patient, from: start, to: end) }
        guard end.timeIntervalSince(start) <= Double(maximumDays) * 86_400 else {
            throw ReportError.periodTooLong(log.patient, from: start, to: end)
        }
        return DateInterval(start: start, end: end)
    }

    /// A time given on a command line: ISO 8601 with an offset (`2026-01-15T08:00:00Z`), or a
    /// wall-clock time or date without one (`2026-01-15`, `2026-01-15T08:00`) on `timeZone`'s
    /// clock (in a repeated daylight-saving hour, the earlier instant). Nil when unreadable.
    public static func parseTime(_ text: String, timeZone: TimeZone) -> Date? {
        try? TimeArgument.parse(text, timeZone: timeZone)
    }
}

/// Why a report cannot be made.
public enum ReportError: Error, CustomStringConvertible, Equatable {
    case noGlucose(PatientID)
    case emptyPeriod(PatientID, from: Date, to: Date)
    case noReadingsInPeriod(PatientID, from: Date, to: Date)
    case periodTooLong(PatientID, from: Date, to: Date)

    public var description: String {
        switch self {
        case let .noGlucose(p): return "\(p): no glucose readings in the data; nothing to report"
        case let .emptyPeriod(p, from, to):
            return "\(p): the report period is empty (from \(from.iso8601) is not before to \(to.iso8601)); check --from/--to"
        case let .periodTooLong(p, from, to):
            return "\(p): the report period from \(from.iso8601) to \(to.iso8601) is longer than \(ReportPeriod.maximumDays) days (ten years); choose a shorter --from/--to"
        case let .noReadingsInPeriod(p, from, to):
            return "\(p): no glucose readings from \(from.iso8601) to \(to.iso8601); choose a period the data covers"
        }
    }
}
