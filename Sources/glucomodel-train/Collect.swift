import ArgumentParser
import Foundation
import GlucoModel
import GlucoModelCommandLine

/// Rebuilds `results.csv` and `summary.html` from every model in an output folder: after the shards
/// of a job array have all finished, or to look at a run again.
struct Collect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rebuild results.csv and summary.html from the models in an output folder and print the summary table.",
        discussion: """
        Model files that cannot be read, and models trained with other options than the rest (two \
        experiments in one folder), are listed on standard error, and so are the patients a run could \
        not train and their missing models: a sharded run's (--shards or --shard) from its reports in \
        OUT/shards/, with the shards that never reported or did not finish (models missing at every \
        horizon any shard trained); an unsharded run's from OUT/run.json. Exit status: 0 when nothing is missing or mixed, 2 when \
        something is (results.csv and summary.html are still rebuilt from the models that can be read), 1 when there is no model at all.
        """)

    @Option(help: "Output folder of one or more training runs (the same --out every shard used).")
    var out: String = "out/train"

    func run() throws {
        let folder = URL(fileURLWithPath: out)
        // A training run's folder has config.json from its start (models/ once a model is
        // trained, shards/ once a task starts): one with none of them is not a run's (usage);
        // a run's that has no model is a failure, below.
        guard ["models", "shards", "config.json"].contains(where: {
            FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).path)
        }) else {
            throw ValidationError("\(out) has no models/ folder or config.json: give the --out folder the trainer wrote to")
        }
        try ReadFiles().check(outputFolder: folder, writing: ["results.csv", "summary.html"], option: "--out")
        let units = try CohortResults.units(of: folder)
        let rows = CohortResults.collect(folder)
        try CohortResults.write(rows, to: folder)
        print(ResultsTable.summary(rows, units: units))
        // The tasks of a job array each drew the summary of the models there when they ended; this
        // one is of them all (until stop 60 collect left the last task's, or none after a failure).
        if !rows.isEmpty { writeResearchSummary(folder, units: units) }
        print("\n\(Plural.of(Set(rows.map(\.patient)).count, "patient")). Results: \(out)/results.csv")
        let completeness: CohortCompleteness
        do { completeness = try CohortCompleteness.check(folder) } catch { throw ValidationError("\(error)") }
        for line in completeness.lines { Console.warn(line) }
        if rows.isEmpty {
            Console.warn("no model in \(out)/models")
            throw ExitCode(RunStatus.failure.rawValue)
        }
        if let closing = completeness.closingLine {
            Console.warn(closing)
            throw ExitCode(RunStatus.partial.rawValue)
        }
    }
}
