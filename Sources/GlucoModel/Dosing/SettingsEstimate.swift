import Foundation

/// The settings a patient's log supports (`SettingsEstimator`): per setting, the current value,
/// the estimate with its 95% band, the suggestion (a bounded step) and the evidence.
public struct SettingsEstimate: Sendable {
    /// The carb ratio or the insulin sensitivity.
    public struct Parameter: Sendable {
        public var current: Double
        /// The windows of the kind that inform it (meal windows for ICR, correction windows for ISF).
        public var periods: Int
        public var estimate: Double?
        public var band: (low: Double, high: Double)?
        /// The current value when the evidence is too little.
        public var suggested: Double
        /// Why the suggestion is what it is.
        public var reason = ""
        /// The estimate is a unit away from the setting (`SettingsEstimator.farFactor`): the setting
        /// is most likely in another unit, and nothing read through it can be trusted.
        public var doubtsUnits = false

        public init(current: Double, periods: Int) {
            self.current = current; self.periods = periods; suggested = current
        }
    }

    /// The basal of one time-of-day block, U/h; or, as `longActing`, the whole day's long-acting
    /// dose of a person on injections, U/day (hours 0-24; `SettingsEstimator.Injections`).
    public struct Basal: Sendable {
        /// Local hours `[startHour, endHour)`.
        public var startHour: Int, endHour: Int
        /// The mean scheduled rate over the block's fasting windows (or the schedule's), U/h; the
        /// usual daily dose for `longActing`.
        public var current: Double?
        /// Fasting windows in the block.
        public var periods: Int
        /// The mean rise not explained by insulin in those windows, mg/dL/h.
        public var drift: Double?
        public var estimate: Double?
        public var band: (low: Double, high: Double)?
        public var suggested: Double?
        public var reason = ""

        public init(startHour: Int, endHour: Int, current: Double?, periods: Int) {
            self.startHour = startHour; self.endHour = endHour; self.current = current; self.periods = periods
            suggested = current
        }
    }

    public var patient: PatientID
    /// The first and last glucose reading used.
    public var first: Date?, last: Date?
    /// Where the blocks' hours are local: the text gives the first and last reading's times there.
    public var timeZone: TimeZone = .gmt
    /// 30-minute windows with glucose at both ends, and those the final fit kept.
    public var windows: Int, used: Int
    /// Boluses in the days read with no carbohydrates logged near them and larger than the glucose
    /// called for, read as meals not logged: their windows are left out (`SettingsEstimator`).
    public var unloggedMeals = 0
    /// When the pump's programme became the settings' basal schedule, if it did in the period asked
    /// for, and the share of that period's programmed time it had differed before: the days read
    /// (`first` on) start there.
    public var programmeChange: (time: Date, shareBefore: Double)?
    /// False when a rule over the whole table held every setting before the windows were weighed
    /// (`SettingsEstimator.unchanged`): the rows give no window counts then.
    public var windowsWeighed = true
    /// The residual standard deviation of the fit, mg/dL per window: the fitted deviation.
    public var deviation: Double?
    public var carbRatio: Parameter
    public var insulinSensitivity: Parameter
    /// The basal blocks; none for a person on injections, whose basal is `longActing`.
    public var basal: [Basal]
    /// The long-acting dose (U/day), for a person on injections (basal injections and no pump
    /// basal in the days read); nil otherwise.
    public var longActing: Basal? = nil
    /// The log's readings below 70 and below 54 mg/dL, percent (CGMMetrics' TBR; nil without readings).
    public var below70: Double? = nil, below54: Double? = nil
    /// The log's readings above 180 and above 250 mg/dL, percent (CGMMetrics' TAR; nil without readings).
    public var above180: Double? = nil, above250: Double? = nil

    /// The settings the data call a unit error, as a dose's refusal (`dose --settings-from-data`):
    /// the data doubt them, and no dose from data is made with them (hunt AS: a child's ISF of 250
    /// mg/dL/U written 13.9, in mmol/L; the check said "check the units", and the dose from data
    /// gave 5.15 U with it where about 0.6 U was right). Nil when none is in doubt. The figures are
    /// the settings file's (an ISF in mg/dL/U, as written); under `units` mmol/L an ISF also says its
    /// mmol/L/U (the review of stop 59), so that a person who wrote mmol/L sees both.
    public func unitRefusal(units: GlucoseUnit = .mgdL) -> DoseRefusal? {
        let doubted = [("carbRatio", carbRatio, "g/U"), ("insulinSensitivity", insulinSensitivity, "mg/dL/U")].filter { $0.1.doubtsUnits }
        guard !doubted.isEmpty else { return nil }
        func figure(_ value: Double?, _ unit: String) -> String {
            let mmol = unit == "mg/dL/U" && units == .mmolL ? value.map { String(format: " (%.2f mmol/L/U)", units.convert($0)) } ?? "" : ""
            return "\(Self.number(value ?? .nan)) \(unit)" + mmol
        }
        return .settings(doubted.map { name, p, unit in
            .inconsistent("setting '\(name)' = \(figure(p.current, unit)): the data's estimate is \(figure(p.estimate, unit)), "
                          + p.reason.replacingOccurrences(of: "no change: the estimate is ", with: "") + "; --settings-from-data makes "
                          + "no dose with a setting the data read as another unit: correct whichever is in the wrong unit, "
                          + "the data or the settings file")
        })
    }

    /// Lows beyond the consensus targets (under 4% of readings below 70 mg/dL and under 1% below 54):
    /// no setting then steps toward more insulin (`SettingsEstimator`, "Lows first").
    public var lowsHoldMoreInsulin: Bool { Self.beyond((below70, below54), SettingsEstimator.lowTargets) }

    /// Why a step toward more insulin was held: the log's lows against their targets.
    var lowsReason: String {
        "no step toward more insulin: \(Self.number(below70, 1))% of the log's readings are below 70 mg/dL (3.9 mmol/L) and "
            + "\(Self.number(below54, 1))% below 54 mg/dL (3.0 mmol/L) (targets: under "
            + "\(Self.number(SettingsEstimator.lowTargets.below70))% and under \(Self.number(SettingsEstimator.lowTargets.below54))%)"
    }

    /// Half the log's readings or more above 180 mg/dL: no setting then steps toward less insulin
    /// (`SettingsEstimator`, "Highs first").
    public var highsHoldLessInsulin: Bool { above180.map { $0 >= SettingsEstimator.mostlyHigh } ?? false }

    /// Why a step toward less insulin was held: the log's highs.
    var highsReason: String {
        "no step toward less insulin: \(Self.number(above180, 1))% of the log's readings are above 180 mg/dL (10.0 mmol/L) and "
            + "\(Self.number(above250, 1))% above 250 mg/dL (13.9 mmol/L) (from \(Self.number(SettingsEstimator.mostlyHigh))% above 180, "
            + "the kidneys' clearance of high glucose reads as insulin working)"
    }

    /// Whether either share of readings (level 1, level 2) is at or beyond its target.
    static func beyond(_ shares: (Double?, Double?), _ targets: (Double, Double)) -> Bool {
        (shares.0.map { $0 >= targets.0 } ?? false) || (shares.1.map { $0 >= targets.1 } ?? false)
    }

    /// `settings` with the suggested carb ratio, insulin sensitivity and basal schedule (blocks
    /// with no suggestion keep the current rates), everything else as it was.
    public func suggestedSettings(from settings: DoseSettings, timeZone: TimeZone) -> DoseSettings {
        var out = settings
        // A setting left as it is keeps its exact value; a changed one is rounded as a pump takes it,
        // toward the current value, so the step stays within its bound (0.13 U/h +20% is 0.156:
        // 0.15, where the nearest, 0.16, is +23%).
        if carbRatio.suggested != carbRatio.current {
            out.carbRatio = Self.round(carbRatio.suggested, decimals: 1, toward: carbRatio.current)
        }
        if insulinSensitivity.suggested != insulinSensitivity.current {
            out.insulinSensitivity = Self.round(insulinSensitivity.suggested, decimals: 1, toward: insulinSensitivity.current)
        }
        // A file without a schedule leaves the basal to the pump's programme in the data: none is
        // written (one of the blocks' mean rates would replace the programme's own steps).
        guard let current = settings.basalSchedule.flatMap({ try? BasalSchedule($0) }) else { return out }
        // Every current entry and every block start, each scaled by its block's suggestion.
        var starts = Set(basal.map { $0.startHour * 60 })
        starts.formUnion(current.starts)
        var entries: [BasalSchedule.Entry] = []
        for minute in starts.sorted() {
            guard let block = basal.last(where: { $0.startHour * 60 <= minute }) else { continue }
            let scheduled = current.rates[(current.starts.lastIndex { $0 <= minute }) ?? 0].unitsPerHour
            let rate: Double
            switch (block.current, block.suggested) {
            case let (c?, g?) where c > 0: rate = g == c ? scheduled : scheduled * g / c
            default: rate = scheduled
            }
            let unchanged = scheduled == rate
            entries.append(.init(start: String(format: "%02d:%02d", minute / 60, minute % 60),
                                 unitsPerHour: unchanged ? rate : Self.round(rate, decimals: 2, toward: scheduled)))
        }
        if entries.first?.start == "00:00" { out.basalSchedule = entries }
        return out
    }

    /// `value` to `decimals`, rounded toward `current` (a value a hair off a step, as 0.3 / 0.01 is
    /// 29.999999999999996 steps, is that step).
    /// Never past `current` (a current value between two steps, 3.33 stepped to 3.35, would
    /// round back past it, to 3.3): the current value then.
    static func round(_ value: Double, decimals: Int, toward current: Double) -> Double {
        let rounded = rounded(value, stepsPerUnit: pow(10, Double(decimals)), toward: current)
        return value > current ? max(rounded, current) : min(rounded, current)
    }

    /// `value` on the grid of `1 / stepsPerUnit`, the step toward `current` (it may land on or past
    /// a current value that lies between two steps; the callers decide what that means).
    static func rounded(_ value: Double, stepsPerUnit scale: Double, toward current: Double) -> Double {
        let steps = value * scale
        return (value > current ? (steps + 1e-9).rounded(.down) : (steps - 1e-9).rounded(.up)) / scale
    }
}

// MARK: - Output

extension SettingsEstimate {
    /// One row of the table: a setting's current and suggested values and their evidence.
    public struct Row: Sendable, Hashable {
        public var setting: String
        public var unit: String
        public var current: Double?
        public var suggested: Double?
        public var estimate: Double?
        public var bandLow: Double?, bandHigh: Double?
        /// The windows that informed it; nil when a rule over the whole table held every setting before
        /// the windows were weighed (counts classified with a schedule that is not the pump's, or no
        /// boluses, are not evidence: hunt Q, stop 53).
        public var periods: Int?
        public var periodKind: String
        public var reason: String

        /// Percent change of the suggestion from the current value.
        /// `24 meal windows`, or `windows not weighed` (`periods` nil).
        public var evidenceCount: String {
            periods.map { Plural.of($0, "\(periodKind) window") } ?? "windows not weighed"
        }

        public var changePercent: Double? {
            guard let current, let suggested, current > 0 else { return nil }
            return (suggested / current - 1) * 100
        }

        /// The change as printed: a whole percent with its sign, "+0%" for a change that rounds to
        /// none (it printed "-0%"); nil without one.
        public var changeText: String? {
            changePercent.map { p in
                let whole = p.rounded()
                return whole == 0 ? "+0%" : String(format: "%+.0f%%", whole)
            }
        }
    }

    public var rows: [Row] {
        let counted = { (n: Int) in windowsWeighed ? n : nil }
        func row(_ name: String, _ unit: String, _ p: Parameter, _ kind: String) -> Row {
            Row(setting: name, unit: unit, current: p.current, suggested: p.suggested, estimate: p.estimate,
                bandLow: p.band?.low, bandHigh: p.band?.high, periods: counted(p.periods), periodKind: kind, reason: p.reason)
        }
        var out = [row("carbRatio", "g/U", carbRatio, "meal"),
                   row("insulinSensitivity", "mg/dL/U", insulinSensitivity, "correction")]
        for b in basal {
            out.append(Row(setting: String(format: "basal %02d:00-%02d:00", b.startHour, b.endHour), unit: "U/h",
                           current: b.current, suggested: b.suggested, estimate: b.estimate, bandLow: b.band?.low,
                           bandHigh: b.band?.high, periods: counted(b.periods), periodKind: "fasting", reason: b.reason))
        }
        if let d = longActing {
            out.append(Row(setting: "basalInjections", unit: "U/day", current: d.current, suggested: d.suggested,
                           estimate: d.estimate, bandLow: d.band?.low, bandHigh: d.band?.high, periods: counted(d.periods),
                           periodKind: "fasting", reason: d.reason))
        }
        return out
    }

    /// The flat CSV schema (docs/settings.md).
    public static let csvHeader = "patient,setting,unit,current,suggested,change_percent,estimate,band_low,band_high,periods,period_kind,deviation_sd,reason"

    public var csvLines: [String] {
        rows.map { r in
            [patient.rawValue, r.setting, r.unit, Self.number(r.current), Self.number(r.suggested),
             Self.number(r.changePercent, 1), Self.number(r.estimate), Self.number(r.bandLow), Self.number(r.bandHigh),
             r.periods.map(String.init) ?? "", r.periodKind, Self.number(deviation, 2),
             "\"\((r.reason + (programmeChangeText.map { "; " + $0 } ?? "")).replacingOccurrences(of: "\"", with: "'"))\""]
                .joined(separator: ",")
        }
    }

    /// What the estimate says of a programme that became the schedule in the period, if any.
    public var programmeChangeText: String? {
        guard let change = programmeChange else { return nil }
        return "read from \(SettingsEstimator.ProgrammeMismatch.time(change.time, timeZone)), when the pump's programme became the "
            + "settings' basal schedule (it had differed \(Self.number(100 * change.shareBefore, 0))% of the time in the period asked for: "
            + "days on another programme would read the difference as insulin given or missed)"
    }

    /// What the estimate says of boluses read as unlogged meals, if any.
    public var unloggedMealsText: String? {
        guard unloggedMeals > 0 else { return nil }
        return "\(Plural.of(unloggedMeals, "bolus", plural: "boluses")) without carbohydrates logged and larger than the glucose called for: "
            + "read as meals not logged, the hours after \(unloggedMeals == 1 ? "it" : "them") left out"
    }

    /// The table as text: current / suggested / change / evidence.
    public var report: String { report(units: .mgdL) }

    /// The table as text, glucose in `units`: in mmol/L the ISF (mmol/L per U, two decimals), the
    /// fitted deviation and the lows' and highs' thresholds (the reasons name both units).
    public func report(units: GlucoseUnit) -> String {
        let f = ISO8601DateFormatter()
        f.timeZone = timeZone
        // "70 mg/dL (3.9 mmol/L)", or "3.9 mmol/L (70 mg/dL)" in mmol/L.
        func both(_ mgdL: String, _ mmolL: String) -> String { units == .mmolL ? "\(mmolL) mmol/L (\(mgdL) mg/dL)" : "\(mgdL) mg/dL (\(mmolL) mmol/L)" }
        var lines = ["Settings the data supports for \(patient.rawValue)"
            + (first.map { " (\(f.string(from: $0))" } ?? "") + (last.map { " to \(f.string(from: $0)))" } ?? "")]
        lines.append("\(Plural.of(windows, "window")) of 30 minutes with glucose at both ends; \(used) in the fit; fitted deviation "
            + (deviation.map { units == .mmolL ? String(format: "%.2f mmol/L per window", units.convert($0))
                                               : String(format: "%.1f mg/dL per window", $0) } ?? "none (no fit)"))
        if let change = programmeChangeText { lines.append("Days " + change) }
        if let unlogged = unloggedMealsText { lines.append(unlogged) }
        if let below70, let below54 {
            lines.append("Lows in the log: \(Self.number(below70, 1))% of readings below \(both("70", "3.9")), "
                + "\(Self.number(below54, 1))% below \(both("54", "3.0"))"
                + (lowsHoldMoreInsulin ? " (beyond the consensus targets: no setting steps toward more insulin)" : ""))
        }
        if let above180, let above250 {
            lines.append("Highs in the log: \(Self.number(above180, 1))% of readings above \(both("180", "10.0")), "
                + "\(Self.number(above250, 1))% above \(both("250", "13.9"))"
                + (highsHoldLessInsulin ? " (mostly above range: no setting steps toward less insulin)" : ""))
        }
        let header = ["setting", "current", "suggested", "change", "estimate (95% band)", "evidence"]
        var table = [header]
        for var r in rows {
            let change = r.changeText  // of the values in the file's unit
            if units == .mmolL, r.unit == "mg/dL/U" {
                func c(_ v: Double?) -> Double? { v.map { (units.convert($0) * 100).rounded() / 100 } }
                r.unit = "mmol/L/U"
                (r.current, r.suggested, r.estimate, r.bandLow, r.bandHigh) = (c(r.current), c(r.suggested), c(r.estimate), c(r.bandLow), c(r.bandHigh))
            }
            let band = r.estimate.map { e in
                Self.number(e) + (r.bandLow.map { " (\(Self.number($0))-\(Self.number(r.bandHigh)))" } ?? "")
            } ?? "-"
            table.append(["\(r.setting) \(r.unit)", Self.number(r.current, nil: "-"), Self.number(r.suggested, nil: "-"),
                          change ?? "-", band,
                          "\(r.evidenceCount); \(r.reason)"])
        }
        let widths = header.indices.map { c in table.map { $0[c].count }.max() ?? 0 }
        for row in table {
            lines.append(row.enumerated().map { c, cell in
                c == row.count - 1 ? cell : cell.padding(toLength: widths[c], withPad: " ", startingAt: 0)
            }.joined(separator: "  "))
        }
        lines.append("Advice for a clinician: never applied to a dose unless asked (dose --settings-from-data).")
        return lines.joined(separator: "\n")
    }

    static func number(_ value: Double?, _ digits: Int = 3, nil empty: String = "") -> String {
        trimmedNumber(value, digits, nil: empty)
    }
}
