import Foundation

/// Adaptive conformal intervals (Gibbs and Candès 2021), replayed over a window: how a model's
/// intervals follow the misses of its recent predictions (docs/accuracy.md, "Adaptive intervals").
///
/// The static intervals take the `ceil((n + 1) p)`-th smallest scaled validation residual
/// (`PredictionIntervals`). Here each band of the glucose now keeps a miss rate `alpha` per level,
/// starting at the nominal `1 - p`: a row's half-width is the `ceil((n + 1)(1 - alpha))`-th
/// smallest score times its band's scale (none finite once that rank passes `n`: the plausible
/// range; 0 once it is below 1), and when a row's outcome is known (its horizon later), its band's
/// `alpha` moves by `gamma (1 - p - missed)`. A band that misses more often than nominal widens,
/// one that covers more narrows.
///
/// A row's `alpha` is replayed from nominal over the rows issued in the `windowMinutes` before it
/// whose outcome is known by its issue time, so its interval depends on that window of the series
/// only: `predict` gives a moment the same interval whatever period it is asked for, and `nightly`
/// needs no state from one night to the next.
public struct IntervalAdaptation: Codable, Hashable, Sendable {
    /// The window a row's miss rates are replayed over (minutes).
    public var windowMinutes: Int
    /// The steps of the 80% and 95% levels' miss rates.
    public var gamma80: Double
    public var gamma95: Double
    /// The validation rows' scaled absolute residuals `|r| / scale` of their band, ascending: the
    /// scores the static half-widths are quantiles of.
    public var scores: [Double]

    /// The trainer's settings: a day's window, `gamma` 0.01 at 80% and 0.0025 at 95% (a quarter:
    /// the 95% level's miss rate is a quarter of the 80% one's, and a step as large would take it
    /// past 0, to the plausible range, after a few misses). Measured on the trainer's predictions
    /// (scripts/measure-adaptive-intervals.py, docs/accuracy.md).
    public static func standard(scores: [Double]) -> IntervalAdaptation {
        IntervalAdaptation(windowMinutes: 24 * 60, gamma80: 0.01, gamma95: 0.0025, scores: scores.sorted())
    }

    /// The `ceil((n + 1)(1 - alpha))`-th smallest score: `infinity` past `n`, 0 below 1.
    func score(missRate alpha: Double) -> Double {
        let n = scores.count
        let k = Int(((Double(n) + 1) * (1 - alpha) - 1e-9).rounded(.up))
        if k > n { return .infinity }
        return k < 1 ? 0 : scores[k - 1]
    }

    /// One row of a model's predictions in time order: its issue time, the glucose now (its band),
    /// the prediction, and the glucose measured the horizon later (NaN when not known).
    public struct Row: Sendable, Equatable {
        public var time: Date
        public var current: Double
        public var prediction: Double
        public var reference: Double
        public init(time: Date, current: Double, prediction: Double, reference: Double) {
            self.time = time; self.current = current; self.prediction = prediction; self.reference = reference
        }
    }

    /// The 80% and 95% half-widths (mg/dL; `infinity` for the plausible range; the 95% one at least
    /// the 80% one) of `rows[targets]`, `rows` in time order, `scales` the bands' (`PredictionIntervals.Band.scale`), for a horizon
    /// of `horizonMinutes`. A row whose glucose now or prediction is not finite gets NaN, and counts
    /// in no replay.
    /// - Complexity: O(targets × rows in a window).
    public func halfWidths(_ rows: [Row], targets: Range<Int>, scales: [Double], horizonMinutes: Int) -> [(h80: Double, h95: Double)] {
        precondition(scales.count == PredictionIntervals.bandEdges.count + 1, "one scale per band")
        let horizon = Double(horizonMinutes) * 60, window = Double(windowMinutes) * 60
        // Read once: every target replays up to a day of these rows.
        let times = rows.map { $0.time.timeIntervalSince1970 }
        let bands = rows.map { $0.current.isFinite ? PredictionIntervals.band(of: $0.current) : -1 }
        // A row's error against its prediction, NaN where it has no outcome; inside an interval of
        // half-width h (clamped to the plausible range) exactly when the error is at most h, for a
        // reference within the plausible range (a reference beyond it is never inside: +infinity).
        let errors = rows.map { row -> Double in
            guard row.prediction.isFinite, row.reference.isFinite else { return .nan }
            return GlucoseModel.plausibleRange.contains(row.reference) ? (row.reference - row.prediction).magnitude : .infinity
        }
        var replay = Replay(bands: scales.count)
        var start = 0
        var out: [(h80: Double, h95: Double)] = []
        out.reserveCapacity(targets.count)
        for i in targets {
            guard bands[i] >= 0, rows[i].prediction.isFinite else { out.append((.nan, .nan)); continue }
            let t = times[i]
            while times[start] < t - window { start += 1 }
            replay.run(self, errors, times, bands, start..<i, before: t, scales: scales, horizon: horizon)
            let b = bands[i]
            let h80 = score(missRate: replay.alpha80[b]) * scales[b]
            // Each level adapts on its own, so misses between the two widths can take the 80% level
            // past the 95% one: the 95% interval is never the narrower (it holds the 80% one).
            out.append((h80, max(h80, score(missRate: replay.alpha95[b]) * scales[b])))
        }
        return out
    }

    /// Each band's miss rates at time `t`, replayed from nominal over `rows[window]` whose outcome is
    /// known by `t` (issued a horizon or more before it, reference finite): each such row's interval
    /// uses its band's rates when it was issued (the updates of rows whose outcome was known by then
    /// applied), and its misses update its band's rates. Its buffers are kept from target to target.
    struct Replay {
        var alpha80: [Double], alpha95: [Double]
        /// Rows whose outcome is not yet applied: in issue order, which is also outcome order (one horizon).
        var known: [Double] = [], band: [Int] = [], missed80: [Double] = [], missed95: [Double] = []

        init(bands: Int) { alpha80 = Array(repeating: 0.2, count: bands); alpha95 = Array(repeating: 0.05, count: bands) }

        mutating func run(_ a: IntervalAdaptation, _ errors: [Double], _ times: [Double], _ bands: [Int], _ window: Range<Int>,
                          before t: Double, scales: [Double], horizon: Double) {
            for b in alpha80.indices { alpha80[b] = 0.2; alpha95[b] = 0.05 }
            guard a.gamma80 != 0 || a.gamma95 != 0 else { return }
            known.removeAll(keepingCapacity: true); band.removeAll(keepingCapacity: true)
            missed80.removeAll(keepingCapacity: true); missed95.removeAll(keepingCapacity: true)
            var next = 0
            func apply(_ k: Int) {
                alpha80[band[k]] += a.gamma80 * (0.2 - missed80[k])
                alpha95[band[k]] += a.gamma95 * (0.05 - missed95[k])
            }
            for j in window {
                let issued = times[j]
                guard issued + horizon <= t else { break }
                let b = bands[j], error = errors[j]
                guard b >= 0, !error.isNaN else { continue }
                while next < known.count, known[next] <= issued { apply(next); next += 1 }
                known.append(issued + horizon); band.append(b)
                missed80.append(error <= a.score(missRate: alpha80[b]) * scales[b] ? 0 : 1)
                missed95.append(error <= a.score(missRate: alpha95[b]) * scales[b] ? 0 : 1)
            }
            while next < known.count { apply(next); next += 1 }
        }
    }

    /// The checks a model file's adaptation must pass (`PredictionIntervals.problem`).
    func problem(rows n: Int) -> (field: String, reason: String)? {
        guard (60...(14 * 24 * 60)).contains(windowMinutes) else {
            return ("intervals.adaptation.windowMinutes", "\(windowMinutes); expected 60-20160")
        }
        for (name, gamma) in [("gamma80", gamma80), ("gamma95", gamma95)] where !(gamma.isFinite && gamma >= 0 && gamma <= 1) {
            return ("intervals.adaptation.\(name)", "\(gamma); expected 0-1")
        }
        guard scores.count == n else { return ("intervals.adaptation.scores", "\(scores.count) scores; expected \(n), one per calibration row") }
        guard scores.allSatisfy({ $0.isFinite && $0 >= 0 }), zip(scores, scores.dropFirst()).allSatisfy({ $0 <= $1 }) else {
            return ("intervals.adaptation.scores", "expected finite non-negative scores in ascending order")
        }
        return nil
    }
}
