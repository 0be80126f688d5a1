import Foundation

/// A person's time below range over the consensus's 14 days before a dose (Battelino et al.,
/// Diabetes Care 2019), which decides whether a meal asked for just below target is held to the
/// formula's dose (docs/dosing.md, step 7).
///
/// The CGM's readings dated in `[at - period, at]`, as `GlucoseSeries` keeps them (one per instant,
/// finite and positive; runs at the sensor's floor stay: real lows), each standing for the time to
/// the next at most its local interval (`GlucoseSeries.coveredSeconds`): below 70 and below 54
/// mg/dL are shares of that time, and `coveredDays` its sum. For a CGM of one interval these are
/// `CGMMetrics`' shares of readings and its readings covering time times the interval; for one
/// whose interval changed (5 minutes, then 1) the count of readings weighed the 1-minute days five
/// times and measured the 5-minute days as a fifth covered: 6.7 days where 13.5 held readings, and
/// the meal's dose held to the formula's (hunt BQ, stop 63: 3.65 U where 3.85).
public struct RecentLows: Sendable, Equatable {
    /// Percent of the time the readings cover below 70 mg/dL, and below 54.
    public var below70: Double, below54: Double
    /// Days of the period the readings cover.
    public var coveredDays: Double
    /// The newest reading below 70 mg/dL in the `lastLowSpan` before `at`, if any (a finger stick too).
    public var lastLow: GlucoseReading?

    /// How far back a low keeps the cap whatever the 14 days: a day.
    public static let lastLowSpan: TimeInterval = 24 * 3600

    /// The consensus's period for CGM metrics: 14 days.
    public static let period: TimeInterval = 14 * 86_400
    /// The consensus's sufficiency: readings covering 70% of the 14 days. Fewer cannot tell that
    /// lows are rare.
    public static let minimumDays = 0.7 * 14
    /// The consensus targets for lows, percent of readings (as `SettingsEstimator.lowTargets`).
    public static let targets = SettingsEstimator.lowTargets

    /// Nil without a CGM reading in the period (a finger-stick low of the last day is then not looked at:
    /// too few readings holds the dose all the same).
    public init?(_ log: PatientLog, at: Date) {
        let start = at.addingTimeInterval(-Self.period)
        let first = PatientLog.firstIndex(log.glucose, atOrAfter: start)
        let readings = log.glucose[first...].prefix { $0.time <= at }
        // The CGM's, as the report's metrics (a finger stick between two readings stood for their time).
        let series = GlucoseSeries(readings: readings.filter { $0.source == .cgm },
                                   period: DateInterval(start: start, end: at.addingTimeInterval(1e-3)))
        guard series.count > 0 else { return nil }
        let seconds = series.coveredSeconds()
        let covered = seconds.reduce(0, +)
        func share(below threshold: Double) -> Double {
            covered > 0 ? 100 * zip(series.values, seconds).reduce(0) { $0 + ($1.0 < threshold ? $1.1 : 0) } / covered : 0
        }
        below70 = share(below: 70)
        below54 = share(below: 54)
        coveredDays = min(Self.period / 86_400, covered / 86_400)
        let dayBefore = at.addingTimeInterval(-Self.lastLowSpan)
        lastLow = readings.last { $0.time >= dayBefore && $0.value.mgdL.isFinite && $0.value.mgdL > 0 && $0.value.mgdL < 70 }
    }

    public init(below70: Double, below54: Double, coveredDays: Double, lastLow: GlucoseReading? = nil) {
        self.below70 = below70
        self.below54 = below54
        self.coveredDays = coveredDays
        self.lastLow = lastLow
    }

    /// Enough readings, and both consensus targets for lows met (under 4% below 70, under 1% below 54).
    public var lowsAreRare: Bool {
        coveredDays >= Self.minimumDays && below70 < Self.targets.below70 && below54 < Self.targets.below54
    }
}
