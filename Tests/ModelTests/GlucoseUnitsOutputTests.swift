import Foundation
import Testing
@testable import GlucoModel

/// `--units mmol/L` on predict, nightly, dose and score: every glucose printed in mmol/L is the
/// mg/dL value / 18.01559 (the molar mass of glucose, `GlucoseValue.mgdLPerMmolL`; 18.0156 to
/// four decimals), rounded once to the printed step. Expected values are worked out by hand.
@Suite struct GlucoseUnitsOutputTests {
    static let factor = 18.01559

    @Test func predictionRowsInMmolL() throws {
        let row = PredictionRow(patient: try PatientID("p1"), issuedAt: Fixture.date("2026-01-05T08:00:00Z"),
                                targetTime: Fixture.date("2026-01-05T08:30:00Z"), horizonMinutes: 30, model: "ge",
                                prediction: 123.45, reference: 118.06)
        // 123.45 / 18.01559 = 6.8523 -> 6.85 (one more decimal than mg/dL's 123.5); 118.06 / 18.01559 = 6.5532 -> 6.55.
        // The reference as precise as the prediction: a grid value of 118.06 read "118".
        #expect(row.csvLine(units: .mmolL) == "p1,2026-01-05T08:00:00Z,2026-01-05T08:30:00Z,30,ge,6.85,6.55")
        #expect(row.csvLine(units: .mgdL) == "p1,2026-01-05T08:00:00Z,2026-01-05T08:30:00Z,30,ge,123.5,118.1")
        #expect(PredictionRow.csvHeader(units: .mmolL) == "patient,issued_at,target_time,horizon_min,model,prediction_mmoll,reference_mmoll")
        #expect(PredictionRow.csvHeader(units: .mgdL) == PredictionRow.csvHeader)
    }

    @Test func nightlyFilesInMmolLMatchTheMgdLNight() throws {
        let mgdl = try NightlyBench(), mmol = try NightlyBench()
        let a = try mgdl.scorer().run()
        var scorer = mmol.scorer()
        scorer.settings.units = .mmolL
        let b = try scorer.run()
        #expect(a.exitCode == 0 && b.exitCode == 0 && a.predictions == b.predictions && a.alerts == b.alerts)
        // 70 / 18.01559 = 3.8855 -> 3.89; 250 / 18.01559 = 13.8769 -> 13.88.
        #expect(b.summaryLine.contains("alert episodes (low < 3.89, high > 13.88 mmol/L)"))
        func lines(_ bench: NightlyBench, _ name: String) throws -> [[String]] {
            let text = String(decoding: try bench.files()["/\(NightlyBench.night)/\(name)"]!, as: UTF8.self)
            return text.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        }
        let p1 = try lines(mgdl, "predictions.csv"), p2 = try lines(mmol, "predictions.csv")
        #expect(p2[0].joined(separator: ",") == PredictionRow.csvHeader(units: .mmolL))
        #expect(p1.count == p2.count && p1.count > 1000)
        var worst = (prediction: 0.0, reference: 0.0)
        for (x, y) in zip(p1.dropFirst(), p2.dropFirst()) {
            #expect(x[0...4] == y[0...4])
            // Each file rounds once: mg/dL to 0.1 (predictions) and 1 (references), mmol/L to 0.01 and 0.1.
            worst.prediction = max(worst.prediction, abs(Double(y[5])! - Double(x[5])! / Self.factor))
            if !x[6].isEmpty { worst.reference = max(worst.reference, abs(Double(y[6])! - Double(x[6])! / Self.factor)) }
        }
        #expect(worst.prediction <= 0.005 + 0.05 / Self.factor + 1e-9)
        #expect(worst.reference <= 0.05 + 0.5 / Self.factor + 1e-9)
        let e1 = try lines(mgdl, "alerts.csv"), e2 = try lines(mmol, "alerts.csv")
        #expect(e2[0].joined(separator: ",") == AlertEpisode.csvHeader(units: .mmolL))
        for (x, y) in zip(e1.dropFirst(), e2.dropFirst()) {
            #expect(y[4] == (x[2] == "low" ? "3.89" : "13.88"))
            #expect(abs(Double(y[8])! - Double(x[8])! / Self.factor) <= 0.005 + 0.05 / Self.factor + 1e-9)
        }
        // The same night in the other unit would mix headers: refused, nothing written.
        let before = try mmol.files()
        let again = try mmol.scorer().run()
        #expect(again.exitCode == 1)
        if case .otherHeader? = again.failure {} else { Issue.record("expected otherHeader, got \(String(describing: again.failure))") }
        #expect(try mmol.files() == before)
    }

    typealias F = DoseFixture

    func suggestion(_ expression: String, carbs: Double = 20) -> DoseSuggestion {
        let model = F.model(expression, horizon: 60, features: FeatureSet(horizonMinutes: 60))
        return DoseAdvisor.suggest(log: F.flatLog(), carbs: carbs, at: F.at(90), settings: F.settings(), models: F.models([model]))
    }

    @Test func doseJSONInMmolL() throws {
        let s = suggestion("G0 - 35")
        func object(_ units: GlucoseUnit) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(try s.json(units: units).utf8)) as? [String: Any])
        }
        let mg = try object(.mgdL), mmol = try object(.mmolL)
        #expect(mg["glucose_units"] as? String == "mg/dL" && mmol["glucose_units"] as? String == "mmol/L")
        // As written, not `mg\/dL`: `grep '"mg/dL"'` on the file finds it (hunt F, stop 51).
        #expect(try s.json(units: .mgdL).contains(#""glucose_units" : "mg/dL""#))
        // Every glucose key is renamed, nothing else.
        #expect(Set(mg.keys.map { $0.replacingOccurrences(of: "_mgdl", with: "_mmoll") }) == Set(mmol.keys))
        #expect(mg.keys.contains("glucose_mgdl") && mg.keys.contains("predicted_with_dose_mgdl"))
        // 180 / 18.01559 = 9.9913 -> 9.99; target 110 -> 6.1058 -> 6.11; suspend 70 -> 3.8855 -> 3.89;
        // ISF 35 mg/dL/U -> 1.94275 -> 1.943 mmol/L/U.
        #expect(mmol["glucose_mmoll"] as? Double == 9.99 && mg["glucose_mgdl"] as? Double == 180)
        #expect(mmol["target_mmoll"] as? Double == 6.11 && mmol["suspend_mmoll"] as? Double == 3.89)
        #expect(mmol["isf"] as? Double == 1.943 && mg["isf"] as? Double == 35)
        // Doses and grams do not change with the unit.
        for key in ["units", "model_units", "formula_units", "carbs_g", "net_iob_units", "carb_ratio"] {
            #expect((mg[key] as? Double) == (mmol[key] as? Double), "\(key)")
        }
        let curveMg = try #require(mg["predicted_with_dose_mgdl"] as? [Double])
        let curveMmol = try #require(mmol["predicted_with_dose_mmoll"] as? [Double])
        #expect(curveMg.count == curveMmol.count && !curveMg.isEmpty)
        #expect(zip(curveMg, curveMmol).allSatisfy { abs($1 - $0 / Self.factor) <= 0.005 + 0.05 / Self.factor + 1e-9 })
    }

    @Test func doseTextAndReasonsInMmolL() throws {
        let text = suggestion("G0 - 35").report(units: .mmolL)
        // 180 mg/dL -> 9.99 -> "10.0"; settings ISF 1.94, target 6.1, suspend 3.9.
        #expect(text.contains("glucose now: 10.0 mmol/L at 2026-01-05T11:30:00Z"))
        #expect(text.contains("settings: ICR 10 g/U, ISF 1.94 mmol/L/U, target 6.1 mmol/L, suspend below 3.9 mmol/L"))
        #expect(!text.contains("mg/dL"))
        #expect(suggestion("G0 - 35").report.contains("settings: ICR 10 g/U, ISF 35 mg/dL/U, target 110 mg/dL, suspend below 70 mg/dL"))
        // G0 - 120 predicts 60 mg/dL at 60 min: 60 / 18.01559 = 3.33 -> 3.3; the threshold 70 -> 3.9.
        let low = suggestion("G0 - 120", carbs: 0)
        // A value that rounds to the threshold is shown with a decimal more, rounded down: it read
        // "70.0 mg/dL, below the suspend threshold 70.0 mg/dL". 69.96 / 18.01559 = 3.8833 -> 3.88
        // (the threshold 3.8855 prints 3.89 at two decimals).
        let close = DoseRefusal.predictedBelowSuspend(horizonMinutes: 120, predicted: 69.96, threshold: 70)
        #expect(close.description.hasPrefix("glucose predicted at 120 min is 69.9 mg/dL, below the suspend threshold 70.0 mg/dL"))
        #expect(close.description(units: .mmolL).hasPrefix("glucose predicted at 120 min is 3.88 mmol/L, below the suspend threshold 3.9 mmol/L"))
        #expect(DoseRefusal.belowSuspend(glucose: 69.4, threshold: 70).description.hasPrefix("glucose 69.0 mg/dL is below"))
        let reason = "glucose predicted at 60 min is 3.3 mmol/L, below the suspend threshold 3.9 mmol/L: no insulin; watch for a low"
        #expect(low.report(units: .mmolL).contains("[predicted_below_suspend] " + reason))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(try low.json(units: .mmolL).utf8)) as? [String: Any])
        #expect((json["reasons"] as? [[String: String]])?.first?["message"] == reason)
        #expect(low.report.contains("is 60.0 mg/dL, below the suspend threshold 70.0 mg/dL"))
        // A model at the limit of what it may predict: 600 mg/dL / 18.01559 = 33.30 -> 33.3.
        let limit = DoseNote.modelAtLimit(horizon: 30, glucose: 600)
        #expect(limit.code == "model_unavailable")
        #expect(limit.description.hasPrefix("no model-based dose: the 30-minute model predicts 600 mg/dL, the limit of"))
        #expect(limit.description(units: .mmolL).hasPrefix("no model-based dose: the 30-minute model predicts 33.3 mmol/L, the limit of"))
        #expect(!limit.description(units: .mmolL).contains("mg/dL"))
        // predict's and nightly's note of predictions at the clamp, as the file writes them
        // (10 / 18.01559 = 0.555 -> 0.56, 600 -> 33.30; hunt AD, stop 56: "10 or 600 mg/dL" beside 0.56 and 33.30).
        #expect(PredictionRow.atLimitNote(try PatientID("p1"), count: 2, units: .mmolL)
            .hasPrefix("p1: 2 predictions at the limit of what a model may predict (0.56 or 33.30 mmol/L): "))
        #expect(PredictionRow.atLimitNote(try PatientID("p1"), count: 2).contains("(10 or 600 mg/dL)"))
    }

    /// Values worked by hand: a value beside a threshold that rounds to it gains decimals, rounded
    /// away from the threshold, until it differs; any other value prints as `format` does.
    @Test func valuesBesideAThresholdNeverPrintAsIt() {
        let mg = GlucoseUnit.mgdL, mmol = GlucoseUnit.mmolL
        #expect(mg.format(69.6, apartFrom: 70) == "69.6")        // plain "70"
        #expect(mg.format(69.96, apartFrom: 70) == "69.9")       // rounded down, not to "70.0"
        #expect(mg.format(69.9, apartFrom: 70) == "69.9")        // 699.0 tenths exactly: kept
        #expect(mg.format(69.999, apartFrom: 70) == "69.9")
        #expect(mg.format(69.9999, apartFrom: 70, mgdLDecimals: 1) == "69.99") // "70.0" at one decimal
        #expect(mg.format(250.04, apartFrom: 250) == "250.1")    // a high rounds up
        #expect(mg.format(69.4, apartFrom: 70) == "69")          // already apart
        #expect(mg.format(70, apartFrom: 70) == "70")            // the threshold itself
        #expect(mg.format(70.03, apartFrom: 70) == "70.1")       // above a low threshold: up
        #expect(mg.format(.nan, apartFrom: 70) == "n/a")
        // 69.96 / 18.01559 = 3.88334 -> "3.9" like 70 (3.88550); at two decimals 3.88 against 3.89.
        #expect(mmol.format(69.96, apartFrom: 70) == "3.88")
        #expect(mmol.format(69.99, apartFrom: 70) == "3.88")     // 3.88497
        // Two decimals more when one is not enough: 70.01 and 70.04 both print "70" and "70.0".
        #expect(mg.format(70.01, apartFrom: 70.04) == "70.01")
        #expect(mmol.format(60, apartFrom: 70) == "3.3")
    }

    /// Hunt AD (stop 56): an alert above 11.0 mmol/L (198.17 mg/dL) predicted at 198.2 read
    /// "11.00" above "11.00" in alerts.csv. 198.2 / 18.01559 = 11.0016 -> 11.002 (away from 11.0000).
    @Test func anAlertsExtremeNeverPrintsAsItsThreshold() {
        let t = 11 * 18.01559
        let row = PredictionRow(patient: F.patient, issuedAt: F.at(0), targetTime: F.at(30), horizonMinutes: 30, model: "ge",
                                prediction: 198.2, reference: nil)
        var alert = AlertEpisode(kind: .high, threshold: t, first: row)
        var fields = alert.csvLine(units: .mmolL).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        #expect(fields[4] == "11.00" && fields[8] == "11.002")
        // In mg/dL too: 198.2 beside the threshold's 198.2 (198.17) gains a decimal.
        #expect(alert.csvLine(units: .mgdL).split(separator: ",").map(String.init)[8] == "198.20")
        alert.predictedExtreme = 200
        fields = alert.csvLine(units: .mmolL).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        #expect(fields[8] == "11.10")
    }

    /// A threshold just outside 20-600 mg/dL never reads as the bound (hunt AD, stop 56: "--low 1.11
    /// mmol/L is 20 mg/dL, outside 20-600"): 1.11 x 18.01559 = 19.997 -> 19.99; 1.1 -> 19.8; 33.31 -> 600.1.
    @Test func anImplausibleThresholdNeverReadsAsTheBound() {
        func text(_ v: Double) -> String {
            AlertThresholdProblem.implausible(option: "--low", given: v, unit: .mmolL, mgdL: GlucoseUnit.mmolL.mgdL(v)).description
        }
        #expect(text(1.11) == "--low 1.11 mmol/L is 19.99 mg/dL, outside 20-600 mg/dL; is --units right?")
        #expect(text(1.1).hasPrefix("--low 1.1 mmol/L is 19.8 mg/dL,"))
        #expect(text(33.31).hasPrefix("--low 33.31 mmol/L is 600.1 mg/dL,"))
        #expect(text(0.5).hasPrefix("--low 0.5 mmol/L is 9 mg/dL,"))
    }

    @Test func doseAuditRowsInMmolL() throws {
        let row = DoseAuditRow(patient: F.patient, bolusTime: F.at(90), carbs: 20, doseGiven: 3, suggestion: suggestion("G0 - 35"),
                               glucoseAfter1h: 150, glucoseAfter2h: nil, minimumAfter: 65, maximumAfter: 200, lowFollowed: true)
        let mg = row.csvLine(units: .mgdL).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let mmol = row.csvLine(units: .mmolL).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let header = DoseAuditRow.csvHeader(units: .mmolL).split(separator: ",").map(String.init)
        #expect(header[9] == "glucose_mmoll" && header[11...14] == ["glucose_1h_mmoll", "glucose_2h_mmoll", "min_4h_mmoll", "max_4h_mmoll"])
        #expect(DoseAuditRow.csvHeader(units: .mgdL) == DoseAuditRow.csvHeader)
        // 180 -> 9.99 -> 10.0; 150 -> 8.326 -> 8.3; 65 -> 3.608 -> 3.6; 200 -> 11.101 -> 11.1.
        #expect(mg[9] == "180" && mmol[9] == "10.0")
        #expect(mg[11...14] == ["150", "", "65", "200"] && mmol[11...14] == ["8.3", "", "3.6", "11.1"])
        #expect(mg[0...8] == mmol[0...8] && mg[10] == mmol[10] && mg[15...] == mmol[15...])
    }

    @Test func reportDoseAuditInMmolL() throws {
        let low = suggestion("G0 - 120", carbs: 0), bolus = suggestion("G0 - 35")
        let rows = [low, bolus].map {
            DoseAuditRow(patient: F.patient, bolusTime: F.at(90), carbs: 20, doseGiven: 3, suggestion: $0,
                         glucoseAfter1h: nil, glucoseAfter2h: nil, minimumAfter: nil, maximumAfter: nil, lowFollowed: nil)
        }
        let audit = ReportDoseAudit(audit: rows, settings: F.checked(), units: .mmolL)
        #expect(audit.rows[0].reasons == ["glucose predicted at 60 min is 3.3 mmol/L, below the suspend threshold 3.9 mmol/L: no insulin; watch for a low"])
        // The formula in mmol/L: 180 -> 10.0, target 110 -> 6.1, ISF 35 -> 1.94; the units are the same as in mg/dL.
        let standard = try #require(bolus.standard)
        #expect(audit.rows[1].formula == String(format: "20 g / 10 + (10.0 - 6.1) / 1.94 - IOB %.2f = %.2f U", standard.insulinOnBoard, standard.dose))
        let mg = ReportDoseAudit(audit: rows, settings: F.checked())
        #expect(mg.rows[1].formula == String(format: "20 g / 10 + (180 - 110) / 35 - IOB %.2f = %.2f U", standard.insulinOnBoard, standard.dose))
    }

    @Test func scoringReadsAndPrintsEitherUnit() throws {
        // Pairs away from the grids' lines (70, 180, ...), where 6-decimal mmol/L text could fall either side.
        let pairs: [(Double, Double)] = [(100, 110), (60, 130), (250, 185), (75, 72), (300, 320), (40, 90)]
        let dir = try PredictFixture.temporaryDirectory()
        func write(_ name: String, _ header: String, _ rows: [String]) throws -> URL {
            let url = dir.appendingPathComponent(name)
            try Data(([header] + rows).joined(separator: "\n").utf8).write(to: url)
            return url
        }
        let mgFile = try write("mg.csv", "reference,prediction", pairs.map { "\($0.0),\($0.1)" })
        let mmolFile = try write("mmol.csv", "reference,prediction",
                                 pairs.map { String(format: "%.6f,%.6f", $0.0 / Self.factor, $0.1 / Self.factor) })
        let predictStyle = try write("pred.csv", "patient,prediction_mgdl,reference_mgdl", pairs.map { "p,\($0.1),\($0.0)" })
        func score(_ url: URL, _ units: GlucoseUnit) throws -> (PairScoreSummary, [String]) {
            var lines: [String] = []
            let s = try PairScoring.score(csv: url, units: units, writeLine: { lines.append($0) }, warning: { _ in })
            return (s, lines.dropFirst().map { String($0.split(separator: ",", omittingEmptySubsequences: false)[2...].joined(separator: ",")) })
        }
        let (a, zonesA) = try score(mgFile, .mgdL)
        let (b, zonesB) = try score(mmolFile, .mmolL)
        let (c, zonesC) = try score(predictStyle, .mmolL)
        #expect(zonesA == zonesB && zonesA == zonesC)
        #expect(abs(a.accuracy.rmse - b.accuracy.rmse) < 1e-3 && a.accuracy.rmse == c.accuracy.rmse)
        // The report prints RMSE, MAE and bias in the unit asked, three decimals in mmol/L.
        let rmse = formatNumber(a.accuracy.rmse / Self.factor, decimals: 3)
        #expect(c.report.contains("RMSE \(rmse) mmol/L  MAE \(formatNumber(a.accuracy.mae / Self.factor, decimals: 3)) mmol/L"))
        #expect(a.report.contains("RMSE \(formatNumber(a.accuracy.rmse, decimals: 2)) mg/dL"))
        let both = try write("both.csv", "reference,reference_mgdl,prediction", ["1,1,1"])
        #expect(throws: PairScoring.ScoringError.self) { try PairScoring.score(csv: both, writeLine: { _ in }, warning: { _ in }) }
    }
}
