/// `12.3%`, or `n/a` for NaN.
func formatPercent(_ v: Double) -> String {
    v.isNaN ? "n/a" : formatNumber(v, decimals: 1) + "%"
}

/// Fixed-point text with `decimals` digits, `n/a` for NaN, `inf`/`-inf` for infinities.
func formatNumber(_ v: Double, decimals: Int) -> String {
    if v.isNaN { return "n/a" }
    if v.isInfinite { return v > 0 ? "inf" : "-inf" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let r = (abs(v) * scale).rounded()
    guard r < 1e15 else { return String(v) }
    let whole = Int(r) / Int(scale), frac = Int(r) % Int(scale)
    var s = (v < 0 && r != 0 ? "-" : "") + String(whole)
    if decimals > 0 {
        let f = String(frac)
        s += "." + String(repeating: "0", count: decimals - f.count) + f
    }
    return s
}

/// `value` with at most `digits` decimals and no trailing zeros (`0.648`, `1.2`, `30`), `empty` for
/// nil or a value that is not finite: a setting or an amount in a message.
func trimmedNumber(_ value: Double?, _ digits: Int = 3, nil empty: String = "") -> String {
    guard let value, value.isFinite else { return empty }
    var text = String(format: "%.\(digits)f", value)
    if text.contains(".") {
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
    }
    return text == "-0" ? "0" : text
}

/// `v` as `formatNumber` prints it with `decimals` digits, read back (non-finite values as they
/// are): a target is judged on the figure a reader sees beside it (a CV of 36.03 prints 36.0 and
/// meets "<= 36%"), in the report, its cohort index and `metrics` alike.
func printedValue(_ v: Double, decimals: Int) -> Double {
    v.isFinite ? Double(formatNumber(v, decimals: decimals)) ?? v : v
}
