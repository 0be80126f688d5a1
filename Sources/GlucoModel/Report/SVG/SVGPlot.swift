/// A minimal SVG canvas with data coordinates: a plot box with margins, axes, ticks, labels,
/// and shapes clipped to the box. Produces self-contained SVG text (no scripts, no external
/// references), for embedding in an HTML report.
struct SVGPlot {
    let width: Double, height: Double
    let xRange: ClosedRange<Double>, yRange: ClosedRange<Double>
    let title: String, xLabel: String, yLabel: String
    var left = 60.0, right = 20.0, top = 30.0, bottom = 50.0
    /// Text size of ticks and labels, px.
    var fontSize = 12.0
    var body: [String] = []
    var overlay: [String] = []
    var clipID: String

    init(width: Double, height: Double, xRange: ClosedRange<Double>, yRange: ClosedRange<Double>,
         title: String, xLabel: String, yLabel: String) {
        self.width = width; self.height = height; self.xRange = xRange; self.yRange = yRange
        self.title = title; self.xLabel = xLabel; self.yLabel = yLabel
        clipID = "plot-" + title.lowercased().filter { $0.isLetter || $0.isNumber }
    }

    func px(_ x: Double) -> Double {
        left + (x - xRange.lowerBound) / (xRange.upperBound - xRange.lowerBound) * (width - left - right)
    }

    func py(_ y: Double) -> Double {
        height - bottom - (y - yRange.lowerBound) / (yRange.upperBound - yRange.lowerBound) * (height - top - bottom)
    }

    static func n(_ v: Double) -> String { formatNumber(v, decimals: 1) }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    func points(_ pts: [(Double, Double)]) -> String {
        pts.map { "\(Self.n(px($0.0))),\(Self.n(py($0.1)))" }.joined(separator: " ")
    }

    /// Axes with ticks; `xText`/`yText` turn a tick's value into its label (default: the number).
    mutating func axes(xTicks: [Double], yTicks: [Double], xText: ((Double) -> String)? = nil, yText: ((Double) -> String)? = nil) {
        let plain: (Double) -> String = { Self.n($0).replacingOccurrences(of: ".0", with: "") }
        let xText = xText ?? plain, yText = yText ?? plain
        let x0 = px(xRange.lowerBound), x1 = px(xRange.upperBound), y0 = py(yRange.lowerBound), y1 = py(yRange.upperBound)
        overlay.append("<rect x=\"\(Self.n(x0))\" y=\"\(Self.n(y1))\" width=\"\(Self.n(x1 - x0))\" height=\"\(Self.n(y0 - y1))\" fill=\"none\" stroke=\"#333\"/>")
        for t in xTicks {
            overlay.append("<line x1=\"\(Self.n(px(t)))\" y1=\"\(Self.n(y0))\" x2=\"\(Self.n(px(t)))\" y2=\"\(Self.n(y0 + 5))\" stroke=\"#333\"/>")
            overlay.append("<text x=\"\(Self.n(px(t)))\" y=\"\(Self.n(y0 + 18))\" text-anchor=\"middle\">\(Self.escape(xText(t)))</text>")
        }
        // Labels of close ticks (54 and 70 mg/dL) are pushed down to a text line apart.
        var labelY = 0.0
        for t in yTicks.sorted(by: { py($0) < py($1) }) {
            overlay.append("<line x1=\"\(Self.n(x0 - 5))\" y1=\"\(Self.n(py(t)))\" x2=\"\(Self.n(x0))\" y2=\"\(Self.n(py(t)))\" stroke=\"#333\"/>")
            labelY = max(py(t) + 4, labelY + fontSize)
            overlay.append("<text x=\"\(Self.n(x0 - 8))\" y=\"\(Self.n(labelY))\" text-anchor=\"end\">\(Self.escape(yText(t)))</text>")
        }
        overlay.append("<text x=\"\(Self.n((x0 + x1) / 2))\" y=\"\(Self.n(height - 10))\" text-anchor=\"middle\">\(Self.escape(xLabel))</text>")
        overlay.append("<text transform=\"translate(16,\(Self.n((y0 + y1) / 2))) rotate(-90)\" text-anchor=\"middle\">\(Self.escape(yLabel))</text>")
        overlay.append("<text x=\"\(Self.n(width / 2))\" y=\"18\" text-anchor=\"middle\" font-weight=\"bold\">\(Self.escape(title))</text>")
    }

    mutating func polyline(_ pts: [(Double, Double)], stroke: String, width w: Double, dash: String? = nil) {
        let d = dash.map { " stroke-dasharray=\"\($0)\"" } ?? ""
        body.append("<polyline points=\"\(points(pts))\" fill=\"none\" stroke=\"\(stroke)\" stroke-width=\"\(Self.n(w))\"\(d)/>")
    }

    mutating func polygon(_ pts: [(Double, Double)], fill: String) {
        body.append("<polygon points=\"\(points(pts))\" fill=\"\(fill)\" stroke=\"none\"/>")
    }

    mutating func circle(_ x: Double, _ y: Double, radius: Double, fill: String) {
        body.append("<circle cx=\"\(Self.n(px(x)))\" cy=\"\(Self.n(py(y)))\" r=\"\(Self.n(radius))\" fill=\"\(fill)\"/>")
    }

    /// A marker for a point beyond the axes, drawn on the edge (not clipped).
    mutating func edgeMarker(_ x: Double, _ y: Double, fill: String) {
        let cx = px(x), cy = py(y)
        overlay.append("<rect x=\"\(Self.n(cx - 3))\" y=\"\(Self.n(cy - 3))\" width=\"6\" height=\"6\" fill=\"none\" stroke=\"\(fill)\"/>")
    }

    mutating func label(_ text: String, _ x: Double, _ y: Double, size: Double = 16) {
        body.append("<text x=\"\(Self.n(px(x)))\" y=\"\(Self.n(py(y)))\" text-anchor=\"middle\" font-size=\"\(Self.n(size))\" font-weight=\"bold\" fill=\"#555\">\(Self.escape(text))</text>")
    }

    func render() -> String {
        let x0 = px(xRange.lowerBound), x1 = px(xRange.upperBound), y0 = py(yRange.lowerBound), y1 = py(yRange.upperBound)
        // A text alternative: a screen reader says what the chart is instead of reading its ticks.
        let name = [title, yLabel.isEmpty || xLabel.isEmpty ? "" : "\(yLabel) against \(xLabel)"].filter { !$0.isEmpty }.joined(separator: ": ")
        let label = Self.escape(name.isEmpty ? "chart" : name)
        var s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Self.n(width))\" height=\"\(Self.n(height))\" viewBox=\"0 0 \(Self.n(width)) \(Self.n(height))\" font-family=\"sans-serif\" font-size=\"\(Self.n(fontSize))\" role=\"img\" aria-label=\"\(label)\">\n<title>\(label)</title>\n"
        s += "<defs><clipPath id=\"\(clipID)\"><rect x=\"\(Self.n(x0))\" y=\"\(Self.n(y1))\" width=\"\(Self.n(x1 - x0))\" height=\"\(Self.n(y0 - y1))\"/></clipPath></defs>\n"
        s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        s += "<g clip-path=\"url(#\(clipID))\">\n" + body.joined(separator: "\n") + "\n</g>\n"
        s += overlay.joined(separator: "\n") + "\n</svg>\n"
        return s
    }
}
