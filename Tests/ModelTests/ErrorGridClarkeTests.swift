import Testing
@testable import GlucoModel

/// Clarke grid on points worked out by hand from `specs/error-grids.md` (rule order A, E, C, D, B;
/// inclusive inequalities). Each comment shows the deciding comparison.
@Suite struct ErrorGridClarkeTests {
    func zone(_ x: Double, _ y: Double) -> ErrorGridZone? { ErrorGrid.clarke.zone(reference: x, prediction: y) }

    @Test func hypoglycaemicCornerIsAsymmetric() {
        #expect(zone(69, 10) == .a)   // x <= 70 and y <= 70
        #expect(zone(71, 55) == .b)   // 4*71 = 284 > 5*55 = 275: not within 20%; no E, C, D rule holds
        #expect(zone(70, 70) == .a)   // corner of the square
        #expect(zone(70, 56) == .a)   // 4*70 = 280 <= 5*56 = 280: on y = 0.8x
        #expect(zone(71, 56) == .b)   // 284 > 280, y < 70 so not D
        #expect(zone(70, 84) == .a)   // 5*84 = 420 <= 6*70 = 420: on y = 1.2x
        #expect(zone(70, 85) == .d)   // 425 > 420; 70 <= 85 <= 180 and x <= 70
        #expect(zone(58, 70) == .a)   // square: x <= 70, y <= 70
        #expect(zone(58, 71) == .d)   // 5*71 = 355 > 6*58 = 348; 70 <= y <= 180, x <= 70
    }

    @Test func twentyPercentLines() {
        #expect(zone(100, 80) == .a)   // 400 <= 400
        #expect(zone(100, 79) == .b)   // 400 > 395
        #expect(zone(100, 120) == .a)  // 600 <= 600
        #expect(zone(100, 121) == .b)  // 605 > 600
        #expect(zone(600, 720) == .a)  // beyond the 400 plot: 2400 <= 3600 <= 3600 (A is tested before C)
    }

    @Test func upperCLineHasNoCap() {
        #expect(zone(600, 721) == .c)  // 721 >= 600 + 110 and x >= 70 (no x <= 290 cap)
        #expect(zone(100, 210) == .c)  // on y = x + 110
        #expect(zone(100, 209) == .b)  // 209 < 210; y > 180 so not D
        #expect(zone(300, 410) == .c)  // on the line right of x = 290
        #expect(zone(300, 409) == .b)
        #expect(zone(70, 180) == .e)   // E is tested before C: x <= 70 and y >= 180
    }

    @Test func eZones() {
        #expect(zone(50, 180) == .e)   // x <= 70, y >= 180
        #expect(zone(50, 179) == .d)   // 70 <= 179 <= 180, x <= 70
        #expect(zone(180, 70) == .e)   // x >= 180, y <= 70
        #expect(zone(180, 71) == .b)   // 5*71 = 355 > 7*180 - 910 = 350: not lower C
        #expect(zone(179, 70) == .b)   // 350 > 7*179 - 910 = 343; x < 240 so not D
        #expect(zone(200, 0) == .e)    // prediction 0 with x >= 180
    }

    @Test func lowerCLine() {
        #expect(zone(130, 0) == .c)    // 0 <= 7*130 - 910 = 0
        #expect(zone(130, 1) == .b)    // 5 > 0
        #expect(zone(150, 28) == .c)   // 140 <= 1050 - 910 = 140
        #expect(zone(150, 29) == .b)   // 145 > 140
        #expect(zone(129, 0) == .b)    // x < 130: not C; y < 70: not D
    }

    @Test func dZones() {
        #expect(zone(240, 70) == .e)   // x >= 180 and y <= 70: E first
        #expect(zone(240, 71) == .d)   // 70 <= 71 <= 180 and x >= 240
        #expect(zone(240, 180) == .d)  // 4*240 = 960 > 900: not A; D
        #expect(zone(239, 100) == .b)  // x < 240
        #expect(zone(240, 181) == .b)  // y > 180
        #expect(zone(300, 180) == .d)
    }

    @Test func predictionsOfZero() {
        #expect(zone(50, 0) == .a)     // hypo square
        #expect(zone(100, 0) == .b)    // 130 > x: no lower C; y < 70: no D
        #expect(zone(140, 0) == .c)    // 0 <= 7*140 - 910 = 70
    }

    @Test func nonIntegerInputsNearLines() {
        // Decimal inputs are exact: 1.2 * 100.5 = 120.6 exactly, so the point is on the A line.
        #expect(zone(100.5, 120.6) == .a)
        #expect(zone(100.5, 120.61) == .b)
        #expect(zone(100.5, 80.4) == .a)       // 0.8 * 100.5 = 80.4
        #expect(zone(100.5, 80.399999) == .b)  // 6 decimals: still the decimal path
        // Not a short decimal: the exact binary value decides. 120.0.nextUp = 120.00000000000001
        // is above 1.2 * 100 = 120, so it is outside 20%.
        #expect(zone(100, 120.0.nextUp) == .b)
        #expect(zone(100, 1.2 * 100) == .a)  // 1.2 * 100 rounds to exactly 120
        #expect(zone(100, 120.0.nextDown) == .a)
        #expect(zone(100, 80.0.nextDown) == .b)
        #expect(zone(150, 28.0.nextUp) == .b)  // just above the lower C line
    }

    @Test func outsideTheDomainIsNotScored() {
        #expect(zone(0, 100) == nil)
        #expect(zone(-5, 100) == nil)
        #expect(zone(100, -1) == nil)
        #expect(zone(.nan, 100) == nil)
        #expect(zone(100, .infinity) == nil)
    }
}
