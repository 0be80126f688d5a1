/// Why a program read from outside (a file) cannot run.
public enum ProgramCheckError: Error, Equatable, CustomStringConvertible {
    case empty
    /// Instruction `index` (0-based) needs more operands than the stack holds.
    case stackUnderflow(index: Int)
    /// The instructions leave `count` values instead of exactly one.
    case leavesValues(count: Int)
    case columnOutOfRange(index: Int, column: Int, columns: Int)
    case badLag(index: Int, lag: Int, maximum: Int)
    case nonFiniteConstant(index: Int)

    public var description: String {
        switch self {
        case .empty: return "the program has no instructions"
        case let .stackUnderflow(i): return "instruction \(i) has too few operands on the stack"
        case let .leavesValues(n): return "the instructions leave \(n) values on the stack instead of one"
        case let .columnOutOfRange(i, c, n): return "instruction \(i) reads variable x\(c); the table has \(n) (x0..x\(n - 1))"
        case let .badLag(i, lag, m): return "instruction \(i) has lag \(lag); expected 1...\(m)"
        case let .nonFiniteConstant(i): return "instruction \(i) is a constant that is not a finite number"
        }
    }
}

extension Program {
    /// Checks a program that did not come from the parser or the mapper (whose programs are
    /// sound by construction), e.g. one decoded from a file: at least one instruction, finite
    /// constants, variables `0..<columns`, lags `1...maximumLag`, and a stack that never runs
    /// out of operands and ends with exactly one value.
    public func check(columns: Int, maximumLag: Int = 10_000) throws(ProgramCheckError) {
        guard !instructions.isEmpty else { throw .empty }
        var depth = 0
        for (i, ins) in instructions.enumerated() {
            switch ins {
            case let .constant(c):
                guard c.isFinite else { throw .nonFiniteConstant(index: i) }
                depth += 1
            case let .variable(c):
                guard (0..<columns).contains(c) else { throw .columnOutOfRange(index: i, column: c, columns: columns) }
                depth += 1
            case let .lagged(c, lag):
                guard (0..<columns).contains(c) else { throw .columnOutOfRange(index: i, column: c, columns: columns) }
                guard (1...Swift.max(1, maximumLag)).contains(lag) else { throw .badLag(index: i, lag: lag, maximum: maximumLag) }
                depth += 1
            case let .operation(op):
                guard depth >= op.arity else { throw .stackUnderflow(index: i) }
                depth -= op.arity - 1
            }
        }
        guard depth == 1 else { throw .leavesValues(count: depth) }
    }
}
