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
            A file of the inbox that cannot be imported is moved to <out>/quarantine/ with a .reason.txt beside it. \
            Exit codes: 0 all done; 1 failed (nothing could be done, store unusable); 2 done with warnings \
            (a patient skipped or a file quarantined); 75 store locked by another run. --units mmol/L writes the \
            files' glucose columns in mmol/L (named _mmoll) and reads --low/--high in mmol/L; a night is written in \
            one unit (a run in another unit on the same night folder is refused).
            """)

    @Option(help: "The store (SQLite file), created if missing.")
    var store: String

    @Option(help: "Folder of new export files (already imported files are skipped by content).")
    var inbox: String

    @Option(help: "The trainer's output folder (or its models/ folder).")
    var models: String

    @Option(help: "Output folder; the night's files go to <out>/<night>/.")
    var out: String

    @Flag(help: "Each subfolder of the inbox is a patient: files in <inbox>/<id>/ are patient <id>'s, whatever their names (a Dexcom Clarity export is named after its day). Files directly in the inbox name their patient as without it.")
    var patientFolders = false

    @Option(help: "The night's label YYYY-MM-DD (default: today in --time-zone).")
    var night: String?

    @Option(help: "Folder of dose settings files <patient>.json: patients with one get a dose audit of the night's meal boluses.")
    var settings: String?

    @Option(help: "On nights falling on this day (monday ... sunday), patients with a settings file also get the settings the last 28 days of their log support, in settings-check/<patient>.csv (docs/settings.md). Default: never.")
    var settingsCheckOn: Weekday?

    @Option(help: "Alert when a prediction is below this, in --units (default: 70 mg/dL, 3.89 mmol/L).", transform: DecimalArgument.read)
    var low: Double?

    @Option(help: "Alert when a prediction is above this, in --units (default: 250 mg/dL, 13.88 mmol/L).", transform: DecimalArgument.read)
    var high: Double?

    @Option(parsing: .unconditional, help: "Horizons in minutes, comma-separated (default: every horizon with a model).", transform: HorizonList.read)
    var horizons: HorizonList?

    @Option(name: .customLong("date-order"), help: "Day/month order of the numeric dates of an inbox file whose own dates do not decide it (all its days 1-12): dmy or mdy. Each other file's dates decide its order. Default: such a file is quarantined asking for this.")
    var dateOrder: DateOrder?

    @Option(help: ArgumentHelp("Read an inbox file whose header has these columns as a CSV with them (format csv), as import-data --columns does (a pump's export); every other file is read as its content says.",
                               valueName: "field=column,..."))
    var columns: String?

    @Option(name: .customLong("glucose-units"), help: "Unit of the mapped glucose columns: mg/dL or mmol/L (default: mg/dL).")
    var glucoseUnits: String?

    @Option(name: .customLong("carb-units"), help: "Unit of the mapped carbs column: g, rations (10 g) or exchanges (15 g) (default: g).")
    var carbUnits: String?

    @OptionGroup var time: TimeZoneOption

    @OptionGroup var units: GlucoseUnitsOption

    /// The thresholds in mg/dL: `--low`/`--high` read in `--units`, else the defaults (70 and 250 mg/dL).
    func thresholds() throws -> AlertThresholds {
        do { return try AlertThresholds(low: low, high: high, in: units.unit) } catch { throw ValidationError("\(error)") }
    }

    func validate() throws {
        if let night, !NightlySettings.isNightLabel(night) { throw ValidationError("--night: expected YYYY-MM-DD, got '\(night)'") }
        if settingsCheckOn != nil, settings == nil { throw ValidationError("--settings-check-on needs --settings (the folder of settings files)") }
        _ = try thresholds()
        _ = try ImportReadOptions.mapping(columns, glucoseUnits: glucoseUnits, carbUnits: carbUnits)
    }

    /// The run's settings, its night today in `zone` unless `--night` names it.
    func nightlySettings(zone: TimeZone) throws -> NightlySettings {
        var settings = NightlySettings(storePath: store, inbox: URL(fileURLWithPath: inbox), modelsFolder: URL(fileURLWithPath: models),
                                       output: URL(fileURLWithPath: out), night: night ?? NightlySettings.nightLabel(Date(), timeZone: zone),
                                       importOptions: ImportOptions(timeZone: zone))
        settings.importOptions.undecidedDateOrder = dateOrder
        // The mapping, read and checked as every command reads --columns.
        settings.importOptions.columns = try ImportReadOptions.mapping(columns, glucoseUnits: glucoseUnits, carbUnits: carbUnits)
        settings.thresholds = try thresholds()
        settings.horizons = horizons?.minutes
        settings.patientFolders = patientFolders
        settings.units = units.unit
        return settings
    }

    func run() throws {
        let zone = try time.zone()
        let settings = try nightlySettings(zone: zone)
        let thresholds = settings.thresholds
        let auditor = self.settings.map {
            DoseAudit.nightlyAuditor(settingsFolder: URL(fileURLWithPath: $0), lowThreshold: thresholds.low, units: units.unit,
                                     timeZone: zone)
        }
        var scorer = NightlyScorer(settings: settings, auditor: auditor)
        if let folder = self.settings, let day = settingsCheckOn {
            scorer.settingsChecker = SettingsEstimator.nightlyChecker(settingsFolder: URL(fileURLWithPath: folder), timeZone: zone)
            scorer.settingsCheckDay = day
        }
        let outcome = try scorer.run { Console.status($0) }
        print(outcome.summaryLine)
        if outcome.exitCode != 0 { throw ExitCode(outcome.exitCode) }
    }
}
extension Weekday: ExpressibleByArgument {}
