import Foundation

/// The time-in-ranges bar of the consensus report (Battelino et al. 2019): one horizontal bar
/// split into TBR level 2, TBR level 1, TIR, TAR level 1 and TAR level 2, in the consensus
/// colours (dark red, red, green, yellow, orange), with each range's percentage in a legend
/// under the bar (a legend, so thin segments never hide their numbers).
public struct TimeInRangeBar: Sendable {
    public struct Segment: Sendable {
        public var label: String
        public var percent: Double
        public var colour: String
    }

    public var segments: [Segment]

    public init(metrics m: CGMMetrics) {
        segments = [
            Segment(label: "Very low <54", percent: m.tbrLevel2, colour: "#8b0000"),
            Segment(label: "Low 54-69", percent: m.tbrLevel1, colour: "#e31a1c"),
            Segment(label: "In range 70-180", percent: m.tir, colour: "#33a02c"),
            Segment(label: "High 181-250", percent: m.tarLevel1, colour: "#f2c500"),
            Segment(label: "Very high >250", percent: m.tarLevel2, colour: "#ff7f00"),
        ]
    }

    public func svg(width: Double = 520, height: Double = 130) -> String {
        let n = SVGPlot.n
        let left = 10.0, barWidth = width - 20, barTop = 26.0, barHeight = 34.0
        var s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(n(width))\" height=\"\(n(height))\" viewBox=\"0 0 \(n(width)) \(n(height))\" font-family=\"sans-serif\" font-size=\"12\">\n"
        s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        s += "<text x=\"\(n(width / 2))\" y=\"16\" text-anchor=\"middle\" font-weight=\"bold\">Time in ranges</text>\n"
        let total = segments.reduce(0) { $0 + ($1.percent.isFinite ? $1.percent : 0) }
        var x = left
        for seg in segments where seg.percent.isFinite && seg.percent > 0 && total > 0 {
            let w = barWidth * seg.percent / total
            s += "<rect x=\"\(n(x))\" y=\"\(n(barTop))\" width=\"\(n(w))\" height=\"\(n(barHeight))\" fill=\"\(seg.colour)\"/>\n"
            if w >= 44 {
                let text = seg.colour == "#f2c500" ? "#000" : "#fff"
                s += "<text x=\"\(n(x + w / 2))\" y=\"\(n(barTop + barHeight / 2 + 4))\" text-anchor=\"middle\" fill=\"\(text)\" font-weight=\"bold\">\(HTML.escape(formatPercent(seg.percent)))</text>\n"
            }
            x += w
        }
        s += "<rect x=\"\(n(left))\" y=\"\(n(barTop))\" width=\"\(n(barWidth))\" height=\"\(n(barHeight))\" fill=\"none\" stroke=\"#333\"/>\n"
        let columnWidth = barWidth / Double(segments.count)
        for (i, seg) in segments.enumerated() {
            let cx = left + columnWidth * Double(i)
            let y = barTop + barHeight + 22
            s += "<rect x=\"\(n(cx))\" y=\"\(n(y - 10))\" width=\"12\" height=\"12\" fill=\"\(seg.colour)\" stroke=\"#333\" stroke-width=\"0.5\"/>\n"
            s += "<text x=\"\(n(cx + 16))\" y=\"\(n(y))\" font-size=\"11\">\(HTML.escape(seg.label))</text>\n"
            s += "<text x=\"\(n(cx + 16))\" y=\"\(n(y + 18))\" font-weight=\"bold\">\(HTML.escape(formatPercent(seg.percent)))</text>\n"
        }
        return s + "</svg>\n"
    }
}
