import Foundation
import GlucoModel
import Testing

private let utc = ExportFixtures.utc
private let mmol = ExportFixtures.mmol

@Suite("Export importers: Nightscout and Tidepool JSON, cross-format, detection")
struct ExportJSONTests {
    @Test func nightscoutEntriesNewestFirstWithDuplicateUpload() throws {
        let r = try NightscoutImporter().importFile(at: ExportFixtures.url("nightscout_entries.json"),
                                                    options: ExportFixtures.options("UTC"))
        // e1 (xDrip, "09:05+01:00" = 08:05:00Z) and e1b (share2, 08:05:07Z) are one reading: kept once.
        #expect(r.log.glucose == [
            GlucoseReading(time: utc("2026-02-01T08:00:00Z"), value: .mgdL(125)),
            GlucoseReading(time: utc("2026-02-01T08:05:00Z"), value: .mgdL(130)),
            GlucoseReading(time: utc("2026-02-01T08:20:00Z"), value: .mgdL(150), source: .fingerStick),
            GlucoseReading(time: utc("2026-02-01T08:30:00Z"), value: .mgdL(180)),
        ])
        #expect(r.summary.rowsRead == 7)
        #expect(r.summary.skipped == ["not a number": 1, "duplicate": 1])
        // The glucose rows, newest first: e5, e3 (a meter reading), e1b, e1, e0 (e2 is not a number).
        #expect(r.summary.adjusted == ["newest-first rows reversed": 5])
        #expect(r.log.otherRecords == ["Nightscout cal": 1])
        // The "abc" element starts on line 5 (line 1 is "[").
        #expect(r.summary.issues.first?.location == SourceLocation(file: "nightscout_entries.json", line: 5, field: "sgv"))
    }

    @Test func nightscoutTreatments() throws {
        let r = try NightscoutImporter().importFile(at: ExportFixtures.url("nightscout_treatments.json"),
                                                    options: ExportFixtures.options("UTC"))
        #expect(r.log.boluses == [
            Bolus(time: utc("2026-02-01T12:00:00Z"), dose: InsulinUnits(5), kind: .rapid, carbInput: Carbohydrate(grams: 50)),
            Bolus(time: utc("2026-02-01T14:00:00Z"), dose: InsulinUnits(1.5), kind: .rapid),
        ])
        #expect(r.log.carbs == [
            CarbIntake(time: utc("2026-02-01T12:00:00Z"), amount: Carbohydrate(grams: 50)),
            CarbIntake(time: utc("2026-02-01T18:00:00Z"), amount: Carbohydrate(grams: 15), mealType: .hypoCorrection),
        ])
        // 16:00 + 45 min would end 16:45, but a cancel (duration 0) comes at 16:20.
        #expect(r.log.temporaryBasals == [
            TemporaryBasal(start: utc("2026-02-01T15:00:00Z"), end: utc("2026-02-01T15:30:00Z"), rate: InsulinRate(unitsPerHour: 0.5)),
            TemporaryBasal(start: utc("2026-02-01T16:00:00Z"), end: utc("2026-02-01T16:20:00Z"), rate: InsulinRate(unitsPerHour: 1.2)),
        ])
        #expect(r.log.otherRecords == ["Nightscout Temp Basal cancel": 1, "Nightscout Site Change": 1])
        #expect(r.summary.skipped == ["value out of range": 1])  // insulin -2
        #expect(r.summary.issues.first?.location == SourceLocation(file: "nightscout_treatments.json", line: 9, field: "insulin"))
        #expect(r.summary.adjusted == ["temporary basal ended early by a cancel or the next temp basal": 1])
    }

    @Test func nightscoutObjectWithBothKeys() throws {
        let r = try NightscoutImporter().importFile(at: ExportFixtures.url("nightscout_both.json"),
                                                    options: ExportFixtures.options("UTC"))
        #expect(r.log.glucose.map(\.value.mgdL) == [140, 142])
        #expect(r.log.boluses == [Bolus(time: utc("2026-02-01T08:02:00Z"), dose: InsulinUnits(1), kind: .rapid,
                                        carbInput: Carbohydrate(grams: 12))])
        #expect(r.log.carbs == [CarbIntake(time: utc("2026-02-01T08:02:00Z"), amount: Carbohydrate(grams: 12), mealType: .snack)])
        #expect(r.log.otherRecords == ["Nightscout devicestatus": 1])
        #expect(r.summary.rowsRead == 4)
    }

    @Test func tidepoolRecords() throws {
        let r = try TidepoolImporter().importFile(at: ExportFixtures.url("tidepool.json"), options: ExportFixtures.options("UTC"))
        let g = r.log.glucose
        #expect(g.map(\.time) == [utc("2026-03-01T08:00:00Z"), utc("2026-03-01T08:05:00Z"), utc("2026-03-01T08:07:00Z")])
        // 5.5 and 5.8 mmol/L x 18.01559; the smbg was already mg/dL.
        #expect(abs(g[0].value.mgdL - 99.085745) < 1e-9)
        #expect(abs(g[1].value.mgdL - 104.490422) < 1e-9)
        #expect(g[2].value.mgdL == 120 && g[2].source == .fingerStick)
        #expect(r.log.boluses == [
            Bolus(time: utc("2026-03-01T08:15:00Z"), dose: InsulinUnits(3)),
            // 2 U given at once, as the record says, and 1 U over the hour.
            Bolus(time: utc("2026-03-01T12:00:00Z"), end: utc("2026-03-01T13:00:00Z"), dose: InsulinUnits(3), type: .normalDual,
                  immediate: InsulinUnits(2)),
            Bolus(time: utc("2026-03-01T18:00:00Z"), end: utc("2026-03-01T18:30:00Z"), dose: InsulinUnits(1.5), type: .square),
        ])
        #expect(r.log.basalRates == [BasalRate(start: utc("2026-03-01T00:00:00Z"), end: utc("2026-03-01T01:00:00Z"),
                                               rate: InsulinRate(unitsPerHour: 0.8))])
        #expect(r.log.temporaryBasals == [
            TemporaryBasal(start: utc("2026-03-01T01:00:00Z"), end: utc("2026-03-01T01:30:00Z"), rate: InsulinRate(unitsPerHour: 1.5)),
            TemporaryBasal(start: utc("2026-03-01T02:00:00Z"), end: utc("2026-03-01T02:15:00Z"), rate: InsulinRate(unitsPerHour: 0)),
        ])
        #expect(r.log.carbs == [CarbIntake(time: utc("2026-03-01T08:14:00Z"), amount: Carbohydrate(grams: 45))])
        #expect(r.log.exercise == [ExerciseSession(time: utc("2026-03-01T17:00:00Z"), intensity: 8, durationMinutes: 30)])
        #expect(r.log.otherRecords == ["Tidepool upload": 1, "Tidepool wizard": 1])
        #expect(r.summary.skipped == ["not a number": 1])
        #expect(r.summary.issues.first?.location == SourceLocation(file: "tidepool.json", line: 6, field: "value"))
        #expect(r.summary.rowsRead == 14 && r.summary.recordsKept == 11)
    }

    /// Tidepool keeps every reading in mmol/L, converted from the device's whole mg/dL. Read back,
    /// each is the whole number again (35 of 363 were off in their last bit), so the same readings give
    /// the same log as in mg/dL, and 40 minutes at 400 mg/dL are a run at the sensor's ceiling.
    /// Control-IQ's automatic corrections are Tidepool boluses of subType `automated`, their
    /// amount in `normal`: insulin given. Read as an unknown subType, each was skipped insulin, and
    /// every dose within 6 hours of one was refused, all day for such a pump.
    @Test func tidepoolAutomatedBolusesAreBoluses() throws {
        let dir = ScratchSpace.root.appendingPathComponent("tidepool-auto-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("p1.json")
        try Data("""
            [{"type": "bolus", "subType": "automated", "normal": 0.45, "time": "2026-03-01T10:00:00.000Z"},
             {"type": "bolus", "subType": "normal", "normal": 3.2, "time": "2026-03-01T12:00:00.000Z"},
             {"type": "bolus", "subType": "pulse", "normal": 1, "time": "2026-03-01T13:00:00.000Z"},
             {"type": "cbg", "units": "mg/dL", "value": 120, "time": "2026-03-01T12:00:00.000Z"}]
            """.utf8).write(to: url)
        let r = try TidepoolImporter().importFile(at: url, options: ExportFixtures.options("UTC"))
        #expect(r.log.boluses.map(\.dose.units) == [0.45, 3.2] && r.log.boluses.first?.time == utc("2026-03-01T10:00:00Z"))
        #expect(r.summary.skipped == ["unknown bolus subType": 1] && r.log.skippedInsulin.map(\.kind) == [.bolus])
    }

    /// Hunt BW: Tidepool's data model gives an activity's duration in hours, minutes, seconds or
    /// milliseconds. Milliseconds were read as minutes, so 45 minutes (2700000 ms) was skipped as
    /// "2700000 is outside the plausible range 0.01...1440 for min"; any other unit was read as
    /// minutes too. Now milliseconds are read, and another unit is skipped as unknown, named.
    @Test func tidepoolActivityDurationUnits() throws {
        let dir = ScratchSpace.root.appendingPathComponent("tidepool-activity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("tp.json")
        func activity(_ hour: Int, _ duration: String) -> String {
            #"{"type": "physicalActivity", "reportedIntensity": "medium", "time": "2026-03-01T0\#(hour):00:00.000Z", "duration": \#(duration)}"#
        }
        try Data(("[" + [activity(1, #"{"value": 2700000, "units": "milliseconds"}"#),
                         activity(2, #"{"value": 2700, "units": "seconds"}"#),
                         activity(3, #"{"value": 45, "units": "minutes"}"#),
                         activity(4, #"{"value": 0.75, "units": "hours"}"#),
                         activity(5, #"{"value": 45}"#),
                         activity(6, #"{"value": 45, "units": "fortnights"}"#),
                         activity(7, #"{"value": 45, "units": 60}"#)].joined(separator: ",") + "]").utf8).write(to: url)
        var options = ExportFixtures.options("UTC")
        options.patient = try PatientID("p_tp")
        let r = try TidepoolImporter().importFile(at: url, options: options)
        // 2700000 ms = 2700 s = 45 min = 0.75 h; no unit is minutes.
        #expect(r.log.exercise.map(\.durationMinutes) == [45, 45, 45, 45, 45])
        #expect(r.log.exercise.map(\.time) == (1...5).map { utc("2026-03-01T0\($0):00:00Z") })
        #expect(r.summary.skipped == ["unknown unit": 2])
        #expect(r.summary.issues.map(\.description) == [
            "tp.json:1 (record 6) [duration.units]: warning: 'fortnights' is not a duration unit; expected hours, minutes, seconds or milliseconds",
            "tp.json:1 (record 7) [duration.units]: warning: 60 is not a duration unit; expected hours, minutes, seconds or milliseconds",
        ])
        #expect(r.summary.isBalanced)
    }

    /// The Nightscout API and Tidepool return their records on one line: every warning said
    /// "line 1", and a bad dose among thousands could not be found. Such a file's warnings name the
    /// record's place; a file of one record per line keeps its lines.
    @Test func warningsOfAJSONExportOnOneLineNameTheRecord() throws {
        let dir = ScratchSpace.root.appendingPathComponent("packed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let records = [#"{"eventType": "Correction Bolus", "insulin": 1, "created_at": "2026-03-01T08:00:00Z"}"#,
                       #"{"eventType": "Correction Bolus", "insulin": "abc", "created_at": "2026-03-01T09:00:00Z"}"#,
                       #"{"eventType": "Meal Bolus", "carbs": 900, "created_at": "2026-03-01T10:00:00Z"}"#]
        let packed = dir.appendingPathComponent("packed.json"), lined = dir.appendingPathComponent("lined.json")
        try Data(("[" + records.joined(separator: ",") + "]").utf8).write(to: packed)
        try Data(("[\n" + records.joined(separator: ",\n") + "\n]\n").utf8).write(to: lined)
        let a = try NightscoutImporter().importFile(at: packed, options: ExportFixtures.options("UTC"))
        #expect(a.summary.issues.prefix(2).map(\.location) == [SourceLocation(file: "packed.json", line: 1, field: "insulin", record: 2),
                                                       SourceLocation(file: "packed.json", line: 1, field: "carbs", record: 3)])
        #expect(a.summary.issues.first?.description.hasPrefix("packed.json:1 (record 2) [insulin]: warning:") == true)
        #expect(a.summary.warningLines(limit: 0).first?.contains("1 insulin record skipped (record 2)") == true)
        #expect(a.log.skippedInsulin.first?.location.record == 2)
        let b = try NightscoutImporter().importFile(at: lined, options: ExportFixtures.options("UTC"))
        #expect(b.summary.issues.prefix(2).map(\.location) == [SourceLocation(file: "lined.json", line: 3, field: "insulin"),
                                                       SourceLocation(file: "lined.json", line: 4, field: "carbs")])
    }

    @Test func tidepoolMmolFromWholeMgdLReadsBackWhole() throws {
        let dir = ScratchSpace.root.appendingPathComponent("tidepool-mmol-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let values = Array(39...401) + Array(repeating: 400, count: 8)
        let start = utc("2026-03-01T00:00:00Z")
        let time = { (i: Int) in ISO8601DateFormatter().string(from: start.addingTimeInterval(Double(i) * 300)) }
        // The shortest decimal that reads back as the same Double, as Tidepool's JSON writes it.
        let mmol = values.enumerated().map { i, v in
            #"{"type": "cbg", "units": "mmol/L", "value": \#(Double(v) / 18.01559), "time": "\#(time(i))"}"#
        }
        let mgdl = values.enumerated().map { i, v in
            #"{"type": "cbg", "units": "mg/dL", "value": \#(v), "time": "\#(time(i))"}"#
        }
        let files = try [("mmol.json", mmol), ("mgdl.json", mgdl)].map { name, rows in
            let url = dir.appendingPathComponent(name)
            try Data(("[\n" + rows.joined(separator: ",\n") + "\n]\n").utf8).write(to: url)
            return url
        }
        let read = try files.map { try TidepoolImporter().importFile(at: $0, options: ExportFixtures.options("UTC")).log.glucose }
        #expect(read[0].map(\.value.mgdL) == values.map(Double.init))
        #expect(read[0] == read[1])
        let ceiling = SensorLimitDetector().runs(in: read[0]).filter { $0.kind == .ceiling }
        // 400, 401 and the eight 400s: 45 minutes at or above 400.
        #expect(ceiling.count == 1 && ceiling.first?.readings == 10)
    }

    @Test func samePatientInTwoFormatsGivesTheSameRecords() throws {
        let dexcom = try DexcomClarityImporter().importFile(at: ExportFixtures.url("same_dexcom.csv"), options: ExportFixtures.options("UTC"))
        let ns = try NightscoutImporter().importFile(at: ExportFixtures.url("same_nightscout.json"), options: ExportFixtures.options("UTC"))
        #expect(dexcom.log.glucose.count == 3)
        #expect(dexcom.log.glucose == ns.log.glucose)
        #expect(dexcom.log.boluses == ns.log.boluses)
        #expect(dexcom.log.carbs == ns.log.carbs)
        #expect(ns.summary.skipped == ["duplicate": 1])
    }

    @Test(arguments: [
        ("dexcom_madrid_dst.csv", "dexcom-csv"), ("dexcom_mmol.csv", "dexcom-csv"), ("same_dexcom.csv", "dexcom-csv"),
        ("libre_us_mgdl.csv", "libreview-csv"), ("libre_eu_mmol.csv", "libreview-csv"), ("libre_ambiguous.csv", "libreview-csv"),
        ("nightscout_entries.json", "nightscout-json"), ("nightscout_treatments.json", "nightscout-json"),
        ("nightscout_both.json", "nightscout-json"), ("same_nightscout.json", "nightscout-json"),
        ("tidepool.json", "tidepool-json"),
    ])
    func detectionPicksTheRightImporter(file: String, format: String) throws {
        let type = try ImportFormats.detect(ExportFixtures.url(file))
        #expect(type?.formatName == format)
        #expect(ImportFormats.named(format)?.formatName == format)
    }

    @Test func registryImportsByNameAndRejectsUnknownFiles() throws {
        let r = try ImportFormats.importFile(at: ExportFixtures.url("tidepool.json"), options: ExportFixtures.options("UTC"))
        #expect(r.summary.recordsKept == 11)
        #expect(throws: InputError.self) {
            try ImportFormats.importFile(at: ExportFixtures.url("tidepool.json"), format: "no-such", options: ExportFixtures.options("UTC"))
        }
        let dir = ScratchSpace.root.appendingPathComponent("detect-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let other = dir.appendingPathComponent("notes.txt")
        try Data("just some notes\n".utf8).write(to: other)
        #expect(try ImportFormats.detect(other) == nil)
        #expect(throws: InputError.self) { try ImportFormats.importFile(at: other, options: ExportFixtures.options("UTC")) }
    }

    /// Audit 42: a JSON string that is not a number was quoted twice (`''abc'' is not a number`):
    /// `brief` quoted it and the shared field check quoted it again. Now once, as a CSV cell's
    /// text is (`'abc' is not a number`), in Tidepool and Nightscout alike; a non-string value is
    /// written as JSON, and an activity's duration names its `value`, not "an object".
    @Test func jsonValuesInWarningsAreQuotedOnce() throws {
        let dir = ScratchSpace.root.appendingPathComponent("quotes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let tidepool = dir.appendingPathComponent("tp.json"), nightscout = dir.appendingPathComponent("ns.json")
        try Data("""
            [
            {"type": "cbg", "time": "2026-01-05T08:00:00.000Z", "value": "abc", "units": "mmol/L"},
            {"type": "bolus", "subType": "normal", "time": "2026-01-05T08:10:00.000Z", "normal": "x"},
            {"type": "food", "time": "2026-01-05T08:15:00.000Z", "nutrition": {"carbohydrate": {"net": [1]}}},
            {"type": "physicalActivity", "time": "2026-01-05T08:20:00.000Z", "duration": {"value": "long", "units": "minutes"}},
            {"type": "smbg", "time": "2026-01-05T08:25:00.000Z", "value": null},
            {"type": "cbg", "time": "2026-01-05T08:30:00.000Z", "value": 6.5},
            {"type": "cbg", "time": "2026-01-05T08:35:00.000Z", "units": "mg/dL"},
            {"type": "food", "time": "2026-01-05T08:40:00.000Z", "nutrition": {"carbohydrate": {}}},
            {"type": "bolus", "subType": "normal", "time": "2026-01-05T08:45:00.000Z"},
            {"type": "cbg", "value": 6.5},
            {"type": "cbg", "time": 1767600000, "value": 6.5},
            {"type": "cbg", "time": "yesterday", "value": 6.5}
            ]
            """.utf8).write(to: tidepool)
        try Data("""
            [
            {"type": "sgv", "sgv": "abc", "date": 1767600000000},
            {"type": "sgv", "sgv": true, "date": 1767600300000},
            {"type": "sgv", "sgv": 120, "date": 1767600600000}
            ]
            """.utf8).write(to: nightscout)
        var options = ExportFixtures.options("UTC")
        options.patient = try PatientID("p_q")
        let tp = try TidepoolImporter().importFile(at: tidepool, options: options)
        #expect(tp.summary.issues.map(\.description) == [
            "tp.json:2 [value]: warning: 'abc' is not a number; expected glucose in mmol/L, or Low/High",
            "tp.json:3 [normal]: warning: 'x' is not a number; expected U (use '.' for decimals)",
            "tp.json:4 [nutrition.carbohydrate.net]: warning: '[...]' is not a number; expected g (use '.' for decimals)",
            "tp.json:5 [duration.value]: warning: 'long' is not a number; expected min (use '.' for decimals)",
            "tp.json:6 [value]: warning: 'null' is not a number; expected glucose in mmol/L, or Low/High",
            // A key that is absent is missing, as a CSV's field is (it printed "'missing' is not a number").
            "tp.json:8 [value]: warning: the field is missing; expected glucose in mg/dL",
            "tp.json:9 [nutrition.carbohydrate.net]: warning: the field is missing; expected g",
            "tp.json:10 [normal]: warning: the field is missing; expected U",
            // A time absent or not a time: said as such (it printed "time is nil", "time is Optional(...)").
            "tp.json:11 [time]: warning: the field is missing; expected ISO 8601 UTC, e.g. 2026-03-01T08:00:00.000Z",
            "tp.json:12 [time]: warning: time is 1767600000; expected ISO 8601 UTC, e.g. 2026-03-01T08:00:00.000Z",
            "tp.json:13 [time]: warning: time is 'yesterday'; expected ISO 8601 UTC, e.g. 2026-03-01T08:00:00.000Z",
        ])
        let ns = try NightscoutImporter().importFile(at: nightscout, options: options)
        #expect(ns.summary.issues.map(\.description) == [
            "ns.json:2 [sgv]: warning: 'abc' is not a number; expected glucose in mg/dL, or Low/High",
            "ns.json:3 [sgv]: warning: 'true' is not a number; expected glucose in mg/dL, or Low/High",
        ])
        // As a CSV cell's text is quoted by the same check.
        let csv = dir.appendingPathComponent("p_q.csv")
        try Data("patient,time,event,value,unit\np_q,2026-01-05T08:00:00Z,glucose,abc,mg/dL\n".utf8).write(to: csv)
        let log = try ImportFormats.importFile(at: csv, options: options)
        #expect(log.summary.issues.map(\.description) == ["\(csv.path):2 [value]: warning: 'abc' is not a number; expected glucose in mg/dL, or Low/High (use '.' for decimals)"])
    }

    @Test func truncatedJSONIsAnErrorNamingTheLine() throws {
        let dir = ScratchSpace.root.appendingPathComponent("trunc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let f = dir.appendingPathComponent("cut.json")
        try Data("[\n{\"type\": \"sgv\", \"sgv\": 100, \"date\": 1769932800000},\n{\"type\": \"sgv\", \"sg".utf8).write(to: f)
        do {
            _ = try NightscoutImporter().importFile(at: f, options: ExportFixtures.options("UTC"))
            Issue.record("a truncated file must not import")
        } catch let e as InputError {
            #expect(e.issue.location.line == 3)
            #expect(e.description.contains("truncated"))
        }
    }
}
