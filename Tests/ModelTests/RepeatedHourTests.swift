import Foundation
import Testing
@testable import GlucoModel

/// The repeated hour of a fall-back night, whatever the order of the file. Europe/Madrid goes from
/// CEST (UTC+2) back to CET (UTC+1) at 01:00Z on 2026-10-25: local 02:00-02:59 happens twice,
/// first at 00:00-00:59Z, then at 01:00-01:59Z. Before: the pass was read from the row before in
/// the file, so the same rows newest first put the hour's readings and a bolus an hour off (a
/// dose 4 times the right one in the audit), a file starting in the second pass read as the first
/// (its readings dropped as duplicates of stored ones), and an OhioT1DM section started in the
/// pass where the section before ended.
@Suite struct RepeatedHourTests {
    static let madrid = TimeZone(identifier: "Europe/Madrid")!
    /// CGM every 5 minutes 23:00Z-02:00Z (01:00 CEST to 03:00 CET).
    static let readings: [Date] = (0...36).map { Date(timeIntervalSince1970: 1_792_882_800 + Double($0) * 300) }
    /// 2 U at 00:30Z (02:30 CEST, first pass) and 1 U at 01:10Z (02:10 CET, second pass).
    static let boluses: [(Date, Double)] = [(utc("2026-10-25T00:30:00Z"), 2), (utc("2026-10-25T01:10:00Z"), 1)]

    static func utc(_ text: String) -> Date { ExportFixtures.utc(text) }

    static func local(_ date: Date, _ format: String = "yyyy-MM-dd'T'HH:mm:ss") -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX"); f.timeZone = madrid; f.dateFormat = format
        return f.string(from: date)
    }

    /// Rows (time, CSV row) of the GlucoModel CSV in time order.
    static func rows() -> [(Date, String)] {
        readings.enumerated().map { i, t in (t, "p0,\(local(t)),glucose,\(100 + i),mg/dL") }
            + boluses.map { t, u in (t, "p0,\(local(t)),bolus,\(u),U") }
    }

    static func csv(_ rows: [(Date, String)]) -> String {
        (["patient,time,event,value,unit"] + rows.map(\.1)).joined(separator: "\n") + "\n"
    }

    func importCSV(_ text: String) throws -> ImportResult {
        try ImportSharedRulesTests().importText(text, name: "dst.csv", LogCSVImporter(), zone: "Europe/Madrid")
    }

    @Test func oldestAndNewestFirstFilesGiveTheSameInstants() throws {
        let sorted = Self.rows().sorted { $0.0 < $1.0 }
        for rows in [sorted, sorted.reversed()] {
            let r = try importCSV(Self.csv(rows))
            #expect(r.log.glucose.map(\.time) == Self.readings)
            #expect(r.log.glucose.map(\.value.mgdL) == (0...36).map { Double(100 + $0) })
            #expect(r.log.boluses.map(\.time) == Self.boluses.map(\.0))
            #expect(r.log.boluses.map(\.dose.units) == [2, 1])
            #expect(r.summary.warnings.isEmpty, "\(r.summary.warnings)")
            // 12 readings and a bolus in each pass.
            #expect(r.summary.adjusted[LocalTimeResolver.repeatFirstReason] == 13)
            #expect(r.summary.adjusted[LocalTimeResolver.repeatSecondReason] == 13)
        }
    }

    /// A nightly inbox polled at 02:02 CET: the second file starts inside the second pass. Its
    /// readings continue into 03:00 CET five minutes after 02:55: the second pass.
    @Test func aFileStartingInTheSecondPassIsReadAsTheSecond() throws {
        let cut = Self.utc("2026-10-25T01:02:00Z")
        let sorted = Self.rows().sorted { $0.0 < $1.0 }
        let part1 = try importCSV(Self.csv(sorted.filter { $0.0 < cut }))
        let part2 = try importCSV(Self.csv(sorted.filter { $0.0 >= cut }))
        #expect(part1.log.glucose.map(\.time) == Self.readings.filter { $0 < cut })
        #expect(part2.log.glucose.map(\.time) == Self.readings.filter { $0 >= cut })
        #expect(part2.log.boluses.map(\.time) == [Self.utc("2026-10-25T01:10:00Z")])
        #expect(part1.summary.warnings.isEmpty && part2.summary.warnings.isEmpty)
        // A file ending inside the first pass (02:40 CEST, nothing after) is the first pass.
        let early = try importCSV(Self.csv(sorted.filter { $0.0 <= Self.utc("2026-10-25T00:40:00Z") }))
        #expect(early.log.glucose.map(\.time) == Self.readings.filter { $0 <= Self.utc("2026-10-25T00:40:00Z") })
        #expect(early.summary.warnings.isEmpty)
    }

    /// Each OhioT1DM section is in its own time order. Before, the bolus section started in the
    /// pass the glucose section ended in (the second), putting 02:30 CEST an hour late.
    @Test func eachOhioSectionIsReadOnItsOwn() throws {
        func ohio(_ t: Date) -> String { Self.local(t, "dd-MM-yyyy HH:mm:ss") }
        let glucose = Self.readings.enumerated().map { i, t in "    <event ts=\"\(ohio(t))\" value=\"\(100 + i)\"/>" }
        let bolus = Self.boluses.map { t, u in "    <event ts_begin=\"\(ohio(t))\" ts_end=\"\(ohio(t))\" type=\"normal\" dose=\"\(u)\"/>" }
        let lines = ["<patient id=\"p0\" weight=\"70\" insulin_type=\"rapid-acting\">", "  <glucose_level>"] + glucose
            + ["  </glucose_level>", "  <bolus>"] + bolus + ["  </bolus>", "  <meal>",
               "    <event ts=\"25-10-2026 02:30:00\" type=\"Snack\" carbs=\"20\"/>", "  </meal>", "</patient>"]
        let r = try ImportSharedRulesTests().importText(lines.joined(separator: "\n"), name: "p0.xml", OhioXMLImporter(),
                                                        zone: "Europe/Madrid")
        #expect(r.log.glucose.map(\.time) == Self.readings)
        #expect(r.log.boluses.map(\.time) == Self.boluses.map(\.0))
        // A lone meal in the hour: nothing tells its pass; the first, with a warning naming its line.
        #expect(r.log.carbs.map(\.time) == [Self.utc("2026-10-25T00:30:00Z")])
        let warning = try #require(r.summary.warnings.first)
        #expect(r.summary.warnings.count == 1)
        #expect(warning.location.line == glucose.count + bolus.count + 7 && warning.location.field == "ts")
        #expect(warning.message.contains("the file does not tell which pass"))
        #expect(r.summary.adjusted[LocalTimeResolver.repeatUnsettledReason] == 1)
    }

    /// Rows shuffled inside the hour can be read by no rule: said, with their lines.
    @Test func rowsShuffledInsideTheHourAreNamed() throws {
        var rows = Self.rows().sorted { $0.0 < $1.0 }
        let hour = rows.indices.filter { rows[$0].0 >= Self.utc("2026-10-25T00:00:00Z") && rows[$0].0 < Self.utc("2026-10-25T02:00:00Z") }
        rows.swapAt(hour[2], hour[20])
        rows.swapAt(hour[5], hour[15])
        let r = try importCSV(Self.csv(rows))
        let warning = try #require(r.summary.warnings.first)
        #expect(warning.message.contains("not in time order inside the hour"))
        #expect(warning.message.contains("lines \(hour[0] + 2)-\(hour.last! + 2)"), "\(warning.message)")
    }

    /// The store's import streams records in batches of `PatientLogBuilder.batchSize`; a run's
    /// records wait for its decision, then go on. 12,000 readings from a day before the change,
    /// newest first (the run decided only from its neighbours and direction): every instant right.
    @Test func theStoresStreamingImportPlacesTheHourToo() throws {
        let start = Self.utc("2026-10-24T01:00:00Z")
        let times = (0..<12_000).map { start.addingTimeInterval(Double($0) * 300) }
        let rows = times.enumerated().map { i, t in (t, "p0,\(Self.local(t)),glucose,\(80 + i % 200),mg/dL") }
        let dir = ScratchSpace.root.appendingPathComponent("dst-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("p0.csv")
        try Data(Self.csv(rows.reversed()).utf8).write(to: file)
        let store = try PatientStore(path: dir.appendingPathComponent("s.sqlite").path)
        var options = Fixture.options
        options.timeZone = Self.madrid
        options.now = Self.utc("2027-01-01T00:00:00Z")
        _ = try store.importFile(file, importer: LogCSVImporter(), options: options)
        let log = try store.log(for: try PatientID("p0"))
        #expect(log.glucose.map(\.time) == times)
        #expect(log.glucose.map(\.value.mgdL) == (0..<12_000).map { Double(80 + $0 % 200) })
    }

    @Test func aRunOfOnePassBetweenTwoNeighboursIsUnsettled() {
        // Readings of one pass only, 02:00-02:55, with rows at 01:55 CEST and 03:00 CET: the run
        // continues the row before as the first pass and the row after as the second.
        let entries = (0..<12).map { i -> RepeatedHourRuns.Entry in
            let first = Self.utc("2026-10-25T00:00:00Z").addingTimeInterval(Double(i) * 300)
            return .init(wall: Double(i) * 300, first: first, second: first.addingTimeInterval(3600))
        }
        let both = RepeatedHourRuns.decide(entries, before: Self.utc("2026-10-24T23:55:00Z"),
                                           after: Self.utc("2026-10-25T02:00:00Z"), newestFirst: false)
        #expect(both.doubt == .onePassNoNeighbour && !both.isSecond.contains(true))
        let onlyAfter = RepeatedHourRuns.decide(entries, before: nil, after: Self.utc("2026-10-25T02:00:00Z"), newestFirst: false)
        #expect(onlyAfter.doubt == nil && !onlyAfter.isSecond.contains(false))
        // Newest first, the row read before the run is the later one.
        let reversed = RepeatedHourRuns.decide(entries.reversed(), before: Self.utc("2026-10-25T02:00:00Z"), after: nil, newestFirst: true)
        #expect(reversed.doubt == nil && !reversed.isSecond.contains(false))
    }
}
