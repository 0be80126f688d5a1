import Foundation

/// Fast field access for CSV rows and numeric cells.
public enum CSVLine {
    /// Splits a line on commas. Lines without a quote are split over their UTF-8 bytes
    /// (no per-character work, the common case in device exports); lines with a quote go
    /// through `CSVFields` for RFC 4180 quoting. Fields are trimmed of spaces and tabs.
    /// - Returns: the fields, and whether a quote was left open.
    /// - Complexity: O(n) in the line's UTF-8 length.
    public static func split(_ line: String) -> (fields: [Substring], unterminatedQuote: Bool) {
        let utf8 = line.utf8
        if utf8.contains(UInt8(ascii: "\"")) {
            let parsed = CSVFields(line: line)
            return (parsed.fields.map { Substring($0) }, parsed.unterminatedQuote)
        }
        var fields: [Substring] = []
        fields.reserveCapacity(20)
        var start = utf8.startIndex
        var i = start
        while i != utf8.endIndex {
            if utf8[i] == UInt8(ascii: ",") {
                fields.append(trim(line[start..<i]))
                start = utf8.index(after: i)
            }
            i = utf8.index(after: i)
        }
        fields.append(trim(line[start..<utf8.endIndex]))
        return (fields, false)
    }

    static func trim(_ s: Substring) -> Substring {
        var s = s
        while let f = s.utf8.first, f == 0x20 || f == 0x09 { s = s.dropFirst() }
        while let l = s.utf8.last, l == 0x20 || l == 0x09 { s = s.dropLast() }
        return s
    }

    /// A finite number in a cell: `5.6`, `-3`, `1e2`; a decimal comma (`5,6`) is accepted when
    /// it is the only separator. `nan`, `inf` and anything else give nil.
    public static func number<S: StringProtocol>(_ text: S) -> Double? {
        if let v = Double(text) { return v.isFinite ? v : nil }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let v = Double(trimmed) { return v.isFinite ? v : nil }
        if trimmed.filter({ $0 == "," }).count == 1, !trimmed.contains(".") {
            if let v = Double(trimmed.replacingOccurrences(of: ",", with: ".")) { return v.isFinite ? v : nil }
        }
        return nil
    }
}
