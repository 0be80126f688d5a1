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
