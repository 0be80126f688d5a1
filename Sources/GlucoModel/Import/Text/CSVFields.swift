/// Splits one CSV line into fields (RFC 4180 quoting: `"a,b"`, `""` for a quote).
/// Fields are trimmed of surrounding spaces. A quoted field spanning lines is not supported
/// (no export format this toolkit reads writes one); an unclosed quote is reported by `unterminatedQuote`.
public struct CSVFields {
    public var fields: [String]
    public var unterminatedQuote: Bool

    public init(line: String, separator: Character = ",") {
        var fields: [String] = []
        var current = ""
        var inQuotes = false
        var wasQuoted = false
        var iterator = line.makeIterator()
        var pending: Character? = nil
        while let c = pending ?? iterator.next() {
            pending = nil
            if inQuotes {
                if c == "\"" {
                    if let n = iterator.next() {
                        if n == "\"" { current.append("\"") } else { inQuotes = false; pending = n }
                    } else { inQuotes = false }
                } else {
                    current.append(c)
                }
            } else if c == "\"" && current.allSatisfy(\.isWhitespace) {
                current = ""
                inQuotes = true
                wasQuoted = true
            } else if c == separator {
                fields.append(wasQuoted ? current : current.trimmingSpaces())
                current = ""
                wasQuoted = false
            } else {
                current.append(c)
            }
        }
        fields.append(wasQuoted ? current : current.trimmingSpaces())
        self.fields = fields
        self.unterminatedQuote = inQuotes
    }
}

extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
