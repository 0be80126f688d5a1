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
        /// The last step at which the rates differ: from the next on, the programme is the schedule
        /// (a suggestion adopted and the pump reprogrammed to it, say).
        var lastDifference: Date?
        var agreesSince: Date? { lastDifference.map { $0.addingTimeInterval(SeriesOptions().step) } }
        /// The last step with a programmed rate: steps after it, with no basal record, agree with
        /// nothing.
        var lastRecorded: Date?

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
                    lastRecorded = t
                    let programmed = rates[i].rate.unitsPerHour, scheduled = schedule.rate(at: t, timeZone: timeZone).unitsPerHour
                    if abs(programmed - scheduled) > max(Self.absolute, Self.relative * scheduled) {
                        differ += 1
                        if first == nil { first = (t, programmed, scheduled) }
                        lastDifference = t
                    }
                }
                t = t.addingTimeInterval(step)
            }
            share = known > 0 ? Double(differ) / Double(known) : 0
        }

        /// The least time a programme that became the schedule has run for the days since to be read
        /// alone: a day, so that every basal block has had its hours.
        static let leastAgreement: TimeInterval = 86_400

        /// Whether the schedule is not the pump's over the days read.
        var differs: Bool { share > Self.largestShare && first != nil }

        /// When the programme became the schedule, if it did in the days read and its records have
        /// agreed with it for at least `leastAgreement` since: the days from then on can be read
        /// alone. Steps with no basal record agree with nothing (records that stop a day before the
        /// last reading are no programme become the schedule).
        func becameTheSchedule() -> Date? {
            guard differs, let since = agreesSince, let recorded = lastRecorded,
                  recorded.addingTimeInterval(SeriesOptions().step).timeIntervalSince(since) >= Self.leastAgreement else { return nil }
            return since
        }

        /// The reason nothing changes, if the schedule is not the pump's.
        func reason(timeZone: TimeZone) -> String? {
            guard differs, let first else { return nil }
            return "no change: the settings' basal schedule differs from the pump's programme in the data "
                + "\(SettingsEstimate.number(100 * share, 0))% of the time, from \(Self.time(first.time, timeZone))"
                + (lastDifference.map { " to \(Self.time($0, timeZone))" } ?? "") + " (at \(Self.time(first.time, timeZone)) the pump ran "
                + "\(SettingsEstimate.number(first.programmed)) U/h, the file says \(SettingsEstimate.number(first.scheduled))); "
                + "bring the file up to date with the pump"
        }

        static func time(_ t: Date, _ timeZone: TimeZone) -> String {
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_US_POSIX")
            f.timeZone = timeZone
            f.dateFormat = "yyyy-MM-dd HH:mm"
            return f.string(from: t)
        }
    }
}
