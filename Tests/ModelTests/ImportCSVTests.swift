import Foundation
import Testing
@testable import GlucoModel

@Suite struct ImportCSVTests {
    let url = Fixture.url("csv/log.csv")
    func file(_ line: Int, _ field: String) -> GlucoModel.SourceLocation { GlucoModel.SourceLocation(file: url.path, line: line, field: field) }

    @Test func importsEveryEventKindExactly() throws {
        let log = try LogCSVImporter().importFile(at: url, options: Fixture.options).log
        let d = Fixture.date
        #expect(log.patient.rawValue == "p_csv")
        // 08:00+01:00 is 07:00 UTC, so the CGM reading sorts before the 08:00 (UTC) finger stick.
        // 6.5 mmol/L x 18.01559 = 117.101335 mg/dL.
        #expect(log.glucose.count == 3)
        #expect(log.glucose[0] == GlucoseReading(time: d("2026-01-05T07:00:00Z"), value: .mgdL(100)))
        #expect(log.glucose[1].time == d("2026-01-05T08:00:00Z"))
        #expect(abs(log.glucose[1].value.mgdL - 117.101335) < 1e-9)
        #expect(log.glucose[1].source == .fingerStick && log.glucose[1].moment == .beforeBreakfast && log.glucose[1].note == "fasting")
        #expect(log.glucose[2] == GlucoseReading(time: d("2026-01-05T08:10:00Z"), value: .mgdL(40), censoring: .belowRange))
        // 4 rations x 10 g = 40 g.
        #expect(log.carbs == [CarbIntake(time: d("2026-01-05T07:55:00Z"), amount: Carbohydrate(grams: 40), mealType: .breakfast)])
        #expect(log.boluses == [Bolus(time: d("2026-01-05T08:05:00Z"), dose: InsulinUnits(4)),
                                Bolus(time: d("2026-01-05T12:00:00Z"), end: d("2026-01-05T13:00:00Z"), dose: InsulinUnits(3), type: .square)])
        #expect(log.basalRates == [BasalRate(start: d("2026-01-05T00:00:00Z"), rate: InsulinRate(unitsPerHour: 0.8))])
        #expect(log.temporaryBasals == [TemporaryBasal(start: d("2026-01-05T09:00:00Z"), end: d("2026-01-05T09:30:00Z"),
                                                       rate: InsulinRate(unitsPerHour: 0))])
        #expect(log.basalInjections == [BasalInjection(time: d("2026-01-05T22:00:00Z"), dose: InsulinUnits(12))])
        #expect(log.exercise == [ExerciseSession(time: d("2026-01-05T17:00:00Z"), intensity: 6, durationMinutes: 45)])
        #expect(log.weights == [WeightRecord(time: d("2026-01-05T07:00:00Z"), kilograms: 68.5)])
        #expect(log.heartRate == [HeartRateSample(time: d("2026-01-05T08:00:00Z"), beatsPerMinute: 70)])
    }

    @Test func summaryNamesEveryBadRow() throws {
        let s = try LogCSVImporter().importFile(at: url, options: Fixture.options).summary
        #expect(s.rowsRead == 22) // lines 2-23
        #expect(s.recordsKept == 12)
        #expect(s.skipped == ["empty value": 1, "not a number": 1, "out of range": 2, "future-dated": 1, "unknown unit": 1,
                              "bad time": 1, "unknown event": 1, "other patient": 1, "exact duplicate": 1])
        #expect(s.adjusted == ["censored Low kept at 40 mg/dL": 1, "glucose rows out of time order (sorted)": 1])
        #expect(s.isBalanced)
        #expect(s.issues.map(\.location) == [file(14, "value"), file(15, "value"), file(16, "value"), file(17, "value"),
                                             file(18, "time"), file(19, "unit"), file(20, "time"), file(21, "event"),
                                             file(22, "patient")])
        #expect(s.issues[1].message.contains("'12O' is not a number; expected glucose in mg/dL"))
        #expect(s.issues[0].description.hasSuffix("the value is empty; expected glucose in mg/dL, or Low/High (an empty cell is never read as 0)"))
    }

    /// A megabyte in a glucose row's note is cut to 1000 characters, with a warning naming the
    /// line and field; the reading and a short note are kept as written.
    @Test func longNoteIsCutWithAWarning() throws {
        let long = String(repeating: "é", count: 1_000_000)
        let text = """
            patient,time,event,value,unit,duration,type,moment,note
            p_note,2026-01-05T08:00:00Z,glucose,120,mg/dL,,cgm,,\(long)
            p_note,2026-01-05T08:05:00Z,glucose,121,mg/dL,,cgm,,after coffee
            """
        let result = try ImportSharedRulesTests().importText(text, name: "notes.csv", LogCSVImporter())
        #expect(result.log.glucose.map(\.value.mgdL) == [120, 121])
        #expect(result.log.glucose[0].note == String(repeating: "é", count: 1_000))
        #expect(result.log.glucose[1].note == "after coffee")
        #expect(result.summary.adjusted == ["note cut to 1000 characters": 1])
        #expect(result.summary.issues.map(\.location.line) == [2] && result.summary.issues.map(\.location.field) == ["note"])
        #expect(result.summary.issues[0].message.contains("note of 1000000 characters cut to its first 1000"))
    }

    /// Hunt W (stop 54): a note cell with a line break (a spreadsheet's Alt+Enter), quoted as RFC
    /// 4180 writes it. The row (a 64 mg/dL finger stick) was skipped as "a quoted field is not
    /// closed" and the note's second line read as a row of its own. Now the lines up to the closing
    /// quote are the row. A quote that never closes is a malformed row as before, the rows after
    /// it read; one that a later row's quote would close is no row (wider than the header).
    @Test func aQuotedNoteOverSeveralLinesIsOneRow() throws {
        let text = """
            patient,time,event,value,unit,duration,type,moment,note
            p1,2026-01-05T08:00:00Z,glucose,120,mg/dL,,cgm,,
            p1,2026-01-05T08:02:00Z,glucose,64,mg/dL,,finger,before_breakfast,"felt shaky
            treated with juice, 15 g"
            p1,2026-01-05T08:05:00Z,glucose,118,mg/dL,,cgm,,
            p1,2026-01-05T08:10:00Z,bolus,2,U,,,,"never closed
            p1,2026-01-05T08:15:00Z,glucose,117,mg/dL,,cgm,,
            p1,2026-01-05T08:20:00Z,glucose,116,mg/dL,,cgm,,"a, b"

            """
        let r = try ImportSharedRulesTests().importText(text, name: "notes.csv", LogCSVImporter())
        #expect(r.log.glucose.map(\.value.mgdL) == [120, 64, 118, 117, 116])
        #expect(r.log.glucose[1].note == "felt shaky\ntreated with juice, 15 g" && r.log.glucose[1].source == .fingerStick)
        #expect(r.log.glucose[4].note == "a, b")
        #expect(r.summary.adjusted["quoted field over several lines read as one row"] == 1)
        // Line 6's quote: closed by line 8's first quote, the rows between made one row 16 fields wide: not a row.
        #expect(r.summary.skipped["malformed row"] == 1)
        #expect(r.summary.issues.map(\.location.line) == [6])
        #expect(r.summary.isBalanced && r.summary.rowsRead == 6)
    }

    @Test func missingRequiredColumnIsAnError() throws {
        let bad = Fixture.url("csv/no_value_column.csv")
        let error = try #require(throws: InputError.self) { try LogCSVImporter().importFile(at: bad, options: Fixture.options) }
        #expect(error.issue.location == GlucoModel.SourceLocation(file: bad.path, line: 1, field: "value"))
    }

    @Test func unitConversions() {
        // mg/dL = mmol/L x 18.01559 (molar mass of glucose 180.1559 g/mol / 10).
        #expect(abs(GlucoseValue(mmolL: 10).mgdL - 180.1559) < 1e-9)
        #expect(abs(GlucoseValue(mgdL: 90.07795).mmolL - 5) < 1e-12)
        #expect(abs(GlucoseUnit.mmolL.value(3.9).mgdL - 70.260801) < 1e-9)
        // A ration is 10 g.
        #expect(Carbohydrate(rations: 2.5).grams == 25)
        #expect(Carbohydrate(grams: 45).rations == 4.5)
    }

    @Test func isoTimesWithAndWithoutOffsets() throws {
        let madrid = TimeZone(identifier: "Europe/Madrid")!
        // The instant of a written time: its own offset, else read in `zone` by the shared resolver.
        func instant(_ written: WrittenTimestamp?, _ zone: TimeZone) -> Date? {
            var resolver = LocalTimeResolver(timeZone: zone)
            return written.map { $0.instant ?? resolver.resolve($0.local).date }
        }
        // Summer time in Madrid is UTC+2; an explicit offset wins over the time zone.
        #expect(instant(TimestampParser.iso8601("2026-07-01T12:00"), madrid) == Fixture.date("2026-07-01T10:00:00Z"))
        #expect(instant(TimestampParser.iso8601("2026-07-01 12:00:30-0500"), madrid) == Fixture.date("2026-07-01T17:00:30Z"))
        #expect(TimestampParser.iso8601("2026-02-29T12:00") == nil) // 2026 is not a leap year
        #expect(TimestampParser.iso8601("2026-01-05T25:00") == nil)
        #expect(instant(TimestampParser.dayMonthYear("29-02-2024 23:59:59"), Fixture.utc) == Fixture.date("2024-02-29T23:59:59Z"))
    }

    @Test func detectionPicksTheFormat() throws {
        #expect(try ImportFormats.detect(url) == LogCSVImporter.self)
        #expect(try ImportFormats.detect(Fixture.url("ohio/complete.xml")) == OhioXMLImporter.self)
    }

    /// Format detection finds the GlucoModel CSV header without splitting the whole head: the same
    /// line as splitting it, on random texts of newlines (LF, CR LF, CR), empty and comment lines.
    @Test func headerLineAsSplitFindsIt() {
        var r = SplitMix64(seed: 42)
        let pieces = ["\n", "\r\n", "\r", "#", "# note", "", "time,event,value", "a,b", " ", "\u{2028}", "é"]
        let accept = { (line: Substring) in !line.hasPrefix("#") && !line.isEmpty }
        for _ in 0..<2000 {
            let text = (0..<Int.random(in: 0...12, using: &r)).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &r)] }.joined()
            let expected = text.split(whereSeparator: \.isNewline).first(where: accept)
            #expect(LogCSVImporter.firstLine(of: text, where: accept) == expected, "\(text.debugDescription)")
        }
    }
}
