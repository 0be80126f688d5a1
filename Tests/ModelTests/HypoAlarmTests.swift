import Foundation
import Testing
@testable import GlucoModel

/// A prediction scored as the alarm "glucose < 70 within the horizon", worked by hand.
struct HypoAlarmTests {
    // 5-minute steps, 15-minute horizon (windows of 3 steps). A low from step 4 to 5.
    let glucose: [Double] = [100, 90, 80, 75, 65, 60, 72, 90, 100, 100, 100, 100, 100, 100]
    // Rows issued at steps 0...10; an alarm is a prediction below 70.
    let predictions: [Double] = [72, 68, 60, 75, 65, 69, 80, 66, 85, 90, 90]

    @Test func rowsEventsAndFalseAlarms() {
        let s = HypoAlarmScore(predictions: predictions, steps: Array(0...10), glucose: glucose, stepMinutes: 5, horizonMinutes: 15)
        // Truth: rows 1-4 see 65 or 60 in their window (positive); 0 and 5-10 do not.
        // TP rows 1, 2, 4; FN row 3; FP rows 5, 7; TN rows 0, 6, 8, 9, 10.
        #expect(s.rows == 11 && s.positives == 4)
        #expect(s.sensitivity == 3.0 / 4)
        #expect(s.specificity == 5.0 / 7)
        // One event, starting at step 4 (65 after 75); rows 1-3 look at it, row 1 alarms first: 15 min ahead.
        #expect(s.events == 1 && s.detected == 1 && s.medianLeadMinutes == 15)
        // Alarm runs: rows 1-2 (true), rows 4-5 (true: row 4 is positive), row 7 (false).
        // One false alarm over 11 rows x 5 min.
        #expect(abs(s.falseAlarmsPerDay - 1 / (55.0 / 1440)) < 1e-12)
    }

    /// A low that follows another within the horizon: persistence (the reading as the prediction)
    /// alarmed all through the first low and was credited with the second's whole horizon of lead,
    /// though it can never foresee a low. An alarm issued while the CGM read low is the first low's.
    @Test func anAlarmDuringAnEarlierLowDoesNotDetectTheNextOne() {
        // Lows at steps 2-3 and from step 5; step 4 reads 72 between them. Horizon 15 min (3 steps).
        let g: [Double] = [100, 90, 65, 60, 72, 66, 62, 90, 100, 100]
        let persistence = Array(g[0...7])
        let s = HypoAlarmScore(predictions: persistence, steps: Array(0...7), glucose: g, stepMinutes: 5, horizonMinutes: 15)
        // Events at steps 2 and 5. Rows 2 and 3 alarm (65, 60) but the CGM read low then; row 4 reads 72:
        // no alarm. Neither event is detected (row 1 predicted 90 before the first).
        #expect(s.events == 2 && s.detected == 0 && s.medianLeadMinutes.isNaN)
        // A model that foresaw the second low at step 4 (glucose 72) detects it 5 minutes ahead.
        var foresight = persistence
        foresight[4] = 68
        let f = HypoAlarmScore(predictions: foresight, steps: Array(0...7), glucose: g, stepMinutes: 5, horizonMinutes: 15)
        #expect(f.detected == 1 && f.medianLeadMinutes == 5)
    }

    @Test func windowsWithAGapAndNoLowAreNotScored() {
        var gappy = glucose
        gappy[12] = .nan
        gappy[5] = .nan  // row 2's and 3's windows still hold 65: positive; row 4 sees 65? no: 5, 6, 7 -> gap, no low
        let s = HypoAlarmScore(predictions: predictions, steps: Array(0...10), glucose: gappy, stepMinutes: 5, horizonMinutes: 15)
        // Unscored: row 4 (5-7: gap, no low), row 9 (10-12) and row 10 (11-13). Scored: 0-3, 5-8.
        // Positives 1, 2, 3: TP 1, 2; FN 3. Negatives 0, 5, 6, 7, 8: FP 5, 7.
        #expect(s.rows == 8 && s.positives == 3)
        #expect(s.sensitivity == 2.0 / 3)
        #expect(s.specificity == 3.0 / 5)
    }

    /// A 15-minute CGM on the 5-minute grid (hunt BO, stop 63): rows are issued every third step,
    /// so alarming rows three steps apart follow each other, and each row stands for 15 minutes.
    /// Before, every alarming row was a false alarm of its own and a day was 288 rows: 1.0 per
    /// "day" here was 2/(12 x 5/1440) = 48.
    @Test func aFifteenMinuteCGMsAlarmsRunAndItsRowsCoverItsDays() {
        // Rows at steps 0, 3, ..., 33; the truth measured at every step (120 mg/dL, no low), so that
        // every row is scored. Horizon 15 min (3 steps).
        let g = [Double](repeating: 120, count: 40)
        let steps = Array(stride(from: 0, through: 33, by: 3))
        // Alarms at rows 2, 3 (steps 6, 9: one run) and row 7 (step 21: another). No low: two false alarms.
        var p = [Double](repeating: 110, count: steps.count)
        p[2] = 65; p[3] = 60; p[7] = 66
        let a = HypoAlarmScore(predictions: p, steps: steps, glucose: g, stepMinutes: 5, horizonMinutes: 15)
        #expect(a.rows == 12 && a.positives == 0 && a.specificity == 9.0 / 12)
        // Two runs over 12 rows x 3 steps x 5 min = 180 minutes, an eighth of a day: 16 per day.
        #expect(abs(a.falseAlarmsPerDay - 2 / (180.0 / 1440)) < 1e-12, "\(a.falseAlarmsPerDay)")
        #expect(HypoAlarmScore.usualSpacing(steps) == 3 && HypoAlarmScore.usualSpacing([0, 1, 3, 5, 6]) == 1
                && HypoAlarmScore.usualSpacing([]) == 1)
        // A row missing (step 12 not issued) breaks a run: steps 9 and 15 are 6 apart.
        let gap = steps.filter { $0 != 12 }
        var q = [Double](repeating: 110, count: gap.count)
        q[3] = 60; q[4] = 60  // steps 9 and 15
        #expect(HypoAlarmScore(predictions: q, steps: gap, glucose: g, stepMinutes: 5, horizonMinutes: 15).falseAlarmsPerDay
                == 2 / (Double(gap.count * 15) / 1440))
    }

    @Test func noLowsGiveAnUndefinedSensitivity() {
        let flat = [Double](repeating: 120, count: 20)
        let s = HypoAlarmScore(predictions: Array(repeating: 110, count: 10), steps: Array(0..<10), glucose: flat,
                               stepMinutes: 5, horizonMinutes: 30)
        #expect(s.sensitivity.isNaN && s.specificity == 1 && s.events == 0 && s.medianLeadMinutes.isNaN && s.falseAlarmsPerDay == 0)
    }
}
