import CLAPACKE

/// Errors from the LAPACK solvers.
public enum LinearAlgebraError: Error, Equatable, CustomStringConvertible {
    case dimensionMismatch(rows: Int, targets: Int)
    case tooFewRows(rows: Int, columns: Int)
    case lapackFailure(routine: String, info: Int32)

    public var description: String {
        switch self {
        case let .dimensionMismatch(rows, targets):
            return "least squares: design matrix has \(rows) rows but the target has \(targets) values"
        case let .tooFewRows(rows, columns):
            return "least squares: \(rows) rows cannot determine \(columns) coefficients"
        case let .lapackFailure(routine, info):
            return "LAPACK \(routine) failed with info = \(info)"
        }
    }
}

/// A dense matrix in row-major order, the layout the design matrices are built in.
public struct Matrix: Sendable, Equatable {
    public let rows: Int
    public let columns: Int
    public var values: [Double]

    public init(rows: Int, columns: Int, values: [Double]) {
        precondition(values.count == rows * columns, "Matrix: \(values.count) values for \(rows)x\(columns)")
        self.rows = rows
        self.columns = columns
        self.values = values
    }

    public init(rows: Int, columns: Int) {
        self.init(rows: rows, columns: columns, values: Array(repeating: 0, count: rows * columns))
    }

    public subscript(row: Int, column: Int) -> Double {
        get { values[row * columns + column] }
        set { values[row * columns + column] = newValue }
    }
}

/// The result of a least-squares fit.
public struct LeastSquaresSolution: Sendable, Equatable {
    /// Coefficients, one per column of the design matrix.
    public var coefficients: [Double]
    /// Effective rank of the design matrix (columns that carry information).
    public var rank: Int
}

public enum LeastSquares {
    /// Minimises `||A x - b||_2` with LAPACK's SVD-based `dgelsd`, which also copes with
    /// rank-deficient designs (collinear features give the minimum-norm solution).
    /// OpenBLAS runs on one thread here: its multi-threaded kernels sum in an order that
    /// depends on the thread count, and the same data must give the same solution.
    ///
    /// An optional ridge term `lambda` adds `lambda * ||x||^2` by augmenting the system.
    /// - Complexity: O(rows * columns^2).
    public static func solve(_ a: Matrix, _ b: [Double], ridge lambda: Double = 0) throws -> LeastSquaresSolution {
        BLAS.useSingleThread()
        guard a.rows == b.count else { throw LinearAlgebraError.dimensionMismatch(rows: a.rows, targets: b.count) }
        var design = a
        var target = b
        if lambda > 0 {
            let s = lambda.squareRoot()
            var extra = Matrix(rows: a.columns, columns: a.columns)
            for j in 0..<a.columns { extra[j, j] = s }
            design = Matrix(rows: a.rows + a.columns, columns: a.columns, values: a.values + extra.values)
            target = b + Array(repeating: 0, count: a.columns)
        }
        let m = design.rows, n = design.columns
        guard m >= 1, n >= 1 else { throw LinearAlgebraError.tooFewRows(rows: m, columns: n) }
        let ldb = max(m, n)
        var rhs = target + Array(repeating: 0, count: ldb - m)
        var singular = Array(repeating: 0.0, count: min(m, n))
        var rank: Int32 = 0
        let info = design.values.withUnsafeMutableBufferPointer { ap in
            rhs.withUnsafeMutableBufferPointer { bp in
                singular.withUnsafeMutableBufferPointer { sp in
                    LAPACKE_dgelsd(
                        LAPACK_ROW_MAJOR, Int32(m), Int32(n), 1,
                        ap.baseAddress, Int32(n), bp.baseAddress, 1,
                        sp.baseAddress, -1, &rank)
                }
            }
        }
        guard info == 0 else { throw LinearAlgebraError.lapackFailure(routine: "dgelsd", info: info) }
        return LeastSquaresSolution(coefficients: Array(rhs.prefix(n)), rank: Int(rank))
    }
}
