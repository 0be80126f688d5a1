import Foundation
import Testing
@testable import GrammarEvolution

/// How much a program grows just beyond its rows, against values worked out by hand.
struct ExtrapolationTests {
    /// x0 = 0, 1, ..., 10 and x1 = 100, 101, ..., 110 on rows 0..<11.
    let table = try! DataTable<Double>(columns: [(0...10).map(Double.init), (100...110).map(Double.init)])

    @Test func polynomialsGrowByTheStretchToTheirDegree() throws {
        let check = Extrapolation(table: table, rows: 0..<11)
        // x0^2: values 0...100, median 25 (x0 = 5), spread 75; stretched x0 -> 1.5 x0 reaches
        // 2.25 * 100 = 225, 200 from the median: 200 / 75.
        #expect(abs(check.growth(of: try Program(infix: "x0 * x0")) - 200.0 / 75.0) < 1e-12)
        // A column is stretched from its own minimum: x1 = 100...110 -> 100...115; median 105,
        // spread 5, reach 10.
        #expect(abs(check.growth(of: try Program(infix: "x1")) - 2) < 1e-12)
        // A constant does not grow.
        #expect(check.growth(of: try Program(infix: "3.5")) == 1)
    }

    @Test func anExponentialOfAWideColumnExplodes() throws {
        let check = Extrapolation(table: table, rows: 0..<11)
        // exp(x1) scaled to nothing fits anything on these rows; just beyond them it is
        // e^115 / e^110 ~ 148 times its spread here, beyond the trainer's limit of 100.
        let growth = check.growth(of: try Program(infix: "exp(x1) * 1e-50"))
        #expect(growth > 100 && growth < 160)
        // A stretched value that overflows is infinite growth.
        let wide = try DataTable<Double>(columns: [(0...10).map { Double($0) * 60 }])
        #expect(Extrapolation(table: wide, rows: 0..<11).growth(of: try Program(infix: "exp(x0)")) == .infinity)
    }

    @Test func lagsAndRowsAreRespected() throws {
        // lag(x0, 1) on rows 1..<11 reads 0...9: median 4.5, spread 4.5; stretched 0...13.5: reach 9.
        let check = Extrapolation(table: table, rows: 0..<11)
        #expect(abs(check.growth(of: try Program(infix: "lag(x0, 1)")) - 2) < 1e-12)
        // Only the given rows count: on rows 0..<5 x0 = 0...4 (median 2, spread 2), stretched to 6: reach 4.
        #expect(abs(Extrapolation(table: table, rows: 0..<5).growth(of: try Program(infix: "x0")) - 2) < 1e-12)
        // A program that reads a column the table lacks cannot be judged: infinite.
        #expect(check.growth(of: try Program(infix: "x2")) == .infinity)
    }
}
