/// A problem in infix expression text, with the character offset where it was found.
public struct ExpressionParseError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public var offset: Int
    public var text: String

    public var description: String { "\(message) at character \(offset + 1) of '\(text)'" }
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
    public init(infix text: String, variables: VariableNames = .indexed) throws {
        var parser = InfixParser(text: text, variables: variables)
        let instructions = try parser.parseAll()
        self.init(instructions: instructions)
    }
}

struct InfixParser {
    let text: String
    let chars: [Character]
    let variables: VariableNames
    var pos = 0
    var out: [Instruction] = []

    init(text: String, variables: VariableNames) {
        self.text = text
        self.chars = Array(text)
        self.variables = variables
    }

    mutating func parseAll() throws -> [Instruction] {
        try parseSum()
        skipSpace()
        if pos < chars.count { throw error("unexpected '\(chars[pos])'") }
        return out
    }

    func error(_ message: String) -> ExpressionParseError {
        ExpressionParseError(message: message, offset: pos, text: text)
    }

    mutating func skipSpace() {
        while pos < chars.count, chars[pos].isWhitespace { pos += 1 }
    }

    mutating func accept(_ c: Character) -> Bool {
        skipSpace()
        if pos < chars.count, chars[pos] == c { pos += 1; return true }
        return false
    }

    mutating func expect(_ c: Character) throws {
        if !accept(c) { throw error(pos < chars.count ? "expected '\(c)' but found '\(chars[pos])'" : "expected '\(c)' but the text ended") }
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

    mutating func parseUnary() throws {
        if accept("-") {
            try parseUnary()
            if case let .constant(c)? = out.last { out[out.count - 1] = .constant(-c) } else { out.append(.operation(.neg)) }
        } else if accept("+") {
            try parseUnary()
        } else {
            try parsePrimary()
        }
    }

    mutating func parsePrimary() throws {
        skipSpace()
        guard pos < chars.count else { throw error("expected a value but the text ended") }
        let c = chars[pos]
        if c == "(" {
            pos += 1
            try parseSum()
            try expect(")")
        } else if c.isNumber || c == "." {
            out.append(.constant(try parseNumber()))
        } else if c.isLetter || c == "_" {
            let start = pos
            let name = parseName()
            if accept("(") {
                try parseCall(name, at: start)
            } else {
                guard let column = variables.column(named: name) else {
                    pos = start
                    throw error("unknown variable '\(name)'")
                }
                out.append(.variable(column))
            }
        } else {
            throw error("unexpected '\(c)'")
        }
    }

    mutating func parseName() -> String {
        let start = pos
        while pos < chars.count, chars[pos].isLetter || chars[pos].isNumber || chars[pos] == "_" || chars[pos] == "." {
            pos += 1
        }
        return String(chars[start..<pos])
    }

    mutating func parseNumber() throws -> Double {
        let start = pos
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
        guard let value = Double(literal) else {
            pos = start
            throw error("'\(literal)' is not a number")
        }
        return value
    }

    mutating func parseCall(_ name: String, at start: Int) throws {
        if name == "lag" {
            skipSpace()
            let nameStart = pos
            let variable = parseName()
            guard let column = variables.column(named: variable) else {
                pos = nameStart
                throw error("lag needs a variable, found '\(variable)'")
            }
            try expect(",")
            skipSpace()
            let lagStart = pos
            let lag = try parseNumber()
            guard lag >= 0, lag == lag.rounded(), lag <= 100_000 else {
                pos = lagStart
                throw error("lag needs a whole number of rows >= 0")
            }
            try expect(")")
            out.append(lag == 0 ? .variable(column) : .lagged(column: column, lag: Int(lag)))
            return
        }
        guard let op = Operation.functions[name] else {
            pos = start
            throw error("unknown function '\(name)'")
        }
        try parseSum()
        if op.arity == 2 {
            try expect(",")
            try parseSum()
        }
        try expect(")")
        out.append(.operation(op))
    }
}
