/// The sign a coefficient is held to by `LeastSquares.solve(_:_:ridge:signs:)`.
public enum CoefficientSign: Sendable, Equatable {
    case free
    case nonNegative
    case nonPositive

    /// Whether `value` keeps this sign.
    public func admits(_ value: Double) -> Bool {
        switch self {
        case .free: true
        case .nonNegative: value >= 0
        case .nonPositive: value <= 0
        }
    }
}

extension LeastSquares {
    /// Minimises `||A x - b||² + λ||x||²` with every coefficient held to its sign: Lawson and
    /// Hanson's active-set NNLS (Solving Least Squares Problems, 1974, chapter 23), the free
    /// coefficients always in the passive set. Each step solves the unconstrained problem on the
    /// passive columns with `solve(_:_:ridge:)`. With every sign free it is that solve.
    /// `rank` is the rank of the passive columns at the solution.
    /// - Complexity: O(rows * columns^2) per step, at most `3 * columns` steps.
    public static func solve(_ a: Matrix, _ b: [Double], ridge lambda: Double = 0,
                             signs: [CoefficientSign]) throws -> LeastSquaresSolution {
        precondition(signs.count == a.columns, "least squares: \(signs.count) signs for \(a.columns) columns")
        if signs.allSatisfy({ $0 == .free }) { return try solve(a, b, ridge: lambda) }
        guard a.rows == b.count else { throw LinearAlgebraError.dimensionMismatch(rows: a.rows, targets: b.count) }
        let n = a.columns
        // Every constraint as x >= 0: a non-positive coefficient's column is negated.
        let flip = signs.map { $0 == .nonPositive ? -1.0 : 1.0 }
        let constrained = signs.map { $0 != .free }
        let ridgeRows = lambda > 0 ? n : 0
        var design = Matrix(rows: a.rows + ridgeRows, columns: n)
        for i in 0..<a.rows { for j in 0..<n { design[i, j] = a[i, j] * flip[j] } }
        for j in 0..<ridgeRows { design[a.rows + j, j] = lambda.squareRoot() }
        let target = b + Array(repeating: 0, count: ridgeRows)

        var passive = constrained.map { !$0 }
        var rank = 0
        func solvePassive() throws -> [Double] {
            let columns = (0..<n).filter { passive[$0] }
            var full = [Double](repeating: 0, count: n)
            guard !columns.isEmpty else { rank = 0; return full }
            var sub = Matrix(rows: design.rows, columns: columns.count)
            for i in 0..<design.rows { for (k, j) in columns.enumerated() { sub[i, k] = design[i, j] } }
            let s = try solve(sub, target)
            rank = s.rank
            for (k, j) in columns.enumerated() { full[j] = s.coefficients[k] }
            return full
        }
        var x = try solvePassive()
        let scale = design.values.reduce(0) { $0 + $1 * $1 }.squareRoot() * target.reduce(0) { $0 + $1 * $1 }.squareRoot()
        let tolerance = 1e-12 * max(scale, .leastNormalMagnitude)
        for _ in 0..<(3 * n) {
            // Half the objective's negative gradient: Dᵀ(t - D x).
            var residual = target
            for i in 0..<design.rows { for j in 0..<n where x[j] != 0 { residual[i] -= design[i, j] * x[j] } }
            var gradient = [Double](repeating: 0, count: n)
            for i in 0..<design.rows { for j in 0..<n { gradient[j] += design[i, j] * residual[i] } }
            guard let entering = (0..<n).filter({ !passive[$0] }).max(by: { gradient[$0] < gradient[$1] }),
                  gradient[entering] > tolerance else { break }
            passive[entering] = true
            var z = try solvePassive()
            if z[entering] <= 0 { passive[entering] = false; _ = try solvePassive(); break }  // rounding: no descent left
            // Step back toward x until every constrained passive coefficient is positive; the one
            // that reaches zero first (and any rounding to it) leaves the passive set.
            for _ in 0..<n {
                // x[j] >= 0 >= z[j]: the fraction of the step at which j reaches zero.
                func reach(_ j: Int) -> Double { x[j] - z[j] > 0 ? x[j] / (x[j] - z[j]) : 0 }
                let blocked = (0..<n).filter { passive[$0] && constrained[$0] && z[$0] <= 0 }
                guard let first = blocked.min(by: { reach($0) < reach($1) }) else { break }
                let alpha = reach(first)
                for j in 0..<n where passive[j] { x[j] += alpha * (z[j] - x[j]) }
                x[first] = 0
                for j in 0..<n where passive[j] && constrained[j] && x[j] <= 0 { passive[j] = false; x[j] = 0 }
                z = try solvePassive()
            }
            // Each pass above drops a coefficient, so z is feasible; should rounding leave it not, x stands.
            guard !(0..<n).contains(where: { passive[$0] && constrained[$0] && z[$0] < 0 }) else { break }
            x = z
        }
        return LeastSquaresSolution(coefficients: zip(x, flip).map { $0 == 0 ? 0 : $0 * $1 }, rank: rank)
    }
}
