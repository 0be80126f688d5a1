import Dispatch

/// Evaluates programs over rows of a `DataTable`, in batches of rows (4 KB per buffer) that stay in cache,
/// with SIMD kernels, in parallel across programs.
///
/// **Lags.** `lag(x, k)` at row `r` reads row `r - k`, so rows before a program's
/// `maximumLag` cannot be evaluated: callers pass row ranges starting at or after the largest
/// lag their grammar allows (`ErrorFitness` scores a program whose lag reaches before its
/// rows as `.infinity`; the methods here require it).
///
/// **Accuracy.** `+ - * / pdiv aq min max sqrt square neg` follow IEEE arithmetic in `Scalar`
/// exactly as `Operation.apply`; `sin cos exp log` use polynomial approximations
/// (a few ulp, see `_FloatMath`, `_DoubleMath`). Constants are folded in Double
/// (`Program.simplified()`) and then rounded to `Scalar`.
public struct Evaluator<Scalar: EvaluatorScalar>: Sendable {
    public let table: DataTable<Scalar>

    public init(table: DataTable<Scalar>) { self.table = table }

    /// Rows per batch.
    public static var batchSize: Int { _BatchBuffers<Scalar>.batchSize }

    /// The values of `program` on table rows `rows` (one per row, in order).
    /// - Precondition: `rows.lowerBound >= program.maximumLag`; the columns exist.
    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    public func values(of program: Program, rows: Range<Int>) -> [Scalar] {
        let compiled = _CompiledProgram<Scalar>(program)
        let buffers = _BatchBuffers<Scalar>(slots: compiled.slotCount, outputCount: rows.count)
        return Array(buffers.evaluate(compiled, table: table, rows: [rows]))
    }

    /// Evaluates every program on the concatenation of `rows` and hands its values to `body`,
    /// on up to `threads` threads; returns `body`'s results in program order.
    ///
    /// The buffer passed to `body` is reused for the next program on the same thread: do not
    /// let it escape. Results do not depend on `threads`.
    /// - Complexity: O(nodes × rows / threads); allocation per thread, not per program.
    public func map<R: Sendable>(_ programs: [Program], rows: [Range<Int>], threads: Int,
                                 _ body: @Sendable (_ index: Int, _ values: UnsafeBufferPointer<Scalar>) -> R) -> [R] {
        map(programs.map { _CompiledProgram<Scalar>($0) }, rows: rows, threads: threads, body)
    }

    package func map<R: Sendable>(_ programs: [_CompiledProgram<Scalar>], rows: [Range<Int>], threads: Int,
                          _ body: @Sendable (_ index: Int, _ values: UnsafeBufferPointer<Scalar>) -> R) -> [R] {
        map(programs, rows: rows, threads: threads, state: {}) { i, values, _ in body(i, values) }
    }

    /// `map` with a per-worker `State` (scratch memory of the caller) made once per worker.
    func map<R: Sendable, State>(_ programs: [_CompiledProgram<Scalar>], rows: [Range<Int>], threads: Int,
                                 state makeState: @Sendable () -> State,
                                 _ body: @Sendable (_ index: Int, _ values: UnsafeBufferPointer<Scalar>, _ state: inout State) -> R) -> [R] {
        let total = rows.reduce(0) { $0 + $1.count }
        let table = self.table
        let slots = programs.map(\.slotCount).max() ?? 1
        return _parallelMap(count: programs.count, threads: threads) { worker in
            let buffers = _BatchBuffers<Scalar>(slots: slots, outputCount: total)
            var state = makeState()
            worker.forEach { i in body(i, buffers.evaluate(programs[i], table: table, rows: rows), &state) }
        }
    }

    /// The values of every program on `rows`, in parallel.
    public func values(of programs: [Program], rows: Range<Int>, threads: Int) -> [[Scalar]] {
        map(programs, rows: [rows], threads: threads) { _, values in Array(values) }
    }
}

/// The indices one worker of `_parallelMap` handles (`i ≡ worker (mod workers)`), and the
/// sink for their results.
struct _Worker<R> {
    let index: Int, workers: Int, count: Int
    let results: _DisjointResults<R>

    func forEach(_ body: (Int) -> R) {
        for i in stride(from: index, to: count, by: workers) { results.store(body(i), at: i) }
    }
}

/// Per-index results written concurrently by `DispatchQueue.concurrentPerform` workers.
///
/// `@unchecked Sendable` because the writes are disjoint: worker `w` writes only indices
/// `i ≡ w (mod workers)`, each exactly once, and the storage is read only after
/// `concurrentPerform` returned (which orders all writes before the read).
final class _DisjointResults<R>: @unchecked Sendable {
    private let base: UnsafeMutablePointer<R?>
    let count: Int

    init(count: Int) {
        self.count = count
        base = .allocate(capacity: Swift.max(count, 1))
        base.initialize(repeating: nil, count: count)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    func store(_ value: R, at i: Int) { base[i] = value }

    func collect() -> [R] { (0..<count).map { base[$0]! } }
}

/// `body(i)` for every `i` in `0..<count` on up to `threads` workers (1 = on the calling
/// thread), results by index. Each index is computed once, by one worker, so the results do
/// not depend on `threads` when `body` does not.
public func parallelMap<R: Sendable>(count: Int, threads: Int, _ body: @Sendable (Int) -> R) -> [R] {
    _parallelMap(count: count, threads: threads) { worker in worker.forEach(body) }
}

/// Runs `worker` for `threads` workers (1 = on the calling thread) and gathers the results
/// by index.
func _parallelMap<R: Sendable>(count: Int, threads: Int, _ worker: @Sendable (_Worker<R>) -> Void) -> [R] {
    let results = _DisjointResults<R>(count: count)
    let workers = Swift.max(1, Swift.min(threads, count))
    if workers == 1 {
        worker(_Worker(index: 0, workers: 1, count: count, results: results))
    } else {
        DispatchQueue.concurrentPerform(iterations: workers) { w in
            worker(_Worker(index: w, workers: workers, count: count, results: results))
        }
    }
    return results.collect()
}
