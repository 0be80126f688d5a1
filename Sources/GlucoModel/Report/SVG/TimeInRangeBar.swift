import Foundation

/// The time-in-ranges bar of the consensus report (Battelino et al. 2019): one vertical bar,
/// TBR level 2 at the bottom up to TAR level 2 at the top, in the consensus colours (dark red,
/// red, green, yellow, orange); each range's name and percentage sit in an evenly spaced row to
/// the right, joined to its segment by a line (so thin segments never hide their numbers).
public struct TimeInRangeBar: Sendable {
    public struct Segment: Sendable {
        public var label: String
        public var percent: Double
        public var colour: String
    }

    /// Bottom to top.
    public var segments: [Segment]

    /// - Parameter units: the unit the ranges' thresholds are labelled in.
    public init(metrics m: CGMMetrics, units: GlucoseUnit = .mgdL) {
        let r = units.consensusRanges
        segments = [
            Segment(label: "Very low \(r[0])", percent: m.tbrLevel2, colour: "#8b0000"),
            Segment(label: "Low \(r[1])", percent: m.tbrLevel1, colour: "#e31a1c"),
            Segment(label: "In range \(r[2])", percent: m.tir, colour: "#33a02c"),
            Segment(label: "High \(r[3])", percent: m.tarLevel1, colour: "#f2c500"),
            Segment(label: "Very high \(r[4])", percent: m.tarLevel2, colour: "#ff7f00"),
        ]
    }

    /// Bar geometry (px): the bar's left edge and width, and its top and height.
    static let barX = 20.0, barWidth = 50.0, barTop = 30.0, barHeight = 210.0

    public func svg(width: Double = 320, height: Double = 260) -> String {
        let n = SVGPlot.n
        let x = Self.barX, w = Self.barWidth, top = Self.barTop, h = Self.barHeight, bottom = top + h
        let label = SVGPlot.escape("Time in ranges: " + segments.map { "\($0.label) \(formatPercent($0.percent))" }.joined(separator: ", "))
        var s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(n(width))\" height=\"\(n(height))\" viewBox=\"0 0 \(n(width)) \(n(height))\" font-family=\"sans-serif\" font-size=\"13\" role=\"img\" aria-label=\"\(label)\">\n<title>\(label)</title>\n"
        s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        s += "<text x=\"\(n(width / 2))\" y=\"16\" text-anchor=\"middle\" font-weight=\"bold\">Time in ranges</text>\n"
        let total = segments.reduce(0) { $0 + ($1.percent.isFinite ? $1.percent : 0) }
        let rowHeight = h / Double(segments.count)
        var y = bottom
        for (i, seg) in segments.enumerated() {
            let share = total > 0 && seg.percent.isFinite ? seg.percent / total : 0
            let segmentHeight = h * share
            if segmentHeight > 0 {
                s += "<rect x=\"\(n(x))\" y=\"\(n(y - segmentHeight))\" width=\"\(n(w))\" height=\"\(n(segmentHeight))\" fill=\"\(seg.colour)\"/>\n"
            }
            let middle = y - segmentHeight / 2
            let row = bottom - (Double(i) + 0.5) * rowHeight
            s += "<polyline points=\"\(n(x + w)),\(n(middle)) \(n(x + w + 14)),\(n(middle)) \(n(x + w + 30)),\(n(row))\" fill=\"none\" stroke=\"#777\"/>\n"
            s += "<rect x=\"\(n(x + w + 34))\" y=\"\(n(row - 6))\" width=\"12\" height=\"12\" fill=\"\(seg.colour)\" stroke=\"#333\" stroke-width=\"0.5\"/>\n"
            s += "<text x=\"\(n(x + w + 52))\" y=\"\(n(row + 5))\">\(HTML.escape(seg.label))</text>\n"
            s += "<text x=\"\(n(width - 8))\" y=\"\(n(row + 5))\" text-anchor=\"end\" font-weight=\"bold\">\(HTML.escape(formatPercent(seg.percent)))</text>\n"
            y -= segmentHeight
        }
        s += "<rect x=\"\(n(x))\" y=\"\(n(top))\" width=\"\(n(w))\" height=\"\(n(h))\" fill=\"none\" stroke=\"#333\"/>\n"
        return s + "</svg>\n"
    }
}
