import Foundation

extension DoseSuggestion {
    /// The suggestion as readable text: the decision first, then every reason and every number used.
    public var report: String {
        func u(_ v: Double) -> String { String(format: "%.2f U", v) }
        func g(_ v: Double) -> String { String(format: "%.0f mg/dL", v) }
        var lines = ["patient \(patient.rawValue), at \(at.iso8601)"]
        switch decision {
        case let .bolus(units, basis):
            lines.append("suggestion: bolus \(u(units)) (\(basis == .model ? "model-based" : "standard formula"))")
        case .noInsulin: lines.append("suggestion: NO INSULIN; treat or watch for a low")
        case .refused: lines.append("suggestion: REFUSED, no dose")
        }
        lines += reasons.map { "  [\($0.code)] \($0.message)" }
        if let glucose, let glucoseTime {
            let age = at.timeIntervalSince(glucoseTime) / 60
            lines.append("glucose now: \(g(glucose)) at \(glucoseTime.iso8601) (\(String(format: "%.0f", age)) min before)")
        }
        if let insulinOnBoard { lines.append("insulin on board: \(u(insulinOnBoard))") }
        lines.append(String(format: "carbohydrates: %.0f g", carbs))
        if let s = settings {
            lines.append(String(format: "settings: ICR %g g/U, ISF %g mg/dL/U, target %g mg/dL, suspend below %g mg/dL, max bolus %g U, increment %g U, insulin peak %g / duration %g min",
                                s.carbRatio, s.insulinSensitivity, s.target, s.suspendThreshold, s.maxBolus,
                                s.bolusIncrement, s.insulin.peakMinutes, s.insulin.durationMinutes))
        }
        if let f = standard {
            lines.append("standard formula: carbs \(u(f.carbDose)) + correction \(u(f.correctionDose)) - IOB \(u(f.insulinOnBoard)) = \(u(f.unclamped)) -> \(u(f.dose))")
        }
        lines.append("model-based dose: " + (modelDose.map(u) ?? "none"))
        if !predictions.isEmpty {
            let dose = decision.units ?? 0
            lines.append("predicted glucose (features at \(featureTime?.iso8601 ?? "?"), with the planned carbohydrates):")
            lines.append("  horizon  no insulin  with \(u(dose))")
            for p in predictions {
                lines.append(String(format: "  %4d min  %7.0f     %7.0f", p.horizonMinutes, p.atZeroDose, p.atSuggestedDose))
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The suggestion as pretty JSON (ISO-8601 dates, sorted keys).
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
