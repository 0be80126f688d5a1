import Dispatch
@testable import GrammarEvolution

/// Test-only fitness: RMSE of the scalar reference `Program.evaluate` over a table of rows.
struct ScalarRMSE: FitnessEvaluator {
    let rows: [[Double]]
    let target: [Double]

    func rmse(_ program: Program) -> Double {
        var sum = 0.0
        for r in rows.indices {
            let y = program.evaluate { c, lag in r - lag >= 0 && c < rows[r].count ? rows[r - lag][c] : .nan }
            sum += (y - target[r]) * (y - target[r])
        }
        let e = (sum / Double(rows.count)).squareRoot()
        return e.isFinite ? e : .infinity
    }

    func errors(of programs: [Program], threads: Int) -> [Double] {
        if threads <= 1 { return programs.map(rmse) }
        let out = ResultSlots(count: programs.count)
        DispatchQueue.concurrentPerform(iterations: programs.count) { i in out.set(i, rmse(programs[i])) }
        return out.values
    }
}

/// Per-index results written from `concurrentPerform`: each index is written by exactly one
/// iteration, so the writes are disjoint.
final class ResultSlots: @unchecked Sendable {
    private let buffer: UnsafeMutableBufferPointer<Double>
    init(count: Int) { buffer = .allocate(capacity: count); buffer.initialize(repeating: 0) }
    deinit { buffer.deallocate() }
    func set(_ i: Int, _ v: Double) { buffer[i] = v }
    var values: [Double] { Array(buffer) }
}

enum SearchFixtures {
    /// Symbolic-regression grammar over x0, x1, x2.
    static let regressionGrammar = """
    # A small symbolic-regression grammar.
    <e> ::= <e> <op> <e> | <f> ( <e> ) | <v>
    <op> ::= + | - | *
    <f> ::= sin | cos
    <v> ::= x[0..2]
    """

    /// `count` rows of x0, x1, x2 uniform in [-2, 2) and the target x0*x1 + sin(x2).
    static func regressionData(count: Int = 300, seed: UInt64 = 42) -> ScalarRMSE {
        var random = RandomSource(seed: seed)
        let rows = (0..<count).map { _ in (0..<3).map { _ in random.unit() * 4 - 2 } }
        return ScalarRMSE(rows: rows, target: rows.map { $0[0] * $0[1] + _sin($0[2]) })
    }
}
