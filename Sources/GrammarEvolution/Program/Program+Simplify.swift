extension Program {
    /// The program with every constant subexpression folded: an operation whose operands are
    /// all constants becomes the constant `Operation.apply` gives (in Double, exactly the
    /// reference IEEE result). A subexpression whose value is not finite (`1 / 0`, `0 / 0`) is
    /// kept as it is: a program's constants stay finite, as a model file requires (`check`),
    /// and it computes the same ±inf or NaN when run. Nothing else is rewritten (no algebraic
    /// identities such as `x * 1 = x`, which are not exact for NaN, inf or -0).
    /// - Complexity: O(n).
    public func simplified() -> Program {
        var out: [Instruction] = []
        out.reserveCapacity(instructions.count)
        // For every value on the evaluation stack: its constant value when it is one.
        var constant: [Double?] = []
        for ins in instructions {
            switch ins {
            case let .constant(c):
                out.append(ins)
                constant.append(c)
            case .variable, .lagged:
                out.append(ins)
                constant.append(nil)
            case let .operation(op):
                if op.arity == 2, let b = constant[constant.count - 1], let a = constant[constant.count - 2],
                   case let v = op.apply(a, b), v.isFinite {
                    // Both operands are single constant instructions at the end of `out`.
                    out.removeLast(2)
                    constant.removeLast(2)
                    out.append(.constant(v))
                    constant.append(v)
                } else if op.arity == 1, let a = constant[constant.count - 1], case let v = op.apply(a), v.isFinite {
                    out.removeLast()
                    constant.removeLast()
                    out.append(.constant(v))
                    constant.append(v)
                } else {
                    out.append(ins)
                    constant.removeLast(op.arity)
                    constant.append(nil)
                }
            }
        }
        return Program(instructions: out)
    }
}
