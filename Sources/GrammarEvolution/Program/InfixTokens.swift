/// One token of infix expression text, with the character offset where it starts.
///
/// Lexing is separate from parsing so that a GE phenotype can be compiled from its terminals'
/// tokens (lexed once per grammar, see `Mapper`) without joining and re-reading text.
struct InfixToken: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case number(Double)
        /// Digits and dots that do not make a number (e.g. `1.2.3`): an error when parsed.
        case badNumber(String)
        case name(String)
        /// Any other character: `+ - * / ( ) ,` or one the parser will reject.
        case symbol(Character)
    }

    var kind: Kind
    var offset: Int

    func isSymbol(_ c: Character) -> Bool {
        if case let .symbol(s) = kind { return s == c }
        return false
    }

    /// How the token reads in an error message.
    var text: String {
        switch kind {
        case let .number(v): return Program.format(v)
        case let .badNumber(s), let .name(s): return s
        case let .symbol(c): return String(c)
        }
    }
}

enum InfixLexer {
    /// The tokens of `text`. Whitespace separates tokens; a number is digits and dots with an
    /// optional exponent (`2.5e-1`); a name starts with a letter or `_` and goes on with letters,
    /// digits, `_` and `.`; every other character is a symbol of its own.
    static func tokens(_ text: String) -> [InfixToken] {
        let chars = Array(text)
        var tokens: [InfixToken] = []
        var pos = 0
        while pos < chars.count {
            let c = chars[pos]
            if c.isWhitespace { pos += 1; continue }
            let start = pos
            if c.isNumber || c == "." {
                while pos < chars.count, chars[pos].isNumber || chars[pos] == "." { pos += 1 }
                if pos < chars.count, chars[pos] == "e" || chars[pos] == "E" {
                    var p = pos + 1
                    if p < chars.count, chars[p] == "+" || chars[p] == "-" { p += 1 }
                    if p < chars.count, chars[p].isNumber {
                        pos = p
                        while pos < chars.count, chars[pos].isNumber { pos += 1 }
                    }
                }
                let literal = String(chars[start..<pos])
                // A literal beyond Double's range (1e999) reads as infinity: not a number of an expression.
                tokens.append(InfixToken(kind: Double(literal).flatMap { $0.isFinite ? .number($0) : nil } ?? .badNumber(literal), offset: start))
            } else if c.isLetter || c == "_" {
                while pos < chars.count, chars[pos].isLetter || chars[pos].isNumber || chars[pos] == "_" || chars[pos] == "." {
                    pos += 1
                }
                tokens.append(InfixToken(kind: .name(String(chars[start..<pos])), offset: start))
            } else {
                tokens.append(InfixToken(kind: .symbol(c), offset: start))
                pos += 1
            }
        }
        return tokens
    }

    /// The tokens `Program.format(value)` lexes to, without making the text: a negative value
    /// (or -0) is a minus sign before its magnitude, and the parser folds the two back into the
    /// same constant; NaN and infinities are the divisions `format` writes.
    static func tokens(of value: Double) -> [InfixToken] {
        func t(_ k: InfixToken.Kind) -> InfixToken { InfixToken(kind: k, offset: 0) }
        if value.isNaN { return [t(.symbol("(")), t(.number(0)), t(.symbol("/")), t(.number(0)), t(.symbol(")"))] }
        if value.isInfinite {
            return [t(.symbol("("))] + (value < 0 ? [t(.symbol("-"))] : []) + [t(.number(1)), t(.symbol("/")), t(.number(0)), t(.symbol(")"))]
        }
        return value.sign == .minus ? [t(.symbol("-")), t(.number(-value))] : [t(.number(value))]
    }
}
