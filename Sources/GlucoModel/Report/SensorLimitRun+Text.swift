extension SensorLimitRun {
    /// `at the sensor floor (39 mg/dL) 2026-01-05 10:00 to 2026-01-07 09:00 (47.0 h, 565 readings)`.
    public func describe(clock: ReportClock, units: GlucoseUnit = .mgdL) -> String {
        let what: String
        switch kind {
        case .floor: what = "at the sensor floor"
        case .ceiling: what = "at the sensor ceiling"
        case .flat: what = "flat line"
        }
        return "\(what) (\(units.withUnit(value))) \(clock.dateTime(start)) to \(clock.dateTime(end)) "
            + "(\(formatNumber(duration / 3600, decimals: 1)) h, \(readings) readings)"
    }
}
