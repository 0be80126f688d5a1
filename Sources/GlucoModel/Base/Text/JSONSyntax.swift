/// Where a JSON text stops being JSON, as a person finds it in an editor.
public enum JSONSyntax {
    /// The first syntax error of `bytes`: 1-based line and column (in characters) and what was
    /// expected there; nil when the text is valid JSON.
    public static func problem(in bytes: [UInt8]) -> (line: Int, column: Int, message: String)? {
        // Invisible in an editor, where "column 1: expected a value" pointed at a visible '{'.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            return (1, 1, "a byte order mark (BOM) before the JSON, which JSON does not allow: save the file as UTF-8 without BOM")
        }
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            return (1, 1, "UTF-16 text: save the file as UTF-8")
        }
        do {
            _ = try JSONParser.parse(bytes)
            return nil
        } catch {
            let offset = min(error.offset, bytes.count)
            var line = 1, column = 1
            for b in bytes[..<offset] {
                if b == 0x0A { line += 1; column = 1 } else if b & 0xC0 != 0x80 { column += 1 }
            }
            return (line, column, error.message)
        }
    }
}

extension JSONSyntax {
    /// A number as written in a JSON text: its bytes, where it is, and the member name it is the
    /// value of (nil for an array element or a top-level number).
    public struct NumberToken: Sendable, Equatable {
        public var bytes: Range<Int>
        public var line: Int
        public var column: Int
        public var key: String?
    }

    /// The numbers of a valid JSON text, in order (strings are skipped, escapes and all).
    public static func numbers(in bytes: [UInt8]) -> [NumberToken] {
        var out: [NumberToken] = []
        var i = 0, line = 1, lineStart = 0
        var lastString: Range<Int>?  // the last string, a member name when a ':' follows it
        var keyPending = false
        while i < bytes.count {
            let b = bytes[i]
            switch b {
            case UInt8(ascii: "\""):
                let start = i + 1
                i += 1
                while i < bytes.count, bytes[i] != UInt8(ascii: "\"") { i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1 }
                lastString = start..<min(i, bytes.count)
                keyPending = false
                i += 1
            case UInt8(ascii: ":"):
                keyPending = lastString != nil
                i += 1
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = i
                while i < bytes.count, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: ".")
                        || bytes[i] | 0x20 == UInt8(ascii: "e") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { i += 1 }
                let column = String(decoding: bytes[lineStart..<start], as: UTF8.self).count + 1
                let key = keyPending ? lastString.map { String(decoding: bytes[$0], as: UTF8.self) } : nil
                out.append(NumberToken(bytes: start..<i, line: line, column: column, key: key))
                keyPending = false
            case 0x0A:
                line += 1; lineStart = i + 1; i += 1
            case UInt8(ascii: ","), UInt8(ascii: "["), UInt8(ascii: "{"):
                keyPending = false; i += 1
            default:
                i += 1
            }
        }
        return out
    }
}
