import Foundation

/// Predictions scored as a hypoglycaemia alarm "glucose below `threshold` within the horizon"
/// against what the CGM showed (docs/accuracy.md, "Hypoglycaemia alarms").
///
/// - A row is a prediction issued at grid step `s` for `h` minutes ahead (`k = h / step` steps).
///   Its alarm fires when the prediction is below the threshold.
/// - Its truth is positive when a measured glucose of steps `s + 1 ... s + k` is below the threshold,
///   negative when all of them are measured and none is; otherwise (a gap, no low) the row is not
///   scored. Sensitivity = TP / (TP + FN), specificity = TN / (TN + FP), over the scored rows.
/// - An **event** starts at a step whose reading is below the threshold after a measured reading at or
///   above it. It is detected when a row issued in the `k` steps before it, with the CGM not below
///   the threshold then, alarmed (an alarm issued during an earlier low belongs to that one); its
///   lead time is from the earliest such alarm to the event's start. The median lead is over detected events.
/// - A **false alarm** is a run of consecutive alarming rows none of which is truth-positive; rows
///   follow each other when at most the rows' usual spacing apart (the most common gap between
///   issue steps, the shorter of a tie: 1 for a CGM of the grid's interval, 3 for a 15-minute CGM on
///   a 5-minute grid); per day = runs / (scored rows × usual spacing × step / 24 h). Before stop 63
///   a 15-minute CGM's alarming rows never followed each other, and its days were a third of its
///   span: false alarms per day 3 to 60 times too many (hunt BO).
public struct HypoAlarmScore: Hashable, Sendable {
    public var rows: Int
    public var positives: Int
    /// NaN when the rows hold no low (or no non-low).
    public var sensitivity: Double
    public var specificity: Double
    public var events: Int
    public var detected: Int
    /// Median minutes from the first alarm to an event's start, NaN when none was detected.
    public var medianLeadMinutes: Double
    public var falseAlarmsPerDay: Double

    /// Scores `predictions` issued at grid `steps` (increasing) for `horizonMinutes` ahead on a
    /// series of measured `glucose` (NaN where missing) with `stepMinutes` per step.
    public init(predictions: [Double], steps: [Int], glucose: [Double], stepMinutes: Int, horizonMinutes: Int,
                threshold: Double = 70) {
        precondition(predictions.count == steps.count, "one step per prediction")
        let k = max(1, horizonMinutes / max(stepMinutes, 1))
        var tp = 0, fn = 0, tn = 0, fp = 0
        var truth = [Bool?](repeating: nil, count: steps.count)
        for (r, s) in steps.enumerated() {
            let window = (s + 1)...(s + k)
            var low = false, complete = true
            for j in window {
                guard j >= 0, j < glucose.count, glucose[j].isFinite else { complete = false; continue }
                if glucose[j] < threshold { low = true }
            }
            guard low || complete else { continue }
            truth[r] = low
            let alarm = predictions[r] < threshold
            switch (low, alarm) {
            case (true, true): tp += 1
            case (true, false): fn += 1
            case (false, true): fp += 1
            case (false, false): tn += 1
            }
        }
        rows = tp + fn + tn + fp
        positives = tp + fn
        sensitivity = positives > 0 ? Double(tp) / Double(positives) : .nan
        specificity = tn + fp > 0 ? Double(tn) / Double(tn + fp) : .nan

        // Events in the steps the rows look at, and the alarms before each.
        var rowAt: [Int: Int] = [:]
        for (r, s) in steps.enumerated() { rowAt[s] = r }
        var leads: [Double] = []
        var events = 0
        if let first = steps.first, let last = steps.last {
            for e in max(first + 1, 1)...max(first + 1, min(last + k, glucose.count - 1)) where e < glucose.count {
                guard glucose[e] < threshold, glucose[e - 1].isFinite, glucose[e - 1] >= threshold else { continue }
                events += 1
                // An alarm issued while the CGM read low belongs to that low, not to this one:
                // counted, persistence (which never foresees a low) had 60 minutes of lead on a low
                // that followed another within the horizon.
                let alarmed = (max(0, e - k)..<e).first { step in
                    guard let row = rowAt[step], !(glucose[step] < threshold) else { return false }
                    return predictions[row] < threshold
                }
                if let s = alarmed {
                    leads.append(Double((e - s) * stepMinutes))
                }
            }
        }
        self.events = events
        detected = leads.count
        leads.sort()
        medianLeadMinutes = leads.isEmpty ? .nan
            : leads.count % 2 == 1 ? leads[leads.count / 2] : (leads[leads.count / 2 - 1] + leads[leads.count / 2]) / 2

        let spacing = Self.usualSpacing(steps)
        var falseRuns = 0, r = 0
        while r < steps.count {
            guard predictions[r] < threshold else { r += 1; continue }
            var end = r, hit = truth[r] == true
            while end + 1 < steps.count, steps[end + 1] - steps[end] <= spacing, predictions[end + 1] < threshold {
                end += 1
                if truth[end] == true { hit = true }
            }
            if !hit { falseRuns += 1 }
            r = end + 1
        }
        let days = Double(rows * spacing * stepMinutes) / 1440
        falseAlarmsPerDay = days > 0 ? Double(falseRuns) / days : .nan
    }

    /// The most common gap between consecutive `steps` (increasing), the shorter of a tie; 1 with none.
    static func usualSpacing(_ steps: [Int]) -> Int {
        var counts: [Int: Int] = [:]
        for (a, b) in zip(steps, steps.dropFirst()) where b > a { counts[b - a, default: 0] += 1 }
        return counts.max { ($0.value, -$0.key) < ($1.value, -$1.key) }?.key ?? 1
    }
}
