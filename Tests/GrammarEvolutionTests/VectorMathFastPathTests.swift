#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import GrammarEvolution

/// The short Float kernels `_vectorExp` and `_vectorLog` take when a whole call is in range
/// (`|x| <= 87` for exp, only normal numbers for log), against the same reference as
/// `VectorMathTests`: double-precision libm rounded to Float, within 2 ulp.
@Suite struct VectorMathFastPathTests {
    static func worstUlps(_ f: (UnsafePointer<Float>, UnsafeMutablePointer<Float>, Int) -> Void,
                          _ xs: [Float], _ reference: (Double) -> Double) -> Double {
        let ys = VectorMathTests.apply(f, xs)
        return zip(xs, ys).map { VectorMathTests.ulps($1, Float(reference(Double($0)))) }.max()!
    }

    @Test func expInModerateRangeWithin2Ulp() {
        // [-87, 87] and its ends: every call stays on the short path.
        let xs = VectorMathTests.values(-87...87).map { Float($0) } + [87, -87, 0, -0.0, 1e-30]
        #expect(!_anyOutside(xs, xs.count, 87))
        let worst = Self.worstUlps(Float._vectorExp, xs, exp)
        #expect(worst <= 2, "max ulp \(worst)")
    }

    @Test func logOfNormalNumbersWithin2Ulp() {
        // Normal magnitudes from 2^-126 to 2^127, both signs, and the mantissas next to
        // sqrt(1/2) and sqrt(2) where the reduction switches exponent.
        let xs = VectorMathTests.values(-87...88).map { Float(exp($0)) * ($0 > 0 ? 1 : -1) }
            + [Float.leastNormalMagnitude, .greatestFiniteMagnitude, 1, -1,
               Float(0.5.squareRoot()).nextDown, Float(0.5.squareRoot()), Float(2.0.squareRoot()),
               Float(2.0.squareRoot()).nextUp]
        let normal = xs.filter(\.isNormal)
        #expect(!_anyNotNormal(normal, normal.count))
        let worst = Self.worstUlps(Float._vectorLog, normal) { log(Swift.abs($0)) }
        #expect(worst <= 2, "max ulp \(worst)")
    }

    /// One special value in a call switches the whole call to the full kernel: the in-range
    /// values stay accurate and the special ones follow libm (log|0| protected to 0).
    @Test func oneSpecialValueSwitchesToFullKernel() {
        let subnormal = Float(sign: .plus, exponent: -133, significand: 1)  // 2^-133, about 9.2e-41
        let logs: [Float] = [2, 0, 0.5, .infinity, subnormal]
        #expect(_anyNotNormal(logs, logs.count))
        let l = VectorMathTests.apply(Float._vectorLog, logs)
        // log 2 = 0.69314718..., log 0.5 = -log 2, log(2^-133) = -133 log 2 = -92.1880... (libm in Double).
        #expect(l[0] == Float(log(2.0)) && l[2] == -Float(log(2.0)))
        #expect(l[1] == 0 && l[3] == .infinity)
        #expect(VectorMathTests.ulps(l[4], Float(-133 * log(2.0))) <= 2)
        let exps: [Float] = [1, 100, -100, .nan]
        #expect(_anyOutside(exps, exps.count, 87))
        let e = VectorMathTests.apply(Float._vectorExp, exps)
        // e = 2.7182817...; e^100 overflows Float; e^-100 = 3.72e-44 is subnormal (libm in Double).
        #expect(VectorMathTests.ulps(e[0], Float(M_E)) <= 2)
        #expect(e[1] == .infinity && e[2] == Float(exp(-100.0)) && e[3].isNaN)
    }
}
