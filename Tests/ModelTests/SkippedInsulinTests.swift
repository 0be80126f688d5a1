import Foundation
import Testing
@testable import GlucoModel

/// An insulin record the import skips (a 1000 U, -3 U or unreadable bolus, a 75 U/h basal) is kept
/// as a `SkippedInsulin` by every importer and by the store, and a dose within the insulin's action
/// after it is refused (`skipped_insulin_record`). Before, the record was a warning at import and
/// the dose was computed on the rest of the data as if no insulin had been given then.
@Suite struct SkippedInsulinTests {
    static let utc = ExportFixtures.utc

    /// Writes `text` to `name` in a new temporary folder.
    static func file(_ text: String, name: String) throws -> URL {
        let dir = ScratchSpace.root.appendingPathComponent("skipped-insulin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    /// GlucoModel CSV for p0: `header`, readings of 150 mg/dL every 5 minutes from 05:00 to 06:00 on
    /// 2026-01-05 (each row ending in `pad`, the empty fields of `header`'s further columns), then `rows`.
    static func hourAt150(header: String = "patient,time,event,value,unit", pad: String = "", then rows: String) -> String {
        header + "\n"
            + (0..<13).map { "p0,2026-01-05T05:\(String(format: "%02d", $0 * 5)):00Z,glucose,150,mg/dL\(pad)\n" }.joined()
            + rows
    }

    static func importText(_ text: String, name: String, _ importer: any PatientDataImporter,
                           options: ImportOptions = ExportFixtures.options("UTC")) throws -> ImportResult {
        let url = try file(text, name: name)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        return try importer.importFile(at: url, options: options)
    }

    /// What each test file holds, in its own format: glucose, a 1 U bolus at 08:00 (kept), an
    /// unreadable or implausible bolus at 09:00 on `line` (skipped and kept as skipped), and a 0 U
    /// bolus at 10:00 where the format writes one (a cancelled bolus: skipped, not insulin given),
    /// and a 2 U bolus dated 20 minutes after the import's time (`ExportFixtures.now`).
    static func expectOneSkippedBolus(_ r: ImportResult, day: String = "2026-01-05", line: Int, field: String, futureRows: Int = 1,
                                      sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        #expect(r.log.boluses.map(\.dose.units) == [1], sourceLocation: sourceLocation)
        let read = r.log.skippedInsulin.filter { !$0.datedAfterImport }
        #expect(read.map(\.kind) == [.bolus], sourceLocation: sourceLocation)
        #expect(read.map(\.time) == [utc("\(day)T09:00:00Z")], sourceLocation: sourceLocation)
        #expect(read.first?.location.line == line, sourceLocation: sourceLocation)
        #expect(read.first?.location.field == field, sourceLocation: sourceLocation)
        // The last insulin row is dated 20 minutes after the import's time (a clock running ahead).
        let ahead = r.log.skippedInsulin.filter(\.datedAfterImport)
        #expect(ahead.map(\.kind) == [.bolus] && ahead.map(\.time) == [ExportFixtures.now.addingTimeInterval(1200)],
                "\(ahead)", sourceLocation: sourceLocation)
        #expect(r.summary.skipped["future-dated"] == futureRows, sourceLocation: sourceLocation)
        #expect(r.summary.skippedInsulin == r.log.skippedInsulin, sourceLocation: sourceLocation)
    }

    @Test func theGlucoModelCSVKeepsSkippedBolusesAndBasalsButNotCancelledOnes() throws {
        let csv = """
        patient,time,event,value,unit
        p0,2026-01-05T08:00:00Z,glucose,120,mg/dL
        p0,2026-01-05T08:05:00Z,glucose,125,mg/dL
        p0,2026-01-05T08:10:00Z,glucose,130,mg/dL
        p0,2026-01-05T08:00:00Z,bolus,1,U
        p0,2026-01-05T09:00:00Z,bolus,1000,U
        p0,2026-01-05T10:00:00Z,bolus,0,U
        p0,2026-01-05T10:30:00Z,basal,75,U/h
        p0,2026-01-05T11:00:00Z,temp_basal,0.5,U/h
        p0,2026-01-05T11:30:00Z,bolus,two,U
        p0,2030-01-05T11:30:00Z,bolus,500,U
        p0,2027-01-01T00:20:00Z,bolus,2,U
        p0,2027-01-01T00:20:00Z,glucose,140,mg/dL
        """
        let r = try Self.importText(csv, name: "p0.csv", LogCSVImporter())
        #expect(r.log.boluses.map(\.dose.units) == [1])
        // 1000 U (line 6), 75 U/h (line 8), a temp basal without its duration (line 9), 'two' (line 10);
        // not the 0 U bolus (line 7) nor the 500 U of 2030 (line 11: its amount is read before its time);
        // the 2 U bolus 20 minutes after the import's time (line 12), as dated after it; not the glucose beside it.
        #expect(r.log.skippedInsulin.map(\.kind) == [.bolus, .basal, .temporaryBasal, .bolus, .bolus])
        #expect(r.log.skippedInsulin.map(\.location.line) == [6, 8, 9, 10, 12])
        #expect(r.log.skippedInsulin.map(\.time) == ["09:00", "10:30", "11:00", "11:30"].map { Self.utc("2026-01-05T\($0):00Z") }
                + [Self.utc("2027-01-01T00:20:00Z")])
        #expect(r.log.skippedInsulin.map(\.datedAfterImport) == [false, false, false, false, true])
        #expect(r.summary.skipped == ["out of range": 4, "not a number": 1, "missing field": 1, "future-dated": 2])
        // The warnings begin with what this does to doses, however few are shown.
        #expect(r.summary.warningLines(limit: 0).first == r.summary.file + ": warning: 5 insulin records skipped (lines 6, 8, 9, 10, 12): a dose "
                + "asked for within the insulin's action after one is refused until it is corrected (the refusal says how)")
    }

    @Test func ohioXML() throws {
        let xml = """
        <patient id="p0" weight="70" insulin_type="rapid-acting">
        <glucose_level>
        <event ts="05-01-2026 08:00:00" value="120"/>
        <event ts="05-01-2026 08:05:00" value="125"/>
        <event ts="05-01-2026 08:10:00" value="130"/>
        </glucose_level>
        <bolus>
        <event ts_begin="05-01-2026 08:00:00" ts_end="05-01-2026 08:00:00" type="normal" dose="1"/>
        <event ts_begin="05-01-2026 09:00:00" ts_end="05-01-2026 09:00:00" type="normal" dose="-3"/>
        <event ts_begin="05-01-2026 10:00:00" ts_end="05-01-2026 10:00:00" type="normal" dose="0"/>
        <event ts_begin="01-01-2027 00:20:00" ts_end="01-01-2027 00:20:00" type="normal" dose="2"/>
        </bolus>
        </patient>
        """
        Self.expectOneSkippedBolus(try Self.importText(xml, name: "p0.xml", OhioXMLImporter()), line: 9, field: "dose")
    }

    @Test func dexcomClarity() throws {
        let header = "Index,Timestamp (YYYY-MM-DDThh:mm:ss),Event Type,Event Subtype,Patient Info,Device Info,Source Device ID,"
            + "Glucose Value (mg/dL),Insulin Value (u),Carb Value (grams)"
        let rows = ["1,2026-01-05T08:00:00,EGV,,,,G6,120,,", "2,2026-01-05T08:05:00,EGV,,,,G6,125,,",
                    "3,2026-01-05T08:10:00,EGV,,,,G6,130,,", "4,2026-01-05T08:00:00,Insulin,Fast-Acting,,,,,1,",
                    "5,2026-01-05T09:00:00,Insulin,Fast-Acting,,,,,abc,", "6,2026-01-05T10:00:00,Insulin,Fast-Acting,,,,,0,",
                    "7,2027-01-01T00:20:00,Insulin,Fast-Acting,,,,,2,", "8,2027-01-01T00:20:00,Insulin,Fast-Acting,,,,,0,"]
        let r = try Self.importText(([header] + rows).joined(separator: "\n") + "\n", name: "p0.csv", DexcomClarityImporter())
        // Row 8, a 0 U dose dated ahead, is skipped and not kept as insulin.
        Self.expectOneSkippedBolus(r, line: 6, field: "Insulin Value (u)", futureRows: 2)
    }

    @Test func libreView() throws {
        let names = ["Device", "Serial Number", "Device Timestamp", "Record Type", "Historic Glucose mg/dL", "Scan Glucose mg/dL",
                     "Non-numeric Rapid-Acting Insulin", "Rapid-Acting Insulin (units)", "Non-numeric Food", "Carbohydrates (grams)",
                     "Carbohydrates (servings)", "Non-numeric Long-Acting Insulin", "Long-Acting Insulin (units)", "Notes",
                     "Strip Glucose mg/dL", "Ketone mmol/L", "Meal Insulin (units)", "Correction Insulin (units)",
                     "User Change Insulin (units)"]
        func row(_ time: String, _ type: Int, _ cells: [String: String]) -> String {
            var fields = Array(repeating: "", count: names.count)
            fields[0] = "FreeStyle LibreLink"; fields[1] = "X1"; fields[2] = "01-15-2026 \(time)"; fields[3] = String(type)
            for (name, value) in cells { fields[names.firstIndex(of: name)!] = value }
            return fields.joined(separator: ",")
        }
        let lines = ["Glucose Data,Generated on,01-20-2026 10:15 AM UTC,Generated by,x", names.joined(separator: ","),
                     row("08:00 AM", 0, ["Historic Glucose mg/dL": "120"]), row("08:15 AM", 0, ["Historic Glucose mg/dL": "125"]),
                     row("08:30 AM", 0, ["Historic Glucose mg/dL": "130"]),
                     row("08:00 AM", 4, ["Rapid-Acting Insulin (units)": "1"]),
                     row("09:00 AM", 4, ["Rapid-Acting Insulin (units)": "150"]),
                     row("10:00 AM", 4, ["Rapid-Acting Insulin (units)": "0"]),
                     // Parts that add up to more than one bolus can be (80 + 30 U): before, dropped without a word.
                     row("11:00 AM", 4, ["Meal Insulin (units)": "80", "Correction Insulin (units)": "30"]),
                     row("12:20 AM", 4, ["Rapid-Acting Insulin (units)": "2"]).replacingOccurrences(of: "01-15-2026", with: "01-01-2027")]
        let r = try Self.importText(lines.joined(separator: "\n") + "\n", name: "p0.csv", LibreViewImporter(),
                                    options: ExportFixtures.options("UTC", order: .monthDayYear))
        #expect(r.log.boluses.map(\.dose.units) == [1])
        #expect(r.log.skippedInsulin.map(\.time) == [Self.utc("2026-01-15T09:00:00Z"), Self.utc("2026-01-15T11:00:00Z"),
                                                       Self.utc("2027-01-01T00:20:00Z")])
        #expect(r.log.skippedInsulin.map(\.location.line) == [7, 9, 10])
        #expect(r.log.skippedInsulin.map(\.location.field) == ["Rapid-Acting Insulin (units)", "Meal Insulin (units)", "Device Timestamp"])
        #expect(r.log.skippedInsulin.map(\.datedAfterImport) == [false, false, true])
        #expect(r.summary.issues.contains { $0.message.hasPrefix("the bolus's parts add up to 110 U, outside the plausible range") })
    }

    @Test func nightscout() throws {
        let ms = { (t: String) in Int(Self.utc("2026-01-05T\(t):00Z").timeIntervalSince1970 * 1000) }
        let json = """
        {"entries": [
          {"type": "sgv", "sgv": 120, "date": \(ms("08:00"))},
          {"type": "sgv", "sgv": 125, "date": \(ms("08:05"))},
          {"type": "sgv", "sgv": 130, "date": \(ms("08:10"))}
         ],
         "treatments": [
          {"eventType": "Correction Bolus", "created_at": "2026-01-05T08:00:00Z", "insulin": 1},
          {"eventType": "Correction Bolus", "created_at": "2026-01-05T09:00:00Z", "insulin": "lots"},
          {"eventType": "Correction Bolus", "created_at": "2026-01-05T10:00:00Z", "insulin": 0},
          {"eventType": "Correction Bolus", "created_at": "2027-01-01T00:20:00Z", "insulin": 2}
         ]
        }
        """
        Self.expectOneSkippedBolus(try Self.importText(json, name: "p0.json", NightscoutImporter()), line: 8, field: "insulin")
    }

    @Test func tidepool() throws {
        let json = """
        [
        {"type": "cbg", "units": "mg/dL", "value": 120, "time": "2026-01-05T08:00:00.000Z"},
        {"type": "cbg", "units": "mg/dL", "value": 125, "time": "2026-01-05T08:05:00.000Z"},
        {"type": "cbg", "units": "mg/dL", "value": 130, "time": "2026-01-05T08:10:00.000Z"},
        {"type": "bolus", "subType": "normal", "normal": 1, "time": "2026-01-05T08:00:00.000Z"},
        {"type": "bolus", "subType": "normal", "normal": 1000, "time": "2026-01-05T09:00:00.000Z"},
        {"type": "bolus", "subType": "dual/square", "normal": 0, "extended": 0, "duration": 3600000, "time": "2026-01-05T10:00:00.000Z"},
        {"type": "bolus", "subType": "normal", "normal": 2, "time": "2027-01-01T00:20:00.000Z"}
        ]
        """
        Self.expectOneSkippedBolus(try Self.importText(json, name: "p0.json", TidepoolImporter()), line: 6, field: "normal")
    }

    @Test func mappedCSV() throws {
        let csv = """
        date,id,CGM,insulin,carbs
        2026-01-05T08:00:00Z,p0,120,1,
        2026-01-05T08:05:00Z,p0,125,,
        2026-01-05T08:10:00Z,p0,130,,
        2026-01-05T09:00:00Z,p0,131,-3,
        2026-01-05T10:00:00Z,p0,132,0,
        2027-01-01T00:20:00Z,p0,,2,
        """
        var options = ExportFixtures.options("UTC")
        options.columns = ImportMappedCSVTests.mapping
        Self.expectOneSkippedBolus(try Self.importText(csv, name: "p0.csv", MappedCSVImporter(), options: options), line: 5, field: "insulin")
    }

    /// A file still being written ends inside its last row, which is skipped (`last row cut
    /// short`): its amount may be cut (4.35 U read as 4.). When that row is an insulin record whose
    /// time and kind are in whole fields, the newest dose of the file is kept as skipped insulin;
    /// a row cut inside its time keeps nothing (its time is unknown, and so is its kind).
    @Test func aLastRowCutShortInsideADoseIsKept() throws {
        let csv = "patient,time,event,value,unit\np0,2026-01-05T08:00:00Z,glucose,120,mg/dL\np0,2026-01-05T08:10:00Z,bolus,4."
        let r = try Self.importText(csv, name: "p0.csv", LogCSVImporter())
        #expect(r.summary.skipped[PatientLogBuilder.cutLastRow] == 1 && r.log.boluses.isEmpty)
        #expect(r.log.skippedInsulin.map(\.kind) == [.bolus] && r.log.skippedInsulin.map(\.time) == [Self.utc("2026-01-05T08:10:00Z")])
        #expect(r.log.skippedInsulin.map(\.location.line) == [3] && r.log.skippedInsulin.allSatisfy { $0.location.field == nil })
        let cutInTime = try Self.importText("patient,time,event,value,unit\np0,2026-01-05T08:00:00Z,glucose,120,mg/dL\np0,2026-01-05T08:1",
                                            name: "p0.csv", LogCSVImporter())
        #expect(cutInTime.summary.skipped[PatientLogBuilder.cutLastRow] == 1 && cutInTime.log.skippedInsulin.isEmpty)

        let clarity = UndatedInsulinTests.clarityHeader + "\n1,2026-01-05T08:00:00,EGV,,,,G6,120,,\n2,2026-01-05T08:10:00,Insulin,Fast-Acting,,,,,4"
        let d = try Self.importText(clarity, name: "p0.csv", DexcomClarityImporter())
        #expect(d.summary.skipped[PatientLogBuilder.cutLastRow] == 1)
        #expect(d.log.skippedInsulin.map(\.time) == [Self.utc("2026-01-05T08:10:00Z")] && d.log.skippedInsulin.map(\.kind) == [.bolus])

        let libre = ["Glucose Data,Generated on,01-20-2026 10:15 AM UTC,Generated by,x",
                     "Device,Serial Number,Device Timestamp,Record Type,Historic Glucose mg/dL,Scan Glucose mg/dL,"
                        + "Non-numeric Rapid-Acting Insulin,Rapid-Acting Insulin (units),Non-numeric Food,Carbohydrates (grams)",
                     "FreeStyle LibreLink,X1,01-05-2026 08:00 AM,0,120,,,,,",
                     "FreeStyle LibreLink,X1,01-05-2026 08:30 AM,4,,,,2"].joined(separator: "\n")
        let l = try Self.importText(libre, name: "p0.csv", LibreViewImporter(), options: ExportFixtures.options("UTC", order: .monthDayYear))
        #expect(l.summary.skipped[PatientLogBuilder.cutLastRow] == 1)
        #expect(l.log.skippedInsulin.map(\.time) == [Self.utc("2026-01-05T08:30:00Z")] && l.log.skippedInsulin.map(\.kind) == [.bolus])
    }

    /// A mapped CSV cut short in its last row keeps an insulin column that holds an amount when
    /// the time field is whole; a column the cut left out, a whole bolus of 0, or a time cut
    /// short keep nothing. Times in each shape the format reads; the patient its whole field names.
    @Test func aMappedCSVsLastRowCutShortInsideADoseIsKept() throws {
        var options = ExportFixtures.options("UTC", order: .dayMonthYear)
        options.columns = try CSVColumnMapping(parsing: "time=date,patient=id,glucose=CGM,bolus=insulin,carbs=carbs,basal=rate")
        let t = Self.utc("2026-01-05T08:10:00Z")
        let cases: [(String, [RecordKind])] = [
            ("2026-01-05T08:10:00Z,p0,,4.", [.bolus]),
            ("05-01-2026 08:10,p0,,2,", [.bolus]),
            ("1767600600,p0,,,,0.", [.basal]),
            ("1767600600000,p0,,1,,0.8", [.bolus, .basal]),
            ("2026-01-05T08:10:00Z,p0,125", []),
            ("2026-01-05T08:10:00Z,p0,,0,4", []),
            ("2026-01-05T08:1", []),
        ]
        for (last, kinds) in cases {
            let csv = "date,id,CGM,insulin,carbs,rate\n2026-01-05T08:00:00Z,p0,120,,,\n" + last
            let r = try Self.importText(csv, name: "p0.csv", MappedCSVImporter(), options: options)
            #expect(r.summary.skipped[PatientLogBuilder.cutLastRow] == 1, "\(last)")
            #expect(r.log.skippedInsulin.map(\.kind) == kinds, "\(last): \(r.log.skippedInsulin)")
            #expect(r.log.skippedInsulin.allSatisfy { $0.time == t && $0.location.line == 3 && $0.unreadTime == nil }, "\(last)")
        }
        // Two patients: the cut row is p1's.
        let two = "date,id,CGM,insulin,carbs,rate\n2026-01-05T08:00:00Z,p0,120,,,\n2026-01-05T08:05:00Z,p1,130,,,\n"
            + "2026-01-05T08:06:00Z,p0,121,,,\n2026-01-05T08:10:00Z,p1,,3"
        let url = try Self.file(two, name: "two.csv")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let results = try MappedCSVImporter().importPatients(at: url, options: options)
        #expect(results.map { $0.log.skippedInsulin.map(\.kind) } == [[], [.bolus]])
        #expect(results.map(\.summary.rowsRead) == [2, 2])
    }

    /// An insulin row whose patient id is garbled (`p 0`, an empty cell) is skipped, and its dose
    /// is kept as skipped insulin of the patient of the rows around it: it was given to someone,
    /// most likely them. Before, it was a warning and a dose asked for after it counted no insulin
    /// on board. A glucose row, or a bolus of 0, with a bad id keeps nothing; a time that does not
    /// read keeps the dose undated, bounded by the rows around it.
    @Test func anInsulinRowWithAGarbledPatientIDIsKept() throws {
        let csv = """
        patient,time,event,value,unit
        p0,2026-01-05T08:00:00Z,glucose,120,mg/dL
        p 0,2026-01-05T08:05:00Z,glucose,125,mg/dL
        p 0,2026-01-05T08:10:00Z,bolus,4.5,U
        p 0,2026-01-05T08:12:00Z,bolus,0,U
        p0,2026-01-05T08:15:00Z,glucose,130,mg/dL
        p%0,yesterday,bolus,2,U
        p0,2026-01-05T08:25:00Z,glucose,130,mg/dL
        """
        let r = try Self.importText(csv, name: "p0.csv", LogCSVImporter())
        #expect(r.summary.skipped["bad patient id"] == 4 && r.log.boluses.isEmpty)
        #expect(r.log.skippedInsulin.map(\.kind) == [.bolus, .bolus])
        #expect(r.log.skippedInsulin.map(\.location.line) == [4, 7])
        #expect(r.log.skippedInsulin.allSatisfy { $0.location.field == "patient" })
        #expect(r.log.skippedInsulin.first?.time == Self.utc("2026-01-05T08:10:00Z"))
        #expect(r.log.skippedInsulin.last?.unreadTime?.latest == Self.utc("2026-01-05T08:25:00Z"))
        #expect(r.log.skippedInsulin.last?.time == Self.utc("2026-01-05T08:15:00Z"))

        // A mapped CSV of two patients: the row goes with the patient of the rows before it (the
        // first patient, before any); a day/month date reads once the file's order is known.
        var options = ExportFixtures.options("UTC", order: .dayMonthYear)
        options.columns = try CSVColumnMapping(parsing: "time=date,patient=id,glucose=CGM,bolus=insulin,basal=rate")
        let mapped = """
        date,id,CGM,insulin,rate
        1767600000,,,2,
        2026-01-05T08:00:00Z,p0,120,,
        05-01-2026 08:05,p0,121,,
        05-01-2026 08:10,,,1.5,0.8
        2026-01-05T08:15:00Z,p1,130,,
        2026-01-05T08:20:00Z,p 1,,0,
        2026-01-05T08:25:00Z,p 1,140,,
        2026-01-05T08:30:00Z,p 1,,3,
        """
        let url = try Self.file(mapped, name: "two.csv")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let results = try MappedCSVImporter().importPatients(at: url, options: options)
        #expect(results.map { $0.log.skippedInsulin.map(\.kind) } == [[.bolus, .bolus, .basal], [.bolus]])
        #expect(results.map { $0.log.skippedInsulin.map(\.location.line) } == [[2, 5, 5], [9]])
        #expect(results.map { $0.log.skippedInsulin.map(\.time) }
                == [[Self.utc("2026-01-05T08:00:00Z")] + Array(repeating: Self.utc("2026-01-05T08:10:00Z"), count: 2),
                    [Self.utc("2026-01-05T08:30:00Z")]])
        #expect(results.map { $0.summary.skipped["missing patient id", default: 0] + $0.summary.skipped["bad patient id", default: 0] }
                == [2, 3])
    }

    /// The store keeps them with the import's summary and gives them back with the log; a
    /// corrected file imported later holds the record, and the dose guard no longer counts it.
    @Test func theStoreKeepsThemAndACorrectedFileSettlesThem() throws {
        let rows = { (bolus: String) in
            "patient,time,event,value,unit\n" + (0..<3).map { "p0,2026-01-05T08:0\($0 * 5):00Z,glucose,12\($0),mg/dL\n" }.joined()
                + "p0,2026-01-05T08:00:00Z,bolus,1,U\np0,2026-01-05T09:00:00Z,bolus,\(bolus),U\n"
        }
        let bad = try Self.file(rows("1000"), name: "p0.csv")
        let dir = bad.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try PatientStore(path: dir.appendingPathComponent("store.sqlite").path)
        _ = try store.importFile(bad, importer: LogCSVImporter(), options: ExportFixtures.options("UTC"))
        let p0 = try PatientID("p0")
        let log = try store.log(for: p0)
        #expect(log.skippedInsulin.map(\.time) == [Self.utc("2026-01-05T09:00:00Z")])
        #expect(log.skippedInsulin.first?.location.line == 6)
        let at = Self.utc("2026-01-05T10:00:00Z")
        #expect(DoseGuards.skippedInsulinRefusal(log, at: at, durationMinutes: 360)?.code == "skipped_insulin_record")
        // The window read for a dose keeps them too.
        #expect(try store.log(for: p0, since: at.addingTimeInterval(-3600)).skippedInsulin == log.skippedInsulin)

        let fixed = dir.appendingPathComponent("p0-fixed.csv")
        try Data(rows("10").utf8).write(to: fixed)
        _ = try store.importFile(fixed, importer: LogCSVImporter(), options: ExportFixtures.options("UTC"))
        let after = try store.log(for: p0)
        #expect(after.boluses.map(\.dose.units) == [1, 10])
        #expect(DoseGuards.skippedInsulinRefusal(after, at: at, durationMinutes: 360) == nil)
    }

    /// Hunt Y (stop 54): a store filled by a build before skipped insulin was kept has runs whose
    /// summary holds none, and a dose an hour after a bolus typed 435 for 4.35 U was 4.15 U with
    /// nothing on board; the file imported again was only "already imported". Now importing it again
    /// keeps them with its run. A run of this build whose skipped rows hold no insulin says so ([]).
    @Test func aFileImportedByAnEarlierBuildKeepsItsSkippedInsulinWhenImportedAgain() throws {
        // Local times, imported in New York (UTC-5).
        let bad = try Self.file("patient,time,event,value,unit\n" + (0..<3).map { "p0,2026-01-05T08:0\($0 * 5):00,glucose,12\($0),mg/dL\n" }.joined()
                                + "p0,2026-01-05T09:00:00,bolus,435,U\n", name: "p0.csv")
        let dir = bad.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try PatientStore(path: dir.appendingPathComponent("store.sqlite").path)
        let options = ExportFixtures.options("America/New_York")
        _ = try store.importFile(bad, importer: LogCSVImporter(), options: options)
        let p0 = try PatientID("p0"), at = Self.utc("2026-01-05T15:00:00Z")
        // As the earlier build stored it: the summary without the key.
        try store.db.write { db in
            let text = try String.fetchOne(db, sql: "SELECT summary FROM import_runs") ?? ""
            var summary = try JSONDecoder().decode(ImportSummary.self, from: Data(text.utf8))
            summary.skippedInsulin = nil
            try db.execute(sql: "UPDATE import_runs SET summary = ?", arguments: [String(decoding: try JSONEncoder().encode(summary), as: UTF8.self)])
        }
        #expect(DoseGuards.skippedInsulinRefusal(try store.log(for: p0), at: at, durationMinutes: 360) == nil)
        // Read again in another zone (the review: the bolus kept 5 h early, the run marked): not kept, said so.
        guard case let .alreadyImported(elsewhere) = try store.importFile(bad, importer: LogCSVImporter(), options: ExportFixtures.options("UTC")) else {
            Issue.record("imported twice"); return
        }
        #expect(elsewhere.skippedInsulinUnread && elsewhere.skippedInsulinKeptNow == nil)
        guard case let .alreadyImported(run) = try store.importFile(bad, importer: LogCSVImporter(), options: options) else {
            Issue.record("imported twice"); return
        }
        #expect(run.skippedInsulinKeptNow == 1)
        let log = try store.log(for: p0)
        #expect(log.boluses.isEmpty, "records untouched: the bolus is still not one")
        #expect(DoseGuards.skippedInsulinRefusal(log, at: at, durationMinutes: 360)?.code == "skipped_insulin_record")
        #expect(log.skippedInsulin.map(\.time) == [Self.utc("2026-01-05T14:00:00Z")])
        // Once kept, a third import reads nothing again.
        guard case let .alreadyImported(again) = try store.importFile(bad, importer: LogCSVImporter(), options: options) else { return }
        #expect(again.skippedInsulinKeptNow == nil)
        // A glucose row skipped, no insulin: the run says none ([]), so it is not read again either.
        let glucoseOnly = dir.appendingPathComponent("p1.csv")
        try Data("patient,time,event,value,unit\np1,2026-01-05T08:00:00Z,glucose,120,mg/dL\np1,2026-01-05T08:05:00Z,glucose,x,mg/dL\n".utf8)
            .write(to: glucoseOnly)
        guard case let .imported(fresh) = try store.importFile(glucoseOnly, importer: LogCSVImporter(), options: options) else {
            Issue.record("not imported"); return
        }
        #expect(fresh.summary.skippedInsulin == [])
    }

    /// Hunt E (stop 51): a meal bolus of 2 U and a correction of 3 U written at one instant. The
    /// import kept the first and dropped the second with a warning, and the dose counted 2 U on
    /// board: 5.20 U by the formula for 60 g where both give 2.90 U (60/10 + (150-110)/50 - netIOB;
    /// 5 U an hour after: 3.896 U on board by the spec's curve, 2 U: 1.559 U). Now the dropped one
    /// is kept as skipped insulin and the dose is refused with its amount and line; written a
    /// second apart, both count. The store keeps it, and the file corrected settles it.
    @Test func aBolusDroppedBesideAnotherAtItsInstantRefusesTheDose() throws {
        let rows = { (second: String) in
            Self.hourAt150(then: "p0,2026-01-05T05:00:00Z,bolus,2,U\np0,2026-01-05T05:00:\(second)Z,bolus,3,U\n")
        }
        let same = try Self.file(rows("00"), name: "p0.csv")
        let dir = same.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try LogCSVImporter().importFile(at: same, options: ExportFixtures.options("UTC"))
        #expect(r.log.boluses.map(\.dose.units) == [2])
        #expect(r.log.skippedInsulin.map(\.conflictingAmount) == [3] && r.log.skippedInsulin.first?.location.line == 16)
        let at = Self.utc("2026-01-05T06:00:00Z")
        var settings = DoseFixture.settings()
        settings.patient = try PatientID("p0"); settings.insulinSensitivity = 50
        let s = DoseAdvisor.suggest(log: r.log, carbs: 60, at: at, settings: settings, models: nil, method: .formula)
        #expect(s.decision.units == nil && s.reasons.map(\.code) == ["skipped_insulin_record"])
        #expect(s.report.contains("a bolus of 3 U at 2026-01-05T05:00:00Z (\(same.path):16 [time]) was dropped at import"), "\(s.report)")
        // A second apart: two boluses, both on board.
        let apart = try Self.file(rows("01"), name: "p0.csv")
        defer { try? FileManager.default.removeItem(at: apart.deletingLastPathComponent()) }
        let both = try LogCSVImporter().importFile(at: apart, options: ExportFixtures.options("UTC"))
        #expect(both.log.skippedInsulin.isEmpty)
        let counted = DoseAdvisor.suggest(log: both.log, carbs: 60, at: at, settings: settings, models: nil, method: .formula)
        #expect(counted.decision.units == 2.9, "\(counted.report)")
        // Through the store: refused, until the corrected file is imported.
        let store = try PatientStore(path: dir.appendingPathComponent("store.sqlite").path)
        _ = try store.importFile(same, importer: LogCSVImporter(), options: ExportFixtures.options("UTC"))
        let p0 = try PatientID("p0")
        #expect(DoseGuards.skippedInsulinRefusal(try store.log(for: p0), at: at, durationMinutes: 360)?.code == "skipped_insulin_record")
        _ = try store.importFile(apart, importer: LogCSVImporter(), options: ExportFixtures.options("UTC"))
        let fixed = try store.log(for: p0)
        #expect(fixed.boluses.map(\.dose.units) == [2, 3])
        #expect(DoseGuards.skippedInsulinRefusal(fixed, at: at, durationMinutes: 360) == nil)
    }

    /// Review BI (stop 62): 2 U at once and 2 U over an hour written at one instant are one value
    /// given two ways. The import kept the first and said doses would be refused, but the kept one
    /// of the dropped one's amount "held" it and the dose counted 2 U on board, not 4. Now it is
    /// refused as another amount is; a bolus written twice with only another carbohydrate input is
    /// one bolus (warned of, not kept as skipped insulin); written a second apart, both count.
    @Test func aBolusOfTheSameAmountGivenAnotherWayAtItsInstantRefusesTheDose() throws {
        let rows = { (second: String, type: String) in
            Self.hourAt150(header: "patient,time,event,value,unit,duration,type", pad: ",,",
                      then: "p0,2026-01-05T05:00:00Z,bolus,2,U,,normal\np0,2026-01-05T05:00:\(second)Z,bolus,2,U,60,\(type)\n")
        }
        let at = Self.utc("2026-01-05T06:00:00Z")
        var settings = DoseFixture.settings()
        settings.patient = try PatientID("p0"); settings.insulinSensitivity = 50
        let same = try Self.file(rows("00", "square"), name: "p0.csv")
        defer { try? FileManager.default.removeItem(at: same.deletingLastPathComponent()) }
        let r = try LogCSVImporter().importFile(at: same, options: ExportFixtures.options("UTC"))
        #expect(r.log.boluses.map(\.type) == [.normal])
        let skipped = try #require(r.log.skippedInsulin.first)
        #expect(r.log.skippedInsulin.count == 1 && skipped.conflictingAmount == 2 && skipped.location.line == 16)
        #expect(!r.log.holdsRecord(like: skipped))
        #expect(r.summary.issues.contains { $0.message.contains("of the same value (2.0) but given another way (a type, an end)") })
        let s = DoseAdvisor.suggest(log: r.log, carbs: 60, at: at, settings: settings, models: nil, method: .formula)
        #expect(s.decision.units == nil && s.reasons.map(\.code) == ["skipped_insulin_record"], "\(s.report)")
        #expect(s.report.contains("or the same given another way"), "\(s.report)")
        // Written a second apart: both kept, no refusal.
        let apart = try Self.file(rows("01", "square"), name: "p0.csv")
        defer { try? FileManager.default.removeItem(at: apart.deletingLastPathComponent()) }
        let both = try LogCSVImporter().importFile(at: apart, options: ExportFixtures.options("UTC"))
        #expect(both.log.boluses.map(\.type) == [.normal, .square] && both.log.skippedInsulin.isEmpty)
        #expect(DoseGuards.skippedInsulinRefusal(both.log, at: at, durationMinutes: 360) == nil)
        // Only another carbohydrate input: one bolus written twice, warned of, nothing refused.
        let twice = try Self.ohioBoluses("""
            <event ts_begin="05-01-2026 05:00:00" ts_end="05-01-2026 05:00:00" type="normal" dose="2" bwz_carb_input="0"/>
            <event ts_begin="05-01-2026 05:00:00" ts_end="05-01-2026 05:00:00" type="normal" dose="2" bwz_carb_input="30"/>
            """)
        #expect(twice.log.boluses.map(\.dose.units) == [2] && twice.log.skippedInsulin.isEmpty)
        #expect(twice.summary.issues.contains { $0.message.contains("written twice with another detail (a carbohydrate input)") },
                "\(twice.summary.issues)")
    }

    /// Review BR (stop 63): a dual-wave bolus written as its two parts at one ts_begin (as CareLink
    /// writes it) is one bolus of both: 2 U now and 2 U over an hour was a conflicting duplicate (2
    /// U left out, or since 5e69296 every dose refused for 6 hours); 3 U and 2 U were refused. A part
    /// alone is read as before (a `normal dual` as a dual-wave bolus of its dose), and so is a part
    /// whose other part is at another time.
    @Test func anOhioDualWaveBolusWrittenAsItsTwoPartsIsOneBolus() throws {
        let r = try Self.ohioBoluses("""
            <event ts_begin="05-01-2026 05:00:00" ts_end="05-01-2026 05:00:00" type="normal dual" dose="2" bwz_carb_input="40"/>
            <event ts_begin="05-01-2026 05:00:00" ts_end="05-01-2026 06:00:00" type="square dual" dose="2" bwz_carb_input="40"/>
            <event ts_begin="05-01-2026 08:00:00" ts_end="05-01-2026 09:30:00" type="square dual" dose="3"/>
            <event ts_begin="05-01-2026 08:00:00" ts_end="05-01-2026 08:00:00" type="normal dual" dose="2"/>
            <event ts_begin="05-01-2026 11:00:00" ts_end="05-01-2026 11:00:00" type="normal dual" dose="1"/>
            <event ts_begin="05-01-2026 12:00:00" ts_end="05-01-2026 13:00:00" type="square dual" dose="1.5"/>
            """)
        let at = { (h: Int) in Self.utc(String(format: "2026-01-05T%02d:00:00Z", h)) }
        #expect(r.log.boluses == [
            Bolus(time: at(5), end: at(6), dose: InsulinUnits(4), type: .normalDual, carbInput: Carbohydrate(grams: 40), immediate: InsulinUnits(2)),
            Bolus(time: at(8), end: Self.utc("2026-01-05T09:30:00Z"), dose: InsulinUnits(5), type: .normalDual, immediate: InsulinUnits(2)),
            Bolus(time: at(11), dose: InsulinUnits(1), type: .normalDual),
            Bolus(time: at(12), end: at(13), dose: InsulinUnits(1.5), type: .square),
        ], "\(r.log.boluses)")
        #expect(r.log.skippedInsulin.isEmpty && !r.summary.issues.contains { $0.message.contains("at the same time as") })
    }

    /// Review BS (stop 63): a bolus whose amount cannot be read, at the instant of one read whole in
    /// its own file, is not settled by that one (a kept bolus within 30 s settles a skipped one: a
    /// corrected file's copy); it was, and the dose went ahead without it. Through the store too; a
    /// corrected copy a second apart still settles it.
    @Test func anUnreadableBolusBesideAReadableOneAtItsInstantRefusesTheDose() throws {
        let rows = { (second: String, amount: String) in
            Self.hourAt150(then: "p0,2026-01-05T05:00:00Z,bolus,2,U\np0,2026-01-05T05:00:\(second)Z,bolus,\(amount),U\n")
        }
        let at = Self.utc("2026-01-05T06:00:00Z")
        let bad = try Self.file(rows("00", "abc"), name: "p0.csv")
        let dir = bad.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try LogCSVImporter().importFile(at: bad, options: ExportFixtures.options("UTC"))
        let skipped = try #require(r.log.skippedInsulin.first)
        #expect(skipped.besideKept == true && r.summary.skippedInsulin?.first?.besideKept == true)
        #expect(!r.log.holdsRecord(like: skipped))
        #expect(DoseGuards.skippedInsulinRefusal(r.log, at: at, durationMinutes: 360)?.code == "skipped_insulin_record")
        // The same unreadable bolus a minute apart from the readable one: nothing beside it.
        let alone = try LogCSVImporter().importFile(at: try Self.file(rows("00", "abc").replacingOccurrences(of: "05:00:00Z,bolus,abc", with: "05:01:00Z,bolus,abc"), name: "p0.csv"),
                                                    options: ExportFixtures.options("UTC"))
        #expect(alone.log.skippedInsulin.first?.besideKept == nil)
        // The store keeps the mark; the corrected file, its 3 U a second apart, settles it.
        let store = try PatientStore(path: dir.appendingPathComponent("store.sqlite").path)
        _ = try store.importFile(bad, importer: LogCSVImporter(), options: ExportFixtures.options("UTC"))
        let p0 = try PatientID("p0")
        #expect(DoseGuards.skippedInsulinRefusal(try store.log(for: p0), at: at, durationMinutes: 360)?.code == "skipped_insulin_record")
        let fixed = try Self.file(rows("01", "3"), name: "p0.csv")
        _ = try store.importFile(fixed, importer: LogCSVImporter(), options: ExportFixtures.options("UTC"))
        #expect(DoseGuards.skippedInsulinRefusal(try store.log(for: p0), at: at, durationMinutes: 360) == nil)
    }

    /// An OhioT1DM file of patient p0 with one glucose reading (05:00) and the bolus section's `events`.
    static func ohioBoluses(_ events: String) throws -> ImportResult {
        try importText("""
            <patient id="p0" weight="70" insulin_type="rapid-acting">
            <glucose_level><event ts="05-01-2026 05:00:00" value="150"/></glucose_level>
            <bolus>
            \(events)
            </bolus>
            </patient>
            """, name: "p0.xml", OhioXMLImporter())
    }

    /// Which skipped records bear on a dose: worked out from the rule's words for a 360-minute insulin.
    @Test func theGuardLooksAtTheInsulinsActionAndTheBasalRateInForce() {
        let at = DoseFixture.at(90)  // 11:30
        var log = DoseFixture.flatLog()
        func skipped(_ kind: RecordKind, _ minutes: Double) -> SkippedInsulin {
            SkippedInsulin(kind: kind, time: DoseFixture.at(minutes), location: SourceLocation(file: "p.csv", line: 7, field: "value"))
        }
        // A bolus 6 h before (the action's first instant) counts; 6 h and a minute before, not.
        log.skippedInsulin = [skipped(.bolus, 90 - 360)]
        #expect(DoseGuards.skippedInsulinRefusal(log, at: at, durationMinutes: 360) != nil)
        log.skippedInsulin = [skipped(.bolus, 89 - 360)]
        #expect(DoseGuards.skippedInsulinRefusal(log, at: at, durationMinutes: 360) == nil)
        // After the moment: not yet in the history.
        log.skippedInsulin = [skipped(.bolus, 91)]
        #expect(DoseGuards.skippedInsulinRefusal(log, at: at, durationMinutes: 360) == nil)
        // A basal injection: not in net insulin on board.
        log.skippedInsulin = [skipped(.basalInjection, 60)]
        #expect(DoseGuards.skippedInsulinRefusal(log, at: at, durationMinutes: 360) == nil)
        // A basal rate 10 h before: in force through the action unless a kept rate replaced it before the action began.
        log.skippedInsulin = [skipped(.basal, -510)]
        #expect(DoseGuards.skippedInsulinRefusal(log, at: at, durationMinutes: 360) != nil)
        log.basalRates = [BasalRate(start: DoseFixture.at(-400), rate: InsulinRate(unitsPerHour: 1))]
        #expect(DoseGuards.skippedInsulinRefusal(log, at: at, durationMinutes: 360) == nil)
        log.basalRates = [BasalRate(start: DoseFixture.at(-200), rate: InsulinRate(unitsPerHour: 1))]
        #expect(DoseGuards.skippedInsulinRefusal(log, at: at, durationMinutes: 360) != nil)
        // With no rate after it, a day back at most.
        log.basalRates = []
        log.skippedInsulin = [skipped(.basal, 90 - 24 * 60 - 1)]
        #expect(DoseGuards.skippedInsulinRefusal(log, at: at, durationMinutes: 360) == nil)
        // Dated after the import (a clock running ahead) and after the moment: within the action's length after it.
        log.skippedInsulin = [SkippedInsulin(kind: .bolus, time: DoseFixture.at(90 + 360), location: SourceLocation(file: "p.csv"),
                                             datedAfterImport: true)]
        #expect(DoseGuards.skippedInsulinRefusal(log, at: at, durationMinutes: 360) != nil)
        log.skippedInsulin[0].time = DoseFixture.at(91 + 360)
        #expect(DoseGuards.skippedInsulinRefusal(log, at: at, durationMinutes: 360) == nil)
        // The newest of several is named, and the others counted.
        log.skippedInsulin = [skipped(.bolus, 0), skipped(.temporaryBasal, 30)]
        guard case let .skippedInsulinRecord(newest, count, _)? = DoseGuards.skippedInsulinRefusal(log, at: at, durationMinutes: 360) else {
            Issue.record("expected a refusal"); return
        }
        #expect(newest.kind == .temporaryBasal && count == 2)
    }

    /// The dose itself: refused with the record's time and place, where it was 3 U before.
    @Test func aDoseAfterASkippedBolusIsRefusedWithItsPlace() {
        var log = DoseFixture.flatLog(glucose: 180)
        let at = DoseFixture.at(90)
        let before = DoseAdvisor.suggest(log: log, carbs: 30, at: at, settings: DoseFixture.settings(), models: nil, method: .formula)
        // 30 g / 10 + (180 - 110) / 35 = 3 + 2 = 5 U, on a bolus long absorbed.
        #expect(before.decision.units == 5)
        log.skippedInsulin = [SkippedInsulin(kind: .bolus, time: DoseFixture.at(30),
                                             location: SourceLocation(file: "p.csv", line: 12, field: "value"))]
        let s = DoseAdvisor.suggest(log: log, carbs: 30, at: at, settings: DoseFixture.settings(), models: nil, method: .formula)
        #expect(s.decision.units == nil)
        #expect(s.reasons.map(\.code) == ["skipped_insulin_record"])
        #expect(s.report.contains("a bolus at 2026-01-05T10:30:00Z (p.csv:12 [value]) was skipped at import"), "\(s.report)")

        // A bolus dated 40 minutes after the moment, skipped as after the import's time (a pump an
        // hour ahead, its dose given 20 minutes ago), read through the window a dose reads.
        log.skippedInsulin = [SkippedInsulin(kind: .bolus, time: DoseFixture.at(130), location: SourceLocation(file: "p.csv", line: 40),
                                             datedAfterImport: true)]
        let ahead = DoseAdvisor.suggest(log: DoseAdvisor.history(log, at: at), carbs: 30, at: at, settings: DoseFixture.settings(),
                                        models: nil, method: .formula)
        #expect(ahead.reasons.map(\.code) == ["skipped_insulin_record"])
        #expect(ahead.report.contains("a bolus dated 2026-01-05T12:10:00Z (p.csv:40), after the import's time, was skipped at import"),
                "\(ahead.report)")
    }

    /// The clinician report says so in its header, by kind and time and without the file's name
    /// (which may carry the person's).
    @Test func theReportNotesThoseOfItsPeriod() throws {
        var log = ReportFixture.data.log
        let period = ReportFixture.period
        let place = SourceLocation(file: "Jane_Doe_export.csv", line: 12, field: "value")
        log.skippedInsulin = [
            SkippedInsulin(kind: .basal, time: period.start.addingTimeInterval(-3600), location: place),  // before the period
            SkippedInsulin(kind: .bolus, time: period.start.addingTimeInterval(7200), location: place),
            SkippedInsulin(kind: .temporaryBasal, time: period.start.addingTimeInterval(9000), location: place),
            SkippedInsulin(kind: .bolus, time: period.start.addingTimeInterval(10800), location: place, datedAfterImport: true),
        ]
        let report = try PatientReport(log: log, models: ReportFixture.models, period: period)
        // The period starts at the testing file's first reading, 2026-01-15 00:00 UTC (the report's clock is UTC).
        #expect(period.start == Self.utc("2026-01-15T00:00:00Z"))
        let expected = "Insulin records skipped at import in this period: 2 boluses, 1 temporary basal (the first a bolus at "
            + "2026-01-15 02:00), 1 of them dated after their import (a device clock running ahead). Their amounts are unknown"
        #expect(report.notes.contains { $0.hasPrefix(expected) }, "\(report.notes)")
        #expect(report.html.contains(HTML.escape(expected)))
        #expect(!report.html.contains("Jane_Doe"))
        #expect(try PatientReport(log: ReportFixture.data.log, models: ReportFixture.models, period: period).notes
            .allSatisfy { !$0.hasPrefix("Insulin records skipped") })
        // A bolus dropped beside another at its instant (stop 51) says so: its amount was read,
        // which of the two was given was not.
        log.skippedInsulin = [SkippedInsulin(kind: .bolus, time: period.start.addingTimeInterval(7200), location: place, conflictingAmount: 3)]
        let dropped = try PatientReport(log: log, models: ReportFixture.models, period: period)
        #expect(dropped.notes.contains { $0.hasPrefix("Insulin records skipped at import in this period: 1 bolus (the first a bolus at "
            + "2026-01-15 02:00), 1 of them dropped beside another of another amount at the same instant (both given, or one "
            + "written twice?). Their amounts are unknown") }, "\(dropped.notes)")
    }

    /// Review BT (stop 63): a temporary basal or extended bolus dropped at import delivers up to its
    /// end, and its insulin acts the insulin's duration after that: the refusal ended 6 hours after
    /// its start (a 3 U/h temp written as 10 and as 240 minutes at 05:00, the 240 dropped: at 11:05
    /// the dose went ahead, 0.95 U of the dropped temp's insulin still on board by the spec's curve).
    /// Now it stands until 09:00 + 6 hours, the later end's, whichever of the two is kept; the same
    /// for 4 U square over 240 minutes beside 4 U at once; read from one file and through the store.
    @Test func aDroppedTempOrExtendedBolusRefusesUntilItsEndsActionEnds() throws {
        let header = "patient,time,event,value,unit,duration,type"
        let temps = "p0,2026-01-05T05:00:00Z,temp_basal,3,U/h,10,\np0,2026-01-05T05:00:00Z,temp_basal,3,U/h,240,\n"
        let boluses = "p0,2026-01-05T05:00:00Z,bolus,4,U,,normal\np0,2026-01-05T05:00:00Z,bolus,4,U,240,square\n"
        // Either one first: the one kept or the one dropped may be the longer; which was given is unknown.
        let reversed = { (rows: String) in rows.split(separator: "\n").reversed().map { $0 + "\n" }.joined() }
        for rows in [temps, boluses, reversed(temps), reversed(boluses)] {
            let url = try Self.file(Self.hourAt150(header: header, pad: ",,", then: rows), name: "p0.csv")
            let dir = url.deletingLastPathComponent()
            defer { try? FileManager.default.removeItem(at: dir) }
            let r = try LogCSVImporter().importFile(at: url, options: ExportFixtures.options("UTC"))
            let skipped = try #require(r.log.skippedInsulin.first)
            #expect(skipped.end == Self.utc("2026-01-05T09:00:00Z"), "\(skipped)")
            let store = try PatientStore(path: dir.appendingPathComponent("store.sqlite").path)
            _ = try store.importFile(url, importer: LogCSVImporter(), options: ExportFixtures.options("UTC"))
            // What to do: a temp's message says a pump runs one at a time (two a second apart would
            // replace one), and a store keeps what it stored until the file is forgotten.
            let message = DoseGuards.skippedInsulinRefusal(r.log, at: Self.utc("2026-01-05T11:05:00Z"), durationMinutes: 360)?.description ?? ""
            #expect(message.contains(rows.contains("temp") ? "A pump runs one at a time" : "Write two given together a second apart"), "\(message)")
            #expect(message.contains("in a store: import-data --forget the file as it was imported, then import the corrected one"), "\(message)")
            for log in [r.log, try store.log(for: PatientID("p0"))] {
                for (time, refused) in [("11:05", true), ("14:55", true), ("15:05", false)] {
                    let at = Self.utc("2026-01-05T\(time):00Z")
                    #expect((DoseGuards.skippedInsulinRefusal(log, at: at, durationMinutes: 360) != nil) == refused, "\(time) \(rows)")
                }
            }
        }
    }


    /// Review BT (stop 63): 4 U at once in one file and 4 U square in another at one instant, read
    /// together, kept the first file's without a word (the dose hung on which name sorts first),
    /// where one file holding both refuses doses. Now either order refuses until the later end's
    /// action ends, as one file does and a store does; the warning says the value is the same, given
    /// another way.
    @Test func aBolusGivenAnotherWayInTwoFilesRefusesAsInOne() throws {
        let header = "patient,time,event,value,unit,duration,type"
        let one = "p0,2026-01-05T05:00:00Z,bolus,4,U,,normal\n", other = "p0,2026-01-05T05:00:00Z,bolus,4,U,240,square\n"
        for (a, b) in [(one, other), (other, one)] {
            let dir = ScratchSpace.root.appendingPathComponent("skipped-insulin-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            try Data(Self.hourAt150(header: header, pad: ",,", then: a).utf8).write(to: dir.appendingPathComponent("a.csv"))
            try Data((header + "\n" + b).utf8).write(to: dir.appendingPathComponent("b.csv"))
            let loaded = try ExportFiles(paths: [dir.path], options: ExportFixtures.options("UTC")).load()
            let log = try #require(loaded.patients.first?.log)
            #expect(log.skippedInsulin.map(\.location.line) == [2], "\(a) \(b)")
            #expect(log.skippedInsulin.first?.end == Self.utc("2026-01-05T09:00:00Z"))
            for (time, refused) in [("06:00", true), ("14:55", true), ("15:05", false)] {
                let refusal = DoseGuards.skippedInsulinRefusal(log, at: Self.utc("2026-01-05T\(time):00Z"), durationMinutes: 360)
                #expect((refusal != nil) == refused, "\(time) \(a) \(b)")
            }
            let warning = loaded.summaries.flatMap(\.issues).first { $0.message.contains("a file read before") }?.message ?? ""
            #expect(warning.contains("at the same instant with the same value (4) given another way (a type, an end)"), "\(warning)")
            // A store finds it too (its key holds the type), and says the same.
            let store = try PatientStore(path: dir.appendingPathComponent("store.sqlite").path)
            var runs: [ImportRun] = []
            for name in ["a.csv", "b.csv"] {
                runs.append(try store.importFile(dir.appendingPathComponent(name), importer: LogCSVImporter(), options: ExportFixtures.options("UTC")).run)
            }
            let stored = try store.log(for: PatientID("p0"))
            #expect(stored.skippedInsulin.map(\.end) == [Self.utc("2026-01-05T09:00:00Z")])
            #expect(DoseGuards.skippedInsulinRefusal(stored, at: Self.utc("2026-01-05T14:55:00Z"), durationMinutes: 360) != nil)
            let said = runs[1].summary.issues.first { $0.message.contains("an earlier import stored") }?.message ?? ""
            #expect(said.contains("with the same value (4) given another way (a type, an end)"), "\(said)")
        }
    }

    /// Review BU (stop 63): a loop's exports overlap, and one taken while a temp ran holds its
    /// programmed 30 minutes, the next the same temp cut short by the temp after it. Read together
    /// or imported one after the other they are not refused (a first try at refusing temps of one
    /// rate with other ends across files refused every such pair for 6.5 hours); the first file's
    /// is kept, as before.
    @Test func aLoopsOverlappingExportsOfARunningTempAreNotRefused() throws {
        let header = "patient,time,event,value,unit,duration,type"
        let running = Self.hourAt150(header: header, pad: ",,", then: "p0,2026-01-05T05:30:00Z,temp_basal,3,U/h,30,\n")
        let after = running + "p0,2026-01-05T05:50:00Z,temp_basal,1,U/h,30,\n" + "p0,2026-01-05T06:05:00Z,glucose,150,mg/dL,,\n"
        for (a, b) in [(running, after), (after, running)] {
            let dir = ScratchSpace.root.appendingPathComponent("skipped-insulin-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            try Data(a.utf8).write(to: dir.appendingPathComponent("a.csv"))
            try Data(b.utf8).write(to: dir.appendingPathComponent("b.csv"))
            let loaded = try ExportFiles(paths: [dir.path], options: ExportFixtures.options("UTC")).load()
            let store = try PatientStore(path: dir.appendingPathComponent("store.sqlite").path)
            for name in ["a.csv", "b.csv"] {
                _ = try store.importFile(dir.appendingPathComponent(name), importer: LogCSVImporter(), options: ExportFixtures.options("UTC"))
            }
            for log in [try #require(loaded.patients.first?.log), try store.log(for: PatientID("p0"))] {
                #expect(log.skippedInsulin.isEmpty, "\(log.skippedInsulin)")
                #expect(DoseGuards.skippedInsulinRefusal(log, at: Self.utc("2026-01-05T06:10:00Z"), durationMinutes: 360) == nil)
                #expect(log.temporaryBasals.first?.start == Self.utc("2026-01-05T05:30:00Z"))
            }
        }
    }

}
