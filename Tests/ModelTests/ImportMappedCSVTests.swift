import Foundation
import Testing
@testable import GlucoModel

/// The mapped CSV (`--format csv --columns ...`) on hand-written files in GluPredKit's
/// `date,id,CGM,insulin,carbs` layout; every expected value is worked out by hand in the comments.
@Suite struct ImportMappedCSVTests {
    static let mapping = try! CSVColumnMapping(parsing: "time=date,patient=id,glucose=CGM,bolus=insulin,carbs=carbs")
    /// `Fixtures/exports/pump_extended.csv`: a pump export's columns (CareLink's names), carbohydrates in exchanges.
    static let pumpMapping = try! CSVColumnMapping(
        parsing: "time=Date,clock=Time,glucose=Sensor Glucose (mg/dL),carbs=BWZ Carb Input (exchanges),bolus=Bolus Volume Delivered (U),"
            + "bolus_extended=Extended (U),bolus_minutes=Bolus Duration (h:mm:ss),temp_basal=Temp Basal Amount,"
            + "temp_basal_minutes=Temp Basal Duration (h:mm:ss)", carbUnit: .exchanges)
    /// `Fixtures/exports/carelink_pump.csv`: Medtronic CareLink's layout, a bolus and a temporary basal typed by a column.
    static let careLinkMapping = try! CSVColumnMapping(
        parsing: "time=Date,clock=Time,basal=Basal Rate (U/h),temp_basal=Temp Basal Amount,temp_basal_type=Temp Basal Type,"
            + "temp_basal_minutes=Temp Basal Duration (h:mm:ss),bolus_type=Bolus Type,bolus=Bolus Volume Delivered (U),"
            + "bolus_minutes=Bolus Duration (h:mm:ss),carbs=BWZ Carb Input (grams),glucose=Sensor Glucose (mg/dL)")

    static func options(_ mapping: CSVColumnMapping = ImportMappedCSVTests.mapping, zone: String = "Europe/Madrid",
                        order: DateOrder? = nil) -> ImportOptions {
        var o = ExportFixtures.options(zone, order: order)
        o.columns = mapping
        return o
    }

    /// A CSV file holding `text`, removed when the test's temporary folder is.
    static func file(_ text: String, name: String = "mapped.csv") throws -> URL {
        let dir = ScratchSpace.root.appendingPathComponent("mapped-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    /// Stop 58: a pump export's square and dual-wave boluses, temporary basals and suspensions
    /// (CareLink's columns) through the mapped CSV, which had no field for them: the extended part
    /// was left out of the insulin on board, and a suspension did not stop the basal.
    @Test func extendedBolusesAndTemporaryBasalsAreRead() throws {
        let mapping = try CSVColumnMapping(parsing: "time=Date,clock=Time,bolus=Bolus Volume Delivered (U),"
                                           + "bolus_extended=Extended (U),bolus_minutes=Bolus Duration (h:mm:ss),"
                                           + "temp_basal=Temp Basal Amount,temp_basal_minutes=Temp Basal Duration (h:mm:ss)")
        let url = try Self.file("""
            Date,Time,Bolus Volume Delivered (U),Extended (U),Bolus Duration (h:mm:ss),Temp Basal Amount,Temp Basal Duration (h:mm:ss)
            2026/01/05,08:00:00,2.5,,,,
            2026/01/05,12:00:00,1.5,3,1:30:00,,
            2026/01/05,18:00:00,0,2,45,,
            2026/01/05,20:00:00,,,,0,0:30:00
            2026/01/05,22:00:00,,,,1.2,2:00
            2026/01/05,23:00:00,,,,0,
            """)
        let r = try MappedCSVImporter().importFile(at: url, options: Self.options(mapping, zone: "UTC"))
        let day = Date(timeIntervalSince1970: 1_767_571_200)  // 2026-01-05 00:00 UTC
        func at(_ h: Double) -> Date { day.addingTimeInterval(h * 3600) }
        // 08:00 a plain 2.5 U; 12:00 1.5 U now and 3 U over 1 h 30 min (dual wave, 4.5 U); 18:00 2 U over 45 min (square).
        #expect(r.log.boluses == [Bolus(time: at(8), dose: InsulinUnits(2.5)),
                                  Bolus(time: at(12), end: at(13.5), dose: InsulinUnits(4.5), type: .normalDual, immediate: InsulinUnits(1.5)),
                                  Bolus(time: at(18), end: at(18.75), dose: InsulinUnits(2), type: .square)])
        // 20:00 suspended for 30 min; 22:00 1.2 U/h for 2 h (h:mm); a 0 without a duration (23:00) is no record.
        #expect(r.log.temporaryBasals == [TemporaryBasal(start: at(20), end: at(20.5), rate: InsulinRate(unitsPerHour: 0)),
                                          TemporaryBasal(start: at(22), end: at(24), rate: InsulinRate(unitsPerHour: 1.2))])
        #expect(r.summary.rowsSkippedForProblems == 0 && (r.summary.skippedInsulin ?? []).isEmpty, "\(r.summary.skipped)")
    }

    /// The review of stop 58: CareLink writes a bolus's kind in a column (a dual-wave bolus as two
    /// rows, its normal and square parts) and a temporary basal as U/h or a percentage by another;
    /// mapped without them a square bolus was given at once and a 50% temporary basal read 50 U/h.
    /// A loop's cancel (0 minutes) ended nothing: a suspension cancelled after 10 minutes counted for 2 hours.
    @Test func careLinksTypedBolusesAndTemporaryBasals() throws {
        let r = try MappedCSVImporter().importFile(at: ExportFixtures.url("carelink_pump.csv"),
                                                   options: Self.options(Self.careLinkMapping, zone: "UTC"))
        let day = Date(timeIntervalSince1970: 1_767_571_200)  // 2026-01-05 00:00 UTC
        func at(_ h: Double) -> Date { day.addingTimeInterval(h * 3600) }
        // 08:00 normal 3.5 U; 12:00 the two parts, one dual-wave bolus of 4.5 U to 13:30; 15:00 square 2 U
        // to 15:45. 22:00 a square part without its normal part: skipped, its insulin kept as skipped.
        #expect(r.log.boluses == [Bolus(time: at(8), dose: InsulinUnits(3.5)),
                                  Bolus(time: at(12), end: at(13.5), dose: InsulinUnits(4.5), type: .normalDual, immediate: InsulinUnits(1.5)),
                                  Bolus(time: at(15), end: at(15.75), dose: InsulinUnits(2), type: .square)])
        #expect(r.summary.skipped["lone dual-wave part"] == 1 && r.summary.skippedInsulin?.map(\.time) == [at(22)], "\(r.summary.skipped)")
        // 17:00 50% of 0.8 U/h for 2 h, ended at 18:00 by the pump's cancel (0 U/h, Insulin Units, 0:00:00);
        // 20:00 1.2 U/h for an hour.
        #expect(r.log.temporaryBasals == [TemporaryBasal(start: at(17), end: at(18), rate: InsulinRate(unitsPerHour: 0.4)),
                                          TemporaryBasal(start: at(20), end: at(21), rate: InsulinRate(unitsPerHour: 1.2))])
        #expect(r.log.basalRates.map(\.rate.unitsPerHour) == [0.8, 1.0] && r.log.carbs.map(\.amount.grams) == [45, 60])
        #expect(r.summary.rowsSkippedForProblems == 1, "\(r.summary.skipped)")
        #expect(r.summary.adjusted["temporary basal ended early by a cancel or the next temp basal"] == 1, "\(r.summary.adjusted)")

        // A percentage with no basal rate before it, a type nobody knows, and a bolus type nobody
        // knows are skipped with a warning, their insulin kept as skipped.
        let bad = try Self.file("""
            Date,Time,Basal Rate (U/h),Temp Basal Amount,Temp Basal Type,Temp Basal Duration (h:mm:ss),Bolus Type,Bolus Volume Delivered (U),Bolus Duration (h:mm:ss),BWZ Carb Input (grams),Sensor Glucose (mg/dL)
            2026/01/05,07:00:00,,30,Percent,1:00:00,,,,,
            2026/01/05,08:00:00,0.8,1.5,,1:00:00,,,,,
            2026/01/05,09:00:00,,,,,Bolus Wizard,2,,,

            """)
        let b = try MappedCSVImporter().importFile(at: bad, options: Self.options(Self.careLinkMapping, zone: "UTC"))
        #expect(b.log.temporaryBasals.isEmpty && b.log.boluses.isEmpty)
        // (A percentage is resolved once the file is read, so its skipped insulin comes last: by time.)
        #expect((b.summary.skippedInsulin ?? []).sorted { $0.time < $1.time }.map(\.kind) == [.temporaryBasal, .temporaryBasal, .bolus],
                "\(b.summary.issues)")
        let text = b.summary.issues.map(\.description).joined(separator: "\n")
        #expect(text.contains("mapped.csv:2 [Temp Basal Amount]: warning: a temporary basal of 30% needs the basal rate it is a percentage of"))
        #expect(text.contains("mapped.csv:3 [Temp Basal Type]: warning: temporary basal type '' is not known; expected Percent or Insulin Units (U/h)"))
        #expect(text.contains("mapped.csv:4 [Bolus Type]: warning: bolus type 'Bolus Wizard' is not known"), "\(text)")
    }

    /// The review of stop 58: Nightscout's treatments as a CSV cancel a temporary basal with a row of
    /// duration 0 and no rate, which ended nothing (a suspension cancelled after 10 minutes counted for
    /// 2 hours: 1.5 U too much); and without a type column a 30% temporary basal read 30 U/h.
    @Test func aCancelWithoutARateEndsTheTemporaryBasalAndAHighUntypedRateIsRefused() throws {
        let mapping = try CSVColumnMapping(parsing: "time=created_at,glucose=glucose,temp_basal=absolute,temp_basal_minutes=duration")
        let url = try Self.file("""
            created_at,eventType,glucose,duration,absolute
            2026-01-05T09:00:00Z,Sensor,150,,
            2026-01-05T09:00:01Z,Temp Basal,,120,0
            2026-01-05T09:10:01Z,Temp Basal,,0,
            2026-01-05T10:00:00Z,Temp Basal,,60,30

            """)
        let r = try MappedCSVImporter().importFile(at: url, options: Self.options(mapping, zone: "UTC"))
        let start = Date(timeIntervalSince1970: 1_767_571_200 + 9 * 3600 + 1)
        #expect(r.log.temporaryBasals == [TemporaryBasal(start: start, end: start.addingTimeInterval(600), rate: InsulinRate(unitsPerHour: 0))])
        #expect(r.summary.notModelled["temporary basal of 0 minutes (ends the one running)"] == 1, "\(r.summary.notModelled)")
        #expect((r.summary.skippedInsulin ?? []).map(\.kind) == [.temporaryBasal])
        #expect(r.summary.issues.map(\.description).joined().contains("a temporary basal of 30 U/h is above 15 U/h: a percentage? Map the column saying so as temp_basal_type"))
    }

    /// Review AM (stop 58): an export writing 0 in empty cells has 0 U/h for 0 minutes in every row;
    /// read as cancels, each ended the temporary basal before it (a 2-hour 3 U/h read as 5 minutes:
    /// 1.35 U suggested where 0 was right). No record; a cancel has no rate, or one. And a dual-wave
    /// bolus whose square part is 0 U is its normal part, not a lone part refusing doses for hours.
    @Test func zeroFilledCellsAreNoCancelAndAZeroPartLeavesTheOther() throws {
        let mapping = try CSVColumnMapping(parsing: "time=t,glucose=g,temp_basal=tb,temp_basal_minutes=tbm")
        let url = try Self.file("""
            t,g,tb,tbm
            2026-01-05 08:00,120,3,120
            2026-01-05 08:05,121,0,0
            2026-01-05 08:10,122,0,0

            """)
        let r = try MappedCSVImporter().importFile(at: url, options: Self.options(mapping, zone: "UTC"))
        let start = Date(timeIntervalSince1970: 1_767_571_200 + 8 * 3600)
        #expect(r.log.temporaryBasals == [TemporaryBasal(start: start, end: start.addingTimeInterval(7200), rate: InsulinRate(unitsPerHour: 3))])
        #expect(r.summary.rowsSkipped == 0 && r.summary.notModelled.isEmpty, "\(r.summary)")

        let dual = try Self.file("""
            Date,Time,Bolus Type,Bolus Volume Delivered (U),Bolus Duration (h:mm:ss),Sensor Glucose (mg/dL)
            2026/01/05,12:00:00,Dual (normal part),1,,140
            2026/01/05,12:00:00,Dual (square part),0,0:00:00,
            2026/01/05,13:00:00,Dual (normal part),0,,150
            2026/01/05,13:00:00,Dual (square part),2,1:00:00,

            """)
        let typed = try CSVColumnMapping(parsing: "time=Date,clock=Time,bolus=Bolus Volume Delivered (U),bolus_type=Bolus Type,"
                                         + "bolus_minutes=Bolus Duration (h:mm:ss),glucose=Sensor Glucose (mg/dL)")
        let d = try MappedCSVImporter().importFile(at: dual, options: Self.options(typed, zone: "UTC"))
        #expect(d.log.boluses == [Bolus(time: start.addingTimeInterval(4 * 3600), dose: InsulinUnits(1)),
                                  Bolus(time: start.addingTimeInterval(5 * 3600), end: start.addingTimeInterval(6 * 3600), dose: InsulinUnits(2), type: .square)])
        #expect(d.summary.rowsSkippedForProblems == 0 && (d.summary.skippedInsulin ?? []).isEmpty, "\(d.summary.skipped)")
    }

    /// Review AN (stop 58): a mapped CSV saved with a byte order mark (Excel's "CSV UTF-8") whose
    /// first column is mapped: the nightly's header check kept the mark and quarantined the file,
    /// which the importer reads whole.
    @Test func aByteOrderMarkBeforeTheHeaderIsNoPartOfIt() throws {
        let mapping = try CSVColumnMapping(parsing: "time=t,glucose=g")
        #expect(MappedCSVImporter.recognizes(head: "\u{FEFF}t,g\n2026-01-05 08:00,120\n", mapping: mapping))
        let url = try Self.file("\u{FEFF}t,g\n2026-01-05 08:00,120\n")
        #expect(ImportFormats.isReadable(url, options: Self.options(mapping, zone: "UTC")))
        #expect(try MappedCSVImporter().importFile(at: url, options: Self.options(mapping, zone: "UTC")).log.glucose.count == 1)
    }

    /// The review of stop 58: the file's last row cut short kept no skipped insulin when the date and
    /// the time of day are two columns (the date alone did not read), and the next dose went ahead.
    @Test func aCutLastRowWithTheTimeOfDayInItsOwnColumnKeepsItsInsulin() throws {
        let mapping = try CSVColumnMapping(parsing: "time=Date,clock=Time,glucose=SG,bolus=Bolus")
        let url = try Self.file("Date,Time,SG,Bolus\n2026/01/05,08:00:00,120,\n2026/01/05,08:05:00,125,2.")
        let r = try MappedCSVImporter().importFile(at: url, options: Self.options(mapping, zone: "UTC"))
        #expect(r.log.boluses.isEmpty && r.summary.skipped[PatientLogBuilder.cutLastRow] == 1)
        let kept = try #require(r.summary.skippedInsulin?.first)
        #expect(kept.kind == .bolus && kept.time == Date(timeIntervalSince1970: 1_767_571_200 + 8 * 3600 + 300), "\(kept)")
    }

    /// Stop 58: an extended part or a temporary basal whose duration cannot be read is skipped with a
    /// warning naming the field, and kept as skipped insulin (a dose after it is refused); a mapping
    /// naming one without its duration is refused before any file is read.
    @Test func anUnreadableDurationKeepsTheInsulinAsSkipped() throws {
        let mapping = try CSVColumnMapping(parsing: "time=t,bolus=b,bolus_extended=x,bolus_minutes=xm,temp_basal=tb,temp_basal_minutes=tbm")
        let url = try Self.file("""
            t,b,x,xm,tb,tbm
            2026-01-05 08:00,1,2,,,
            2026-01-05 09:00,,2,1:75,,
            2026-01-05 10:00,,,,0.5,
            2026-01-05 11:00,,,,0.5,9999999

            """)
        let r = try MappedCSVImporter().importFile(at: url, options: Self.options(mapping, zone: "UTC"))
        #expect(r.log.boluses.isEmpty && r.log.temporaryBasals.isEmpty)
        #expect(r.summary.skipped["empty value"] == 2 && r.summary.skipped["not a number"] == 1 && r.summary.skipped["out of range"] == 1,
                "\(r.summary.skipped)")
        #expect((r.summary.skippedInsulin ?? []).map(\.kind) == [.bolus, .bolus, .temporaryBasal, .temporaryBasal])
        let messages = r.summary.issues.map(\.description).joined(separator: "\n")
        #expect(messages.contains("mapped.csv:3 [xm]: warning: '1:75' is not the duration of an extended bolus in minutes or as h:mm:ss"),
                "\(messages)")
        #expect(throws: CSVColumnMapping.Problem(description: "'temp_basal' needs 'temp_basal_minutes' (how long a temporary basal runs); "
                                                 + "expected temp_basal_minutes=COLUMN too")) {
            try CSVColumnMapping(parsing: "time=t,temp_basal=tb")
        }
        #expect(throws: CSVColumnMapping.Problem.self) { try CSVColumnMapping(parsing: "time=t,glucose=g,bolus_minutes=m") }
        #expect(throws: CSVColumnMapping.Problem.self) { try CSVColumnMapping(parsing: "time=t,bolus=b,bolus_type=bt") }
        #expect(throws: CSVColumnMapping.Problem.self) { try CSVColumnMapping(parsing: "time=t,bolus=b,bolus_type=bt,bolus_minutes=m,bolus_extended=x") }
        #expect(throws: CSVColumnMapping.Problem.self) { try CSVColumnMapping(parsing: "time=t,glucose=g,temp_basal_type=tt") }
    }

    /// Stop 58: carbohydrates in rations (10 g) or exchanges (15 g) were read as grams: a meal of 6
    /// rations as 6 g, a tenth of its insulin. `carbUnit` reads them, its range the grams' (500 g: 50 rations).
    @Test func carbohydratesInPortionsAreReadAsGrams() throws {
        let text = "time,carbs\n2026-01-05 08:00,6\n2026-01-05 12:00,4.5\n2026-01-05 18:00,60\n"
        for (unit, grams) in [(CSVColumnMapping.CarbUnit.grams, [6.0, 4.5, 60]), (.rations, [60, 45]), (.exchanges, [90, 67.5])] {
            let mapping = try CSVColumnMapping(parsing: "time=time,carbs=carbs", carbUnit: unit)
            let r = try MappedCSVImporter().importFile(at: try Self.file(text), options: Self.options(mapping, zone: "UTC"))
            #expect(r.log.carbs.map(\.amount.grams) == grams, "\(unit)")
            // 60 rations (600 g) and 60 exchanges (900 g) are out of range, named in the unit.
            #expect(r.summary.skipped["out of range"] == (unit == .grams ? nil : 1), "\(unit): \(r.summary.skipped)")
        }
        #expect(CSVColumnMapping.CarbUnit(name: "Exchanges") == .exchanges && CSVColumnMapping.CarbUnit(name: "BE") == nil)
    }

    /// Hunt AI (stop 57): a header line repeated (two exports joined, CareLink's sections) was read as
    /// a bolus and a basal of unreadable time, and every dose was then refused. Skipped as such.
    @Test func aRepeatedHeaderIsSkippedNotReadAsInsulin() throws {
        let mapping = try CSVColumnMapping(parsing: "time=Timestamp,glucose=Sensor,bolus=Bolus (U),basal=Basal (U/h)")
        let url = try Self.file("""
            Timestamp,Sensor,Bolus (U),Basal (U/h)
            2026-01-05 08:00,120,,0.8
            2026-01-05 08:05,125,2.5,
            timestamp,SENSOR,Bolus (U),Basal (U/h)
            2026-01-05 08:10,130,,
            2026-01-05 08:15,Sensor,,
            """)
        let r = try MappedCSVImporter().importFile(at: url, options: Self.options(mapping, zone: "UTC"))
        #expect(r.log.glucose.count == 3 && r.log.boluses.count == 1 && r.log.basalRates.count == 1)
        #expect(r.summary.skipped["repeated header"] == 1 && (r.summary.skippedInsulin ?? []).isEmpty, "\(r.summary.skipped)")
        // A cell that only names its column, among others that do not, is no header: that row's glucose is a bad value.
        #expect(r.summary.rowsSkippedForProblems == 2, "\(r.summary.skipped)")
    }

    /// Hunt AI (stop 57): a preamble above the header (Glooko's first line names the person) was
    /// quoted field by field in the error; a semicolon-separated file was listed as one column. With
    /// none of the mapped columns found, the line is not quoted, and the likely cause is named.
    @Test func aLineWithNoneOfTheMappedColumnsIsNotQuoted() throws {
        let mapping = try CSVColumnMapping(parsing: "time=Timestamp,glucose=CGM")
        let preamble = try Self.file("Name:Jane Example,Date Range:2026-01-05 - 2026-01-18\nTimestamp,CGM\n2026-01-05 08:00,120\n")
        let error = try #require(throws: InputError.self) { try MappedCSVImporter().importFile(at: preamble, options: Self.options(mapping)) }
        #expect(!error.description.contains("Jane") && error.issue.location.line == 1, "\(error)")
        #expect(error.issue.message == "the first line read as the header has none of the mapped columns 'Timestamp' (time), 'CGM' (glucose): "
                + "is a preamble above the header (a name, a device, a date range)? Start such lines with '#' or remove them")
        // Started with '#', it is read.
        let marked = try Self.file("# Name:Jane Example\nTimestamp,CGM\n2026-01-05 08:00,120\n")
        #expect(try MappedCSVImporter().importFile(at: marked, options: Self.options(mapping)).log.glucose.count == 1)
        let semicolons = try Self.file("Timestamp;CGM\n2026-01-05 08:00;120\n")
        let told = try #require(throws: InputError.self) { try MappedCSVImporter().importFile(at: semicolons, options: Self.options(mapping)) }
        #expect(told.issue.message.hasSuffix("its fields are separated by semicolons, and the csv format reads commas: save the file comma-separated"))
    }

    /// Hunt AI (stop 57): a quoted decimal comma (`"6,2"`, a spreadsheet in a decimal-comma locale saving
    /// a comma CSV) was refused, and only whole readings were kept. Read, with one or two decimals;
    /// three digits after the comma are thousands, refused as before.
    @Test func aQuotedDecimalCommaIsRead() throws {
        let mapping = try CSVColumnMapping(parsing: "time=time,glucose=glucose,bolus=bolus,carbs=carbs")
        var options = Self.options(mapping, zone: "UTC")
        options.columns?.glucoseUnit = .mmolL
        let url = try Self.file("""
            time,glucose,bolus,carbs
            2026-01-05 08:00,"6,2","1,5","42,5"
            2026-01-05 08:05,7,,
            2026-01-05 08:10,"6,25","1,000",
            """)
        let r = try MappedCSVImporter().importFile(at: url, options: options)
        #expect(r.log.glucose.map(\.value.mmolL).map { ($0 * 100).rounded() / 100 } == [6.2, 7, 6.25])
        #expect(r.log.boluses.map(\.dose.units) == [1.5] && r.log.carbs.map(\.amount.grams) == [42.5])
        #expect(r.summary.skipped["not a number"] == 1, "\(r.summary.skipped)")
    }

    /// Hunt AI (stop 57): exports that write the date and the time of day in two columns (CareLink,
    /// xDrip+) could not be mapped, CareLink's `2026/01/05` was not a date, and a date column mapped as
    /// the time put every row at midnight. `clock=COLUMN` maps the time of day; a date alone is skipped.
    @Test func theDateAndTheTimeOfDayInTwoColumns() throws {
        let carelink = try Self.file("""
            Index,Date,Time,Sensor Glucose (mg/dL)
            1,2026/01/05,08:00:00,120
            2,2026/01/05,08:05:00,125

            """)
        let mapping = try CSVColumnMapping(parsing: "time=Date,clock=Time,glucose=Sensor Glucose (mg/dL)")
        let r = try MappedCSVImporter().importFile(at: carelink, options: Self.options(mapping, zone: "Europe/Madrid"))
        #expect(r.log.glucose.map(\.time) == [ExportFixtures.utc("2026-01-05T07:00:00Z"), ExportFixtures.utc("2026-01-05T07:05:00Z")])
        let xdrip = try Self.file("DAY;TIME;UDT_CGMS\n".replacingOccurrences(of: ";", with: ",") + "18/01/2026,23:55,6.1\n05/01/2026,00:00,5.5\n")
        var mmol = Self.options(try CSVColumnMapping(parsing: "time=DAY,clock=TIME,glucose=UDT_CGMS"), zone: "UTC")
        mmol.columns?.glucoseUnit = .mmolL
        let x = try MappedCSVImporter().importFile(at: xdrip, options: mmol)
        #expect(x.log.glucose.map(\.time) == [ExportFixtures.utc("2026-01-05T00:00:00Z"), ExportFixtures.utc("2026-01-18T23:55:00Z")])
        // The date alone, without the clock column: skipped, saying what to map.
        let dateOnly = try MappedCSVImporter().importFile(at: carelink, options: Self.options(try CSVColumnMapping(parsing: "time=Date,glucose=Sensor Glucose (mg/dL)"), zone: "UTC"))
        #expect(dateOnly.log.glucose.isEmpty && dateOnly.summary.skipped == ["date without time": 2], "\(dateOnly.summary.skipped)")
        #expect(dateOnly.summary.issues.first?.message == "'2026-01-05' is a date without a time of day; map the column holding the time of day as clock=COLUMN")
    }

    /// Hunt AI (stop 57): a section under a narrower header of its own (t:connect's basal after its CGM
    /// rows) was skipped as "row with no values" without a word. A trimmed row stays quiet.
    @Test func aNarrowerSectionIsNamedATrimmedRowIsNot() throws {
        let url = try Self.file("""
            Type,Serial,Time,Glucose,Bolus
            CGM,1,2026-01-05 08:00,120,
            CGM,1,2026-01-05 08:05
            Basal,2026-01-05 08:07,0.8

            """)
        let mapping = try CSVColumnMapping(parsing: "time=Time,glucose=Glucose,bolus=Bolus")
        let r = try MappedCSVImporter().importFile(at: url, options: Self.options(mapping, zone: "UTC"))
        #expect(r.log.glucose.count == 1 && r.summary.skipped["row narrower than the header"] == 1, "\(r.summary.skipped)")
        #expect(r.summary.issues.first?.message.hasPrefix("the row has 3 fields where the header has 5, and none of the mapped columns") == true)
    }

    @Test func readsEveryGoodRowAndNamesEveryBadOne() throws {
        let url = ExportFixtures.url("glupredkit.csv")
        let r = try MappedCSVImporter().importFile(at: url, options: Self.options())
        let d = ExportFixtures.utc
        #expect(r.log.patient.rawValue == "p7")
        // Line 10 has no offset: 08:40 in Madrid (UTC+1 in January) is 07:40 UTC, so it sorts first.
        // Line 11 is 1767602700 s since 1970: 2026-01-05T08:45:00Z. Line 5's Low is kept at 40, censored.
        #expect(r.log.glucose == [
            GlucoseReading(time: d("2026-01-05T07:40:00Z"), value: .mgdL(150)),
            GlucoseReading(time: d("2026-01-05T08:00:00Z"), value: .mgdL(120)),
            GlucoseReading(time: d("2026-01-05T08:05:00Z"), value: .mgdL(125)),
            GlucoseReading(time: d("2026-01-05T08:15:00Z"), value: .mgdL(40), censoring: .belowRange),
            GlucoseReading(time: d("2026-01-05T08:35:00Z"), value: .mgdL(140)),
            GlucoseReading(time: d("2026-01-05T08:45:00Z"), value: .mgdL(155)),
        ])
        // 0.0 insulin and carbs in the other rows are no record.
        #expect(r.log.boluses == [Bolus(time: d("2026-01-05T08:05:00Z"), dose: InsulinUnits(3.5), kind: .rapid)])
        #expect(r.log.carbs == [CarbIntake(time: d("2026-01-05T08:05:00Z"), amount: Carbohydrate(grams: 45))])
        let s = r.summary
        #expect(s.rowsRead == 12)  // lines 2-13
        #expect(s.recordsKept == 8)
        #expect(s.skipped == ["row with no values": 2, "out of range": 2, "bad time": 1, "not a number": 1, "missing patient id": 1])
        #expect(s.adjusted == ["censored Low kept at 40 mg/dL": 1, "glucose rows out of time order (sorted)": 1])
        func at(_ line: Int, _ field: String) -> GlucoModel.SourceLocation { .init(file: url.path, line: line, field: field) }
        #expect(s.issues.map(\.location) == [at(6, "CGM"), at(7, "date"), at(8, "CGM"), at(9, "insulin"), at(13, "id")])
        #expect(s.issues[0].message.contains("5 mg/dL is outside the plausible range 10...1000 mg/dL"))
        #expect(s.issues[1].message.contains("'yesterday at 8' is not a time; expected ISO 8601"))
        #expect(s.issues[2].message.contains("'12O' is not a number"))
    }

    @Test func mmolLAndSeveralPatientsInOneFile() throws {
        let url = ExportFixtures.url("glupredkit_two_mmol.csv")
        var mapping = Self.mapping
        mapping.glucoseUnit = .mmolL
        let results = try MappedCSVImporter().importPatients(at: url, options: Self.options(mapping))
        #expect(results.map(\.log.patient.rawValue) == ["a1", "b2"])
        // mmol/L x 18.01559: 6.5 -> 117.101335, 7.0 -> 126.10913, 5.5 -> 99.085745; HI is 400, censored.
        let a = results[0].log.glucose.map(\.value.mgdL), b = results[1].log.glucose.map(\.value.mgdL)
        #expect(a.count == 2 && abs(a[0] - 117.101335) < 1e-9 && abs(a[1] - 126.10913) < 1e-9)
        #expect(b.count == 2 && abs(b[0] - 99.085745) < 1e-9 && b[1] == 400)
        #expect(results[1].log.glucose[1].censoring == .aboveRange)
        #expect(results[0].log.boluses.map(\.dose.units) == [2] && results[0].log.carbs.map(\.amount.grams) == [30])
        #expect(results[1].log.boluses.isEmpty && results[1].log.carbs.isEmpty)

        // One import (the store's) takes one patient: refused at the second patient's line.
        let error = #expect(throws: InputError.self) { try MappedCSVImporter().importFile(at: url, options: Self.options(mapping)) }
        #expect(error?.issue.location == GlucoModel.SourceLocation(file: url.path, line: 4, field: "id"))
        #expect(error?.issue.message.contains("a second patient 'b2' (the file began with 'a1')") == true)

        // With a patient chosen, only that patient's rows are read.
        var one = Self.options(mapping)
        one.patient = try PatientID("b2")
        let b2 = try MappedCSVImporter().importFile(at: url, options: one)
        #expect(b2.log.patient.rawValue == "b2" && b2.log.glucose.count == 2)
        #expect(b2.summary.skipped["row of another patient"] == 2)
    }

    @Test func mmolLValuesReadAsMgdLAreRefused() throws {
        let url = ExportFixtures.url("glupredkit_two_mmol.csv")
        let error = #expect(throws: InputError.self) { try MappedCSVImporter().importPatients(at: url, options: Self.options()) }
        // 6.5, 7.0 and 5.5 are numbers below 30 (HI is not a number): 3 of 3.
        #expect(error?.issue.message.contains("3 of 3 glucose values are below 30, as mmol/L values are") == true)
        #expect(error?.issue.location.field == "CGM")
    }

    @Test func missingColumnsNameTheColumnAndTheHeader() throws {
        let url = ExportFixtures.url("glupredkit.csv")
        let mapping = try CSVColumnMapping(parsing: "time=date,glucose=sgv,carbs=carbs")
        let error = #expect(throws: InputError.self) { try MappedCSVImporter().importFile(at: url, options: Self.options(mapping)) }
        #expect(error?.issue.location == GlucoModel.SourceLocation(file: url.path, line: 1))
        #expect(error?.issue.message == "the header has no column 'sgv' (glucose); its columns are 'date', 'id', 'CGM', 'insulin', 'carbs'")
        // A column name differing only in case is found.
        let folded = try CSVColumnMapping(parsing: "time=DATE,glucose=cgm")
        let r = try MappedCSVImporter().importFile(at: url, options: Self.options(folded))
        #expect(r.log.glucose.count == 7)  // the six above and line 13's 160 (no patient column: every row is the file's)
        #expect(r.log.patient.rawValue == "glupredkit")  // from the file name
    }

    @Test func mappingTextIsCheckedField() throws {
        func problem(_ text: String) -> String? {
            do { _ = try CSVColumnMapping(parsing: text); return nil } catch { return error.description }
        }
        #expect(problem("glucose=CGM") == "no time column; expected time=COLUMN (e.g. time=date)")
        #expect(problem("time=date,patient=id") == "no measurement column; map at least one of glucose, finger, bolus, carbs, basal, basal_injection, bolus_extended, temp_basal (e.g. glucose=CGM)")
        #expect(problem("time=date,cgm=CGM") == "unknown field 'cgm'; expected one of time, clock, patient, glucose, finger, bolus, carbs, basal, "
                + "basal_injection, bolus_extended, bolus_minutes, bolus_type, temp_basal, temp_basal_minutes, temp_basal_type")
        #expect(problem("time=date,glucose") == "'glucose' is not field=column; expected e.g. time=date,glucose=CGM")
        #expect(problem("time=date,glucose=x,glucose=y") == "field 'glucose' is given twice")
        #expect(problem("time=date,glucose= ") == "'glucose' names no column; expected glucose=COLUMN")
        #expect(problem("time=t,bolus=x,carbs=x") == "column 'x' is mapped to bolus and carbs; a column holds one field")
        let m = try CSVColumnMapping(parsing: " carbs = Carbs (g) ,time=date,glucose=CGM")
        #expect(m.text == "time=date,glucose=CGM,carbs=Carbs (g)")
    }

    @Test func numericDatesTakeTheirOrderFromTheDataOrTheOption() throws {
        let mapping = try CSVColumnMapping(parsing: "time=when,glucose=bg")
        // 13/01 can only be day-first, so 05/01 is 5 January (Madrid, UTC+1).
        let dmy = try Self.file("when,bg\n05/01/2026 08:00,100\n13/01/2026 09:30,110\n")
        let r = try MappedCSVImporter().importFile(at: dmy, options: Self.options(mapping))
        #expect(r.log.glucose.map(\.time) == [ExportFixtures.utc("2026-01-05T07:00:00Z"), ExportFixtures.utc("2026-01-13T08:30:00Z")])
        // Nothing decides 05/01 and 06/01: an error asks for the order; given mdy, 5 May and 1 June (UTC+2).
        let open = try Self.file("when,bg\n05/01/2026 08:00,100\n06/01/2026 08:00,100\n")
        let error = #expect(throws: InputError.self) { try MappedCSVImporter().importFile(at: open, options: Self.options(mapping)) }
        #expect(error?.issue.message.contains("set the date order option (dmy or mdy)") == true)
        let mdy = try MappedCSVImporter().importFile(at: open, options: Self.options(mapping, order: .monthDayYear))
        #expect(mdy.log.glucose.map(\.time) == [ExportFixtures.utc("2026-05-01T06:00:00Z"), ExportFixtures.utc("2026-06-01T06:00:00Z")])
    }

    /// Before: an AM/PM suffix was taken as proof of month-first order, so these rows (13-02 and
    /// 14-02 can only be day-first) were read month-first: 10 and 11 February stored on 2 October
    /// and 2 November, the 13th and 14th skipped as no date.
    @Test func numericDatesWithATwelveHourClockTakeTheirOrderFromTheDays() throws {
        let mapping = try CSVColumnMapping(parsing: "time=date,patient=id,glucose=CGM,bolus=insulin")
        let url = try Self.file("date,id,CGM,insulin\n10-02-2026 08:00 AM,p6,120,\n11-02-2026 08:00 AM,p6,121,2\n"
                                + "13-02-2026 08:00 AM,p6,122,\n14-02-2026 08:00 PM,p6,123,\n")
        let r = try MappedCSVImporter().importFile(at: url, options: Self.options(mapping, zone: "UTC"))
        let d = ExportFixtures.utc
        #expect(r.log.glucose.map(\.time) == [d("2026-02-10T08:00:00Z"), d("2026-02-11T08:00:00Z"),
                                              d("2026-02-13T08:00:00Z"), d("2026-02-14T20:00:00Z")])
        #expect(r.log.boluses == [Bolus(time: d("2026-02-11T08:00:00Z"), dose: InsulinUnits(2), kind: .rapid)])
        #expect(r.summary.skipped.isEmpty && r.summary.issues.isEmpty, "\(r.summary.issues)")
    }

    /// Before: the first row proving an order decided, and the rows proving the other were skipped
    /// one by one; and an AM/PM suffix alone chose month-first.
    @Test func numericDatesProvingBothOrdersOrNeitherAreAnError() throws {
        let mapping = try CSVColumnMapping(parsing: "time=when,glucose=bg")
        let mixed = try Self.file("when,bg\n05/01/2026 08:00,100\n13/01/2026 09:30,110\n01/14/2026 10:00,120\n", name: "mixed.csv")
        let error = try #require(throws: InputError.self) {
            try MappedCSVImporter().importFile(at: mixed, options: Self.options(mapping))
        }
        #expect(error.issue.location.file == mixed.path && error.issue.location.field == "when")
        #expect(error.issue.message.contains("line 3 '13/01/2026 09:30'") && error.issue.message.contains("line 4 '01/14/2026 10:00'"),
                "\(error.issue.message)")
        #expect(error.issue.message.contains("set the date order option (dmy or mdy)"))
        let open = try Self.file("when,bg\n05/01/2026 08:00 AM,100\n06/01/2026 08:00 PM,100\n")
        let ambiguous = try #require(throws: InputError.self) {
            try MappedCSVImporter().importFile(at: open, options: Self.options(mapping))
        }
        #expect(ambiguous.issue.message == "every date reads both as day-month and month-day; set the date order option (dmy or mdy)")
        let dmy = try MappedCSVImporter().importFile(at: open, options: Self.options(mapping, zone: "UTC", order: .dayMonthYear))
        let d = ExportFixtures.utc
        #expect(dmy.log.glucose.map(\.time) == [d("2026-01-05T08:00:00Z"), d("2026-01-06T20:00:00Z")])
    }

    @Test func basalIsRecordedWhereItChanges() throws {
        let mapping = try CSVColumnMapping(parsing: "time=t,basal=rate")
        let url = try Self.file("t,rate\n2026-01-05T00:00Z,0.8\n2026-01-05T00:05Z,0.8\n2026-01-05T00:10Z,0\n2026-01-05T00:15Z,0.8\n")
        let r = try MappedCSVImporter().importFile(at: url, options: Self.options(mapping))
        let d = ExportFixtures.utc
        #expect(r.log.basalRates == [BasalRate(start: d("2026-01-05T00:00:00Z"), rate: InsulinRate(unitsPerHour: 0.8)),
                                     BasalRate(start: d("2026-01-05T00:10:00Z"), rate: InsulinRate(unitsPerHour: 0)),
                                     BasalRate(start: d("2026-01-05T00:15:00Z"), rate: InsulinRate(unitsPerHour: 0.8))])
    }

    @Test func dataFilesTakeSeveralPatientsAndFoldersTakeFilesWithTheColumns() throws {
        var mapping = Self.mapping
        mapping.glucoseUnit = .mmolL
        let dir = ScratchSpace.root.appendingPathComponent("mapped-dir-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: ExportFixtures.url("glupredkit_two_mmol.csv"), to: dir.appendingPathComponent("two.csv"))
        try Data("a,b\n1,2\n".utf8).write(to: dir.appendingPathComponent("notes.csv"))
        let loaded = try ExportFiles(paths: [dir.path], options: Self.options(mapping), format: "csv").load()
        #expect(loaded.patients.map(\.patient.rawValue) == ["a1", "b2"])
        #expect(loaded.failures.isEmpty)
        #expect(loaded.patients.allSatisfy { $0.files == [dir.appendingPathComponent("two.csv").resolvingSymlinksInPath().path] })
    }
}
