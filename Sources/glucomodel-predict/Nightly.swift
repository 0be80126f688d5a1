import ArgumentParser
import Foundation
import GlucoModel
import GlucoModelCommandLine

/// `glucomodel-predict nightly --store FILE --inbox DIR --models DIR --out DIR [--night YYYY-MM-DD] ...`
struct Nightly: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Nightly scoring: import the inbox into the store, predict readings newer than the last scored ones, write predictions, alerts and a summary.",
        discussion: """
            Writes <out>/<night>/predictions/<patient>.csv, alerts/<patient>.csv, the combined predictions.csv and \
            alerts.csv, summary.json, and with --settings dose-audit/<patient>.csv. Safe to re-run (a finished night adds nothing) and to interrupt (the next \
            run completes the work). A second run on the same store while one is running exits at once.
            Exit codes: 0 all done; 1 done with warnings (a patient skipped or a file failed to import); \
            2 failed (nothing could be done, store locked by another run, store unusable).
            """)

    @Option(help: "The store (SQLite file), created if missing.")
    var store: String

    @Option(help: "Folder of new export files (already imported files are skipped by content).")
    var inbox: String

    @Option(help: "The trainer's output folder (or its models/ folder).")
    var models: String

    @Option(help: "Output folder; the night's files go to <out>/<night>/.")
    var out: String

    @Option(help: "The night's label YYYY-MM-DD (default: today in --time-zone).")
    var night: String?

    @Option(help: "Folder of dose settings files <patient>.json: patients with one get a dose audit of the night's meal boluses.")
    var settings: String?

    @Option(help: "Alert when a prediction is below this (mg/dL).")
    var low: Double = 70

    @Option(help: "Alert when a prediction is above this (mg/dL).")
    var high: Double = 250

    @Option(help: "Horizons in minutes, comma-separated (default: every horizon with a model).")
    var horizons: HorizonList?

    @OptionGroup var time: TimeZoneOption

    func validate() throws {
        if let night, !NightlySettings.isNightLabel(night) { throw ValidationError("--night: expected YYYY-MM-DD, got '\(night)'") }
        guard low.isFinite, high.isFinite, low < high else { throw ValidationError("--low must be below --high") }
    }

    func run() throws {
        let zone = try time.zone()
        var settings = NightlySettings(storePath: store, inbox: URL(fileURLWithPath: inbox), modelsFolder: URL(fileURLWithPath: models),
                                       output: URL(fileURLWithPath: out), night: night ?? NightlySettings.nightLabel(Date(), timeZone: zone),
                                       importOptions: ImportOptions(timeZone: zone))
        settings.thresholds = AlertThresholds(low: low, high: high)
        settings.horizons = horizons?.minutes
        let auditor = self.settings.map { DoseAudit.nightlyAuditor(settingsFolder: URL(fileURLWithPath: $0), lowThreshold: low) }
        let outcome = try NightlyScorer(settings: settings, auditor: auditor).run { Console.status($0) }
        print(outcome.summaryLine)
        if outcome.exitCode != 0 { throw ExitCode(outcome.exitCode) }
    }
}
