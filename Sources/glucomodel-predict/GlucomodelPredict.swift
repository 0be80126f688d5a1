import ArgumentParser
import GlucoModelCommandLine

/// Applies trained models: predictions, scoring, CGM metrics, dose suggestions, nightly runs, reports.
@main
struct GlucomodelPredict: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "glucomodel-predict",
        abstract: "Predict glucose with trained models, score predictions, suggest doses, report.",
        subcommands: [Predict.self, Score.self, Metrics.self, Dose.self, Settings.self, Nightly.self, Report.self],
        defaultSubcommand: Predict.self)

    static func main() { mainEscapingMessages() }
}
