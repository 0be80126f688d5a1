import Foundation

/// A patient's settings file as a report reads it for its dose audit and its settings check:
/// usable, or why not. A file that cannot be used withholds those sections with the reason, never
/// the report: the settings feed only them.
enum ReportSettingsFile {
    case usable(CheckedDoseSettings)
    /// Why the sections are withheld: no such file; it cannot be read (broken JSON, a misspelt
    /// key); it is another patient's, or a setting is missing or implausible.
    case unusable(String)

    /// - Parameter units: the unit a refusal's glucose figures are printed in.
    init(_ url: URL, patient: PatientID, units: GlucoseUnit) {
        guard FileManager.default.fileExists(atPath: url.path) else {
            // The file's name only: its folders may name a person (`ReportErrorText`).
            self = .unusable("no dose settings file for this patient (\(url.lastPathComponent))")
            return
        }
        let settings: DoseSettings
        do { settings = try DoseSettings.load(url) } catch {
            self = .unusable("the settings file cannot be read: \(ReportErrorText.describe(error))")
            return
        }
        switch settings.checked(for: patient) {
        case let .success(checked): self = .usable(checked)
        case let .failure(refusal): self = .unusable(refusal.description(units: units))
        }
    }
}
