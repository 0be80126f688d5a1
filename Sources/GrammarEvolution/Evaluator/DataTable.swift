/// A problem building or reading a data table, naming where it is and what was expected.
public enum DataTableError: Error, Equatable, CustomStringConvertible {
    case columnLengthMismatch(column: Int, expected: Int, found: Int)
    case nameCountMismatch(names: Int, columns: Int)
    case unreadable(file: String, reason: String)
    case empty(file: String)
    case fieldCount(file: String, line: Int, expected: Int, found: Int)
    case notANumber(file: String, line: Int, field: Int, text: String)
    /// A finite number the evaluator's precision cannot hold (beyond Float32's 3.4e38).
    case outOfRange(file: String, line: Int, field: Int, text: String, largestMagnitude: Double)
    /// A finite value the table's precision cannot hold (`DataTable<Float>(columns:)` of 1e39):
    /// it would become infinite. `row` and `column` count from 0.
    case valueOutOfRange(column: Int, name: String, row: Int, value: Double, largestMagnitude: Double)
    /// A NaN or infinite value (`DataTable.checkFinite(rows:)`). `row` and `column` count from 0.
    case nonFiniteValue(column: Int, name: String, row: Int, value: Double)

    public var description: String {
        switch self {
        case let .columnLengthMismatch(column, expected, found):
            return "column \(column) has \(found) rows; expected \(expected) like column 0"
        case let .nameCountMismatch(names, columns):
            return "\(names) column names given for \(columns) columns"
        case let .unreadable(file, reason):
            return "\(file): cannot be read (\(reason))"
        case let .empty(file):
            return "\(file): no data rows (expected comma-separated numbers, one row per line)"
        case let .fieldCount(file, line, expected, found):
            return "\(file):\(line): \(found) fields; expected \(expected) like the first row"
        case let .notANumber(file, line, field, text):
            return "\(file):\(line): field \(field) is '\(text)'; expected a decimal number"
        case let .outOfRange(file, line, field, text, largest):
            return "\(file):\(line): field \(field) is '\(text)', beyond the precision's range (at most \(largest) in magnitude; --precision double holds it)"
        case let .valueOutOfRange(column, name, row, value, largest):
            return "column \(column) (\(name)), row \(row): \(value) is beyond the precision's range (at most \(largest) in magnitude); rescale the data or use Double"
        case let .nonFiniteValue(column, name, row, value):
            return "column \(column) (\(name)), row \(row): \(value); expected a finite number (drop or fill missing values, or leave the column out)"
        }
    }
}

/// Column-major numeric data: each column's rows are contiguous, so the evaluator reads
/// variables in place (a leaf of a program is a pointer into its column).
///
/// Row `r` of column `c` is `storage[c * rowCount + r]`. Training and validation sets are
/// row ranges of one table, not copies.
public struct DataTable<Scalar: EvaluatorScalar>: Sendable, Equatable {
    public let rowCount: Int
    public let names: [String]
    @usableFromInline let storage: [Scalar]

    public var columnCount: Int { names.count }

    /// Builds a table from columns of equal length, rounding to `Scalar` (Float64 -> Float32
    /// rounds to nearest). Names default to `x0, x1, ...`.
    ///
    /// A finite value beyond `Scalar`'s range (1e39 in a `DataTable<Float>`) is refused
    /// (`DataTableError.valueOutOfRange`): it became infinite without a word (hunt BV). NaN and
    /// infinite values are kept as they are (the evaluator computes with them, and a column no
    /// program reads may hold them); every program reading one gets a non-finite value, so an
    /// `ErrorFitness` refuses them in the rows it scores. `checkFinite(rows:)` finds them.
    // Specialised so that callers in other modules do not convert element by element through
    // unspecialised generic code (which allocates).
    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    public init(columns: [[Double]], names: [String]? = nil) throws(DataTableError) {
        let rows = columns.first?.count ?? 0
        for (c, column) in columns.enumerated() where column.count != rows {
            throw .columnLengthMismatch(column: c, expected: rows, found: column.count)
        }
        let names = names ?? columns.indices.map { "x\($0)" }
        guard names.count == columns.count else {
            throw .nameCountMismatch(names: names.count, columns: columns.count)
        }
        var storage: [Scalar] = []
        storage.reserveCapacity(rows * columns.count)
        for (c, column) in columns.enumerated() {
            for (r, value) in column.enumerated() {
                let rounded = Scalar(value)
                if value.isFinite, !rounded.isFinite {
                    throw .valueOutOfRange(column: c, name: names[c], row: r, value: value,
                                           largestMagnitude: Double(Scalar.greatestFiniteMagnitude))
                }
                storage.append(rounded)
            }
        }
        self.init(rowCount: rows, names: names, storage: storage)
    }

    /// Throws `DataTableError.nonFiniteValue` for the first NaN or infinite value (by column, then
    /// row) in `rows` (every row when nil). A program reading such a value is not finite there,
    /// so its error is infinite: a missing value in one row leaves its column out of the search.
    public func checkFinite(rows: [Range<Int>]? = nil) throws(DataTableError) {
        let ranges = (rows ?? [0..<rowCount]).map { $0.clamped(to: 0..<rowCount) }
        for c in 0..<columnCount {
            let base = c * rowCount
            for range in ranges {
                for r in range where !storage[base + r].isFinite {
                    throw .nonFiniteValue(column: c, name: names[c], row: r, value: Double(storage[base + r]))
                }
            }
        }
    }

    init(rowCount: Int, names: [String], storage: [Scalar]) {
        precondition(storage.count == rowCount * names.count, "DataTable: storage size")
        self.rowCount = rowCount
        self.names = names
        self.storage = storage
    }

    /// The values of column `c`, contiguous.
    public func column(_ c: Int) -> ArraySlice<Scalar> {
        storage[c * rowCount ..< (c + 1) * rowCount]
    }

    public subscript(row: Int, column: Int) -> Scalar { storage[column * rowCount + row] }

    /// The same table in another precision (Float64 -> Float32 rounds to nearest; a value beyond
    /// Float32's range becomes infinite: build the table with `init(columns:)` to have it refused).
    @_specialize(where Scalar == Double, T == Float)
    @_specialize(where Scalar == Float, T == Double)
    public func converted<T: EvaluatorScalar>(to _: T.Type) -> DataTable<T> {
        DataTable<T>(rowCount: rowCount, names: names, storage: storage.map { T($0) })
    }

    /// Names usable with `Program(infix:variables:)`.
    public var variableNames: VariableNames { VariableNames(names) }
}
