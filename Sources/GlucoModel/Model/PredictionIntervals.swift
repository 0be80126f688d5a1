import Foundation

/// Split-conformal prediction intervals of one model (docs/accuracy.md, "Prediction intervals"; Lei et al. 2018):
/// `prediction ± q`, with `q` from the absolute residuals on calibration rows never used for
/// fitting (the validation days).
///
/// With `n` calibration residuals, the `1 - alpha` half-width is the `k`-th smallest,
/// `k = ceil((n + 1)(1 - alpha))`: if calibration and future rows are exchangeable, coverage is at
/// least `1 - alpha`. When `k > n` no residual is large enough for that guarantee, and there is no
/// finite interval (`quantile` returns nil).
///
/// Errors are not exchangeable across glucose levels (larger when glucose is high and moving), so
/// the half-widths are conditional on the glucose **at the moment of prediction** (`G0`), in the
/// bands `< 70`, `70-180` and `> 180` mg/dL. The trainer's intervals are *normalised* conformal
/// (Papadopoulos et al. 2008; Lei et al. 2018): each band has a scale `s`, the mean absolute residual of its rows on the
/// training days (fitted there, so independent of the calibration rows), and one quantile `q` of
/// the scaled validation residuals `|r|/s` over all bands gives each band `q·s`. Every validation
/// row then informs every band, where a band of its own would have a few hours of lows or highs.
/// Without scales (`init(current:predictions:references:)`), a band with at least
/// `minimumBandRows` calibration rows gets its own half-widths and the others the pooled ones.
public struct PredictionIntervals: Codable, Hashable, Sendable {
    /// Band edges (mg/dL): `< 70`, `70 ..< 180`, `>= 180`.
    public static let bandEdges: [Double] = [70, 180]
    /// Calibration rows a band needs for its own half-widths.
    public static let minimumBandRows = 50

    /// Half-widths for the rows of one band of current glucose.
    public struct Band: Codable, Hashable, Sendable {
        /// The band's lower edge (mg/dL, inclusive), nil for the lowest band.
        public var glucoseFrom: Double?
        /// The band's upper edge (mg/dL, exclusive), nil for the highest band.
        public var glucoseTo: Double?
        /// Calibration rows the half-widths come from (the band's own, or all rows when pooled).
        public var n: Int
        /// Whether the band had too few rows and uses the pooled half-widths.
        public var pooled: Bool
        /// Half-widths (mg/dL) of the 80% and 95% intervals.
        public var halfWidth80: Double
        public var halfWidth95: Double
        /// The band's scale (mg/dL) for normalised intervals: the mean absolute training residual of
        /// its rows (all rows when `pooled`); nil for intervals without scales.
        public var scale: Double? = nil
        /// Training rows the scale comes from.
        public var scaleRows: Int? = nil
    }

    /// Each band's scale: the mean absolute residual of the band's rows, or of all rows for a band
    /// with fewer than `minimumBandRows` (`pooled`).
    public struct Scale: Hashable, Sendable {
        public var scale: Double
        public var rows: Int
        public var pooled: Bool
    }

    /// The bands' scales from rows the model was fitted on; nil when a value is not finite, there
    /// are fewer than `minimumBandRows` rows, or a scale is not positive.
    public static func scales(current: [Double], predictions: [Double], references: [Double]) -> [Scale]? {
        precondition(current.count == predictions.count && predictions.count == references.count, "one value per row")
        guard current.count >= minimumBandRows,
              current.allSatisfy(\.isFinite), predictions.allSatisfy(\.isFinite), references.allSatisfy(\.isFinite) else { return nil }
        var sum = [Double](repeating: 0, count: bandEdges.count + 1), rows = [Int](repeating: 0, count: bandEdges.count + 1)
        for ((g, p), y) in zip(zip(current, predictions), references) {
            sum[band(of: g)] += (p - y).magnitude; rows[band(of: g)] += 1
        }
        let pooled = sum.reduce(0, +) / Double(current.count)
        let out = sum.indices.map { i in
            rows[i] >= minimumBandRows ? Scale(scale: sum[i] / Double(rows[i]), rows: rows[i], pooled: false)
                                       : Scale(scale: pooled, rows: current.count, pooled: true)
        }
        return out.allSatisfy({ $0.scale > 0 && $0.scale.isFinite }) ? out : nil
    }

    /// Where the residuals came from (`validation`).
    public var calibration: String
    /// One band per range of current glucose, in glucose order, covering every value.
    public var bands: [Band]
    /// Adaptive intervals (`IntervalAdaptation`): the half-widths follow the misses of the day
    /// before; absent in files written before them, and for intervals without scales.
    public var adaptation: IntervalAdaptation? = nil

    /// The scaled residuals `|r|/s` of `(current glucose, prediction, reference)` rows, `s` their
    /// band's scale: the scores a normalised interval's quantile is taken of.
    public static func scaledScores(current: [Double], predictions: [Double], references: [Double], scales: [Scale]) -> [Double] {
        zip(zip(predictions, references), current).map { pair, g in ((pair.0 - pair.1) / scales[band(of: g)].scale).magnitude }
    }

    /// The `ceil((n + 1)(1 - alpha))`-th smallest of `residuals` (absolute values) for a coverage
    /// of `percent` = 100(1 - alpha), in integers (no rounding of `(n + 1) 0.95`); nil when that
    /// rank exceeds `n` (too few rows for the level) or a residual is not finite.
    public static func quantile(_ residuals: [Double], percent: Int) -> Double? {
        let n = residuals.count
        guard n > 0, (1...99).contains(percent), residuals.allSatisfy(\.isFinite) else { return nil }
        let k = ((n + 1) * percent + 99) / 100
        guard k <= n else { return nil }
        return residuals.map(\.magnitude).sorted()[k - 1]
    }

    /// The band index of a current glucose value.
    public static func band(of glucose: Double) -> Int {
        bandEdges.firstIndex { glucose < $0 } ?? bandEdges.count
    }

    /// The edges of band `i` (mg/dL; nil at the open ends).
    static func edges(ofBand i: Int) -> (from: Double?, to: Double?) {
        (i == 0 ? nil : bandEdges[i - 1], i == bandEdges.count ? nil : bandEdges[i])
    }

    /// The half-widths for a current glucose `current`: its band's.
    public func band(for current: Double) -> Band {
        bands[min(PredictionIntervals.band(of: current), bands.count - 1)]
    }

    /// Normalised intervals: calibrates the scaled residuals `|r|/s` of `(current glucose,
    /// prediction, reference)` rows, `s` the band's scale from `scales`; nil when the rows are too
    /// few for the 95% level (fewer than 19) or hold a non-finite value.
    public init?(current: [Double], predictions: [Double], references: [Double], scales: [Scale],
                 calibration: String = "validation, scaled per band by the training days' mean absolute error") {
        precondition(current.count == predictions.count && predictions.count == references.count, "one value per row")
        precondition(scales.count == PredictionIntervals.bandEdges.count + 1, "one scale per band")
        guard current.allSatisfy(\.isFinite) else { return nil }
        let scaled = PredictionIntervals.scaledScores(current: current, predictions: predictions, references: references, scales: scales)
        guard let q80 = PredictionIntervals.quantile(scaled, percent: 80),
              let q95 = PredictionIntervals.quantile(scaled, percent: 95) else { return nil }
        bands = scales.enumerated().map { i, s in
            let edges = PredictionIntervals.edges(ofBand: i)
            return Band(glucoseFrom: edges.from, glucoseTo: edges.to, n: scaled.count, pooled: s.pooled,
                        halfWidth80: q80 * s.scale, halfWidth95: q95 * s.scale, scale: s.scale, scaleRows: s.rows)
        }
        self.calibration = calibration
    }

    /// Calibrates on `(current glucose, prediction, reference)` rows; nil when even the pooled rows
    /// are too few for the 95% level (`ceil((n+1) 0.95) > n`, i.e. fewer than 19 rows) or hold a
    /// non-finite value.
    public init?(current: [Double], predictions: [Double], references: [Double], calibration: String = "validation") {
        precondition(current.count == predictions.count && predictions.count == references.count, "one value per row")
        let residuals = zip(predictions, references).map { $0 - $1 }
        guard let pooled80 = PredictionIntervals.quantile(residuals, percent: 80),
              let pooled95 = PredictionIntervals.quantile(residuals, percent: 95),
              current.allSatisfy(\.isFinite) else { return nil }
        var byBand = [[Double]](repeating: [], count: PredictionIntervals.bandEdges.count + 1)
        for (g, r) in zip(current, residuals) { byBand[PredictionIntervals.band(of: g)].append(r) }
        bands = byBand.enumerated().map { i, rows in
            let (from, to) = PredictionIntervals.edges(ofBand: i)
            if rows.count >= PredictionIntervals.minimumBandRows,
               let q80 = PredictionIntervals.quantile(rows, percent: 80),
               let q95 = PredictionIntervals.quantile(rows, percent: 95) {
                return Band(glucoseFrom: from, glucoseTo: to, n: rows.count, pooled: false, halfWidth80: q80, halfWidth95: q95)
            }
            return Band(glucoseFrom: from, glucoseTo: to, n: residuals.count, pooled: true, halfWidth80: pooled80, halfWidth95: pooled95)
        }
        self.calibration = calibration
    }

    /// The 80% and 95% intervals around `prediction` for a current glucose `current`, clamped to
    /// the plausible range like the prediction itself.
    public func interval(prediction: Double, current: Double) -> (lower80: Double, upper80: Double, lower95: Double, upper95: Double) {
        let b = band(for: current)
        return Self.interval(prediction: prediction, halfWidths: (b.halfWidth80, b.halfWidth95))
    }

    /// The intervals of given half-widths (`IntervalAdaptation.halfWidths`; `infinity`: the
    /// plausible range), clamped to the plausible range.
    public static func interval(prediction: Double, halfWidths h: (h80: Double, h95: Double))
        -> (lower80: Double, upper80: Double, lower95: Double, upper95: Double) {
        let c = GlucoseModel.clamp
        return (c(prediction - h.h80), c(prediction + h.h80), c(prediction - h.h95), c(prediction + h.h95))
    }

    /// The bands' scales, for `IntervalAdaptation.halfWidths`; nil for intervals without scales.
    public var scales: [Double]? {
        let s = bands.compactMap(\.scale)
        return s.count == bands.count ? s : nil
    }

    /// The half-widths of a model's feature-table rows `targets` (`current`: the table's `G0`;
    /// `predictions`: the evolved model's), each row's outcome its target: `halfWidths(_:targets:horizonMinutes:)`.
    public func halfWidths(_ table: FeatureTable, series: PatientSeries, current: [Double], predictions: [Double],
                           targets: Range<Int>, horizonMinutes: Int) -> [(h80: Double, h95: Double)] {
        let rows = (0..<table.rowCount).map { r in
            IntervalAdaptation.Row(time: series.time(at: table.steps[r]), current: current[r], prediction: predictions[r],
                                   reference: table.targets[r])
        }
        return halfWidths(rows, targets: targets, horizonMinutes: horizonMinutes)
    }

    /// The half-widths of `rows[targets]` (`rows` in time order) for a horizon: adaptive when the
    /// intervals have an adaptation, else each row's band's.
    public func halfWidths(_ rows: [IntervalAdaptation.Row], targets: Range<Int>, horizonMinutes: Int) -> [(h80: Double, h95: Double)] {
        if let adaptation, let scales {
            return adaptation.halfWidths(rows, targets: targets, scales: scales, horizonMinutes: horizonMinutes)
        }
        return rows[targets].map { row in
            guard row.current.isFinite else { return (.nan, .nan) }
            let b = band(for: row.current)
            return (b.halfWidth80, b.halfWidth95)
        }
    }

    /// Measured coverage and mean width on some rows (e.g. the test days): the fraction of rows
    /// whose reference lies within the interval, and the mean full width (mg/dL), per level; and
    /// the coverage within each band of the glucose at the moment of prediction (the bands the
    /// half-widths are conditioned on).
    public func score(current: [Double], predictions: [Double], references: [Double]) -> IntervalScore {
        let halfWidths = current.map { g in g.isFinite ? (band(for: g).halfWidth80, band(for: g).halfWidth95) : (Double.nan, Double.nan) }
        return Self.score(current: current, predictions: predictions, references: references, halfWidths: halfWidths)
    }

    /// The same with each row's half-widths given (`halfWidths(_:targets:horizonMinutes:)`).
    public static func score(current: [Double], predictions: [Double], references: [Double],
                             halfWidths: [(h80: Double, h95: Double)]) -> IntervalScore {
        precondition(current.count == halfWidths.count, "one pair of half-widths per row")
        let bandCount = PredictionIntervals.bandEdges.count + 1
        var rows = [Int](repeating: 0, count: bandCount), in80 = rows, in95 = rows
        var width80 = 0.0, width95 = 0.0, score80 = 0.0, score95 = 0.0
        for (((g, p), y), h) in zip(zip(zip(current, predictions), references), halfWidths)
        where g.isFinite && p.isFinite && y.isFinite && !h.h80.isNaN && !h.h95.isNaN {
            let i = interval(prediction: p, halfWidths: h)
            let b = PredictionIntervals.band(of: g)
            rows[b] += 1
            if y >= i.lower80 && y <= i.upper80 { in80[b] += 1 }
            if y >= i.lower95 && y <= i.upper95 { in95[b] += 1 }
            width80 += i.upper80 - i.lower80
            width95 += i.upper95 - i.lower95
            score80 += IntervalScore.score(lower: i.lower80, upper: i.upper80, alpha: 0.2, reference: y)
            score95 += IntervalScore.score(lower: i.lower95, upper: i.upper95, alpha: 0.05, reference: y)
        }
        func percent(_ k: Int, _ n: Int) -> Double { n > 0 ? 100 * Double(k) / Double(n) : .nan }
        let n = rows.reduce(0, +)
        let bands = (0..<bandCount).map { IntervalScore.BandCoverage(n: rows[$0], coverage80: percent(in80[$0], rows[$0]),
                                                                       coverage95: percent(in95[$0], rows[$0])) }
        guard n > 0 else {
            return IntervalScore(n: 0, coverage80: .nan, coverage95: .nan, width80: .nan, width95: .nan, bands: bands,
                                 intervalScore80: .nan, intervalScore95: .nan)
        }
        let d = Double(n)
        return IntervalScore(n: n, coverage80: percent(in80.reduce(0, +), n), coverage95: percent(in95.reduce(0, +), n),
                             width80: width80 / d, width95: width95 / d, bands: bands,
                             intervalScore80: score80 / d, intervalScore95: score95 / d)
    }

    /// The checks a model file's intervals must pass (`GlucoseModel.validated`): a band per range in
    /// order, finite non-negative half-widths with the 95% one at least the 80% one, `n` positive.
    func problem() -> (field: String, reason: String)? {
        let edges = PredictionIntervals.bandEdges
        guard bands.count == edges.count + 1 else {
            return ("intervals.bands", "\(bands.count) bands; expected \(edges.count + 1) (glucose < 70, 70-180, >= 180)")
        }
        for (i, b) in bands.enumerated() {
            let (from, to) = PredictionIntervals.edges(ofBand: i)
            guard b.glucoseFrom == from, b.glucoseTo == to else {
                return ("intervals.bands[\(i)]", "edges \(b.glucoseFrom.map { "\($0)" } ?? "none")-\(b.glucoseTo.map { "\($0)" } ?? "none"); expected \(from.map { "\($0)" } ?? "none")-\(to.map { "\($0)" } ?? "none")")
            }
            guard b.n > 0 else { return ("intervals.bands[\(i)].n", "\(b.n); expected 1 or more") }
            guard b.halfWidth80.isFinite, b.halfWidth80 >= 0, b.halfWidth80 <= 1000 else {
                return ("intervals.bands[\(i)].halfWidth80", "\(b.halfWidth80); expected 0-1000 mg/dL")
            }
            guard b.halfWidth95.isFinite, b.halfWidth95 >= b.halfWidth80, b.halfWidth95 <= 1000 else {
                return ("intervals.bands[\(i)].halfWidth95", "\(b.halfWidth95); expected halfWidth80-1000 mg/dL")
            }
            if let scale = b.scale, !(scale.isFinite && scale > 0 && scale <= 1000) {
                return ("intervals.bands[\(i)].scale", "\(scale); expected more than 0 and at most 1000 mg/dL")
            }
            if let rows = b.scaleRows, rows < 1 { return ("intervals.bands[\(i)].scaleRows", "\(rows); expected 1 or more") }
        }
        if let adaptation {
            guard scales != nil else { return ("intervals.adaptation", "adaptive intervals need every band's scale") }
            if let problem = adaptation.problem(rows: bands[0].n) { return problem }
        }
        return nil
    }
}

/// Measured coverage (%) and mean width (mg/dL) of the 80% and 95% intervals on some rows.
public struct IntervalScore: Hashable, Sendable {
    public var n: Int
    public var coverage80: Double
    public var coverage95: Double
    public var width80: Double
    public var width95: Double
    /// Per band of the glucose at the moment of prediction (< 70, 70-180, >= 180 mg/dL): rows
    /// and coverage (%, NaN for a band without rows).
    public var bands: [BandCoverage]
    /// The mean interval score (uncertainty.md): `width + (2 / alpha) * distance outside`, the
    /// distance by which the reference misses the interval (0 inside), alpha 0.2 and 0.05 (mg/dL;
    /// lower is better: a narrow interval that holds the reference).
    public var intervalScore80: Double
    public var intervalScore95: Double

    /// One row's interval score.
    static func score(lower: Double, upper: Double, alpha: Double, reference y: Double) -> Double {
        (upper - lower) + 2 / alpha * max(0, lower - y, y - upper)
    }

    public struct BandCoverage: Hashable, Sendable {
        public var n: Int
        public var coverage80: Double
        public var coverage95: Double
    }
}
