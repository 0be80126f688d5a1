import Foundation
import Testing
@testable import GlucoModel

/// The rules every importer shares since they use one builder, one set of limits, one
/// wall-clock time type and one CSV splitter.
@Suite struct ImportSharedRulesTests {
    /// Writes `text` to a temporary file named `name` and imports it with `importer`.
    func importText(_ text: String, name: String, _ importer: any PatientDataImporter,
                    zone: String = "UTC") throws -> ImportResult {
        let dir = ScratchSpace.root.appendingPathComponent("shared-rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        var options = Fixture.options
        options.timeZone = try #require(TimeZone(identifier: zone))
        return try importer.importFile(at: url, options: options)
    }

    @Test func csvRowSplitsQuotedFieldsOnBytes() {
        // RFC 4180: a quoted field may hold commas; "" inside quotes is one quote; unquoted fields
        // are trimmed of spaces, and an empty last field is still a field.
        let row = CSVRow(#"x, "a,b","say ""hi""",  plain  ,"#)
        #expect(row.fields == ["x", "a,b", #"say "hi""#, "plain", ""])
        #expect(!row.unterminatedQuote)
        #expect(row.equals(1, "a,b") && row.count == 5)
        // Multi-byte UTF-8 around separators and quotes is kept intact (é = C3 A9, ü = C3 BC, ß = C3 9F).
        #expect(CSVRow(#"é,"ü,ß""#).fields == ["é", "ü,ß"])
        let open = CSVRow(#"a,"open"#)
        #expect(open.unterminatedQuote && open.fields == ["a", "open"])
        // A decimal comma is read when it is the only separator; non-finite text is not a number.
        #expect(CSVRow.number("5,6") == 5.6 && CSVRow.number("nan") == nil && CSVRow(#"1,"2,5""#).number(1) == 2.5)
    }

    @Test func byteLevelDoublesEqualSwiftsStringParsing() {
        // The reference is Swift's own `Double(String)` (strtod): the byte fast path must give the
        // bit-identical value for every plain decimal, and defer to it for everything else, except
        // that `nan` and `inf` are no number (issue #12: the one reader takes finite decimals only).
        var rng = SystemRandomNumberGenerator()
        var texts = ["0", "-0", "00012.50", "123.4", "-98.7", "999999999999999", "0.000000000000001", "1234567890.12345",
                     "1e2", "5.", ".5", "+5", "-", ".", "nan", "inf", "1.2.3", "12a", "1234567890123456.7"]
        for _ in 0..<5_000 {
            let intDigits = Int.random(in: 1...8, using: &rng), fracDigits = Int.random(in: 0...7, using: &rng)
            let int = String((0..<intDigits).map { _ in Character(String(Int.random(in: 0...9, using: &rng))) })
            let frac = String((0..<fracDigits).map { _ in Character(String(Int.random(in: 0...9, using: &rng))) })
            texts.append((Bool.random(using: &rng) ? "-" : "") + int + (frac.isEmpty ? "" : "." + frac))
        }
        for text in texts {
            let parsed = CSVRow(text).double(0), expected = Double(text).flatMap { $0.isFinite ? $0 : nil }
            #expect(parsed?.bitPattern == expected?.bitPattern, "\(text)")
        }
    }

    @Test func zeroAmountsAreNoRecordButAZeroBasalIsASuspension() throws {
        let csv = """
        patient,time,event,value,unit
        p0,2026-01-05T08:00:00,bolus,0,U
        p0,2026-01-05T08:05:00,carbs,0,g
        p0,2026-01-05T08:10:00,bolus,0.5,U
        p0,2026-01-05T09:00:00,basal,0,U/h
        """
        let r = try importText(csv, name: "zero.csv", LogCSVImporter())
        // 0 U and 0 g fall below ImportLimits.doseUnits / carbGrams (0.001...): 2 rows out of range.
        #expect(r.summary.skipped == ["out of range": 2])
        #expect(r.log.boluses.map(\.dose.units) == [0.5])
        #expect(r.log.carbs.isEmpty)
        #expect(r.log.basalRates.map(\.rate.unitsPerHour) == [0])
    }

    @Test func timesBefore1990AreSkippedByEveryImporter() throws {
        let csv = "patient,time,event,value,unit\np0,1985-06-01T08:00:00,glucose,100,mg/dL\np0,2026-01-05T08:00:00,glucose,100,mg/dL\n"
        let r = try importText(csv, name: "old.csv", LogCSVImporter())
        #expect(r.summary.skipped == ["dated before 1990": 1])
        #expect(r.summary.issues.first?.location.line == 2)
        #expect(r.log.glucose.count == 1)
    }

    /// Madrid changes from CET (UTC+1) to CEST (UTC+2) at 02:00 on 2026-03-29 and back at 03:00 CEST
    /// on 2026-10-25. So 02:30 on 29 March does not exist (shifted forward by the hour: 03:30 CEST =
    /// 01:30Z); on 25 October 02:30 happens twice: first in CEST (00:30Z), and 02:10 written after it
    /// is the second pass, in CET (01:10Z).
    /// Before: an OhioT1DM file of mmol/L values gave "mean glucose 10.7 mg/dL" (the values below
    /// 10 skipped one by one, the rest kept as mg/dL), and mg/dL values marked mmol/L a mean of 844.
    @Test func aFileWhoseGlucoseLooksLikeTheOtherUnitIsRefusedByEveryBuilder() throws {
        func events(_ values: [Double]) -> String {
            values.enumerated().map { i, v in #"    <event ts="05-01-2026 08:\#(String(format: "%02d", i * 5)):00" value="\#(v)"/>"# }
                .joined(separator: "\n")
        }
        let mmol = [5.5, 6.1, 7.8, 12.4, 9.0, 4.2]
        let xml = "<patient id=\"p0\" weight=\"70\" insulin_type=\"rapid-acting\">\n  <glucose_level>\n\(events(mmol))\n  </glucose_level>\n</patient>\n"
        let error = try #require(throws: InputError.self) { try importText(xml, name: "mmol.xml", OhioXMLImporter()) }
        #expect(error.issue.location.file.hasSuffix("mmol.xml"))
        #expect(error.issue.message.hasPrefix("6 of 6 glucose values are below 30, as mmol/L values are, but they are read as mg/dL"))
        let csv = "patient,time,event,value,unit\n" + [100.0, 140, 180, 6.5].enumerated()
            .map { i, v in "p0,2026-01-05T08:\(String(format: "%02d", i * 5)):00Z,glucose,\(v),mmol/L" }.joined(separator: "\n")
        let reverse = try #require(throws: InputError.self) { try importText(csv, name: "labelled.csv", LogCSVImporter()) }
        #expect(reverse.issue.message.hasPrefix("3 of 4 glucose values are above 35, as mg/dL values are, but they are read as mmol/L"))
        // Half or fewer is data (a sensor's odd values are skipped or kept one by one, as before).
        let mostly = "<patient id=\"p0\" weight=\"70\" insulin_type=\"rapid-acting\">\n  <glucose_level>\n\(events([5.5, 6.1, 120, 130]))\n  </glucose_level>\n</patient>\n"
        let r = try importText(mostly, name: "half.xml", OhioXMLImporter())
        #expect(r.log.glucose.map(\.value.mgdL) == [120, 130] && r.summary.rowsSkipped == 2)
    }

    /// Before: "XML error 29" and "XML error 89". An export never declares entities; neither file is read.
    @Test func xmlEntitiesAreRefusedInWords() throws {
        let body = "<patient id=\"p0\" weight=\"70\" insulin_type=\"&x;\">\n<glucose_level>\n<event ts=\"05-01-2026 08:00:00\" value=\"100\"/>\n</glucose_level>\n</patient>\n"
        let external = "<?xml version=\"1.0\"?>\n<!DOCTYPE p [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>\n" + body
        let e1 = try #require(throws: InputError.self) { try importText(external, name: "xxe.xml", OhioXMLImporter()) }
        #expect(e1.issue.message.hasPrefix("malformed XML: an external or unparsed entity"), "\(e1.issue.message)")
        let lol = "<!ENTITY a \"aaaaaaaaaa\">" + (1...9).map { i in
            "<!ENTITY a\(i) \"" + String(repeating: "&a\(i == 1 ? "" : String(i - 1));", count: 10) + "\">" }.joined()
        let bomb = "<?xml version=\"1.0\"?>\n<!DOCTYPE p [\(lol)]>\n" + body.replacingOccurrences(of: "&x;", with: "&a9;")
        let e2 = try #require(throws: InputError.self) { try importText(bomb, name: "bomb.xml", OhioXMLImporter()) }
        #expect(e2.issue.message.hasPrefix("malformed XML: an entity that refers to itself or expands without end"), "\(e2.issue.message)")
    }

    /// Before: a LibreView export with its header and no rows said "every date reads both as
    /// day-month and month-day".
    @Test func anExportWithAHeaderAndNoRowsSaysSo() throws {
        let libre = "Glucose Data,Generated on,01-20-2026 10:15 AM UTC,Generated by,x\n"
            + "Device,Serial Number,Device Timestamp,Record Type,Historic Glucose mg/dL,Scan Glucose mg/dL\n"
        let error = try #require(throws: InputError.self) { try importText(libre, name: "p0.csv", LibreViewImporter()) }
        #expect(error.issue.message == "no row has a date in the Device Timestamp column (a header and no data?)")
    }

    @Test func ohioAndCSVLocalTimesResolveDaylightSavingLikeTheExports() throws {
        let expected = [ExportFixtures.utc("2026-03-29T01:30:00Z"), ExportFixtures.utc("2026-10-25T00:30:00Z"),
                        ExportFixtures.utc("2026-10-25T01:10:00Z")]
        let csv = """
        patient,time,event,value,unit
        p0,2026-03-29T02:30:00,glucose,100,mg/dL
        p0,2026-10-25T02:30:00,glucose,110,mg/dL
        p0,2026-10-25T02:10:00,glucose,120,mg/dL
        """
        let xml = """
        <patient id="p0" weight="70" insulin_type="rapid-acting">
          <glucose_level>
            <event ts="29-03-2026 02:30:00" value="100"/>
            <event ts="25-10-2026 02:30:00" value="110"/>
            <event ts="25-10-2026 02:10:00" value="120"/>
          </glucose_level>
        </patient>
        """
        for r in [try importText(csv, name: "dst.csv", LogCSVImporter(), zone: "Europe/Madrid"),
                  try importText(xml, name: "dst.xml", OhioXMLImporter(), zone: "Europe/Madrid")] {
            #expect(r.log.glucose.map(\.time) == expected)
            #expect(r.log.glucose.map(\.value.mgdL) == [100, 110, 120])
            #expect(r.summary.adjusted[LocalTimeResolver.gapReason] == 1)
            #expect(r.summary.adjusted[LocalTimeResolver.repeatFirstReason] == 1)
            #expect(r.summary.adjusted[LocalTimeResolver.repeatSecondReason] == 1)
        }
    }

    @Test func exportSummariesBalanceAndRecordsKeepTheirLines() throws {
        let r = try TidepoolImporter().importFile(at: ExportFixtures.url("tidepool.json"), options: ExportFixtures.options("UTC"))
        // 14 records: 11 kept, 1 skipped ('x' glucose), and upload + wizard read but not modelled.
        #expect(r.summary.notModelled == ["Tidepool upload": 1, "Tidepool wizard": 1])
        #expect(r.summary.isBalanced)
        // Glucose sorted by time: cbg 08:00 (line 3), cbg 08:05 (line 4), smbg 08:07 (line 5); basal on line 10.
        #expect((0..<3).map { r.line(of: .glucose, $0) } == [3, 4, 5])
        #expect(r.line(of: .basal, 0) == 10)
    }
}
