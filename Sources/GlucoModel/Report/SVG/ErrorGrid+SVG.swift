extension ErrorGrid {
    /// An SVG drawing of the grid: zone lines, zone labels and the scored pairs. The axes run to
    /// 400 mg/dL when every scored value is at most 400, else to 600; points beyond 600 are drawn
    /// on the edge as open squares. Unscored pairs are left out. The grid is defined and drawn
    /// in mg/dL; only the axis labels are printed in `units`. Self-contained SVG text.
    /// `title` (default "<grid> error grid") also names the drawing's clip path: give several grids
    /// on one page different titles.
    public func svg(pairs: [GlucosePair], width: Double = 480, height: Double = 480, units: GlucoseUnit = .mgdL,
                    title: String? = nil) -> String {
        let scored = pairs.filter(\.isScorable)
        let top = scored.allSatisfy { $0.reference <= 400 && $0.prediction <= 400 } ? 400.0 : 600.0
        var plot = SVGPlot(width: width, height: height, xRange: 0...top, yRange: 0...top,
                           title: title ?? "\(self) error grid", xLabel: "Reference (\(units.rawValue))", yLabel: "Prediction (\(units.rawValue))")
        let ticks = stride(from: 0.0, through: top, by: 50).map { $0 }
        plot.axes(xTicks: ticks, yTicks: ticks, xText: { units.format($0) }, yText: { units.format($0) })
        switch self {
        case .clarke: drawClarke(&plot, top)
        case .parkesType1: drawParkes(.type1, &plot, top)
        case .parkesType2: drawParkes(.type2, &plot, top)
        }
        for p in scored {
            if p.reference <= top && p.prediction <= top {
                plot.circle(p.reference, p.prediction, radius: 1.8, fill: "#1f77b4")
            } else {
                plot.edgeMarker(min(p.reference, top), min(p.prediction, top), fill: "#d62728")
            }
        }
        return plot.render()
    }

    /// The lines of Clarke et al. 1987 (`ErrorGrid.clarke`); the C line `y = x + 110` and the A lines run to the axis end.
    func drawClarke(_ plot: inout SVGPlot, _ top: Double) {
        let lines: [[(Double, Double)]] = [
            [(0, 70), (175.0 / 3, 70), (top / 1.2, top)],
            [(70, 84), (70, top)],
            [(0, 180), (70, 180), (top - 110, top)],
            [(70, 0), (70, 56), (top, 0.8 * top)],
            [(180, 0), (180, 70), (top, 70)],
            [(240, 70), (240, 180), (top, 180)],
            [(130, 0), (180, 70)],
        ]
        for line in lines { plot.polyline(line, stroke: "#333", width: 1) }
        for (zone, x, y) in labelPositions { plot.label(zone.rawValue, x, y) }
    }

    func drawParkes(_ type: ParkesErrorGrid.DiabetesType, _ plot: inout SVGPlot, _ top: Double) {
        let grid = ParkesErrorGrid.grid(type)
        for (boundary, _) in grid.upperBoundaries + grid.lowerBoundaries {
            var pts = boundary.vertices.map { (Double($0.x), Double($0.y)) }
            let last = pts[pts.count - 1]
            if last.0 < top || last.1 < top {
                // extend the last segment with its slope to the edge of the plot
                let x = max(last.0, top)
                pts.append((x, boundary.y(at: x)))
            }
            plot.polyline(pts, stroke: "#333", width: 1)
        }
        for (zone, x, y) in labelPositions { plot.label(zone.rawValue, x, y) }
    }

    /// Where the zone letters are drawn (mg/dL, inside 0...400); each lies in its zone (tested).
    var labelPositions: [(ErrorGridZone, Double, Double)] {
        switch self {
        case .clarke:
            return [(.a, 150, 176), (.b, 352, 248), (.b, 220, 320), (.c, 120, 340), (.c, 160, 28),
                    (.d, 28, 140), (.d, 340, 130), (.e, 28, 340), (.e, 340, 28)]
        case .parkesType1:
            return [(.a, 300, 300), (.b, 200, 300), (.b, 320, 200), (.c, 120, 340), (.c, 330, 120),
                    (.d, 65, 330), (.d, 370, 40), (.e, 20, 340)]
        case .parkesType2:
            return [(.a, 300, 300), (.b, 180, 300), (.b, 320, 190), (.c, 100, 340), (.c, 340, 110),
                    (.d, 50, 340), (.d, 370, 30), (.e, 15, 360)]
        }
    }
}
