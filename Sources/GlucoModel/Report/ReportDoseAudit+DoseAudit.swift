import Foundation

extension ReportDoseAudit {
    /// The report's view of a retrospective dose audit (`DoseAudit.run`) made with `settings`.
    public init(audit: [DoseAuditRow], settings: CheckedDoseSettings) {
        let note = String(format: "Settings: carb ratio %g g/U, sensitivity %g mg/dL/U, target %g mg/dL, suspend below %g mg/dL, max bolus %g U. Suggestions see only data before each bolus; advice for review, not an instruction.",
                          settings.carbRatio, settings.insulinSensitivity, settings.target, settings.suspendThreshold, settings.maxBolus)
        let rows = audit.map { row -> Row in
            let s = row.suggestion
            var formula = ""
            if let standard = s.standard, let glucose = s.glucose {
                formula = String(format: "%.0f g / %g + (%.0f - %g) / %g - IOB %.2f = %.2f U", row.carbs, settings.carbRatio,
                                 glucose, settings.target, settings.insulinSensitivity, standard.insulinOnBoard, standard.dose)
            }
            return Row(time: row.bolusTime, carbs: Carbohydrate(grams: row.carbs), given: InsulinUnits(row.doseGiven),
                       suggested: s.decision.units.map(InsulinUnits.init), formula: formula,
                       glucoseAfter2h: row.glucoseAfter2h.map(GlucoseValue.init(mgdL:)), lowAfter: row.lowFollowed ?? false,
                       reasons: s.reasons.map(\.message))
        }
        self.init(rows: rows, note: note)
    }
}
