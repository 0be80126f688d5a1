import Foundation
import Testing
@testable import GlucoModel

/// Net insulin on board (dosing.md): boluses plus delivered minus scheduled basal, worked out by
/// hand on the 5-minute grid, where a step ending at `t` holds what was delivered in `(t - 5, t]`.
@Suite struct NetInsulinTests {
    typealias F = DoseFixture
    let R = { (t: Double) in DoseFixture.insulinRemaining(t) }

    /// Glucose 10:00-11:30, basal 1 U/h programmed from 09:00, suspended (temp 0 U/h) 10:30-11:00,
    /// a 2 U bolus at 11:00; the suggestion at 11:30.
    func log() -> PatientLog {
        var log = F.flatLog(glucose: 180, through: 90)
        log.basalRates = [BasalRate(start: F.at(-60), rate: InsulinRate(unitsPerHour: 1))]
        log.temporaryBasals = [TemporaryBasal(start: F.at(30), end: F.at(60), rate: InsulinRate(unitsPerHour: 0))]
        log.boluses = [Bolus(time: F.at(60), dose: InsulinUnits(2))]
        return log
    }

    /// The suspension withheld 1/12 U in each of the six steps ending 10:35 ... 11:00, which at
    /// 11:30 are 55 ... 30 minutes old; the bolus is 30 minutes old.
    var expectedWithSuspension: Double {
        2 * R(30) - (1.0 / 12) * [55.0, 50, 45, 40, 35, 30].map(R).reduce(0, +)
    }

    @Test func suspensionAndBolusFromTheDataSchedule() {
        let s = DoseAdvisor.suggest(log: log(), carbs: 0, at: F.at(90), settings: F.settings(), models: nil)
        #expect(s.basalScheduleSource == .data)
        #expect(abs((s.insulinOnBoard ?? .nan) - expectedWithSuspension) < 1e-9)
        // The scheduled basal itself is not on board: without the suspension and the bolus, zero.
        var plain = log()
        plain.temporaryBasals = []; plain.boluses = []
        let p = DoseAdvisor.suggest(log: plain, carbs: 0, at: F.at(90), settings: F.settings(), models: nil)
        #expect(abs(p.insulinOnBoard ?? .nan) < 1e-12)
    }

    @Test func settingsScheduleIsUsedWhenGiven() {
        // The same schedule in the settings file: the same net IOB, said to come from the settings.
        var settings = F.settings()
        settings.basalSchedule = [.init(start: "00:00", unitsPerHour: 1)]
        let same = DoseAdvisor.suggest(log: log(), carbs: 0, at: F.at(90), settings: settings, models: nil)
        #expect(same.basalScheduleSource == .settings)
        #expect(abs((same.insulinOnBoard ?? .nan) - expectedWithSuspension) < 1e-9)
        // A schedule of 2 U/h from 11:00 while the pump still gave 1 U/h: another 1/12 U short in each
        // step ending 11:05 ... 11:30 (25 ... 0 minutes old).
        settings.basalSchedule = [.init(start: "00:00", unitsPerHour: 1), .init(start: "11:00", unitsPerHour: 2)]
        let higher = DoseAdvisor.suggest(log: log(), carbs: 0, at: F.at(90), settings: settings, models: nil)
        let short = (1.0 / 12) * [25.0, 20, 15, 10, 5, 0].map(R).reduce(0, +)
        #expect(abs((higher.insulinOnBoard ?? .nan) - (expectedWithSuspension - short)) < 1e-9)
        // An export without the pump's basal records: the schedule is taken to have run, so only
        // the suspension and the bolus count.
        var noBasal = log()
        noBasal.basalRates = []
        settings.basalSchedule = [.init(start: "00:00", unitsPerHour: 1)]
        let assumed = DoseAdvisor.suggest(log: noBasal, carbs: 0, at: F.at(90), settings: settings, models: nil)
        #expect(abs((assumed.insulinOnBoard ?? .nan) - expectedWithSuspension) < 1e-9)
    }

    @Test func basalInjectionsAndNoBasalCountNeitherWay() {
        var log = F.flatLog(glucose: 180, through: 90)
        log.basalInjections = [BasalInjection(time: F.at(0), dose: InsulinUnits(20))]
        log.boluses = [Bolus(time: F.at(60), dose: InsulinUnits(2))]
        let s = DoseAdvisor.suggest(log: log, carbs: 0, at: F.at(90), settings: F.settings(), models: nil)
        #expect(s.basalScheduleSource == NetInsulin.ScheduleSource.none)
        #expect(abs((s.insulinOnBoard ?? .nan) - 2 * R(30)) < 1e-9)
    }

    @Test func scheduleEntriesAreChecked() {
        #expect(throws: BasalScheduleProblem.self) { try BasalSchedule([.init(start: "01:00", unitsPerHour: 1)]) }
        #expect(throws: BasalScheduleProblem.self) {
            try BasalSchedule([.init(start: "00:00", unitsPerHour: 1), .init(start: "00:00", unitsPerHour: 2)])
        }
        #expect(throws: BasalScheduleProblem.self) { try BasalSchedule([.init(start: "00:00", unitsPerHour: 51)]) }
        #expect(throws: BasalScheduleProblem.self) { try BasalSchedule([.init(start: "7:00", unitsPerHour: 1)]) }
        let s = try! BasalSchedule([.init(start: "00:00", unitsPerHour: 0.8), .init(start: "06:30", unitsPerHour: 1.2)])
        let utc = TimeZone(identifier: "UTC")!
        #expect(s.rate(at: Fixture.date("2026-01-05T06:29:00Z"), timeZone: utc).unitsPerHour == 0.8)
        #expect(s.rate(at: Fixture.date("2026-01-05T06:30:00Z"), timeZone: utc).unitsPerHour == 1.2)
        // Local time: 06:30 in Madrid (UTC+1 in January) is 05:30Z.
        let madrid = TimeZone(identifier: "Europe/Madrid")!
        #expect(s.rate(at: Fixture.date("2026-01-05T05:30:00Z"), timeZone: madrid).unitsPerHour == 1.2)
    }
}
