import Foundation

extension DoseAudit {
    /// The nightly run's dose auditor: audits each patient's meal boluses of the night with the
    /// settings file `<settingsFolder>/<patient>.json`. A patient without a settings file gets no
    /// audit (nil); a file with a bad or implausible setting is an error naming it, so the night
    /// reports it as a warning instead of auditing with settings it cannot trust.
    /// - Parameters:
    ///   - units: the unit of the file's glucose columns.
    ///   - timeZone: the night's clock (`--time-zone`), on which the settings' basal schedule runs.
    public static func nightlyAuditor(settingsFolder: URL, lowThreshold: Double = 70, units: GlucoseUnit = .mgdL,
                                      timeZone: TimeZone = .gmt) -> NightlyDoseAuditor {
        { patient, log, models, period in
            let url = settingsFolder.appendingPathComponent("\(patient.rawValue).json")
            guard FileManager.default.fileExists(atPath: url.path) else { return nil }
            let checked = try DoseSettings.load(url).checked(for: patient).get()
            let rows = run(log: log, models: models, settings: checked, period: period, lowThreshold: lowThreshold, timeZone: timeZone)
            return ([DoseAuditRow.csvHeader(units: units)] + rows.map { $0.csvLine(units: units) }).joined(separator: "\n") + "\n"
        }
    }
}
