import Foundation

extension ReportDoseAudit {
    /// The dose-audit section from the patient's settings file: every meal bolus of `period`
    /// audited with them, or no audit and why (no such file; settings for another patient, or with
    /// a setting missing or implausible) with the number of meal boluses that leaves unaudited.
    /// - Parameters:
    ///   - url: the patient's settings file (`DoseSettings`), which need not exist.
    ///   - models: the patient's models, for the model-based suggestions.
    ///   - units: the unit the settings' glucose figures are printed in.
    ///   - timeZone: the report's clock: the settings' basal schedule runs on it, and the reasons give
    ///     their times on it.
    public static func load(settings url: URL, log: PatientLog, models: ModelSet, period: DateInterval,
                            units: GlucoseUnit = .mgdL, timeZone: TimeZone = .gmt) throws -> ReportDoseAudit {
        let unaudited = DoseAudit.mealBoluses(log, period: period).count
        guard FileManager.default.fileExists(atPath: url.path) else {
            // The file's name only: its folders may name a person (`ReportErrorText`).
            return ReportDoseAudit(withheld: "no dose settings file for this patient (\(url.lastPathComponent))", unaudited: unaudited)
        }
        // A file that cannot be read (broken JSON, a misspelt key) withholds the audit, not the
        // report: the settings feed only the dose sections.
        let settings: DoseSettings
        do { settings = try DoseSettings.load(url) } catch {
            return ReportDoseAudit(withheld: "the settings file cannot be read: \(ReportErrorText.describe(error))", unaudited: unaudited)
        }
        switch settings.checked(for: log.patient) {
        case let .success(checked):
            // On the report's clock: the settings' basal schedule is by the wall clock (net insulin on board).
            let rows = DoseAudit.run(log: log, models: models, settings: checked, period: period, timeZone: timeZone)
            return ReportDoseAudit(audit: rows, settings: checked, units: units, clock: ReportClock(timeZone: timeZone))
        case let .failure(refusal):
            return ReportDoseAudit(withheld: refusal.description(units: units), unaudited: unaudited)
        }
    }
}
