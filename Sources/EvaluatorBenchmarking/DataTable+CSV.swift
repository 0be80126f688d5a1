import Foundation
import GrammarEvolution

extension DataTable {
    /// Reads a headerless CSV of numbers: one row per line (LF or CRLF), fields separated by
    /// commas, the same number of fields on every line; blank lines are skipped. Every field is a
    /// finite decimal number (`1.5`, `-2e-3`; not `nan`, `inf` or hexadecimal `0x10`) of at most
    /// `largestMagnitude` (Float32's range for a benchmark in single precision, where `1e39` would
    /// be infinite). A UTF-8 byte-order mark at the start is skipped. Columns are named `x0, x1, ...`.
    /// - Throws: `DataTableError` naming the file, line and field of the first problem.
    public init(csvFile path: String, largestMagnitude: Double = .greatestFiniteMagnitude) throws(DataTableError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unreadable(file: path, reason: "missing or not readable")
        }
        var text = String(decoding: data, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        var columns: [[Double]] = []
        var lineNumber = 0
        // `isNewline`, not "\n": a Swift string holds a CRLF line end as one character.
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
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
                guard s.allSatisfy({ "0123456789+-.eE".contains($0) }), let v = Double(s), v.isFinite else {
                    throw .notANumber(file: path, line: lineNumber, field: f + 1, text: s)
                }
                // Float32's largest value as its shortest text (`3.4028235e+38`, as --write-values and
                // numpy write it) reads a little above it in Double; it rounds to it, so it is held.
                guard v.magnitude <= largestMagnitude
                        || (largestMagnitude == Double(Float.greatestFiniteMagnitude) && Float(v).isFinite) else {
                    throw .outOfRange(file: path, line: lineNumber, field: f + 1, text: s, largestMagnitude: largestMagnitude)
                }
                columns[f].append(v)
            }
        }
        guard !columns.isEmpty else { throw .empty(file: path) }
        try self.init(columns: columns)
    }
}
