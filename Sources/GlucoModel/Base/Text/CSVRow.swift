import Foundation

/// One CSV line split into fields over its UTF-8 bytes: the one CSV splitter of the toolkit
/// (importers, header detection, pair scoring). Fields are compared and parsed as bytes;
/// `String`s are made only on request (`text(_:)`, `fields`).
///
/// Quoting follows RFC 4180: `"a,b"` is one field, `""` inside quotes is a quote. A quote opens a
/// quoted field only at its start (after optional spaces); a quoted field is kept as written,
/// unquoted fields are trimmed of spaces and tabs. A row is one line: an unclosed quote is
/// reported by `unterminatedQuote` (the GlucoModel CSV importer then joins the lines up to the
/// closing quote, a note cell with a line break: `LogCSVState.read`).
/// Splitting on bytes is safe for UTF-8: `,` and `"` never occur inside a multi-byte character.
public struct CSVRow {
    /// The line's bytes (for a line with quotes: the fields unquoted, one after another).
    public private(set) var bytes: [UInt8]
    /// Each field's range in `bytes`.
    public private(set) var ranges: [Range<Int>]
    public private(set) var unterminatedQuote = false

    static let comma = UInt8(ascii: ","), quote = UInt8(ascii: "\"")

    /// - Complexity: O(n) in the line's UTF-8 length.
    public init(_ line: String) { self.init(bytes: line.utf8) }

    /// An empty row, to be filled by `load(_:)`.
    public init() { bytes = []; ranges = [] }

    /// - Complexity: O(n) in `bytes.count`.
    public init<C: Collection<UInt8>>(bytes: C) {
        self.bytes = []
        ranges = []
        ranges.reserveCapacity(20)
        load(bytes)
    }

    /// Splits another line into this row, reusing its storage (no allocation once the row has
    /// held a line as long): the loop form for large files.
    /// - Complexity: O(n) in `line.count`.
    public mutating func load<C: Collection<UInt8>>(_ line: C) {
        bytes.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: line)
        ranges.removeAll(keepingCapacity: true)
        unterminatedQuote = false
        var found = ranges
        ranges = []  // `found` holds the only reference: appending to it does not copy
        let quoted = bytes.withUnsafeBufferPointer { CSVRow.splitUnquoted($0, into: &found) }
        ranges = found
        if quoted {
            ranges.removeAll(keepingCapacity: true)
            splitQuoted()
        }
    }

    /// Appends the trimmed range of each comma-separated field of `line` to `ranges`, in one
    /// pass; stops and returns true at the first quote (the caller then splits the quoted way).
    /// The pointer is only read here and does not escape.
    /// - Complexity: O(n) in `line.count`.
    private static func splitUnquoted(_ line: UnsafeBufferPointer<UInt8>, into ranges: inout [Range<Int>]) -> Bool {
        var start = 0
        for i in 0..<line.count {
            let c = line[i]
            if c == comma {
                ranges.append(trimmed(line, start..<i))
                start = i + 1
            } else if c == quote {
                return true
            }
        }
        ranges.append(trimmed(line, start..<line.count))
        return false
    }

    /// The quoted path: copies each field's unquoted bytes into a new buffer.
    private mutating func splitQuoted() {
        let input = bytes
        var out: [UInt8] = []
        out.reserveCapacity(input.count)
        var start = 0, inQuotes = false, wasQuoted = false, i = 0
        func close() { ranges.append(wasQuoted ? start..<out.count : CSVRow.trimmed(out, start..<out.count)) }
        while i < input.count {
            let c = input[i]
            i += 1
            if inQuotes {
                if c != CSVRow.quote {
                    out.append(c)
                } else if i < input.count, input[i] == CSVRow.quote {
                    out.append(c)
                    i += 1
                } else {
                    inQuotes = false
                }
            } else if c == CSVRow.quote, out[start...].allSatisfy(CSVRow.isSpace) {
                out.removeSubrange(start...)
                inQuotes = true
                wasQuoted = true
            } else if c == CSVRow.comma {
                close()
                start = out.count
                wasQuoted = false
            } else {
                out.append(c)
            }
        }
        close()
        unterminatedQuote = inQuotes
        bytes = out
    }

    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || (0x09...0x0D).contains(b) }

    static func trimmed<C: Collection<UInt8>>(_ b: C, _ r: Range<Int>) -> Range<Int> where C.Index == Int {
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

    /// Field `i` of `line`, trimmed as `load` trims it, found without splitting the rest of the
    /// line: for a pass that reads one column of every row (the date order's). Nil when a quote
    /// comes before the field ends (split the line then) or the line has fewer fields.
    /// - Complexity: O(n) in the bytes up to the field's end.
    public static func unquotedField(_ i: Int, of line: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        var start = line.startIndex, field = 0, j = line.startIndex
        while j < line.endIndex {
            let c = line[j]
            if c == quote { return nil }
            if c == comma {
                if field == i { break }
                field += 1
                start = j + 1
            }
            j += 1
        }
        guard field == i else { return nil }
        return line[trimmed(line, start..<j)]
    }

    public func text(_ i: Int) -> String { String(decoding: self[i], as: UTF8.self) }

    /// Every field as text.
    public var fields: [String] { ranges.indices.map(text) }

    /// Whether field `i` is in the row as written: in a row with an unclosed quote, the quoted
    /// field took the rest of the line, so only the fields before it are.
    public func isIntact(_ i: Int) -> Bool { i >= 0 && i < count - (unterminatedQuote ? 1 : 0) }

    /// The row's text between commas, in every field, trimmed of spaces and quotes: what a row
    /// whose fields cannot be told apart (an unclosed quote, a comma too many) may still say.
    /// The field an unclosed quote opened holds the rest of the line, and is cut at its commas too.
    public var pieces: [String] {
        fields.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \t\"")) }
    }

    /// The places column `i` of a file `header` columns wide may be at in this row: its own, and in
    /// a row wider than the header (a comma too many, as in a decimal comma, shifts the fields
    /// after it) as many more to its right as the row has fields too many.
    public func places(of i: Int, header: Int) -> ClosedRange<Int> { i...(i + max(0, count - header)) }

    /// Whether column `i` of a file `header` columns wide may read `ascii` in a row whose fields
    /// cannot be told apart. When the field at its own place reads one of `known` (the values the
    /// column holds, `ascii` among them), that is taken: the comma too many is after it. Otherwise
    /// at any of its `places`, or in any of the `pieces` when an unclosed quote took one of them.
    public func mayRead(_ i: Int, _ ascii: String, known: [String], header: Int) -> Bool {
        if isIntact(i), let own = known.first(where: { equals(i, $0) }) { return own == ascii }
        let at = places(of: i, header: header)
        return at.contains { isIntact($0) && equals($0, ascii) } || (!at.allSatisfy(isIntact) && pieces.contains(ascii))
    }

    /// Whether field `i` is one or more digits and nothing else (`5` of a decimal comma's `1,5`).
    public func holdsDigits(_ i: Int) -> Bool {
        let f = self[i]
        return !f.isEmpty && f.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// Why the row has too many fields for a file of `header` columns whose rows mostly have
    /// `commonWidth` (`LineReader.commonFieldCount`), as "the header has H" or "the file's rows have
    /// W"; nil when it has not. Too many: a field beyond the header holds something, or the row is
    /// wider than both (a comma too many, as in a decimal comma, even where the field it adds at the
    /// end is empty).
    public func tooWide(header: Int, commonWidth: Int?) -> String? {
        guard count > header else { return nil }
        if (header..<count).contains(where: { !isEmpty($0) }) { return "the header has \(header)" }
        if let width = commonWidth, count > width { return "the file's rows have \(width)" }
        return nil
    }

    /// Whether field `i` is exactly `ascii`.
    public func equals(_ i: Int, _ ascii: String) -> Bool {
        let f = self[i], u = ascii.utf8
        guard f.count == u.count else { return false }
        return u.withContiguousStorageIfAvailable { f.elementsEqual($0) } ?? f.elementsEqual(u)
    }

    /// Field `i` as a finite number (see `CSVRow.number(_:)`); a plain decimal is read from the
    /// bytes (`DecimalBytes.plain`, the same value), anything else through the text.
    public func number(_ i: Int) -> Double? {
        let f = self[i]
        guard !f.isEmpty, f.count < 64 else { return nil }
        if let v = DecimalBytes.plain(f) { return v }
        return CSVRow.number(String(decoding: f, as: UTF8.self))
    }

    /// Field `i` as a finite decimal number (`NumberText`, no decimal comma).
    public func double(_ i: Int) -> Double? {
        NumberText.read(bytes: self[i])
    }

    /// A finite number in a cell: `5.6`, `-3`, `1e2`; a decimal comma (`5,6`) is accepted when
    /// it is the only separator. Hexadecimal floats, `nan`, `inf` and anything else give nil
    /// (`NumberText`, the one reader of every importer).
    public static func number<S: StringProtocol>(_ text: S) -> Double? {
        NumberText.read(text, decimalComma: true)
    }
}

extension String {
    /// The text without leading or trailing spaces and tabs.
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.utf8.first, f == 0x20 || f == 0x09 { s = s.dropFirst() }
        while let l = s.utf8.last, l == 0x20 || l == 0x09 { s = s.dropLast() }
        return String(s)
    }
}
