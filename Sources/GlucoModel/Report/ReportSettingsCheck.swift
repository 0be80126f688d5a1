import Foundation

/// The "settings the data supports" section of a report: per setting, the current value, the
/// suggestion, the change and the evidence, as `glucomodel-predict settings` prints them
/// (`SettingsEstimator`), glucose figures in the report's unit.
public struct ReportSettingsCheck: Sendable {
    public struct Row: Sendable {
        public var setting: String
        public var current: String
        public var suggested: String
        public var change: String
        public var estimate: String
        public var evidence: String
    }

    public var rows: [Row]
    public var note: String
    /// Why there is no check (no settings file for the patient, one that cannot be read or used),
    /// when there is none: the page says so, as the dose audit does, where a missing section
    /// would read as a report made without settings.
    public var withheld: String?

    /// No check, for `reason`.
    public init(withheld reason: String) {
        rows = []
        note = ""
        withheld = reason
    }

    public init(_ estimate: SettingsEstimate, units: GlucoseUnit = .mgdL) {
        func value(_ v: Double?, glucose: Bool, decimals: Int) -> String {
            guard let v, v.isFinite else { return "-" }
            return formatNumber(glucose ? units.convert(v) : v, decimals: glucose && units == .mmolL ? 2 : decimals)
        }
        rows = estimate.rows.map { r in
            let glucose = r.setting == "insulinSensitivity"
            let decimals = r.unit == "U/h" ? 2 : 1
            let unit = glucose ? "\(units.rawValue)/U" : r.unit
            let band = r.bandLow.map { "\(value($0, glucose: glucose, decimals: decimals))-\(value(r.bandHigh, glucose: glucose, decimals: decimals))" }
            return Row(setting: "\(r.setting) (\(unit))", current: value(r.current, glucose: glucose, decimals: decimals),
                       suggested: value(r.suggested, glucose: glucose, decimals: decimals),
                       change: r.changeText ?? "-",
                       estimate: value(r.estimate, glucose: glucose, decimals: decimals) + (band.map { " (\($0))" } ?? ""),
                       evidence: "\(r.evidenceCount); \(r.reason)")
        }
        // Its own days, which are not the report's period (hunt D: the header's 14.4% below 70 beside
        // this section's 12.9% read as a contradiction).
        let clock = ReportClock(timeZone: estimate.timeZone)
        let change: String = estimate.programmeChangeText.map { "; " + $0 } ?? ""
        let days = estimate.first.flatMap { a in estimate.last.map { b -> String in
            "Read from the log of \(clock.date(a)) to \(clock.date(b)) (up to \(SettingsEstimator.defaultDays) days to the period's end, "
                + "not only the report's period: its lows and highs are of these days" + change + "). " } } ?? ""
        note = days + "From \(estimate.windows) windows of 30 minutes (\(estimate.used) in the fit; fitted deviation "
            + (estimate.deviation.map { units.format($0, mgdLDecimals: 1) + " \(units.rawValue)" } ?? "none")
            + ")" + (estimate.unloggedMealsText.map { "; " + $0 } ?? "")
            + ". Each suggestion moves at most 20% from the current setting; 95% bands from whole days resampled and "
            + "other insulin and carbohydrate curve shapes. Advice for review, never applied to a dose unless asked (docs/settings.md)."
    }
}

extension ReportSettingsCheck {
    /// The section from the patient's settings file: the settings the log up to the period's end
    /// supports (`SettingsEstimator`, its default days), or no check and why.
    /// - Parameters:
    ///   - url: the patient's settings file (`DoseSettings`), which need not exist.
    ///   - units: the unit the ISF and a refusal's glucose figures are printed in.
    ///   - timeZone: the clock of the estimate's 6-hour basal blocks and the settings' schedule.
    public static func load(settings url: URL, log: PatientLog, period: DateInterval, units: GlucoseUnit = .mgdL,
                            timeZone: TimeZone = .gmt) -> ReportSettingsCheck {
        switch ReportSettingsFile(url, patient: log.patient, units: units) {
        case let .usable(checked):
            let estimate = SettingsEstimator.estimate(log: log.recorded(through: period.end), settings: checked, timeZone: timeZone,
                                                      days: SettingsEstimator.defaultDays)
            return ReportSettingsCheck(estimate, units: units)
        case let .unusable(why):
            return ReportSettingsCheck(withheld: why)
        }
    }
}

extension PatientReport {
    var settingsSection: String {
        guard let check = settingsCheck else { return "" }
        if let why = check.withheld {
            return HTML.section(id: "settings-check", title: "Settings the data supports",
                                HTML.paragraph("No settings check: \(why).", cssClass: "note"))
        }
        let rows: [[HTMLCell]] = check.rows.map { r in
            [HTMLCell(r.setting), .number(r.current), .number(r.suggested), .number(r.change), HTMLCell(r.estimate), HTMLCell(r.evidence)]
        }
        let body = HTML.paragraph(check.note, cssClass: "muted")
            + HTML.table(header: ["Setting", "Current", "Suggested", "Change", "Estimate (95% band)", "Evidence"], rows: rows)
        return HTML.section(id: "settings-check", title: "Settings the data supports", body)
    }
}
