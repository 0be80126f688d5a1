import Foundation
import Testing
@testable import GlucoModel

/// A person on injections: the known person's log with a daily long-acting dose at 21:00 instead
/// of the pump's basal. Long-acting insulin counts on neither side of net insulin, so the known
/// drift `δ` mg/dL/h is a shortfall of `24·δ/ISF` U/day: with δ = 6 and ISF 40, 3.6 U/day.
@Suite struct SettingsInjectionsTests {
    static func onPens(_ person: KnownPerson, dose: Double) -> (PatientLog, CheckedDoseSettings) {
        let (log, settings) = onPensUnchecked(person, dose: dose)
        return (log, try! settings.checked(for: try! PatientID("known")).get())
    }

    static func onPensUnchecked(_ person: KnownPerson, dose: Double) -> (PatientLog, DoseSettings) {
        var log = person.log()
        log.basalRates = []
        log.basalInjections = (0..<person.days).map { day in
            BasalInjection(time: KnownPerson.day0.addingTimeInterval(Double(day) * 86_400 + 21 * 3_600), dose: InsulinUnits(dose))
        }
        var settings = person.settings
        settings.basalSchedule = nil
        return (log, settings)
    }

    /// The known person 30 mg/dL above what the doses see: fasting above the target, where a dose
    /// may step up (`SettingsEstimatorTests.fastingBelowTheTargetHoldsABasalIncrease`).
    static var aboveTarget: KnownPerson {
        var person = KnownPerson()
        person.offset = 30
        return person
    }

    @Test func theLongActingDoseTakesTheShortfallOfTheFastingHours() {
        let (log, settings) = Self.onPens(Self.aboveTarget, dose: 20)
        let e = SettingsEstimator.estimate(log: log, settings: settings, timeZone: KnownPerson.utc)
        // One daily dose, no blocks of rates (they read "0 U/h: a zero basal is not scaled").
        #expect(e.basal.isEmpty)
        let dose = try! #require(e.longActing)
        #expect(dose.current == 20)
        #expect(dose.periods >= SettingsEstimator.minimumFastingWindows)
        // 20 + 24·6/40 = 23.6 U/day, within 3%; its band holds it.
        #expect(abs(dose.estimate! / 23.6 - 1) < 0.03, "estimate \(dose.estimate!)")
        #expect(dose.band!.low <= 23.6 && 23.6 <= dose.band!.high, "band \(dose.band!)")
        // Within a 20% step: the estimate, rounded toward the current dose to a pen's half unit.
        #expect(dose.suggested == (dose.estimate! * 2).rounded(.down) / 2)
        #expect(dose.reason == "the estimate, rounded toward the current value")
        let row = try! #require(e.rows.last)
        #expect(row.setting == "basalInjections" && row.unit == "U/day" && row.periodKind == "fasting")
        // The ratio and the sensitivity read as with the pump: the long-acting insulin is neither side.
        #expect(abs(e.carbRatio.estimate! / 10 - 1) < 0.03 && abs(e.insulinSensitivity.estimate! / 40 - 1) < 0.03)
        // The suggested file has no long-acting field and gains no schedule.
        #expect(e.suggestedSettings(from: Self.onPensUnchecked(KnownPerson(), dose: 20).1, timeZone: KnownPerson.utc).basalSchedule == nil)
    }

    @Test func aDoseFarFromTheEstimateMovesAtMostTwentyPercentAndARightOneStays() {
        // 10 U/day for a need of 13.6: one run moves it to 12.
        let (log, settings) = Self.onPens(Self.aboveTarget, dose: 10)
        let low = SettingsEstimator.estimate(log: log, settings: settings, timeZone: KnownPerson.utc).longActing!
        #expect(abs(low.estimate! / 13.6 - 1) < 0.03, "estimate \(low.estimate!)")
        #expect(low.suggested == 12 && low.reason == "a bounded step toward the estimate")
        // No drift: the dose given is the need, and the band holds it.
        var right = KnownPerson()
        right.drift = 0
        let (log0, settings0) = Self.onPens(right, dose: 24)
        let kept = SettingsEstimator.estimate(log: log0, settings: settings0, timeZone: KnownPerson.utc).longActing!
        #expect(kept.suggested == 24 && kept.reason == "no change: the current setting is within the 95% band",
                "\(kept.estimate!) \(kept.band!)")
        // Lows beyond the targets hold a higher dose, as they hold a higher basal.
        let held = SettingsEstimator.Injections.estimate(current: 10, windows: [], isf: 40, csf: 4,
                                                         holdingIncrease: "held", holdingDecrease: nil)
        #expect(held.suggested == 10 && held.reason.hasPrefix("too little evidence: 0 fasting windows"))
        // Injections only outside the readings: no dose to start from, and the reason says so.
        let unknown = SettingsEstimator.Injections.estimate(current: nil, windows: [], isf: 40, csf: 4,
                                                            holdingIncrease: nil, holdingDecrease: nil)
        #expect(unknown.suggested == nil && unknown.reason == SettingsEstimator.Injections.noDoseReason)
    }

    @Test func theUsualDailyDoseIsTheMedianOfWholeDays() {
        let utc = KnownPerson.utc, day0 = KnownPerson.day0
        func at(_ day: Double, _ hour: Double, _ units: Double) -> BasalInjection {
            BasalInjection(time: day0.addingTimeInterval(day * 86_400 + hour * 3_600), dose: InsulinUnits(units))
        }
        // Split doses: 10 U at 08:00 and 12 U at 21:00 on days 0-4; day 2's evening dose missed.
        var injections = (0..<5).flatMap { [at(Double($0), 8, 10), at(Double($0), 21, 12)] }
        injections.removeAll { $0 == at(2, 21, 12) }
        let end = day0.addingTimeInterval(5 * 86_400)
        #expect(SettingsEstimator.Injections.dailyDose(injections, from: day0, to: end, timeZone: utc) == 22)
        // From 12:00 on day 0: day 0 is not whole and does not count; days 1, 3, 4 give 22, day 2 gives 10.
        #expect(SettingsEstimator.Injections.dailyDose(injections, from: day0.addingTimeInterval(12 * 3_600), to: end,
                                                       timeZone: utc) == 22)
        // Less than a day read: the days it touches.
        #expect(SettingsEstimator.Injections.dailyDose(injections, from: day0.addingTimeInterval(7 * 3_600),
                                                       to: day0.addingTimeInterval(22 * 3_600), timeZone: utc) == 22)
        // Whole days are local: in New York (UTC−5) day 0's 21:00 UTC dose is 16:00 local, on day 0.
        let ny = TimeZone(identifier: "America/New_York")!
        let pens = (0..<4).map { at(Double($0), 21, 24) }
        #expect(SettingsEstimator.Injections.dailyDose(pens, from: day0, to: day0.addingTimeInterval(4 * 86_400), timeZone: ny) == 24)
    }

    @Test func aPumpUsersTableKeepsItsBlocks() {
        let e = KnownPerson().estimate()
        #expect(e.longActing == nil && e.basal.count == SettingsEstimator.blockStartHours.count)
        #expect(!e.rows.contains { $0.setting == "basalInjections" })
    }

    @Test func theTextGivesTheReadingsTimesWhereTheBlocksAreLocal() {
        let person = KnownPerson()
        let checked = try! person.settings.checked(for: try! PatientID("known")).get()
        let ny = TimeZone(identifier: "America/New_York")!
        let e = SettingsEstimator.estimate(log: person.log(), settings: checked, timeZone: ny)
        // day0 is 2026-01-05T00:00Z: 19:00 the day before in New York (EST, UTC−5).
        #expect(e.report.hasPrefix("Settings the data supports for known (2026-01-04T19:00:00-05:00 to "))
    }
}
