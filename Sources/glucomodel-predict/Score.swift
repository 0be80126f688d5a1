import ArgumentParser
import Foundation
import GlucoModel
import GlucoModelCommandLine

/// Scores (reference, prediction) pairs on the Clarke and Parkes grids.
struct Score: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Score (reference, prediction) pairs on the Clarke and Parkes (type 1 and 2) error grids.",
        discussion: """
            FILE.csv has a header naming the columns 'reference' and 'prediction' (in --units; any order; \
            other columns ignored), or reference_mgdl/prediction_mgdl (or _mmoll) as predict writes them, read in \
            the unit their name says. RMSE, MAE and bias are printed in --units. Writes reference,prediction,clarke,parkes_type1,parkes_type2 per row \
            (empty zones for unscored rows: an empty value, counted as missing without a warning, as predict leaves a \
            reference not yet measured; a value that is not a number, a reference of 0 or less, a prediction \
            below 0, or a value above 1000 mg/dL, each with a warning) to --out or stdout, and prints the zone counts and \
            RMSE/MAE/MARD to stderr when writing rows to stdout, else to stdout.
            """)

    @Option(name: .long, help: "CSV file with 'reference' and 'prediction' columns.")
    var pairs: String

    @Option(name: .long, help: "Where to write the per-row zones (written atomically). Default: stdout.")
    var out: String?

    @Option(name: .long, help: "Print at most this many warnings about bad rows.")
    var maxWarnings = 20

    @OptionGroup var units: GlucoseUnitsOption

    func run() throws {
        var warnings = 0, lines: [Int] = []
        let warn: (ImportIssue) -> Void = { issue in
            warnings += 1
            if let line = issue.location.line, lines.count < 1000 { lines.append(line) }
            if warnings <= maxWarnings { Console.write(issue.description) }
        }
        // A pipe (`<(...)`, /dev/stdin) reached the second of its two reads empty: "the file is empty" (hunt P).
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: pairs, isDirectory: &isFolder), !CohortLoader.isRegularFile(pairs) {
            throw ValidationError("--pairs \(pairs): " + (isFolder.boolValue ? "a folder; give the pairs file"
                : "not a regular file (a pipe or device); the pairs are read twice (first to find the decimal mark): give a file"))
        }
        if let out { try ReadFiles([pairs], role: "the pairs file").check(outputFile: URL(fileURLWithPath: out), option: "--out") }
        let output = try LineOutput(path: out)
        let summary: PairScoreSummary
        do {
            summary = try PairScoring.score(csv: URL(fileURLWithPath: pairs), units: units.unit, writeLine: output.write, warning: warn)
            try output.commit()
        } catch let unopened as FileOpenError {
            // Named: "cannot open the file: no such file" did not say which (review of stop 58).
            output.discard()
            throw InputError(SourceLocation(file: pairs), unopened.description)
        } catch {
            output.discard()
            throw error
        }
        if warnings > maxWarnings {
            // Every row not scored is counted, and the lines of the first thousand named.
            let shown = lines.map(String.init).joined(separator: ", ")
            Console.write("... \(Plural.of(warnings - maxWarnings, "more warning")); "
                + "\(Plural.of(warnings, "row")) not scored in all, at lines \(shown)"
                + (warnings > lines.count ? " and \(warnings - lines.count) more" : ""))
        }
        if out == nil { Console.write(summary.report) } else { print(summary.report) }
        if warnings > 0 { throw ExitCode(RunStatus.partial.rawValue) }
    }
}
