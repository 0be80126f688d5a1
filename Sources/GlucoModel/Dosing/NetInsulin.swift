import Foundation

/// Net insulin per grid step (dosing.md, "Insulin on board for dosing is net of the scheduled
/// basal"): the insulin delivered (boluses, extended parts, basal and temporary basals) minus the
/// scheduled basal, on a series' grid:
///
///     net[j] = delivered[j] - scheduled[j]        (U per step; negative while a temp basal or
///                                                  a suspension gives less than the schedule)
///
/// The scheduled basal balances the liver's glucose output, so only insulin that differs from it
/// lowers glucose; counting the whole basal as on board would subtract 1-3 U from every meal dose.
/// Long-acting basal injections are the schedule of a person on injections: they count on
/// neither side. The model features keep total insulin (`PatientSeries.insulin`).
public struct NetInsulin: Sendable {
    /// Where the schedule came from.
    public enum ScheduleSource: String, Sendable, Codable {
        /// The settings file's `basalSchedule`.
        case settings
        /// The programmed basal rates found in the data (temporary basals excluded).
        case data
        /// Neither: no schedule in the settings and no basal in the data (boluses only).
        case none
    }

    public let source: ScheduleSource
    /// Net insulin (U) per step of the grid the series was built on.
    public let perStep: [Double]
    /// The grid step, minutes.
    public let stepMinutes: Double

    /// - Parameters:
    ///   - log: the records the series was built from.
    ///   - series: gives the grid (start, step, count).
    ///   - schedule: the settings' schedule, or nil for the data's programmed basal.
    ///   - timeZone: where the schedule's times of day are local.
    public init(log: PatientLog, series: PatientSeries, schedule: BasalSchedule?, timeZone: TimeZone,
                dualShare: Double = SeriesOptions().dualBolusImmediateShare) {
        let grid = SeriesGrid(start: series.start.timeIntervalSince1970, step: series.step, count: series.count)
        var delivered = log
        delivered.basalInjections = []
        var scheduled = PatientLog(patient: log.patient)
        if let schedule {
            let from = series.start.addingTimeInterval(-series.step)
            let end = series.time(at: max(0, series.count - 1)).addingTimeInterval(series.step)
            // An export without the pump's basal records: the schedule is taken to have run (temporary
            // basals still override it). Before the first basal record nothing is known of the
            // delivery, so the schedule counts only from there.
            if log.basalRates.isEmpty {
                delivered.basalRates = schedule.basalRates(from: from, to: end, timeZone: timeZone)
            }
            let known = max(from, delivered.basalRates.first?.start ?? from)
            scheduled.basalRates = schedule.basalRates(from: known, to: end, timeZone: timeZone)
            source = .settings
        } else {
            scheduled.basalRates = log.basalRates
            source = log.basalRates.isEmpty ? .none : .data
        }
        let given = grid.insulin(delivered, dualShare: dualShare)
        let planned = grid.insulin(scheduled, dualShare: dualShare)
        perStep = zip(given, planned).map { $0 - $1 }
        stepMinutes = series.step / 60
    }

    /// Net insulin on board `minutesAhead` after grid point `t`, with no new dose:
    /// `sum_{j <= t} net[j] * R((t - j) * step + minutesAhead)`, `R` the insulin model's fraction
    /// remaining. Negative when the schedule delivered more than was given (a suspension).
    public func onBoard(at t: Int, minutesAhead: Double = 0, model: ExponentialInsulinModel) -> InsulinUnits {
        guard t >= 0, t < perStep.count else { return InsulinUnits(0) }
        let reach = Int((model.durationMinutes / stepMinutes).rounded(.up))
        var sum = 0.0
        for j in max(0, t - reach)...t where perStep[j] != 0 {
            sum += perStep[j] * model.fractionRemaining(after: Double(t - j) * stepMinutes + minutesAhead)
        }
        return InsulinUnits(sum)
    }
}
