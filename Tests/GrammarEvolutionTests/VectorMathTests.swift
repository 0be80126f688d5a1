#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import GrammarEvolution
import EvaluatorBenchmarking

/// The vector math against libm: the reference for Float is the double-precision libm result
/// rounded to Float; for Double it is libm itself (glibc's exp/log/sin/cos are < 1 ulp).
@Suite struct VectorMathTests {
    /// Error in units of the reference's ulp.
    static func ulps<T: BinaryFloatingPoint>(_ x: T, _ reference: T) -> Double {
        if x == reference || (x.isNaN && reference.isNaN) { return 0 }
        return Double((x - reference).magnitude / reference.ulp)
    }

    static func apply<T: EvaluatorScalar>(_ f: (UnsafePointer<T>, UnsafeMutablePointer<T>, Int) -> Void, _ xs: [T]) -> [T] {
        var ys = [T](repeating: 0, count: xs.count)
        xs.withUnsafeBufferPointer { x in ys.withUnsafeMutableBufferPointer { y in f(x.baseAddress!, y.baseAddress!, xs.count) } }
        return ys
    }

    static func values(_ range: ClosedRange<Double>, count: Int = 200_000, seed: UInt64 = 7) -> [Double] {
        var rng = SeededGenerator(seed: seed)
        return (0..<count).map { _ in Double.random(in: range, using: &rng) }
    }

    @Test func floatExpWithin2Ulp() {
        let xs = Self.values(-87...88).map { Float($0) }
        let ys = Self.apply(Float._vectorExp, xs)
        let worst = zip(xs, ys).map { Self.ulps($1, Float(exp(Double($0)))) }.max()!
        #expect(worst <= 2, "max ulp \(worst)")
    }

    @Test func floatLogWithin2Ulp() {
        let xs = Self.values(-30...30).map { Float(exp($0)) * ($0 > 0 ? 1 : -1) } + [Float.leastNormalMagnitude / 1000, -Float.leastNonzeroMagnitude * 2, 0.5, 2, 1e38]
        let ys = Self.apply(Float._vectorLog, xs)
        let worst = zip(xs, ys).map { Self.ulps($1, Float(log(Double(Swift.abs($0))))) }.max()!
        #expect(worst <= 2, "max ulp \(worst)")
    }

    @Test func floatSinCosAbsoluteError() throws {
        for range in [-4.0...4.0, -8192.0...8192.0] {
            let xs = Self.values(range).map { Float($0) }
            let s = Self.apply(Float._vectorSin, xs), c = Self.apply(Float._vectorCos, xs)
            let worst = xs.indices.map { i in
                Swift.max(Swift.abs(Double(s[i]) - sin(Double(xs[i]))), Swift.abs(Double(c[i]) - cos(Double(xs[i]))))
            }.max()!
            // Bound of the one-polynomial kernel (`_FloatMath.sinCos`): 1.5e-7, about 2 ulp of
            // values near ±1, where the reduced argument nears ±pi/2 (1.25e-7 seen in a float32
            // simulation of the kernel on 3·10^6 arguments; Cephes' two-polynomial kernel had 1e-7).
            #expect(worst <= 1.5e-7, "max abs error \(worst) on \(range)")
        }
    }

    @Test func doubleExpLogWithin2Ulp() {
        let xs = Self.values(-708...709)
        let e = Self.apply(Double._vectorExp, xs)
        #expect(zip(xs, e).map { Self.ulps($1, exp($0)) }.max()! <= 2)
        let ls = Self.values(-700...700).map { exp($0) * ($0 > 0 ? 1 : -1) } + [Double.leastNonzeroMagnitude, Double.leastNormalMagnitude / 1e6, 1.7e308]
        let l = Self.apply(Double._vectorLog, ls)
        #expect(zip(ls, l).map { Self.ulps($1, log(Swift.abs($0))) }.max()! <= 2)
    }

    @Test func doubleSinCosAbsoluteError() throws {
        for range in [-4.0...4.0, -100_000.0...100_000.0] {
            let xs = Self.values(range)
            let s = Self.apply(Double._vectorSin, xs), c = Self.apply(Double._vectorCos, xs)
            let worst = xs.indices.map { i in Swift.max(Swift.abs(s[i] - sin(xs[i])), Swift.abs(c[i] - cos(xs[i]))) }.max()!
            #expect(worst <= 2.3e-16, "max abs error \(worst) on \(range)")
        }
    }

    /// Special values: libm's results (exp(±inf) = inf, 0; exp(±1000) overflows/underflows;
    /// log|0| protected to 0; log(inf) = inf; NaN propagates; sin/cos of inf are NaN; large
    /// arguments go to libm and match it exactly).
    @Test func specialValuesMatchReference() throws {
        let specials: [Double] = [0, -0.0, .infinity, -.infinity, .nan, 1000, -1000, 1e300, -1e300, 1e22, 3e5, 710, -746]
        for op in [Operation.exp, .log, .sin, .cos] {
            let ref = specials.map { op.apply($0) }
            let d: [Double]
            switch op {
            case .exp: d = Self.apply(Double._vectorExp, specials)
            case .log: d = Self.apply(Double._vectorLog, specials)
            case .sin: d = Self.apply(Double._vectorSin, specials)
            default: d = Self.apply(Double._vectorCos, specials)
            }
            for i in specials.indices {
                #expect(d[i].isNaN == ref[i].isNaN && (d[i].isNaN || Self.ulps(d[i], ref[i]) <= 2),
                        "\(op)(\(specials[i])) = \(d[i]), reference \(ref[i])")
            }
            let fs = specials.map { Float($0) }
            let fref = fs.map { Float(op.apply(Double($0))) }
            let f: [Float]
            switch op {
            case .exp: f = Self.apply(Float._vectorExp, fs)
            case .log: f = Self.apply(Float._vectorLog, fs)
            case .sin: f = Self.apply(Float._vectorSin, fs)
            default: f = Self.apply(Float._vectorCos, fs)
            }
            for i in fs.indices {
                #expect(f[i].isNaN == fref[i].isNaN && (f[i].isNaN || f[i] == fref[i] || Swift.abs(Double(f[i]) - Double(fref[i])) <= 1e-7 * Swift.max(1, Double(fref[i].magnitude))),
                        "float \(op)(\(fs[i])) = \(f[i]), reference \(fref[i])")
            }
        }
    }
}
