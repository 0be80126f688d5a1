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
    /// - Throws: `TrainingError.testPeriodNotAfterData` when the data's own test period begins at or
    ///   before its start; `tooFewDays` when too little is left to train on.
    public static func make(for data: PatientData, series: PatientSeries, options: TrainingOptions) throws -> DataSplits {
        let start = series.start
        let end = series.time(at: max(0, series.count - 1)).addingTimeInterval(series.step)
        let days = end.timeIntervalSince(start) / 86_400
        let testStart: Date
        if let given = data.testStart {
            guard given > start else {
                let files = data.files.filter(PatientData.isTestFile).map { URL(fileURLWithPath: $0).lastPathComponent }
                throw TrainingError.testPeriodNotAfterData(data.patient, testStart: given, dataStart: start, files: files)
            }
            testStart = given
        } else {
            let testDays = max(1, (days * options.testFraction).rounded())
            testStart = end.addingTimeInterval(-testDays * 86_400)
        }
        let before = testStart.timeIntervalSince(start)
        var validationStart = testStart.addingTimeInterval(-(before * options.validationFraction).rounded())
        validationStart = widened(validationStart, testStart: testStart, series: series, fraction: options.validationFraction)
        let splits = DataSplits(start: start, validationStart: validationStart, testStart: testStart, end: end)
        guard splits.trainingDays >= options.minimumTrainingDays else {
            throw TrainingError.tooFewDays(data.patient, have: max(0, splits.trainingDays), need: options.minimumTrainingDays)
        }
        return splits
    }

    /// Measured glucose steps a validation period must hold before it is widened (a day of readings).
    static let minimumValidationReadings = 288

    /// The validation start, moved back when the calendar's last `fraction` of the days before the
    /// test period holds too few measured readings (a sensor stuck at its limit for days, whose
    /// readings are left out, or a long gap): then validation starts where the last `fraction` of
    /// the measured readings before the test period begin, on the grid. With evenly spread readings
    /// the calendar start is kept as it is, so such patients' splits never change.
    static func widened(_ calendarStart: Date, testStart: Date, series: PatientSeries, fraction: Double) -> Date {
        let measured = (0..<series.count).filter { i in
            series.glucoseFlags[i] == .measured && series.time(at: i) < testStart
        }
        let inCalendar = measured.reversed().prefix { series.time(at: $0) >= calendarStart }.count
        let wanted = Int((Double(measured.count) * fraction).rounded())
        guard inCalendar < min(minimumValidationReadings, wanted), wanted > 0 else { return calendarStart }
        return min(calendarStart, series.time(at: measured[measured.count - wanted]))
    }
}
