import Foundation

extension DoseSuggestion {
    /// The suggestion as readable text, glucose in mg/dL (`report(units:)`).
    public var report: String { report(units: .mgdL) }

    /// The suggestion as readable text: the decision first, then every reason and every number used,
    /// glucose in `units` (whole mg/dL, or mmol/L with one decimal; the ISF in `units` per U), every
    /// time on `timeZone`'s clock with its offset (ISO 8601 UTC by default), as `--carbs-time` reads it back.
    public func report(units: GlucoseUnit, timeZone: TimeZone = .gmt) -> String {
        func time(_ date: Date) -> String { date.iso8601(in: timeZone) }
        func u(_ v: Double) -> String { String(format: "%.2f U", v) }
        let d = units.decimals()
        func number(_ mgdL: Double) -> String { String(format: "%.\(d)f", units.convert(mgdL)) }
        func g(_ v: Double) -> String { number(v) + " " + units.rawValue }
        var lines = ["patient \(patient.rawValue), at \(time(at))"]
        switch decision {
        case let .bolus(units, basis):
            lines.append("suggestion: bolus \(u(units)) (\(basis == .model ? "model-based" : "standard formula"))")
            if let f = formulaUnits, basis == .model { lines.append("standard formula beside it: \(u(f))") }
            if let m = modelDose, basis == .standardFormula { lines.append("model-based dose beside it: \(u(m))") }
        case .noInsulin: lines.append("suggestion: NO INSULIN; treat or watch for a low")
        case .refused: lines.append("suggestion: REFUSED, no dose")
        }
        lines += reasons.map { "  [\($0.code)] \($0.message(units: units, time: time))" }
        if let recheck = recheckMinutes, let again = askAgainAt {
            // A refusal for the CGM's readings alone: when it may be lifted, and what to do meanwhile.
            let meal = carbs > 0 ? String(format: " with the %.0f g, if eaten, and --carbs-time %@", carbs, time(carbsTime ?? at)) : ""
            lines.append("  ask again in \(recheck) minutes (\(time(again))), when the CGM's readings serve again if it reads on steadily\(meal); or dose by hand (a finger-stick and your calculator)")
        } else if let recheck = recheckMinutes {
            lines.append(String(format: "  eat, check glucose again in %d minutes and ask again with the %.0f g (not yet covered by insulin) eaten at %@", recheck, carbs, time(carbsTime ?? at)))
        }
        if let glucose, let glucoseTime {
            let age = at.timeIntervalSince(glucoseTime) / 60
            // Near the suspend threshold with a decimal more, apart from it (hunt D: "glucose now: 3.9
            // mmol/L" beside "suspend below 3.9 mmol/L" for 69.8 mg/dL).
            let now = settings.map { units.format(glucose, apartFrom: $0.suspendThreshold) + " " + units.rawValue } ?? g(glucose)
            lines.append("glucose now: \(now) at \(time(glucoseTime)) (\(String(format: "%.0f", age)) min before)")
        }
        if let stated = statedInsulinOnBoard {
            lines.append("insulin on board: \(u(stated)), as stated (the data has no insulin records), counted as given now")
        } else if let insulinOnBoard {
            let schedule: String
            switch basalScheduleSource {
            case .settings?: schedule = "net of the settings' basal schedule"
            case .data?: schedule = "net of the programmed basal found in the data (no schedule in the settings)"
            case .none?, nil: schedule = "boluses only (no basal schedule in the settings or the data)"
            }
            lines.append("net insulin on board: \(u(insulinOnBoard)), \(schedule)")
        }
        lines.append(String(format: "carbohydrates: %g g", carbs)
                     + (carbsTime.map { String(format: ", eaten at %@ (%.0f min before) with no insulin yet", time($0), at.timeIntervalSince($0) / 60) } ?? ""))
        if let s = settings {
            // The settings as the file gives them (mg/dL), or converted and shown to 0.1 mmol/L (ISF to 0.01).
            let isf = units == .mgdL ? String(format: "%g", s.insulinSensitivity) : String(format: "%.2f", units.convert(s.insulinSensitivity))
            let target = units == .mgdL ? String(format: "%g", s.target) : number(s.target)
            let suspend = units == .mgdL ? String(format: "%g", s.suspendThreshold) : number(s.suspendThreshold)
            let unit = units.rawValue
            lines.append(String(format: "settings: ICR %g g/U, ISF %@ \(unit)/U, target %@ \(unit), suspend below %@ \(unit), max bolus %g U, increment %g U, insulin peak %g / duration %g min",
                                s.carbRatio, isf, target, suspend, s.maxBolus,
                                s.bolusIncrement, s.insulin.peakMinutes, s.insulin.durationMinutes))
        }
        if let f = standard, let given = formulaUnits {
            // What the formula gives after every cap: none below the suspend threshold, within the max IOB.
            var after = ""
            if case .noInsulin = decision, f.dose > 0 {
                after = " -> 0.00 U (no insulin now, as above)"
            } else if given < f.dose {
                after = " -> \(u(given)) (within the max IOB)"
            }
            lines.append("standard formula: carbs \(u(f.carbDose)) + correction \(u(f.correctionDose)) - IOB \(u(f.insulinOnBoard)) = \(u(f.unclamped)) -> \(u(f.dose))" + after)
        }
        lines.append("model-based dose: " + (modelDose.map(u) ?? "none") + (method == .formula ? " (the formula was asked for)" : ""))
        if let c = curve, let low = c.glucose(bolus: InsulinUnits(decision.units ?? 0)).map(\.mgdL).min(),
           let eventual = c.glucose(bolus: InsulinUnits(decision.units ?? 0)).last?.mgdL {
            // Within 10-600 mg/dL, as the table below and the JSON show them (the effects have no floor).
            lines.append(String(format: "with the suggestion: lowest predicted %@, eventual (at %.0f min) %@",
                                g(DoseAdvisor.shown(low)), c.minutes.last ?? 0, g(DoseAdvisor.shown(eventual))))
        }
        if !predictions.isEmpty {
            let dose = decision.units ?? 0
            lines.append(featureTime.map { "predicted glucose (model features at \(time($0)), with the planned carbohydrates):" }
                         ?? "predicted glucose from insulin and carbohydrate effects (no model), with the planned carbohydrates:")
            lines.append("  horizon  no insulin  with \(u(dose))  (\(units.rawValue))")
            for p in predictions {
                lines.append(String(format: "  %4d min  %7.\(d)f     %7.\(d)f", p.horizonMinutes, units.convert(p.atZeroDose), units.convert(p.atSuggestedDose)))
            }
        }
        return lines.joined(separator: "\n")
    }
}
