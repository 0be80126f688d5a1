import Foundation

/// The Ambulatory Glucose Profile: all days folded onto one 24-hour axis; per time-of-day bin
/// the 5th, 25th, 50th, 75th and 95th percentiles (type 7, `Statistics.percentile`).
public struct AmbulatoryGlucoseProfile: Sendable {
    public struct Bin: Sendable {
        /// Start of the bin, minutes after midnight.
        public var startMinute: Int
        public var count: Int
        /// p5, p25, p50, p75, p95 in mg/dL; NaN when the bin has no reading.
        public var percentiles: [Double]
    }

    public static let levels = [0.05, 0.25, 0.50, 0.75, 0.95]
    public var binMinutes: Int
    public var bins: [Bin]

    /// - Parameters:
    ///   - binMinutes: bin width; must divide 1440 (default 15 min, 96 bins).
    ///   - timeZone: the clock the days are folded on (default UTC, the clock of imported logs
    ///     that carry no zone).
    public init(series: GlucoseSeries, binMinutes: Int = 15, timeZone: TimeZone = TimeZone(identifier: "UTC")!) {
        precondition(binMinutes > 0 && 1440 % binMinutes == 0, "bin width must divide 24 h")
        self.binMinutes = binMinutes
        let binCount = 1440 / binMinutes
        var values = [[Double]](repeating: [], count: binCount)
        for (t, g) in zip(series.times, series.values) {
            let date = Date(timeIntervalSinceReferenceDate: t)
            let local = t + Double(timeZone.secondsFromGMT(for: date))
            // The reference date (2001-01-01 00:00 UTC) is a midnight.
            let secondOfDay = local - (local / 86_400).rounded(.down) * 86_400
            values[min(binCount - 1, Int(secondOfDay / Double(binMinutes * 60)))].append(g)
        }
        bins = values.enumerated().map { i, v in
            let sorted = v.sorted()
            return Bin(startMinute: i * binMinutes, count: v.count,
                       percentiles: Self.levels.map { Statistics.percentile(sorted: sorted, $0) })
        }
    }
}
