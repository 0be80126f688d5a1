import Foundation
import Testing
@testable import GlucoModel

@Suite struct ImportOhioTests {
    let url = Fixture.url("ohio/complete.xml")
    func file(_ line: Int, _ field: String) -> GlucoModel.SourceLocation { GlucoModel.SourceLocation(file: url.path, line: line, field: field) }

    @Test func importsEveryModelledSectionExactly() throws {
        let result = try OhioXMLImporter().importFile(at: url, options: Fixture.options)
        let log = result.log
        #expect(log.patient.rawValue == "fx_001")
        #expect(log.insulinKind == .rapid)
        let d = Fixture.date
        // CGM after cleaning: 08:05 sorted in; the 08:10 exact duplicate dropped; 08:15 keeps the first (140);
        // 'abc', 1500, 2099, day 32 and the empty value skipped; Low/High censored at 40/400.
        #expect(log.glucose == [
            GlucoseReading(time: d("2026-01-05T08:00:00Z"), value: .mgdL(120)),
            GlucoseReading(time: d("2026-01-05T08:02:00Z"), value: .mgdL(118), source: .fingerStick),
            GlucoseReading(time: d("2026-01-05T08:05:00Z"), value: .mgdL(125)),
            GlucoseReading(time: d("2026-01-05T08:10:00Z"), value: .mgdL(130)),
            GlucoseReading(time: d("2026-01-05T08:15:00Z"), value: .mgdL(140)),
            GlucoseReading(time: d("2026-01-05T08:25:00Z"), value: .mgdL(40), censoring: .belowRange),
            GlucoseReading(time: d("2026-01-05T08:30:00Z"), value: .mgdL(400), censoring: .aboveRange),
        ])
        #expect(log.basalRates == [BasalRate(start: d("2026-01-05T00:00:00Z"), rate: InsulinRate(unitsPerHour: 0.8)),
                                   BasalRate(start: d("2026-01-05T06:00:00Z"), rate: InsulinRate(unitsPerHour: 1.0))])
        #expect(log.temporaryBasals == [TemporaryBasal(start: d("2026-01-05T09:00:00Z"), end: d("2026-01-05T09:30:00Z"),
                                                       rate: InsulinRate(unitsPerHour: 0))])
        #expect(log.boluses == [
            Bolus(time: d("2026-01-05T08:00:00Z"), dose: InsulinUnits(4.5), type: .normal, kind: .rapid, carbInput: Carbohydrate(grams: 45)),
            Bolus(time: d("2026-01-05T12:00:00Z"), end: d("2026-01-05T13:00:00Z"), dose: InsulinUnits(3), type: .square, kind: .rapid),
        ])
        #expect(log.carbs == [CarbIntake(time: d("2026-01-05T07:55:00Z"), amount: Carbohydrate(grams: 45), mealType: .breakfast)])
        #expect(log.exercise == [ExerciseSession(time: d("2026-01-05T17:00:00Z"), intensity: 5, durationMinutes: 45)])
        #expect(log.heartRate == [HeartRateSample(time: d("2026-01-05T08:00:00Z"), beatsPerMinute: 72),
                                  HeartRateSample(time: d("2026-01-05T08:05:00Z"), beatsPerMinute: 75)])
        // The undated patient weight is placed at the first record (basal at 00:00).
        #expect(log.weights == [WeightRecord(time: d("2026-01-05T00:00:00Z"), kilograms: 70)])
        #expect(log.otherRecords == ["sleep": 1, "hypo_event": 1, "basis_gsr": 2])
    }

    @Test func summaryAccountsForEveryRow() throws {
        let s = try OhioXMLImporter().importFile(at: url, options: Fixture.options).summary
        // 28 <event> rows (13 CGM, 1 finger, 2 basal, 1 temp, 3 bolus, 1 meal, 1 exercise, 2 HR,
        // 1 sleep, 1 hypo, 2 gsr) + the weight attribute = 29.
        #expect(s.rowsRead == 29)
        // 7 glucose + 2 basal + 1 temp + 2 bolus + 1 meal + 1 exercise + 2 HR + 1 weight.
        #expect(s.recordsKept == 17)
        #expect(s.skipped == ["not a number": 1, "out of range": 2, "future-dated": 1, "bad time": 1,
                              "empty value": 1, "exact duplicate": 1, "conflicting duplicate": 1])
        #expect(s.notModelled == ["sleep": 1, "hypo_event": 1, "basis_gsr": 2])
        #expect(s.adjusted == ["censored Low kept at 40 mg/dL": 1, "censored High kept at 400 mg/dL": 1,
                               "glucose rows out of time order (sorted)": 1])
        #expect(s.isBalanced)
        #expect(s.issues.map(\.location) == [file(10, "value"), file(13, "value"), file(14, "ts"), file(15, "ts"),
                                             file(16, "value"), file(31, "dose"), file(9, "ts")])
        #expect(s.issues.allSatisfy { $0.severity == .warning })
        let conflict = try #require(s.issues.last)
        #expect(conflict.message.contains("kept the first (\(file(8, "ts")))"))
        #expect(s.issues[0].message.contains("'abc' is not a number"))
        #expect(s.issues[1].message.contains("1500"))
    }

    /// Hunt BW: intensity 11 was "outside the plausible range 0...10 for intensity 1-10", while 0
    /// (at rest) is kept. The message now names the range that is accepted.
    @Test func exerciseIntensityMessageNamesTheAcceptedRange() throws {
        let xml = try ImportMappedCSVTests.file("""
            <patient id="fx_002" weight="70" insulin_type="rapid-acting">
              <exercise>
                <event ts="05-01-2026 17:00:00" intensity="0" duration="45"/>
                <event ts="06-01-2026 17:00:00" intensity="10" duration="45"/>
                <event ts="07-01-2026 17:00:00" intensity="11" duration="45"/>
              </exercise>
            </patient>
            """, name: "p.xml")
        let r = try OhioXMLImporter().importFile(at: xml, options: Fixture.options)
        #expect(r.log.exercise.map(\.intensity) == [0, 10])
        #expect(r.summary.issues.map(\.message) == ["11 is outside the plausible range 0...10 for intensity 0-10 (0 = at rest); skipped"])
        #expect(r.summary.issues.first?.location == GlucoModel.SourceLocation(file: xml.path, line: 5, field: "intensity"))
    }

    @Test func truncatedFileIsAnErrorWithItsLine() throws {
        let truncated = Fixture.url("ohio/truncated.xml")
        let error = try #require(throws: InputError.self) {
            try OhioXMLImporter().importFile(at: truncated, options: Fixture.options)
        }
        #expect(error.issue.location.file == truncated.path)
        // The file has 9 lines and stops inside the <event> on line 9.
        #expect(error.issue.location.line == 9)
    }

    @Test func mismatchedTagAndWrongRootAreErrors() throws {
        let mismatched = Fixture.url("ohio/mismatched.xml")
        let e1 = try #require(throws: InputError.self) { try OhioXMLImporter().importFile(at: mismatched, options: Fixture.options) }
        #expect(e1.issue.location.line == 5) // </basal> closes <glucose_level>
        let wrong = Fixture.url("ohio/wrong_root.xml")
        let e2 = try #require(throws: InputError.self) { try OhioXMLImporter().importFile(at: wrong, options: Fixture.options) }
        #expect(e2.issue.location.line == 2)
        #expect(e2.description.contains("expected <patient>"))
    }

    @Test func patientOptionOverridesAndTimeZoneApplies() throws {
        var options = Fixture.options
        options.patient = try PatientID("renamed")
        options.timeZone = TimeZone(identifier: "Europe/Madrid")!
        let log = try OhioXMLImporter().importFile(at: url, options: options).log
        #expect(log.patient.rawValue == "renamed")
        // 08:00 in Madrid in January (UTC+1) is 07:00 UTC.
        #expect(log.glucose.first?.time == Fixture.date("2026-01-05T07:00:00Z"))
    }

    @Test func recognizesOhioHead() {
        #expect(OhioXMLImporter.recognizes(head: "<patient id=\"1\">\n  <glucose_level>"))
        #expect(!OhioXMLImporter.recognizes(head: "patient,time,event,value"))
        // An export with no sections is still OhioT1DM: read (and found empty), not "no known format".
        #expect(OhioXMLImporter.recognizes(head: "\u{FEFF}<?xml version=\"1.0\"?>\n<!-- x -->\n<patient id=\"559\" weight=\"99\"/>\n"))
        #expect(OhioXMLImporter.recognizes(head: "<patient id=\"559\">\n</patient>\n"))
        // Another format's <patient> element, not at the root (an HL7 CDA document), is not taken.
        #expect(!OhioXMLImporter.recognizes(head: "<ClinicalDocument><recordTarget><patient><name/></patient></recordTarget></ClinicalDocument>"))
        #expect(!OhioXMLImporter.recognizes(head: "<patients id=\"1\"/>"))
    }

    @Test func bundledCohortImportsWithoutWarnings() throws {
        // datasets/ sits at the package root: three levels above this test file.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let file = root.appendingPathComponent("datasets/child_003-ws-testing.xml")
        let result = try OhioXMLImporter().importFile(at: file, options: Fixture.options)
        #expect(result.summary.issues.isEmpty)
        #expect(result.summary.isBalanced)
        // The file's glucose section spans lines 3-1155: 1153 readings, every 5 minutes over 4 days.
        #expect(result.log.glucose.count == 1153)
        #expect(result.log.boluses.count == 15 && result.log.carbs.count == 15 && result.log.basalRates.count == 1)
    }
}
