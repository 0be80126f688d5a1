import Foundation
import GlucoModel
import Testing

private let utc = ExportFixtures.utc
private let mmol = ExportFixtures.mmol

@Suite("Export importers: Dexcom Clarity and LibreView CSV")
struct ExportCSVTests {
    // Europe/Madrid 2026: clocks go 02:00 CET -> 03:00 CEST on 29 March (01:00 UTC) and
    // 03:00 CEST -> 02:00 CET on 25 October (01:00 UTC). CET = UTC+1, CEST = UTC+2.
    @Test func dexcomMgdLWithPreambleDSTAndCensoredValues() throws {
        let r = try DexcomClarityImporter().importFile(at: ExportFixtures.url("dexcom_madrid_dst.csv"),
                                                       options: ExportFixtures.options("Europe/Madrid"))
        let g = r.log.glucose
        let expected: [(Date, Double, GlucoseSource, Censoring?)] = [
            (utc("2026-03-29T00:55:00Z"), 100, .cgm, nil),   // 01:55 CET
            (utc("2026-03-29T01:30:00Z"), 102, .cgm, nil),   // 02:30 does not exist: shifted to 03:30 CEST
            (utc("2026-03-29T01:40:00Z"), 104, .cgm, nil),   // 03:40 CEST
            (utc("2026-10-24T23:55:00Z"), 120, .cgm, nil),   // 01:55 CEST (the duplicate row dropped)
            (utc("2026-10-25T00:30:00Z"), 118, .cgm, nil),   // 02:30 first pass, CEST
            (utc("2026-10-25T00:55:00Z"), 40, .cgm, .belowRange),  // 02:55 first pass, "Low"
            (utc("2026-10-25T01:00:00Z"), 110, .cgm, nil),   // 02:00 after a backwards jump: second pass, CET
            (utc("2026-10-25T01:05:00Z"), 112, .cgm, nil),   // 02:05 second pass, CET
            (utc("2026-10-25T02:00:00Z"), 400, .cgm, .aboveRange), // 03:00 CET, "High"
            (utc("2026-10-25T02:20:00Z"), 105, .fingerStick, nil),  // Calibration 03:20 CET
        ]
        #expect(g.count == expected.count)
        for (reading, e) in zip(g, expected) {
            #expect(reading.time == e.0)
            #expect(reading.value.mgdL == e.1)
            #expect(reading.source == e.2)
            #expect(reading.censoring == e.3)
        }
        #expect(r.log.boluses == [Bolus(time: utc("2026-10-25T02:10:00Z"), dose: InsulinUnits(4.5), kind: .rapid)])
        #expect(r.log.carbs == [CarbIntake(time: utc("2026-10-25T02:10:00Z"), amount: Carbohydrate(grams: 45))])
        #expect(r.log.basalInjections == [BasalInjection(time: utc("2026-10-25T02:15:00Z"), dose: InsulinUnits(12))])
        #expect(r.log.otherRecords == ["Exercise": 1])

        let s = r.summary
        #expect(s.rowsRead == 20)  // every row after the header
        #expect(s.recordsKept == 13)  // 10 readings + bolus + carbs + injection
        #expect(s.skipped == ["patient/device/alert info row (no timestamp)": 4, "duplicate": 1, "not a number": 1])
        #expect(s.adjusted[LocalTimeResolver.gapReason] == 1)
        #expect(s.adjusted[LocalTimeResolver.repeatFirstReason] == 2)
        #expect(s.adjusted[LocalTimeResolver.repeatSecondReason] == 2)
        #expect(s.adjusted["censored Low kept at 40 mg/dL"] == 1)
        #expect(s.adjusted["censored High kept at 400 mg/dL"] == 1)
        let bad = s.issues.first { $0.message.contains("'abc'") }
        #expect(bad?.location == SourceLocation(file: "dexcom_madrid_dst.csv", line: 21, field: "Glucose Value (mg/dL)"))
        #expect(r.log.patient.rawValue == "dexcom_madrid_dst")
    }

    @Test func dexcomPatientNamesNeverReachTheOutput() throws {
        let url = ExportFixtures.url("dexcom_madrid_dst.csv")
        let raw = try String(contentsOf: url, encoding: .utf8)
        #expect(raw.contains("Jacinta") && raw.contains("Quintanilla"))  // the fixture does hold them
        let r = try DexcomClarityImporter().importFile(at: url, options: ExportFixtures.options("Europe/Madrid"))
        let everything = "\(r.log) \(r.summary) \(r.summary.issues)"
        #expect(!everything.contains("Jacinta"))
        #expect(!everything.contains("Quintanilla"))
    }

    @Test func dexcomPatientIDFromFileNameDropsPreambleNames() throws {
        // Clarity names its files after the patient: the id must not carry the name.
        let dir = ScratchSpace.root.appendingPathComponent("dexcom-name-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let named = dir.appendingPathComponent("Clarity_Export_Quintanilla_Jacinta_2026-11-20.csv")
        try FileManager.default.copyItem(at: ExportFixtures.url("dexcom_madrid_dst.csv"), to: named)
        let r = try DexcomClarityImporter().importFile(at: named, options: ExportFixtures.options("Europe/Madrid"))
        // FirstName/LastName rows name Jacinta Quintanilla: both removed, "__" runs collapsed.
        #expect(r.log.patient.rawValue == "Clarity_Export_2026-11-20")
        #expect(!"\(r.summary)\(r.summary.issues)".contains("Jacinta"))
        // Nor the warnings made when the file is built (before, they kept the raw file name): a
        // lone reading in the repeated hour of 26 Oct 2025 is named with its line.
        let lone = dir.appendingPathComponent("Clarity_Export_Quintanilla_Jacinta_2026-11-21.csv")
        try (String(contentsOf: named, encoding: .utf8) + "21,2025-10-26T02:30:00,EGV,,,,iOS G6,130,,,,,9900,8ABCDE\n")
            .write(to: lone, atomically: true, encoding: .utf8)
        let warned = try DexcomClarityImporter().importFile(at: lone, options: ExportFixtures.options("Europe/Madrid"))
        let hour = try #require(warned.summary.warnings.first { $0.message.contains("repeated daylight-saving hour") })
        #expect(hour.location.line == 22)
        #expect(!"\(warned.summary)\(warned.summary.issues)".contains("Jacinta"))
        let explicit = try PatientID("p-017")
        var o = ExportFixtures.options("Europe/Madrid"); o.patient = explicit
        #expect(try DexcomClarityImporter().importFile(at: named, options: o).log.patient == explicit)
    }

    /// Hunt W: LibreView names its exports after the person (`JacintaQuintanilla_glucose_20-1-2026.csv`)
    /// and its title line says who (`Generated by,Jacinta Quintanilla`); the name became the id. It is
    /// now refused as Clarity's is, and with an id given, the names are out of the file's messages.
    @Test func libreViewFileNamedAfterThePersonGivesNoID() throws {
        let dir = ScratchSpace.root.appendingPathComponent("libre-name-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let named = dir.appendingPathComponent("JacintaQuintanilla_glucose_20-1-2026.csv")
        // The fixture with an insulin row whose time cannot be read: kept as skipped, with its file.
        try (String(contentsOf: ExportFixtures.url("libre_us_mgdl.csv"), encoding: .utf8)
             + "FreeStyle LibreLink,1A2B3C4D-5E6F,01-15-2026 25:30 PM,4,,,,3,,,,,,,,,,,\n").write(to: named, atomically: true, encoding: .utf8)
        let options = ExportFixtures.options("America/New_York")
        #expect { try LibreViewImporter().importFile(at: named, options: options) } throws: { error in
            "\(error)".contains("its name holds the patient's name")  // (its location is the file the user gave)
        }
        var given = options
        given.patient = try PatientID("p-018")
        let r = try LibreViewImporter().importFile(at: named, options: given)
        #expect(r.log.patient.rawValue == "p-018")
        #expect(r.log.skippedInsulin.count == 1)
        let everything = "\(r.summary) \(r.summary.issues) \(r.summary.skippedInsulin ?? []) \(r.log.skippedInsulin)"
        #expect(!everything.contains("Jacinta") && !everything.contains("Quintanilla"), "\(everything)")
        // A pseudonymous name is the id, as before.
        let plain = dir.appendingPathComponent("p7.csv")
        try FileManager.default.copyItem(at: ExportFixtures.url("libre_us_mgdl.csv"), to: plain)
        #expect(try LibreViewImporter().importFile(at: plain, options: options).log.patient.rawValue == "p7")
        // A two-letter name is inside many a pseudonym (review): Lu in "glucose", Do in "adolescent".
        let fixture = try String(contentsOf: ExportFixtures.url("libre_us_mgdl.csv"), encoding: .utf8)
        let short = fixture.replacingOccurrences(of: "Generated by,Jacinta Quintanilla", with: "Generated by,Van Do Lu")
        for name in ["p017_glucose_20-1-2026.csv", "adolescent_003.csv"] {
            let url = dir.appendingPathComponent(name)
            try short.write(to: url, atomically: true, encoding: .utf8)
            let r = try LibreViewImporter().importFile(at: url, options: options)
            #expect(r.log.patient.rawValue == String(name.dropLast(4)))
            #expect(r.summary.file == name, "the file's name as it is: no 'gcose'")
        }
        // As a word of its own it is the name: taken out (the rest is the id), or refused when run together.
        let worded = dir.appendingPathComponent("Lu_Do_glucose_20-1-2026.csv")
        try short.write(to: worded, atomically: true, encoding: .utf8)
        #expect(try LibreViewImporter().importFile(at: worded, options: options).log.patient.rawValue == "glucose_20-1-2026")
        let together = dir.appendingPathComponent("VanDoLu_glucose.csv")
        try short.write(to: together, atomically: true, encoding: .utf8)
        #expect(throws: InputError.self) { try LibreViewImporter().importFile(at: together, options: options) }
    }

    /// The review (stop 54): a re-export whose bolus differs from the stored one is kept as skipped
    /// insulin by the store, and by files read together; both named the file with the person's names.
    @Test func aConflictingReExportIsNamedWithoutThePersonsNames() throws {
        let dir = ScratchSpace.root.appendingPathComponent("dexcom-conflict-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = try String(contentsOf: ExportFixtures.url("dexcom_madrid_dst.csv"), encoding: .utf8)
        let first = dir.appendingPathComponent("Clarity_Export_Quintanilla_Jacinta_2026-11-20.csv")
        let again = dir.appendingPathComponent("Clarity_Export_Quintanilla_Jacinta_2026-11-21.csv")
        try text.write(to: first, atomically: true, encoding: .utf8)
        try text.replacingOccurrences(of: "Fast-Acting,,,iOS G6,,4.5,", with: "Fast-Acting,,,iOS G6,,6.5,").write(to: again, atomically: true, encoding: .utf8)
        var options = ExportFixtures.options("Europe/Madrid")
        options.patient = try PatientID("p-017")
        let store = try PatientStore(path: dir.appendingPathComponent("s.sqlite").path)
        _ = try store.importFile(first, importer: DexcomClarityImporter(), options: options)
        guard case let .imported(run) = try store.importFile(again, importer: DexcomClarityImporter(), options: options) else {
            Issue.record("not imported"); return
        }
        #expect(run.summary.skippedInsulin?.count == 1)
        let stored = "\(run.summary) \(run.summary.issues) \(try store.log(for: options.patient!).skippedInsulin)"
        #expect(!stored.contains("Jacinta") && !stored.contains("Quintanilla"), "\(stored)")
        // Files read together: the same.
        let source = ExportFiles(paths: [first.path, again.path], options: options)
        let loaded = try source.load()
        let together = "\(loaded.summaries) \(loaded.patients.map(\.log.skippedInsulin))"
        #expect(together.contains("6.5") && !together.contains("Jacinta"), "\(together)")
    }

    @Test func dexcomMmolAccount() throws {
        let r = try DexcomClarityImporter().importFile(at: ExportFixtures.url("dexcom_mmol.csv"),
                                                       options: ExportFixtures.options("Europe/Madrid"))
        let g = r.log.glucose
        #expect(g.count == 3)
        // January: CET = UTC+1. 5.5 mmol/L x 18.01559 = 99.085745 mg/dL; "6,1" (decimal comma) = 109.895099.
        #expect(g.map(\.time) == [utc("2026-01-10T07:00:00Z"), utc("2026-01-10T07:05:00Z"), utc("2026-01-10T07:10:00Z")])
        #expect(abs(g[0].value.mgdL - 99.085745) < 1e-9)
        #expect(g[1].value.mgdL == 40 && g[1].censoring == .belowRange)
        #expect(abs(g[2].value.mgdL - 109.895099) < 1e-9 && g[2].source == .fingerStick)
        #expect(r.summary.skipped == ["patient/device/alert info row (no timestamp)": 2])
    }

    @Test func libreUSOrderUnsortedRows() throws {
        let r = try LibreViewImporter().importFile(at: ExportFixtures.url("libre_us_mgdl.csv"),
                                                   options: ExportFixtures.options("America/New_York"))
        // January in New York: EST = UTC-5. "12:00 AM" is midnight.
        let g = r.log.glucose
        #expect(g.map(\.time) == [utc("2026-01-15T05:00:00Z"), utc("2026-01-15T13:00:00Z"),
                                  utc("2026-01-15T13:07:00Z"), utc("2026-01-15T13:15:00Z")])
        #expect(g.map(\.value.mgdL) == [95, 105, 108, 110])  // historic and scan both kept
        #expect(r.log.boluses == [Bolus(time: utc("2026-01-15T17:30:00Z"), dose: InsulinUnits(6), kind: .rapid)])
        #expect(r.log.carbs == [CarbIntake(time: utc("2026-01-15T17:30:00Z"), amount: Carbohydrate(grams: 60))])
        #expect(r.log.basalInjections == [BasalInjection(time: utc("2026-01-16T03:00:00Z"), dose: InsulinUnits(14))])
        #expect(r.log.otherRecords == ["LibreView notes/events": 1])
        // Glucose rows in file order 08:15, 08:00, 08:07, 00:00: three come after a later one.
        #expect(r.summary.adjusted == ["row out of time order (sorted)": 3])
        #expect(r.summary.skipped == ["empty glucose value": 1])
        #expect(r.summary.issues.first?.location == SourceLocation(file: "libre_us_mgdl.csv", line: 11, field: "Historic Glucose mg/dL"))
        #expect(r.summary.rowsRead == 9 && r.summary.recordsKept == 7)
        #expect(!"\(r.log) \(r.summary)".contains("Jacinta"))
    }

    @Test func libreEuropeanOrderMmolAndDSTRepeat() throws {
        let r = try LibreViewImporter().importFile(at: ExportFixtures.url("libre_eu_mmol.csv"),
                                                   options: ExportFixtures.options("Europe/Madrid"))
        let g = r.log.glucose
        // 25-10-2026: day 25 > 12 proves day-first. 02:05 (second time) follows 02:50: second pass, CET.
        #expect(g.map(\.time) == [utc("2026-10-24T23:50:00Z"), utc("2026-10-25T00:05:00Z"), utc("2026-10-25T00:50:00Z"),
                                  utc("2026-10-25T01:05:00Z"), utc("2026-10-25T01:20:00Z"), utc("2026-10-25T02:10:00Z")])
        let values = [mmol(6.0), mmol(6.2), mmol(6.4), mmol(6.6), mmol(5.5), mmol(7.0)]
        for (a, e) in zip(g.map(\.value.mgdL), values) { #expect(abs(a - e) < 1e-9) }
        #expect(g.last?.source == .fingerStick)
        // 3 servings read as 10 g rations = 30 g, at 03:05 CET.
        #expect(r.log.carbs == [CarbIntake(time: utc("2026-10-25T02:05:00Z"), amount: Carbohydrate(grams: 30))])
        #expect(r.summary.adjusted[LocalTimeResolver.repeatFirstReason] == 2)
        #expect(r.summary.adjusted[LocalTimeResolver.repeatSecondReason] == 2)
        #expect(r.summary.adjusted["carbohydrate servings read as 10 g rations"] == 1)
        #expect(r.log.otherRecords == ["LibreView ketone": 1])
    }

    @Test func libreAmbiguousDatesNeedTheOption() throws {
        let url = ExportFixtures.url("libre_ambiguous.csv")
        #expect(throws: InputError.self) { try LibreViewImporter().importFile(at: url, options: ExportFixtures.options("UTC")) }
        do {
            _ = try LibreViewImporter().importFile(at: url, options: ExportFixtures.options("UTC"))
        } catch let e as InputError {
            #expect(e.description.contains("date order"))
        }
        let dmy = try LibreViewImporter().importFile(at: url, options: ExportFixtures.options("UTC", order: .dayMonthYear))
        #expect(dmy.log.glucose.map(\.time) == [utc("2026-04-03T10:00:00Z"), utc("2026-04-03T10:15:00Z")])
        let mdy = try LibreViewImporter().importFile(at: url, options: ExportFixtures.options("UTC", order: .monthDayYear))
        #expect(mdy.log.glucose.map(\.time) == [utc("2026-03-04T10:00:00Z"), utc("2026-03-04T10:15:00Z")])
    }

    /// A LibreView export in the Libre's own shape, written to a temporary file named `name`.
    static func libreFile(_ rows: [String], name: String) throws -> URL {
        let dir = ScratchSpace.root.appendingPathComponent("libre-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        let header = "Device,Serial Number,Device Timestamp,Record Type,Historic Glucose mg/dL,Scan Glucose mg/dL,"
            + "Non-numeric Rapid-Acting Insulin,Rapid-Acting Insulin (units),Non-numeric Food,Carbohydrates (grams),"
            + "Carbohydrates (servings),Non-numeric Long-Acting Insulin,Long-Acting Insulin (units),Notes,Strip Glucose mg/dL,"
            + "Ketone mmol/L,Meal Insulin (units),Correction Insulin (units),User Change Insulin (units)"
        let text = (["Glucose Data,Generated on,15-02-2026 10:15 AM UTC,Generated by,X", header] + rows).joined(separator: "\n") + "\n"
        try Data(text.utf8).write(to: url)
        return url
    }

    static func libreGlucoseRow(_ timestamp: String, _ mgdl: Int) -> String {
        "FreeStyle Libre 2,1A2B,\(timestamp),0,\(mgdl),,,,,,,,,,,,,,"
    }

    /// Before: an AM/PM suffix was taken as proof of month-first order, so a day-first export
    /// with a 12-hour clock (en-AU, en-IN accounts: `13-02-2026 08:00 AM`) was read month-first:
    /// the rows of 10 and 11 February were stored in October and November without a warning,
    /// 12 February was skipped as future-dated and 13-14 February as "not a date".
    @Test func libreDayFirstWithATwelveHourClockIsReadDayFirst() throws {
        var rows: [String] = []
        var glucose: [Date] = [], boluses: [Bolus] = []
        for day in 10...14 {
            for hour in 8...11 {
                rows.append(Self.libreGlucoseRow("\(day)-02-2026 \(String(format: "%02d", hour)):00 AM", 100 + day))
                glucose.append(utc("2026-02-\(day)T\(String(format: "%02d", hour)):00:00Z"))
            }
            rows.append("FreeStyle Libre 2,1A2B,\(day)-02-2026 12:30 PM,4,,,,3,,,,,,,,,,,")
            boluses.append(Bolus(time: utc("2026-02-\(day)T12:30:00Z"), dose: InsulinUnits(3), kind: .rapid))
        }
        let url = try Self.libreFile(rows, name: "libre-dmy-12h.csv")
        // "now" on 15 February: a row read month-first (12 February as 2 December) would be future-dated.
        var options = ExportFixtures.options("UTC")
        options.now = utc("2026-02-15T10:15:00Z")
        options.patient = try PatientID("p2")
        let r = try LibreViewImporter().importFile(at: url, options: options)
        #expect(r.log.glucose.map(\.time) == glucose)
        #expect(r.log.boluses == boluses)
        #expect(r.summary.skipped.isEmpty && r.summary.issues.isEmpty, "\(r.summary.issues)")
        #expect(r.summary.rowsRead == 25 && r.summary.recordsKept == 25)
        // The option still decides: month-first reads the 13th and 14th as no date.
        let mdy = try LibreViewImporter().importFile(at: url, options: ExportFixtures.options("UTC", order: .monthDayYear))
        #expect(mdy.summary.skipped["bad timestamp"] == 10)
    }

    /// Before: the first row that proved an order decided the file, and rows proving the other
    /// order were skipped one by one (or, read in the first order, misdated).
    @Test func libreRowsProvingBothOrdersAreAnErrorNamingOneLineOfEach() throws {
        let url = try Self.libreFile([Self.libreGlucoseRow("05-02-2026 08:00", 100),   // line 3: either order
                                      Self.libreGlucoseRow("13-02-2026 08:00", 110),   // line 4: day-first only
                                      Self.libreGlucoseRow("14-02-2026 08:00", 120),   // line 5: day-first only
                                      Self.libreGlucoseRow("02-13-2026 09:00", 130)],  // line 6: month-first only
                                     name: "mixed.csv")
        let error = try #require(throws: InputError.self) {
            try LibreViewImporter().importFile(at: url, options: ExportFixtures.options("UTC"))
        }
        #expect(error.issue.location.file == "mixed.csv" && error.issue.location.field == "Device Timestamp")
        let message = error.issue.message
        #expect(message.contains("line 4 '13-02-2026 08:00'") && message.contains("line 6 '02-13-2026 09:00'"), "\(message)")
        #expect(message.contains("set the date order option (dmy or mdy)"), "\(message)")
        // Given the order, the rows of the other one are skipped with a warning each.
        let dmy = try LibreViewImporter().importFile(at: url, options: ExportFixtures.options("UTC", order: .dayMonthYear))
        #expect(dmy.log.glucose.count == 3 && dmy.summary.skipped == ["bad timestamp": 1])
    }

    /// Hunt AI (stop 57): the command lines' `--date-order` forced its order on a file whose own dates
    /// decide (a day-first export of 5-18 January, read month-first: 5-12 January stored as May to
    /// December, 13-18 skipped). It is now the order of a file whose dates do not decide: none proves
    /// one (every day 1-12), or rows prove both.
    @Test func theDateOrderOptionNeverOverridesAFileWhoseDatesDecide() throws {
        func options(_ order: DateOrder) -> ImportOptions {
            var o = ExportFixtures.options("UTC")
            o.undecidedDateOrder = order
            return o
        }
        let dayFirst = try Self.libreFile([Self.libreGlucoseRow("05-01-2026 08:00", 100), Self.libreGlucoseRow("18-01-2026 08:00", 110)],
                                          name: "day-first.csv")
        let read = try LibreViewImporter().importFile(at: dayFirst, options: options(.monthDayYear))
        #expect(read.log.glucose.map(\.time) == [utc("2026-01-05T08:00:00Z"), utc("2026-01-18T08:00:00Z")] && read.summary.skipped.isEmpty)
        let open = try Self.libreFile([Self.libreGlucoseRow("05-01-2026 08:00", 100), Self.libreGlucoseRow("06-01-2026 08:00", 110)],
                                      name: "open.csv")
        #expect(try LibreViewImporter().importFile(at: open, options: options(.monthDayYear)).log.glucose.map(\.time)
                == [utc("2026-05-01T08:00:00Z"), utc("2026-06-01T08:00:00Z")])
        let mixed = try Self.libreFile([Self.libreGlucoseRow("13-02-2026 08:00", 110), Self.libreGlucoseRow("02-13-2026 09:00", 130)],
                                       name: "mixed.csv")
        let both = try LibreViewImporter().importFile(at: mixed, options: options(.dayMonthYear))
        #expect(both.log.glucose.count == 1 && both.summary.skipped == ["bad timestamp": 1])
        // A mapped CSV likewise.
        let csv = dayFirst.deletingLastPathComponent().appendingPathComponent("mapped.csv")
        try Data("time,glucose\n05/01/2026 08:00,100\n18/01/2026 08:00,110\n".utf8).write(to: csv)
        var mapped = options(.monthDayYear)
        mapped.columns = try CSVColumnMapping(parsing: "time=time,glucose=glucose")
        let m = try MappedCSVImporter().importFile(at: csv, options: mapped)
        #expect(m.log.glucose.map(\.time) == [utc("2026-01-05T08:00:00Z"), utc("2026-01-18T08:00:00Z")])
    }

    /// Before: an AM/PM suffix alone chose month-first, so `03-04-2026 10:00 AM` (3 April in an
    /// en-AU export) was read as 4 March with no question asked.
    @Test func libreTwelveHourDatesThatFitBothOrdersNeedTheOption() throws {
        let url = try Self.libreFile([Self.libreGlucoseRow("03-04-2026 10:00 AM", 140),
                                      Self.libreGlucoseRow("12-04-2026 01:15 PM", 150)], name: "open.csv")
        let error = try #require(throws: InputError.self) {
            try LibreViewImporter().importFile(at: url, options: ExportFixtures.options("UTC"))
        }
        #expect(error.issue.message == "every date reads both as day-month and month-day; set the date order option (dmy or mdy)")
        let dmy = try LibreViewImporter().importFile(at: url, options: ExportFixtures.options("UTC", order: .dayMonthYear))
        #expect(dmy.log.glucose.map(\.time) == [utc("2026-04-03T10:00:00Z"), utc("2026-04-12T13:15:00Z")])
        let mdy = try LibreViewImporter().importFile(at: url, options: ExportFixtures.options("UTC", order: .monthDayYear))
        #expect(mdy.log.glucose.map(\.time) == [utc("2026-03-04T10:00:00Z"), utc("2026-12-04T13:15:00Z")])
    }

    @Test func localTimeResolverCases() throws {
        let madrid = try #require(TimeZone(identifier: "Europe/Madrid"))
        let r = LocalTimeResolver(timeZone: madrid)
        let gap = try #require(WallClockTime(year: 2026, month: 3, day: 29, hour: 2, minute: 30))
        #expect(r.resolution(of: gap) == .gap(utc("2026-03-29T01:30:00Z")))
        let rep = try #require(WallClockTime(year: 2026, month: 10, day: 25, hour: 2, minute: 30))
        #expect(r.resolution(of: rep) == .repeated(first: utc("2026-10-25T00:30:00Z"), second: utc("2026-10-25T01:30:00Z")))
        let plain = try #require(WallClockTime(year: 2026, month: 7, day: 1, hour: 12))
        #expect(r.resolution(of: plain) == .unique(utc("2026-07-01T10:00:00Z")))
        #expect(WallClockTime(year: 2026, month: 2, day: 29) == nil)
        #expect(TimestampParser.iso8601("2026-02-01T09:05:00+01:00")?.instant == utc("2026-02-01T08:05:00Z"))
        #expect(TimestampParser.numericDate("01-15-2026 12:30 PM")?.local(.monthDayYear)
                == WallClockTime(year: 2026, month: 1, day: 15, hour: 12, minute: 30))
    }
}
