import Foundation

/// The period a report covers, and why one cannot be made.
public enum ReportPeriod {
    /// The consensus report length (Battelino et al. 2019): 14 days.
    public static let defaultDays = 14
    /// The longest period a report covers: ten years. Its work grows with the period's days, not
    /// the data's (`--from 1990-01-01 --to 9999-12-31` ran for ten minutes; hunt H, stop 51).
    public static let maximumDays = 3_660

    /// The period of a report: from `from` to `to` when given; otherwise the last `days` days
    /// of the log's CGM readings (ending one reading interval, 5 min, after the newest
    /// reading), never starting before the first reading. Finger sticks are left out, as from the
    /// report's figures: `glucomodel-predict metrics` covers the same days (hunt BW).
    /// - Throws: `ReportError.noGlucose` for a log without CGM readings; `ReportError.emptyPeriod`
    ///   when `from` is not before `to`.
    /// - Parameter timeZone: the clock an error gives the period's times on (the one they were typed on).
    public static func resolve(log: PatientLog, from: Date? = nil, to: Date? = nil,
                               days: Int = defaultDays, timeZone: TimeZone = ReportClock.utc.timeZone) throws -> DateInterval {
        guard let first = log.glucose.first(where: { $0.source == .cgm })?.time,
              let last = log.glucose.last(where: { $0.source == .cgm })?.time else {
            throw ReportError.noGlucose(log.patient)
        }
        let end = to ?? last.addingTimeInterval(GlucoseSeries.defaultInterval)
        let start = from ?? max(first, end.addingTimeInterval(-Double(max(1, days)) * 86_400))
        guard start < end else { throw ReportError.emptyPeriod(log.patient, from: start, to: end, timeZone: timeZone) }
        guard end.timeIntervalSince(start) <= Double(maximumDays) * 86_400 else {
            throw ReportError.periodTooLong(log.patient, from: start, to: end, timeZone: timeZone)
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

/// Why a report cannot be made. A period's times are given on `timeZone`'s clock, with its offset:
/// the clock `--from` and `--to` were typed on (they read in UTC, 05:00 for a midnight typed in
/// New York; hunt AQ).
public enum ReportError: Error, CustomStringConvertible, Equatable {
    /// No CGM reading in the data (finger sticks, if any, are not reported on).
    case noGlucose(PatientID)
    case emptyPeriod(PatientID, from: Date, to: Date, timeZone: TimeZone = ReportClock.utc.timeZone)
    case noReadingsInPeriod(PatientID, from: Date, to: Date, timeZone: TimeZone = ReportClock.utc.timeZone)
    case periodTooLong(PatientID, from: Date, to: Date, timeZone: TimeZone = ReportClock.utc.timeZone)

    public var description: String {
        switch self {
        case let .noGlucose(p): return "\(p): no CGM readings in the data (finger sticks alone are not reported on); nothing to report"
        case let .emptyPeriod(p, from, to, zone):
            return "\(p): the report period is empty (from \(from.iso8601(in: zone)) is not before to \(to.iso8601(in: zone))); check --from/--to"
        case let .periodTooLong(p, from, to, zone):
            return "\(p): the report period from \(from.iso8601(in: zone)) to \(to.iso8601(in: zone)) is longer than \(ReportPeriod.maximumDays) days (ten years); choose a shorter --from/--to"
        case let .noReadingsInPeriod(p, from, to, zone):
            return "\(p): no CGM readings from \(from.iso8601(in: zone)) to \(to.iso8601(in: zone)); choose a period the data covers"
        }
    }
}
