#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A floating-point type the batched evaluator computes in: `Float` (default, twice the SIMD
/// width) or `Double`.
///
/// The `_vector...` requirements apply one transcendental function to `count` values, reading
/// `x` and writing `y`, which must not overlap (the evaluator never writes a step's operand).
/// They are implemented per type with
/// branch-free polynomial approximations (see `VectorMath+Float.swift`, `VectorMath+Double.swift`)
/// that the compiler turns into SIMD loops; arguments outside the fast reduction range fall back
/// to libm for the affected batch.
public protocol EvaluatorScalar: BinaryFloatingPoint, SIMDScalar, Codable, Sendable, LosslessStringConvertible {
    /// Threshold on `|x|` above which `sin`/`cos` use libm (the Cody-Waite reduction loses accuracy).
    static var _trigonometricFastRange: Self { get }
    static func _vectorSin(_ x: UnsafePointer<Self>, _ y: UnsafeMutablePointer<Self>, _ count: Int)
    static func _vectorCos(_ x: UnsafePointer<Self>, _ y: UnsafeMutablePointer<Self>, _ count: Int)
    static func _vectorExp(_ x: UnsafePointer<Self>, _ y: UnsafeMutablePointer<Self>, _ count: Int)
    /// `log|x|`, with `log(0) = 0` as `Operation.log`.
    static func _vectorLog(_ x: UnsafePointer<Self>, _ y: UnsafeMutablePointer<Self>, _ count: Int)
}

/// Whether any of `x[0..<count]` has `|x| > limit` or is NaN: an OR-reduction over
/// `limit - |x|` on the bit patterns (ordered like the values for non-negative floats), which
/// compiles to a SIMD loop without branches.
@inline(__always)
func _anyOutside(_ x: UnsafePointer<Float>, _ count: Int, _ limit: Float) -> Bool {
    let limitBits = Int32(bitPattern: limit.bitPattern)
    var acc: Int32 = 0
    for i in 0..<count { acc |= limitBits &- Int32(bitPattern: x[i].bitPattern & 0x7FFF_FFFF) }
    return acc < 0
}

@inline(__always)
func _anyOutside(_ x: UnsafePointer<Double>, _ count: Int, _ limit: Double) -> Bool {
    let limitBits = Int64(bitPattern: limit.bitPattern)
    var acc: Int64 = 0
    for i in 0..<count { acc |= limitBits &- Int64(bitPattern: x[i].bitPattern & 0x7FFF_FFFF_FFFF_FFFF) }
    return acc < 0
}

/// Whether any of `x[0..<count]` is zero, subnormal, infinite or NaN: an OR-reduction over
/// `(b - minNormal) | (maxFinite - b)` on the magnitude bits `b` (negative exactly outside the
/// normal range), a SIMD loop without branches.
@inline(__always)
func _anyNotNormal(_ x: UnsafePointer<Float>, _ count: Int) -> Bool {
    var acc: Int32 = 0
    for i in 0..<count {
        let b = Int32(bitPattern: x[i].bitPattern & 0x7FFF_FFFF)
        acc |= (b &- 0x0080_0000) | (0x7F7F_FFFF &- b)
    }
    return acc < 0
}

extension Float: EvaluatorScalar {
    public static var _trigonometricFastRange: Float { 8192 }

    public static func _vectorSin(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ count: Int) {
        for i in 0..<count { y[i] = _FloatMath.sinCos(x[i], cosine: false) }
        if _anyOutside(x, count, _trigonometricFastRange) {
            for i in 0..<count where !(x[i].magnitude <= _trigonometricFastRange) { y[i] = sinf(x[i]) }
        }
    }

    public static func _vectorCos(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ count: Int) {
        for i in 0..<count { y[i] = _FloatMath.sinCos(x[i], cosine: true) }
        if _anyOutside(x, count, _trigonometricFastRange) {
            for i in 0..<count where !(x[i].magnitude <= _trigonometricFastRange) { y[i] = cosf(x[i]) }
        }
    }

    /// One vectorised range test per call, then the short kernel for `|x| <= 87` (no clamping,
    /// one power of two) or, if any value is outside or NaN, the full kernel for all.
    public static func _vectorExp(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ count: Int) {
        if _anyOutside(x, count, 87) {
            for i in 0..<count { y[i] = _FloatMath.exp(x[i]) }
        } else {
            for i in 0..<count { y[i] = _FloatMath.expModerate(x[i]) }
        }
    }

    /// One vectorised test per call, then the short kernel for normal numbers or, if any value
    /// is zero, subnormal, infinite or NaN, the full kernel for all.
    public static func _vectorLog(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ count: Int) {
        if _anyNotNormal(x, count) {
            for i in 0..<count { y[i] = _FloatMath.logMagnitude(x[i]) }
        } else {
            for i in 0..<count { y[i] = _FloatMath.logNormal(x[i]) }
        }
    }
}

extension Double: EvaluatorScalar {
    public static var _trigonometricFastRange: Double { 100_000 }

    public static func _vectorSin(_ x: UnsafePointer<Double>, _ y: UnsafeMutablePointer<Double>, _ count: Int) {
        for i in 0..<count { y[i] = _DoubleMath.sinCos(x[i], cosine: false) }
        if _anyOutside(x, count, _trigonometricFastRange) {
            for i in 0..<count where !(x[i].magnitude <= _trigonometricFastRange) { y[i] = sin(x[i]) }
        }
    }

    public static func _vectorCos(_ x: UnsafePointer<Double>, _ y: UnsafeMutablePointer<Double>, _ count: Int) {
        for i in 0..<count { y[i] = _DoubleMath.sinCos(x[i], cosine: true) }
        if _anyOutside(x, count, _trigonometricFastRange) {
            for i in 0..<count where !(x[i].magnitude <= _trigonometricFastRange) { y[i] = cos(x[i]) }
        }
    }

    public static func _vectorExp(_ x: UnsafePointer<Double>, _ y: UnsafeMutablePointer<Double>, _ count: Int) {
        for i in 0..<count { y[i] = _DoubleMath.exp(x[i]) }
    }

    public static func _vectorLog(_ x: UnsafePointer<Double>, _ y: UnsafeMutablePointer<Double>, _ count: Int) {
        for i in 0..<count { y[i] = _DoubleMath.logMagnitude(x[i]) }
    }
}
