import Foundation
import Testing
@testable import GlucoModel

/// Hunt AB (stop 55): a CGM whose clock runs an hour ahead wrote the last hour's readings after the
/// import's time; the import skipped them with a warning and `dose` went ahead on the newest reading
/// kept, dated "now" but taken an hour before (the peak after lunch, +1.3 U by the formula). The
/// spec refuses a dose when glucose is dated in the future: every importer now keeps the span of
/// glucose readings so skipped (`GlucoseAhead`), the store keeps it with the run, and a dose whose
/// moment it bears on is refused (`future_glucose`).
@Suite struct GlucoseAheadTests {
    static let utc = ExportFixtures.utc
    /// The import's time is `ExportFixtures.now`, 2027-01-01T00:00Z: two readings 10 and 20 minutes after it.
    static let ahead = GlucoseAhead([utc("2027-01-01T00:10:00Z"), utc("2027-01-01T00:20:00Z")])

    /// A GlucoModel CSV: two readings before the import's time, two 10 and 20 minutes after it.
    static let readings = """
        patient,time,event,value,unit
        p0,2026-12-31T23:50:00Z,glucose,120,mg/dL
        p0,2026-12-31T23:55:00Z,glucose,125,mg/dL
        p0,2027-01-01T00:10:00Z,glucose,130,mg/dL
        p0,2027-01-01T00:20:00Z,glucose,135,mg/dL

        """

    static func imported(_ text: String, name: String, _ importer: any PatientDataImporter,
                         options: ImportOptions = ExportFixtures.options("UTC")) throws -> ImportResult {
        try SkippedInsulinTests.importText(text, name: name, importer, options: options)
    }

    static func expectAhead(_ r: ImportResult, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        #expect(r.log.glucoseAhead == ahead, sourceLocation: sourceLocation)
        #expect(r.summary.glucoseAhead == ahead, sourceLocation: sourceLocation)
        #expect(r.log.glucose.count == 2, sourceLocation: sourceLocation)
    }

    @Test func theGlucoModelCSVKeepsTheirSpanAndNotOtherKindsDatedAhead() throws {
        let r = try Self.imported(Self.readings + """
            p0,2027-01-01T00:30:00Z,carbs,40,g
            p0,2031-01-01T00:15:00Z,glucose,140,mg/dL
            """, name: "p0.csv", LogCSVImporter())
        Self.expectAhead(r)
        // The meal too, but it is no glucose; and a date years ahead, a typo rather than a clock, is
        // skipped but not kept: kept, it refused every dose until 2031 (the review of stop 55).
        #expect(r.summary.skipped["future-dated"] == 4)
    }

    @Test func nightscoutEntries() throws {
        let ms = { (t: String) in Int(Self.utc(t).timeIntervalSince1970 * 1000) }
        let r = try Self.imported("""
            {"entries": [
              {"type": "sgv", "sgv": 120, "date": \(ms("2026-12-31T23:50:00Z"))},
              {"type": "sgv", "sgv": 125, "date": \(ms("2026-12-31T23:55:00Z"))},
              {"type": "sgv", "sgv": 130, "date": \(ms("2027-01-01T00:10:00Z"))},
              {"type": "sgv", "sgv": 135, "date": \(ms("2027-01-01T00:20:00Z"))}
            ], "treatments": [{"eventType": "Meal Bolus", "created_at": "2027-01-01T00:30:00Z", "carbs": 40}]}
            """, name: "p0.json", NightscoutImporter())
        Self.expectAhead(r)
    }

    @Test func dexcomClarityEGVs() throws {
        let rows = ["1,2026-12-31T23:50:00,EGV,,,,G6,120,,", "2,2026-12-31T23:55:00,EGV,,,,G6,125,,",
                    "3,2027-01-01T00:10:00,EGV,,,,G6,130,,", "4,2027-01-01T00:20:00,EGV,,,,G6,135,,",
                    "5,2027-01-01T00:30:00,Carbs,,,,,,,40"]
        let r = try Self.imported(([UndatedInsulinTests.clarityHeader] + rows).joined(separator: "\n") + "\n", name: "p0.csv",
                                  DexcomClarityImporter())
        Self.expectAhead(r)
    }

    @Test func aMappedCSVsGlucoseColumn() throws {
        let csv = """
        date,id,CGM,insulin,carbs
        2026-12-31T23:50:00Z,p0,120,,
        2026-12-31T23:55:00Z,p0,125,,
        2027-01-01T00:10:00Z,p0,130,,
        2027-01-01T00:20:00Z,p0,135,,
        2027-01-01T00:30:00Z,p0,,,40
        """
        Self.expectAhead(try Self.imported(csv, name: "p0.csv", MappedCSVImporter(), options: ImportMappedCSVTests.options(zone: "UTC")))
    }

    @Test func tidepoolReadings() throws {
        let json = """
        [
        {"type": "cbg", "units": "mg/dL", "value": 120, "time": "2026-12-31T23:50:00.000Z"},
        {"type": "cbg", "units": "mg/dL", "value": 125, "time": "2026-12-31T23:55:00.000Z"},
        {"type": "smbg", "units": "mg/dL", "value": 130, "time": "2027-01-01T00:10:00.000Z"},
        {"type": "cbg", "units": "mg/dL", "value": 135, "time": "2027-01-01T00:20:00.000Z"},
        {"type": "food", "nutrition": {"carbohydrate": {"net": 40, "units": "grams"}}, "time": "2027-01-01T00:30:00.000Z"}
        ]
        """
        Self.expectAhead(try Self.imported(json, name: "p0.json", TidepoolImporter()))
    }

    /// The store keeps the span with the run's summary and gives it back with the log (and a
    /// window of it), and two runs' spans join.
    @Test func theStoreKeepsTheSpan() throws {
        let url = try SkippedInsulinTests.file(Self.readings, name: "p0.csv")
        let dir = url.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try PatientStore(path: dir.appendingPathComponent("store.sqlite").path)
        _ = try store.importFile(url, importer: LogCSVImporter(), options: ExportFixtures.options("UTC"))
        let p0 = try PatientID("p0")
        #expect(try store.log(for: p0).glucoseAhead == Self.ahead)
        #expect(try store.log(for: p0, since: Self.utc("2026-12-31T23:00:00Z")).glucoseAhead == Self.ahead)
        let later = dir.appendingPathComponent("p0-later.csv")
        try Data("patient,time,event,value,unit\np0,2027-01-01T00:00:00Z,glucose,140,mg/dL\np0,2027-01-01T00:45:00Z,glucose,150,mg/dL\n".utf8)
            .write(to: later)
        _ = try store.importFile(later, importer: LogCSVImporter(), options: ExportFixtures.options("UTC"))
        #expect(try store.log(for: p0).glucoseAhead
                == GlucoseAhead(["2027-01-01T00:10:00Z", "2027-01-01T00:20:00Z", "2027-01-01T00:45:00Z"].map(Self.utc)))
        // An hour later the next export holds the readings of 00:10 and 00:20 (their time has come):
        // those times are settled, 00:45's is not (the second review of stop 55: kept for good, a
        // clock a minute fast refused a store's replays near every import).
        let next = dir.appendingPathComponent("p0-next.csv")
        try Data("patient,time,event,value,unit\np0,2027-01-01T00:10:00Z,glucose,130,mg/dL\np0,2027-01-01T00:20:10Z,glucose,135,mg/dL\n".utf8)
            .write(to: next)
        var hourLater = ExportFixtures.options("UTC")
        hourLater.now = Self.utc("2027-01-01T00:30:00Z")
        _ = try store.importFile(next, importer: LogCSVImporter(), options: hourLater)
        #expect(try store.log(for: p0).glucoseAhead == GlucoseAhead([Self.utc("2027-01-01T00:45:00Z")]))
        // A summary whose key holds another shape reads as none, and the store's log is still read.
        let odd = try JSONDecoder().decode(ImportSummary.self, from: Data(#"{"file":"x","rowsRead":1,"recordsKept":1,"skipped":{},"adjusted":{},"notModelled":{},"issues":[],"glucoseAhead":{"earliest":1,"latest":2,"count":2}}"#.utf8))
        #expect(odd.glucoseAhead?.times == [])
    }

    /// The dose: refused at the import's time (the readings kept look fresh), with the span in the
    /// message; not for a replay further back than the insulin's action, nor once the moment is
    /// past the latest of them.
    @Test func aDoseTheyBearOnIsRefused() throws {
        var log = DoseFixture.flatLog()
        log.glucoseAhead = GlucoseAhead(stride(from: 95.0, through: 150, by: 5).map(DoseFixture.at))
        let s = DoseAdvisor.suggest(log: log, carbs: 30, at: DoseFixture.at(90), settings: DoseFixture.settings(), models: nil)
        #expect(s.decision.units == nil && s.reasonCodes == ["future_glucose"], "\(s.reasons)")
        #expect(s.reasons[0].message.hasPrefix("12 glucose reading(s) dated 2026-01-05T11:35:00Z to 2026-01-05T12:30:00Z, after the time the data was read, were skipped: the CGM's clock runs ahead"))
        // Within the insulin's action (360 min) after the moment, two readings 5 minutes apart (11:35
        // and 11:40): refused; a minute earlier only one of them is within it: dosed.
        #expect(DoseGuards.glucoseAheadRefusal(log, at: DoseFixture.at(100 - 360), window: 360 * 60) != nil)
        #expect(DoseGuards.glucoseAheadRefusal(log, at: DoseFixture.at(100 - 361), window: 360 * 60) == nil)
        // One reading a little ahead, or readings less than 5 minutes apart (a clock drifting a minute
        // or two, an export made as a reading came in): dosed on the reading before.
        log.glucoseAhead = GlucoseAhead([DoseFixture.at(92)])
        #expect(DoseGuards.glucoseAheadRefusal(log, at: DoseFixture.at(90), window: 360 * 60) == nil)
        log.glucoseAhead = GlucoseAhead([DoseFixture.at(92), DoseFixture.at(96)])
        #expect(DoseGuards.glucoseAheadRefusal(log, at: DoseFixture.at(90), window: 360 * 60) == nil)
        log.glucoseAhead = GlucoseAhead([DoseFixture.at(92), DoseFixture.at(97)])
        #expect(DoseGuards.glucoseAheadRefusal(log, at: DoseFixture.at(90), window: 360 * 60) != nil)
        log.glucoseAhead = GlucoseAhead(stride(from: 95.0, through: 150, by: 5).map(DoseFixture.at))
        // At or after the latest (the clock set right, the hour passed): dosed.
        #expect(DoseGuards.glucoseAheadRefusal(log, at: DoseFixture.at(150), window: 360 * 60) == nil)
        log.glucoseAhead = nil
        #expect(DoseAdvisor.suggest(log: log, carbs: 30, at: DoseFixture.at(90), settings: DoseFixture.settings(), models: nil).decision.units == 5)
    }
}
