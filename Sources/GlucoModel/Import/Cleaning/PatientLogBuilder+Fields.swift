import Foundation

/// Field checks shared by the importers: each failure skips the row with a warning that names the
/// file, line, field and what was expected, and is counted by reason: `missing field`,
/// `empty value`, `not a number`, `bad time`, and an out-of-range reason chosen by the importer
/// (`out of range` unless told otherwise).
extension PatientLogBuilder {
    /// A required number within `range`; nil (row skipped) otherwise.
    /// - Parameter expected: what the field holds, for the message, e.g. "insulin units (U)".
    public mutating func number(_ text: String?, at location: SourceLocation, expected: String,
                                range: ClosedRange<Double>, reason: String = "out of range") -> Double? {
        guard let v = anyNumber(text, at: location, expected: expected) else { return nil }
        return value(v, text: text ?? "", in: range, expected: expected, reason: reason, at: location)
    }

    /// The trimmed text of a required field; nil (row skipped as `missing field` or `empty value`) otherwise.
    /// (The messages are made only for a row that is skipped.)
    mutating func required(_ text: String?, at location: SourceLocation, missing: @autoclosure () -> String,
                           empty: @autoclosure () -> String) -> String? {
        guard let text else {
            skip("missing field", at: location, "the field is missing; expected \(missing())")
            return nil
        }
        let t = text.trimmingSpaces()
        guard !t.isEmpty else {
            skip("empty value", at: location, empty())
            return nil
        }
        return t
    }

    /// A required finite number, any value; `expected` is made only for a message (it is interpolated per call).
    mutating func anyNumber(_ text: String?, at location: SourceLocation, expected: @autoclosure () -> String) -> Double? {
        guard let t = required(text, at: location, missing: expected(),
                               empty: "the value is empty; expected \(expected()) (an empty cell is never read as 0)") else { return nil }
        guard let v = NumberText.read(bytes: t.utf8) else {
            return value(nil, text: t, in: -.infinity...(.infinity), expected: expected(), at: location)
        }
        return v
    }

    /// An already parsed number (`nil` when `text` did not parse, `text` nil when the field is
    /// absent) within `range`; nil (row skipped) otherwise.
    public mutating func value(_ v: Double?, text: String?, in range: ClosedRange<Double>, expected: String,
                               reason: String = "out of range", at location: SourceLocation) -> Double? {
        guard let v else {
            guard let text else {
                skip("missing field", at: location, "the field is missing; expected \(expected)")
                return nil
            }
            skip("not a number", at: location, "'\(text.prefix(40))' is not a number; expected \(expected) (use '.' for decimals)")
            return nil
        }
        guard range.contains(v) else {
            skip(reason, at: location,
                 "\(Self.format(v)) is outside the plausible range \(Self.format(range.lowerBound))...\(Self.format(range.upperBound)) for \(expected); skipped")
            return nil
        }
        return v
    }

    /// `value(_:text:in:expected:reason:at:)` at a line and field.
    public mutating func value(_ v: Double?, text: String?, in range: ClosedRange<Double>, unit: String,
                               reason: String, line: Int?, field: String) -> Double? {
        // A value in range needs no `SourceLocation` (made only for the warning).
        if let v, range.contains(v) { return v }
        return value(v, text: text, in: range, expected: unit, reason: reason, at: location(line, field))
    }

    /// A glucose value in `unit` within `ImportLimits.glucoseMgdL` (nil: row skipped).
    public mutating func glucose(_ v: Double?, text: String?, unit: GlucoseUnit, reason: String = "out of range",
                                 at location: SourceLocation) -> GlucoseValue? {
        guard let v else {
            guard let text else {
                skip("missing field", at: location, "the field is missing; expected glucose in \(unit.rawValue)")
                return nil
            }
            skip("not a number", at: location, "'\(text.prefix(40))' is not a number; expected glucose in \(unit.rawValue), or Low/High")
            return nil
        }
        countGlucose(v, unit: unit)
        let value = unit.value(v)
        guard ImportLimits.glucoseMgdL.contains(value.mgdL) else {
            let range = unit == .mgdL ? "10...1000 mg/dL" : "0.56...55.5 mmol/L"
            skip(reason, at: location, "\(Self.format(v)) \(unit.rawValue) is outside the plausible range \(range); skipped")
            return nil
        }
        return value
    }

    /// `glucose(_:text:unit:reason:at:)` at a line and field, counted as `glucose out of range`.
    public mutating func glucose(_ v: Double?, text: String?, unit: GlucoseUnit, line: Int?, field: String) -> GlucoseValue? {
        // A value in range needs no `SourceLocation` (made only for the warning).
        if let v, case let value = unit.value(v), ImportLimits.glucoseMgdL.contains(value.mgdL) {
            countGlucose(v, unit: unit)
            return value
        }
        return glucose(v, text: text, unit: unit, reason: "glucose out of range", at: location(line, field))
    }

    /// `Low`/`LO` and `High`/`HI` text: a censored reading at the sensor limit.
    public static func censoring<S: StringProtocol>(_ text: S) -> Censoring? {
        censoring(bytes: text.utf8)
    }

    /// `censoring(_:)` over UTF-8 bytes. Only ASCII letters are folded: no other character
    /// lowercases to the ASCII letters of `low` or `high` (Unicode's one non-ASCII letter that
    /// lowercases to ASCII is the Kelvin sign, to `k`), so this matches `lowercased()` comparison.
    /// - Complexity: O(1): at most 4 bytes are read.
    public static func censoring<C: Collection<UInt8>>(bytes: C) -> Censoring? {
        let n = bytes.count
        guard n >= 2, n <= 4 else { return nil }
        var word: UInt32 = 0
        for b in bytes { word = word << 8 | UInt32(b >= 0x41 && b <= 0x5A ? b | 0x20 : b) }
        switch word {
        case 0x6C6F77, 0x6C6F: return .belowRange  // "low", "lo"
        case 0x6869_6768, 0x6869: return .aboveRange  // "high", "hi"
        default: return nil
        }
    }

    /// The UTF-8 of `text` without leading or trailing spaces and tabs (`trimmingSpaces()` without a copy).
    static func trimmedUTF8(_ text: String) -> Substring.UTF8View {
        var u = text.utf8[...]
        while let f = u.first, f == 0x20 || f == 0x09 { u = u.dropFirst() }
        while let l = u.last, l == 0x20 || l == 0x09 { u = u.dropLast() }
        return u
    }

    /// A glucose value: a number in `unit` within `ImportLimits.glucoseMgdL`, or the text
    /// `Low`/`LO` (kept at 40 mg/dL, censored below range) or `High`/`HI` (400, above range),
    /// counted as adjusted.
    public mutating func glucose(_ text: String?, unit: GlucoseUnit, at location: SourceLocation) -> (GlucoseValue, Censoring?)? {
        if let text, let c = Self.censoring(bytes: Self.trimmedUTF8(text)) {
            summary.adjust(c == .belowRange ? "censored Low kept at 40 mg/dL" : "censored High kept at 400 mg/dL")
            return (c == .belowRange ? Censoring.lowLimit : Censoring.highLimit, c)
        }
        guard let v = anyNumber(text, at: location, expected: "glucose in \(unit.rawValue), or Low/High"),
              let value = glucose(v, text: text ?? "", unit: unit, at: location) else { return nil }
        return (value, nil)
    }

    /// A required time; nil (row skipped, "bad time") when the text does not parse. A time without
    /// an offset is read in `options.timeZone` (`instant(_:)`).
    public mutating func time(_ text: String?, at location: SourceLocation, expected: String,
                              parse: (String) -> WrittenTimestamp?) -> Date? {
        guard let t = required(text, at: location, missing: "a time as \(expected)",
                               empty: "the time is empty; expected \(expected)") else { return nil }
        guard let written = parse(t) else {
            skip("bad time", at: location, "'\(t.prefix(40))' is not a valid time; expected \(expected)")
            return nil
        }
        return instant(written)
    }

    /// Counts one streamed JSON record as read and returns its value; a record that is not valid
    /// JSON is skipped as `malformed JSON record` with a warning naming its line (nil).
    mutating func read(_ element: JSONElementStream.Element) -> JSONValue? {
        summary.rowsRead += 1
        switch element.value {
        case let .failure(f):
            skip("malformed JSON record", line: element.line, field: nil,
                 "\(f.message) (byte \(f.offset) of the record); expected a JSON object")
            return nil
        case let .success(v): return v
        }
    }

    static func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e12 ? String(Int(v)) : String(v)
    }
}
