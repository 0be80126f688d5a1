import Testing
import LinearAlgebra

@Suite struct LinearAlgebraTests {
    @Test func leastSquaresRecoversExactLine() throws {
        // y = 2 + 3x on x = 0...4: an exact fit.
        var a = Matrix(rows: 5, columns: 2)
        var b: [Double] = []
        for i in 0..<5 { a[i, 0] = 1; a[i, 1] = Double(i); b.append(2 + 3 * Double(i)) }
        let s = try LeastSquares.solve(a, b)
        #expect(abs(s.coefficients[0] - 2) < 1e-12)
        #expect(abs(s.coefficients[1] - 3) < 1e-12)
        #expect(s.rank == 2)
    }

    @Test func leastSquaresOfNoisyPointsMatchesNormalEquations() throws {
        // Points (0,1) (1,2) (2,2) (3,4): slope = Sxy/Sxx = 4.5/5 = 0.9, intercept = 2.25 - 0.9*1.5 = 0.9.
        var a = Matrix(rows: 4, columns: 2)
        for i in 0..<4 { a[i, 0] = 1; a[i, 1] = Double(i) }
        let s = try LeastSquares.solve(a, [1, 2, 2, 4])
        #expect(abs(s.coefficients[0] - 0.9) < 1e-12)
        #expect(abs(s.coefficients[1] - 0.9) < 1e-12)
    }

    @Test func blasDot() {
        #expect(BLAS.dot([1.0, 2, 3], [4.0, 5, 6]) == 32)
        #expect(BLAS.dot([Float(1), 2], [3, 4]) == 11)
    }

    @Test func mismatchedTargetIsAnError() {
        #expect(throws: LinearAlgebraError.dimensionMismatch(rows: 2, targets: 1)) {
            try LeastSquares.solve(Matrix(rows: 2, columns: 1), [1])
        }
    }
}

@Suite struct SignConstrainedLeastSquaresTests {
    /// Points (0,1) (1,2) (2,2) (3,4), columns intercept and x: the free fit is 0.9 + 0.9x.
    let line: (Matrix, [Double]) = {
        var a = Matrix(rows: 4, columns: 2)
        for i in 0..<4 { a[i, 0] = 1; a[i, 1] = Double(i) }
        return (a, [1, 2, 2, 4])
    }()

    @Test func aSignTheFreeFitKeepsChangesNothing() throws {
        let s = try LeastSquares.solve(line.0, line.1, signs: [.free, .nonNegative])
        #expect(abs(s.coefficients[0] - 0.9) < 1e-12 && abs(s.coefficients[1] - 0.9) < 1e-12)
    }

    @Test func aSlopeHeldAtOrBelowZeroLeavesTheMean() throws {
        // The slope's bound binds: slope 0, the intercept the mean of y, 9/4.
        let s = try LeastSquares.solve(line.0, line.1, signs: [.free, .nonPositive])
        #expect(s.coefficients[1] == 0)
        #expect(abs(s.coefficients[0] - 2.25) < 1e-12)
        #expect(s.rank == 1)
    }

    @Test func correlatedColumnsGiveTheOneSidedFit() throws {
        // Columns (1,1,0) and (1,0,1), b = (1,2,-1): free x = (2, -1) (normal equations
        // [[2,1],[1,2]] x = (3, 0)). Both non-negative: x2 = 0 and x1 = 3/2; the gradient of the
        // second, (1,0,1)·(b - 1.5 (1,1,0)) = -1.5, says no descent is left.
        let a = Matrix(rows: 3, columns: 2, values: [1, 1, 1, 0, 0, 1])
        let free = try LeastSquares.solve(a, [1, 2, -1], signs: [.free, .free])
        #expect(abs(free.coefficients[0] - 2) < 1e-12 && abs(free.coefficients[1] + 1) < 1e-12)
        let held = try LeastSquares.solve(a, [1, 2, -1], signs: [.nonNegative, .nonNegative])
        #expect(abs(held.coefficients[0] - 1.5) < 1e-12 && held.coefficients[1] == 0)
        // x1 held at or below 0: its gradient (1,1,0)·b = 3 pushes it up, so it stays at 0, and x2
        // alone fits (1,0,1)·b / 2 = 0.
        let flipped = try LeastSquares.solve(a, [1, 2, -1], signs: [.nonPositive, .nonNegative])
        #expect(flipped.coefficients == [0, 0])
    }

    @Test func ridgeIsAddedAsInTheFreeSolve() throws {
        // One column (1,1), b = (1,1), ridge 2: x = 2 / (2 + 2) = 0.5.
        let a = Matrix(rows: 2, columns: 1, values: [1, 1])
        let s = try LeastSquares.solve(a, [1, 1], ridge: 2, signs: [.nonNegative])
        #expect(abs(s.coefficients[0] - 0.5) < 1e-12)
    }

    @Test func randomProblemsMeetTheOptimalityConditions() throws {
        // Karush-Kuhn-Tucker on seeded random problems: a coefficient inside its bound has a zero
        // gradient; one at its bound a gradient pointing out of the feasible side.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func uniform() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53) * 2 - 1
        }
        let signs: [CoefficientSign] = [.free, .nonNegative, .nonPositive, .nonNegative, .nonPositive, .free]
        var bound = 0
        for _ in 0..<50 {
            var a = Matrix(rows: 30, columns: signs.count)
            for i in 0..<30 { for j in 0..<signs.count { a[i, j] = uniform() + (j > 0 ? 0.6 * a[i, j - 1] : 0) } }
            let b = (0..<30).map { _ in 2 * uniform() }
            let x = try LeastSquares.solve(a, b, ridge: 0.01, signs: signs).coefficients
            var gradient = [Double](repeating: 0, count: signs.count)   // -(1/2) d/dx of the objective
            for i in 0..<30 {
                let r = b[i] - (0..<signs.count).reduce(0) { $0 + a[i, $1] * x[$1] }
                for j in 0..<signs.count { gradient[j] += a[i, j] * r }
            }
            for j in 0..<signs.count {
                gradient[j] -= 0.01 * x[j]
                switch signs[j] {
                case .free: #expect(abs(gradient[j]) < 1e-9)
                case .nonNegative:
                    #expect(x[j] >= 0)
                    if x[j] == 0 { bound += 1; #expect(gradient[j] <= 1e-9) } else { #expect(abs(gradient[j]) < 1e-9) }
                case .nonPositive:
                    #expect(x[j] <= 0)
                    if x[j] == 0 { bound += 1; #expect(gradient[j] >= -1e-9) } else { #expect(abs(gradient[j]) < 1e-9) }
                }
            }
        }
        #expect(bound > 20)   // the bounds bind often enough for the test to mean something
    }
}
