import Foundation
import Testing
@testable import GlucoModel
import GrammarEvolution

/// Splits of a patient whose CGM sat at its floor for days: those readings are left out of
/// training and scoring (sensor-limit runs), so the calendar's validation and test periods can be
/// empty. Validation then widens back to where the measured readings are; a test period with no
/// usable row is not scored instead of failing the patient.
@Suite struct SplitSensorLimitTests {
    /// 10 days; from day 6 on every reading is 39 mg/dL (the sensor's floor).
    static func stuckAtFloor() -> PatientData {
        var log = SyntheticCohort.patient("p_floor", days: 10, seed: 3)
        let floorFrom = SyntheticCohort.start.addingTimeInterval(6 * 86_400)
        log.glucose = log.glucose.map { r in
            r.time >= floorFrom ? GlucoseReading(time: r.time, value: .mgdL(39)) : r
        }
        return SyntheticCohort.data(log)
    }

    @Test func evenlyMeasuredPatientKeepsTheCalendarSplit() throws {
        let data = SyntheticCohort.data(SyntheticCohort.patient("p_even", days: 10, seed: 3))
        let options = try SyntheticCohort.options()
        let series = PatientSeries(log: data.log, options: options.series)
        let splits = try DataSplits.make(for: data, series: series, options: options)
        // 10 days: test = last 2 days (20%), validation = last 20% of the 8 days before (1.6 days).
        let testStart = SyntheticCohort.start.addingTimeInterval(8 * 86_400)
        #expect(splits.testStart == testStart)
        #expect(splits.validationStart == testStart.addingTimeInterval(-1.6 * 86_400))
    }

    /// Hunt AP: a testing file that begins at or before the data was read as no test period: the
    /// last days were held out and the testing file's days trained on, without a word.
    @Test func aTestPeriodThatDoesNotBeginAfterTheDataIsRefused() throws {
        var data = SyntheticCohort.data(SyntheticCohort.patient("p_pair", days: 10, seed: 3))
        data.files = ["/d/p_pair-ws-training.xml", "/d/p_pair-ws-testing.xml"]
        let options = try SyntheticCohort.options()
        let series = PatientSeries(log: data.log, options: options.series)
        // A testing file from day 7: the test period.
        data.testStart = SyntheticCohort.start.addingTimeInterval(7 * 86_400)
        #expect(try DataSplits.make(for: data, series: series, options: options).testStart == data.testStart)
        for given in [series.start, series.start.addingTimeInterval(-3_600)] {
            data.testStart = given
            #expect(throws: TrainingError.testPeriodNotAfterData(data.patient, testStart: given, dataStart: series.start, files: ["p_pair-ws-testing.xml"])) {
                try DataSplits.make(for: data, series: series, options: options)
            }
        }
        #expect(TrainingError.testPeriodNotAfterData(data.patient, testStart: series.start, dataStart: series.start, files: ["p_pair-ws-testing.xml"])
            .description.hasPrefix("p_pair: the held-out test period (p_pair-ws-testing.xml, from \(series.start.iso8601)) does not begin after the data does"))
    }

    @Test func validationWidensBackToMeasuredReadingsAndTestIsNotScored() throws {
        let options = try SyntheticCohort.options()
        let trainer = try PatientTrainer(data: Self.stuckAtFloor(), options: options,
                                         grammar: try Grammar(text: options.grammar.text, source: options.grammar.name))
        #expect(!trainer.sensorLimitRuns.isEmpty)
        // Measured readings before the test period (day 8) cover days 0-6 only: validation holds
        // the last 20% of them, 1.2 days before day 6 (on the 5-minute grid), not the calendar's
        // 1.6 days before day 8 (all at the floor, left out).
        let expected = SyntheticCohort.start.addingTimeInterval(6 * 86_400 - 1.2 * 86_400)
        #expect(abs(trainer.splits.validationStart.timeIntervalSince(expected)) <= 300)
        let trained = try trainer.train(horizon: 30)
        #expect(trained.model.metrics.contains { $0.split == "validation" })
        #expect(!trained.model.metrics.contains { $0.split == "test" })
        #expect(trained.model.metrics.allSatisfy { $0.rmse.isFinite })
    }
}
