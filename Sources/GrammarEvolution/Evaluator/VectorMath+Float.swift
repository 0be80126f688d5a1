/// Branch-free single-precision `exp`, `log|x|` (Cephes `expf`, `logf`, S. L. Moshier), `sin`,
/// `cos` (one odd polynomial after reduction mod pi), written with selects and bit operations only so that a loop over
/// them compiles to SIMD code (no libm calls, no integer traps, no float-to-int conversions).
///
/// Accuracy against libm (double-precision libm rounded to float; `VectorMathTests` asserts the
/// bounds, 10^6 random arguments measured): `exp` ≤ 2 ulp on [-87, 88] (measured 1.0);
/// `log|x|` ≤ 2 ulp for normal and subnormal inputs (measured 1.0); `sin`/`cos` absolute error
/// ≤ 1.5e-7 for |x| ≤ 8192 (about 2 ulp of values near ±1; measured 1.25e-7); beyond 8192 the
/// caller uses libm `sinf`/`cosf`.
enum _FloatMath {
    /// `1.5 * 2^23`: adding it rounds a float to the nearest integer, held in the low mantissa bits.
    @usableFromInline static let roundingMagic: Float = 12_582_912
    @usableFromInline static let roundingMagicBits: Int32 = 0x4B40_0000

    /// `a * b + c`: one fused multiply-add when the build defines `GE_FMA` (pass
    /// `-Xswiftc -DGE_FMA` together with `-Xswiftc -target-cpu -Xswiftc haswell` or any CPU with
    /// FMA; Swift never contracts `a * b + c` itself), else a multiply and an add. Without FMA
    /// hardware `addingProduct` becomes a libm call per lane, hence the opt-in.
    @inline(__always)
    static func mulAdd(_ a: Float, _ b: Float, _ c: Float) -> Float {
        #if GE_FMA
        c.addingProduct(a, b)
        #else
        a * b + c
        #endif
    }

    /// `2^n` for `n` in [-126, 127], built from the exponent bits.
    @inline(__always)
    static func power2(_ n: Int32) -> Float {
        Float(bitPattern: UInt32(bitPattern: (n &+ 127) &<< 23))
    }

    /// `e^x = 2^n * e^r`, `n = round(x / ln 2)`, `r = x - n ln 2` (ln 2 split in two for an exact
    /// product), `e^r` by Cephes' degree-6 polynomial. `2^n` is applied in two halves so that
    /// results near overflow and in the subnormal range are right; beyond them, ±inf and 0.
    @inline(__always)
    static func exp(_ x: Float) -> Float {
        var xc = x < -104 ? -104 : x
        xc = xc > 89 ? 89 : xc
        let t = mulAdd(xc, 1.44269504088896341, roundingMagic)
        let n = t - roundingMagic
        let ni = Int32(bitPattern: t.bitPattern) &- roundingMagicBits
        let n1 = ni &>> 1
        return expReduced(xc, n) * power2(n1) * power2(ni &- n1)
    }

    /// `log|x|` for normal `x` only (the common case; `logMagnitude` handles all).
    /// `|x| = (1 + f) 2^e` with `1 + f` in [sqrt(1/2), sqrt(2)): adding the bits of 1 minus those
    /// of sqrt(1/2) to the bit pattern carries into the exponent exactly when the mantissa is at
    /// least sqrt(2) (musl's trick, no compare or select), then `log(1 + f) = f - f²/2 + f³ P(f)` with a
    /// degree-6 polynomial `P` (Cephes uses degree 8; 1 ulp either way) and `e ln 2` added in two parts.
    @inline(__always)
    static func logNormal(_ x: Float) -> Float {
        logCore(bits: x.magnitude.bitPattern, exponentOffset: 0)
    }

    @inline(__always)
    static func logCore(bits: UInt32, exponentOffset: Int32) -> Float {
        let ix = bits &+ (0x3F80_0000 &- 0x3F35_04F3)
        let e = Int32(bitPattern: ix &>> 23) &- 127 &- exponentOffset
        let m = Float(bitPattern: (ix & 0x007F_FFFF) &+ 0x3F35_04F3) - 1
        let z = m * m
        // P(m) of degree 6, fitted (relative error 3e-8 over the interval, weighted minimax) in
        // place of Cephes' degree 8, by Estrin's scheme (pairs, then powers of z = m²).
        let z2 = z * z
        let p01 = mulAdd(-2.500133812427521e-1, m, 3.333390951156616e-1)
        let p23 = mulAdd(-1.65775865316391e-1, m, 1.9963061809539795e-1)
        let p45 = mulAdd(-1.426747739315033e-1, m, 1.491478681564331e-1)
        let p = mulAdd(mulAdd(8.700361102819443e-2, z, p45), z2, mulAdd(p23, z, p01))
        var y = p * m * z
        let fe = Float(e)
        y = mulAdd(fe, -2.12194440e-4, y)
        y = mulAdd(z, -0.5, y)
        let r = m + y
        return mulAdd(fe, 0.693359375, r)
    }

    /// `log|x|` for every `x`: subnormals scaled by 2^23 first, then `logCore`;
    /// `log 0 = 0` (protected), `log inf = inf`, NaN stays NaN.
    @inline(__always)
    static func logMagnitude(_ x: Float) -> Float {
        let a = x.magnitude
        let small = a < Float.leastNormalMagnitude
        let scaled = small ? a * 8_388_608 : a
        var r = logCore(bits: scaled.bitPattern, exponentOffset: small ? 23 : 0)
        r = a == 0 ? 0 : r
        r = a == .infinity ? .infinity : r
        return a != a ? a : r
    }

    /// `e^x` for `|x| <= 87` only (the common case; `exp` handles all): as `exp`, with one
    /// power of two (`n` in [-126, 126]) and no clamping.
    @inline(__always)
    static func expModerate(_ x: Float) -> Float {
        let t = mulAdd(x, 1.44269504088896341, roundingMagic)
        let n = t - roundingMagic
        let ni = Int32(bitPattern: t.bitPattern) &- roundingMagicBits
        return expReduced(x, n) * power2(ni)
    }

    /// `e^r`, `r = x - n ln 2` (ln 2 split in two for an exact product), by Cephes' degree-6
    /// polynomial with Estrin's scheme (dependency chain of 3 multiply-adds instead of 6).
    @inline(__always)
    static func expReduced(_ x: Float, _ n: Float) -> Float {
        var r = mulAdd(n, -0.693359375, x)
        r = mulAdd(n, 2.12194440e-4, r)
        let z = r * r
        let p01 = mulAdd(1.6666665459e-1, r, 5.0000001201e-1)
        let p23 = mulAdd(8.3334519073e-3, r, 4.1665795894e-2)
        let p45 = mulAdd(1.9875691500e-4, r, 1.3981999507e-3)
        let p = mulAdd(mulAdd(p45, z, p23), z, p01)
        return mulAdd(p, z, r) + 1
    }

    /// `sin x` or `cos x` with one polynomial: `x = m pi/2 + r`, `r` in [-pi/2, pi/2], `m` even
    /// for sin (`m = 2 round(x/pi)`) and odd for cos (`m = 2 round(x/pi - 1/2) + 1`), so that
    /// both are `±sin r`, the sign `(-1)^((m + 1) / 2)`. `r` by Cody-Waite with pi/2 in three parts
    /// (exact products for |m| < 2^16), `sin r = r + r z P(z)`, `z = r²`, `P` of degree 3 fitted
    /// to sin on [-pi/2, pi/2] (approximation error 5e-9; the rest is rounding of `r` and of the
    /// result). One polynomial instead of Cephes' two on [-pi/4, pi/4]: fewer operations and a
    /// shorter dependency chain, at 1.3e-7 instead of 1e-7 worst absolute error.
    @inline(__always)
    static func sinCos(_ x: Float, cosine: Bool) -> Float {
        let t = cosine ? mulAdd(x, 0.318309886183790671, -0.5) + roundingMagic
            : mulAdd(x, 0.318309886183790671, roundingMagic)
        let h = Int32(bitPattern: t.bitPattern) &- roundingMagicBits
        let m = (t - roundingMagic) * 2 + (cosine ? 1 : 0)
        var r = mulAdd(m, -1.5703125, x)
        r = mulAdd(m, -4.837512969970703125e-4, r)
        r = mulAdd(m, -7.54978995489188216e-8, r)
        let z = r * r
        let p = mulAdd(mulAdd(mulAdd(2.5992874270741595e-6, z, -1.9806207274086773e-4), z, 8.333010599017143e-3),
                       z, -1.6666656732559204e-1)
        let s = mulAdd(r * z, p, r)
        // Sign: (m + 1) / 2 = h + (cosine ? 1 : 0) with h = round(...) as an integer.
        let flip = UInt32(bitPattern: h &+ (cosine ? 1 : 0)) &<< 31
        return Float(bitPattern: s.bitPattern ^ flip)
    }
}
