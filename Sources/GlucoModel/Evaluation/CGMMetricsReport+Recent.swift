import Foundation

extension CGMMetricsReport {
    /// The CGM metrics of the last `days` days of a patient's CGM readings, or nil without CGM
    /// readings (`log.cgmReadings`).
    ///
    /// Finger sticks are not counted, as the report does not count them: 75 meter readings
    /// confirming lows over 4 days moved time below 54 mg/dL from 1.8 to 3.4% here, where the
    /// report of the same days said 1.8% (hunt BW).
    ///
    /// The period ends one reading interval after the last reading (so that reading counts, as
    /// `GlucoseSeries` does for a whole log) and starts `days` days earlier, or at the first
    /// reading when the data is shorter: days without any data are not counted as missing.
    public static func recent(_ log: PatientLog, days: Double) -> CGMMetricsReport? {
        let cgm = log.cgmReadings
        guard let first = cgm.first?.time, let last = cgm.last?.time else { return nil }
        let interval = GlucoseSeries(readings: cgm).interval
        let end = last.addingTimeInterval(interval)
        let start = max(first, end.addingTimeInterval(-days * 86_400))
        let series = GlucoseSeries(readings: cgm, period: DateInterval(start: start, end: end))
        return CGMMetricsReport(patient: log.patient, metrics: CGMMetrics(series: series))
    }
}
