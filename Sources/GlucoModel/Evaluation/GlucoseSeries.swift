import Foundation

/// Glucose readings prepared for metrics: finite values > 0 mg/dL inside a period, sorted by
/// time, one per timestamp (a later reading at the same instant is dropped), with the sensor's
/// reading interval inferred.
public struct GlucoseSeries: Sendable {
    /// Seconds since the reference date, increasing.
    public let times: [Double]
    /// mg/dL, same order as `times`.
    public let values: [Double]
    /// The reading interval in seconds: the median of the spacings between consecutive readings
    /// (mean of the two middle spacings for an even count); 300 s (5 min) with fewer than 2 readings.
    public let interval: Double
    /// The period the metrics cover.
    public let period: DateInterval
    /// Readings dropped: non-finite, <= 0, outside the period, or a duplicate timestamp.
    public let dropped: Int

    public static let defaultInterval = 300.0

    /// - Parameters:
    ///   - period: readings at `start <= t < end` are kept. Default: from the first reading to
    ///     the last reading plus one interval.
    public init(readings: [(time: Date, mgdL: Double)], period: DateInterval? = nil) {
        var kept = readings.filter { $0.mgdL.isFinite && $0.mgdL > 0 }
        if let period { kept = kept.filter { $0.time >= period.start && $0.time < period.end } }
        kept.sort { $0.time < $1.time }
        var times: [Double] = [], values: [Double] = []
        times.reserveCapacity(kept.count); values.reserveCapacity(kept.count)
        for r in kept {
            let t = r.time.timeIntervalSinceReferenceDate
            if let last = times.last, last == t { continue }
            times.append(t); values.append(r.mgdL)
        }
        self.times = times
        self.values = values
        self.dropped = readings.count - times.count
        var spacings = zip(times.dropFirst(), times).map { $0 - $1 }
        spacings.sort()
        if spacings.isEmpty {
            interval = GlucoseSeries.defaultInterval
        } else if spacings.count % 2 == 1 {
            interval = spacings[spacings.count / 2]
        } else {
            interval = (spacings[spacings.count / 2 - 1] + spacings[spacings.count / 2]) / 2
        }
        if let period {
            self.period = period
        } else if let first = times.first, let last = times.last {
            self.period = DateInterval(start: Date(timeIntervalSinceReferenceDate: first),
                                       end: Date(timeIntervalSinceReferenceDate: last + interval))
        } else {
            self.period = DateInterval(start: Date(timeIntervalSinceReferenceDate: 0), duration: 0)
        }
    }

    public init(readings: [GlucoseReading], period: DateInterval? = nil) {
        self.init(readings: readings.map { (time: $0.time, mgdL: $0.value.mgdL) }, period: period)
    }

    public var count: Int { times.count }

    /// The readings that cover time, for CGM active: in time order, a reading counts when it is
    /// more than half an `interval` after the last reading counted (the first always counts).
    /// A reading closer than that shares its interval with one already counted: readings
    /// interleaved at a spacing no single sensor has (a device clock set back a day over a day
    /// already recorded) are not counted twice. Every reading counts when the spacings are
    /// near the interval, gaps or not, so this is `count` for such data.
    public var coveringCount: Int {
        var n = 0
        var last = -Double.infinity
        for t in times where t - last > interval / 2 {
            n += 1
            last = t
        }
        return n
    }

    /// The seconds each reading stands for: the time to the next reading, at most the reading's
    /// local interval, the median of the spacings between the readings up to `neighbours` either
    /// side of it (the last reading: its local interval). A CGM whose interval changes (5 minutes,
    /// then a 1-minute sensor) is measured by each part's own, where one `interval` for the whole
    /// period counted the 5-minute days as a fifth covered (hunt BQ, stop 63); a reading repeated
    /// seconds apart, or two series interleaved, stand for the time once. For readings at a steady
    /// interval each stands for it, gaps or not. No reading stands for more than `longest`, the
    /// longest interval a CGM records at (a Libre's 15 minutes): readings hours apart are no CGM's.
    public func coveredSeconds(neighbours: Int = 6, longest: Double = 15 * 60) -> [Double] {
        let n = times.count
        guard n > 1 else { return Array(repeating: min(interval, longest), count: n) }
        let spacings = (0..<(n - 1)).map { times[$0 + 1] - times[$0] }
        var window: [Double] = []
        window.reserveCapacity(2 * neighbours)
        return (0..<n).map { i in
            window.removeAll(keepingCapacity: true)
            window.append(contentsOf: spacings[max(0, i - neighbours)..<min(n - 1, i + neighbours)])
            window.sort()
            let local = Statistics.percentile(sorted: window, 0.5)
            return min(longest, i < n - 1 ? min(spacings[i], local) : local)
        }
    }

    /// Pairs of readings `lag` seconds apart: for each reading at `t`, the reading nearest to
    /// `t + lag` (the earlier on a tie) if it is within `tolerance` seconds (default half the
    /// reading interval, inclusive). Returns (earlier value, later value) pairs.
    /// - Complexity: O(n), one moving pointer.
    public func pairs(lag: Double, tolerance: Double? = nil) -> [(Double, Double)] {
        let tol = tolerance ?? interval / 2
        var result: [(Double, Double)] = []
        var j = 0
        for i in times.indices {
            let target = times[i] + lag
            while j + 1 < times.count && times[j + 1] <= target { j += 1 }
            var best = j
            if j + 1 < times.count && abs(times[j + 1] - target) < abs(times[j] - target) { best = j + 1 }
            if best > i && abs(times[best] - target) <= tol { result.append((values[i], values[best])) }
        }
        return result
    }
}

/// Sample statistics (n - 1 in the variance, as R's `sd` and the iglu package use).
enum Statistics {
    static func mean(_ v: [Double]) -> Double {
        v.isEmpty ? .nan : v.reduce(0, +) / Double(v.count)
    }

    /// Sample standard deviation; NaN with fewer than 2 values.
    static func sampleSD(_ v: [Double]) -> Double {
        guard v.count >= 2 else { return .nan }
        let m = mean(v)
        return (v.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(v.count - 1)).squareRoot()
    }

    /// Percentile by linear interpolation between closest ranks (Hyndman-Fan type 7, the
    /// default of R's `quantile` and numpy's `percentile`): with `v` sorted ascending,
    /// `h = (n - 1) p`, result `v[floor h] + (h - floor h)(v[floor h + 1] - v[floor h])`.
    /// NaN for an empty array. `p` in 0...1.
    static func percentile(sorted v: [Double], _ p: Double) -> Double {
        guard !v.isEmpty else { return .nan }
        let h = Double(v.count - 1) * p
        let lo = Int(h.rounded(.down))
        guard lo + 1 < v.count else { return v[v.count - 1] }
        return v[lo] + (h - Double(lo)) * (v[lo + 1] - v[lo])
    }
}
