import ArgumentParser
import Foundation
import GlucoModel
import GlucoModelCommandLine

/// What the patient's own log says the carb ratio, insulin sensitivity and basal should be.
struct Settings: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a patient's carb ratio, insulin sensitivity and basal against their log (Autotune-style).",
        discussion: """
            Fits the toolkit's effect model (glucose change in 30-minute windows from the insulin absorbed and the \
            carbohydrates appeared) to the last --days days of the log, and prints per setting the current value, the suggestion (at \
            most 20% from the current value per run), the change and the evidence: windows of each kind, the \
            estimate and its 95% band, the fitted deviation. Too little evidence keeps the current value and says \
            so. With --out, writes the suggested settings file (same format; never over --settings or a data file read). \
            Advice for a clinician: see docs/settings.md.
            """)

    @Option(help: "Patient id.")
    var patient: String

    @OptionGroup var input: DataOptions

    @Option(help: "The current settings JSON file (docs/dosing.md).")
    var settings: String

    @Option(help: "Write the suggested settings file here (never over --settings or the data).")
    var out: String?

    enum Format: String, CaseIterable, ExpressibleByArgument { case text, csv }

    @Option(help: "The table as text or csv (docs/settings.md).")
    var format: Format = .text

    @Option(help: "Days of the log to read, up to its newest glucose reading (earlier records still count as insulin and carbohydrates on board).")
    var days: Int = SettingsEstimator.defaultDays

    @OptionGroup var time: TimeZoneOption

    @OptionGroup var units: GlucoseUnitsOption

    func validate() throws {
        // The reason, not the text: it may be an e-mail or a name (hunt N, stop 52: this echoed it).
        do { _ = try PatientID(patient) } catch { throw ValidationError("--patient: \(error)") }
        guard (1...3650).contains(days) else { throw ValidationError("--days: \(days); expected 1 to 3650") }
    }

    func run() throws {
        let id = try PatientID(patient)
        let zone = try time.zone()
        // A store is read for the weeks the estimate covers, not for the whole history.
        let window = HistoryWindow(lookback: SettingsEstimator.lookback(days: days))
        let loaded = try loadPatients(input.source(timeZone: zone, window: window), patient: id, failure: { Console.write($0.description) })
        guard let log = loaded.data(for: id)?.log else {
            throw PredictionError.unknownPatient(id, found: loaded.allPatients, in: input.name)
        }
        let settingsURL = URL(fileURLWithPath: settings)
        if let out {
            var read = loaded.read
            read.add([settings], role: "the current settings file")
            try read.check(outputFile: URL(fileURLWithPath: out), option: "--out")
        }
        let current = try DoseSettings.load(settingsURL)
        let checked = try current.checked(for: id, file: settings)
        let estimate = SettingsEstimator.estimate(log: log, settings: checked, timeZone: zone, days: days)
        if let out {
            try estimate.suggestedSettings(from: current, timeZone: zone).write(to: URL(fileURLWithPath: out), notOver: settingsURL)
        }
        switch format {
        case .text: print(estimate.report(units: units.unit))
        case .csv: print(([SettingsEstimate.csvHeader] + estimate.csvLines).joined(separator: "\n"))
        }
    }
}
