import ArgumentParser
import Foundation
import GlucoModel
import GlucoModelCommandLine

/// Scores (reference, prediction) pairs on the Clarke and Parkes grids.
struct Score: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Score (reference, prediction) pairs on the Clarke and Parkes (type 1 and 2) error grids.",
        discussion: """
            FILE.csv has a header naming the columns 'reference' and 'prediction' (mg/dL; any order; \
            other columns ignored). Writes reference,prediction,clarke,parkes_type1,parkes_type2 per row \
            (empty zones for unscored rows) to --out or stdout, and prints the zone counts and \
            RMSE/MAE/MARD to stderr when writing rows to stdout, else to stdout.
            """)

    @Option(name: .long, help: "CSV file with 'reference' and 'prediction' columns (mg/dL).")
    var pairs: String

    @Option(name: .long, help: "Where to write the per-row zones (written atomically). Default: stdout.")
    var out: String?

    @Option(name: .long, help: "Print at most this many warnings about bad rows.")
    var maxWarnings = 20

    func run() throws {
        var warnings = 0
        let warn: (ImportIssue) -> Void = { issue in
            warnings += 1
            if warnings <= maxWarnings { Console.write(issue.description) }
        }
        let summary: PairScoreSummary
        if let out {
            let file = try AtomicTextFile(url: URL(fileURLWithPath: out))
            do {
                summary = try PairScoring.score(csv: URL(fileURLWithPath: pairs), writeLine: file.writeLine, warning: warn)
                try file.commit()
            } catch {
                file.discard()
                throw error
            }
        } else {
            var buffer: [UInt8] = []
            summary = try PairScoring.score(csv: URL(fileURLWithPath: pairs), writeLine: { line in
                buffer.append(contentsOf: line.utf8)
                buffer.append(10)
                if buffer.count >= 1 << 20 { FileHandle.standardOutput.write(Data(buffer)); buffer.removeAll(keepingCapacity: true) }
            }, warning: warn)
            FileHandle.standardOutput.write(Data(buffer))
        }
        if warnings > maxWarnings { Console.write("... \(warnings - maxWarnings) more warnings") }
        if out == nil { Console.write(summary.report) } else { print(summary.report) }
    }
}
