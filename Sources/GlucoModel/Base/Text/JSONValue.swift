/// A parsed JSON value. Objects keep their members in file order as a small array
/// (device records have a dozen keys: a linear search beats hashing them).
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public subscript(key: String) -> JSONValue? {
        guard case let .object(members) = self else { return nil }
        for (k, v) in members where k == key { return v }
        return nil
    }

    public var number: Double? { if case let .number(v) = self { return v } else { return nil } }
    public var string: String? { if case let .string(v) = self { return v } else { return nil } }

    /// A number, or a string holding one (some uploaders write `"sgv": "120"`).
    public var numeric: Double? {
        switch self {
        case let .number(v): return v
        case let .string(s): return CSVRow.number(s)
        default: return nil
        }
    }

    /// The value as written, for a message that quotes it (`'abc' is not a number`, as a CSV
    /// cell's text): a string's own characters without quotes, else its JSON (`null`, `true`,
    /// `[...]`, `{...}`). `brief` quotes a string itself: never both.
    public var text: String {
        switch self {
        case let .string(s): return s
        case .array: return "[...]"
        case .object: return "{...}"
        default: return brief
        }
    }

    /// A short text of the value for messages that do not quote it (a string in single quotes, a
    /// whole number as written: `7`, not `7.0`).
    public var brief: String {
        switch self {
        case .null: return "null"
        case let .bool(b): return String(b)
        case let .number(v): return v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
        case let .string(s): return "'" + String(s.prefix(40)) + "'"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.number(x), .number(y)): return x == y
        case let (.string(x), .string(y)): return x == y
        case let (.array(x), .array(y)): return x == y
        case let (.object(x), .object(y)): return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }
}

/// A strict RFC 8259 parser for one value held in memory (one element of a streamed array).
/// Nesting is limited to `maxDepth` so hostile input cannot exhaust the stack.
public struct JSONParser {
    public static let maxDepth = 64

    public struct Failure: Error, Sendable {
        /// Byte offset into the value's text, and what was expected there.
        public var offset: Int
        public var message: String
    }

    let bytes: [UInt8]
    var i = 0

    public static func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        var p = JSONParser(bytes: bytes)
        p.skipSpace()
        let v = try p.value(depth: 0)
        p.skipSpace()
        guard p.i == bytes.count else { throw Failure(offset: p.i, message: "unexpected text after the value") }
        return v
    }

    mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    func fail(_ message: String) -> Failure { Failure(offset: i, message: message) }

    mutating func value(depth: Int) throws(Failure) -> JSONValue {
        guard depth < JSONParser.maxDepth else { throw fail("nested deeper than \(JSONParser.maxDepth) levels") }
        guard i < bytes.count else { throw fail("expected a value, found the end") }
        switch bytes[i] {
        case UInt8(ascii: "{"):
            i += 1
            var members: [(String, JSONValue)] = []
            members.reserveCapacity(16)  // device records hold about a dozen keys: one allocation, no regrowth
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
            while true {
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a quoted key") }
                let key = try string()
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':' after a key") }
                i += 1
                skipSpace()
                members.append((key, try value(depth: depth + 1)))
                skipSpace()
                guard i < bytes.count else { throw fail("expected ',' or '}', found the end") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
                throw fail("expected ',' or '}'")
            }
        case UInt8(ascii: "["):
            i += 1
            var items: [JSONValue] = []
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            while true {
                skipSpace()
                items.append(try value(depth: depth + 1))
                skipSpace()
                guard i < bytes.count else { throw fail("expected ',' or ']', found the end") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
                throw fail("expected ',' or ']'")
            }
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return .number(try number())
        }
    }

    mutating func literal(_ word: String) throws(Failure) {
        let w = Array(word.utf8)
        guard i + w.count <= bytes.count, bytes[i..<(i + w.count)].elementsEqual(w) else { throw fail("expected \(word)") }
        i += w.count
    }

    mutating func number() throws(Failure) -> Double {
        let start = i
        while i < bytes.count {
            let b = bytes[i]
            guard (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x2B || b == 0x2E || b == 0x65 || b == 0x45 else { break }
            i += 1
        }
        guard i > start, i - start < 64 else { throw Failure(offset: start, message: "expected a value") }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        guard bytes[start] != 0x2B, let v = NumberText.read(bytes: bytes[start..<i]) else {
            throw Failure(offset: start, message: "'\(text)' is not a number")
        }
        // Foundation's decoder, which reads the file next, refuses any other form (.5, 5., 020) and
        // a number that rounds to 0 (1e-400) with "The given data was not valid JSON": no line, no field.
        guard Self.isJSONNumber(bytes[start..<i]) else {
            throw Failure(offset: start, message: "'\(text)' is not a JSON number (digits before and after a point, no leading zeros: 0.5, 20)")
        }
        guard v != 0 || !bytes[start..<i].prefix(while: { $0 != 0x65 && $0 != 0x45 }).contains(where: { $0 >= 0x31 && $0 <= 0x39 }) else {
            throw Failure(offset: start, message: "'\(text)' is too small for a number (below 1e-308)")
        }
        return v
    }

    /// RFC 8259's number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    static func isJSONNumber(_ text: ArraySlice<UInt8>) -> Bool {
        var k = text.startIndex
        func digits() -> Int {
            let from = k
            while k < text.endIndex, text[k] >= 0x30, text[k] <= 0x39 { k += 1 }
            return k - from
        }
        if k < text.endIndex, text[k] == 0x2D { k += 1 }
        guard k < text.endIndex else { return false }
        if text[k] == 0x30 { k += 1 } else if digits() == 0 { return false }
        if k < text.endIndex, text[k] == 0x2E { k += 1; guard digits() > 0 else { return false } }
        if k < text.endIndex, text[k] == 0x65 || text[k] == 0x45 {
            k += 1
            if k < text.endIndex, text[k] == 0x2B || text[k] == 0x2D { k += 1 }
            guard digits() > 0 else { return false }
        }
        return k == text.endIndex
    }

    mutating func string() throws(Failure) -> String {
        i += 1  // opening quote
        let start = i
        while i < bytes.count, bytes[i] != UInt8(ascii: "\""), bytes[i] != UInt8(ascii: "\\"), bytes[i] >= 0x20 { i += 1 }
        guard i < bytes.count else { throw fail("unterminated string") }
        if bytes[i] == UInt8(ascii: "\"") {
            let s = String(decoding: bytes[start..<i], as: UTF8.self)
            i += 1
            return s
        }
        var out = Array(bytes[start..<i])
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") { i += 1; return String(decoding: out, as: UTF8.self) }
            guard b >= 0x20 else { throw fail("control character in a string") }
            if b != UInt8(ascii: "\\") { out.append(b); i += 1; continue }
            i += 1
            guard i < bytes.count else { break }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800..<0xDC00).contains(code), i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") {
                    i += 2
                    let low = try hex4()
                    code = (0xDC00..<0xE000).contains(low) ? 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00) : 0xFFFD
                }
                let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
                out.append(contentsOf: Array(String(scalar).utf8))
            default: throw fail("bad escape in a string")
            }
        }
        throw fail("unterminated string")
    }

    mutating func hex4() throws(Failure) -> UInt32 {
        guard i + 4 <= bytes.count else { throw fail("expected 4 hex digits") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[i]
            let d: UInt32
            switch b {
            case 0x30...0x39: d = UInt32(b - 0x30)
            case 0x41...0x46: d = UInt32(b - 0x41 + 10)
            case 0x61...0x66: d = UInt32(b - 0x61 + 10)
            default: throw fail("expected 4 hex digits")
            }
            v = v * 16 + d
            i += 1
        }
        return v
    }
}
