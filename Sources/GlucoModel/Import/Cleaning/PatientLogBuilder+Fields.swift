import Foundation

/// Field parsing shared by the importers: each failure skips the row with a warning that
/// names the file, line, field and what was expected, and is counted by reason:
/// `missing field`, `empty value`, `not a number`, `out of range`, `bad time`.
extension PatientLogBuilder {
    /// A required number within `range`; nil (row skipped) otherwise.
    /// - Parameter expected: what the field holds, for the message, e.g. "insulin units (U)".
    public mutating func number(_ text: String?, at location: SourceLocation, expected: String,
                                range: ClosedRange<Double>) -> Double? {
        guard let value = numberAllowingAnyValue(text, at: location, expected: expected) else { return nil }
        guard range.contains(value) else {
            skip("out of range", at: location,
                 "\(Self.format(value)) is outside the plausible range \(Self.format(range.lowerBound))...\(Self.format(range.upperBound)) for \(expected); skipped")
            return nil
        }
        return value
    }

    /// A required finite number, any value.
    public mutating func numberAllowingAnyValue(_ text: String?, at location: SourceLocation, expected: String) -> Double? {
        guard let text else {
            skip("missing field", at: location, "the field is missing; expected \(expected)")
            return nil
        }
        let t = text.trimmingSpaces()
        guard !t.isEmpty else {
            skip("empty value", at: location, "the value is empty; expected \(expected) (an empty cell is never read as 0)")
            return nil
        }
        guard let v = Double(t), v.isFinite else {
            skip("not a number", at: location, "'\(t.prefix(40))' is not a number; expected \(expected) (use '.' for decimals)")
            return nil
        }
        return v
    }

    /// A glucose value: a number in `unit` within `ImportLimits.glucoseMgdL`, or the text
    /// `Low`/`LO` (kept at 40 mg/dL, censored below range) or `High`/`HI` (400, above range),
    /// counted as adjusted.
    public mutating func glucose(_ text: String?, unit: GlucoseUnit, at location: SourceLocation) -> (GlucoseValue, Censoring?)? {
        let t = text?.trimmingSpaces().lowercased()
        if t == "low" || t == "lo" {
            summary.adjust("censored Low kept at 40 mg/dL")
            return (Censoring.lowLimit, .belowRange)
        }
        if t == "high" || t == "hi" {
            summary.adjust("censored High kept at 400 mg/dL")
            return (Censoring.highLimit, .aboveRange)
        }
        let expected = "glucose in \(unit.rawValue), or Low/High"
        guard let v = numberAllowingAnyValue(text, at: location, expected: expected) else { return nil }
        let value = unit.value(v)
        guard ImportLimits.glucoseMgdL.contains(value.mgdL) else {
            let range = unit == .mgdL ? "10...1000 mg/dL" : "0.56...55.5 mmol/L"
            skip("out of range", at: location, "\(Self.format(v)) \(unit.rawValue) is outside the plausible range \(range); skipped")
            return nil
        }
        return (value, nil)
    }

    /// A required time; nil (row skipped, "bad time") when the text does not parse.
    public mutating func time(_ text: String?, at location: SourceLocation, expected: String,
                              parse: (String) -> LocalDateTime?) -> Date? {
        guard let text else {
            skip("missing field", at: location, "the field is missing; expected a time as \(expected)")
            return nil
        }
        let t = text.trimmingSpaces()
        guard !t.isEmpty else {
            skip("empty value", at: location, "the time is empty; expected \(expected)")
            return nil
        }
        guard let local = parse(t) else {
            skip("bad time", at: location, "'\(t.prefix(40))' is not a valid time; expected \(expected)")
            return nil
        }
        return local.date(in: options.timeZone)
    }

    static func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e12 ? String(Int(v)) : String(v)
    }
}
