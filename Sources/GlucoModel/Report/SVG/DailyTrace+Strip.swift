import Foundation

extension DailyTrace {
    /// Where a daily profile turns red: glucose strictly below 70 mg/dL (level 1 hypoglycaemia
    /// and below, as the consensus counts time below range).
    public static let lowLine = 70.0

    /// A polyline cut where it crosses `threshold`: pieces entirely below it (`below` true) and
    /// pieces at or above it. A segment that crosses is split at the crossing point, found by
    /// linear interpolation `x = x0 + (threshold - y0) (x1 - x0) / (y1 - y0)`, which both pieces share.
    static func split(_ run: [(Double, Double)], below threshold: Double) -> [(points: [(Double, Double)], below: Bool)] {
        guard let first = run.first else { return [] }
        var pieces: [(points: [(Double, Double)], below: Bool)] = []
        var current = [first], isBelow = first.1 < threshold
        for (a, b) in zip(run, run.dropFirst()) {
            let bBelow = b.1 < threshold
            if bBelow != isBelow {
                let x = a.0 + (threshold - a.1) * (b.0 - a.0) / (b.1 - a.1)
                current.append((x, threshold))
                pieces.append((current, isBelow))
                current = [(x, threshold)]
                isBelow = bBelow
            }
            current.append(b)
        }
        pieces.append((current, isBelow))
        return pieces
    }

    /// A small panel for the week strip of the AGP page: the day's label, the 70-180 mg/dL band,
    /// the CGM line in dark blue and red wherever it is below 70 mg/dL. No axes: the strip is read
    /// against the AGP above it. Values above 350 mg/dL are drawn at 350.
    public func stripSVG(clock: ReportClock, width: Double = 150, height: Double = 100) -> String {
        let span = max(1, dayEnd.timeIntervalSince(dayStart) / 3600)
        var plot = SVGPlot(width: width, height: height, xRange: 0...span, yRange: 0...350,
                           title: "Glucose on \(clock.dayLabel(dayStart))", xLabel: "", yLabel: "")  // the text alternative: no axes draw it
        plot.left = 1; plot.right = 1; plot.top = 19; plot.bottom = 1
        plot.fontSize = 15
        plot.clipID = "strip-" + clock.date(dayStart)
        plot.polygon([(0, 70), (span, 70), (span, 180), (0, 180)], fill: "#e5f5e0")
        for (_, h) in clock.clockHours([6, 12, 18], dayStart: dayStart) where h < span {
            plot.polyline([(h, 0), (h, 350)], stroke: "#ddd", width: 0.6)
        }
        for run in runs(glucose) {
            for piece in Self.split(run.map { ($0.0, min($0.1, 350)) }, below: Self.lowLine) {
                plot.polyline(piece.points, stroke: piece.below ? "#e31a1c" : "#08306b", width: piece.below ? 1.6 : 1.1)
            }
        }
        let n = SVGPlot.n
        plot.overlay.append("<rect x=\"\(n(plot.px(0)))\" y=\"\(n(plot.py(350)))\" width=\"\(n(plot.px(span) - plot.px(0)))\" height=\"\(n(plot.py(0) - plot.py(350)))\" fill=\"none\" stroke=\"#999\" stroke-width=\"0.6\"/>")
        plot.overlay.append("<text x=\"3\" y=\"15\">\(HTML.escape(clock.shortDayLabel(dayStart)))</text>")
        if glucose.isEmpty {
            plot.overlay.append("<text x=\"\(n(width / 2))\" y=\"\(n(height / 2 + 8))\" text-anchor=\"middle\" fill=\"#777\">no readings</text>")
        }
        return plot.render()
    }
}
