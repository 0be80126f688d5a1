import Foundation

/// Writes a patient's settings check for the night (`settings-check/<patient>.csv`, the
/// `glucomodel-predict settings` CSV), or returns nil for none.
public typealias NightlySettingsChecker = @Sendable (PatientID, PatientLog) throws -> String?

/// The day of the week a nightly run writes the settings check on.
public enum Weekday: String, CaseIterable, Sendable {
    case monday, tuesday, wednesday, thursday, friday, saturday, sunday

    /// Whether the night labelled `night` (`YYYY-MM-DD`) falls on this day.
    public func matches(night: String) -> Bool {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = night.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, let date = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2])) else {
            return false
        }
        // Gregorian weekday: 1 Sunday ... 7 Saturday.
        let index = (calendar.component(.weekday, from: date) + 5) % 7
        return Self.allCases[index] == self
    }
}

extension SettingsEstimator {
    /// The nightly run's weekly settings check: for a patient with `<settingsFolder>/<patient>.json`,
    /// the settings the last `SettingsEstimator.defaultDays` days of their stored log support; nil
    /// without a file. A file with a bad setting is an error naming it (a warning of the night).
    public static func nightlyChecker(settingsFolder: URL, timeZone: TimeZone) -> NightlySettingsChecker {
        { patient, log in
            guard let checked = try CheckedDoseSettings.nightly(in: settingsFolder, for: patient) else { return nil }
            let e = estimate(log: log, settings: checked, timeZone: timeZone)
            return ([SettingsEstimate.csvHeader] + e.csvLines).joined(separator: "\n") + "\n"
        }
    }
}
