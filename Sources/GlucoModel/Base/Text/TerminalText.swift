/// Text from files made safe to print: control characters (C0, DEL, C1, the Unicode line and
/// paragraph separators, and the bidirectional marks, embeddings, overrides and isolates) are
/// written as escapes (`\u{1B}`), so a file cannot move the cursor, clear a terminal, forge a line
/// of output or turn a message's words around (U+202E) through a message that quotes it.
public enum TerminalText {
    /// - Parameter keepingLines: keep line feeds and tabs (for multi-line reports).
    public static func escaped<S: StringProtocol>(_ text: S, keepingLines: Bool = false) -> String {
        let escapes = { (s: Unicode.Scalar) in isControl(s) && !(keepingLines && (s == "\n" || s == "\t")) }
        guard text.unicodeScalars.contains(where: escapes) else { return String(text) }
        var out = ""
        for s in text.unicodeScalars {
            if escapes(s) { out += "\\u{" + String(s.value, radix: 16, uppercase: true) + "}" } else { out.unicodeScalars.append(s) }
        }
        return out
    }

    static func isControl(_ s: Unicode.Scalar) -> Bool {
        s.value < 0x20 || (0x7F...0x9F).contains(s.value) || s.value == 0x2028 || s.value == 0x2029
            || s.value == 0x061C || s.value == 0x200E || s.value == 0x200F || (0x202A...0x202E).contains(s.value)
            || (0x2066...0x2069).contains(s.value)
    }
}
