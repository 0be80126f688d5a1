import LinearAlgebra

/// Several evolved terms fitted jointly (multi-gene symbolic regression, Searson et al. 2010):
/// `y ≈ c0 + c1 f1(x) + ... + cm fm(x)`, the coefficients by least squares (LAPACK `dgelsd`), and
/// the sum written back as one `Program`, so a multi-term model is stored and evaluated like any
/// other expression.
public enum LinearCombination {
    /// The least-squares intercept and coefficients of `terms` (one array of values per term, each
    /// as long as `target`). Nil when a value is not finite or the fit fails.
    public static func fit(_ terms: [[Double]], target: [Double]) -> (intercept: Double, coefficients: [Double])? {
        let n = target.count
        guard n >= terms.count + 1, terms.allSatisfy({ $0.count == n }),
              target.allSatisfy(\.isFinite), terms.allSatisfy({ $0.allSatisfy(\.isFinite) }) else { return nil }
        var design = Matrix(rows: n, columns: terms.count + 1)
        for i in 0..<n {
            design[i, 0] = 1
            for (j, term) in terms.enumerated() { design[i, j + 1] = term[i] }
        }
        guard let solution = try? LeastSquares.solve(design, target),
              solution.coefficients.allSatisfy(\.isFinite) else { return nil }
        return (solution.coefficients[0], Array(solution.coefficients.dropFirst()))
    }

    /// `c1 * p1 + c2 * p2 + ...` as one program (postfix: `p1 c1 mul p2 c2 mul add ...`).
    /// - Precondition: one coefficient per program, at least one program.
    public static func program(_ programs: [Program], coefficients: [Double]) -> Program {
        precondition(!programs.isEmpty && programs.count == coefficients.count, "one coefficient per program")
        var instructions: [Instruction] = []
        for (k, (p, c)) in zip(programs, coefficients).enumerated() {
            instructions += p.instructions + [.constant(c), .operation(.mul)]
            if k > 0 { instructions.append(.operation(.add)) }
        }
        return Program(instructions: instructions)
    }
}
