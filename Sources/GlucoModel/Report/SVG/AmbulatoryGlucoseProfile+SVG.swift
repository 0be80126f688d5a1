import Foundation

extension AmbulatoryGlucoseProfile {
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
