import Foundation
import Testing
@testable import GlucoModel

/// Hunt BL (stop 62): one person wearing two CGMs at once (a Dexcom every 5 minutes and a Libre every
/// 15, reading 30 mg/dL higher), from two files. Their readings interleaved: the newest of either was
/// "glucose now", a rise between them a trend, runs below 54 broken up. Where the first file's CGM
/// reads, the second's readings are left out (read together, and in the store, either order); the
/// second's fill the time after the first stops. Every expected list is worked out by hand below.
@Suite struct SecondCGMTests {
    static let day = Date(timeIntervalSince1970: 1_773_014_400)  // 2026-03-09 00:00 UTC
    static func at(_ minutes: Double) -> Date { day.addingTimeInterval(10 * 3600 + minutes * 60) }  // minutes after 10:00
    static func iso(_ minutes: Double) -> String { ISO8601DateFormatter().string(from: at(minutes)) }
    static let head = "patient,time,event,value,unit,duration,type,moment,note"

    /// Dexcom: 10:00-12:00 every 5 minutes at 100 mg/dL, and a finger stick at 11:01.
    static let dexcom = [head] + stride(from: 0.0, through: 120, by: 5).map { "cgm01,\(iso($0)),glucose,100,mg/dL,,cgm,," }
        + ["cgm01,\(iso(61)),glucose,104,mg/dL,,finger,,"]
    /// Libre: 10:02-13:02 every 15 minutes at 130 mg/dL, and a finger stick at 10:31.
    static let libre = [head] + stride(from: 2.0, through: 182, by: 15).map { "cgm01,\(iso($0)),glucose,130,mg/dL,,cgm,," }
        + ["cgm01,\(iso(31)),glucose,128,mg/dL,,finger,,"]

    static func cgm(_ log: PatientLog) -> [Double] { log.glucose.filter { $0.source == .cgm }.map { $0.time.timeIntervalSince(at(0)) / 60 } }

    @Test func aSecondSensorIsLeftOutWhereTheFirstReads() throws {
        let dir = try PumpRecordsTests.scratchFolder("cgm2")
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = dir.appendingPathComponent("a-dexcom.csv"), b = dir.appendingPathComponent("b-libre.csv")
        try Data(Self.dexcom.joined(separator: "\n").utf8).write(to: a)
        try Data(Self.libre.joined(separator: "\n").utf8).write(to: b)
        let options = ExportFixtures.options("UTC")
        // The Dexcom's 25 readings (0 ... 120), then the Libre's after 12:00: 122 ... 182 (5 readings);
        // its 10:02 ... 11:47 readings (8) lie between Dexcom readings 5 minutes apart.
        let dexcomFirst = Array(stride(from: 0.0, through: 120, by: 5)) + Array(stride(from: 122.0, through: 182, by: 15))
        // The other way: the Libre's 13 readings (2 ... 182); a Dexcom reading at 0 comes before the Libre's first
        // and is kept; every other lies between Libre readings 15 minutes apart.
        let libreFirst = [0.0] + Array(stride(from: 2.0, through: 182, by: 15))
        let da = try LogCSVImporter().importFile(at: a, options: options).log
        let lb = try LogCSVImporter().importFile(at: b, options: options).log
        #expect(Self.cgm(da.merging(lb)) == dexcomFirst, "\(Self.cgm(da.merging(lb)))")
        #expect(Self.cgm(lb.merging(da)) == libreFirst, "\(Self.cgm(lb.merging(da)))")
        // Finger sticks are never a sensor's: both kept.
        #expect(da.merging(lb).glucose.filter { $0.source == .fingerStick }.count == 2)

        // Read together (name order: the Dexcom's file first): the Libre's file says so.
        let loaded = try ExportFiles(paths: [dir.path], options: options).load()
        #expect(loaded.patients.first.map { Self.cgm($0.log) } == dexcomFirst)
        let libreSummary = try #require(loaded.summaries.first { $0.file.hasSuffix("b-libre.csv") })
        #expect(libreSummary.adjusted["CGM reading where another sensor's read (that sensor's kept)"] == 8, "\(libreSummary.adjusted)")
        #expect(libreSummary.issues.contains { $0.message.hasPrefix("8 CGM readings from 2026-03-09T10:02:00Z to 2026-03-09T11:47:00Z fall where a file read before") },
                "\(libreSummary.issues.map(\.message))")

        // Through a store, either order: the same lists, the second import's warning and counts.
        for (order, expected, dropped) in [([a, b], dexcomFirst, 8), ([b, a], libreFirst, 24)] {
            let store = try PatientStore(path: dir.appendingPathComponent("\(order[0].lastPathComponent).sqlite").path)
            let runs = try order.map { try store.importFile($0, importer: LogCSVImporter(), options: options).run }
            let stored = try store.log(for: da.patient)
            #expect(Self.cgm(stored) == expected, "\(Self.cgm(stored))")
            #expect(runs[1].summary.adjusted["CGM reading where another sensor's read (that sensor's kept)"] == dropped, "\(runs[1].summary.adjusted)")
            #expect(runs[1].summary.issues.contains { $0.message.contains("fall where another import's CGM reads") })
            #expect(runs[0].summary.issues.allSatisfy { !$0.message.contains("CGM reads") })
        }
    }

    /// The same sensor exported twice (a Dexcom through Clarity, to the minute, and Nightscout, to the
    /// second): its readings are one upload, not a second sensor's; and a gap of more than 20 minutes
    /// in the first sensor's readings is filled by the second's.
    @Test func theSameSensorTwiceIsNoSecondAndAGapIsFilled() throws {
        let first = [GlucoseReading(time: Self.at(0), value: .mgdL(100)), GlucoseReading(time: Self.at(5), value: .mgdL(102)),
                     GlucoseReading(time: Self.at(30), value: .mgdL(110))]
        let again = first.map { GlucoseReading(time: $0.time.addingTimeInterval(20), value: $0.value) }
            + [GlucoseReading(time: Self.at(17), value: .mgdL(140))]
        let lists = PatientLog.droppingUploadedTwice([first, again.sorted { $0.time < $1.time }], secondSensor: PatientLog.isSecondSensor)
        // The copies 20 s after each are one upload; 10:17 lies in a gap of 25 minutes: kept.
        #expect(lists[1].map(\.time) == [Self.at(17)])
        // Within the run between 10:00 and 10:05: a second sensor's; at one of its instants, the same
        // event (kept or in conflict by the instant's rule); after its last reading, not within it.
        #expect(PatientLog.isSecondSensor(GlucoseReading(time: Self.at(3), value: .mgdL(90)), among: first))
        #expect(!PatientLog.isSecondSensor(GlucoseReading(time: Self.at(5), value: .mgdL(90)), among: first))
        #expect(!PatientLog.isSecondSensor(GlucoseReading(time: Self.at(31), value: .mgdL(90)), among: first))
        #expect(!PatientLog.isSecondSensor(GlucoseReading(time: Self.at(3), value: .mgdL(90), source: .fingerStick), among: first))
    }
}
