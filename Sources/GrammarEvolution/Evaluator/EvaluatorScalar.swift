#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A floating-point type the batched evaluator computes in: `Float` (default, twice the SIMD
/// width) or `Double`.
///
/// The `_vector...` requirements apply one transcendental function to `count` values, reading
/// `x` and writing `y` (which may be the same memory). They are implemented per type with
/// branch-free polynomial approximations (see `VectorMath+Float.swift`, `VectorMath+Double.swift`)
/// that the compiler turns into SIMD loops; arguments outside the fast reduction range fall back
/// to libm for the affected batch.
public protocol EvaluatorScalar: BinaryFloatingPoint, SIMDScalar, Sendable, LosslessStringConvertible {
    /// Threshold on `|x|` above which `sin`/`cos` use libm (the Cody-Waite reduction loses accuracy).
    static var _trigonometricFastRange: Self { get }
    static func _vectorSin(_ x: UnsafePointer<Self>, _ y: UnsafeMutablePointer<Self>, _ count: Int)
    static func _vectorCos(_ x: UnsafePointer<Self>, _ y: UnsafeMutablePointer<Self>, _ count: Int)
    static func _vectorExp(_ x: UnsafePointer<Self>, _ y: UnsafeMutablePointer<Self>, _ count: Int)
    /// `log|x|`, with `log(0) = 0` as `Operation.log`.
    static func _vectorLog(_ x: UnsafePointer<Self>, _ y: UnsafeMutablePointer<Self>, _ count: Int)
    /// libm in this precision, for arguments outside the fast range.
    static func _libmSin(_ x: Self) -> Self
    static func _libmCos(_ x: Self) -> Self
}

/// How many of `x[0..<count]` have `|x| > limit` (NaN does not count). A SIMD compare-and-count loop.
@inline(__always)
func _countOutside<T: EvaluatorScalar>(_ x: UnsafePointer<T>, _ count: Int, _ limit: T) -> Int {
    var outside = 0
    for i in 0..<count { outside &+= x[i].magnitude > limit ? 1 : 0 }
    return outside
}

extension Float: EvaluatorScalar {
    public static var _trigonometricFastRange: Float { 8192 }
    public static func _libmSin(_ x: Float) -> Float { sinf(x) }
    public static func _libmCos(_ x: Float) -> Float { cosf(x) }

    public static func _vectorSin(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ count: Int) {
        if _countOutside(x, count, _trigonometricFastRange) == 0 {
            for i in 0..<count { y[i] = _FloatMath.sinCos(x[i], cosine: false) }
        } else {
            for i in 0..<count {
                let v = x[i]
                y[i] = v.magnitude > _trigonometricFastRange ? sinf(v) : _FloatMath.sinCos(v, cosine: false)
            }
        }
    }

    public static func _vectorCos(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ count: Int) {
        if _countOutside(x, count, _trigonometricFastRange) == 0 {
            for i in 0..<count { y[i] = _FloatMath.sinCos(x[i], cosine: true) }
        } else {
            for i in 0..<count {
                let v = x[i]
                y[i] = v.magnitude > _trigonometricFastRange ? cosf(v) : _FloatMath.sinCos(v, cosine: true)
            }
        }
    }

    public static func _vectorExp(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ count: Int) {
        for i in 0..<count { y[i] = _FloatMath.exp(x[i]) }
    }

    public static func _vectorLog(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ count: Int) {
        for i in 0..<count { y[i] = _FloatMath.logMagnitude(x[i]) }
    }
}

extension Double: EvaluatorScalar {
    public static var _trigonometricFastRange: Double { 100_000 }
    public static func _libmSin(_ x: Double) -> Double { sin(x) }
    public static func _libmCos(_ x: Double) -> Double { cos(x) }

    public static func _vectorSin(_ x: UnsafePointer<Double>, _ y: UnsafeMutablePointer<Double>, _ count: Int) {
        if _countOutside(x, count, _trigonometricFastRange) == 0 {
            for i in 0..<count { y[i] = _DoubleMath.sinCos(x[i], cosine: false) }
        } else {
            for i in 0..<count {
                let v = x[i]
                y[i] = v.magnitude > _trigonometricFastRange ? sin(v) : _DoubleMath.sinCos(v, cosine: false)
            }
        }
    }

    public static func _vectorCos(_ x: UnsafePointer<Double>, _ y: UnsafeMutablePointer<Double>, _ count: Int) {
        if _countOutside(x, count, _trigonometricFastRange) == 0 {
            for i in 0..<count { y[i] = _DoubleMath.sinCos(x[i], cosine: true) }
        } else {
            for i in 0..<count {
                let v = x[i]
                y[i] = v.magnitude > _trigonometricFastRange ? cos(v) : _DoubleMath.sinCos(v, cosine: true)
            }
        }
    }

    public static func _vectorExp(_ x: UnsafePointer<Double>, _ y: UnsafeMutablePointer<Double>, _ count: Int) {
        for i in 0..<count { y[i] = _DoubleMath.exp(x[i]) }
    }

    public static func _vectorLog(_ x: UnsafePointer<Double>, _ y: UnsafeMutablePointer<Double>, _ count: Int) {
        for i in 0..<count { y[i] = _DoubleMath.logMagnitude(x[i]) }
    }
}
