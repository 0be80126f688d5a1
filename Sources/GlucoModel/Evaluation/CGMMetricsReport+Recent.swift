import Foundation

extension CGMMetricsReport {
    /// The CGM metrics of the last `days` days of a patient's glucose readings, or nil without readings.
    ///
    /// The period ends one reading interval after the last reading (so that reading counts, as
    /// `GlucoseSeries` does for a whole log) and starts `days` days earlier, or at the first
    /// reading when the data is shorter: days without any data are not counted as missing.
    public static func recent(_ log: PatientLog, days: Double) -> CGMMetricsReport? {
        guard let first = log.glucose.first?.time, let last = log.glucose.last?.time else { return nil }
        let interval = GlucoseSeries(readings: log.glucose).interval
        let end = last.addingTimeInterval(interval)
        let start = max(first, end.addingTimeInterval(-days * 86_400))
        let series = GlucoseSeries(readings: log.glucose, period: DateInterval(start: start, end: end))
        return CGMMetricsReport(patient: log.patient, metrics: CGMMetrics(series: series))
    }
}
