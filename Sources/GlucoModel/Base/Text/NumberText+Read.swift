/// The one number reader of every importer: decimal text only.
///
/// Accepted: `[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?` (at most 63 characters),
/// whose value must be finite; with `decimalComma`, one `,` in place of the point (`5,6`).
/// Refused, although `Double(String)` reads them: hexadecimal floats (`0x10` is 16, `0x1p7` is
/// 128), `nan`, `inf`, `infinity`, and a finite-looking text that overflows (`1e999`). No export
/// writes those for a glucose value, a dose or a gram count; reading them would import garbage.
public enum NumberText {
    /// The finite value of `text` (spaces and tabs around it ignored), or nil.
    public static func read<S: StringProtocol>(_ text: S, decimalComma: Bool = false) -> Double? {
        var bytes = Array(text.utf8)
        while let f = bytes.first, f == 0x20 || f == 0x09 { bytes.removeFirst() }
        while let l = bytes.last, l == 0x20 || l == 0x09 { bytes.removeLast() }
        return read(bytes: bytes, decimalComma: decimalComma)
    }

    /// The finite value of the UTF-8 `bytes` (no trimming), or nil.
    /// - Complexity: O(n); plain decimals (`120`, `5.5`) are read without making a `String`.
    public static func read<C: Collection<UInt8>>(bytes: C, decimalComma: Bool = false) -> Double? {
        guard !bytes.isEmpty, bytes.count < 64 else { return nil }
        if let v = DecimalBytes.plain(bytes) { return v }
        var text = Array(bytes)
        if decimalComma, !text.contains(UInt8(ascii: ".")), text.count(where: { $0 == UInt8(ascii: ",") }) == 1 {
            text = text.map { $0 == UInt8(ascii: ",") ? UInt8(ascii: ".") : $0 }
        }
        guard isDecimal(text), let v = Double(String(decoding: text, as: UTF8.self)), v.isFinite else { return nil }
        return v
    }

    /// Whether `b` is decimal syntax: sign, digits with at most one point (at least one digit),
    /// then an optional exponent with at least one digit.
    static func isDecimal(_ b: [UInt8]) -> Bool {
        var i = 0
        func digits() -> Int {
            let s = i
            while i < b.count, b[i] &- 0x30 < 10 { i += 1 }
            return i - s
        }
        if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
        var mantissa = digits()
        if i < b.count, b[i] == UInt8(ascii: ".") { i += 1; mantissa += digits() }
        guard mantissa > 0 else { return false }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { return false }
        }
        return i == b.count
    }
}
