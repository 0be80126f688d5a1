import Foundation
import Testing
@testable import GlucoModel

/// The standard bolus calculator, its rounding and clamping, and insulin on board.
@Suite struct DoseFormulaTests {
    typealias F = DoseFixture

    @Test func formulaWorkedByHand() {
        // carbs 60 g / ICR 10 = 6 U; (180 - 110)/35 = 2 U; minus IOB 1.2 U = 6.8 U.
        let b = StandardBolus(carbs: 60, glucose: 180, insulinOnBoard: 1.2, settings: F.checked())
        #expect(abs(b.carbDose - 6) < 1e-12 && abs(b.correctionDose - 2) < 1e-12)
        #expect(abs(b.unclamped - 6.8) < 1e-12)
        #expect(b.dose == 6.8)
    }

    /// Hunt E (stop 51): with no model the formula's dose was suggested without a word where the
    /// settings' own curves, for that dose, went far below the suspend threshold (an insulin peaking
    /// at 29 minutes, 80 g: 38.7 mg/dL at 80 minutes). The dose stands, with a note naming the low;
    /// with the usual curve (peak 75 minutes) the same meal draws none.
    @Test func aFormulaDoseWhoseCurveGoesLowIsNoted() throws {
        var fast = F.settings()
        fast.insulinSensitivity = 50; fast.insulinPeakMinutes = 29; fast.insulinDurationMinutes = 300
        let log = F.flatLog(glucose: 150)
        let s = DoseAdvisor.suggest(log: log, carbs: 80, at: F.at(90), settings: fast, models: nil)
        // 80/10 + (150 - 110)/50 = 8.8 U, nothing on board.
        #expect(s.decision.units == 8.8)
        let note = try #require(s.reasons.first { $0.code == "formula_dose_predicted_low" }, "\(s.reasons)")
        let path = try #require(s.curve).glucose(bolus: InsulinUnits(8.8)).map(\.mgdL)
        let lowest = try #require(path.min())
        #expect(lowest < 70)
        let minute = try #require(s.curve?.minutes[path.firstIndex(of: lowest)!])
        #expect(note.message.contains(String(format: "with the formula's 8.80 U, the settings' insulin and carbohydrate curves predict %.0f mg/dL at %.0f min, below the suspend threshold (70 mg/dL)", lowest, minute)), "\(note.message)")
        var usual = fast
        usual.insulinPeakMinutes = 75; usual.insulinDurationMinutes = 360
        let calm = DoseAdvisor.suggest(log: log, carbs: 80, at: F.at(90), settings: usual, models: nil)
        #expect(calm.decision.units == 8.8 && !calm.reasons.contains { $0.code == "formula_dose_predicted_low" })
    }

    @Test func glucoseBelowTargetReducesTheMealDose() {
        // 30/10 = 3 U; (75 - 110)/35 = -1 U; 3 - 1 = 2 U.
        let b = StandardBolus(carbs: 30, glucose: 75, insulinOnBoard: 0, settings: F.checked())
        #expect(b.dose == 2)
    }

    @Test func roundsDownToTheIncrementAndClamps() {
        let s = F.checked()
        // 6.87 U: 137.4 increments of 0.05 -> 137 -> 6.85 U (never up to 6.90).
        #expect(StandardBolus.deliverable(6.87, settings: s) == 6.85)
        // 1.15 is 23 increments exactly: binary noise in 1.15/0.05 must not drop it to 1.10.
        #expect(StandardBolus.deliverable(1.15, settings: s) == 1.15)
        // Above the 10 U maximum: 10 U. Negative or NaN: 0.
        #expect(StandardBolus.deliverable(12.3, settings: s) == 10)
        #expect(StandardBolus.deliverable(-0.7, settings: s) == 0)
        #expect(StandardBolus.deliverable(.nan, settings: s) == 0)
        // With a 0.1 U pen: 6.87 -> 6.8.
        var pen = s
        pen.bolusIncrement = 0.1
        #expect(StandardBolus.deliverable(6.87, settings: pen) == 6.8)
    }

    @Test func insulinOnBoardExceedingTheNeedGivesZero() {
        // 10/10 + (120 - 110)/35 = 1.2857 U needed; IOB 3 U: -1.71 -> 0.
        let b = StandardBolus(carbs: 10, glucose: 120, insulinOnBoard: 3, settings: F.checked())
        #expect(b.dose == 0 && b.unclamped < 0)
    }

    @Test func insulinOnBoardComesFromTheSeriesAndIsSubtracted() {
        // 2 U at 10:30, suggestion at 11:30: IOB = 2 * R(60) with the dosing.md curve
        // (adult rapid: tp 75, td 360), recomputed here from the formula.
        var log = F.flatLog()
        log.boluses = [Bolus(time: F.at(30), dose: InsulinUnits(2))]
        let s = DoseAdvisor.suggest(log: log, carbs: 60, at: F.at(90), settings: F.settings(), models: nil)
        let iob = 2 * F.insulinRemaining(60)
        #expect(abs((s.insulinOnBoard ?? -1) - iob) < 1e-9)
        // 6 + 2 - IOB, rounded down to 0.05 U.
        let expected = ((8 - iob) / 0.05 + 1e-9).rounded(.down) * 0.05
        #expect(abs((s.decision.units ?? -1) - expected) < 1e-9)
        #expect(abs((s.standard?.insulinOnBoard ?? -1) - iob) < 1e-9)
    }

    @Test func insulinOnBoardCoveringTheNeedIsNoted() {
        var log = F.flatLog()
        log.boluses = [Bolus(time: F.at(60), dose: InsulinUnits(4.5))]
        // Net IOB = 4.5 R(30) (about 4.18 U) > 2 + 2 U needed: the formula gives 0, with the note.
        // The predicted curve ends near 180 + 70 - 35 * 4.18 = 104 mg/dL: no low, no dose needed.
        let s = DoseAdvisor.suggest(log: log, carbs: 20, at: F.at(90), settings: F.settings(), models: nil)
        #expect(4.5 * F.insulinRemaining(30) > 4)
        #expect(s.decision == .bolus(units: 0, basis: .standardFormula))
        #expect(s.reasonCodes.contains("iob_covers_need"))
    }

    @Test func insulinOnBoardFarAboveTheNeedPredictsALow() {
        var log = F.flatLog()
        log.boluses = [Bolus(time: F.at(60), dose: InsulinUnits(8))]
        // IOB = 8 R(30), about 7.5 U, where 4 U are needed: the curve of its remaining effect
        // (180 + 70 - 35 * 7.5 = 67 mg/dL eventually) falls below the suspend threshold: no insulin.
        let s = DoseAdvisor.suggest(log: log, carbs: 20, at: F.at(90), settings: F.settings(), models: nil)
        #expect(s.reasonCodes == ["predicted_below_suspend"])
        #expect(s.decision.units == 0)
    }

    @Test func settingsFileIsReadAndBadFilesNameTheField() throws {
        let dir = ScratchSpace.root.appendingPathComponent("dose-settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = dir.appendingPathComponent("good.json")
        try Data(#"{"patient": "dose_p1", "carbRatio": 10, "insulinSensitivity": 35, "target": 110, "suspendThreshold": 70, "maxBolus": 10}"#.utf8).write(to: good)
        let s = try DoseSettings.load(good)
        #expect(s == F.settings().with(increment: nil))
        let bad = dir.appendingPathComponent("bad.json")
        try Data(#"{"patient": "dose_p1", "carbRatio": "ten"}"#.utf8).write(to: bad)
        #expect { try DoseSettings.load(bad) } throws: { error in
            "\(error)".contains("bad.json") && "\(error)".contains("carbRatio")
        }
    }
}

extension DoseSettings {
    func with(increment: Double?) -> DoseSettings {
        var s = self
        s.bolusIncrement = increment
        return s
    }
}
