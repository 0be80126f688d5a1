import Testing
@testable import GrammarEvolution
import EvaluatorBenchmarking

@Suite struct SimplifyTests {
    @Test func foldsConstantSubexpressions() throws {
        // (2 + 3) * x0 -> 5 * x0; sin(0) -> 0; aq(3, 4) = 3 / sqrt(17); x0 + 1 is kept.
        let p = try Program(infix: "(2 + 3) * x0 + sin(0) - aq(3, 4) + (x0 + 1)").simplified()
        #expect(p.instructions == [.constant(5), .variable(0), .operation(.mul), .constant(0), .operation(.add),
                                   .constant(3 / Double(17.0).squareRoot()), .operation(.sub),
                                   .variable(0), .constant(1), .operation(.add), .operation(.add)])
    }

    @Test func keepsNonFiniteSubexpressionsUnfolded() throws {
        // 1 / 0 = +inf and 0 / 0 = NaN by IEEE 754: not folded, so every constant stays finite (a
        // model file refuses a non-finite one: a multi-term model of the in-silico trial was
        // written with `inf` and then refused); log(0) is protected to 0; pdiv(1, 0) = 1.
        let p = try Program(infix: "x0 + 1 / 0").simplified()
        #expect(p.instructions == [.variable(0), .constant(1), .constant(0), .operation(.div), .operation(.add)])
        #expect(p.evaluate { _, _ in 2 } == .infinity)
        #expect(try Program(infix: p.infix()).simplified() == p)
        // Folding stops at the non-finite value: (1 / 0) * 2 keeps both; 2 + 3 beside it still folds.
        let q = try Program(infix: "(1 / 0) * 2 + (2 + 3) * x1").simplified()
        #expect(q.instructions == [.constant(1), .constant(0), .operation(.div), .constant(2), .operation(.mul),
                                   .constant(5), .variable(1), .operation(.mul), .operation(.add)])
        #expect(throws: Never.self) { try q.check(columns: 2) }
        #expect(q.evaluate { _, _ in 1 }.isInfinite)
        let nan = try Program(infix: "0 / 0 * x1").simplified()
        #expect(nan.instructions.count == 5 && nan.evaluate { _, _ in 1 }.isNaN)
        #expect(try Program(infix: "log(0) + pdiv(1, 0)").simplified().instructions == [.constant(1)])
    }

    @Test func preservesValuesOnRandomPrograms() throws {
        var rng = SeededGenerator(seed: 11)
        var generator = ExpressionGenerator(operations: Operation.allCases, columns: 3)
        generator.variableProbability = 0.3
        generator.maximumLag = 2
        for p in generator.programs(count: 300, nodes: 1...40, using: &rng) {
            let s = p.simplified()
            #expect(s.nodeCount <= p.nodeCount)
            #expect(throws: Never.self) { try s.check(columns: 3, maximumLag: 2) }
            for row in 0..<4 {
                let value = { (c: Int, lag: Int) in Double(c) * 0.7 - Double(row) * 0.3 + Double(lag) * 0.11 }
                let a = p.evaluate(value), b = s.evaluate(value)
                #expect(a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN), "\(p) -> \(s)")
            }
        }
    }
}
