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
        switch ReportSettingsFile(url, patient: log.patient, units: units) {
        case let .usable(checked):
            // On the report's clock: the settings' basal schedule is by the wall clock (net insulin on board).
            let rows = DoseAudit.run(log: log, models: models, settings: checked, period: period, timeZone: timeZone)
            var audit = ReportDoseAudit(audit: rows, settings: checked, units: units, clock: ReportClock(timeZone: timeZone))
            audit.withoutCarbs = DoseAudit.bolusesWithoutCarbs(log, period: period)
            return audit
        case let .unusable(why):
            return ReportDoseAudit(withheld: why, unaudited: DoseAudit.mealBoluses(log, period: period).count)
        }
    }
}
