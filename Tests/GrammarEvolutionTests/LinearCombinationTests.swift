import Foundation
import Testing
@testable import GrammarEvolution

/// Several evolved terms fitted jointly: the least-squares fit and the one-program sum.
struct LinearCombinationTests {
    @Test func recoversAKnownTwoTermFunction() throws {
        // y = 3 + 2 sin(x0) - 0.5 x1^2 on 50 points: both terms and the intercept come back.
        let x0 = (0..<50).map { Double($0) * 0.37 }, x1 = (0..<50).map { Double($0 % 7) - 3 }
        let sinTerm = try Program(infix: "sin(x0)"), squareTerm = try Program(infix: "x1 * x1")
        func values(_ p: Program) -> [Double] { (0..<50).map { r in p.evaluate { c, _ in c == 0 ? x0[r] : x1[r] } } }
        let y: [Double] = (0..<50).map { r in
            let a: Double = 2 * sin(x0[r]), b: Double = 0.5 * x1[r] * x1[r]
            return 3 + a - b
        }
        let fit = try #require(LinearCombination.fit([values(sinTerm), values(squareTerm)], target: y))
        #expect(abs(fit.intercept - 3) < 1e-9)
        #expect(abs(fit.coefficients[0] - 2) < 1e-9 && abs(fit.coefficients[1] + 0.5) < 1e-9)
        // The sum as one program: sin(x0) * 2 + x1 * x1 * (-0.5), evaluated like any program.
        let sum = LinearCombination.program([sinTerm, squareTerm], coefficients: fit.coefficients)
        for r in [0, 17, 49] {
            #expect(abs(fit.intercept + sum.evaluate { c, _ in c == 0 ? x0[r] : x1[r] } - y[r]) < 1e-9)
        }
        #expect(sum.instructions.count == sinTerm.instructions.count + squareTerm.instructions.count + 5)
    }

    @Test func refusesWhatCannotBeFitted() {
        #expect(LinearCombination.fit([[1, 2, .nan]], target: [1, 2, 3]) == nil)   // a value not finite
        #expect(LinearCombination.fit([[1]], target: [1]) == nil)                  // fewer rows than coefficients (2)
        #expect(LinearCombination.fit([[1, 2, 3]], target: [1, 2]) == nil)         // lengths differ
    }
}
