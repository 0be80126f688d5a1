import ArgumentParser
import Foundation
import GlucoModel
import GlucoModelCommandLine

/// Suggests an insulin bolus (model-based beside the standard formula), or audits past meal boluses.
struct Dose: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Suggest an insulin bolus for planned carbohydrates, or audit past meal boluses.",
        discussion: """
            Advice for a clinician or a person with diabetes, never an instruction: see docs/dosing.md. \
            Prints the decision (a bolus, no insulin, or a refusal), every reason code, and the numbers \
            used: glucose and its time, insulin on board, carbohydrates, settings, the standard-formula \
            parts, the model-based dose and the predicted glucose per horizon at no insulin and at the \
            suggested dose. --at defaults to the time of the newest record (a glucose reading, a bolus, a \
            meal, a temporary basal, a basal injection), with a note when that is more than 15 minutes before this machine's \
            clock; records after --at are left out (a suggestion as it would have been made then). With --audit, prints one CSV \
            row per meal bolus between --from and --to: the dose the toolkit would have suggested from \
            the data before it, the dose given and the glucose that followed. --units mmol/L gives every glucose \
            (and the ISF) in mmol/L, in the text, the JSON (keys _mmoll) and the audit (columns _mmoll); the \
            settings file stays in mg/dL.
            """)

    @Option(help: "Patient id.")
    var patient: String

    @Option(help: "Models folder (the trainer's --out folder or its models/ subfolder).")
    var models: String?

    @OptionGroup var input: DataOptions

    @Option(help: "Settings JSON file (docs/dosing.md; examples in datasets/settings/).")
    var settings: String

    // `.unconditional`: `--carbs -5` is a number the dose refuses (invalid_carbs), not a missing value.
    @Option(parsing: .unconditional, help: "Planned carbohydrates in grams (0 for a correction only).", transform: DecimalArgument.read)
    var carbs: Double?

    @Option(help: "When the --carbs were eaten, if before --at (same forms as --at, at most 3 h before): a meal eaten at a low and asked about again, as the 'no insulin' advice says. They count as eaten then and not yet covered by insulin.")
    var carbsTime: String?

    @Option(name: .customLong("insulin-on-board"), parsing: .unconditional, help: "Units of insulin on board now, as you know them (a pen's memory), for data with no insulin record at all (a CGM-only export), which is refused without it: 0 when no insulin was taken within the insulin's duration (6 h by default). Counted as given now.", transform: DecimalArgument.read)
    var insulinOnBoard: Double?

    @Option(help: "The moment of the suggestion: ISO 8601 (2026-01-15T07:39:00Z) or 'yyyy-MM-dd HH:mm' in --time-zone (a local time the clock shows twice or skips that night needs its offset). Default: the newest record (glucose, bolus, meal, temporary basal, basal injection).")
    var at: String?

    /// The suggestion as readable text or as the flat dose JSON (docs/dosing.md).
    enum Format: String, CaseIterable, ExpressibleByArgument { case text, json }

    @Option(help: "Output: text or json.")
    var format: Format = .text

    @Option(help: "The dose suggested: model (the model-based dose, default) or formula (the standard calculator). Both are always shown.")
    var method: DoseMethod = .model

    @Flag(help: "Dose with the settings the data supports (the 'settings' subcommand's suggestion from the 28 days of records up to --at) instead of the file's carb ratio, insulin sensitivity and basal. Default: the clinician's settings.")
    var settingsFromData = false

    @Flag(help: "Audit past meal boluses (CSV) instead of suggesting one.")
    var audit = false

    @Option(help: "Audit period start (same forms as --at).")
    var from: String?

    @Option(help: "Audit period end (same forms as --at).")
    var to: String?

    @OptionGroup var time: TimeZoneOption

    @OptionGroup var units: GlucoseUnitsOption

    func validate() throws {
        // The reason, not the text: it may be an e-mail or a name (hunt N, stop 52: this echoed it).
        do { _ = try PatientID(patient) } catch { throw ValidationError("--patient: \(error)") }
        if audit {
            if carbs != nil || at != nil || carbsTime != nil { throw ValidationError("--audit takes --from/--to, not --carbs/--carbs-time/--at") }
            if settingsFromData { throw ValidationError("--settings-from-data goes with a suggestion, not --audit") }
            if insulinOnBoard != nil { throw ValidationError("--insulin-on-board goes with a suggestion, not --audit") }
        } else {
            guard carbs != nil else { throw ValidationError("--carbs is required (0 for a correction only)") }
            if from != nil || to != nil { throw ValidationError("--from/--to go with --audit") }
        }
    }

    func run() throws {
        let id = try PatientID(patient)
        // A store is read for the 14 days before the moment asked about (the audit's --from:
        // `DoseAdvisor.memory`), not for the whole history; --settings-from-data reads the estimate's weeks.
        let moment = try (audit ? from.map { try time.parse($0, option: "--from") } : at.map { try time.parse($0, option: "--at", exact: true) })
        let lookback = settingsFromData ? max(DoseAdvisor.memory, SettingsEstimator.lookback()) : DoseAdvisor.memory
        let window = audit && moment == nil ? nil : HistoryWindow(moment: moment, lookback: lookback)
        let loaded = try loadPatients(input.source(timeZone: time.zone(), window: window), patient: id,
                                      failure: { Console.write($0.description) })
        guard let log = loaded.data(for: id)?.log else {
            throw PredictionError.unknownPatient(id, found: loaded.allPatients, in: input.name)
        }
        var settingsFile = try DoseSettings.load(URL(fileURLWithPath: settings))
        let modelSet = try models.map { try ModelSet.load(URL(fileURLWithPath: $0), patient: id) }
        if audit {
            let checked = try settingsFile.checked(for: id, file: settings)
            let lower = try from.map { try time.parse($0, option: "--from") } ?? .distantPast
            let upper = try to.map { try time.parse($0, option: "--to") } ?? .distantFuture
            guard lower <= upper else { throw ValidationError("--from is after --to") }
            print(DoseAuditRow.csvHeader(units: units.unit))
            let period = DateInterval(start: lower, end: upper)
            for row in DoseAudit.run(log: log, models: modelSet, settings: checked, period: period, timeZone: try time.zone()) {
                print(row.csvLine(units: units.unit))
            }
            DoseAudit.notAuditedNote(DoseAudit.bolusesWithoutCarbs(log, period: period)).map { Console.status("\(id): " + $0) }
            return
        }
        guard log.glucose.last != nil, let newest = log.newestDoseInstant else {
            throw PredictionError.noGlucose(id)
        }
        let asked = moment ?? newest
        // Exported data without --at is a replay of its last moment; said when that is not now.
        if moment == nil, Date().timeIntervalSince(asked) > DoseGuards.maximumGlucoseAge {
            let minutes = Int((Date().timeIntervalSince(asked) / 60).rounded(.down))
            Console.write("note: no --at: the suggestion is for the data's newest record, \(asked.iso8601(in: try time.zone())), "
                + "\(minutes) min before this machine's clock; for a dose now, give --at with the time now")
        }
        // The data's settings are said on standard error, and recorded in the suggestion's reasons.
        var fromData: DoseNote?
        var doubted: DoseRefusal?
        if settingsFromData,
           let suggested = SettingsEstimator.settingsFromData(settingsFile, log: log.recorded(through: asked), timeZone: try time.zone()) {
            let changes = SettingsEstimator.changes(from: settingsFile, to: suggested.settings, units: units.unit)
            doubted = suggested.estimate.unitRefusal(units: units.unit)
            // Refused, no settings are used: the reason says why.
            if doubted == nil { Console.write("settings from data: " + changes + " (glucomodel-predict settings shows the evidence)") }
            fromData = .settingsFromData(changes: changes)
            settingsFile = suggested.settings
        }
        let eaten = try carbsTime.map { try time.parse($0, option: "--carbs-time", exact: true) }
        var suggestion = DoseAdvisor.suggest(log: DoseAdvisor.history(log, at: asked), carbs: carbs ?? 0, carbsTime: eaten, at: asked,
                                             settings: settingsFile, models: modelSet, method: method, timeZone: try time.zone(),
                                             statedInsulinOnBoard: insulinOnBoard, refusing: doubted)
        if doubted == nil, let fromData { suggestion.reasons.append(DoseReason(code: fromData.code, message: fromData.description)) }
        print(format == .json ? try suggestion.json(units: units.unit) : suggestion.report(units: units.unit, timeZone: try time.zone()))
        // A refusal is not a success (3); `no_insulin` is a decision (0).
        if case .refused = suggestion.decision { throw ExitCode(RunStatus.doseRefused.rawValue) }
    }
}
