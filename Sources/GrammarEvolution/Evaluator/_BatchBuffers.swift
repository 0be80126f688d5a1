/// Scratch memory of one worker thread: `slotCount` batch buffers of `batchSize` scalars and
/// an output buffer for one program's values, allocated once per worker (not per program or
/// batch), 64-byte aligned.
///
/// All unsafe pointer use of the evaluator is in this file. The pointers exist only inside
/// `evaluate` and `run`, and the buffer `evaluate` returns is overwritten by the next call: do
/// not let it escape the caller's closure.
@usableFromInline
final class _BatchBuffers<Scalar: EvaluatorScalar> {
    /// Rows per batch: 4 KB per buffer (1024 Float, 512 Double), so that a program's few
    /// buffers stay in L1/L2 cache while the per-step dispatch is amortised over many rows
    /// (measured 2-4% faster than 256 rows on the bench-eval workload, AMD EPYC with AVX2).
    /// 1 KB on AVX-512 hosts (`GE_AVX512`, Package.swift): on the Intel Xeon measured (48 KB L1)
    /// 1 KB was 6-25 % faster than 4 KB (docs/evaluator.md). Results do not depend on the batch
    /// size.
    #if GE_AVX512
    @usableFromInline static var batchSize: Int { 1024 / MemoryLayout<Scalar>.stride }
    #else
    @usableFromInline static var batchSize: Int { 4096 / MemoryLayout<Scalar>.stride }
    #endif

    private var base: UnsafeMutableRawPointer
    private var slots: Int
    private let output: UnsafeMutablePointer<Scalar>
    private let outputCount: Int

    /// - Parameter outputCount: the most values one `evaluate` call produces.
    @usableFromInline
    init(slots: Int = 8, outputCount: Int) {
        self.slots = Swift.max(slots, 1)
        base = .allocate(byteCount: self.slots * Self.batchSize * MemoryLayout<Scalar>.stride, alignment: 64)
        self.outputCount = outputCount
        output = UnsafeMutableRawPointer
            .allocate(byteCount: Swift.max(outputCount, 1) * MemoryLayout<Scalar>.stride, alignment: 64)
            .bindMemory(to: Scalar.self, capacity: Swift.max(outputCount, 1))
    }

    deinit {
        base.deallocate()
        output.deallocate()
    }

    private func reserve(_ count: Int) {
        guard count > slots else { return }
        base.deallocate()
        slots = count
        base = .allocate(byteCount: slots * Self.batchSize * MemoryLayout<Scalar>.stride, alignment: 64)
    }

    /// The values of `program` on the concatenation of `rows` of `table`, in this object's
    /// output buffer (valid until the next call).
    @usableFromInline
    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func evaluate(_ program: _CompiledProgram<Scalar>, table: DataTable<Scalar>, rows: [Range<Int>]) -> UnsafeBufferPointer<Scalar> {
        var offset = 0
        table.storage.withUnsafeBufferPointer { columns in
            for range in rows {
                precondition(offset + range.count <= outputCount, "evaluator: output buffer too small")
                run(program, columns: columns, rowCount: table.rowCount, rows: range, output: output + offset)
                offset += range.count
            }
        }
        return UnsafeBufferPointer(start: output, count: offset)
    }

    /// Evaluates `program` on table rows `rows`, writing `rows.count` values to `output`.
    /// - Parameters:
    ///   - columns: the table's column-major storage (`rowCount` rows per column), read in place.
    /// - Precondition: `rows.lowerBound >= program.maximumLag`, every column exists.
    /// - Complexity: O(steps × rows), no allocation.
    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    private func run(_ program: _CompiledProgram<Scalar>, columns: UnsafeBufferPointer<Scalar>, rowCount: Int,
             rows: Range<Int>, output: UnsafeMutablePointer<Scalar>) {
        precondition(rows.lowerBound >= program.maximumLag, "evaluator: rows before the largest lag")
        precondition(rows.lowerBound >= 0 && rows.upperBound <= rowCount, "evaluator: rows outside the table")
        precondition(program.maximumColumn < (rowCount == 0 ? 0 : columns.count / rowCount) || rows.isEmpty,
                     "evaluator: column outside the table")
        reserve(program.slotCount)
        let batch = Self.batchSize
        let scratch = base.bindMemory(to: Scalar.self, capacity: slots * batch)
        for (slot, value) in program.constants {
            (scratch + slot * batch).initialize(repeating: value, count: batch)
        }
        guard let table = columns.baseAddress else { return }
        var start = rows.lowerBound
        while start < rows.upperBound {
            let count = Swift.min(batch, rows.upperBound - start)
            let out = output + (start - rows.lowerBound)
            @inline(__always)
            func pointer(_ o: _Operand) -> UnsafePointer<Scalar> {
                o.isColumn ? table + (o.index * rowCount + start - o.lag) : UnsafePointer(scratch + o.index * batch)
            }
            if let leaf = program.leaf {
                out.update(from: pointer(leaf), count: count)
            }
            for step in program.steps {
                let d = step.destination < 0 ? out : scratch + step.destination * batch
                if step.op.arity == 2 {
                    Self.binary(step.op, d, pointer(step.a), pointer(step.b), count)
                } else {
                    Self.unary(step.op, d, pointer(step.a), count)
                }
            }
            start += count
        }
    }

    /// `d[i] = op(a[i], b[i])` with the reference semantics of `Operation.apply(_:_:)`.
    /// `d` never overlaps `a` or `b` (see `_CompiledProgram`), so the loops run as SIMD code
    /// without the compiler's scalar fallback for overlapping memory.
    @inline(__always)
    static func binary(_ op: Operation, _ d: UnsafeMutablePointer<Scalar>, _ a: UnsafePointer<Scalar>,
                       _ b: UnsafePointer<Scalar>, _ n: Int) {
        switch op {
        case .add: for i in 0..<n { d[i] = a[i] + b[i] }
        case .sub: for i in 0..<n { d[i] = a[i] - b[i] }
        case .mul: for i in 0..<n { d[i] = a[i] * b[i] }
        case .div: for i in 0..<n { d[i] = a[i] / b[i] }
        case .protectedDiv:
            let epsilon = Scalar(Operation.protectedDivisionEpsilon)
            for i in 0..<n { let y = b[i]; d[i] = y.magnitude < epsilon ? 1 : a[i] / y }
        case .aq: for i in 0..<n { let y = b[i]; d[i] = a[i] / (1 + y * y).squareRoot() }
        case .min:
            for i in 0..<n { let x = a[i], y = b[i]; d[i] = x != x || y != y ? x + y : (y < x ? y : x) }
        case .max:
            for i in 0..<n { let x = a[i], y = b[i]; d[i] = x != x || y != y ? x + y : (y > x ? y : x) }
        default: preconditionFailure("\(op) is unary")
        }
    }

    /// `d[i] = op(a[i])` with the semantics of `Operation.apply(_:)` (transcendentals approximated,
    /// see `EvaluatorScalar`).
    @inline(__always)
    static func unary(_ op: Operation, _ d: UnsafeMutablePointer<Scalar>, _ a: UnsafePointer<Scalar>, _ n: Int) {
        switch op {
        case .sin, .cos, .exp, .log: transcendental(op, d, a, n)
        case .sqrt: for i in 0..<n { d[i] = a[i].magnitude.squareRoot() }
        case .square: for i in 0..<n { let x = a[i]; d[i] = x * x }
        case .neg: for i in 0..<n { d[i] = -a[i] }
        default: preconditionFailure("\(op) is binary")
        }
    }

    /// `sin cos exp log` over a batch, out of line: inlined, their dozens of polynomial
    /// coefficients were reloaded into vector registers after every call in `run`'s step loop.
    @inline(never)
    static func transcendental(_ op: Operation, _ d: UnsafeMutablePointer<Scalar>, _ a: UnsafePointer<Scalar>, _ n: Int) {
        switch op {
        case .sin: Scalar._vectorSin(a, d, n)
        case .cos: Scalar._vectorCos(a, d, n)
        case .exp: Scalar._vectorExp(a, d, n)
        case .log: Scalar._vectorLog(a, d, n)
        default: preconditionFailure("\(op) is not transcendental")
        }
    }
}
