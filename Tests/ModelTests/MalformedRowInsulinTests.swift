import Foundation
import Testing
@testable import GlucoModel

/// A row whose fields cannot be told apart (a decimal comma, `bolus,1,5`; an unclosed quote) is
/// skipped at import. When it may hold insulin, it is kept as a `SkippedInsulin` of unknown time,
/// bounded by the rows around it, and a dose that it may bear on is refused. Before, it was only a
/// warning, and the dose was worked out as if the bolus had not been given.
@Suite struct MalformedRowInsulinTests {
    static let at = UndatedInsulinTests.at
    static let row = SkippedInsulin.wholeRow

    static func importText(_ text: String, name: String = "p0.csv", _ importer: any PatientDataImporter,
                           options: ImportOptions = ExportFixtures.options("UTC")) throws -> ImportResult {
        try SkippedInsulinTests.importText(text, name: name, importer, options: options)
    }

    @Test func aDecimalCommaInAGlucoModelCSVBolusRow() throws {
        let csv = """
        patient,time,event,value,unit
        p0,2026-01-05T08:00:00Z,glucose,120,mg/dL
        p0,2026-01-05T08:05:00Z,glucose,125,mg/dL
        p0,2026-01-05T08:07:00Z,bolus,1,5,U
        p0,2026-01-05T08:10:00Z,glucose,130,mg/dL
        """
        let r = try Self.importText(csv, LogCSVImporter())
        // Between the rows around it (08:05, line 3; 08:10, line 5), not at its own 08:07: the comma
        // may have shifted any field.
        UndatedInsulinTests.expectUndated(r, from: Self.at("08:05"), to: Self.at("08:10"), line: 4, field: Self.row)
        #expect(r.summary.skipped["malformed row"] == 1)
        #expect(r.log.boluses.isEmpty && r.log.glucose.count == 3)
    }

    /// A decimal comma in a row no wider than the header (typed by hand, its empty fields at the end
    /// left out), or in a file a spreadsheet saved (every row as wide, so the row is a field wider
    /// though its extra field is empty). Each was read before: 1 U, 12 g, a bolus of `0,5` U
    /// dropped as cancelled, a bolus whose event the comma moved lost.
    @Test func aDecimalCommaTheHeaderWidthDoesNotShow() throws {
        let glucose = "p0,2026-01-05T08:00:00Z,glucose,120,mg/dL"
        func read(_ header: String, _ rows: [String]) throws -> ImportResult {
            try Self.importText(([header] + rows).joined(separator: "\n") + "\n", LogCSVImporter())
        }
        // The fraction in a column that holds no number right after the value: the row is skipped,
        // and its dose, dated, refuses a dose asked for in its action; its amount is unknown.
        for (header, bad, field) in [("patient,time,event,value,note,unit", "p0,2026-01-05T08:07:00Z,bolus,1,5", "note"),
                                     ("patient,time,event,value,duration,unit,type", "p0,2026-01-05T08:07:00Z,bolus,0,5,U,normal", "duration"),
                                     ("patient,time,event,value,type,unit", "p0,2026-01-05T08:07:00Z,bolus,2,25", "type")] {
            let r = try read(header, [bad])
            #expect(r.summary.skipped["malformed row"] == 1 && r.log.boluses.isEmpty, "\(bad): \(r.summary.skipped)")
            #expect(r.log.skippedInsulin.map(\.time) == [Self.at("08:07")] && r.log.skippedInsulin.first?.unreadTime == nil, "\(bad)")
            #expect(r.summary.issues.contains { $0.location.line == 2 && $0.location.field == field && $0.message.contains("decimal comma") },
                    "\(bad): \(r.summary.issues)")
            #expect(DoseGuards.skippedInsulinRefusal(r.log, at: Self.at("09:00"), durationMinutes: 360) != nil, "\(bad)")
        }
        let meal = try read("patient,time,event,value,type,unit", ["p0,2026-01-05T08:07:00Z,carbs,12,5"])
        #expect(meal.log.carbs.isEmpty && meal.summary.skipped["malformed row"] == 1 && meal.log.skippedInsulin.isEmpty)
        // A spreadsheet's rows, all 9 fields: the bolus row has 10, its last empty.
        let sheet = try read(LogCSVImporter.header, [glucose + ",,,,", "p0,2026-01-05T08:05:00Z,glucose,125,mg/dL,,,,",
                                                     "p0,2026-01-05T08:07:00Z,bolus,1,5,U,,normal,,", "p0,2026-01-05T08:10:00Z,glucose,130,mg/dL,,,,"])
        UndatedInsulinTests.expectUndated(sheet, from: Self.at("08:05"), to: Self.at("08:10"), line: 4, field: Self.row)
        #expect(sheet.log.glucose.count == 3 && sheet.summary.skipped["malformed row"] == 1)
        #expect(sheet.summary.issues.contains { $0.message.contains("the row has 10 fields; the file's rows have 9") }, "\(sheet.summary.issues)")
        // The time column after the value: `0,5` U is a dose of unknown amount, not a cancelled bolus.
        let late = try read("patient,event,value,time", ["p0,glucose,120,2026-01-05T08:00:00Z", "p0,bolus,0,5,2026-01-05T08:07:00Z",
                                                         "p0,glucose,125,2026-01-05T08:10:00Z"])
        #expect(late.log.boluses.isEmpty && late.log.skippedInsulin.map(\.kind) == [.bolus], "\(late.log.skippedInsulin)")
        // The event column after the value: the event the comma moved is still seen.
        let moved = try read("patient,time,value,event,unit", ["p0,2026-01-05T08:00:00Z,120,glucose,mg/dL", "p0,2026-01-05T08:07:00Z,2,5,bolus"])
        #expect(moved.log.boluses.isEmpty && moved.log.skippedInsulin.map(\.time) == [Self.at("08:07")], "\(moved.log.skippedInsulin)")
        // Not a decimal comma: a value with a point, digits in a note not right after the value, a
        // file whose rows all end in one empty field more than the header has.
        let fine = try read("patient,time,event,value,note,unit", ["p0,2026-01-05T08:00:00Z,bolus,1.5,5,U", "p0,2026-01-05T08:30:00Z,bolus,2,,U"])
        #expect(fine.log.boluses.map(\.dose.units) == [1.5, 2] && fine.summary.rowsSkipped == 0, "\(fine.summary.issues)")
        let padded = try read("patient,time,event,value,unit,note", [glucose + ",ok,", "p0,2026-01-05T08:05:00Z,bolus,2,U,,", glucose.replacingOccurrences(of: "08:00", with: "08:10") + ",,"])
        #expect(padded.log.boluses.map(\.dose.units) == [2] && padded.summary.rowsSkipped == 0, "\(padded.summary.issues)")
    }

    /// An unclosed quote, each insulin event, and rows that hold none: a malformed glucose or
    /// carbohydrate row is skipped as before, with nothing kept.
    @Test func everyInsulinEventAndNoOtherOfTheGlucoModelCSV() throws {
        let header = "patient,time,event,value,unit,duration,note"
        let around = ("p0,2026-01-05T08:00:00Z,glucose,120,mg/dL,,", "p0,2026-01-05T08:05:00Z,glucose,125,mg/dL,,")
        for (bad, kind) in [("p0,2026-01-05T08:02:00Z,bolus,2,U,,\"typed late", RecordKind.bolus),
                            ("p0,2026-01-05T08:02:00Z,\"basal,0.8,U/h,,", .basal),
                            ("p0,2026-01-05T08:02:00Z,temp_basal,0,4,U/h,30,site", .temporaryBasal),
                            ("p0,2026-01-05T08:02:00Z,Basal_Injection,12,U,,,extra", .basalInjection)] {
            let r = try Self.importText([header, around.0, bad, around.1].joined(separator: "\n") + "\n", LogCSVImporter())
            UndatedInsulinTests.expectUndated(r, kind, from: Self.at("08:00"), to: Self.at("08:05"), line: 3, field: Self.row)
        }
        for bad in ["p0,2026-01-05T08:02:00Z,glucose,6,5,mmol/L,,sensor", "p0,2026-01-05T08:02:00Z,carbs,40,g,,\"pasta, bread",
                    "p0,2026-01-05T08:02:00Z,glucose,124,mg/dL,,\"after a bolus"] {
            let r = try Self.importText([header, around.0, bad, around.1].joined(separator: "\n") + "\n", LogCSVImporter())
            #expect(r.summary.skipped["malformed row"] == 1, "\(bad)")
            #expect(r.log.skippedInsulin.isEmpty, "\(bad): \(r.log.skippedInsulin)")
        }
    }

    static let clarityHeader = UndatedInsulinTests.clarityHeader

    /// Dexcom Clarity: the event type whole (a quote opened later), or lost in the quote's field.
    @Test func dexcomClarity() throws {
        let cases: [(String, RecordKind?)] = [
            ("4,2026-01-05T08:07:00,Insulin,Fast-Acting,\"pump, left,,,,2,", .bolus),
            ("4,2026-01-05T08:07:00,Insulin,Long-Acting,,\"pen,,,14,", .basalInjection),
            ("4,2026-01-05T08:07:00,\"Insulin,Fast-Acting,,,,,2,", .bolus),
            ("4,2026-01-05T08:07:00,EGV,,,\"G6,,127,,", nil),
        ]
        for (bad, kind) in cases {
            _ = try Self.clarity(bad, skipped: "unterminated quote", kind)
        }
    }

    /// Imports `bad` between two EGV rows (08:05, 08:10): skipped for `reason`, and kept as an
    /// undated `kind` between them, or nothing kept.
    static func clarity(_ bad: String, skipped reason: String, _ kind: RecordKind?) throws -> ImportResult {
        let rows = ["1,2026-01-05T08:05:00,EGV,,,,G6,125,,", bad, "5,2026-01-05T08:10:00,EGV,,,,G6,130,,"]
        let r = try Self.importText(([Self.clarityHeader] + rows).joined(separator: "\n") + "\n", DexcomClarityImporter())
        #expect(r.summary.skipped[reason] == 1, "\(bad)")
        if let kind {
            UndatedInsulinTests.expectUndated(r, kind, from: Self.at("08:05"), to: Self.at("08:10"), line: 3, field: Self.row)
        } else {
            #expect(r.log.skippedInsulin.isEmpty, "\(bad)")
        }
        return r
    }

    /// Dexcom Clarity writes no row wider than its header. In a wider one a comma has shifted the
    /// fields when a field beyond the header holds something, or the event type is out of its place
    /// (a comma in the index): the row's time is unread, its insulin bounded by the rows around it.
    /// Before, `1,5` U read as 1 U and `127,5` mg/dL as 127, silently.
    @Test func aDexcomClarityRowWiderThanItsHeader() throws {
        let cases: [(String, RecordKind?, String)] = [
            ("4,2026-01-05T08:07:00,Insulin,Fast-Acting,,,G6,,1,5,2", .bolus, "the row has 11 fields; the header has 10"),
            ("4,1,2026-01-05T08:07:00,Insulin,Long-Acting,,,G6,,14,", .basalInjection, "the row has 11 fields; the header has 10"),
            ("4,2026-01-05T08:07:00,EGV,,,,G6,127,5,,1", nil, "the row has 11 fields; the header has 10"),
            // The event type in its place and the fields beyond the header empty: the value's next
            // field, which Clarity leaves empty, holds the decimals.
            ("4,2026-01-05T08:07:00,EGV,,,,G6,127,5,,", nil, "EGV row holds a value in Insulin Value (u), '5'"),
        ]
        for (bad, kind, warning) in cases {
            let r = try Self.clarity(bad, skipped: "malformed row", kind)
            #expect(r.summary.warnings.contains { $0.location.line == 3 && $0.message.hasPrefix(warning) }, "\(r.summary.warnings)")
            #expect(r.log.boluses.isEmpty && r.log.glucose.map(\.value.mgdL) == [125, 130], "\(bad)")
        }
        // An Insulin row so shifted keeps its time: its event type is in its place.
        let r = try Self.importText(([Self.clarityHeader, "1,2026-01-05T08:05:00,EGV,,,,G6,125,,", "4,2026-01-05T08:07:00,Insulin,Fast-Acting,,,G6,,1,5,"])
            .joined(separator: "\n") + "\n", DexcomClarityImporter())
        #expect(r.summary.skipped == ["malformed row": 1] && r.log.boluses.isEmpty)
        #expect(r.log.skippedInsulin.map(\.time) == [Self.at("08:07")] && r.log.skippedInsulin.first?.unreadTime == nil)
    }

    /// A comma in the index of a dose row that Clarity writes a field short leaves it no wider than
    /// the header: its time is out of place ("bad timestamp") and so is its event type, which a
    /// piece of the row still names. Before, the dose was lost with the row.
    @Test func aCommaInTheIndexOfAClarityDoseRowAFieldShort() throws {
        let header = Self.clarityHeader + ",Duration (hh:mm:ss),Glucose Rate of Change (mg/dL/min),Transmitter Time (Long Integer),Transmitter ID"
        let rows = ["1,2026-01-05T08:05:00,EGV,,,,iOS G7,125,,,,,1234,8ABCDE", "1,002,2026-01-05T08:07:00,Insulin,Fast-Acting,,,iOS G7,,4.35,,,,",
                    "3,2026-01-05T08:10:00,EGV,,,,iOS G7,130,,,,,1534,8ABCDE"]
        #expect(rows[1].split(separator: ",", omittingEmptySubsequences: false).count == 14)
        let r = try Self.importText(([header] + rows).joined(separator: "\n") + "\n", DexcomClarityImporter())
        #expect(r.summary.skipped == ["bad timestamp": 1] && r.log.boluses.isEmpty)
        UndatedInsulinTests.expectUndated(r, .bolus, from: Self.at("08:05"), to: Self.at("08:10"), line: 3,
                                          field: DexcomClarityImporter.timestampField)
    }

    /// A file whose rows all end in a comma its header does not have (written by another tool) is
    /// read as before, Dexcom Clarity and LibreView alike; a decimal comma in it is still found.
    @Test func rowsThatAllEndInACommaAreRead() throws {
        let clarity = [Self.clarityHeader, "1,2026-01-05T08:05:00,EGV,,,,G6,125,,,", "2,2026-01-05T08:06:00,Insulin,Fast-Acting,,,G6,,1.5,,",
                       "3,2026-01-05T08:10:00,EGV,,,,G6,130,,,", "4,2026-01-05T08:12:00,Insulin,Fast-Acting,,,G6,,2,5,,"]
        let r = try Self.importText(clarity.joined(separator: "\n") + "\n", DexcomClarityImporter())
        #expect(r.log.glucose.map(\.value.mgdL) == [125, 130] && r.log.boluses.map(\.dose.units) == [1.5])
        #expect(r.summary.skipped == ["malformed row": 1] && r.log.skippedInsulin.map(\.time) == [Self.at("08:12")])
        let libre = ["Glucose Data,Generated on,01-20-2026 10:15 AM UTC,Generated by,x", Self.libreHeader,
                     "FreeStyle LibreLink,X1,01-05-2026 08:00 AM,0,120,,,,,,,,,,,", "FreeStyle LibreLink,X1,01-05-2026 08:07 AM,4,,,,1.5,,,,,,,,",
                     "FreeStyle LibreLink,X1,01-05-2026 08:15 AM,0,125,,,,,,,,,,,", "FreeStyle LibreLink,X1,01-05-2026 08:20 AM,4,,,,2,5,,,,,,,,"]
        let l = try Self.importText(libre.joined(separator: "\n") + "\n", LibreViewImporter(), options: ExportFixtures.options("UTC", order: .monthDayYear))
        #expect(l.log.glucose.map(\.value.mgdL) == [120, 125] && l.log.boluses.map(\.dose.units) == [1.5])
        #expect(l.summary.skipped == ["malformed row": 1])
        #expect(l.summary.warnings.contains { $0.location.line == 6 && $0.message.hasPrefix("the row has 17 fields; the file's rows have 16") })
        #expect(l.log.skippedInsulin.map(\.kind) == [.bolus] && l.log.skippedInsulin.first?.location.line == 6)
    }

    /// Clarity writes an Insulin row a field short of its 14-column header (no transmitter id), so a
    /// decimal comma leaves it no wider than the header: `0,5` U read as 0 U (a cancelled bolus, not
    /// kept) and 5 g. A carbohydrate value on an Insulin row gives it away (and a duration on a Carbs row); the row's time is whole
    /// (the event type reads at its own place), so the dose is kept at it. A row as Clarity writes it
    /// is read.
    @Test func aDecimalCommaInAClarityInsulinRowAFieldShort() throws {
        let header = Self.clarityHeader + ",Duration (hh:mm:ss),Glucose Rate of Change (mg/dL/min),Transmitter Time (Long Integer),Transmitter ID"
        let egv = { (i: Int, t: String, g: Int) in "\(i),2026-01-05T\(t):00,EGV,,,,iOS G7,\(g),,,,,1234,8ABCDE" }
        for (amount, read) in [("0,5", nil), ("4,35", nil), ("4.35", 4.35)] as [(String, Double?)] {
            let rows = [egv(1, "08:05", 125), "2,2026-01-05T08:07:00,Insulin,Fast-Acting,,,iOS G7,,\(amount),,,,", egv(3, "08:10", 130)]
            #expect(rows[1].split(separator: ",", omittingEmptySubsequences: false).count == (read == nil ? 14 : 13))
            let r = try Self.importText(([header] + rows).joined(separator: "\n") + "\n", DexcomClarityImporter())
            #expect(r.log.boluses.map(\.dose.units) == (read.map { [$0] } ?? []), "\(amount)")
            if read == nil {
                #expect(r.summary.skipped == ["malformed row": 1], "\(amount)")
                #expect(r.summary.warnings.contains { $0.location.line == 3 && $0.location.field == "Carb Value (grams)"
                        && $0.message.hasPrefix("Insulin row holds a value in Carb Value (grams), '\(amount.suffix(from: amount.firstIndex(of: ",")!).dropFirst())'") },
                        "\(r.summary.warnings)")
                #expect(r.log.skippedInsulin.map(\.kind) == [.bolus] && r.log.skippedInsulin.map(\.time) == [Self.at("08:07")], "\(amount)")
                #expect(r.log.skippedInsulin.allSatisfy { $0.unreadTime == nil && $0.location.field == "Insulin Value (u)" })
            } else {
                #expect(r.summary.rowsSkipped == 0 && r.log.skippedInsulin.isEmpty)
            }
        }
    }

    static let libreHeader = "Device,Serial Number,Device Timestamp,Record Type,Historic Glucose mg/dL,Scan Glucose mg/dL,"
        + "Non-numeric Rapid-Acting Insulin,Rapid-Acting Insulin (units),Non-numeric Food,Carbohydrates (grams),"
        + "Carbohydrates (servings),Non-numeric Long-Acting Insulin,Long-Acting Insulin (units),Notes,Strip Glucose mg/dL"

    /// LibreView: an insulin row (type 4) whose note opens a quote holds the amounts before it; a
    /// quote in the device name loses the record type, and a 4 among the pieces may be one.
    @Test func libreView() throws {
        let cases: [(String, [RecordKind])] = [
            ("FreeStyle LibreLink,X1,01-05-2026 08:07 AM,4,,,,2,,,,,,\"after lunch, late,", [.bolus]),
            ("FreeStyle LibreLink,X1,01-05-2026 08:07 AM,4,,,,,,,,,,\"pen, 14 U,", []),
            ("FreeStyle LibreLink,X1,01-05-2026 08:07 AM,4,,,,,,,,,\"14,", [.basalInjection]),
            ("\"FreeStyle LibreLink,X1,01-05-2026 08:07 AM,4,,,,2,,,,,,,", [.bolus, .basalInjection]),
            ("FreeStyle LibreLink,X1,01-05-2026 08:07 AM,1,,\"127,,,,,,,,,", []),
        ]
        for (bad, kinds) in cases {
            _ = try Self.libre(bad, skipped: "unterminated quote", kinds)
        }
    }

    /// Imports `bad` between two historic readings (08:00, 08:15): skipped for `reason`, and kept
    /// as undated `kinds` between them.
    static func libre(_ bad: String, skipped reason: String, _ kinds: [RecordKind]) throws -> ImportResult {
        let lines = ["Glucose Data,Generated on,01-20-2026 10:15 AM UTC,Generated by,x", Self.libreHeader,
                     "FreeStyle LibreLink,X1,01-05-2026 08:00 AM,0,120,,,,,,,,,,", bad,
                     "FreeStyle LibreLink,X1,01-05-2026 08:15 AM,0,125,,,,,,,,,,"]
        let r = try Self.importText(lines.joined(separator: "\n") + "\n", LibreViewImporter(),
                                    options: ExportFixtures.options("UTC", order: .monthDayYear))
        #expect(r.summary.skipped[reason] == 1, "\(bad)")
        #expect(r.log.skippedInsulin.map(\.kind) == kinds, "\(bad)")
        #expect(r.log.skippedInsulin.allSatisfy {
            $0.time == Self.at("08:00") && $0.unreadTime == .init(latest: Self.at("08:15"), betweenRows: true)
                && $0.location.line == 4 && $0.location.field == Self.row
        }, "\(bad): \(r.log.skippedInsulin)")
        return r
    }

    /// LibreView writes every row as wide as its header: a wider row has a comma too many. An
    /// insulin row's amount may be at any place the comma moved it to; a glucose row whose record
    /// type reads 0 at its own place holds no insulin, though a shifted `4` follows it.
    @Test func aLibreViewRowWiderThanItsHeader() throws {
        let cases: [(String, [RecordKind])] = [
            ("FreeStyle LibreLink,X1,01-05-2026 08:07 AM,4,,,,1,5,,,,,,,", [.bolus]),
            ("FreeStyle LibreLink,X1,01-05-2026 08:07 AM,4,,,,,,,,,14,5,,", [.basalInjection]),
            ("FreeStyle, LibreLink,X1,01-05-2026 08:07 AM,4,,,,2,,,,,,,", [.bolus]),
            ("FreeStyle LibreLink,X1,01-05-2026 08:07 AM,0,4,5,,,,,,,,,,", []),
        ]
        for (bad, kinds) in cases {
            let r = try Self.libre(bad, skipped: "malformed row", kinds)
            #expect(r.summary.warnings.contains { $0.location.line == 4 && $0.message.hasPrefix("the row has 16 fields; the header has 15") }, "\(r.summary.warnings)")
            #expect(r.log.boluses.isEmpty && r.log.glucose.count == 2, "\(bad)")
        }
    }

    /// A mapped CSV: a comma too many may have shifted any field, so each insulin column may hold a
    /// dose; an unclosed quote after them leaves them readable (here empty, or a bolus of 0).
    @Test func mappedCSV() throws {
        var options = ExportFixtures.options("UTC")
        options.columns = try CSVColumnMapping(parsing: "time=date,patient=id,glucose=CGM,bolus=insulin,carbs=carbs,basal=rate")
        let cases: [(String, [RecordKind])] = [
            ("2026-01-05T08:02:00Z,p0,,1,5,,,pump", [.bolus, .basal]),
            ("2026-01-05T08:02:00Z,p0,124,,,,\"late, sensor", []),
            ("2026-01-05T08:02:00Z,p0,124,0,,,\"late, sensor", []),
            ("2026-01-05T08:02:00Z,p0,124,,,0,\"suspended, site", [.basal]),
            ("2026-01-05T08:02:00Z,p0,\"124,2,,,", [.bolus, .basal]),
        ]
        for (bad, kinds) in cases {
            let csv = ["date,id,CGM,insulin,carbs,rate,note", "2026-01-05T08:00:00Z,p0,120,,,,", bad, "2026-01-05T08:05:00Z,p0,125,,,,"]
            let r = try Self.importText(csv.joined(separator: "\n") + "\n", MappedCSVImporter(), options: options)
            #expect(r.summary.skipped["malformed row"] == 1, "\(bad)")
            #expect(r.log.skippedInsulin.map(\.kind) == kinds, "\(bad)")
            #expect(r.log.skippedInsulin.allSatisfy {
                $0.time == Self.at("08:00") && $0.unreadTime == .init(latest: Self.at("08:05"), betweenRows: true) && $0.location.field == Self.row
            }, "\(bad): \(r.log.skippedInsulin)")
        }
    }

    /// A LibreView export whose readings were all written with a decimal comma (`5,6` mmol/L, not
    /// quoted): every row a field wider, its extra field empty. Before, the file was taken for one
    /// whose rows end in an empty field (padded) and every reading was read as its whole part
    /// (5 mmol/L); now the rows are malformed, and a bolus among them is kept as skipped insulin.
    @Test func aLibreViewExportOfDecimalCommasIsNotAPaddedOne() throws {
        let header = "Device,Serial Number,Device Timestamp,Record Type,Historic Glucose mmol/L,Scan Glucose mmol/L,"
            + "Non-numeric Rapid-Acting Insulin,Rapid-Acting Insulin (units),Non-numeric Food,Carbohydrates (grams),"
            + "Carbohydrates (servings),Non-numeric Long-Acting Insulin,Long-Acting Insulin (units),Notes,Strip Glucose mmol/L,"
            + "Ketone mmol/L,Meal Insulin (units),Correction Insulin (units),User Change Insulin (units)"
        func row(_ minute: Int, type: Int, column: Int, value: String) -> String {
            var f = ["FreeStyle LibreLink", "6A1B", String(format: "01-05-2026 08:%02d AM", minute), "\(type)"] + Array(repeating: "", count: 15)
            f[column] = value
            return f.joined(separator: ",")
        }
        var rows = (0..<12).map { row($0 * 5, type: 0, column: 4, value: "5,\($0 % 10)") }
        rows.insert(row(31, type: 4, column: 7, value: "4,5"), at: 7)
        let r = try Self.importText((["Glucose Data,Generated on,01-06-2026 10:15 AM UTC,Generated by,x", header] + rows)
            .joined(separator: "\n") + "\n", LibreViewImporter(), options: ExportFixtures.options("UTC", order: .monthDayYear))
        #expect(r.log.glucose.isEmpty && r.log.boluses.isEmpty, "\(r.log.glucose.prefix(3))")
        #expect(r.summary.skipped["malformed row"] == 13)
        #expect(r.log.skippedInsulin.map(\.kind) == [.bolus])
    }

    /// A mapped export whose rows are all as wide as its header (GluPredKit's): `4,35` U with the
    /// carbohydrate cell after it empty read as 4 U and 35 g before, the field it adds being empty.
    @Test func aMappedCSVRowWiderThanTheFileRows() throws {
        var options = ExportFixtures.options("UTC")
        options.columns = try CSVColumnMapping(parsing: "time=date,patient=id,glucose=CGM,bolus=insulin,carbs=carbs")
        let csv = ["date,id,CGM,insulin,carbs", "2026-01-05T08:00:00Z,p0,120,,", "2026-01-05T08:02:00Z,p0,,4,35,",
                   "2026-01-05T08:05:00Z,p0,125,,", "2026-01-05T08:10:00Z,p0,,2,40"]
        let r = try Self.importText(csv.joined(separator: "\n") + "\n", MappedCSVImporter(), options: options)
        #expect(r.summary.skipped["malformed row"] == 1 && r.log.carbs.map(\.amount.grams) == [40] && r.log.boluses.map(\.dose.units) == [2])
        #expect(r.summary.issues.contains { $0.message.contains("the row has 6 fields; the file's rows have 5") }, "\(r.summary.issues)")
        UndatedInsulinTests.expectUndated(r, from: Self.at("08:00"), to: Self.at("08:05"), line: 3, field: Self.row)
        // Rows that all end in an empty field the header does not name are read.
        var fine = csv
        fine[2] = "2026-01-05T08:02:00Z,p0,,4.35,"
        let padded = try Self.importText(fine.map { $0 + "," }.joined(separator: "\n") + "\n", MappedCSVImporter(), options: options)
        #expect(padded.summary.rowsSkipped == 0 && padded.log.boluses.map(\.dose.units) == [4.35, 2], "\(padded.summary.issues)")
    }

    /// `pieces`: every comma's piece, the quote's field cut again, trimmed of spaces and quotes.
    @Test func theRowsPieces() {
        #expect(CSVRow("a, \"b,c\" ,d").pieces == ["a", "b", "c", "d"])
        #expect(CSVRow("a,\"b, c,d").pieces == ["a", "b", "c", "d"])
        let open = CSVRow("a,b,\"c,d")
        #expect(open.unterminatedQuote && [0, 1, 2, 3].map(open.isIntact) == [true, true, false, false])
        #expect([0, 2, 3, -1].map(CSVRow("a,b,c").isIntact) == [true, true, false, false])
    }

    /// The dose from a file in time order: 5 U, refused once a bolus row with an unclosed quote is added.
    @Test func aDoseAfterABolusRowWithAnUnclosedQuoteIsRefused() throws {
        #expect(try UndatedInsulinTests.formulaDose().suggestion.decision.units == 5)
        let (s, _, line) = try UndatedInsulinTests.formulaDose(adding: "{patient},2026-01-05T10:32:00Z,bolus,3,U,,,,\"typed late")
        #expect(s.decision.units == nil)
        #expect(s.reasons.map(\.code) == ["skipped_insulin_record"])
        #expect(s.report.contains("[skipped_insulin_record] a bolus may be in a row that could not be split into its fields ("), "\(s.report)")
        #expect(s.report.contains("/p.csv:\(line) [row]: an unclosed quote, or a comma too many, as in a decimal comma); the row was "
                                  + "skipped at import: it may be from any time between 2026-01-05T10:30:00Z and 2026-01-05T10:35:00Z, "
                                  + "by the rows around it"), "\(s.report)")
        #expect(s.report.contains("Correct the row in the file and import it again"), "\(s.report)")
    }
}
