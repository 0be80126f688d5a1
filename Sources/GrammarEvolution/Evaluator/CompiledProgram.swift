/// Where a step reads an operand: a scratch batch buffer (`slot`) or a column of the table
/// `lag` rows back, read in place.
@usableFromInline
struct _Operand: Sendable {
    @usableFromInline var isColumn: Bool
    /// Slot index, or column index.
    @usableFromInline var index: Int
    @usableFromInline var lag: Int
}

/// One operation over a batch: `dst = op(a, b)` (`b` unused for unary operations).
@usableFromInline
struct _Step: Sendable {
    @usableFromInline var op: Operation
    /// Slot index, or -1 for the output.
    @usableFromInline var destination: Int
    @usableFromInline var a: _Operand
    @usableFromInline var b: _Operand
}

/// A program lowered for batch evaluation: leaves become operands read in place, constants
/// become batch buffers filled once per program, each operation a step writing a scratch slot
/// (slots are reused as in a stack, but a result never overwrites its own operands).
/// `package`: EvaluatorBenchmarking compiles programs once, outside the timed passes.
@usableFromInline
package struct _CompiledProgram<Scalar: EvaluatorScalar>: Sendable {
    @usableFromInline var steps: [_Step] = []
    /// Constant slots and their values.
    @usableFromInline var constants: [(slot: Int, value: Scalar)] = []
    /// Set when the whole program is one leaf: copied to the output.
    @usableFromInline var leaf: _Operand?
    @usableFromInline var slotCount = 0
    @usableFromInline var maximumLag = 0
    @usableFromInline var maximumColumn = -1

    /// Compiles `program` after folding its constant subexpressions.
    @usableFromInline
    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    package init(_ program: Program) {
        let program = program.simplified()
        maximumLag = program.maximumLag
        var stack: [_Operand] = []
        var free: [Int] = []
        var temporaries = 0
        var constantValues: [Scalar] = []
        func release(_ o: _Operand) { if !o.isColumn, o.index < 1_000_000 { free.append(o.index) } }
        for (i, ins) in program.instructions.enumerated() {
            switch ins {
            case let .constant(c):
                // Constant slots are numbered after the temporaries; offset them for now.
                constantValues.append(Scalar(c))
                stack.append(_Operand(isColumn: false, index: 1_000_000 + constantValues.count - 1, lag: 0))
            case let .variable(c):
                maximumColumn = Swift.max(maximumColumn, c)
                stack.append(_Operand(isColumn: true, index: c, lag: 0))
            case let .lagged(c, lag):
                maximumColumn = Swift.max(maximumColumn, c)
                stack.append(_Operand(isColumn: true, index: c, lag: lag))
            case let .operation(op):
                let b = op.arity == 2 ? stack.removeLast() : _Operand(isColumn: false, index: -1, lag: 0)
                let a = stack.removeLast()
                let isRoot = i == program.instructions.count - 1
                var destination = -1
                // The destination is chosen before the operands' slots are freed, so it never
                // aliases an operand: the compiler's runtime overlap check then always passes
                // and the SIMD loop runs.
                if !isRoot {
                    if let lowest = free.min() {
                        free.remove(at: free.firstIndex(of: lowest)!)
                        destination = lowest
                    } else {
                        destination = temporaries
                        temporaries += 1
                    }
                }
                release(a)
                if op.arity == 2 { release(b) }
                if !isRoot { stack.append(_Operand(isColumn: false, index: destination, lag: 0)) }
                steps.append(_Step(op: op, destination: destination, a: a, b: b))
            }
        }
        if steps.isEmpty { leaf = stack[0] }
        // Renumber constant slots after the temporaries.
        func renumber(_ o: inout _Operand) {
            if !o.isColumn, o.index >= 1_000_000 { o.index = o.index - 1_000_000 + temporaries }
        }
        for s in steps.indices { renumber(&steps[s].a); renumber(&steps[s].b) }
        if leaf != nil { renumber(&leaf!) }
        constants = constantValues.enumerated().map { (temporaries + $0.offset, $0.element) }
        slotCount = temporaries + constantValues.count
    }
}
