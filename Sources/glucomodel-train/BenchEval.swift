import ArgumentParser
import Foundation
import GlucoModel
import GlucoModelCommandLine
import GrammarEvolution
import EvaluatorBenchmarking

/// `glucomodel-train bench-eval`: times the batched expression evaluator.
struct BenchEval: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-eval",
        abstract: "Benchmark the expression evaluator (GPops/s = nodes x rows / seconds).")

    @Option(help: "File of infix expressions over x0, x1, ... (one per line, # comments).")
    var expressions: String

    @Option(help: "Generate this many random expressions, write them to --expressions, then benchmark them.")
    var generateExpressions: Int?
    @Option(help: "Smallest node count of generated expressions.") var minNodes = 20
    @Option(help: "Largest node count of generated expressions.") var maxNodes = 50
    @Option(help: "Operators of generated expressions, comma-separated.") var operators = "+,-,*,/"

    @Option(help: "Rows of generated data (uniform in [-1, 1]).") var rows: Int?
    @Option(help: "Columns of generated data.") var columns = 8
    @Option(help: "Seed of generated data and expressions.") var seed: UInt64 = 1
    @Option(help: "Headerless CSV of numbers to evaluate on instead of generated data.") var data: String?

    @Option(help: "float or double.") var precision: Precision = .float
    @Option(help: "Threads evaluating programs in parallel.") var threads = 1
    @Option(name: .customLong("repeat"), help: "Timed passes.") var repeats = 5
    @Option(help: "Write each expression's values on the first 1000 rows to this CSV.") var writeValues: String?

    func validate() throws {
        if (rows == nil) == (data == nil) { throw ValidationError("give exactly one of --rows N or --data FILE.csv") }
        if generateExpressions != nil, data != nil { throw ValidationError("--generate-expressions uses generated data (--rows)") }
    }

    func run() throws {
        // A setting no benchmark can run with (--rows 0, --threads 0, an unknown operator) is a usage error.
        do { try benchmark() } catch let error as BenchmarkSettingsError { throw ValidationError(error.description) }
        // A file that cannot be used: its name, line and field, with the file's control characters escaped.
        catch let error as ExpressionFileError { try fail(error) } catch let error as DataTableError { try fail(error) }
    }

    func fail(_ error: any Error) throws -> Never {
        Console.write("Error: \(error)")
        throw ExitCode(RunStatus.failure.rawValue)
    }

    func benchmark() throws {
        if generateExpressions != nil { try ReadFiles().check(outputFile: URL(fileURLWithPath: expressions), option: "--expressions") }
        if let path = writeValues {
            var read = ReadFiles([expressions], role: "the expressions file")
            read.add(data.map { [$0] } ?? [], role: "the data file")
            try read.check(outputFile: URL(fileURLWithPath: path), option: "--write-values")
        }
        let largest = precision == .float ? Double(Float.greatestFiniteMagnitude) : .greatestFiniteMagnitude
        let table = try data.map { try DataTable<Double>(csvFile: $0, largestMagnitude: largest) }
            ?? EvaluatorBenchmark.randomTable(rows: rows ?? 0, columns: columns, seed: seed)
        if let count = generateExpressions {
            let generated = try EvaluatorBenchmark.randomExpressions(
                count: count, minNodes: minNodes, maxNodes: maxNodes,
                operations: EvaluatorBenchmark.operations(operators), columns: table.columnCount, seed: seed)
            try ExpressionFile.write(generated, to: expressions)
        }
        let programs = try ExpressionFile.load(expressions, columns: table.columnCount, rows: table.rowCount)
        let report = try EvaluatorBenchmark.run(programs, table: table, precision: precision, threads: threads, repeats: repeats)
        print(report.text)
        if let path = writeValues {
            try EvaluatorBenchmark.writeValues(programs, table: table, precision: precision, to: path)
            print("values of the first \(Plural.of(Swift.min(1000, report.rows), "row")) written to \(path)")
        }
    }
}

extension Precision: ExpressibleByArgument {}
