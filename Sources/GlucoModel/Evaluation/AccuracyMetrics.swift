/// Point accuracy of predictions against references (mg/dL), over the scorable pairs
/// (`GlucosePair.isScorable`); other pairs are counted in `unscored`.
///
/// - RMSE = sqrt(mean((p - r)^2)), MAE = mean(|p - r|), mean bias = mean(p - r),
///   MARD = 100 * mean(|p - r| / r) (%). All NaN when no pair is scorable.
public struct AccuracyMetrics: Hashable, Sendable, Codable {
    public var count = 0
    public var unscored = 0
    public var rmse = Double.nan
    public var mae = Double.nan
    public var mard = Double.nan
    public var meanBias = Double.nan
    public var hypo = HypoDetection()

    public init() {}

    public init(pairs: some Sequence<GlucosePair>, hypoThreshold: Double = HypoDetection.defaultThreshold) {
        var accumulator = Accumulator(hypoThreshold: hypoThreshold)
        for pair in pairs { accumulator.add(pair) }
        self = accumulator.result
    }

    /// Streaming sums, so a million pairs need no array.
    public struct Accumulator: Sendable {
        var n = 0, unscored = 0
        var sumSquared = 0.0, sumAbsolute = 0.0, sumRelative = 0.0, sumBias = 0.0
        var hypo: HypoDetection

        public init(hypoThreshold: Double = HypoDetection.defaultThreshold) {
            hypo = HypoDetection(threshold: hypoThreshold)
        }

        public mutating func add(_ pair: GlucosePair) {
            guard pair.isScorable else { unscored += 1; return }
            let d = pair.prediction - pair.reference
            n += 1
            sumSquared += d * d
            sumAbsolute += abs(d)
            sumRelative += abs(d) / pair.reference
            sumBias += d
            hypo.add(pair)
        }

        public var result: AccuracyMetrics {
            var m = AccuracyMetrics()
            m.count = n
            m.unscored = unscored
            m.hypo = hypo
            guard n > 0 else { return m }
            let count = Double(n)
            m.rmse = (sumSquared / count).squareRoot()
            m.mae = sumAbsolute / count
            m.mard = 100 * sumRelative / count
            m.meanBias = sumBias / count
            return m
        }
    }
}

/// Detection of hypoglycaemia: a value below `threshold` (default 70 mg/dL, `< 70`) is a hypo.
/// A positive is a predicted hypo; truth is the reference.
///
/// Sensitivity = TP / (TP + FN), specificity = TN / (TN + FP),
/// MCC = (TP*TN - FP*FN) / sqrt((TP+FP)(TP+FN)(TN+FP)(TN+FN)).
/// Each is NaN when its denominator is 0 (e.g. sensitivity with no reference hypo; MCC when
/// any of the four sums is 0).
public struct HypoDetection: Hashable, Sendable, Codable {
    public static let defaultThreshold = 70.0

    public var threshold = HypoDetection.defaultThreshold
    public var truePositives = 0, falsePositives = 0, trueNegatives = 0, falseNegatives = 0

    public init(threshold: Double = HypoDetection.defaultThreshold) { self.threshold = threshold }

    public mutating func add(_ pair: GlucosePair) {
        switch (pair.reference < threshold, pair.prediction < threshold) {
        case (true, true): truePositives += 1
        case (true, false): falseNegatives += 1
        case (false, true): falsePositives += 1
        case (false, false): trueNegatives += 1
        }
    }

    public var sensitivity: Double { ratio(truePositives, truePositives + falseNegatives) }
    public var specificity: Double { ratio(trueNegatives, trueNegatives + falsePositives) }

    public var matthewsCorrelation: Double {
        let tp = Double(truePositives), tn = Double(trueNegatives)
        let fp = Double(falsePositives), fn = Double(falseNegatives)
        let denominator = ((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)).squareRoot()
        return denominator == 0 ? .nan : (tp * tn - fp * fn) / denominator
    }

    func ratio(_ a: Int, _ b: Int) -> Double { b == 0 ? .nan : Double(a) / Double(b) }
}

/// Accuracy of predictions made `horizonMinutes` ahead.
public struct HorizonAccuracy: Hashable, Sendable, Codable {
    public var horizonMinutes: Int
    public var metrics: AccuracyMetrics

    public init(horizonMinutes: Int, metrics: AccuracyMetrics) {
        self.horizonMinutes = horizonMinutes; self.metrics = metrics
    }

    /// Groups pairs by horizon and computes each group's metrics, sorted by horizon.
    public static func byHorizon(_ pairs: some Sequence<(horizonMinutes: Int, pair: GlucosePair)>,
                                 hypoThreshold: Double = HypoDetection.defaultThreshold) -> [HorizonAccuracy] {
        var groups: [Int: AccuracyMetrics.Accumulator] = [:]
        for (h, pair) in pairs {
            groups[h, default: AccuracyMetrics.Accumulator(hypoThreshold: hypoThreshold)].add(pair)
        }
        return groups.keys.sorted().map { HorizonAccuracy(horizonMinutes: $0, metrics: groups[$0]!.result) }
    }
}
