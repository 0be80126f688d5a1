import Foundation

/// The train / validation / test periods of one patient, as grid-step boundaries.
public struct DataSplits: Sendable, Equatable {
    public var start: Date
    public var validationStart: Date
    public var testStart: Date
    public var end: Date

    public var trainingDays: Double { validationStart.timeIntervalSince(start) / 86_400 }

    /// Chronological splits (never shuffled): test = the data's own test period or the last
    /// `testFraction` of the days (whole days, at least one); validation = the last
    /// `validationFraction` of what precedes the test period; training = the rest.
    public static func make(for data: PatientData, series: PatientSeries, options: TrainingOptions) throws -> DataSplits {
        let start = series.start
        let end = series.time(at: max(0, series.count - 1)).addingTimeInterval(series.step)
        let days = end.timeIntervalSince(start) / 86_400
        let testStart: Date
        if let given = data.testStart, given > start {
            testStart = given
        } else {
            let testDays = max(1, (days * options.testFraction).rounded())
            testStart = end.addingTimeInterval(-testDays * 86_400)
        }
        let before = testStart.timeIntervalSince(start)
        let validationStart = testStart.addingTimeInterval(-(before * options.validationFraction).rounded())
        let splits = DataSplits(start: start, validationStart: validationStart, testStart: testStart, end: end)
        guard splits.trainingDays >= options.minimumTrainingDays else {
            throw TrainingError.tooFewDays(data.patient, have: max(0, splits.trainingDays), need: options.minimumTrainingDays)
        }
        return splits
    }
}
