import Foundation

extension ReportDoseAudit {
    /// The report's view of a retrospective dose audit (`DoseAudit.run`) made with `settings`;
    /// the settings' glucose figures are printed in `units`, the reasons' times on `clock`.
    public init(audit: [DoseAuditRow], settings: CheckedDoseSettings, units: GlucoseUnit = .mgdL, clock: ReportClock = .utc) {
        let u = units.rawValue
        let note = "Settings: carb ratio \(String(format: "%g", settings.carbRatio)) g/U, "
            + "sensitivity \(units.format(settings.insulinSensitivity, mgdLDecimals: 1)) \(u)/U, target \(units.format(settings.target)) \(u), "
            + "suspend below \(units.format(settings.suspendThreshold)) \(u), max bolus \(String(format: "%g", settings.maxBolus)) U. "
            + "Suggestions see only data before each bolus; advice for review, not an instruction."
        let rows = audit.map { row -> Row in
            let s = row.suggestion
            var formula = ""
            if let standard = s.standard, let glucose = s.glucose {
                // The correction in the report's unit: (glucose - target) / ISF is the same number of units in both.
                let g = units == .mgdL ? String(format: "%.0f", glucose) : units.format(glucose)
                let target = units == .mgdL ? String(format: "%g", settings.target) : units.format(settings.target)
                let isf = units == .mgdL ? String(format: "%g", settings.insulinSensitivity)
                    : formatNumber(units.convert(settings.insulinSensitivity), decimals: 2)
                // Rounded to the cent first (and + 0, which turns -0 into 0): a net IOB of -0.001 U read "-0.00".
                let iob = (standard.insulinOnBoard * 100).rounded() / 100 + 0
                formula = String(format: "%.0f g / %g + (%@ - %@) / %@ - IOB %.2f = %.2f U", row.carbs, settings.carbRatio,
                                 g, target, isf, iob, standard.dose)
                // What the formula gives after every cap (as `dose --method formula` would).
                if case .noInsulin = s.decision, standard.dose > 0 {
                    formula += ", none now (a low now or predicted)"
                } else if let given = s.formulaUnits, given < standard.dose {
                    formula += String(format: ", %.2f U within the max IOB", given)
                }
            }
            return Row(time: row.bolusTime, carbs: Carbohydrate(grams: row.carbs), given: InsulinUnits(row.doseGiven),
                       suggested: s.decision.units.map(InsulinUnits.init), advice: Advice(s.decision), formula: formula,
                       glucoseAfter2h: row.glucoseAfter2h.map(GlucoseValue.init(mgdL:)), lowAfter: row.lowFollowed ?? false,
                       reasons: s.reasons.map { $0.namingFiles(ReportErrorText.baseName).message(units: units, time: clock.dateTime) }, reasonCodes: s.reasons.map(\.code))
        }
        self.init(rows: rows, note: note)
    }
}

extension ReportDoseAudit.Advice {
    init(_ decision: DoseDecision) {
        switch decision {
        case .bolus: self = .dose
        case .noInsulin: self = .noInsulin
        case .refused: self = .refused
        }
    }
}
