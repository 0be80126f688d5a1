import Foundation

/// The CGM metrics of a clinician report (docs/report.md): 2019 International Consensus
/// on Time in Range (Battelino et al., Diabetes Care 2019) and the iglu package's formulas.
///
/// Ranges (mg/dL), as fractions of the readings: TBR level 2 `G < 54`; TBR level 1 `54 <= G < 70`
/// (54-69 for whole mg/dL); TIR `70 <= G < 180.5` (70-180); TAR level 1 `180.5 <= G < 250.5`
/// (181-250); TAR level 2 `G >= 250.5`. The upper bounds lie half a mg/dL above the consensus's
/// so that its ranges in mmol/L hold too: a reading of 10.0 mmol/L is 180.16 mg/dL, in its range
/// 3.9-10.0, and 13.9 is 250.42, in level 1's 10.1-13.9 (hunt AD, stop 56: counted above, TIR
/// read 88.6% for 89.5%). Whole mg/dL count as iglu counts them; the lower bounds need no such
/// half (3.9 mmol/L is 70.26 mg/dL, 3.0 is 54.05). SD is the sample SD (n - 1), as iglu. Metrics that need more
/// readings than there are are NaN.
public struct CGMMetrics: Sendable {
    public var period: DateInterval
    /// Inferred reading interval, seconds (see `GlucoseSeries.interval`).
    public var readingInterval: Double
    public var readingsPresent: Int
    /// `period / readingInterval`, rounded to the nearest whole reading.
    public var readingsExpected: Int
    /// The readings that cover time (`GlucoseSeries.coveringCount`): in time order, a reading
    /// within half a reading interval of the last one counted is not counted again, so two
    /// readings in one interval (a device clock set back over readings already there, two
    /// sensors at once) cover that interval once. Equal to `readingsPresent` for readings at
    /// the device interval, with or without gaps.
    public var readingsCovering: Int
    public var days: Double
    /// `100 * covering / expected`, capped at 100: the share of the period's reading intervals
    /// that hold a reading.
    public var percentActive: Double
    public var mean: Double
    public var sd: Double
    /// Glucose management indicator, %: `3.31 + 0.02392 * mean`.
    public var gmi: Double
    /// Coefficient of variation, %: `100 * SD / mean`.
    public var cv: Double
    public var tbrLevel2: Double, tbrLevel1: Double, tir: Double, tarLevel1: Double, tarLevel2: Double
    /// Low and high blood glucose indices: `f = 1.509 (ln(G)^1.084 - 5.381)`, `r = 10 f^2`;
    /// LBGI = mean over all readings of `r` where `f < 0` (0 elsewhere); HBGI likewise for `f > 0`.
    public var lbgi: Double, hbgi: Double
    /// Glycaemia risk index: `3.0 VLow + 2.4 Low + 1.6 VHigh + 0.8 High` (percentages), capped at 100.
    public var gri: Double
    /// Mean absolute difference between readings 24 h apart (`GlucoseSeries.pairs`).
    public var modd: Double
    public var congaHours: Double
    /// Sample SD of the differences between readings `congaHours` apart.
    public var conga: Double
    /// `0.001 (mean + SD)^2`.
    public var jIndex: Double
    public var hypoLevel1: EpisodeSummary
    public var hypoLevel2: EpisodeSummary
    /// Runs at the sensor's floor or ceiling and flat lines (`SensorLimitDetector`): flagged,
    /// still counted above (a long true low must stay visible).
    public var sensorLimitRuns: [SensorLimitRun]
    /// `100 * readings in sensorLimitRuns / readingsPresent`.
    public var sensorLimitPercent: Double

    /// The least glucose above the range (mg/dL): 180 and 10.0 mmol/L are in it (the type's comment).
    public static let aboveRange = 180.5
    /// The least glucose of TAR level 2 (mg/dL): 250 and 13.9 mmol/L are below it.
    public static let veryHigh = 250.5

    public init(series s: GlucoseSeries, congaHours: Double = 1) {
        period = s.period
        readingInterval = s.interval
        readingsPresent = s.count
        readingsExpected = Int((s.period.duration / s.interval).rounded())
        readingsCovering = s.coveringCount
        days = s.period.duration / 86_400
        percentActive = readingsExpected == 0 ? .nan : min(100, 100 * Double(readingsCovering) / Double(readingsExpected))
        let v = s.values
        mean = Statistics.mean(v)
        sd = Statistics.sampleSD(v)
        gmi = 3.31 + 0.02392 * mean
        cv = 100 * sd / mean
        let n = Double(v.count)
        func percent(_ inRange: (Double) -> Bool) -> Double {
            v.isEmpty ? .nan : 100 * Double(v.count(where: inRange)) / n
        }
        tbrLevel2 = percent { $0 < 54 }
        tbrLevel1 = percent { $0 >= 54 && $0 < 70 }
        tir = percent { $0 >= 70 && $0 < Self.aboveRange }
        tarLevel1 = percent { $0 >= Self.aboveRange && $0 < Self.veryHigh }
        tarLevel2 = percent { $0 >= Self.veryHigh }
        var low = 0.0, high = 0.0
        for g in v {
            let f = 1.509 * (pow(log(g), 1.084) - 5.381)
            if f < 0 { low += 10 * f * f } else if f > 0 { high += 10 * f * f }
        }
        lbgi = v.isEmpty ? .nan : low / n
        hbgi = v.isEmpty ? .nan : high / n
        // Capped at 100; NaN with no readings (`min(100, .nan)` is 100, the worst score).
        let risk = 3.0 * tbrLevel2 + 2.4 * tbrLevel1 + 1.6 * tarLevel2 + 0.8 * tarLevel1
        gri = risk.isNaN ? .nan : min(100, risk)
        let day = s.pairs(lag: 86_400)
        modd = day.isEmpty ? .nan : day.reduce(0) { $0 + abs($1.1 - $1.0) } / Double(day.count)
        self.congaHours = congaHours
        conga = Statistics.sampleSD(s.pairs(lag: congaHours * 3600).map { $0.1 - $0.0 })
        jIndex = 0.001 * (mean + sd) * (mean + sd)
        hypoLevel1 = EpisodeSummary(series: s, below: 70)
        hypoLevel2 = EpisodeSummary(series: s, below: 54)
        sensorLimitRuns = SensorLimitDetector().runs(times: s.times.map(Date.init(timeIntervalSinceReferenceDate:)), values: v)
        sensorLimitPercent = v.isEmpty ? .nan : 100 * Double(sensorLimitRuns.readingCount) / n
    }

    public init(readings: [GlucoseReading], period: DateInterval? = nil, congaHours: Double = 1) {
        self.init(series: GlucoseSeries(readings: readings, period: period), congaHours: congaHours)
    }
}

/// A consensus target a metric is compared with.
public struct MetricTarget: Hashable, Sendable, Codable {
    public enum Comparison: String, Sendable, Codable { case below = "<", atMost = "<=", atLeast = ">=", above = ">" }
    public var comparison: Comparison
    public var limit: Double
    /// e.g. "< 4%".
    public var description: String

    public func isMet(by value: Double) -> Bool? {
        guard !value.isNaN else { return nil }
        switch comparison {
        case .below: return value < limit
        case .atMost: return value <= limit
        case .atLeast: return value >= limit
        case .above: return value > limit
        }
    }
}

/// One line of a metrics report.
public struct MetricRow: Sendable {
    public var key: String
    public var label: String
    public var value: Double
    public var unit: String
    public var decimals: Int
    public var target: MetricTarget?
    /// What the target is judged on when it is not the row's value: TBR level 1's "< 4%" counts the
    /// time below 54 too (the consensus: below 70, level 2 included), as TAR level 1's "< 25%" counts
    /// the time above 250.
    public var judged: Double? = nil

    /// Whether the target is met, judged on the value as printed (to `decimals`), as the report
    /// judges it: 13.997 days print "14.0" and meet ">= 14 d"; a CV of 36.03 prints "36.0" and meets "<= 36%".
    public var met: Bool? {
        target?.isMet(by: printedValue(judged ?? value, decimals: decimals))
    }
}

extension CGMMetrics {
    static func target(_ c: MetricTarget.Comparison, _ limit: Double, _ unit: String) -> MetricTarget {
        MetricTarget(comparison: c, limit: limit, description: "\(c.rawValue) \(formatNumber(limit, decimals: limit.rounded() == limit ? 0 : 1))\(unit)")
    }

    /// The report's rows, in the order of the consensus report, with the consensus targets
    /// where there is one (TIR > 70% is the adult target; > 50% for older or high-risk people).
    public var rows: [MetricRow] {
        let longest1 = (hypoLevel1.longest?.duration ?? 0) / 60, longest2 = (hypoLevel2.longest?.duration ?? 0) / 60
        return [
            MetricRow(key: "days", label: "Days", value: days, unit: "d", decimals: 1, target: Self.target(.atLeast, 14, " d")),
            MetricRow(key: "cgm_active", label: "CGM active", value: percentActive, unit: "%", decimals: 1, target: Self.target(.atLeast, 70, "%")),
            MetricRow(key: "readings", label: "Readings", value: Double(readingsPresent), unit: "", decimals: 0),
            MetricRow(key: "interval_min", label: "Reading interval", value: readingInterval / 60, unit: "min", decimals: 1),
            MetricRow(key: "mean", label: "Mean glucose", value: mean, unit: "mg/dL", decimals: 1),
            MetricRow(key: "sd", label: "SD", value: sd, unit: "mg/dL", decimals: 1),
            MetricRow(key: "gmi", label: "GMI", value: gmi, unit: "%", decimals: 2),
            MetricRow(key: "cv", label: "CV", value: cv, unit: "%", decimals: 1, target: Self.target(.atMost, 36, "%")),
            MetricRow(key: "tbr2", label: "TBR level 2 (<54)", value: tbrLevel2, unit: "%", decimals: 1, target: Self.target(.below, 1, "%")),
            MetricRow(key: "tbr1", label: "TBR level 1 (54-69)", value: tbrLevel1, unit: "%", decimals: 1,
                      target: Self.target(.below, 4, "% with level 2"), judged: tbrLevel1 + tbrLevel2),
            MetricRow(key: "tir", label: "TIR (70-180)", value: tir, unit: "%", decimals: 1, target: Self.target(.above, 70, "%")),
            MetricRow(key: "tar1", label: "TAR level 1 (181-250)", value: tarLevel1, unit: "%", decimals: 1,
                      target: Self.target(.below, 25, "% with level 2"), judged: tarLevel1 + tarLevel2),
            MetricRow(key: "tar2", label: "TAR level 2 (>250)", value: tarLevel2, unit: "%", decimals: 1, target: Self.target(.below, 5, "%")),
            MetricRow(key: "lbgi", label: "LBGI", value: lbgi, unit: "", decimals: 2, target: Self.target(.below, 2.5, "")),
            MetricRow(key: "hbgi", label: "HBGI", value: hbgi, unit: "", decimals: 2),
            MetricRow(key: "gri", label: "GRI", value: gri, unit: "", decimals: 1),
            MetricRow(key: "modd", label: "MODD", value: modd, unit: "mg/dL", decimals: 1),
            MetricRow(key: "conga", label: "CONGA(\(formatNumber(congaHours, decimals: 0)))", value: conga, unit: "mg/dL", decimals: 1),
            MetricRow(key: "j_index", label: "J-index", value: jIndex, unit: "", decimals: 1),
            MetricRow(key: "hypo_episodes", label: "Hypo episodes (<70, >=15 min)", value: Double(hypoLevel1.count), unit: "", decimals: 0),
            MetricRow(key: "hypo_longest_min", label: "Longest hypo episode", value: longest1, unit: "min", decimals: 0),
            MetricRow(key: "hypo2_episodes", label: "Level 2 hypo episodes (<54)", value: Double(hypoLevel2.count), unit: "", decimals: 0),
            MetricRow(key: "hypo2_longest_min", label: "Longest level 2 episode", value: longest2, unit: "min", decimals: 0),
            MetricRow(key: "sensor_limit_pct", label: "Readings at sensor limits or flat", value: sensorLimitPercent, unit: "%", decimals: 1,
                      target: Self.target(.atMost, 0, "%")),
        ]
    }
}
