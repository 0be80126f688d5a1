/// One boundary of the Parkes grid: a polyline through integer vertices, interpolated
/// linearly and extended past its last vertex with the last segment's slope.
///
/// An upper boundary starts at `x = 0`. A lower boundary exists only at or right of its first
/// vertex; a vertical first segment (e.g. `(50,0)-(50,30)`) belongs to the line, so a point on
/// it is on the line.
public struct PolylineBoundary: Sendable, Equatable {
    public let vertices: [(x: Int, y: Int)]

    /// Each non-vertical segment as the integer line `a*x + b*y + c` that is positive above it:
    /// `(y - y1)(x2 - x1) - (y2 - y1)(x - x1)`, i.e. `a = -(y2 - y1)`, `b = x2 - x1`,
    /// `c = (y2 - y1)*x1 - y1*(x2 - x1)`; `startX` is the segment's first x.
    let segments: [(startX: Double, a: Int, b: Int, c: Int)]
    let firstX: Double

    public init(_ vertices: [(Int, Int)]) {
        precondition(vertices.count >= 2, "a boundary needs two vertices")
        self.vertices = vertices.map { (x: $0.0, y: $0.1) }
        var segments: [(startX: Double, a: Int, b: Int, c: Int)] = []
        for i in 0..<(vertices.count - 1) {
            let (x1, y1) = vertices[i], (x2, y2) = vertices[i + 1]
            precondition(x2 >= x1, "vertices go left to right")
            if x2 == x1 { continue }
            segments.append((Double(x1), -(y2 - y1), x2 - x1, (y2 - y1) * x1 - y1 * (x2 - x1)))
        }
        self.segments = segments
        self.firstX = Double(vertices[0].0)
    }

    /// Sign (-1, 0, 1) of the point relative to the segment that spans its x: 1 above, -1 below,
    /// 0 on the line. At or left of the first vertex the result is 0 (neither above nor below):
    /// for a lower boundary that is "no line here" or "on the vertical first segment"; for an
    /// upper one (first vertex at x = 0) it concerns only x <= 0, outside the grids' domain.
    func side(_ p: ExactPoint) -> Int {
        if p.x <= firstX { return 0 }
        var i = segments.count - 1
        while i > 0 && p.x < segments[i].startX { i -= 1 }
        let s = segments[i]
        return p.sign(s.a, s.b, s.c)
    }

    /// The boundary's y at `x` (for drawing): linear interpolation, extended past either end.
    public func y(at x: Double) -> Double {
        var i = segments.count - 1
        while i > 0 && x < segments[i].startX { i -= 1 }
        let s = segments[i]
        return (-Double(s.c) - Double(s.a) * x) / Double(s.b)
    }

    public static func == (l: PolylineBoundary, r: PolylineBoundary) -> Bool {
        l.vertices.elementsEqual(r.vertices) { $0.x == $1.x && $0.y == $1.y }
    }
}

/// The Parkes (consensus) error grid (Parkes et al., Diabetes Care 2000) for type 1 or type 2
/// diabetes, vertices as published by Pfützner et al., J Diabetes Sci Technol 2013.
///
/// Zone E if above the D/E line; else D if above the C/D upper or below the C/D lower line;
/// else C if above the B/C upper or below the B/C lower line; else B if above the A/B upper
/// or below the A/B lower line; else A. A point on a line is in the inner zone. No lower E zone.
public struct ParkesErrorGrid: Sendable, Equatable {
    public enum DiabetesType: Int, Sendable { case type1 = 1, type2 = 2 }

    public let diabetesType: DiabetesType
    public let abUpper, bcUpper, cdUpper, deUpper: PolylineBoundary
    public let abLower, bcLower, cdLower: PolylineBoundary

    public static let type1 = ParkesErrorGrid(
        diabetesType: .type1,
        abUpper: PolylineBoundary([(0, 50), (30, 50), (140, 170), (280, 380), (430, 550)]),
        bcUpper: PolylineBoundary([(0, 60), (30, 60), (50, 80), (70, 110), (260, 550)]),
        cdUpper: PolylineBoundary([(0, 100), (25, 100), (50, 125), (80, 215), (125, 550)]),
        deUpper: PolylineBoundary([(0, 150), (35, 155), (50, 550)]),
        abLower: PolylineBoundary([(50, 0), (50, 30), (170, 145), (385, 300), (550, 450)]),
        bcLower: PolylineBoundary([(120, 0), (120, 30), (260, 130), (550, 250)]),
        cdLower: PolylineBoundary([(250, 0), (250, 40), (550, 150)]))

    public static let type2 = ParkesErrorGrid(
        diabetesType: .type2,
        abUpper: PolylineBoundary([(0, 50), (30, 50), (230, 330), (440, 550)]),
        bcUpper: PolylineBoundary([(0, 60), (30, 60), (280, 550)]),
        cdUpper: PolylineBoundary([(0, 80), (25, 80), (35, 90), (125, 550)]),
        deUpper: PolylineBoundary([(0, 200), (35, 200), (50, 550)]),
        abLower: PolylineBoundary([(50, 0), (50, 30), (90, 80), (330, 230), (550, 450)]),
        bcLower: PolylineBoundary([(90, 0), (260, 130), (550, 250)]),
        cdLower: PolylineBoundary([(250, 0), (250, 40), (410, 110), (550, 160)]))

    public static func grid(_ type: DiabetesType) -> ParkesErrorGrid { type == .type1 ? type1 : type2 }

    /// The zone of one pair, or nil outside the domain (see `GlucosePair.isScorable`).
    public func zone(reference: Double, prediction: Double) -> ErrorGridZone? {
        guard GlucosePair.isScorable(reference: reference, prediction: prediction) else { return nil }
        return zone(ExactPoint(x: reference, y: prediction))
    }

    func zone(_ p: ExactPoint) -> ErrorGridZone {
        if deUpper.side(p) > 0 { return .e }
        if cdUpper.side(p) > 0 || cdLower.side(p) < 0 { return .d }
        if bcUpper.side(p) > 0 || bcLower.side(p) < 0 { return .c }
        if abUpper.side(p) > 0 || abLower.side(p) < 0 { return .b }
        return .a
    }

    /// Upper boundaries, inner to outer, with the zone above each.
    public var upperBoundaries: [(boundary: PolylineBoundary, zoneBeyond: ErrorGridZone)] {
        [(abUpper, .b), (bcUpper, .c), (cdUpper, .d), (deUpper, .e)]
    }

    /// Lower boundaries, inner to outer, with the zone below each.
    public var lowerBoundaries: [(boundary: PolylineBoundary, zoneBeyond: ErrorGridZone)] {
        [(abLower, .b), (bcLower, .c), (cdLower, .d)]
    }
}
