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
