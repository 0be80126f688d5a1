import Foundation
import Testing
@testable import GrammarEvolution
import EvaluatorBenchmarking

@Suite struct EvaluatorBenchmarkTests {
    @Test func expressionFileErrorsNameLineAndColumn() throws {
        let text = "# comment\n\nx0 + sin(x1)\nx0 + * x1\n"
        // Line 4, the '*' is the 6th character.
        #expect(throws: ExpressionFileError.syntax(file: "e.txt", line: 4, column: 6, message: "unexpected '*'")) {
            try ExpressionFile.parse(text, file: "e.txt")
        }
        #expect(throws: ExpressionFileError.unknownColumn(file: "e.txt", line: 1, variable: 8, columns: 8)) {
            try ExpressionFile.parse("x8 * 2", file: "e.txt", columns: 8)
        }
        #expect(throws: ExpressionFileError.empty(file: "e.txt")) { try ExpressionFile.parse("# only\n", file: "e.txt") }
        #expect(try ExpressionFile.parse("# c\n\nx0 + sin(x1)\n", file: "e.txt", columns: 2).count == 1)
    }

    @Test func windowsLineEndsReadAsLines() throws {
        // A CRLF file was one line: "x0 + x1\r\nx0 * 2" failed at the second x0, reported on line 1.
        let programs = try ExpressionFile.parse("# c\r\nx0 + x1\r\n\r\nx0 * 2\r\n", file: "e.txt", columns: 2)
        #expect(programs == [try Program(infix: "x0 + x1"), try Program(infix: "x0 * 2")])
        #expect(throws: ExpressionFileError.syntax(file: "e.txt", line: 3, column: 6, message: "unexpected '*'")) {
            try ExpressionFile.parse("x0\r\nx1\r\nx0 * * x1\r\n", file: "e.txt")
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("crlf-\(UUID().uuidString).csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "1,2\r\n3,4.5\r\n\r\n-6,7e-1\r\n".write(toFile: path, atomically: true, encoding: .utf8)
        let table = try DataTable<Double>(csvFile: path)
        #expect(table.rowCount == 3 && table.columnCount == 2)
        #expect(Array(table.column(0)) == [1, 3, -6] && Array(table.column(1)) == [2, 4.5, 0.7])
        try "1,2\r\n3\r\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: DataTableError.fieldCount(file: path, line: 2, expected: 2, found: 1)) { try DataTable<Double>(csvFile: path) }
    }

    @Test func dataFieldsAreFiniteDecimalNumbers() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("numbers-\(UUID().uuidString).csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        for field in ["nan", "inf", "-infinity", "0x10", "1e999", ""] {
            try "1,2\n3,\(field)\n".write(toFile: path, atomically: true, encoding: .utf8)
            #expect(throws: DataTableError.notANumber(file: path, line: 2, field: 2, text: field)) { try DataTable<Double>(csvFile: path) }
        }
    }

    /// Hunt C (stop 50): in single precision `1e39` became `inf` in every value it touched, without
    /// a word; a spreadsheet's byte-order mark was reported as an invisible "field 1 is '1'".
    @Test func singlePrecisionRangeAndByteOrderMark() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("range-\(UUID().uuidString).csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "1,2\n-1e39,4\n".write(toFile: path, atomically: true, encoding: .utf8)
        let float = Double(Float.greatestFiniteMagnitude)
        #expect(throws: DataTableError.outOfRange(file: path, line: 2, field: 1, text: "-1e39", largestMagnitude: float)) {
            try DataTable<Double>(csvFile: path, largestMagnitude: float)
        }
        #expect(try DataTable<Double>(csvFile: path).column(0)[1] == -1e39)
        // Float32's largest finite value itself is held.
        try "3.4028234663852886e38,1\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try DataTable<Double>(csvFile: path, largestMagnitude: float).rowCount == 1)
        // And as Float32's shortest text writes it, a little above in Double (hunt K, stop 52).
        try "\(Float.greatestFiniteMagnitude),-3.4028235e+38\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try DataTable<Double>(csvFile: path, largestMagnitude: float).rowCount == 1)
        try "3.4028236e+38,1\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: DataTableError.self) { try DataTable<Double>(csvFile: path, largestMagnitude: float) }
        try Data([0xEF, 0xBB, 0xBF] + Array("1,2\n3,4\n".utf8)).write(to: URL(fileURLWithPath: path))
        let table = try DataTable<Double>(csvFile: path)
        #expect(Array(table.column(0)) == [1, 3] && Array(table.column(1)) == [2, 4])
    }

    @Test func lagsMustLeaveARowToEvaluate() throws {
        // lag(x1, 10) on 10 rows left no row and trapped in the evaluator ("rows outside the table").
        #expect(throws: ExpressionFileError.lagBeyondRows(file: "e.txt", line: 2, lag: 10, rows: 10)) {
            try ExpressionFile.parse("x0\nlag(x1, 10) + x0\n", file: "e.txt", columns: 2, rows: 10)
        }
        #expect(try ExpressionFile.parse("x0\nlag(x1, 9)\n", file: "e.txt", columns: 2, rows: 10).count == 2)
        let table = try EvaluatorBenchmark.randomTable(rows: 10, columns: 2, seed: 1)
        let lagged = try Program(infix: "lag(x1, 10)")
        #expect(throws: BenchmarkSettingsError.lagBeyondRows(lag: 10, rows: 10)) {
            try EvaluatorBenchmark.run([lagged], table: table, precision: .double, threads: 1, repeats: 1)
        }
        // lag 9 leaves row 9: one value, x1 of row 0.
        let report = try EvaluatorBenchmark.run([try Program(infix: "lag(x1, 9)")], table: table, precision: .double, threads: 1, repeats: 1)
        #expect(report.rows == 1)
    }

    @Test func settingsAreValidated() throws {
        #expect(throws: BenchmarkSettingsError.notPositive(option: "--rows", value: 0)) {
            try EvaluatorBenchmark.randomTable(rows: 0, columns: 8, seed: 1)
        }
        #expect(throws: BenchmarkSettingsError.nodeRange(minimum: 50, maximum: 20)) {
            try EvaluatorBenchmark.randomExpressions(count: 3, minNodes: 50, maxNodes: 20, operations: [.add], columns: 2, seed: 1)
        }
        // Hunt C: 300-node chains of sin and cos were written over the expression file, then refused on reading it.
        #expect(throws: BenchmarkSettingsError.generatedTooDeep(maximumNodes: 300)) {
            try EvaluatorBenchmark.randomExpressions(count: 2, minNodes: 300, maxNodes: 300, operations: [.sin, .cos], columns: 2, seed: 1)
        }
        #expect(try EvaluatorBenchmark.randomExpressions(count: 2, minNodes: 300, maxNodes: 300, operations: [.add, .mul], columns: 2, seed: 1).count == 2)
        // A chain of 100,000 one-argument operators overflowed the generator's stack (hunt K, stop 52).
        #expect(throws: BenchmarkSettingsError.generatedTooDeep(maximumNodes: 100_000)) {
            try EvaluatorBenchmark.randomExpressions(count: 1, minNodes: 100_000, maxNodes: 100_000, operations: [.sin], columns: 2, seed: 1)
        }
        #expect(throws: BenchmarkSettingsError.unknownOperator("tan")) { try EvaluatorBenchmark.operations("+,tan") }
        // An empty list trapped in the generator (hunt H, stop 51).
        #expect(throws: BenchmarkSettingsError.noOperators) { try EvaluatorBenchmark.operations("") }
        #expect(throws: BenchmarkSettingsError.noOperators) { try EvaluatorBenchmark.operations(",") }
        #expect(try EvaluatorBenchmark.operations("+,-,*,/,aq,sin") == [.add, .sub, .mul, .div, .aq, .sin])
        let table = try! EvaluatorBenchmark.randomTable(rows: 10, columns: 2, seed: 1)
        #expect(throws: BenchmarkSettingsError.notPositive(option: "--threads", value: 0)) {
            try EvaluatorBenchmark.run([Program(instructions: [.variable(0)])], table: table, precision: .float, threads: 0, repeats: 1)
        }
    }

    /// 300 expressions of 20-50 nodes with + - * / only: binary trees have odd sizes, so every
    /// count is odd and in 21...49; generation is reproducible from the seed; data is in [-1, 1].
    @Test func generatorRespectsNodeCountsAndSeed() throws {
        let ops: [GrammarEvolution.Operation] = [.add, .sub, .mul, .div]
        let a = try EvaluatorBenchmark.randomExpressions(count: 300, minNodes: 20, maxNodes: 50, operations: ops, columns: 8, seed: 2)
        let b = try EvaluatorBenchmark.randomExpressions(count: 300, minNodes: 20, maxNodes: 50, operations: ops, columns: 8, seed: 2)
        #expect(a == b)
        #expect(a.allSatisfy { (21...49).contains($0.nodeCount) && $0.nodeCount % 2 == 1 })
        let mixed = try EvaluatorBenchmark.randomExpressions(count: 100, minNodes: 20, maxNodes: 50,
                                                             operations: ops + [.aq, .sin, .exp, .log], columns: 8, seed: 2)
        #expect(mixed.allSatisfy { (20...50).contains($0.nodeCount) })
        // Written and read back as text, the programs keep their values.
        let reread = try ExpressionFile.parse(a.map { $0.infix() }.joined(separator: "\n"), file: "g")
        let value = { (c: Int, _: Int) in Double(c) / 10 - 0.35 }
        #expect(zip(a, reread).allSatisfy { $0.evaluate(value).bitPattern == $1.evaluate(value).bitPattern })
        let table = try EvaluatorBenchmark.randomTable(rows: 1000, columns: 3, seed: 2)
        #expect(table.column(2).allSatisfy { (-1...1).contains($0) })
    }

    @Test func reportAndValuesFile() throws {
        let table = try EvaluatorBenchmark.randomTable(rows: 1200, columns: 2, seed: 1)
        let programs = [try Program(infix: "x0 + x1"), try Program(infix: "lag(x0, 2)")]
        let report = try EvaluatorBenchmark.run(programs, table: table, precision: .double, threads: 1, repeats: 2, referenceRows: 100)
        // 3 + 1 nodes over rows 2..<1200.
        #expect(report.nodes == 4 && report.rows == 1198 && report.seconds.count == 2 && report.referenceRows == 100)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ge-values-\(UInt32.random(in: 0...UInt32.max)).csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try EvaluatorBenchmark.writeValues(programs, table: table, precision: .double, to: path)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1001 && lines[0] == "e1,e2")
        let first = lines[1].split(separator: ",").map { Double($0)! }
        #expect(first == [table[2, 0] + table[2, 1], table[0, 0]])
    }
}
