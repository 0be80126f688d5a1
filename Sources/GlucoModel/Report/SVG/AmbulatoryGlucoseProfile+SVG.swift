import Foundation

extension AmbulatoryGlucoseProfile {
    /// The glucose lines of the international AGP report, mg/dL: very low, low, high, very high.
    static let referenceLines: [(mgdL: Double, colour: String)] = [(54, "#8b0000"), (70, "#e31a1c"), (180, "#33a02c"), (250, "#ff7f00")]

    /// An SVG drawing as the international AGP report lays it out: the 70-180 mg/dL target band
    /// shaded green, the smoothed 5-95% band (light) and 25-75% band (dark) around the smoothed
    /// median (bold), lines at 54, 70, 180 and 250 mg/dL, and the curves labelled 5%, 25%, 50%,
    /// 75% and 95% at the right edge. The y axis runs to 350 mg/dL (400 when a smoothed 95th
    /// percentile exceeds 350; higher values are clipped), labelled in `units`. Bins without
    /// readings leave gaps. Self-contained SVG text.
    public func svg(width: Double = 720, height: Double = 330, units: GlucoseUnit = .mgdL) -> String {
        let highest = bins.compactMap { $0.smoothed[4].isNaN ? nil : $0.smoothed[4] }.max() ?? 0
        let top = highest > 350 ? 400.0 : 350.0
        var plot = SVGPlot(width: width, height: height, xRange: 0...24, yRange: 0...top,
                           title: "", xLabel: "Time of day", yLabel: "Glucose (\(units.rawValue))")
        plot.right = 46
        plot.clipID = "plot-agp"
        plot.top = 12
        plot.bottom = 40
        plot.fontSize = 13
        plot.axes(xTicks: stride(from: 0.0, through: 24, by: 3).map { $0 },
                  yTicks: Self.referenceLines.map(\.mgdL) + [top],
                  xText: { String(format: "%02d:00", Int($0) % 24) }, yText: { units.format($0) })
        plot.polygon([(0, 70), (24, 70), (24, 180), (0, 180)], fill: "#e5f5e0")
        let centres = bins.map { (Double($0.startMinute) + Double(binMinutes) / 2) / 60 }
        for segment in contiguousRuns() {
            // A run that reaches the first or last bin is drawn out to midnight (the curve is circular).
            var xs = segment.map { centres[$0] }
            var ids = segment
            if segment.first == 0 { xs.insert(0, at: 0); ids.insert(0, at: 0) }
            if segment.last == bins.count - 1 { xs.append(24); ids.append(bins.count - 1) }
            func curve(_ level: Int) -> [(Double, Double)] {
                if segment.count == bins.count {
                    // Every bin has readings: midnight is the mean of the two bins around it.
                    let wrap = (bins[0].smoothed[level] + bins[bins.count - 1].smoothed[level]) / 2
                    return Array(zip(xs, ids.enumerated().map { k, i in k == 0 || k == ids.count - 1 ? wrap : bins[i].smoothed[level] }))
                }
                return Array(zip(xs, ids.map { bins[$0].smoothed[level] }))
            }
            func band(_ lo: Int, _ hi: Int, _ fill: String) {
                plot.polygon(curve(hi) + curve(lo).reversed(), fill: fill)
            }
            band(0, 4, "#b7cde3")
            band(1, 3, "#5b8db8")
            plot.polyline(curve(2), stroke: "#08306b", width: 2.5)
        }
        for line in Self.referenceLines {
            plot.polyline([(0, line.mgdL), (24, line.mgdL)], stroke: line.colour, width: 1, dash: line.mgdL == 70 || line.mgdL == 180 ? nil : "5,4")
        }
        plot.overlay.append(contentsOf: percentileLabels(plot: plot, top: top))
        return plot.render()
    }

    /// "5%" ... "95%" beside the right edge at the curves' height at midnight (the last bin with
    /// readings), pushed apart to at least 13 px so they never overlap.
    func percentileLabels(plot: SVGPlot, top: Double) -> [String] {
        guard let last = bins.last(where: { $0.count > 0 }) else { return [] }
        var ys = last.smoothed.map { plot.py(min(top, max(0, $0))) }
        // Level 0 (5%) is lowest on the page: the largest y. Walk upwards keeping a gap.
        for i in ys.indices.dropFirst() where ys[i] > ys[i - 1] - 13 { ys[i] = ys[i - 1] - 13 }
        return zip(Self.levels, ys).map { level, y in
            "<text x=\"\(SVGPlot.n(plot.px(24) + 4))\" y=\"\(SVGPlot.n(y + 4))\" font-size=\"11\" fill=\"#08306b\">\(Int((level * 100).rounded()))%</text>"
        }
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
