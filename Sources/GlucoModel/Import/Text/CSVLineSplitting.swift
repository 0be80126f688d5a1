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

/// One CSV line as UTF-8 bytes with its field boundaries: the fast path for large exports
/// (fields are compared and parsed as bytes; `String`s are made only for messages).
/// Lines with a quote are split by `CSVFields` (RFC 4180) and re-encoded, so the API is the same.
public struct CSVByteLine {
    public private(set) var bytes: [UInt8]
    public private(set) var ranges: [Range<Int>]
    public private(set) var unterminatedQuote = false

    /// - Complexity: O(n) in the line's UTF-8 length.
    public init(_ line: String) {
        bytes = Array(line.utf8)
        ranges = []
        ranges.reserveCapacity(20)
        if bytes.contains(UInt8(ascii: "\"")) {
            let parsed = CSVFields(line: line)
            unterminatedQuote = parsed.unterminatedQuote
            bytes = []
            for f in parsed.fields {
                let start = bytes.count
                bytes.append(contentsOf: f.utf8)
                ranges.append(start..<bytes.count)
            }
            return
        }
        var start = 0
        for i in bytes.indices where bytes[i] == UInt8(ascii: ",") {
            ranges.append(CSVByteLine.trimmed(bytes, start..<i))
            start = i + 1
        }
        ranges.append(CSVByteLine.trimmed(bytes, start..<bytes.count))
    }

    static func trimmed(_ b: [UInt8], _ r: Range<Int>) -> Range<Int> {
        var lo = r.lowerBound, hi = r.upperBound
        while lo < hi, b[lo] == 0x20 || b[lo] == 0x09 { lo += 1 }
        while hi > lo, b[hi - 1] == 0x20 || b[hi - 1] == 0x09 { hi -= 1 }
        return lo..<hi
    }

    public var count: Int { ranges.count }

    /// The bytes of field `i`, empty when the row is shorter.
    public subscript(i: Int) -> ArraySlice<UInt8> {
        i >= 0 && i < ranges.count ? bytes[ranges[i]] : []
    }

    public func isEmpty(_ i: Int) -> Bool { self[i].isEmpty }

    public func text(_ i: Int) -> String { String(decoding: self[i], as: UTF8.self) }

    /// Whether field `i` is exactly `ascii`.
    public func equals(_ i: Int, _ ascii: String) -> Bool { self[i].elementsEqual(ascii.utf8) }

    /// Field `i` as a finite number (see `CSVLine.number`).
    public func number(_ i: Int) -> Double? {
        let f = self[i]
        guard !f.isEmpty, f.count < 64 else { return nil }
        return CSVLine.number(String(decoding: f, as: UTF8.self))
    }
}
