import Testing
@testable import GrammarEvolution

@Suite struct ProgramTests {
    @Test func infixRoundTripKeepsMeaning() throws {
        let texts = ["x0 * x1 + sin(x2)", "-(x0 - x1) / (x2 + 2.5)", "aq(x0, x1) - lag(x1, 3) * -2",
                     "x0 - (x1 - x2)", "x0 / (x1 * x2)", "exp(-x0) + log(0) + sqrt(-4) + square(3)"]
        let row: [Double] = [0.5, -1.25, 2.0]
        for text in texts {
            let p = try Program(infix: text)
            let q = try Program(infix: p.infix())
            let value = { (c: Int, lag: Int) in row[c] - Double(lag) }
            #expect(p.evaluate(value).bitPattern == q.evaluate(value).bitPattern, "\(text) -> \(p.infix())")
        }
    }

    @Test func evaluatesByHand() throws {
        // 0.5 * -1.25 + sin(2) = -0.625 + 0.9092974268256817
        let p = try Program(infix: "x0 * x1 + sin(x2)")
        let v = p.evaluate { c, _ in [0.5, -1.25, 2.0][c] }
        #expect(abs(v - 0.2842974268256817) < 1e-15)
        #expect(p.nodeCount == 6)
        #expect(try Program(infix: "aq(3, 4)").evaluate { _, _ in 0 } == 3 / 17.0.squareRoot())
        #expect(try Program(infix: "log(0)").evaluate { _, _ in 0 } == 0)
        #expect(try Program(infix: "pdiv(1, 0)").evaluate { _, _ in 0 } == 1)
        #expect(try Program(infix: "1 / 0").evaluate { _, _ in 0 } == .infinity)
    }

    @Test func parseErrorsSayWhere() throws {
        #expect(throws: ExpressionParseError.self) { try Program(infix: "x0 + ") }
        #expect(throws: ExpressionParseError.self) { try Program(infix: "foo(x0)") }
        #expect(throws: ExpressionParseError.self) { try Program(infix: "x0 x1") }
        // Hunt C: a constant beyond Double's range was read as infinity (while `inf` is refused).
        let huge = try #require(throws: ExpressionParseError.self) { try Program(infix: "x0 * 1e999") }
        #expect(huge.message == "'1e999' is beyond the range of numbers (about ±1.8e308)" && huge.offset == 5)
        #expect(try Program(infix: "x0 * 1e300").evaluate { _, _ in 2 } == 2e300)
        do { _ = try Program(infix: "x0 + y") } catch let e as ExpressionParseError {
            #expect(e.offset == 5)
        } catch { Issue.record("wrong error \(error)") }
    }
}
