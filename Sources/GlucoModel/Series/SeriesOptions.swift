import Foundation

/// How a `PatientLog` is laid on a grid.
public struct SeriesOptions: Sendable, Hashable {
    /// Grid step in seconds (5 minutes by default). Grid times are multiples of the step since 1970 UTC.
    public var step: TimeInterval = 300
    /// Glucose gaps whose bounding readings are at most this far apart are filled linearly.
    public var maxFilledGap: TimeInterval = 1800
    public var insulinModel: ExponentialInsulinModel = .adultRapid
    public var carbModel: BatemanCarbModel = .standard
    /// Share of a `normal_dual` bolus given at once when its record does not say (`Bolus.immediate`);
    /// the rest is spread to its end.
    public var dualBolusImmediateShare: Double = 0.5
    /// Bounds of the grid; by default the span of the log's records.
    public var start: Date?
    public var end: Date?

    public init(step: TimeInterval = 300, maxFilledGap: TimeInterval = 1800,
                insulinModel: ExponentialInsulinModel = .adultRapid, carbModel: BatemanCarbModel = .standard,
                start: Date? = nil, end: Date? = nil) {
        precondition(step > 0, "the grid step must be positive")
        self.step = step; self.maxFilledGap = maxFilledGap
        self.insulinModel = insulinModel; self.carbModel = carbModel
        self.start = start; self.end = end
    }
}

/// How the glucose value of a grid step was obtained.
public enum GlucoseFlag: UInt8, Sendable, Codable {
    /// At least one reading snapped to this step.
    case measured = 0
    /// Linearly interpolated inside a gap no longer than `maxFilledGap`.
    case filled = 1
    /// No value (a longer gap, or outside the readings); glucose is NaN.
    case missing = 2
}
