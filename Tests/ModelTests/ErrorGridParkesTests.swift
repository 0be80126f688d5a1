import Testing
@testable import GlucoModel

/// Parkes grids on every vertex of every boundary (types 1 and 2), and points 0.5 mg/dL either
/// side, against `specs/error-grids.md`. Vertices are retyped from the spec's table.
///
/// Expected zones, by the rule "a point on a line belongs to the inner zone": a vertex of the
/// X/Y line is in X; 0.5 above an upper X/Y line (or 0.5 below a lower one) is in Y; 0.5 on the
/// inner side is in X. Checked by hand that no other line interferes at these points, e.g.
/// type 1 (35,155) on D/E: C/D upper at x = 35 is 100 + 25*10/25 = 110 < 155, so D;
/// type 1 (260,130) on B/C lower: A/B lower at 260 is 145 + 155*90/215 = 209.9 > 130, so B;
/// type 2 (90,80) on A/B lower: B/C lower starts at x = 90 (on it, not below), so A;
/// type 2 (250,0) on C/D lower: B/C lower at 250 is 130*160/170 = 122.4 > 0, so C.
/// Vertices at x = 0 are outside the domain (reference > 0) and are skipped.
@Suite struct ErrorGridParkesTests {
    typealias Boundary = (vertices: [(Double, Double)], upper: Bool, inner: ErrorGridZone, outer: ErrorGridZone)

    static let type1: [Boundary] = [
        ([(0, 50), (30, 50), (140, 170), (280, 380), (430, 550)], true, .a, .b),
        ([(0, 60), (30, 60), (50, 80), (70, 110), (260, 550)], true, .b, .c),
        ([(0, 100), (25, 100), (50, 125), (80, 215), (125, 550)], true, .c, .d),
        ([(0, 150), (35, 155), (50, 550)], true, .d, .e),
        ([(50, 0), (50, 30), (170, 145), (385, 300), (550, 450)], false, .a, .b),
        ([(120, 0), (120, 30), (260, 130), (550, 250)], false, .b, .c),
        ([(250, 0), (250, 40), (550, 150)], false, .c, .d),
    ]

    static let type2: [Boundary] = [
        ([(0, 50), (30, 50), (230, 330), (440, 550)], true, .a, .b),
        ([(0, 60), (30, 60), (280, 550)], true, .b, .c),
        ([(0, 80), (25, 80), (35, 90), (125, 550)], true, .c, .d),
        ([(0, 200), (35, 200), (50, 550)], true, .d, .e),
        ([(50, 0), (50, 30), (90, 80), (330, 230), (550, 450)], false, .a, .b),
        ([(90, 0), (260, 130), (550, 250)], false, .b, .c),
        ([(250, 0), (250, 40), (410, 110), (550, 160)], false, .c, .d),
    ]

    func check(_ grid: ErrorGrid, _ boundaries: [Boundary]) {
        for b in boundaries {
            for (i, (x, y)) in b.vertices.enumerated() where x > 0 {
                #expect(grid.zone(reference: x, prediction: y) == b.inner, "\(grid) vertex (\(x),\(y))")
                // The side off the line; for a lower line's vertical first segment, both vertices
                // have the same x: below the bottom one is y < 0 (skipped), the top one's
                // "below" lies on the vertical segment (inner).
                let onVertical = !b.upper && i < b.vertices.count - 1 && b.vertices[i + 1].0 == x
                    || !b.upper && i > 0 && b.vertices[i - 1].0 == x
                let beyond = b.upper ? y + 0.5 : y - 0.5
                let inside = b.upper ? y - 0.5 : y + 0.5
                if beyond >= 0 {
                    let expected = onVertical ? b.inner : b.outer
                    #expect(grid.zone(reference: x, prediction: beyond) == expected, "\(grid) beyond (\(x),\(beyond))")
                }
                if inside >= 0 {
                    #expect(grid.zone(reference: x, prediction: inside) == b.inner, "\(grid) inside (\(x),\(inside))")
                }
            }
        }
    }

    @Test func type1VerticesAndNeighbours() { check(.parkesType1, Self.type1) }
    @Test func type2VerticesAndNeighbours() { check(.parkesType2, Self.type2) }

    @Test func verticalFirstSegmentBelongsToTheLine() {
        // Type 1 A/B lower: (50,0)-(50,30) vertical, then slope 115/120.
        #expect(ErrorGrid.parkesType1.zone(reference: 50, prediction: 10) == .a)    // on the vertical segment
        #expect(ErrorGrid.parkesType1.zone(reference: 49.5, prediction: 0) == .a)   // no lower line left of x = 50
        // x = 50.5: line at 30 + 115*0.5/120 = 30.479...; 30 is below it.
        #expect(ErrorGrid.parkesType1.zone(reference: 50.5, prediction: 30) == .b)
        #expect(ErrorGrid.parkesType1.zone(reference: 50.5, prediction: 30.5) == .a)
        #expect(ErrorGrid.parkesType1.zone(reference: 120, prediction: 0) == .b)    // on B/C's vertical, below A/B (97.08)
        #expect(ErrorGrid.parkesType1.zone(reference: 121, prediction: 0) == .c)    // below B/C at 121: 30 + 100/140
    }

    @Test func extensionBeyond550() {
        // Type 1 A/B upper, last segment (280,380)-(430,550), slope 170/150: at x = 580,
        // 550 + 170*150/150 = 720; at x = 600, 550 + 170*170/150 = 742.67.
        let t1 = ErrorGrid.parkesType1, t2 = ErrorGrid.parkesType2
        #expect(t1.zone(reference: 580, prediction: 720) == .a)
        #expect(t1.zone(reference: 580, prediction: 720.000001) == .b)
        #expect(t1.zone(reference: 600, prediction: 742) == .a)
        #expect(t1.zone(reference: 600, prediction: 743) == .b)
        // Type 1 A/B lower, last segment (385,300)-(550,450): at 600, 450 + 50*150/165 = 495.45.
        #expect(t1.zone(reference: 600, prediction: 496) == .a)
        #expect(t1.zone(reference: 600, prediction: 495) == .b)
        // Type 1 C/D lower (250,40)-(550,150): at 580, 150 + 30*110/300 = 161.
        #expect(t1.zone(reference: 580, prediction: 161) == .c)
        #expect(t1.zone(reference: 580, prediction: 160.999) == .d)
        // Type 2 C/D lower (410,110)-(550,160): at 690, 160 + 140*50/140 = 210.
        #expect(t2.zone(reference: 690, prediction: 210) == .c)
        #expect(t2.zone(reference: 690, prediction: 209.99) == .d)
    }

    @Test func typeOneCDLowerIsNotAnchoredAt410() {
        // Type 1 C/D lower at 410: 40 + 160*110/300 = 98.67, so (410,105) is above it: C.
        // Type 2 has the vertex (410,110): 105 is below it: D.
        #expect(ErrorGrid.parkesType1.zone(reference: 410, prediction: 105) == .c)
        #expect(ErrorGrid.parkesType2.zone(reference: 410, prediction: 105) == .d)
    }

    @Test func nonIntegerPointsOnSegments() {
        // Type 1 A/B upper (30,50)-(140,170), slope 12/11: at x = 41, y = 50 + 12 = 62.
        #expect(ErrorGrid.parkesType1.zone(reference: 41, prediction: 62) == .a)
        #expect(ErrorGrid.parkesType1.zone(reference: 41, prediction: 62.000001) == .b)
        // (140,170)-(280,380), slope 1.5: at 140.5, 170.75 exactly.
        #expect(ErrorGrid.parkesType1.zone(reference: 140.5, prediction: 170.75) == .a)
        #expect(ErrorGrid.parkesType1.zone(reference: 140.5, prediction: 170.75.nextUp) == .b)
        // x = 30 + 11/3 is not a short decimal: binary path. y at that x is 54 exactly on the
        // real line; the Double x is slightly off, so only check a clear margin either side.
        #expect(ErrorGrid.parkesType1.zone(reference: 30 + 11.0 / 3, prediction: 53.9999) == .a)
        #expect(ErrorGrid.parkesType1.zone(reference: 30 + 11.0 / 3, prediction: 54.0001) == .b)
    }

    @Test func predictionsOfZero() {
        // No lower E zone; a prediction of 0 is never A right of the A/B lower line.
        #expect(ErrorGrid.parkesType1.zone(reference: 40, prediction: 0) == .a)   // left of x = 50
        #expect(ErrorGrid.parkesType1.zone(reference: 100, prediction: 0) == .b)  // A/B lower at 100: 77.9
        #expect(ErrorGrid.parkesType1.zone(reference: 200, prediction: 0) == .c)  // B/C lower at 200: 87.1
        #expect(ErrorGrid.parkesType1.zone(reference: 400, prediction: 0) == .d)  // C/D lower at 400: 95
        #expect(ErrorGrid.parkesType2.zone(reference: 100, prediction: 0) == .c)  // B/C lower at 100: 7.6
    }

    @Test func aPointsZoneDoesNotDependOnTheBatch() {
        let extremes = [GlucosePair(reference: 1e6, prediction: 0.001), GlucosePair(reference: 0.001, prediction: 1e6),
                        GlucosePair(reference: 410, prediction: 105), GlucosePair(reference: .nan, prediction: 5),
                        GlucosePair(reference: 1e300, prediction: 1e-300), GlucosePair(reference: 69, prediction: 10)]
        for grid in ErrorGrid.allCases {
            let batch = ZoneCounts(grid: grid, pairs: extremes)
            var singles = ZoneCounts(grid: grid)
            for pair in extremes { singles.add(ZoneCounts(grid: grid, pairs: [pair]).counts.firstIndex(of: 1).map { ErrorGridZone.allCases[$0] }) }
            #expect(batch == singles)
            #expect(batch.unscored == 1)
        }
        // And the zone of (410,105) is the same alone and next to a 1000 mg/dL reference.
        let alone = ZoneCounts(grid: .parkesType1, pairs: [GlucosePair(reference: 410, prediction: 105)])
        let withBig = ZoneCounts(grid: .parkesType1, pairs: [GlucosePair(reference: 410, prediction: 105), GlucosePair(reference: 1000, prediction: 1000)])
        #expect(alone[.c] == 1 && withBig[.c] == 1)
    }

    @Test func zoneLabelsOfTheDrawingsLieInTheirZones() {
        for grid in ErrorGrid.allCases {
            for (zone, x, y) in grid.labelPositions {
                #expect(grid.zone(reference: x, prediction: y) == zone, "\(grid) label \(zone) at (\(x),\(y))")
            }
        }
    }

    @Test func svgDrawingHasAxesLabelsAndPoints() {
        let pairs = [GlucosePair(reference: 100, prediction: 110), GlucosePair(reference: 700, prediction: 90)]
        let svg = ErrorGrid.parkesType1.svg(pairs: pairs)
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.contains("Reference (mg/dL)") && svg.contains("Prediction (mg/dL)"))
        #expect(svg.contains(">600</text>"))      // a value above 400 widens the axes to 600
        #expect(svg.components(separatedBy: "<circle").count - 1 == 1)  // one point inside
        #expect(svg.contains("<rect x=") && svg.hasSuffix("</svg>\n"))
    }
}
