import Foundation

/// The Ambulatory Glucose Profile: all days folded onto one 24-hour axis; per time-of-day bin
/// the 5th, 25th, 50th, 75th and 95th percentiles (type 7, `Statistics.percentile`), and the
/// same curves smoothed across neighbouring bins, as the international AGP report draws them.
///
/// Smoothing: a circular (midnight wraps to midnight) weighted moving average over the bin and
/// its two neighbours on each side, weights 1, 2, 3, 2, 1:
/// `s[i] = sum_k w_k p[i+k] / sum_k w_k` over `k = -2...2` whose bin has readings. A bin
/// without readings stays NaN (a gap in the curve, never invented data).
public struct AmbulatoryGlucoseProfile: Sendable {
    public struct Bin: Sendable {
        /// Start of the bin, minutes after midnight.
        public var startMinute: Int
        public var count: Int
        /// p5, p25, p50, p75, p95 in mg/dL; NaN when the bin has no reading.
        public var percentiles: [Double]
        /// The percentiles after smoothing (see the type's documentation); NaN without readings.
        public var smoothed: [Double]
    }

    /// The smoothing weights for offsets -2...2 bins.
    public static let smoothingWeights: [Double] = [1, 2, 3, 2, 1]

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
        let raw = values.map { v in
            let sorted = v.sorted()
            return Self.levels.map { Statistics.percentile(sorted: sorted, $0) }
        }
        bins = values.enumerated().map { i, v in
            Bin(startMinute: i * binMinutes, count: v.count, percentiles: raw[i],
                smoothed: v.isEmpty ? raw[i] : Self.smooth(raw, at: i, counts: values.map(\.count)))
        }
    }

    /// The weighted circular average of every level at bin `i` (see the type's documentation).
    static func smooth(_ raw: [[Double]], at i: Int, counts: [Int]) -> [Double] {
        let n = raw.count, half = smoothingWeights.count / 2
        return levels.indices.map { level in
            var sum = 0.0, weights = 0.0
            for (k, w) in smoothingWeights.enumerated() {
                let j = ((i + k - half) % n + n) % n
                guard counts[j] > 0 else { continue }
                sum += w * raw[j][level]
                weights += w
            }
            return sum / weights
        }
    }
}
