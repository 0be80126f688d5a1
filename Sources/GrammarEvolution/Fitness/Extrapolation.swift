/// How much a program's values grow just beyond the rows it was fitted on.
///
/// An expression can fit its rows and explode just past them: `exp(x)` scaled by 1e-130 adds
/// nothing while x stays below 300 and thousands at x = 310, which no training or validation error
/// can see. `Extrapolation` stretches every column away from its smallest value on the rows
/// (x → min + stretch · (x − min), over the whole table, so lagged reads see the stretched values too)
/// and compares the program's largest distance from its median on the stretched rows with that on the
/// rows themselves. A polynomial of degree d grows about stretch^d (1.5^4 ≈ 5); an exponential of a
/// column spanning tens of units grows by many orders of magnitude.
public struct Extrapolation: Sendable {
    public let rows: Range<Int>
    public let stretch: Double
    let original: Evaluator<Double>
    let stretched: Evaluator<Double>

    /// - Parameters:
    ///   - rows: the rows the programs were fitted on.
    ///   - stretch: how far beyond them to look (1.5: half the span again above each column's range).
    public init(table: DataTable<Double>, rows: Range<Int>, stretch: Double = 1.5) {
        self.rows = rows.clamped(to: 0..<table.rowCount)
        self.stretch = stretch
        original = Evaluator(table: table)
        var columns: [[Double]] = []
        for c in 0..<table.columnCount {
            let column = Array(table.column(c))
            let low = self.rows.isEmpty ? nil : column[self.rows].filter(\.isFinite).min()
            columns.append(low.map { low in column.map { low + stretch * ($0 - low) } } ?? column)
        }
        stretched = Evaluator(table: DataTable(rowCount: table.rowCount, names: table.names, storage: columns.flatMap { $0 }))
    }

    /// `max |f(x') − m| / max |f(x) − m|` over the rows, `m` the median of `f` on them and `x'` the
    /// stretched rows: 1 for a constant program (0 / 0), `.infinity` when a stretched value is not
    /// finite, when a constant grows, or when the program cannot be evaluated on the rows (its lags
    /// reach before them, or it reads a column the table lacks).
    public func growth(of program: Program) -> Double {
        let usable = Swift.max(rows.lowerBound, program.maximumLag)..<rows.upperBound
        guard !usable.isEmpty, (program.columnsUsed.max() ?? -1) < original.table.columnCount else { return .infinity }
        let here = original.values(of: program, rows: usable), there = stretched.values(of: program, rows: usable)
        guard here.allSatisfy(\.isFinite), there.allSatisfy(\.isFinite) else { return .infinity }
        let sorted = here.sorted()
        let median = sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        let spread = here.reduce(0) { Swift.max($0, abs($1 - median)) }
        let reach = there.reduce(0) { Swift.max($0, abs($1 - median)) }
        if spread == 0 { return reach == 0 ? 1 : .infinity }
        return reach / spread
    }
}
