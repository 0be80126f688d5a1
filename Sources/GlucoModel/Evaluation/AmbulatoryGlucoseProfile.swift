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

    /// An SVG drawing: 5-95% band, 25-75% band, median line, dashed 70 and 180 mg/dL lines,
    /// x axis in hours. Bins without readings leave gaps. Self-contained SVG text.
    public func svg(width: Double = 720, height: Double = 360) -> String {
        let top = max(300, ((bins.compactMap { $0.percentiles[4].isNaN ? nil : $0.percentiles[4] }.max() ?? 0) / 50).rounded(.up) * 50)
        var plot = SVGPlot(width: width, height: height, xRange: 0...24, yRange: 0...top,
                           title: "Ambulatory glucose profile", xLabel: "Time of day (h)", yLabel: "Glucose (mg/dL)")
        plot.axes(xTicks: stride(from: 0.0, through: 24, by: 3).map { $0 }, yTicks: stride(from: 0.0, through: top, by: 50).map { $0 })
        let centres = bins.map { (Double($0.startMinute) + Double(binMinutes) / 2) / 60 }
        for segment in contiguousRuns() {
            let xs = segment.map { centres[$0] }
            func band(_ lo: Int, _ hi: Int, _ fill: String) {
                let upper = segment.map { bins[$0].percentiles[hi] }, lower = segment.map { bins[$0].percentiles[lo] }
                plot.polygon(Array(zip(xs, upper)) + Array(zip(xs, lower)).reversed(), fill: fill)
            }
            band(0, 4, "#c6dbef")
            band(1, 3, "#6baed6")
            plot.polyline(Array(zip(xs, segment.map { bins[$0].percentiles[2] })), stroke: "#08306b", width: 2)
        }
        for (y, colour) in [(70.0, "#b2182b"), (180.0, "#ef8a62")] {
            plot.polyline([(0, y), (24, y)], stroke: colour, width: 1, dash: "6,4")
        }
        return plot.render()
    }

    /// Runs of consecutive bins that have readings.
    func contiguousRuns() -> [[Int]] {
        var runs: [[Int]] = [], current: [Int] = []
        for (i, bin) in bins.enumerated() {
            if bin.count > 0 { current.append(i) } else if !current.isEmpty { runs.append(current); current = [] }
        }
        if !current.isEmpty { runs.append(current) }
        return runs
    }
}
