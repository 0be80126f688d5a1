import Foundation
import Testing
@testable import GlucoModel

/// The retrospective audit on a small log whose rows are worked out by hand.
///
/// Log (2026-01-05, UTC): readings every 5 min 10:00-16:00 at 150 mg/dL, except 65 at 12:30
/// and 200 at 13:00. Boluses: 12:00 5 U with carbInput 60 g; 13:00 2 U without carbInput
/// but 30 g eaten at 13:10; 14:00 1 U correction (nearest intake 50 min away: not a meal).
/// Settings ICR 10, ISF 35, target 110, suspend 70, max 10 U in 0.05 U; no models.
@Suite struct DoseAuditTests {
    typealias F = DoseFixture

    func log() -> PatientLog {
        var log = F.flatLog(glucose: 150, through: 360)
        log.glucose = log.glucose.map { r in
            switch r.time {
            case F.at(150): return GlucoseReading(time: r.time, value: .mgdL(65))
            case F.at(180): return GlucoseReading(time: r.time, value: .mgdL(200))
            default: return r
            }
        }
        log.boluses = [Bolus(time: F.at(120), dose: InsulinUnits(5), carbInput: Carbohydrate(grams: 60)),
                       Bolus(time: F.at(180), dose: InsulinUnits(2)),
                       Bolus(time: F.at(240), dose: InsulinUnits(1))]
        log.carbs = [CarbIntake(time: F.at(190), amount: Carbohydrate(grams: 30))]
        return log
    }

    @Test func mealBolusesAreFoundAndAudited() {
        let rows = DoseAudit.run(log: log(), models: nil, settings: F.checked())
        #expect(rows.map(\.bolusTime) == [F.at(120), F.at(180)])
        guard rows.count == 2 else { return }

        // 12:00, data before it: glucose 150 at 11:55, no insulin on board.
        // 60/10 + (150 - 110)/35 = 6 + 1.142857 = 7.142857 -> 7.10 U (142 increments).
        // After: 13:00 -> 200, 14:00 -> 150; (12:00, 16:00]: min 65 (12:30), max 200; a low followed.
        let a = rows[0]
        #expect(a.carbs == 60 && a.doseGiven == 5)
        #expect(a.suggestion.decision == .bolus(units: 7.1, basis: .standardFormula))
        #expect(a.suggestion.glucose == 150 && a.suggestion.glucoseTime == F.at(115))
        #expect(a.glucoseAfter1h == 200 && a.glucoseAfter2h == 150)
        #expect(a.minimumAfter == 65 && a.maximumAfter == 200 && a.lowFollowed == true)
        #expect(a.csvLine == "dose_p1,2026-01-05T12:00:00Z,60.0,5.00,bolus,7.10,standard_formula,,7.10,150,0.00,200,150,65,200,yes,model_unavailable")

        // 13:00 (30 g at 13:10, not in the data before 13:00): glucose 150 at 12:55 (the 200 at
        // 13:00 itself is not "before"); IOB = 5 U given 60 min before: 5 * R(60).
        // 3 + 40/35 - 5 R(60), rounded down, never below 0.
        let b = rows[1]
        let iob = 5 * F.insulinRemaining(60)
        let need = 3 + 40.0 / 35 - iob
        let expected = max(0, (need / 0.05 + 1e-9).rounded(.down) * 0.05)
        #expect(b.carbs == 30 && b.doseGiven == 2)
        #expect(abs((b.suggestion.insulinOnBoard ?? -1) - iob) < 1e-9)
        #expect(abs((b.suggestion.decision.units ?? -1) - expected) < 1e-9)
        #expect(b.suggestion.glucose == 150)
        // After 13:00: 14:00 -> 150, 15:00 -> 150; (13:00, 16:00] holds only 150 (13:00 excluded).
        #expect(b.glucoseAfter1h == 150 && b.glucoseAfter2h == 150)
        #expect(b.minimumAfter == 150 && b.maximumAfter == 150 && b.lowFollowed == false)
    }

    @Test func auditUsesTheModelsFromDataBeforeTheBolus() {
        // 12:00 bolus, readings to 11:55 before it: the features are those of 11:55 (G0 = 150).
        // Model 360 min with no new meal or bolus: G0 - 40*INS + 3*CARB = 150 (nothing on board).
        // The planned 60 g add 35/10 * 60 = 210 mg/dL (the fixture's carbohydrates appear within
        // minutes), so the eventual point asks (150 + 210 - 110)/35 = 7.14 U, rounded down 7.10 U,
        // as the formula does here.
        let models = F.models([F.model("G0 - 40*INS + 3*CARB", horizon: 360)])
        let row = DoseAudit.run(log: log(), models: models, settings: F.checked()).first
        #expect(row?.suggestion.featureTime == F.at(115))
        #expect(row?.suggestion.decision == .bolus(units: 7.1, basis: .model))
        #expect(row?.csvLine.hasPrefix("dose_p1,2026-01-05T12:00:00Z,60.0,5.00,bolus,7.10,model,7.10,7.10,150,0.00,") == true)
    }

    @Test func periodSelectsBoluses() {
        let period = DateInterval(start: F.at(150), end: F.at(360))
        let rows = DoseAudit.run(log: log(), models: nil, settings: F.checked(), period: period)
        #expect(rows.map(\.bolusTime) == [F.at(180)])
    }

    @Test func matchedIntakeIsPlannedNotHistory() {
        // An intake logged 5 min before the bolus is the bolus's meal: it must not also be on
        // board in the history. 40 g at 11:55, bolus at 12:00 without carbInput:
        // 40/10 + 40/35 = 5.142857 -> 5.10 U (COB would not change the formula, but the model
        // features must not see it twice: the history handed over has no carbs).
        var l = log()
        l.boluses = [Bolus(time: F.at(120), dose: InsulinUnits(4))]
        l.carbs = [CarbIntake(time: F.at(115), amount: Carbohydrate(grams: 40))]
        let rows = DoseAudit.run(log: l, models: nil, settings: F.checked())
        #expect(rows.count == 1)
        #expect(rows.first?.carbs == 40)
        #expect(rows.first?.suggestion.decision == .bolus(units: 5.1, basis: .standardFormula))
        #expect(DoseAudit.mealBoluses(l).first?.intakes.count == 1)
    }

    /// The meal's own carbohydrates are taken out of the history (so as not to count twice), but
    /// they are records of the data: a model trained with carbohydrates still doses the log's first
    /// meal, whose intake is the only one before it. Before stop 53 it was refused as "the data has
    /// no carbohydrate records" and the formula's dose shown. The same 40 g at 11:55 with a 4 U bolus
    /// at 12:00 as above; the model (360 min, nothing on board) asks 40/10 + (150 - 110)/35 =
    /// 5.142857 -> 5.10 U, as the formula does.
    @Test func theMealsOwnCarbohydratesAreRecordsOfTheData() {
        var l = log()
        l.boluses = [Bolus(time: F.at(120), dose: InsulinUnits(4))]
        l.carbs = [CarbIntake(time: F.at(115), amount: Carbohydrate(grams: 40))]
        // Trained with carbohydrates and boluses (the fixture's log has no basal records).
        var model = F.model("G0 - 40*INS + 3*CARB", horizon: 360)
        model.absentRecords = [PatientLog.RecordInputs.basal.rawValue]
        let row = DoseAudit.run(log: l, models: F.models([model]), settings: F.checked()).first
        #expect(row?.suggestion.decision == .bolus(units: 5.1, basis: .model), "\(row?.suggestion.reasons.map(\.message) ?? [])")
        // The history without the meal's intake holds no carbohydrate record of its own: without
        // the audit's word, the model's CARB would be an input the data lacks.
        var bare = DoseAdvisor.history(l, at: F.at(120), inclusive: false)
        bare.carbs = []
        bare.inputsBefore.formUnion([.insulin, .bolus])  // as the audit marks them
        #expect(F.models([model]).missingInput(in: bare)?.records == .carbohydrate)
    }

    @Test func refusedSuggestionsAreRowsToo() {
        // Readings stop at 11:30; the 12:00 bolus has stale data: refused, no suggested dose.
        var l = log()
        l.glucose.removeAll { $0.time > F.at(90) && $0.time < F.at(120) }
        let row = DoseAudit.run(log: l, models: nil, settings: F.checked()).first
        #expect(row?.suggestion.decision.units == nil)
        #expect(row?.csvLine.contains(",refused,,,,,150,,") == true)
        #expect(row?.suggestion.reasonCodes.contains("stale_glucose") == true)
    }

    /// The 13:10 meal of 30 g recorded twice, 20 s apart (two exports merged): the 13:00 bolus
    /// was audited for 60 g. Now its row is refused (`twin_records`), with no dose from the doubled
    /// amount; the 12:00 meal, recorded once, is audited as before.
    @Test func aMealRecordedTwiceIsRefusedNotAuditedDouble() {
        var l = log()
        l.carbs.append(CarbIntake(time: F.at(190 + 20.0 / 60), amount: Carbohydrate(grams: 30)))
        let rows = DoseAudit.run(log: l, models: nil, settings: F.checked())
        #expect(rows.count == 2)
        #expect(rows.first?.suggestion.decision == .bolus(units: 7.1, basis: .standardFormula))
        let twin = rows.last
        #expect(twin?.carbs == 60 && twin?.suggestion.reasonCodes == ["twin_records"])
        #expect(twin?.csvLine.hasPrefix("dose_p1,2026-01-05T13:00:00Z,60.0,2.00,refused,,,,,150,") == true, "\(twin?.csvLine ?? "")")
    }

    @Test func headerMatchesTheLine() {
        let columns = DoseAuditRow.csvHeader.split(separator: ",", omittingEmptySubsequences: false).count
        let line = DoseAudit.run(log: log(), models: nil, settings: F.checked())[0].csvLine
        #expect(line.split(separator: ",", omittingEmptySubsequences: false).count == columns)
    }

    @Test func theReportShowsTheAuditRows() {
        let rows = DoseAudit.run(log: log(), models: nil, settings: F.checked())
        let section = ReportDoseAudit(audit: rows, settings: F.checked())
        #expect(section.rows.count == 2)
        let first = section.rows[0]
        #expect(first.time == F.at(120) && first.given == InsulinUnits(5) && first.suggested == InsulinUnits(7.1))
        #expect(first.carbs == Carbohydrate(grams: 60) && first.glucoseAfter2h == GlucoseValue(mgdL: 150) && first.lowAfter)
        // 60 g / 10 + (150 - 110) / 35 - IOB 0 = 7.10 U, as worked out above.
        #expect(first.formula == "60 g / 10 + (150 - 110) / 35 - IOB 0.00 = 7.10 U")
        #expect(section.note?.contains("carb ratio 10 g/U") == true)
        // Audit 38: a net IOB a hair below zero printed "- IOB -0.00".
        var tiny = rows
        tiny[0].suggestion.standard?.insulinOnBoard = -0.001
        #expect(ReportDoseAudit(audit: tiny, settings: F.checked()).rows[0].formula == "60 g / 10 + (150 - 110) / 35 - IOB 0.00 = 7.10 U")
        tiny[0].suggestion.standard?.insulinOnBoard = -0.5
        #expect(ReportDoseAudit(audit: tiny, settings: F.checked()).rows[0].formula.contains("- IOB -0.50 ="))
    }
}

/// The boluses the audit leaves out, counted by hand: of four boluses, one has a carbInput, one is
/// 10 minutes from a logged meal, two have no carbohydrates near them; one of those is outside the period.
@Suite struct DoseAuditCoverageTests {
    @Test func bolusesWithoutCarbsAreCounted() throws {
        var log = PatientLog(patient: try PatientID("p1"))
        let t0 = Fixture.date("2026-01-05T08:00:00Z")
        func at(_ h: Double) -> Date { t0.addingTimeInterval(h * 3600) }
        log.boluses = [Bolus(time: at(0), dose: InsulinUnits(4), carbInput: Carbohydrate(grams: 40)),
                       Bolus(time: at(4), dose: InsulinUnits(5)),
                       Bolus(time: at(6), dose: InsulinUnits(1.5)),
                       Bolus(time: at(30), dose: InsulinUnits(2))]
        log.carbs = [CarbIntake(time: at(4).addingTimeInterval(600), amount: Carbohydrate(grams: 50))]
        #expect(DoseAudit.mealBoluses(log).count == 2)
        #expect(DoseAudit.bolusesWithoutCarbs(log) == 2)
        #expect(DoseAudit.bolusesWithoutCarbs(log, period: DateInterval(start: t0, end: at(24))) == 1)
        #expect(DoseAudit.notAuditedNote(0) == nil)
        #expect(DoseAudit.notAuditedNote(1) == "1 bolus without logged carbohydrates (corrections, meals not logged) not audited: "
                + "the audit replays meal boluses, with the carbohydrates they were for")
    }
}
