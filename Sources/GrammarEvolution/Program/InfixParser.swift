/// A problem in infix expression text, with the character offset where it was found.
public struct ExpressionParseError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public var offset: Int
    public var text: String

    public var description: String { "\(message) at character \(offset + 1) of '\(excerpt)'" }

    /// Characters of a long text shown either side of the offset (a 200 kB expression file's
    /// message repeated all of it).
    public static let excerptReach = 60

    /// The text, or for a long one the `excerptReach` characters either side of the offset with
    /// "..." for the rest.
    var excerpt: String {
        let chars = Array(text)
        guard chars.count > 2 * Self.excerptReach + 20 else { return text }
        let at = min(max(0, offset), chars.count)
        let from = max(0, at - Self.excerptReach), to = min(chars.count, at + Self.excerptReach)
        return (from > 0 ? "..." : "") + String(chars[from..<to]) + (to < chars.count ? "..." : "")
    }
}

/// How variable names in infix text map to column indices.
public struct VariableNames: Sendable, Equatable {
    /// Column names; index in this array = column index.
    public var names: [String]
    /// When true, any name `x<N>` resolves to column N even if `names` does not list it.
    public var acceptsIndexedX: Bool

    public init(_ names: [String]) {
        self.names = names
        self.acceptsIndexedX = false
    }

    /// Names `x0`, `x1`, ... for any number of columns.
    public static let indexed = VariableNames(names: [], acceptsIndexedX: true)

    init(names: [String], acceptsIndexedX: Bool) {
        self.names = names
        self.acceptsIndexedX = acceptsIndexedX
    }

    public func column(named name: String) -> Int? {
        if let i = names.firstIndex(of: name) { return i }
        if acceptsIndexedX, name.first == "x", let n = Int(name.dropFirst()), n >= 0 { return n }
        return nil
    }

    public func name(of column: Int) -> String {
        column < names.count ? names[column] : "x\(column)"
    }
}

extension Program {
    /// Compiles infix text such as `x0 * x1 + sin(x2) - lag(x0, 3) / 2.5e-1` to a postfix program.
    ///
    /// Grammar: `+ -` < `* /` < unary minus; calls `aq(a, b)`, `pdiv(a, b)`, `min`, `max`,
    /// `sin`, `cos`, `exp`, `log`, `sqrt`, `square`; `lag(name, k)` reads `name` k rows back.
    /// Parentheses and calls nest at most `maximumNesting` (256) deep; deeper text is an
    /// `ExpressionParseError`, so hostile text cannot exhaust the thread's stack.
    public init(infix text: String, variables: VariableNames = .indexed) throws {
        var parser = InfixParser(tokens: InfixLexer.tokens(text), text: text, variables: variables)
        let instructions = try parser.parseAll()
        self.init(instructions: instructions)
    }
}

extension Program {
    /// How deep parentheses and calls may nest in infix text (`Program(infix:variables:)`). The
    /// parser recurses once per level, about 2 KB of stack in a debug build; a grammar's
    /// phenotypes nest a level or two per derivation level, far less than this.
    public static let maximumNesting = 256
}

/// A recursive-descent parser over `InfixToken`s, emitting postfix instructions.
/// It recurses only into parentheses and calls, at most `Program.maximumNesting` deep.
struct InfixParser {
    let tokens: [InfixToken]
    /// The text the tokens came from, for error messages (`""` when they came from a phenotype).
    let text: String
    let variables: VariableNames
    var pos = 0
    var out: [Instruction] = []
    /// Parentheses and calls open around the current token.
    var nesting = 0

    init(tokens: [InfixToken], text: String, variables: VariableNames) {
        self.tokens = tokens
        self.text = text
        self.variables = variables
        out.reserveCapacity(tokens.count)
    }

    mutating func parseAll() throws -> [Instruction] {
        try parseSum()
        if pos < tokens.count { throw error("unexpected '\(tokens[pos].text)'") }
        return out
    }

    /// An error at the current token (or at the end of the text).
    func error(_ message: String) -> ExpressionParseError {
        ExpressionParseError(message: message, offset: pos < tokens.count ? tokens[pos].offset : text.count, text: text)
    }

    mutating func accept(_ c: Character) -> Bool {
        if pos < tokens.count, tokens[pos].isSymbol(c) { pos += 1; return true }
        return false
    }

    mutating func expect(_ c: Character) throws {
        if !accept(c) {
            throw error(pos < tokens.count ? "expected '\(c)' but found '\(tokens[pos].text)'" : "expected '\(c)' but the text ended")
        }
    }

    mutating func parseSum() throws {
        try parseProduct()
        while true {
            if accept("+") { try parseProduct(); out.append(.operation(.add)) }
            else if accept("-") { try parseProduct(); out.append(.operation(.sub)) }
            else { return }
        }
    }

    mutating func parseProduct() throws {
        try parseUnary()
        while true {
            if accept("*") { try parseUnary(); out.append(.operation(.mul)) }
            else if accept("/") { try parseUnary(); out.append(.operation(.div)) }
            else { return }
        }
    }

    /// Signs before a primary, applied innermost first (a minus before a constant folds into it);
    /// a loop, not recursion, so a long run of signs needs no stack.
    mutating func parseUnary() throws {
        var minuses = 0
        while true {
            if accept("-") { minuses += 1 } else if !accept("+") { break }
        }
        try parsePrimary()
        for _ in 0..<minuses {
            if case let .constant(c)? = out.last { out[out.count - 1] = .constant(-c) } else { out.append(.operation(.neg)) }
        }
    }

    /// `body` one nesting level deeper (inside parentheses or a call's arguments).
    mutating func nested(_ body: (inout InfixParser) throws -> Void) throws {
        guard nesting < Program.maximumNesting else {
            throw error("parentheses and calls nest deeper than \(Program.maximumNesting) levels")
        }
        nesting += 1
        try body(&self)
        nesting -= 1
    }

    mutating func parsePrimary() throws {
        guard pos < tokens.count else { throw error("expected a value but the text ended") }
        switch tokens[pos].kind {
        case .symbol("("):
            pos += 1
            try nested { try $0.parseSum() }
            try expect(")")
        case .number, .badNumber:
            out.append(.constant(try parseNumber()))
        case let .name(name):
            pos += 1
            if accept("(") {
                try parseCall(name, at: pos - 2)
            } else {
                guard let column = variables.column(named: name) else {
                    pos -= 1
                    throw error("unknown variable '\(name)'")
                }
                out.append(.variable(column))
            }
        case .symbol:
            throw error("unexpected '\(tokens[pos].text)'")
        }
    }

    mutating func parseNumber() throws -> Double {
        guard pos < tokens.count else { throw error("'' is not a number") }
        switch tokens[pos].kind {
        case let .number(value):
            pos += 1
            return value
        case let .badNumber(literal):
            throw error(Double(literal) != nil ? "'\(literal)' is beyond the range of numbers (about ±1.8e308)" : "'\(literal)' is not a number")
        default:
            throw error("'' is not a number")
        }
    }

    mutating func parseCall(_ name: String, at start: Int) throws {
        if name == "lag" {
            guard pos < tokens.count, case let .name(variable) = tokens[pos].kind, let column = variables.column(named: variable) else {
                throw error("lag needs a variable, found '\(pos < tokens.count ? tokens[pos].text : "")'")
            }
            pos += 1
            try expect(",")
            if pos < tokens.count, tokens[pos].isSymbol("-") { throw error("lag needs a whole number of rows from 0 to 100000, found a negative one") }
            let lag = try parseNumber()
            guard lag >= 0, lag == lag.rounded(), lag <= 100_000 else {
                pos -= 1
                throw error("lag needs a whole number of rows from 0 to 100000, found \(String(format: "%g", lag))")
            }
            try expect(")")
            out.append(lag == 0 ? .variable(column) : .lagged(column: column, lag: Int(lag)))
            return
        }
        guard let op = Operation.functions[name] else {
            pos = start
            throw error("unknown function '\(name)'")
        }
        try nested { parser in
            try parser.parseSum()
            if op.arity == 2 {
                try parser.expect(",")
                try parser.parseSum()
            }
        }
        try expect(")")
        out.append(.operation(op))
    }
}
