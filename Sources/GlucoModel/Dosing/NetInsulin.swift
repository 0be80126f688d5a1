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
    /// The grid point holding the moment the insulin was counted at, and the extended boluses'
    /// parts still to be delivered then (nil and empty without a moment).
    let momentPoint: Int?
    let pending: [Pending]
    /// With a moment: the boluses given whole (not extended) by then, at their own times, and
    /// `perStep` without them. At the moment's point they count by their exact age,
    /// `b_i * R(T - t_i)` as dosing.md writes it; on the grid alone a bolus counted from the end of
    /// its 5-minute step and the moment from the end of its own, so insulin on board was off by up
    /// to 0.3 U for a moment between grid points (hunt E, stop 51).
    let exactBoluses: [(seconds: Double, units: Double)]
    let momentSeconds: Double?
    /// How long (min) before the time of its grid point the moment is: each step's insulin is
    /// counted from the step's end, and at the moment's point its age is measured from the moment.
    /// Measured from the point's time, a moment between points counted the grid's insulin (basal
    /// differences, extended parts) up to 5 minutes older than it was (hunt BX, stop 64: 7.627 U on
    /// board a second after 11:30 where 11:30 itself gave 7.894, and 0.20 U where the spec gives 0).
    let momentLead: Double
    let perStepWithoutExact: [Double]

    /// The part of an extended bolus not yet delivered at the moment: `units` over the
    /// `seconds` after it, at an even rate.
    struct Pending: Hashable {
        var units: Double
        var seconds: Double
    }

    /// - Parameters:
    ///   - log: the records the series was built from.
    ///   - series: gives the grid (start, step, count).
    ///   - schedule: the settings' schedule, or nil for the data's programmed basal.
    ///   - timeZone: where the schedule's times of day are local.
    ///   - moment: the dose's moment: insulin is counted as delivered up to it (a basal's or temporary
    ///     basal's minutes after it, in the step that holds it, are not yet given), and the parts of
    ///     extended boluses still to come after it are on board in full (`onBoard` at its point).
    ///     Nil: every record as delivered to the grid's end.
    public init(log: PatientLog, series: PatientSeries, schedule: BasalSchedule?, timeZone: TimeZone,
                dualShare: Double = SeriesOptions().dualBolusImmediateShare, at moment: Date? = nil) {
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
            // No schedule to count a temporary basal against: boluses only (a temporary basal is a
            // change of the schedule, not insulin on top of nothing). A dose refuses while one acts
            // (`DoseGuards.unknownScheduleRefusal`).
            if source == .none { delivered.temporaryBasals = [] }
        }
        var pending: [Pending] = []
        if let moment {
            (delivered, pending) = Self.delivered(delivered, through: moment, dualShare: dualShare)
            scheduled = Self.delivered(scheduled, through: moment, dualShare: dualShare).log
            momentPoint = grid.bin(moment.timeIntervalSince1970)
            momentLead = momentPoint.map { (grid.t($0) - moment.timeIntervalSince1970) / 60 } ?? 0
        } else {
            momentPoint = nil
            momentLead = 0
        }
        self.pending = pending
        let given = grid.insulin(delivered, dualShare: dualShare)
        let planned = grid.insulin(scheduled, dualShare: dualShare)
        perStep = zip(given, planned).map { $0 - $1 }
        stepMinutes = series.step / 60
        if let moment {
            // Given whole by the moment; the rest (extended parts) stays on the grid.
            func exact(_ b: Bolus) -> Bool { (b.type == .normal || (b.end ?? b.time) <= b.time) && b.time <= moment }
            var rest = delivered
            rest.boluses.removeAll(where: exact)
            exactBoluses = delivered.boluses.filter { exact($0) && grid.bin($0.time.timeIntervalSince1970) != nil }
                .map { ($0.time.timeIntervalSince1970, $0.dose.units) }
            momentSeconds = moment.timeIntervalSince1970
            perStepWithoutExact = zip(grid.insulin(rest, dualShare: dualShare), planned).map { $0 - $1 }
        } else {
            exactBoluses = []
            momentSeconds = nil
            perStepWithoutExact = perStep
        }
    }

    /// `log`'s insulin as delivered through `moment`: basal rates and temporary basals end at it,
    /// and an extended bolus running then is split into what was given (its immediate part, and
    /// the extended part so far) and what is still to come.
    static func delivered(_ log: PatientLog, through moment: Date, dualShare: Double) -> (log: PatientLog, pending: [Pending]) {
        var out = log
        let nextStarts = log.basalRates.dropFirst().map(\.start) + [Date.distantFuture]
        out.basalRates = zip(log.basalRates, nextStarts).compactMap { rate, next in
            guard rate.start < moment else { return nil }
            var r = rate
            r.end = min(rate.end ?? next, next, moment)
            return r
        }
        out.temporaryBasals = log.temporaryBasals.compactMap { t in
            guard t.start < moment else { return nil }
            var r = t
            r.end = min(t.end, moment)
            return r
        }
        var pending: [Pending] = []
        out.boluses = log.boluses.flatMap { bolus -> [Bolus] in
            guard let end = bolus.end, end > bolus.time, bolus.time <= moment, bolus.type != .normal else { return [bolus] }
            let span = end.timeIntervalSince(bolus.time)
            let immediate = bolus.immediateUnits(share: dualShare)
            let extended = bolus.dose.units - immediate
            if end <= moment {
                // Given whole: its immediate part counts by its exact age, as while the extended part ran
                // (on the grid it jumped by up to 5 minutes when that part ended: hunt BX, stop 64).
                guard immediate > 0, extended > 0 else { return [bolus] }
                var now = bolus; now.end = nil; now.type = .normal; now.dose = InsulinUnits(immediate); now.immediate = nil
                var rest = bolus; rest.type = .square; rest.dose = InsulinUnits(extended); rest.immediate = nil
                return [now, rest]
            }
            let given = extended * moment.timeIntervalSince(bolus.time) / span
            pending.append(Pending(units: extended - given, seconds: end.timeIntervalSince(moment)))
            var parts: [Bolus] = []
            if immediate > 0 { var b = bolus; b.end = nil; b.type = .normal; b.dose = InsulinUnits(immediate); b.immediate = nil; parts.append(b) }
            if given > 0 { var b = bolus; b.end = moment; b.type = .square; b.dose = InsulinUnits(given); b.immediate = nil; parts.append(b) }
            return parts
        }
        return (out, pending)
    }

    /// Net insulin on board `minutesAhead` after grid point `t`, with no new dose:
    /// `sum_{j <= t} net[j] * R((t - j) * step + minutesAhead)`, `R` the insulin model's fraction
    /// remaining. Negative when the schedule delivered more than was given (a suspension).
    /// At the point holding the moment the insulin was counted at, the boluses given whole count by
    /// their exact age instead, `b_i * R(moment - t_i + minutesAhead)`, and the parts of extended
    /// boluses still to be delivered are added (in full until they are given).
    public func onBoard(at t: Int, minutesAhead: Double = 0, model: ExponentialInsulinModel) -> InsulinUnits {
        guard t >= 0, t < perStep.count else { return InsulinUnits(0) }
        let reach = Int((model.durationMinutes / stepMinutes).rounded(.up))
        var sum = 0.0
        let atMoment = t == momentPoint
        let steps = atMoment ? perStepWithoutExact : perStep
        let lead = atMoment ? momentLead : 0
        for j in max(0, t - reach)...t where steps[j] != 0 {
            sum += steps[j] * model.fractionRemaining(after: Double(t - j) * stepMinutes - lead + minutesAhead)
        }
        if atMoment, let now = momentSeconds {
            for b in exactBoluses {
                sum += b.units * model.fractionRemaining(after: (now - b.seconds) / 60 + minutesAhead)
            }
        }
        // The extended boluses still running at the moment: each step's part still to come counts as
        // given at that step's end (as the grid counts what was given), so in full until then.
        if t == momentPoint {
            let step = stepMinutes * 60
            for p in pending where p.seconds > 0 {
                var k = 1.0
                while (k - 1) * step < p.seconds {
                    let part = p.units * (min(p.seconds, k * step) - (k - 1) * step) / p.seconds
                    sum += part * model.fractionRemaining(after: minutesAhead - k * stepMinutes)
                    k += 1
                }
            }
        }
        return InsulinUnits(sum)
    }
}
