import ArgumentParser
import Foundation
import GlucoModel

/// Rebuilds `results.csv` from every model in an output folder: after the shards of a job array
/// have all finished, or to look at a run again.
struct Collect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rebuild results.csv from the models in an output folder and print the summary table.")

    @Option(help: "Output folder of one or more training runs (the same --out every shard used).")
    var out: String = "out/train"

    func run() throws {
        let folder = URL(fileURLWithPath: out)
        guard FileManager.default.fileExists(atPath: folder.appendingPathComponent("models").path) else {
            throw ValidationError("\(out) has no models/ folder: give the --out folder the trainer wrote to")
        }
        let rows = CohortResults.collect(folder)
        try CohortResults.write(rows, to: folder)
        print(ResultsTable.summary(rows))
        print("\n\(Set(rows.map(\.patient)).count) patients. Results: \(out)/results.csv")
        if rows.isEmpty { throw ExitCode(RunStatus.failure.rawValue) }
    }
}
