/// Reads the plain decimals exports write (`120`, `5.5`, `-0.25`) straight from UTF-8 bytes,
/// without making a `String`.
public enum DecimalBytes {
    /// 10^0 ... 10^15, each exactly representable.
    static let powersOfTen: [Double] = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15]

    /// The value of `bytes` when they are a plain decimal `-?digits[.digits]` with 1 to 15 digits
    /// in all (a digit before the point and one after it if there is a point); nil for anything
    /// else (signs `+`, exponents, spaces, `.5`, `5.`, a decimal comma, more digits), which callers
    /// then read the slow way.
    ///
    /// The value is an exact integer m < 10^15 < 2^53 divided by an exact power of ten 10^k
    /// (k <= 15), one correctly rounded IEEE division, so it equals the correctly rounded decimal,
    /// the value `Double(_:)` returns for the same text (W. D. Clinger, "How to read floating point
    /// numbers accurately", PLDI 1990: the exact-operands fast path).
    /// - Complexity: O(n) in `bytes.count`, no allocation.
    public static func plain<C: Collection<UInt8>>(_ bytes: C) -> Double? {
        var m: UInt64 = 0, digits = 0, fraction = 0, seenDot = false
        var j = bytes.startIndex
        let negative = j != bytes.endIndex && bytes[j] == UInt8(ascii: "-")
        if negative { bytes.formIndex(after: &j) }
        while j != bytes.endIndex {
            let c = bytes[j]
            if c &- 0x30 < 10 {
                m = m &* 10 &+ UInt64(c &- 0x30)
                digits += 1
                if seenDot { fraction += 1 }
                guard digits <= 15 else { return nil }
            } else if c == UInt8(ascii: "."), !seenDot, digits > 0 {
                seenDot = true
            } else {
                return nil
            }
            bytes.formIndex(after: &j)
        }
        guard digits > 0, !seenDot || fraction > 0 else { return nil }
        let v = fraction == 0 ? Double(m) : Double(m) / powersOfTen[fraction]
        return negative ? -v : v
    }
}
