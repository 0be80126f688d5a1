import Foundation
import Testing
@testable import GlucoModel

/// Hunt BA (stop 60): a pen user's long-acting and rapid injections, as xDrip+ (through Nightscout),
/// LibreView and a logbook app's CSV write them. Every expected value is worked out by hand.
@Suite struct PenRecordsTests {
    static let at = PumpRecordsTests.at
    static let iso = PumpRecordsTests.iso

    /// xDrip+ uploads every pen injection with `insulin` and names the insulin in `insulinInjections`
    /// (a JSON text). A long-acting one is the basal of a person on pens: read as a bolus, 16 U of
    /// Tresiba put 15 U of rapid insulin on board, and a breakfast got "no insulin" where 5 U was right.
    @Test func xDripsLongActingInjectionsAreBasalInjections() throws {
        let r = try PumpRecordsTests.nightscout([
            #"{"eventType":"<none>","created_at":"\#(Self.iso(7.5))","insulin":16,"insulinInjections":"[{\"insulin\":\"Tresiba\",\"units\":16.0}]"}"#,
            #"{"eventType":"Meal Bolus","created_at":"\#(Self.iso(8))","insulin":5,"carbs":45,"insulinInjections":"[{\"insulin\":\"NovoRapid\",\"units\":5.0}]"}"#,
            // One record of both pens: 4 U of Fiasp and 18 U of Lantus, 22 U in `insulin`.
            #"{"eventType":"<none>","created_at":"\#(Self.iso(22))","insulin":22,"insulinInjections":[{"insulin":"Fiasp","units":4},{"insulin":"Lantus","units":18}]}"#,
            // Not readable as a list: the insulin as before, a bolus.
            #"{"eventType":"Correction Bolus","created_at":"\#(Self.iso(12))","insulin":2,"insulinInjections":"not json"}"#,
        ])
        #expect(r.log.basalInjections == [BasalInjection(time: Self.at(7.5), dose: InsulinUnits(16)),
                                          BasalInjection(time: Self.at(22), dose: InsulinUnits(18))], "\(r.log.basalInjections)")
        #expect(r.log.boluses.map(\.dose.units) == [5, 2, 4] && r.log.boluses.map(\.time) == [Self.at(8), Self.at(12), Self.at(22)])
        #expect(r.summary.rowsSkippedForProblems == 0, "\(r.summary.skipped)")
    }

    /// LibreView's `Non-numeric Rapid-Acting Insulin`: an injection logged without its units. Read as
    /// a row with no value, a dose 30 minutes later stacked on it (4.00 U); it is skipped insulin, as a
    /// dose typed wrong is. The long-acting one is skipped too (a dose does not count it either way).
    @Test func libreViewsInjectionsWithoutUnitsAreSkippedInsulin() throws {
        let url = try ExportCSVTests.libreFile([
            ExportCSVTests.libreGlucoseRow("09-03-2026 10:55", 150),
            "FreeStyle Libre 2,1A2B,09-03-2026 11:00,4,,,Rapid-acting insulin,,,,,,,,,,,,",
            "FreeStyle Libre 2,1A2B,09-03-2026 22:00,4,,,,,,,,Long-acting insulin,,,,,,,",
            "FreeStyle Libre 2,1A2B,09-03-2026 12:00,4,,,Rapid-acting insulin,3,,,,,,,,,,,",
        ], name: "pen01.csv")
        var options = ExportFixtures.options("UTC")
        options.dateOrder = .dayMonthYear
        let r = try LibreViewImporter().importFile(at: url, options: options)
        // 12:00 has its units: a bolus, and the note beside them changes nothing.
        #expect(r.log.boluses == [Bolus(time: Self.at(12), dose: InsulinUnits(3), kind: .rapid)])
        #expect(r.summary.skipped["insulin without amount"] == 2 && r.summary.skipped["no value"] == nil, "\(r.summary.skipped)")
        let skipped = (r.summary.skippedInsulin ?? []).sorted { $0.time < $1.time }
        #expect(skipped.map(\.kind) == [.bolus, .basalInjection] && skipped.map(\.time) == [Self.at(11), Self.at(22)], "\(skipped)")
        #expect(skipped.first?.location.field == "Non-numeric Rapid-Acting Insulin")
    }

    /// A logbook app's long-acting column had no field: mapped as `basal`, each 18 U became 18 U/h
    /// (432 U a day). `basal_injection` reads it; a `basal` above 15 U/h is skipped insulin, saying why.
    @Test func aPensLongActingColumnIsBasalInjection() throws {
        let mapping = try CSVColumnMapping(parsing: "time=Date,glucose=Blood Sugar,bolus=Insulin (Pen),basal_injection=Basal Injection Units")
        let url = try ImportMappedCSVTests.file("""
            Date,Blood Sugar,Insulin (Pen),Basal Injection Units
            2026-03-09 07:00,120,,0
            2026-03-09 08:00,140,4.5,0
            2026-03-09 22:00,130,,18

            """)
        let r = try MappedCSVImporter().importFile(at: url, options: ImportMappedCSVTests.options(mapping, zone: "UTC"))
        #expect(r.log.basalInjections == [BasalInjection(time: Self.at(22), dose: InsulinUnits(18))])
        #expect(r.log.boluses.map(\.dose.units) == [4.5] && r.log.basalRates.isEmpty)
        #expect(r.summary.rowsSkippedForProblems == 0, "\(r.summary.skipped)")

        let asBasal = try CSVColumnMapping(parsing: "time=Date,glucose=Blood Sugar,bolus=Insulin (Pen),basal=Basal Injection Units")
        let wrong = try MappedCSVImporter().importFile(at: url, options: ImportMappedCSVTests.options(asBasal, zone: "UTC"))
        #expect(wrong.log.basalRates.count == 1 && wrong.log.basalRates.first?.rate.unitsPerHour == 0  // the zeros: a rate of 0
                && wrong.summary.skippedInsulin?.map(\.kind) == [.basal])
        #expect(wrong.summary.issues.map(\.message).joined().contains(
            "a basal rate of 18 U/h is above 15 U/h: a long-acting injection's units? Map that column as basal_injection"))
    }

    /// 18 U of glargine at 22:00 each night; on the fourth night taken again at 22:50. Asked at 23:00,
    /// the dose notes 36 U in the last 14 h, 2.0 times the usual 18 U (the median of the nights
    /// before): long-acting insulin counts on neither side, so neither dose sees it (hunt BA). A
    /// person on two doses a day (9 U at 08:00 and 20:00) gets no note; nor does a dose an hour late,
    /// nor one split into two injections of the usual total. Taken again at 10:30 the next morning
    /// (12.5 h later) it is noted (with 12 h, until stop 61, it was not).
    @Test func aLongActingDoseTakenTwiceIsNoted() throws {
        typealias F = DoseFixture
        func ask(_ injections: [(day: Double, hour: Double, units: Double)], at hour: Double) -> DoseSuggestion {
            var log = F.flatLog(glucose: 160, through: 3 * 1440 + (hour - 10) * 60)
            log.glucose = log.glucose.filter { $0.time > F.at(3 * 1440 + (hour - 10) * 60 - 120) }
            log.basalInjections = injections.map { BasalInjection(time: F.at($0.day * 1440 + ($0.hour - 10) * 60), dose: InsulinUnits($0.units)) }
            return DoseAdvisor.suggest(log: log, carbs: 0, at: F.at(3 * 1440 + (hour - 10) * 60), settings: F.settings(), models: nil,
                                       timeZone: TimeZone(identifier: "UTC")!)
        }
        let nightly = [(0.0, 22.0, 18.0), (1, 22, 18), (2, 22, 18)].map { (day: $0.0, hour: $0.1, units: $0.2) }
        let twice = ask(nightly + [(day: 3, hour: 22, units: 18), (day: 3, hour: 22 + 50.0 / 60, units: 18)], at: 23)
        let note = try #require(twice.reasons.first { $0.code == "long_acting_above_usual" }, "\(twice.reasons)")
        #expect(note.message.hasPrefix("long-acting insulin injected in the last 14 h: 36.0 U, 2.0 times the usual daily dose (18.0 U)"))
        let morning = ask(nightly + [(day: 3, hour: 22, units: 18), (day: 4, hour: 10.5, units: 18)], at: 24 + 11)
        #expect(morning.reasons.contains { $0.code == "long_acting_above_usual" }, "\(morning.reasons)")
        let halves = (0..<4).flatMap { d in [(day: Double(d), hour: 22.0, units: 9.0), (day: Double(d), hour: 22 + 5.0 / 60, units: 9.0)] }
        #expect(!ask(halves, at: 23).reasons.contains { $0.code == "long_acting_above_usual" })
        // Said with "no insulin" too: a low now is when it matters (review BB).
        var low = F.flatLog(glucose: 60, through: 3 * 1440 + 13 * 60)
        low.glucose = low.glucose.filter { $0.time > F.at(3 * 1440 + 11 * 60) }
        low.basalInjections = (nightly + [(day: 3, hour: 22, units: 18), (day: 3, hour: 22 + 50.0 / 60, units: 18)])
            .map { BasalInjection(time: F.at($0.day * 1440 + ($0.hour - 10) * 60), dose: InsulinUnits($0.units)) }
        let noInsulin = DoseAdvisor.suggest(log: low, carbs: 0, at: F.at(3 * 1440 + 13 * 60), settings: F.settings(), models: nil,
                                            timeZone: TimeZone(identifier: "UTC")!)
        guard case .noInsulin = noInsulin.decision else { Issue.record("expected no insulin: \(noInsulin.decision)"); return }
        #expect(noInsulin.reasons.map(\.code).contains("long_acting_above_usual"), "\(noInsulin.reasons)")
        let late = ask(nightly + [(day: 3, hour: 23, units: 18)], at: 23.5)
        #expect(!late.reasons.contains { $0.code == "long_acting_above_usual" }, "\(late.reasons)")
        let split = (0..<4).flatMap { d in [(day: Double(d), hour: 8.0, units: 9.0), (day: Double(d), hour: 20.0, units: 9.0)] }
        #expect(!ask(split, at: 21).reasons.contains { $0.code == "long_acting_above_usual" })
    }
}
