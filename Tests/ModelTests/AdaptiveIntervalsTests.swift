import Foundation
import Testing
@testable import GlucoModel

/// `IntervalAdaptation`: the miss rates replayed by hand, the static quantile at the nominal rate,
/// and coverage regained where the errors grow after calibration.
@Suite struct AdaptiveIntervalsTests {
    static let t0 = Date(timeIntervalSince1970: 1_767_571_200)
    static func row(_ minute: Double, current: Double = 100, prediction: Double = 100, reference: Double) -> IntervalAdaptation.Row {
        IntervalAdaptation.Row(time: t0.addingTimeInterval(minute * 60), current: current, prediction: prediction, reference: reference)
    }

    /// Scores 1...10 (n = 10), scales 2, 1, 3, gamma 0.1 at 80%, a 30-minute horizon. At the nominal
    /// 0.2 the rank is ceil(11 · 0.8) = 9: half-width 9. A miss moves the band's rate to
    /// 0.2 + 0.1 (0.2 - 1) = 0.12: rank ceil(11 · 0.88) = 10, half-width 10; a second to 0.04: rank
    /// ceil(10.56) = 11 > 10, the plausible range. Four hits from nominal: 0.28, rank ceil(7.92) = 8.
    @Test func missRatesReplayedByHand() {
        let a = IntervalAdaptation(windowMinutes: 24 * 60, gamma80: 0.1, gamma95: 0, scores: (1...10).map(Double.init))
        let scales = [2.0, 1, 3]  // band 70-180 (the rows at 100 mg/dL): 1
        let rows = [
            Self.row(0, reference: 120),                 // 0: half 9, misses by 20
            Self.row(25, reference: 100),                // 1: row 0's outcome not known (0 + 30 > 25): half 9
            Self.row(30, reference: 115),                // 2: row 0 missed: half 10; misses by 15
            Self.row(60, reference: 100),                // 3: rows 0 and 2 missed (row 1 hit at 55): 0.04 + 0.02 = 0.06: rank ceil(10.34) = 11: range
            Self.row(60, current: 200, reference: 200),  // 4: band >= 180 untouched: 9 · 3
            Self.row(60 + 24 * 60, reference: 100),      // 5: a day later only rows 3 and 4 are in its window, both hits: 0.22, rank ceil(8.58) = 9
        ]
        let h = a.halfWidths(rows, targets: 0..<rows.count, scales: scales, horizonMinutes: 30).map(\.h80)
        #expect(h == [9, 9, 10, .infinity, 27, 9])
        // Hits only: 0.2 + 0.1 · 0.2 per hit; after four, rank 8.
        let hits = (0..<5).map { Self.row(Double($0) * 30, reference: 100) }
        #expect(a.halfWidths(hits, targets: 0..<5, scales: scales, horizonMinutes: 30).map(\.h80) == [9, 9, 9, 9, 8])
        // The 95% level with gamma 0 stays at its static rank, ceil(11 · 0.95) = 11 > 10: the plausible range.
        #expect(a.halfWidths(rows, targets: 0..<rows.count, scales: scales, horizonMinutes: 30).allSatisfy { $0.h95 == .infinity })
        // A row without a glucose now gets none, and counts in no replay.
        let gap = [Self.row(0, current: .nan, reference: 300), Self.row(30, reference: 100)]
        let g = a.halfWidths(gap, targets: 0..<2, scales: scales, horizonMinutes: 30)
        #expect(g[0].h80.isNaN && g[1].h80 == 9)
    }

    /// Each level adapts on its own, but the 95% interval is never narrower than the 80% one. Scores
    /// 1...20 (n = 20), gamma 0.1 at 80% and 0 at 95%: the 95% rank stays ceil(21 · 0.95) = 20,
    /// half-width 20. The 80% rank starts at ceil(21 · 0.8) = 17; a miss takes its rate to 0.12, rank
    /// ceil(18.48) = 19; a second to 0.04, rank ceil(20.16) = 21 > 20: the plausible range, which the
    /// 95% interval then takes too (alone it would stay 20).
    @Test func the95IntervalHoldsThe80One() {
        let a = IntervalAdaptation(windowMinutes: 24 * 60, gamma80: 0.1, gamma95: 0, scores: (1...20).map(Double.init))
        let rows = [Self.row(0, reference: 130), Self.row(30, reference: 130), Self.row(60, reference: 100)]
        let h = a.halfWidths(rows, targets: 0..<3, scales: [1, 1, 1], horizonMinutes: 30)
        #expect(h.map(\.h80) == [17, 19, .infinity])
        #expect(h.map(\.h95) == [20, 20, .infinity])
        #expect(a.score(missRate: 0.05) == 20)
    }

    /// The interval score of uncertainty.md, `width + (2 / alpha) * distance outside`, worked by hand
    /// (hunt T, stop 53: computed nowhere). Prediction 100, half-widths 10 and 20 (80% [90, 110],
    /// 95% [80, 120]), references 105, 115, 130: at 80% 20 + 10 (0, 5, 20) -> (20, 70, 220), mean
    /// 103.33; at 95% 40 + 40 (0, 0, 10) -> (40, 40, 440), mean 173.33.
    @Test func theIntervalScoreWeighsWidthAgainstMisses() {
        let score = PredictionIntervals.score(current: [100, 100, 100], predictions: [100, 100, 100], references: [105, 115, 130],
                                              halfWidths: Array(repeating: (h80: 10, h95: 20), count: 3))
        #expect(abs(score.intervalScore80 - 310.0 / 3) < 1e-9 && abs(score.intervalScore95 - 520.0 / 3) < 1e-9)
        #expect(score.width80 == 20 && score.width95 == 40 && abs(score.coverage80 - 100.0 / 3) < 1e-9)
        var metrics = SplitMetrics(model: "ge", split: "test", n: 3, rmse: 1, mae: 1, mard: 1, clarkeA: 1, clarkeAB: 1, parkesA: 1, parkesAB: 1)
        metrics.record(score)
        #expect(metrics.intervalScore80 == score.intervalScore80 && metrics.intervalScore95 == score.intervalScore95)
    }

    /// At the nominal rate the rank is the static interval's, for every n (the static one counts in
    /// integers, `((n + 1) p + 99) / 100`; this one in floating point).
    @Test func theNominalRateIsTheStaticQuantile() {
        var r = SplitMix64(seed: 47)
        for n in 1...400 {
            let scores = (0..<n).map { _ in Double(Int.random(in: 0...10_000, using: &r)) / 1000 }.sorted()
            let a = IntervalAdaptation.standard(scores: scores)
            #expect(a.score(missRate: 0.20) == (PredictionIntervals.quantile(scores, percent: 80) ?? .infinity), "n \(n)")
            #expect(a.score(missRate: 0.05) == (PredictionIntervals.quantile(scores, percent: 95) ?? .infinity), "n \(n)")
        }
    }

    /// Calibrated on errors |N(0, 1)|, then 14 days of rows whose errors are 1.5 times as large: the
    /// static 80% interval covers P(|Z| < 1.2816 / 1.5) = 0.607 of them; the adaptive one widens
    /// back towards 0.80. With errors as calibrated, both cover 0.80 within binomial bounds.
    @Test func coverageComesBackWhenTheErrorsGrow() {
        var r = SplitMix64(seed: 2026_11_29)
        func normal() -> Double {
            let u = max(Double.random(in: 0..<1, using: &r), 1e-300), v = Double.random(in: 0..<1, using: &r)
            return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
        }
        let scores = (0..<2000).map { _ in abs(normal()) }
        let a = IntervalAdaptation.standard(scores: scores)
        for (spread, staticRange, adaptiveRange) in [(1.5, 0.57...0.65, 0.76...0.82), (1.0, 0.77...0.83, 0.77...0.83)] {
            let rows = (0..<(14 * 288)).map { k in Self.row(Double(k) * 5, reference: 100 + spread * normal()) }
            let adaptive = a.halfWidths(rows, targets: 0..<rows.count, scales: [1, 1, 1], horizonMinutes: 30)
            let fixed = IntervalAdaptation(windowMinutes: a.windowMinutes, gamma80: 0, gamma95: 0, scores: a.scores)
                .halfWidths(rows, targets: 0..<rows.count, scales: [1, 1, 1], horizonMinutes: 30)
            func coverage(_ h: [(h80: Double, h95: Double)]) -> Double {
                Double(zip(rows, h).count { abs($0.reference - $0.prediction) <= $1.h80 }) / Double(rows.count)
            }
            #expect(staticRange.contains(coverage(fixed)), "spread \(spread): static \(coverage(fixed))")
            #expect(adaptiveRange.contains(coverage(adaptive)), "spread \(spread): adaptive \(coverage(adaptive))")
        }
    }

    /// A model file's adaptation is checked when read.
    @Test func aBadAdaptationIsRefused() throws {
        let scales = [PredictionIntervals.Scale(scale: 10, rows: 100, pooled: false), .init(scale: 12, rows: 100, pooled: false),
                      .init(scale: 20, rows: 100, pooled: false)]
        let g = (0..<40).map { 60 + Double($0) * 4 }
        var intervals = try #require(PredictionIntervals(current: g, predictions: g, references: g.map { $0 + 5 }, scales: scales))
        intervals.adaptation = .standard(scores: PredictionIntervals.scaledScores(current: g, predictions: g, references: g.map { $0 + 5 },
                                                                                  scales: scales))
        #expect(intervals.problem() == nil)
        var bad = intervals
        bad.adaptation?.scores.removeLast()
        #expect(bad.problem()?.field == "intervals.adaptation.scores")
        bad = intervals
        bad.adaptation?.scores.reverse()
        #expect(bad.problem()?.field == "intervals.adaptation.scores")
        bad = intervals
        bad.adaptation?.gamma80 = .nan
        #expect(bad.problem()?.field == "intervals.adaptation.gamma80")
        bad = intervals
        bad.adaptation?.windowMinutes = 0
        #expect(bad.problem()?.field == "intervals.adaptation.windowMinutes")
    }
}
