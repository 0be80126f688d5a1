import ArgumentParser
import GlucoModelCommandLine

/// Trains personal glucose models; also imports data and benchmarks the evaluator.
@main
struct GlucomodelTrain: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "glucomodel-train",
        abstract: "Train a personal glucose-prediction model for every patient.",
        subcommands: [Train.self, Collect.self, ImportData.self, BenchEval.self],
        defaultSubcommand: Train.self)

    static func main() { mainEscapingMessages() }
}
