/// An operator of the expression language, with its arity and scalar meaning.
///
/// The scalar definitions here are the reference the vectorised evaluator is tested against.
public enum Operation: UInt8, Sendable, Hashable, CaseIterable, Codable {
    case add, sub, mul
    /// Plain IEEE division: `x / 0` is ±inf or NaN, which the fitness treats as invalid.
    case div
    /// Protected division: `a / b`, or 1 when `|b| < 1e-10` (Koza's convention).
    case protectedDiv
    /// Analytic quotient `a / sqrt(1 + b^2)` (Ni, Drieberg, Rockett 2013).
    case aq
    case min, max
    case sin, cos, exp
    /// `log|x|`, with `log(0)` protected to 0.
    case log
    /// `sqrt(|x|)`.
    case sqrt
    case square
    case neg

    public var arity: Int {
        switch self {
        case .add, .sub, .mul, .div, .protectedDiv, .aq, .min, .max: return 2
        case .sin, .cos, .exp, .log, .sqrt, .square, .neg: return 1
        }
    }

    /// The name used in infix text (`aq(a, b)`, `sin(x)`), or the symbol for `+ - * /`.
    public var name: String {
        switch self {
        case .add: return "+"
        case .sub: return "-"
        case .mul: return "*"
        case .div: return "/"
        case .protectedDiv: return "pdiv"
        case .aq: return "aq"
        case .min: return "min"
        case .max: return "max"
        case .sin: return "sin"
        case .cos: return "cos"
        case .exp: return "exp"
        case .log: return "log"
        case .sqrt: return "sqrt"
        case .square: return "square"
        case .neg: return "-"
        }
    }

    /// Operations written as function calls in infix text.
    public static let functions: [String: Operation] = [
        "pdiv": .protectedDiv, "aq": .aq, "min": .min, "max": .max, "sin": .sin, "cos": .cos,
        "exp": .exp, "log": .log, "sqrt": .sqrt, "square": .square, "sq": .square,
    ]

    /// Threshold below which protected division returns 1.
    public static let protectedDivisionEpsilon = 1e-10

    /// The reference scalar meaning of a binary operation.
    @inlinable
    public func apply(_ a: Double, _ b: Double) -> Double {
        switch self {
        case .add: return a + b
        case .sub: return a - b
        case .mul: return a * b
        case .div: return a / b
        case .protectedDiv: return Swift.abs(b) < Operation.protectedDivisionEpsilon ? 1 : a / b
        case .aq: return a / (1 + b * b).squareRoot()
        case .min: return a.isNaN || b.isNaN ? .nan : Swift.min(a, b)
        case .max: return a.isNaN || b.isNaN ? .nan : Swift.max(a, b)
        default: preconditionFailure("\(self) is unary")
        }
    }

    /// The reference scalar meaning of a unary operation.
    @inlinable
    public func apply(_ a: Double) -> Double {
        switch self {
        case .sin: return _sin(a)
        case .cos: return _cos(a)
        case .exp: return _exp(a)
        case .log: return a == 0 ? 0 : _log(Swift.abs(a))
        case .sqrt: return Swift.abs(a).squareRoot()
        case .square: return a * a
        case .neg: return -a
        default: preconditionFailure("\(self) is binary")
        }
    }
}

/// One step of a postfix program.
public enum Instruction: Sendable, Hashable, Codable {
    /// Push a constant.
    case constant(Double)
    /// Push column `column` at the current row.
    case variable(Int)
    /// Push column `column` at `lag` rows before the current row (`lag >= 1`).
    case lagged(column: Int, lag: Int)
    /// Pop the operands, push the result.
    case operation(Operation)
}

/// A compiled expression: a postfix (reverse Polish) sequence of typed instructions.
///
/// Programs are built from infix text or grammar phenotypes once, and then evaluated
/// many times; they are never re-interpreted from text.
public struct Program: Sendable, Hashable, Codable {
    public var instructions: [Instruction]

    /// Builds a program, checking that the stack discipline is sound.
    /// - Precondition: the instructions leave exactly one value on the stack.
    public init(instructions: [Instruction]) {
        self.instructions = instructions
        precondition(Program.stackEffect(instructions) == 1, "Program: instructions do not form one expression")
    }

    /// A program as read from a file, not yet checked (see `check(columns:)`).
    init(unchecked instructions: [Instruction]) { self.instructions = instructions }

    /// Number of nodes (leaves included).
    public var nodeCount: Int { instructions.count }

    /// The largest lag any instruction reads: the rows before the first evaluable row.
    public var maximumLag: Int {
        instructions.reduce(0) { acc, ins in
            if case let .lagged(_, lag) = ins { return Swift.max(acc, lag) }
            return acc
        }
    }

    /// The columns the program reads.
    public var columnsUsed: Set<Int> {
        var set = Set<Int>()
        for ins in instructions {
            switch ins {
            case let .variable(c): set.insert(c)
            case let .lagged(c, _): set.insert(c)
            default: break
            }
        }
        return set
    }

    /// The deepest the evaluation stack grows.
    public var stackDepth: Int {
        var depth = 0, deepest = 0
        for ins in instructions {
            switch ins {
            case .constant, .variable, .lagged: depth += 1
            case let .operation(op): depth -= op.arity - 1
            }
            deepest = Swift.max(deepest, depth)
        }
        return deepest
    }

    static func stackEffect(_ instructions: [Instruction]) -> Int? {
        var depth = 0
        for ins in instructions {
            switch ins {
            case .constant, .variable, .lagged: depth += 1
            case let .operation(op):
                guard depth >= op.arity else { return nil }
                depth -= op.arity - 1
            }
        }
        return depth
    }

    /// Reference scalar evaluation at one row. `value(column, lag)` returns the column's
    /// value `lag` rows back (lag 0 = the current row).
    ///
    /// Slow and simple on purpose: the vectorised evaluator is tested against it.
    public func evaluate(_ value: (_ column: Int, _ lag: Int) -> Double) -> Double {
        var stack: [Double] = []
        stack.reserveCapacity(stackDepth)
        for ins in instructions {
            switch ins {
            case let .constant(c): stack.append(c)
            case let .variable(c): stack.append(value(c, 0))
            case let .lagged(c, lag): stack.append(value(c, lag))
            case let .operation(op):
                if op.arity == 2 {
                    let b = stack.removeLast(), a = stack.removeLast()
                    stack.append(op.apply(a, b))
                } else {
                    stack.append(op.apply(stack.removeLast()))
                }
            }
        }
        return stack[0]
    }
}
