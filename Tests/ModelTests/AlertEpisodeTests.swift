import Foundation
import Testing
@testable import GlucoModel

/// Nightly alerts as episodes, on predictions built by hand.
@Suite("Alert episodes")
struct AlertEpisodeTests: HandPredictions {
    static func at(_ step: Int) -> Date { t0.addingTimeInterval(Double(step) * 300) }

    @Test func consecutivePredictionsBelowTheThresholdAreOneEpisode() {
        // Steps 1-4 predicted low (68, 62, 65, 69.9); measured 80, 72, 66, 60: the CGM first reads
        // below 70 at step 3, issued 30 min before step 1 -> lead = (3 - 1) * 5 + 30 = 40 min.
        // Step 0 and 5 are exactly 70.0: not low (strictly below). Steps 7-8 high; the arx row is ignored.
        let rows = [Self.row(0, 70.0, 90), Self.row(1, 68, 80), Self.row(2, 62, 72), Self.row(3, 65, 66), Self.row(4, 69.9, 60),
                    Self.row(5, 70.0, 65), Self.row(7, 251, 240), Self.row(8, 260, nil), Self.row(9, 10, 50, model: "arx")]
        let episodes = AlertEpisode.episodes(in: rows, thresholds: AlertThresholds())
        #expect(episodes.count == 2)
        let low = episodes[0], high = episodes[1]
        #expect(low.kind == .low && low.start == Self.at(1) && low.end == Self.at(4) && low.predictions == 4)
        #expect(low.firstIssuedAt == Self.at(1).addingTimeInterval(-1800) && low.threshold == 70)
        #expect(low.predictedExtreme == 62 && low.measuredExtreme == 60 && low.confirmed == true)
        #expect(low.measuredCrossing == Self.at(3) && low.leadMinutes == 40)
        #expect(low.csvLine == "p1,2026-01-15T07:35:00Z,low,30,70.0,2026-01-15T08:05:00Z,2026-01-15T08:20:00Z,4,62.0,60.0,yes,40")
        // High: 251 and 260; measured 240 only: not confirmed, no lead time.
        #expect(high.kind == .high && high.predictedExtreme == 260 && high.measuredExtreme == 240 && high.confirmed == false)
        #expect(high.leadMinutes == nil && high.csvLine.hasSuffix(",2,260.0,240.0,no,"))
    }

    /// An alert issued while the CGM already read low was credited with its whole horizon of warning:
    /// the crossing was looked for at the run's target times only, all a horizon after the first issue.
    /// With the CGM's readings it is walked back to where the CGM's own run below 70 began.
    @Test func anAlertOfALowAlreadyUnderWayHasANegativeLead() {
        // Predicted low for targets at steps 6-8 (issued at steps 0-2, 30 min before). The CGM: 90 at
        // step -4, 80 at -3, then 68 from step -2 on: it crossed 10 minutes before the first issue.
        let rows = [Self.row(6, 60, 60), Self.row(7, 58, 60), Self.row(8, 59, 60)]
        let cgm = (-4...8).map { GlucoseReading(time: Self.at($0), value: .mgdL($0 == -4 ? 90 : $0 == -3 ? 80 : 68)) }
        let thresholds = AlertThresholds()
        #expect(AlertEpisode.episodes(in: rows, thresholds: thresholds).map(\.leadMinutes) == [30])
        let late = AlertEpisode.episodes(in: rows, thresholds: thresholds, glucose: cgm)
        #expect(late.map(\.measuredCrossing) == [Self.at(-2)] && late.map(\.leadMinutes) == [-10])
        #expect(late[0].csvLine.hasSuffix(",3,58.0,60.0,yes,-10"))
        // A sensor gap of 25 minutes (steps -7 to -2 missing) ends the walk back: the run began at -2.
        let gapped = [GlucoseReading(time: Self.at(-8), value: .mgdL(60))] + cgm.filter { $0.time >= Self.at(-2) }
        #expect(AlertEpisode.episodes(in: rows, thresholds: thresholds, glucose: gapped).map(\.leadMinutes) == [-10])
        // The CGM crossing after the issue keeps its positive lead: low from step 4 only.
        let early = (-4...8).map { GlucoseReading(time: Self.at($0), value: .mgdL($0 < 4 ? 95 : 64)) }
        #expect(AlertEpisode.episodes(in: rows, thresholds: thresholds, glucose: early).map(\.leadMinutes) == [20])
    }

    @Test func aMissingStepOrAnotherHorizonStartsAnotherEpisode() {
        // Steps 0, 1 and 3 low at 30 min (step 2 missing: 10 min apart), step 0 low at 60 min.
        let rows = [Self.row(0, 60, nil), Self.row(1, 60, nil), Self.row(3, 60, nil), Self.row(0, 50, nil, horizon: 60)]
        let episodes = AlertEpisode.episodes(in: rows, thresholds: AlertThresholds())
        #expect(episodes.map(\.predictions) == [1, 2, 1])     // sorted by first issue: 60-min first
        #expect(episodes.map(\.horizonMinutes) == [60, 30, 30])
        #expect(episodes.allSatisfy { $0.confirmed == nil && $0.csvLine.hasSuffix(",,,") })
    }

    /// A CGM that reads every 15 minutes: predictions are issued at its readings only, every third
    /// step. A low predicted at each of four of them in a row is one episode, not four; a
    /// prediction in range between two lows still parts them, and so does a missed reading (30
    /// minutes). Before, every one-step gap parted them: a night's one low was 11 alerts, and the
    /// report counted as many runs.
    @Test func predictionsOfA15MinuteCGMThatFollowEachOtherAreOneEpisode() {
        let steps = [0, 3, 6, 9, 12, 15, 18, 24, 27]
        let predicted: [Double] = [60, 55, 52, 58, 90, 65, 62, 61, 64]
        let rows = zip(steps, predicted).map { Self.row($0, $1, nil) } + [Self.row(0, 50, nil, model: "arx")]
        let ge = rows.filter { $0.model == "ge" }
        #expect(IssueSpacing.of(ge, atLeast: 300) == 900)
        let thresholds = AlertThresholds()
        let episodes = AlertEpisode.episodes(in: rows.filter { AlertEpisode.isExcursion($0, thresholds) }, thresholds: thresholds,
                                             step: IssueSpacing.of(ge, atLeast: 300))
        #expect(episodes.map(\.predictions) == [4, 2, 2])
        #expect(episodes.map(\.start) == [0, 15, 24].map(Self.at) && episodes.map(\.predictedExtreme) == [52, 62, 61])
        // The grid step alone: one episode per prediction.
        #expect(AlertEpisode.episodes(in: rows, thresholds: thresholds).count == 8)
        // The report's runs: the same three.
        #expect(PredictedEpisode.find(rows).map { [$0.start, $0.end] } == [[0, 9], [15, 18], [24, 27]].map { $0.map(Self.at) })
    }

    /// The usual gap is the most common (the shorter of a tie), never below the grid step; a
    /// missing reading or another horizon does not change it.
    @Test func theUsualSpacingOfPredictions() {
        let five = [0, 1, 2, 4, 5, 6].map { Self.row($0, 100, nil) } + [0, 1].map { Self.row($0, 100, nil, horizon: 60) }
        #expect(IssueSpacing.of(five, atLeast: 300) == 300)
        #expect(IssueSpacing.of([0, 2, 4, 7, 10].map { Self.row($0, 100, nil) }, atLeast: 300) == 600)
        #expect(IssueSpacing.of([Self.row(0, 100, nil)], atLeast: 300) == 300)
        #expect(IssueSpacing.of([0, 1, 2].map { Self.row($0, 100, nil) }, atLeast: 600) == 600)
    }

    @Test func thresholdsAreTheOnesGiven() {
        let rows = [Self.row(0, 75, 74), Self.row(1, 79.9, 78)]
        let episodes = AlertEpisode.episodes(in: rows, thresholds: AlertThresholds(low: 80, high: 300))
        #expect(episodes.count == 1 && episodes[0].threshold == 80 && episodes[0].confirmed == true)
        #expect(episodes[0].csvLine.contains(",low,30,80.0,"))
    }
}
