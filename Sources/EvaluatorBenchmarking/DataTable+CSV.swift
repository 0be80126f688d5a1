import Foundation
import GrammarEvolution

extension DataTable {
    /// Reads a headerless CSV of numbers: one row per line, fields separated by commas, the same
    /// number of fields on every line; blank lines are skipped. Columns are named `x0, x1, ...`.
    /// - Throws: `DataTableError` naming the file, line and field of the first problem.
    public init(csvFile path: String) throws(DataTableError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unreadable(file: path, reason: "missing or not readable")
        }
        let text = String(decoding: data, as: UTF8.self)
        var columns: [[Double]] = []
        var lineNumber = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty { continue }
            let fields = trimmed.split(separator: ",", omittingEmptySubsequences: false)
            if columns.isEmpty { columns = Array(repeating: [], count: fields.count) }
            guard fields.count == columns.count else {
                throw .fieldCount(file: path, line: lineNumber, expected: columns.count, found: fields.count)
            }
            for (f, field) in fields.enumerated() {
                let s = field.trimmingCharacters(in: .whitespaces)
                guard let v = Double(s) else {
                    throw .notANumber(file: path, line: lineNumber, field: f + 1, text: s)
                }
                columns[f].append(v)
            }
        }
        guard !columns.isEmpty else { throw .empty(file: path) }
        try self.init(columns: columns)
    }
}
