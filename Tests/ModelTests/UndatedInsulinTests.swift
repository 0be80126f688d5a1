import Foundation
import Testing
@testable import GlucoModel

/// An insulin row whose time cannot be read (`25:10`, `yesterday`, an empty cell) is kept as a
/// `SkippedInsulin` bounded by the rows around it, by every importer, and a dose that may be within
/// the insulin's action after it is refused. Before, the row was a warning at import and the dose
/// was computed as if no insulin had been given.
@Suite struct UndatedInsulinTests {
    static let utc = ExportFixtures.utc
    static func at(_ hhmm: String) -> Date { utc("2026-01-05T\(hhmm):00Z") }

    static func importText(_ text: String, name: String, _ importer: any PatientDataImporter,
                           options: ImportOptions = ExportFixtures.options("UTC")) throws -> ImportResult {
        try SkippedInsulinTests.importText(text, name: name, importer, options: options)
    }

    /// The one record `r` keeps as skipped, with an unread time bounded by `from` and `to`.
    static func expectUndated(_ r: ImportResult, _ kind: RecordKind = .bolus, from: Date, to: Date, betweenRows: Bool = true,
                              line: Int, field: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let s = r.log.skippedInsulin
        #expect(s.count == 1, "\(s)", sourceLocation: sourceLocation)
        guard let one = s.first else { return }
        #expect(one.kind == kind, sourceLocation: sourceLocation)
        #expect(one.time == from, "\(one.time)", sourceLocation: sourceLocation)
        #expect(one.unreadTime == .init(latest: to, betweenRows: betweenRows), "\(String(describing: one.unreadTime))",
                sourceLocation: sourceLocation)
        #expect(one.location.line == line && one.location.field == field, "\(one.location)", sourceLocation: sourceLocation)
        #expect(r.summary.skippedInsulin == s, sourceLocation: sourceLocation)
    }

    static let csvHeader = "patient,time,event,value,unit"

    @Test func theGlucoModelCSVBoundsItByTheRowsAroundIt() throws {
        let csv = """
        \(Self.csvHeader)
        p0,2026-01-05T08:00:00Z,glucose,120,mg/dL
        p0,2026-01-05T08:05:00Z,glucose,125,mg/dL
        p0,2026-01-05 25:07,bolus,2,U
        p0,2026-01-05 25:08,bolus,0,U
        p0,yesterday,glucose,126,mg/dL
        p0,2026-01-05T08:10:00Z,glucose,130,mg/dL
        """
        let r = try Self.importText(csv, name: "p0.csv", LogCSVImporter())
        // The 2 U bolus on line 4, between 08:05 (line 3) and 08:10 (line 7); not the 0 U one (no
        // dose) nor the glucose row.
        Self.expectUndated(r, from: Self.at("08:05"), to: Self.at("08:10"), line: 4, field: "time")
        #expect(r.summary.skipped["bad time"] == 3)
        #expect(r.summary.warningLines(limit: 0).first?.contains("1 insulin record skipped (line 4)") == true)
    }

    @Test func everyInsulinKindOfTheGlucoModelCSV() throws {
        for (event, kind, unit) in [("basal", RecordKind.basal, "U/h"), ("temp_basal", .temporaryBasal, "U/h"),
                                    ("basal_injection", .basalInjection, "U")] {
            let csv = "\(Self.csvHeader),duration\np0,2026-01-05T08:00:00Z,glucose,120,mg/dL,\np0,,\(event),1,\(unit),30\n"
                + "p0,2026-01-05T08:05:00Z,glucose,125,mg/dL,\n"
            Self.expectUndated(try Self.importText(csv, name: "p0.csv", LogCSVImporter()), kind, from: Self.at("08:00"),
                               to: Self.at("08:05"), line: 3, field: "time")
        }
    }

    /// The first row is bounded below by 1990 only, the last above by the import's time (the
    /// newest dose may be the one typed wrong): neither is between rows.
    @Test func theFirstAndLastRowsAreOpenOnOneSide() throws {
        let rows = "p0,2026-01-05T08:00:00Z,glucose,120,mg/dL\np0,2026-01-05T08:01:00Z,bolus,1,U\np0,2026-01-05T08:05:00Z,glucose,125,mg/dL\n"
        let first = "\(Self.csvHeader)\np0,8h,bolus,2,U\n" + rows
        Self.expectUndated(try Self.importText(first, name: "p0.csv", LogCSVImporter()), from: ImportLimits.earliest,
                           to: Self.at("08:00"), betweenRows: false, line: 2, field: "time")
        let last = "\(Self.csvHeader)\n" + rows + "p0,8h,bolus,2,U\n"
        Self.expectUndated(try Self.importText(last, name: "p0.csv", LogCSVImporter()), from: Self.at("08:05"),
                           to: ExportFixtures.now, betweenRows: false, line: 5, field: "time")
    }

    /// A file whose times go both ways (here grouped by kind) bounds nothing: the row may be from
    /// the file's earliest time to the import's.
    @Test func aFileOutOfOrderBoundsItByItsEarliestTimeAndTheImports() throws {
        let csv = """
        \(Self.csvHeader)
        p0,2026-01-05T08:05:00Z,glucose,125,mg/dL
        p0,2026-01-05T08:10:00Z,glucose,130,mg/dL
        p0,2026-01-05T07:00:00Z,bolus,1,U
        p0,2026-01-05 25:07,bolus,2,U
        p0,2026-01-05T09:00:00Z,bolus,1,U
        """
        Self.expectUndated(try Self.importText(csv, name: "p0.csv", LogCSVImporter()), from: Self.at("07:00"),
                           to: ExportFixtures.now, betweenRows: false, line: 5, field: "time")
        // Grouped by kind, yet its times read in order: the basal rate at midnight, the bolus, then
        // the day's CGM from midnight. The bolus may be of any hour (the generated files below found
        // this): its kinds do not interleave, so the file is not taken as in time order.
        let grouped = """
        \(Self.csvHeader)
        p0,2026-01-05T00:00:00Z,basal,0.7,U/h
        p0,2026-02-30T10:00:00Z,bolus,3.2,U
        p0,2026-01-05T00:00:00Z,glucose,120,mg/dL
        p0,2026-01-05T00:05:00Z,glucose,125,mg/dL
        """
        Self.expectUndated(try Self.importText(grouped, name: "p0.csv", LogCSVImporter()), from: Self.at("00:00"),
                           to: ExportFixtures.now, betweenRows: false, line: 3, field: "time")
    }

    /// Each OhioT1DM section is in its own order: a bolus is bounded by the boluses around it, and
    /// by its own end when that reads (a bolus begins by its end: 09:07, not the next bolus's 10:00;
    /// the bounds are then not both rows' times).
    @Test func ohioXML() throws {
        let xml = """
        <patient id="p0" weight="70" insulin_type="rapid-acting">
        <glucose_level>
        <event ts="05-01-2026 08:00:00" value="120"/>
        <event ts="05-01-2026 12:00:00" value="125"/>
        </glucose_level>
        <bolus>
        <event ts_begin="05-01-2026 08:00:00" ts_end="05-01-2026 08:00:00" type="normal" dose="1"/>
        <event ts_begin="5th of January" ts_end="05-01-2026 09:07:00" type="normal" dose="2"/>
        <event ts_begin="05-01-2026 10:00:00" ts_end="05-01-2026 10:00:00" type="normal" dose="1"/>
        </bolus>
        <basal>
        <event ts="05-01-2026 07:00:00" value="0.8"/>
        <event ts="" value="1.1"/>
        </basal>
        </patient>
        """
        let r = try Self.importText(xml, name: "p0.xml", OhioXMLImporter())
        // In time order: the basal rate (the section's last row: up to the import's time) first.
        #expect(r.log.skippedInsulin.map(\.kind) == [.basal, .bolus])
        #expect(r.log.skippedInsulin.map(\.time) == [Self.at("07:00"), Self.at("08:00")])
        #expect(r.log.skippedInsulin.map(\.unreadTime) == [.init(latest: ExportFixtures.now, betweenRows: false),
                                                           .init(latest: Self.at("09:07"), betweenRows: false)])
        #expect(r.log.skippedInsulin.map(\.location.line) == [13, 8])
        #expect(r.log.skippedInsulin.map(\.location.field) == ["ts", "ts_begin"])
    }

    static let clarityHeader = "Index,Timestamp (YYYY-MM-DDThh:mm:ss),Event Type,Event Subtype,Patient Info,Device Info,"
        + "Source Device ID,Glucose Value (mg/dL),Insulin Value (u),Carb Value (grams)"

    /// A bad timestamp, and an Insulin row with none: before, the second was counted quietly as a
    /// patient or device row, without a warning.
    @Test func dexcomClarity() throws {
        for (time, reason, line) in [("2026-01-05T8h07", "bad timestamp", 4), ("", "no timestamp", 4)] {
            let rows = ["1,,FirstName,,Ann,,,,,", "2,2026-01-05T08:00:00,EGV,,,,G6,120,,", "3,2026-01-05T08:05:00,EGV,,,,G6,125,,",
                        "4,\(time),Insulin,Fast-Acting,,,,,2,", "5,2026-01-05T08:10:00,EGV,,,,G6,130,,"]
            let r = try Self.importText(([Self.clarityHeader] + rows).joined(separator: "\n") + "\n", name: "p0.csv", DexcomClarityImporter())
            Self.expectUndated(r, from: Self.at("08:05"), to: Self.at("08:10"), line: line + 1, field: "Timestamp (YYYY-MM-DDThh:mm:ss)")
            #expect(r.summary.skipped[reason] == 1, "\(r.summary.skipped)")
            #expect(r.summary.skippedQuietly?.values.reduce(0, +) == 1, "\(r.summary.skippedQuietly)")
        }
    }

    @Test func libreView() throws {
        let header = "Device,Serial Number,Device Timestamp,Record Type,Historic Glucose mg/dL,Scan Glucose mg/dL,"
            + "Non-numeric Rapid-Acting Insulin,Rapid-Acting Insulin (units),Non-numeric Food,Carbohydrates (grams),"
            + "Carbohydrates (servings),Non-numeric Long-Acting Insulin,Long-Acting Insulin (units),Notes,Strip Glucose mg/dL"
        let lines = ["Glucose Data,Generated on,01-20-2026 10:15 AM UTC,Generated by,x", header,
                     "FreeStyle LibreLink,X1,01-05-2026 08:00 AM,0,120,,,,,,,,,,",
                     "FreeStyle LibreLink,X1,01-05-2026 13:70 AM,4,,,,2,,,,,,,",
                     "FreeStyle LibreLink,X1,01-05-2026 08:15 AM,0,125,,,,,,,,,,"]
        let r = try Self.importText(lines.joined(separator: "\n") + "\n", name: "p0.csv", LibreViewImporter(),
                                    options: ExportFixtures.options("UTC", order: .monthDayYear))
        Self.expectUndated(r, from: Self.at("08:00"), to: Self.at("08:15"), line: 4, field: "Device Timestamp")
    }

    /// Nightscout writes newest first; its treatments are an order of their own after its entries.
    @Test func nightscout() throws {
        let ms = { (t: String) in Int(Self.at(t).timeIntervalSince1970 * 1000) }
        let json = """
        {"entries": [
          {"type": "sgv", "sgv": 130, "date": \(ms("08:10"))},
          {"type": "sgv", "sgv": 120, "date": \(ms("08:00"))}
         ],
         "treatments": [
          {"eventType": "Correction Bolus", "created_at": "2026-01-05T09:00:00Z", "insulin": 1},
          {"eventType": "Correction Bolus", "created_at": "at nine", "insulin": 2},
          {"eventType": "Correction Bolus", "created_at": "2026-01-05T08:30:00Z", "insulin": 1}
         ]
        }
        """
        Self.expectUndated(try Self.importText(json, name: "p0.json", NightscoutImporter()), from: Self.at("08:30"),
                           to: Self.at("09:00"), line: 7, field: "created_at")
    }

    @Test func tidepool() throws {
        let json = """
        [
        {"type": "cbg", "units": "mg/dL", "value": 120, "time": "2026-01-05T08:00:00.000Z"},
        {"type": "bolus", "subType": "normal", "normal": 2},
        {"type": "basal", "deliveryType": "temp", "rate": 0.5, "duration": 1800000, "time": 7},
        {"type": "cbg", "units": "mg/dL", "value": 125, "time": "2026-01-05T08:05:00.000Z"}
        ]
        """
        let r = try Self.importText(json, name: "p0.json", TidepoolImporter())
        #expect(r.log.skippedInsulin.map(\.kind) == [.bolus, .temporaryBasal])
        #expect(r.log.skippedInsulin.allSatisfy { $0.time == Self.at("08:00") && $0.unreadTime == .init(latest: Self.at("08:05"), betweenRows: true) })
        #expect(r.log.skippedInsulin.map(\.location.line) == [3, 4])
    }

    @Test func mappedCSV() throws {
        let csv = """
        date,id,CGM,insulin,carbs
        2026-01-05T08:00:00Z,p0,120,,
        not a date,p0,,3,
        ,p0,,0,
        2026-01-05T08:05:00Z,p0,125,,
        """
        var options = ExportFixtures.options("UTC")
        options.columns = ImportMappedCSVTests.mapping
        Self.expectUndated(try Self.importText(csv, name: "p0.csv", MappedCSVImporter(), options: options),
                           from: Self.at("08:00"), to: Self.at("08:05"), line: 3, field: "date")
    }

    /// Which of them bear on a dose, worked out from the rule for a 360-minute insulin: a record
    /// that may be anywhere from 10:00 to 10:05 counts for a moment from 10:00 to 16:05.
    @Test func theGuardCountsEveryTimeInTheBounds() {
        var log = DoseFixture.flatLog()
        let bounds = SkippedInsulin(kind: .bolus, time: DoseFixture.at(0), location: SourceLocation(file: "p.csv", line: 7, field: "time"),
                                    unreadTime: .init(latest: DoseFixture.at(5), betweenRows: true))
        log.skippedInsulin = [bounds]
        func refused(_ minutes: Double, _ l: PatientLog? = nil) -> Bool {
            DoseGuards.skippedInsulinRefusal(l ?? log, at: DoseFixture.at(minutes), durationMinutes: 360) != nil
        }
        #expect(!refused(-1))   // before the earliest it can be
        #expect(refused(0) && refused(2) && refused(90))
        #expect(refused(5 + 360))   // the latest it can be, 6 h on
        #expect(!refused(6 + 360))
        // A kept bolus strictly between the rows around it is the same dose, read from another
        // import; one at a bound is a row of the file itself.
        var settled = log
        settled.boluses.append(Bolus(time: DoseFixture.at(3), dose: InsulinUnits(2)))
        #expect(!refused(90, settled))
        var atBound = log
        atBound.boluses.append(Bolus(time: DoseFixture.at(5), dose: InsulinUnits(2)))
        #expect(refused(90, atBound))
        // Bounds not from the rows around it (a file out of order): nothing settles it.
        settled.skippedInsulin[0].unreadTime?.betweenRows = false
        #expect(refused(90, settled))
        // A basal rate with an unread time: in force unless a kept rate after its latest began before the action.
        var basal = log
        basal.skippedInsulin = [SkippedInsulin(kind: .basal, time: DoseFixture.at(-500), location: bounds.location,
                                               unreadTime: .init(latest: DoseFixture.at(-450), betweenRows: true))]
        basal.basalRates = [BasalRate(start: DoseFixture.at(-400), rate: InsulinRate(unitsPerHour: 1))]
        #expect(!refused(90, basal))
        basal.basalRates = [BasalRate(start: DoseFixture.at(-200), rate: InsulinRate(unitsPerHour: 1))]
        #expect(refused(90, basal))
    }

    /// The formula's dose at 11:30 for 30 g from the dose fixture's log (glucose 180) written as a
    /// GlucoModel CSV in time order, as devices write it (`LogCSVText` writes kind by kind), with
    /// `row` added after the 10:30 reading (file line `line`).
    static func formulaDose(adding row: String? = nil) throws -> (suggestion: DoseSuggestion, log: PatientLog, line: Int) {
        let log = DoseFixture.flatLog(glucose: 180)
        let lines = LogCSVText.of(log).split(separator: "\n").map(String.init)
        var rows = lines.dropFirst().sorted { $0.split(separator: ",")[1] < $1.split(separator: ",")[1] }
        let after = rows.firstIndex { $0.contains("T10:30:00Z,glucose") }! + 1
        if let row { rows.insert(row.replacingOccurrences(of: "{patient}", with: "\(log.patient)"), at: after) }
        let r = try Self.importText(([lines[0]] + rows).joined(separator: "\n"), name: "p.csv", LogCSVImporter())
        let s = DoseAdvisor.suggest(log: r.log, carbs: 30, at: DoseFixture.at(90), settings: DoseFixture.settings(), models: nil, method: .formula)
        return (s, r.log, after + 2)
    }

    /// The dose, from a file in time order: 5 U, refused once a bolus row's time is garbled.
    @Test func aDoseAfterABolusWithAnUnreadableTimeIsRefused() throws {
        // 30 g / 10 + (180 - 110) / 35 = 3 + 2 = 5 U.
        #expect(try Self.formulaDose().suggestion.decision.units == 5)
        let (s, log, line) = try Self.formulaDose(adding: "{patient},2026-01-05T10:3O:00Z,bolus,3,U,,,,")
        #expect(s.decision.units == nil)
        #expect(s.reasons.map(\.code) == ["skipped_insulin_record"])
        #expect(s.report.contains("[skipped_insulin_record] a bolus whose time could not be read ("), "\(s.report)")
        #expect(s.report.contains("p.csv:\(line) [time]) was skipped at import: it may be "
                                  + "from any time between 2026-01-05T10:30:00Z and 2026-01-05T10:35:00Z, by the rows around it"), "\(s.report)")
        // Six hours and a minute after the latest it can be, no longer.
        let later = DoseFixture.at(36 + 360)
        #expect(DoseGuards.skippedInsulinRefusal(log, at: later, durationMinutes: 360) == nil)
    }

    /// Bounds not from the rows around it say until when a store refuses.
    @Test func theRefusalOfAnUnorderedFileSaysUntilWhen() {
        let skipped = SkippedInsulin(kind: .bolus, time: DoseFixture.at(-120), location: SourceLocation(file: "p.csv", line: 9, field: "time"),
                                     unreadTime: .init(latest: DoseFixture.at(60), betweenRows: false))
        let text = DoseRefusal.skippedInsulinRecord(skipped, count: 1, durationMinutes: 360).description
        #expect(text.contains("it may be from any time from 2026-01-05T08:00:00Z up to 2026-01-05T11:00:00Z, so within"), "\(text)")
        #expect(text.hasSuffix("(in a store, the skipped row stays on record: doses from it are refused until 2026-01-05T17:00:00Z)"), "\(text)")
    }

    /// The store keeps the bounds; summaries written before them (no `unreadTime`) still read.
    @Test func theStoreKeepsTheBounds() throws {
        let csv = "\(Self.csvHeader)\np0,2026-01-05T08:00:00Z,glucose,120,mg/dL\np0,8h07,bolus,2,U\np0,2026-01-05T08:10:00Z,glucose,130,mg/dL\n"
        let url = try SkippedInsulinTests.file(csv, name: "p0.csv")
        let dir = url.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try PatientStore(path: dir.appendingPathComponent("store.sqlite").path)
        _ = try store.importFile(url, importer: LogCSVImporter(), options: ExportFixtures.options("UTC"))
        let log = try store.log(for: try PatientID("p0"))
        #expect(log.skippedInsulin.map(\.unreadTime) == [.init(latest: Self.at("08:10"), betweenRows: true)])
        #expect(log.skippedInsulin.map(\.time) == [Self.at("08:00")])
        let older = #"{"kind":"bolus","time":789300000,"location":{"file":"p.csv","line":3},"datedAfterImport":false}"#
        let decoded = try JSONDecoder().decode(SkippedInsulin.self, from: Data(older.utf8))
        #expect(decoded.unreadTime == nil && decoded.latest == decoded.time)
    }

    @Test func theReportCountsThem() throws {
        var log = ReportFixture.data.log
        let period = ReportFixture.period
        let place = SourceLocation(file: "p.csv", line: 12, field: "time")
        log.skippedInsulin = [
            // Bounds reaching into the period from before it.
            SkippedInsulin(kind: .bolus, time: period.start.addingTimeInterval(-7200), location: place,
                           unreadTime: .init(latest: period.start.addingTimeInterval(600), betweenRows: true)),
            SkippedInsulin(kind: .bolus, time: period.start.addingTimeInterval(7200), location: place),
        ]
        let report = try PatientReport(log: log, models: ReportFixture.models, period: period)
        let expected = "Insulin records skipped at import in this period: 2 boluses (the first a bolus at 2026-01-15 02:00), "
            + "1 of them with a time that could not be read. Their amounts are unknown"
        #expect(report.notes.contains { $0.hasPrefix(expected) }, "\(report.notes)")
        log.skippedInsulin.removeLast()
        log.skippedInsulin[0].unreadTime?.latest = period.start.addingTimeInterval(-1)
        #expect(try PatientReport(log: log, models: ReportFixture.models, period: period).notes.allSatisfy { !$0.hasPrefix("Insulin records skipped") })
    }
}

/// On generated files (CGM every 5 minutes, boluses, basal rates; written in time order, newest
/// first, or grouped by kind), one insulin row's time, or the row itself, is garbled: whatever the file's order, the
/// bounds the import keeps hold its true time, and every moment whose dose the true record bears
/// on (within the insulin's action after it) is refused.
@Suite struct UndatedInsulinPropertyTests {
    static let cases = 60

    @Test func theBoundsHoldTheTrueTimeAndEveryDoseItBearsOnIsRefused() throws {
        let t0 = ExportFixtures.utc("2026-03-02T00:00:00Z")
        let f = ISO8601DateFormatter()
        var checkedMoments = 0, between = 0
        for i in 0..<Self.cases {
            var r = SplitMix64(seed: 0x5EED_0000 &+ UInt64(i))
            // (time, text) rows of one day and a bit.
            var rows: [(time: Date, kind: RecordKind, text: String)] = []
            let hours = Double(Int.random(in: 6...30, using: &r))
            for k in 0..<Int(hours * 12) {
                let t = t0.addingTimeInterval(Double(k) * 300)
                rows.append((t, .glucose, "p0,\(f.string(from: t)),glucose,\(Int.random(in: 60...300, using: &r)),mg/dL"))
            }
            for _ in 0..<Int.random(in: 1...6, using: &r) {
                let t = t0.addingTimeInterval(Double(Int.random(in: 0..<Int(hours * 60), using: &r)) * 60)
                rows.append((t, .bolus, "p0,\(f.string(from: t)),bolus,\(Double(Int.random(in: 5...80, using: &r)) / 10),U"))
            }
            for h in stride(from: 0, to: Int(hours), by: Int.random(in: 3...8, using: &r)) {
                let t = t0.addingTimeInterval(Double(h) * 3600)
                rows.append((t, .basal, "p0,\(f.string(from: t)),basal,\(Double(Int.random(in: 3...15, using: &r)) / 10),U/h"))
            }
            let order = Int.random(in: 0..<3, using: &r)
            switch order {
            case 0: rows.sort { $0.time < $1.time }
            case 1: rows.sort { $0.time > $1.time }
            default: rows.sort { ($0.kind.rawValue, $0.time) < ($1.kind.rawValue, $1.time) }
            }
            let insulin = rows.indices.filter { rows[$0].kind != .glucose }
            let garbled = insulin[Int.random(in: 0..<insulin.count, using: &r)]
            let truth = rows[garbled]
            var parts = truth.text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            // Its time garbled, or its row: a decimal comma (`1,5`: a field too many), an unclosed quote.
            switch Int.random(in: 0..<6, using: &r) {
            case let k where k < 4:
                parts[1] = ["", "yesterday", parts[1].replacingOccurrences(of: "T", with: "T2"), "2026-02-30T10:00:00Z"][k]
            case 4: parts[3] = parts[3].replacingOccurrences(of: ".", with: ",")
            default: parts[4] = "\"" + parts[4]
            }
            rows[garbled].text = parts.joined(separator: ",")
            let csv = "patient,time,event,value,unit\n" + rows.map(\.text).joined(separator: "\n") + "\n"
            let result = try SkippedInsulinTests.importText(csv, name: "p0.csv", LogCSVImporter())
            let s = result.log.skippedInsulin
            #expect(s.count == 1 && s.first?.kind == truth.kind && s.first?.location.line == garbled + 2, "case \(i): \(s)")
            guard let one = s.first, let unread = one.unreadTime else { Issue.record("case \(i): no bounds"); continue }
            #expect(one.time <= truth.time && truth.time <= unread.latest, "case \(i), order \(order): \(truth.time) outside \(one.time)...\(unread.latest)")
            if order < 2 && unread.betweenRows { between += 1 }
            if order == 2 { #expect(!unread.betweenRows, "case \(i)") }
            // Moments within the action after the true time (a bolus), or while the true rate is in force.
            for minutes in stride(from: 0.0, through: 360, by: 15) {
                let at = truth.time.addingTimeInterval(minutes * 60)
                if truth.kind == .basal, result.log.basalRates.contains(where: { $0.start > truth.time && $0.start <= at.addingTimeInterval(-360 * 60) }) {
                    continue
                }
                checkedMoments += 1
                #expect(DoseGuards.skippedInsulinRefusal(result.log, at: at, durationMinutes: 360) != nil,
                        "case \(i): not refused \(minutes) min after the garbled \(truth.kind) at \(truth.time)")
            }
        }
        #expect(checkedMoments > Self.cases * 20)
        // Most files in time order bound it by the rows around it (not the first or last row's).
        #expect(between > Self.cases / 2, "\(between) of \(Self.cases)")
    }
}
