/// Text from files made safe to print: control characters (C0, DEL, C1, and the Unicode
/// line and paragraph separators) are written as escapes (`\u{1B}`), so a file cannot move the
/// cursor, clear a terminal or forge a line of output through a message that quotes it.
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
    }
}
