import Foundation
import Testing
@testable import GlucoModel

/// Hunt BL (stop 62): two CGMs imported for one person (a Dexcom every 5 minutes and a Libre every 15,
/// reading 20 mg/dL higher) interleave; a dose took the newest of either as glucose now and the step
/// between them as a trend. Refused (`interleaved_sensors`); one sensor's readings, however they
/// arrive (its own holes filled by another export of it, a Libre's minute readings), are not.
@Suite struct InterleavedSensorTests {
    static let t0 = Date(timeIntervalSince1970: 1_773_014_400 + 16 * 3600)  // 2026-03-09 16:00 UTC
    static func at(_ minutes: Double) -> Date { t0.addingTimeInterval(minutes * 60) }
    static func cgm(_ minutes: Double, _ value: Double) -> GlucoseReading { GlucoseReading(time: at(minutes), value: .mgdL(value)) }
    /// A Dexcom 10:00 ... 11:00 every 5 minutes, rising 1 mg/dL a minute from 100.
    static let dexcom = stride(from: 0.0, through: 60, by: 5).map { cgm($0, 100 + $0) }

    static func codes(_ readings: [GlucoseReading], at minutes: Double) -> [String] {
        DoseGuards.glucoseRefusals(readings.sorted { $0.time < $1.time }, at: at(minutes)).refusals.map(\.code)
    }

    @Test func twoSensorsInterleavedAreRefused() throws {
        // A Libre 20 mg/dL above, every 15 minutes at :02: each of its readings is 2 minutes after a
        // Dexcom reading (20 + 2 = 22 mg/dL in 2 min, 11 a minute) and 3 before the next (17 in 3,
        // 5.7 a minute: not counted). Four pairs in the hour before 17:00.
        let libre = stride(from: 2.0, through: 60, by: 15).map { Self.cgm($0, 100 + $0 + 20) }
        let refusals = DoseGuards.glucoseRefusals((Self.dexcom + libre).sorted { $0.time < $1.time }, at: Self.at(60)).refusals
        let refusal = try #require(refusals.first { $0.code == "interleaved_sensors" }, "\(refusals)")
        guard case let .interleavedSensors(from, to, first, second, count) = refusal else { Issue.record("\(refusal)"); return }
        // The newest pair: the Dexcom's 145 at 16:45, the Libre's 167 at 16:47.
        #expect(from == 145 && to == 167 && first == Self.at(45) && second == Self.at(47) && count == 4, "\(refusal)")
        #expect(refusal.description.contains("2 min 0 s apart (and 3 more such pairs in the hour before)"), "\(refusal.description)")
        // The sensor-jump guard, for a shift of 40 mg/dL, says nothing here: this one is needed.
        #expect(!refusals.contains { $0.code == "sensor_jump" })
    }

    /// The report notes them: its metrics and episodes mix the two sensors.
    @Test func theReportNotesTwoSensors() {
        let clock = ReportClock(timeZone: TimeZone(identifier: "UTC")!)
        let libre = stride(from: 2.0, through: 60, by: 15).map { Self.cgm($0, 100 + $0 + 20) }
        let note = PatientReport.interleavedSensorsNote((Self.dexcom + libre).sorted { $0.time < $1.time }, clock: clock)
        #expect(note?.hasPrefix("CGM readings of two sensors interleave on 1 day from 2026-03-09 16:00 (4 pairs of readings") == true, "\(note ?? "nil")")
        #expect(PatientReport.interleavedSensorsNote(Self.dexcom, clock: clock) == nil)
    }

    @Test func oneSensorIsNotRefused() {
        // The Dexcom alone; its holes filled by another export of it 40 s later (a Nightscout upload
        // beside Clarity's), 1 mg/dL off; a Libre's minute readings rising 4 mg/dL a minute with 3 of noise.
        #expect(Self.codes(Self.dexcom, at: 60) == [])
        let refilled = Self.dexcom.filter { Int($0.time.timeIntervalSince(Self.t0) / 60) % 10 == 0 }
            + Self.dexcom.filter { Int($0.time.timeIntervalSince(Self.t0) / 60) % 10 != 0 }
                .map { GlucoseReading(time: $0.time.addingTimeInterval(40), value: .mgdL($0.value.mgdL + 1)) }
        #expect(!Self.codes(refilled, at: 61).contains("interleaved_sensors"))
        let minutes = (0...60).map { Self.cgm(Double($0), 100 + 4 * Double($0) + ($0 % 2 == 0 ? 3 : -3)) }
        #expect(!Self.codes(minutes, at: 60).contains("interleaved_sensors"))
        // A sensor read every 3 minutes (the simulator's), its noise moving 20 mg/dL in a step, up and
        // down: at its own step, no second sensor.
        let simulated = (0...20).map { Self.cgm(3 * Double($0), 120 + ($0 % 2 == 0 ? 10 : -10)) }
        #expect(!Self.codes(simulated, at: 60).contains("interleaved_sensors"))
        // One pair out of line (a single glitch) is no second sensor.
        let glitch = Self.dexcom + [Self.cgm(32, 160)]
        #expect(!Self.codes(glitch, at: 60).contains("interleaved_sensors"))
        // Interleaving more than an hour before the moment is out of the models' inputs.
        let libre = stride(from: 2.0, through: 60, by: 15).map { Self.cgm($0, 100 + $0 + 20) }
        let later = (Self.dexcom + libre) + stride(from: 65.0, through: 125, by: 5).map { Self.cgm($0, 100 + $0) }
        #expect(!Self.codes(later, at: 125).contains("interleaved_sensors"))
    }
}
