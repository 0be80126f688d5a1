import Foundation

extension DoseAudit {
    /// The nightly run's dose auditor: audits each patient's meal boluses of the night with the
    /// settings file `<settingsFolder>/<patient>.json`. A patient without a settings file gets no
    /// audit (nil); a file with a bad or implausible setting is an error naming it, so the night
    /// reports it as a warning (and scores the patient as without one) instead of auditing with
    /// settings it cannot trust.
    /// - Parameters:
    ///   - units: the unit of the file's glucose columns.
    ///   - timeZone: the night's clock (`--time-zone`), on which the settings' basal schedule runs.
    public static func nightlyAuditor(settingsFolder: URL, lowThreshold: Double = 70, units: GlucoseUnit = .mgdL,
                                      timeZone: TimeZone = .gmt) -> NightlyDoseAuditor {
        { patient, log, models, period in
            guard let checked = try CheckedDoseSettings.nightly(in: settingsFolder, for: patient) else { return nil }
            let rows = run(log: log, models: models, settings: checked, period: period, lowThreshold: lowThreshold, timeZone: timeZone)
            return ([DoseAuditRow.csvHeader(units: units)] + rows.map { $0.csvLine(units: units) }).joined(separator: "\n") + "\n"
        }
    }
}

extension CheckedDoseSettings {
    /// A patient's settings in a nightly `--settings` folder, `<folder>/<patient>.json`: nil without
    /// a file; a file with a bad or implausible setting is an error naming the file and the setting.
    static func nightly(in folder: URL, for patient: PatientID) throws -> CheckedDoseSettings? {
        let url = folder.appendingPathComponent("\(patient.rawValue).json")
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        switch try DoseSettings.load(url).checked(for: patient) {
        case let .success(s): return s
        case let .failure(refusal): throw InputError(SourceLocation(file: url.path), "[\(refusal.code)] \(refusal.description)")
        }
    }
}
