extension CGMMetrics {
    /// `rows` with every glucose figure in `units`: mean, SD, MODD and CONGA converted
    /// (`GlucoseUnit.convert`, one more decimal in mmol/L), and the range labels' thresholds
    /// printed in `units` (`GlucoseUnit.consensusRanges`).
    public func rows(units: GlucoseUnit) -> [MetricRow] {
        guard units != .mgdL else { return rows }
        let ranges = units.consensusRanges
        let labels: [String: String] = [
            "tbr2": "TBR level 2 (\(ranges[0]))", "tbr1": "TBR level 1 (\(ranges[1]))", "tir": "TIR (\(ranges[2]))",
            "tar1": "TAR level 1 (\(ranges[3]))", "tar2": "TAR level 2 (\(ranges[4]))",
            "hypo_episodes": "Hypo episodes (<\(units.format(70)), >=15 min)", "hypo2_episodes": "Level 2 hypo episodes (<\(units.format(54)))",
        ]
        return rows.map { row in
            var r = row
            if let label = labels[row.key] { r.label = label }
            if row.unit == GlucoseUnit.mgdL.rawValue {
                r.value = units.convert(row.value)
                r.unit = units.rawValue
                r.decimals = units.decimals(mgdL: row.decimals)
            }
            return r
        }
    }
}
