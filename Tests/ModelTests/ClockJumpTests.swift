import Foundation
import Testing
@testable import GlucoModel

/// A CGM whose clock was set wrong and then corrected (audit F4): the import names the rows and
/// keeps them as written, in memory and in the store alike; ordinary files get no such warning.
@Suite struct ClockJumpTests {
    static let header = "Index,Timestamp (YYYY-MM-DDThh:mm:ss),Event Type,Event Subtype,Patient Info,Device Info,"
        + "Source Device ID,Glucose Value (mg/dL),Insulin Value (u),Carb Value (grams),Duration (hh:mm:ss),"
        + "Glucose Rate of Change (mg/dL/min),Transmitter Time (Long Integer),Transmitter ID"
    /// 2025-10-01T00:00Z.
    static let t0 = ExportFixtures.utc("2025-10-01T00:00:00Z")
    static let day = 86_400.0

    /// 14 days of 5-minute readings (4 032), true time of row `i` `t0 + 5i` min.
    static let fortnight = (0..<(14 * 288)).map { t0.addingTimeInterval(Double($0) * 300) }

    /// A Dexcom Clarity export of `times` in file order, written local to `zone`: row `i` is on line `i + 2`.
    func export(_ times: [Date], zone: String = "UTC") -> String {
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: zone)
        format.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        var text = Self.header + "\n"
        for (i, t) in times.enumerated() {
            text += "\(i + 1),\(format.string(from: t)),EGV,,,,iOS G6,\(140 + (i * 7) % 60),,,,,,\n"
        }
        return text
    }

    /// Imports `text` in memory and into a fresh store: the two summaries' warnings must agree.
    func importBoth(_ text: String, zone: String = "UTC") throws -> ImportSummary {
        let dir = ScratchSpace.root.appendingPathComponent("clock-jump-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("clarity.csv")
        try Data(text.utf8).write(to: url)
        var options = ExportFixtures.options(zone)
        options.patient = try PatientID("p4")
        let memory = try DexcomClarityImporter().importFile(at: url, options: options)
        let store = try PatientStore(path: dir.appendingPathComponent("store.sqlite").path)
        let run = try store.importFile(url, importer: DexcomClarityImporter(), options: options).run
        #expect(run.summary.issues == memory.summary.issues)
        #expect(run.summary.recordsKept == memory.summary.recordsKept)
        #expect(try store.log(for: options.patient!) == memory.log)
        return memory.summary
    }

    func clockWarnings(_ s: ImportSummary) -> [String] {
        s.warnings.map(\.description).filter { $0.contains("device clock") }
    }

    @Test func clockSetBackADayForSixHoursIsNamedWithItsLines() throws {
        // Audit F4 (a): true 2025-10-08 12:00-18:00Z (rows 2160..<2232, lines 2162-2233) written
        // 1 day less 2 min earlier. Offset: ((12:02 d7 - 11:55 d8) - (18:00 d8 - 17:57 d7)) / 2
        // = (-(23 h 53 min) - (24 h 3 min)) / 2 = -23 h 58 min.
        let times = Self.fortnight.enumerated().map { i, t in (2160..<2232).contains(i) ? t.addingTimeInterval(-Self.day + 120) : t }
        let s = try importBoth(export(times))
        #expect(clockWarnings(s) == ["clarity.csv:2162 [Timestamp (YYYY-MM-DDThh:mm:ss)]: warning: the device clock seems to have jumped by -23 h 58 min for 72 CGM "
            + "readings (lines 2162-2233) and back; their times are as written"])
        #expect(s.recordsKept == 4032 && s.rowsSkipped == 0)   // kept as written
        #expect(s.adjusted["row out of time order (sorted)"] == 72)
    }

    @Test func clockAYearAheadForTheLastTwelveHoursIsNamed() throws {
        // Audit F4 (b): the last 144 rows (true 2025-10-14 12:00Z on; lines 3890-4033) a year ahead.
        // The first of them is 365 d and 5 min after the reading before it.
        let times = Self.fortnight.enumerated().map { i, t in i >= 3888 ? t.addingTimeInterval(365 * Self.day) : t }
        let s = try importBoth(export(times))
        #expect(clockWarnings(s) == ["clarity.csv:3890 [Timestamp (YYYY-MM-DDThh:mm:ss)]: warning: the last 144 CGM readings (lines 3890-4033) are dated "
            + "365 d 0 h 5 min after every reading before them, with none after: the device clock seems to have been set "
            + "ahead; their times are as written (they would be the patient's newest days: correct the clock's rows or remove them)"])
        #expect(s.recordsKept == 4032 && s.rowsSkipped == 0)
    }

    @Test func aYearAheadInTheMiddleIsNamedAsAJumpAndBack() throws {
        // 12 h (rows 2000..<2144, lines 2002-2145) a year ahead, then back: +365 d exactly.
        let times = Self.fortnight.enumerated().map { i, t in (2000..<2144).contains(i) ? t.addingTimeInterval(365 * Self.day) : t }
        let s = try importBoth(export(times))
        #expect(clockWarnings(s) == ["clarity.csv:2002 [Timestamp (YYYY-MM-DDThh:mm:ss)]: warning: the device clock seems to have jumped by +365 d 0 h 0 min "
            + "for 144 CGM readings (lines 2002-2145) and back; their times are as written"])
    }

    @Test func clockLeftAnHourBehindForSixHoursIsNamed() throws {
        // A clock an hour behind (a daylight-saving change made by hand late, or a journey) from true
        // 2025-10-05 08:00Z for 6 h (rows 1248..<1320, lines 1250-1321): its first 12 readings land on
        // the hour before (same instants, other values: kept first, dropped with warnings), the
        // others an hour early, and the hour after is empty. Offset ((-55) - 65) / 2 = -60 min.
        let times = Self.fortnight.enumerated().map { i, t in (1248..<1320).contains(i) ? t.addingTimeInterval(-3600) : t }
        let s = try importBoth(export(times))
        #expect(clockWarnings(s) == ["clarity.csv:1250 [Timestamp (YYYY-MM-DDThh:mm:ss)]: warning: the device clock seems to have jumped by -1 h 0 min for 72 CGM "
            + "readings (lines 1250-1321) and back; their times are as written"])
        // The 12 that land on readings already taken (values 140 + 7i mod 60: 24 apart) are dropped
        // for them with a warning each, in memory as in the store (a Clarity file's duplicates are
        // matched within an upload window; these were kept beside the first, and the patient's log
        // then kept only the first, without a word).
        #expect(s.skipped == ["conflicting duplicate": 12] && s.recordsKept == 4032 - 12)
        #expect(s.warnings.filter { $0.message.contains("at the same time as clarity.csv:1238") }.count == 1)
        // Two hours ahead for a day (a journey east, the device set forward and back): +2 h.
        let ahead = Self.fortnight.enumerated().map { i, t in (2000..<2288).contains(i) ? t.addingTimeInterval(7200) : t }
        #expect(clockWarnings(try importBoth(export(ahead))).map { $0.contains("jumped by +2 h 0 min for 288 CGM readings (lines 2002-2289)") } == [true])
    }

    /// Sensor gaps from 35 minutes to 10 hours (forward steps that do not come back), in time order
    /// and newest first, whole or exported in two pieces out of order, and a 15-minute CGM missing
    /// readings: no clock is named.
    @Test func gapsOfMinutesToHoursGetNoClockWarning() throws {
        var r = SplitMix64(seed: 45)
        for case_ in 0..<6 {
            var times: [Date] = []
            var t = Self.t0
            let step = case_ < 4 ? 300.0 : 900.0
            while times.count < 2000 {
                times.append(t)
                let gap = Int.random(in: 0..<60, using: &r) == 0
                t = t.addingTimeInterval(gap ? Double(Int.random(in: 7...120, using: &r)) * 300 : step + Double(Int.random(in: -20...20, using: &r)))
            }
            #expect(clockWarnings(try importBoth(export(times))).isEmpty, "case \(case_)")
            #expect(clockWarnings(try importBoth(export(times.reversed()))).isEmpty, "case \(case_), newest first")
            let cut = Int.random(in: 500..<1500, using: &r)
            #expect(clockWarnings(try importBoth(export(Array(times[cut...]) + Array(times[..<cut])))).isEmpty, "case \(case_), pieces")
        }
        // Two exports that overlap, the second from 10 h before the first ends, with a 40-minute gap
        // in its first hour: a step back and, soon after, one forward that goes nowhere near where
        // the first export ended.
        let first = Array(Self.fortnight[0..<1200])
        let second = Self.fortnight[1080...].enumerated().compactMap { i, t in (6..<14).contains(i) ? nil : t }
        #expect(clockWarnings(try importBoth(export(first + second))).isEmpty)
    }

    @Test func ordinaryFilesGetNoClockWarning() throws {
        // In order; newest-first; with a 3-day gap (a forward jump that does not come back), both orders.
        #expect(clockWarnings(try importBoth(export(Self.fortnight))).isEmpty)
        #expect(clockWarnings(try importBoth(export(Self.fortnight.reversed()))).isEmpty)
        let gap = Self.fortnight.enumerated().map { i, t in i >= 1000 ? t.addingTimeInterval(3 * Self.day) : t }
        #expect(clockWarnings(try importBoth(export(gap))).isEmpty)
        #expect(clockWarnings(try importBoth(export(gap.reversed()))).isEmpty)
        // Exported in three pieces out of order (days 0-5, 10-14, 5-10): sorted, not a clock.
        let a = Array(Self.fortnight[0..<1440]), b = Array(Self.fortnight[1440..<2880]), c = Array(Self.fortnight[2880...])
        let pieces = try importBoth(export(a + c + b))
        #expect(clockWarnings(pieces).isEmpty && (pieces.adjusted["row out of time order (sorted)"] ?? 0) > 0)
    }

    @Test func daylightSavingFallBackInTimeOrderGetsNoClockWarning() throws {
        // Europe/Madrid falls back on 2025-10-26 at 03:00 CEST: local 02:00-02:59 is written twice.
        let times = (0..<(3 * 288)).map { ExportFixtures.utc("2025-10-25T00:00:00Z").addingTimeInterval(Double($0) * 300) }
        let s = try importBoth(export(times, zone: "Europe/Madrid"), zone: "Europe/Madrid")
        #expect(clockWarnings(s).isEmpty)
        #expect(s.recordsKept == 3 * 288)
    }

    @Test func detectorBoundaries() {
        // Two rows away and back are not named (fewer than `minRows`); three are.
        func warnings(_ offsets: [Double]) -> [ImportIssue] {
            var d = ClockJumpDetector()
            for (i, o) in offsets.enumerated() {
                d.note(Self.t0.addingTimeInterval(Double(i) * 300 + o), SourceLocation(file: "f", line: i + 2))
            }
            return d.finish()
        }
        let back = -2 * Self.day
        #expect(warnings([0, 0, back, back, 0, 0]).isEmpty)
        #expect(warnings([0, 0, back, back, back, 0, 0]).map(\.message)
            == ["the device clock seems to have jumped by -2 d 0 h 0 min for 3 CGM readings (lines 4-6) and back; their times are as written"])
        // A step of 30 min is not more than `jump` (rows 5 min apart set back 35 min step back 30);
        // one of 35 min is (set back 40 min: named as -40 min, ((-35) - 45) / 2); a clock set back for
        // the rest of the file is not named.
        #expect(warnings([0, 0, -2100, -2100, -2100, 0]).isEmpty)
        #expect(warnings([0, 0, -2400, -2400, -2400, 0]).map(\.message)
            == ["the device clock seems to have jumped by -40 min for 3 CGM readings (lines 4-6) and back; their times are as written"])
        #expect(warnings([0, 0, back, back, back, back]).isEmpty)
        // A single last reading 31 days ahead is named; 29 days ahead is a gap.
        #expect(warnings([0, 0, 0, 31 * Self.day]).map(\.location.line) == [5])
        #expect(warnings([0, 0, 0, 29 * Self.day]).isEmpty)
        #expect(ClockJumpDetector.duration(-86_280) == "-23 h 58 min" && ClockJumpDetector.duration(2_700) == "+45 min")
    }
}
