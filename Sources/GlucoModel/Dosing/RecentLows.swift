import Foundation

/// A person's time below range over the consensus's 14 days before a dose (Battelino et al.,
/// Diabetes Care 2019), which decides whether a meal asked for just below target is held to the
/// formula's dose (docs/dosing.md, step 7).
///
/// The readings dated in `[at - period, at]`, as `GlucoseSeries` keeps them (one per instant,
/// finite and positive); below 70 and below 54 mg/dL as `CGMMetrics` counts them (runs at the
/// sensor's floor stay: real lows). `coveredDays` is the readings that cover time
/// (`GlucoseSeries.coveringCount`) times the CGM's interval.
public struct RecentLows: Sendable, Equatable {
    /// Percent of the readings below 70 mg/dL, and below 54.
    public var below70: Double, below54: Double
    /// Days of the period the readings cover.
    public var coveredDays: Double
    /// The newest reading below 70 mg/dL in the `lastLowSpan` before `at`, if any.
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

    /// Nil without a reading in the period.
    public init?(_ log: PatientLog, at: Date) {
        let start = at.addingTimeInterval(-Self.period)
        let first = PatientLog.firstIndex(log.glucose, atOrAfter: start)
        let readings = log.glucose[first...].prefix { $0.time <= at }
        let series = GlucoseSeries(readings: Array(readings), period: DateInterval(start: start, end: at.addingTimeInterval(1e-3)))
        guard series.count > 0 else { return nil }
        let n = Double(series.count)
        below70 = 100 * Double(series.values.count { $0 < 70 }) / n
        below54 = 100 * Double(series.values.count { $0 < 54 }) / n
        coveredDays = min(Self.period / 86_400, Double(series.coveringCount) * series.interval / 86_400)
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
