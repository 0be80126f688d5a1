/// A (reference, prediction) point on which error-grid lines are tested exactly.
///
/// Every grid line in this project is `a*x + b*y + c = 0` with small integer `a`, `b`, `c`,
/// and a test is the sign of `a*x + b*y + c`. That sign is computed without rounding error:
///
/// - **Decimal path.** A finite value `v` with `|v| <= 1e6` that is the Double nearest to a
///   decimal with at most 6 fractional digits (`N / 10^k`, found by checking that
///   `Double(N) / 10^k == v`) is taken as that decimal. When both coordinates are such decimals,
///   they are scaled to a common `10^k` and the sign is computed in `Int` arithmetic. So a
///   value written `100.5` in a CSV counts as exactly 100.5, and `(100.5, 120.6)` lies exactly
///   on the `y = 1.2x` line, although neither number is exact in binary.
/// - **Binary path.** Otherwise (e.g. a model output with 17 significant digits) the sign is
///   that of the exact binary values of the Doubles: `a*x` and `b*y` are split into exact
///   sums of two Doubles with a fused multiply-add, and the five terms are summed as a
///   non-overlapping floating-point expansion (Shewchuk, "Adaptive precision floating-point
///   arithmetic and fast robust geometric predicates", 1997), whose sign is that of its
///   largest non-zero component. Exact for magnitudes between about 1e-290 and 1e300.
///
/// Comparisons of one coordinate with an integer constant are done directly on the Doubles:
/// rounding to the nearest Double is monotone and integers are exact, so they agree with
/// both paths.
///
/// Bounds that keep the decimal path free of overflow: `|N| <= 1e12 < 2^40`, `|a|, |b| <= 1000`,
/// `|c| <= 1e6`, scale `<= 10^6`, so every term is below `2^50`.
struct ExactPoint {
    let x: Double
    let y: Double
    let scaledX: Int
    let scaledY: Int
    let scale: Int
    let isDecimal: Bool

    static let powersOfTen: [Double] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000]
    static let integerPowersOfTen: [Int] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000]

    init(x: Double, y: Double) {
        self.x = x
        self.y = y
        if let dx = ExactPoint.decimal(x), let dy = ExactPoint.decimal(y) {
            let k = max(dx.digits, dy.digits)
            scaledX = dx.mantissa * ExactPoint.integerPowersOfTen[k - dx.digits]
            scaledY = dy.mantissa * ExactPoint.integerPowersOfTen[k - dy.digits]
            scale = ExactPoint.integerPowersOfTen[k]
            isDecimal = true
        } else {
            scaledX = 0; scaledY = 0; scale = 1
            isDecimal = false
        }
    }

    /// `v` as `mantissa / 10^digits` with the fewest digits (0...6), if `v` reads back as such a decimal.
    static func decimal(_ v: Double) -> (mantissa: Int, digits: Int)? {
        guard v.isFinite, abs(v) <= 1e6 else { return nil }
        for k in 0..<powersOfTen.count {
            let p = powersOfTen[k]
            let n = (v * p).rounded()
            if n / p == v { return (Int(n), k) }
        }
        return nil
    }

    /// The exact sign (-1, 0, 1) of `a*x + b*y + c`.
    /// - Precondition: `|a|, |b| <= 1000`, `|c| <= 1_000_000`.
    func sign(_ a: Int, _ b: Int, _ c: Int) -> Int {
        if isDecimal {
            let v = a * scaledX + b * scaledY + c * scale
            return v > 0 ? 1 : (v < 0 ? -1 : 0)
        }
        return ExactPoint.binarySign(Double(a), x, Double(b), y, Double(c))
    }

    /// Exact sign of `a*x + b*y + c` for Doubles whose products neither overflow nor underflow.
    static func binarySign(_ a: Double, _ x: Double, _ b: Double, _ y: Double, _ c: Double) -> Int {
        let p1 = a * x, e1 = a.fusedError(times: x, product: p1)
        let p2 = b * y, e2 = b.fusedError(times: y, product: p2)
        // Grow-expansion over at most five terms, in a stack buffer (no heap allocation per call).
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: 5) { expansion in
            var count = 0
            for term in [c, e1, e2, p1, p2] where term != 0 {
                var q = term
                for i in 0..<count {
                    let (s, err) = twoSum(q, expansion[i])
                    expansion[i] = err
                    q = s
                }
                expansion[count] = q
                count += 1
            }
            var i = count - 1
            while i >= 0 {
                if expansion[i] != 0 { return expansion[i] > 0 ? 1 : -1 }
                i -= 1
            }
            return 0
        }
    }

    /// Knuth's TwoSum: `s + e == a + b` exactly, with `s` the rounded sum.
    static func twoSum(_ a: Double, _ b: Double) -> (Double, Double) {
        let s = a + b
        let bVirtual = s - a
        let aVirtual = s - bVirtual
        return (s, (a - aVirtual) + (b - bVirtual))
    }
}

extension Double {
    /// The rounding error of `self * other` given its rounded `product`: `self * other == product + error` exactly.
    func fusedError(times other: Double, product: Double) -> Double {
        (-product).addingProduct(self, other)
    }
}
