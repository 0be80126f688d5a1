extension JSONParser {
    /// A top-level object's members with the 1-based line each key is on, so that a settings or
    /// configuration file can name the line of a bad key; nil when the text is valid JSON but not
    /// an object.
    /// - Throws: `Failure` at the first syntax error (`JSONSyntax` turns its offset into a line).
    public static func members(_ bytes: [UInt8]) throws(Failure) -> [(key: String, line: Int, value: JSONValue)]? {
        var p = JSONParser(bytes: bytes)
        p.skipSpace()
        guard p.i < bytes.count, bytes[p.i] == UInt8(ascii: "{") else {
            _ = try parse(bytes)
            return nil
        }
        p.i += 1
        var line = 1, counted = 0
        func lineAt(_ offset: Int) -> Int {
            for b in bytes[counted..<offset] where b == 0x0A { line += 1 }
            counted = offset
            return line
        }
        var members: [(key: String, line: Int, value: JSONValue)] = []
        p.skipSpace()
        if p.i < bytes.count, bytes[p.i] == UInt8(ascii: "}") {
            p.i += 1
        } else {
            while true {
                p.skipSpace()
                guard p.i < bytes.count, bytes[p.i] == UInt8(ascii: "\"") else { throw p.fail("expected a quoted key") }
                let keyLine = lineAt(p.i)
                let key = try p.string()
                p.skipSpace()
                guard p.i < bytes.count, bytes[p.i] == UInt8(ascii: ":") else { throw p.fail("expected ':' after a key") }
                p.i += 1
                p.skipSpace()
                members.append((key, keyLine, try p.value(depth: 1)))
                p.skipSpace()
                guard p.i < bytes.count else { throw p.fail("expected ',' or '}', found the end") }
                if bytes[p.i] == UInt8(ascii: ",") { p.i += 1; continue }
                if bytes[p.i] == UInt8(ascii: "}") { p.i += 1; break }
                throw p.fail("expected ',' or '}'")
            }
        }
        p.skipSpace()
        guard p.i == bytes.count else { throw Failure(offset: p.i, message: "unexpected text after the value") }
        return members
    }
}
