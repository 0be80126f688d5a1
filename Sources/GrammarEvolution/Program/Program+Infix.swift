extension Program {
    /// Readable infix text, with only the parentheses precedence needs.
    /// The text parses back (`Program(infix:variables:)`) to an equivalent program.
    public func infix(_ variables: VariableNames = .indexed) -> String {
        // Each stack entry: text and its precedence (3 = atom/call, 2 = unary minus, 1 = product, 0 = sum).
        var stack: [(text: String, precedence: Int)] = []
        for ins in instructions {
            switch ins {
            case let .constant(c):
                stack.append((Program.format(c), c.sign == .minus && c.isFinite ? 2 : 3))
            case let .variable(col):
                stack.append((variables.name(of: col), 3))
            case let .lagged(col, lag):
                stack.append(("lag(\(variables.name(of: col)), \(lag))", 3))
            case let .operation(op):
                switch op {
                case .add, .sub:
                    let b = stack.removeLast(), a = stack.removeLast()
                    let right = b.precedence <= 0 || (b.precedence == 2 && op == .sub) ? "(\(b.text))" : b.text
                    let rightText = b.precedence == 2 && op == .add ? "(\(b.text))" : right
                    stack.append(("\(a.text) \(op.name) \(rightText)", 0))
                case .mul, .div:
                    let b = stack.removeLast(), a = stack.removeLast()
                    let left = a.precedence < 1 ? "(\(a.text))" : a.text
                    let right = b.precedence <= 1 || b.precedence == 2 ? "(\(b.text))" : b.text
                    stack.append(("\(left) \(op.name) \(right)", 1))
                case .neg:
                    let a = stack.removeLast()
                    stack.append(("-\(a.precedence < 3 ? "(\(a.text))" : a.text)", 2))
                default:
                    if op.arity == 2 {
                        let b = stack.removeLast(), a = stack.removeLast()
                        stack.append(("\(op.name)(\(a.text), \(b.text))", 3))
                    } else {
                        let a = stack.removeLast()
                        stack.append(("\(op.name)(\(a.text))", 3))
                    }
                }
            }
        }
        return stack.last?.text ?? ""
    }

    /// Shortest decimal text that reads back as the same Double. Non-finite constants (from
    /// folding, e.g. `1 / 0`) print as the parenthesised division that makes them.
    static func format(_ c: Double) -> String {
        if c.isNaN { return "(0 / 0)" }
        if c.isInfinite { return c > 0 ? "(1 / 0)" : "(-1 / 0)" }
        if c == 0, c.sign == .minus { return "-0" }
        if c == c.rounded(), Swift.abs(c) < 1e15 { return String(Int64(c)) }
        return "\(c)"
    }
}

extension Program: CustomStringConvertible {
    public var description: String { infix() }
}
