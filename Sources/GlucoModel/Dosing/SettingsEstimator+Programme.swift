import Foundation

extension SettingsEstimator {
    /// How far the settings' basal schedule is from the pump's programme in the data (its basal
    /// rate records): net insulin is the delivery beyond the schedule, so a file out of date with
    /// the pump reads every hour's difference as insulin given or missed. A schedule of 0.8 U/h
    /// against a pump running 1.0 left 4 of 205 fasting windows and fed 315 windows of nothing but
    /// that difference to the ISF fit as corrections.
    struct ProgrammeMismatch {
        /// Rates within this of each other (U/h), or within `relative` of the schedule's, agree.
        static let absolute = 0.05, relative = 0.05
        /// Beyond this share of the programmed time, the schedule is not the pump's.
        static let largestShare = 0.1

        /// The share of the 5-minute steps from `since` to `end` with a programmed rate at which
        /// that rate and the schedule's differ, and the first such step.
        var share: Double
        var first: (time: Date, programmed: Double, scheduled: Double)?

        init(log: PatientLog, schedule: BasalSchedule, timeZone: TimeZone, from since: Date, to end: Date) {
            var known = 0, differ = 0
            var t = since
            let rates = log.basalRates
            var i = 0
            let step = SeriesOptions().step
            while t < end {
                while i + 1 < rates.count, rates[i + 1].start <= t { i += 1 }
                if i < rates.count, rates[i].start <= t, rates[i].end.map({ t < $0 }) ?? true {
                    known += 1
                    let programmed = rates[i].rate.unitsPerHour, scheduled = schedule.rate(at: t, timeZone: timeZone).unitsPerHour
                    if abs(programmed - scheduled) > max(Self.absolute, Self.relative * scheduled) {
                        differ += 1
                        if first == nil { first = (t, programmed, scheduled) }
                    }
                }
                t = t.addingTimeInterval(step)
            }
            share = known > 0 ? Double(differ) / Double(known) : 0
        }

        /// The reason nothing changes, if the schedule is not the pump's.
        func reason(timeZone: TimeZone) -> String? {
            guard share > Self.largestShare, let first else { return nil }
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_US_POSIX")
            f.timeZone = timeZone
            f.dateFormat = "HH:mm"
            return "no change: the settings' basal schedule differs from the pump's programme in the data "
                + "\(SettingsEstimate.number(100 * share, 0))% of the time (at \(f.string(from: first.time)) the pump ran "
                + "\(SettingsEstimate.number(first.programmed)) U/h, the file says \(SettingsEstimate.number(first.scheduled))); "
                + "bring the file up to date with the pump"
        }
    }
}
