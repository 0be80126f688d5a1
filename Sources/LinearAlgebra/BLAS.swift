import COpenBLAS

/// Safe entry points to the BLAS routines the toolkit uses.
///
/// Callers pass Swift buffers; the pointers never leave these functions.
public enum BLAS {
    /// Dot product `sum(x[i] * y[i])` (`cblas_sdot`).
    /// - Precondition: `x.count == y.count`.
    /// - Complexity: O(n).
    @inlinable
    public static func dot(_ x: UnsafeBufferPointer<Float>, _ y: UnsafeBufferPointer<Float>) -> Float {
        precondition(x.count == y.count, "dot: length mismatch")
        guard let xb = x.baseAddress, let yb = y.baseAddress, x.count > 0 else { return 0 }
        return cblas_sdot(Int32(x.count), xb, 1, yb, 1)
    }

    /// Dot product `sum(x[i] * y[i])` (`cblas_ddot`).
    @inlinable
    public static func dot(_ x: UnsafeBufferPointer<Double>, _ y: UnsafeBufferPointer<Double>) -> Double {
        precondition(x.count == y.count, "dot: length mismatch")
        guard let xb = x.baseAddress, let yb = y.baseAddress, x.count > 0 else { return 0 }
        return cblas_ddot(Int32(x.count), xb, 1, yb, 1)
    }

    /// Dot product of two Double arrays.
    @inlinable
    public static func dot(_ x: [Double], _ y: [Double]) -> Double {
        x.withUnsafeBufferPointer { xb in y.withUnsafeBufferPointer { yb in dot(xb, yb) } }
    }

    /// Dot product of two Float arrays.
    @inlinable
    public static func dot(_ x: [Float], _ y: [Float]) -> Float {
        x.withUnsafeBufferPointer { xb in y.withUnsafeBufferPointer { yb in dot(xb, yb) } }
    }

    /// Restricts OpenBLAS to one thread: the toolkit parallelises at a coarser level (across
    /// individuals or patients), nested threading only costs, and results must not depend on
    /// the number of threads. Idempotent and cheap after the first call.
    public static func useSingleThread() {
        _ = singleThreaded
    }

    private static let singleThreaded: Void = openblas_set_num_threads(1)
}
