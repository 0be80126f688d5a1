import Foundation

/// A patient's log on a fixed time grid: the clean series the models learn from.
///
/// Grid point `i` is `time(at: i) = start + i*step`. Conventions:
/// - glucose: each CGM reading counts at the point ending its step, `(time(i) - step, time(i)]`, so
///   that a point never holds a reading taken after it; several in one step are averaged. Finger sticks are used only at points no CGM reading reaches. Gaps whose bounding
///   points are at most `maxFilledGap` apart are filled linearly (`.filled`); longer gaps stay NaN (`.missing`).
///   A filled value is known only once the reading that closes its gap has arrived: `glucoseKnownAt`.
/// - insulin, carbs: the amount delivered or eaten in the step ending at the point,
///   `(time(i) - step, time(i)]`, so point `i` sees only what happened at or before it. Scheduled basal
///   runs from its start to the next basal (or its own end); a temporary basal overrides it; square and
///   the extended part of dual boluses are spread evenly to their end; basal injections count as doses.
/// - exercise: the highest intensity of the sessions active during the step (0 if none).
/// - heart rate: the mean of the samples in the step (NaN if none).
/// - derived, causal: insulin on board and activity (`ExponentialInsulinModel`), carbohydrates on
///   board and rate of appearance (`BatemanCarbModel`), from the amounts at points `j <= i`, each
///   treated as given at its point.
public struct PatientSeries: Sendable {
    public let patient: PatientID
    public let start: Date
    public let step: TimeInterval
    /// mg/dL, NaN when missing.
    public var glucose: [Double]
    public var glucoseFlags: [GlucoseFlag]
    /// Units of insulin delivered in the step.
    public var insulin: [Double]
    /// Grams of carbohydrate eaten in the step.
    public var carbs: [Double]
    public var exercise: [Double]
    /// Beats per minute, NaN when no sample.
    public var heartRate: [Double]
    /// Insulin on board (U).
    public var insulinOnBoard: [Double]
    /// Insulin activity (U acting per minute).
    public var insulinActivity: [Double]
    /// Carbohydrates on board (g not yet appeared).
    public var carbsOnBoard: [Double]
    /// Carbohydrate rate of appearance (g/min).
    public var carbAppearance: [Double]

    public var count: Int { glucose.count }

    public func time(at index: Int) -> Date { start.addingTimeInterval(Double(index) * step) }

    /// The grid points from `from` to `to`, both inclusive (nil: the grid's first or last point);
    /// empty when none lies between them.
    public func steps(from: Date?, to: Date?) -> Range<Int> {
        let lower = from.map { max(0, Int(($0.timeIntervalSince(start) / step).rounded(.up))) } ?? 0
        let upper = to.map { min(count, Int(($0.timeIntervalSince(start) / step).rounded(.down)) + 1) } ?? count
        return lower < upper ? lower..<upper : lower..<lower
    }

    /// The grid point nearest to `date`, or nil outside the grid.
    public func index(of date: Date) -> Int? {
        let i = Int(((date.timeIntervalSince(start)) / step).rounded())
        return i >= 0 && i < count ? i : nil
    }

    /// Names of the channels in `columns`, in order.
    public static let columnNames = ["glucose", "insulin", "carbs", "exercise", "heart_rate",
                                     "iob", "insulin_activity", "cob", "carb_ra"]

    /// The channels as named columns for the GE engine (order of `columnNames`).
    public var columns: [(name: String, values: [Double])] {
        zip(Self.columnNames, [glucose, insulin, carbs, exercise, heartRate,
                               insulinOnBoard, insulinActivity, carbsOnBoard, carbAppearance]).map { ($0, $1) }
    }

    /// For each point, the first point at which its glucose value is known: itself when measured,
    /// the point of the reading closing the gap when filled, `Int.max` when missing. A causal
    /// computation at point `t` may read glucose at `i` only when `glucoseKnownAt[i] <= t`.
    public var glucoseKnownAt: [Int] { glucoseKnownAt(0..<count) }

    /// `glucoseKnownAt` of the points of `range` only (point `i` at `i - range.lowerBound`): what a
    /// feature table of a few steps reads, without a pass over the whole series.
    public func glucoseKnownAt(_ range: Range<Int>) -> [Int] {
        // Where the closing reading of a gap running past the range is: after its filled points.
        var next = Int.max
        var j = range.upperBound
        while j < count, glucoseFlags[j] == .filled { j += 1 }
        if j < count, glucoseFlags[j] == .measured { next = j }
        var known = [Int](repeating: .max, count: range.count)
        for i in range.reversed() {
            switch glucoseFlags[i] {
            case .measured: next = i; known[i - range.lowerBound] = i
            case .filled: known[i - range.lowerBound] = next
            case .missing: next = .max
            }
        }
        return known
    }

    /// Looks a column up by name.
    public func column(_ name: String) -> [Double]? { columns.first { $0.name == name }?.values }

    /// Builds the grid. An empty log gives an empty series starting at `options.start` (or 1970).
    public init(log: PatientLog, options: SeriesOptions = SeriesOptions()) {
        let step = options.step
        let span = Self.span(of: log)
        let first = options.start ?? span?.first ?? Date(timeIntervalSince1970: 0)
        let last = options.end ?? span?.last ?? first
        let startSeconds = (first.timeIntervalSince1970 / step).rounded(.down) * step
        let n = last < first ? 0 : Int(((last.timeIntervalSince1970 - startSeconds) / step).rounded(.up)) + 1
        patient = log.patient
        start = Date(timeIntervalSince1970: startSeconds)
        self.step = step
        let grid = SeriesGrid(start: startSeconds, step: step, count: n)
        (glucose, glucoseFlags) = grid.glucose(log.glucose, maxGap: options.maxFilledGap)
        insulin = grid.insulin(log, dualShare: options.dualBolusImmediateShare)
        carbs = grid.events(log.carbs.map { ($0.time, $0.amount.grams) })
        exercise = grid.exercise(log.exercise)
        heartRate = grid.mean(log.heartRate.map { ($0.time, $0.beatsPerMinute) })
        let stepMinutes = step / 60
        let insulinModel = options.insulinModel
        let carbModel = options.carbModel
        insulinOnBoard = Self.convolve(insulin, stepMinutes, insulinModel.durationMinutes) { insulinModel.fractionRemaining(after: $0) }
        insulinActivity = Self.convolve(insulin, stepMinutes, insulinModel.durationMinutes) { insulinModel.activity(after: $0) }
        // The Bateman tails are cut where under 1e-6 of the meal remains.
        let carbHorizon = Self.horizon(carbModel)
        carbsOnBoard = Self.convolve(carbs, stepMinutes, carbHorizon) { carbModel.fractionRemaining(after: $0) }
        carbAppearance = Self.convolve(carbs, stepMinutes, carbHorizon) { carbModel.rateOfAppearance(after: $0) }
    }

    /// `out[i] = sum_{j<=i} amount[j] * kernel((i-j)*step)` for lags up to `horizon` minutes.
    /// - Complexity: O(n * horizon/step).
    static func convolve(_ amounts: [Double], _ stepMinutes: Double, _ horizon: Double, _ kernel: (Double) -> Double) -> [Double] {
        let lags = Int((horizon / stepMinutes).rounded(.up))
        let k = (0...max(lags, 0)).map { kernel(Double($0) * stepMinutes) }
        var out = [Double](repeating: 0, count: amounts.count)
        for (j, amount) in amounts.enumerated() where amount != 0 {
            for lag in 0..<k.count where j + lag < amounts.count {
                out[j + lag] += amount * k[lag]
            }
        }
        return out
    }

    static func horizon(_ model: BatemanCarbModel) -> Double {
        var t = 60.0
        while model.fractionRemaining(after: t) > 1e-6 && t < 7 * 24 * 60 { t += 60 }
        return t
    }

    /// First and last instant any record covers.
    static func span(of log: PatientLog) -> (first: Date, last: Date)? {
        var times: [Date] = []
        times += [log.glucose.first?.time, log.glucose.last?.time, log.boluses.first?.time, log.carbs.first?.time,
                  log.carbs.last?.time, log.basalRates.first?.time, log.temporaryBasals.first?.time,
                  log.basalInjections.first?.time, log.basalInjections.last?.time, log.exercise.first?.time,
                  log.heartRate.first?.time, log.heartRate.last?.time].compactMap { $0 }
        times += log.boluses.map { $0.end ?? $0.time }
        times += log.temporaryBasals.map(\.end)
        times += log.exercise.map { $0.time.addingTimeInterval($0.durationMinutes * 60) }
        guard let first = log.firstInstant, let last = times.max() else { return nil }
        return (first, last)
    }
}

extension PatientSeries {
    /// The CGM's interval in grid steps when it records less often than every step (3 for a
    /// 15-minute CGM on the 5-minute grid): the most common distance between measured steps, when
    /// it is more than one and at least half of the distances are it. Nil for a CGM of the grid's
    /// own interval, or readings too irregular to say.
    public var readingSteps: Int? {
        var counts: [Int: Int] = [:], total = 0, last: Int?
        for i in glucoseFlags.indices where glucoseFlags[i] == .measured {
            if let last { counts[i - last, default: 0] += 1; total += 1 }
            last = i
        }
        guard let (steps, n) = counts.max(by: { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }),
              steps > 1, 2 * n >= total else { return nil }
        return steps
    }
}
