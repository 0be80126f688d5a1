import Foundation

/// Fast text for prediction rows: millions of rows a night would spend most of their time in
/// `String(format:)` and `ISO8601DateFormatter`. Both functions give exactly the text those
/// give (they fall back to them where a shortcut could differ).
enum PredictionCSV {
    /// `String(format: "%.<decimals>f", x)` for `decimals` 0 to 3.
    ///
    /// The shortcut rounds `x * 10^decimals` to the nearest integer. It is exact unless the
    /// product lies within 1e-6 of a half (a tie `printf` breaks on the exact binary value),
    /// or is not finite or huge: those go to `String(format:)`.
    static func fixed(_ x: Double, decimals: Int) -> String {
        precondition((0...3).contains(decimals), "0 to 3 decimals")
        let scale = [1.0, 10.0, 100.0, 1000.0][decimals]
        let scaled = x * scale
        guard scaled.isFinite, abs(scaled) < 1e12 else { return String(format: "%.\(decimals)f", x) }
        let fraction = abs(scaled - scaled.rounded(.towardZero))
        guard abs(fraction - 0.5) > 1e-6 else { return String(format: "%.\(decimals)f", x) }
        let n = Int(scaled.rounded())
        if decimals == 0 { return n == 0 && x.sign == .minus ? "-0" : String(n) }
        let sign = n < 0 || (n == 0 && x.sign == .minus) ? "-" : ""
        let m = abs(n), unit = Int(scale)
        let digits = String(m % unit)
        return "\(sign)\(m / unit)." + String(repeating: "0", count: decimals - digits.count) + digits
    }

    /// A glucose in mg/dL as `unit` prints it in a file: converted (`GlucoseUnit.convert`), with
    /// `mgdLDecimals` decimals for mg/dL and one more for mmol/L (`GlucoseUnit.decimals`).
    static func glucose(_ mgdL: Double, _ unit: GlucoseUnit, mgdLDecimals: Int) -> String {
        fixed(unit.convert(mgdL), decimals: unit.decimals(mgdL: mgdLDecimals))
    }

    /// `ISO8601DateFormatter` text (`2026-01-05T08:00:00Z`) of a whole-second instant, from
    /// the proleptic Gregorian calendar (H. Hinnant's `civil_from_days`); other instants go
    /// to the formatter.
    static func iso8601(_ date: Date) -> String {
        let t = date.timeIntervalSince1970
        guard t.rounded() == t, abs(t) < 1e11 else { return date.iso8601 }
        let seconds = Int(t)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let s = seconds - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        guard (0...9999).contains(year) else { return date.iso8601 }
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : String(v) }
        let y = String(year)
        return String(repeating: "0", count: 4 - y.count) + y + "-" + two(month) + "-" + two(day) + "T"
            + two(s / 3600) + ":" + two(s / 60 % 60) + ":" + two(s % 60) + "Z"
    }
}
