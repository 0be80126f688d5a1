/// Glucose as a report, table or file prints it. Every printed glucose goes through here, so
/// mmol/L is always `mg/dL / 18.01559` (`GlucoseValue.mmolL`, the one conversion; 18.0156 to
/// the four decimals usually quoted) and never converted twice.
extension GlucoseUnit {
    /// Parses a command-line or configuration name: `mg/dL`, `mgdl`, `mmol/L`, `mmol` (any case).
    public init?(name: String) {
        switch name.lowercased().replacingOccurrences(of: " ", with: "") {
        case "mg/dl", "mgdl", "mg": self = .mgdL
        case "mmol/l", "mmoll", "mmol": self = .mmolL
        default: return nil
        }
    }

    /// A glucose in mg/dL expressed in this unit (NaN stays NaN).
    public func convert(_ mgdL: Double) -> Double {
        switch self {
        case .mgdL: return mgdL
        case .mmolL: return GlucoseValue(mgdL: mgdL).mmolL
        }
    }

    /// Decimals to print a value with, given the mg/dL decimals: mmol/L carries one more
    /// (1 mmol/L is 18 mg/dL, so `142 mg/dL` prints as `7.9 mmol/L`).
    public func decimals(mgdL decimals: Int = 0) -> Int {
        self == .mgdL ? decimals : decimals + 1
    }

    /// The number only: `142` or `7.9`; `n/a` for NaN.
    public func format(_ mgdL: Double, mgdLDecimals: Int = 0) -> String {
        formatNumber(convert(mgdL), decimals: decimals(mgdL: mgdLDecimals))
    }

    /// The number only, never printed as `threshold` unless it is the threshold: a value that
    /// rounds to the threshold's figure gets one more decimal at a time (at most three more),
    /// rounded away from the threshold. A predicted low of 69.6 mg/dL below 70 reads `69.6`, not
    /// `70`; 3.8834 mmol/L below 3.9 reads `3.88`; a high of 250.04 above 250 reads `250.1`.
    public func format(_ mgdL: Double, apartFrom threshold: Double, mgdLDecimals: Int = 0) -> String {
        let d = decimals(mgdL: mgdLDecimals)
        let plain = format(mgdL, mgdLDecimals: mgdLDecimals)
        guard mgdL.isFinite, threshold.isFinite, mgdL != threshold,
              plain == format(threshold, mgdLDecimals: mgdLDecimals) else { return plain }
        let v = convert(mgdL), t = convert(threshold)
        var text = plain
        for extra in 1...3 {
            var scale = 1.0
            for _ in 0..<(d + extra) { scale *= 10 }
            // A hair of slack so a value printed exactly (69.9 is 698.999... tenths) keeps its figure.
            let scaled = mgdL < threshold ? (v * scale + 1e-6).rounded(.down) : (v * scale - 1e-6).rounded(.up)
            text = formatNumber(scaled / scale, decimals: d + extra)
            if text != formatNumber(t, decimals: d + extra) { break }
        }
        return text
    }

    /// With the unit: `142 mg/dL`, `7.9 mmol/L`.
    public func withUnit(_ mgdL: Double, mgdLDecimals: Int = 0) -> String {
        format(mgdL, mgdLDecimals: mgdLDecimals) + " " + rawValue
    }

    /// The suffix of a file's column holding glucose in this unit: `mgdl` or `mmoll`
    /// (`prediction_mgdl`, `prediction_mmoll`; docs/formats.md).
    public var columnSuffix: String { self == .mgdL ? "mgdl" : "mmoll" }

    /// A glucose given in this unit, in mg/dL (the inverse of `convert`).
    public func mgdL(_ value: Double) -> Double { self.value(value).mgdL }

    /// A range of whole mg/dL thresholds: `70-180` or `3.9-10.0`.
    public func range(_ low: Double, _ high: Double) -> String {
        format(low) + "-" + format(high)
    }
}

extension GlucoseUnit {
    /// The smallest printed step: 1 mg/dL or 0.1 mmol/L.
    var step: Double { self == .mgdL ? 1 : 0.1 }

    /// The five consensus ranges as printed in this unit, very low to very high:
    /// `<54, 54-69, 70-180, 181-250, >250` mg/dL; `<3.0, 3.0-3.8, 3.9-10.0, 10.1-13.9, >13.9`
    /// mmol/L. A range's upper end below the next threshold is that threshold less one printed
    /// step, its lower end above a threshold that threshold plus one step.
    public var consensusRanges: [String] {
        let d = decimals()
        func f(_ mgdL: Double) -> String { format(mgdL) }
        func shifted(_ mgdL: Double, _ by: Double) -> String { formatNumber(convert(mgdL) + by, decimals: d) }
        return ["<" + f(54), f(54) + "-" + shifted(70, -step), f(70) + "-" + f(180), shifted(180, step) + "-" + f(250), ">" + f(250)]
    }
}
