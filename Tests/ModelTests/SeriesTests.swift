import Foundation
import Testing
@testable import GlucoModel

@Suite struct SeriesTests {
    let t0 = Fixture.date("2026-01-05T10:00:00Z")
    func at(_ minutes: Double) -> Date { t0.addingTimeInterval(minutes * 60) }
    func cgm(_ minutes: Double, _ v: Double) -> GlucoseReading { GlucoseReading(time: at(minutes), value: .mgdL(v)) }

    @Test func gapsUpTo30MinutesAreFilledLongerOnesStayMissing() throws {
        var log = PatientLog(patient: try PatientID("s1"))
        // 20-min gap 10:05 -> 10:25; 40-min gap 10:25 -> 11:05; then readings at 11:09 and 11:11,
        // which count at the ends of their steps: 11:10 and 11:15 (never at an earlier point).
        log.glucose = [cgm(0, 100), cgm(5, 110), cgm(25, 150), cgm(65, 200), cgm(69, 210), cgm(71, 220)]
        let s = PatientSeries(log: log)
        // The last reading (11:11) lies in the step ending 11:15, so the grid runs to 11:15 (16 points).
        #expect(s.start == t0 && s.step == 300 && s.count == 16)
        #expect(s.glucose[15] == 220 && s.glucoseFlags[15] == .measured)
        // Linear from 110 to 150 over 4 steps: 120, 130, 140.
        #expect(Array(s.glucose[2...4]) == [120, 130, 140])
        #expect(Array(s.glucoseFlags[0...5]) == [.measured, .measured, .filled, .filled, .filled, .measured])
        #expect(s.glucoseFlags[6...12].allSatisfy { $0 == .missing })
        #expect(s.glucose[6...12].allSatisfy { $0.isNaN })
        #expect(s.glucose[13] == 200)
        #expect(s.glucose[14] == 210 && s.glucoseFlags[14] == .measured)
        // A filled value is known once the reading closing its gap (10:25, point 5) has arrived.
        #expect(Array(s.glucoseKnownAt[0...5]) == [0, 1, 5, 5, 5, 5])
        #expect(s.glucoseKnownAt[6] == Int.max)
        #expect(s.index(of: at(69)) == 14 && s.time(at: 13) == at(65))
    }

    @Test func readingsInOneStepAreAveraged() throws {
        var log = PatientLog(patient: try PatientID("s3"))
        // 10:06 and 10:09 both lie in the step (10:05, 10:10]: mean (120 + 130)/2 at 10:10.
        log.glucose = [cgm(0, 100), cgm(6, 120), cgm(9, 130)]
        let s = PatientSeries(log: log)
        #expect(s.count == 3 && s.glucose[2] == 125)
        #expect(s.glucose[1] == 112.5 && s.glucoseFlags[1] == .filled)
    }

    @Test func exactly30MinutesIsFilledAnd35IsNot() throws {
        var log = PatientLog(patient: try PatientID("s2"))
        log.glucose = [cgm(0, 100), cgm(30, 160), cgm(65, 100)]
        let s = PatientSeries(log: log)
        #expect(s.glucose[1] == 110 && s.glucoseFlags[1] == .filled) // 100 + 60/6
        #expect(s.glucoseFlags[7...12].allSatisfy { $0 == .missing })
        // A finger stick fills a point no CGM reading reaches, as a measurement.
        log.glucose.append(GlucoseReading(time: at(45), value: .mgdL(130), source: .fingerStick))
        log.glucose.sort { $0.time < $1.time }
        let s2 = PatientSeries(log: log)
        #expect(s2.glucose[9] == 130 && s2.glucoseFlags[9] == .measured)
    }

    @Test func insulinPerStepWithBasalTempAndExtendedBoluses() throws {
        var log = PatientLog(patient: try PatientID("s3"))
        log.glucose = [cgm(0, 100), cgm(120, 100)]
        log.basalRates = [BasalRate(start: at(0), rate: InsulinRate(unitsPerHour: 1.2))] // 0.1 U per 5 min
        log.boluses = [Bolus(time: at(2), dose: InsulinUnits(2)),
                       Bolus(time: at(50), end: at(110), dose: InsulinUnits(1.2), type: .square)] // 0.1 U per 5 min
        log.temporaryBasals = [TemporaryBasal(start: at(30), end: at(45), rate: InsulinRate(unitsPerHour: 0))]
        log.basalInjections = [BasalInjection(time: at(120), dose: InsulinUnits(10))]
        let s = PatientSeries(log: log)
        // Steps end at the points: (09:55, 10:00] holds nothing; (10:00, 10:05] the 2 U bolus and 0.1 U basal;
        // the suspension covers the steps ending 10:35, 10:40, 10:45; the square bolus the 12 steps
        // ending 10:55 ... 11:50; the step ending 12:00 holds the 10 U injection plus basal.
        let expected: [Double] = [0, 2.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0, 0, 0, 0.1] + Array(repeating: 0.2, count: 12) + [0.1, 10.1]
        #expect(s.count == 25)
        for (i, e) in expected.enumerated() {
            #expect(abs(s.insulin[i] - e) < 1e-12, "step \(i)")
        }
        // 2 h of 1.2 U/h less 15 min suspended, plus boluses and injection: 2.4 - 0.3 + 2 + 1.2 + 10.
        #expect(abs(s.insulin.reduce(0, +) - 15.3) < 1e-9)
    }

    @Test func derivedInputsAreCausalAndFollowTheModels() throws {
        var log = PatientLog(patient: try PatientID("s4"))
        log.glucose = [cgm(-10, 100), cgm(400, 100)]
        log.boluses = [Bolus(time: at(0), dose: InsulinUnits(1))]
        log.carbs = [CarbIntake(time: at(0), amount: Carbohydrate(grams: 50))]
        let s = PatientSeries(log: log)
        let i0 = try #require(s.index(of: at(0)))
        #expect(i0 == 2)
        // Nothing before the dose (causality), the whole dose at its point.
        #expect(s.insulinOnBoard[1] == 0 && s.carbsOnBoard[1] == 0)
        #expect(s.insulinOnBoard[i0] == 1 && s.carbsOnBoard[i0] == 50)
        // 75 min later: IOB(75) = 0.694263343718 (see PhysiologyTests for the derivation).
        #expect(abs(s.insulinOnBoard[i0 + 15] - 0.694263343718) < 1e-9)
        #expect(abs(s.insulinActivity[i0 + 15] - 0.005713515799) < 1e-12)
        // 60 min later: COB = 28.649242964672 g, Ra = 0.407685971072 g/min (python3, glucose-models.md's curve).
        #expect(abs(s.carbsOnBoard[i0 + 12] - 28.649242964672) < 1e-9)
        #expect(abs(s.carbAppearance[i0 + 12] - 0.407685971072) < 1e-11)
        #expect(s.insulinOnBoard[i0 + 72] == 0) // 360 min
        #expect(s.column("iob") == s.insulinOnBoard)
        #expect(s.columns.map(\.name) == PatientSeries.columnNames)
    }

    @Test func exerciseAndHeartRatePerStep() throws {
        var log = PatientLog(patient: try PatientID("s5"))
        log.glucose = [cgm(0, 100), cgm(30, 100)]
        log.exercise = [ExerciseSession(time: at(10), intensity: 4, durationMinutes: 15)]
        log.heartRate = [HeartRateSample(time: at(1), beatsPerMinute: 60), HeartRateSample(time: at(4), beatsPerMinute: 70)]
        let s = PatientSeries(log: log)
        // Active during the steps ending 10:15, 10:20, 10:25.
        #expect(s.exercise == [0, 0, 0, 4, 4, 4, 0])
        #expect(s.heartRate[1] == 65 && s.heartRate[0].isNaN && s.heartRate[2].isNaN)
    }
}
